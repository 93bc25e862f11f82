"""Every setting is documented, from the one table that defines it: ``ptxlint config``, ``ptxlint
config KEY`` and docs/configuration.md all read ``ptxlint.config.SETTINGS``, and a setting the
parser reads without a documentation entry fails here."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from ptxlint import config_docs
from ptxlint.cli import main
from ptxlint.config import _KEYS, EXTEND_KEY, SETTINGS, VALID_KEYS, Config, parse_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_every_config_field_is_set_by_a_documented_setting() -> None:
    fields = {f.name for f in dataclasses.fields(Config)} - {"source"}
    assert fields == {s.field for s in SETTINGS if s.field is not None}


def test_every_key_the_parser_reads_is_documented() -> None:
    documented = {s.key for s in SETTINGS}
    assert set(_KEYS) <= documented and set(VALID_KEYS) <= documented
    assert EXTEND_KEY in documented  # read by the extend chain, before parse_table
    assert len(documented) == len(SETTINGS), "a key documented twice"


@pytest.mark.parametrize("setting", SETTINGS, ids=[s.key for s in SETTINGS])
def test_each_setting_has_docs_and_a_valid_example(setting) -> None:
    for text in (setting.type, setting.default, setting.summary, setting.doc, setting.example):
        assert text.strip(), setting.key
    table = tomllib.loads(setting.example)
    assert setting.key in table, f"{setting.key}: the example sets another key"
    if setting.field is not None:
        config = parse_table(table, None, is_pyproject=False)
        assert getattr(config, setting.field) != getattr(Config(), setting.field) or \
            setting.key == "fixable"
    for flag in setting.flags:
        assert flag.startswith("--")


def test_flags_named_exist_on_check(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    help_text = capsys.readouterr().out
    for setting in SETTINGS:
        for flag in setting.flags:
            assert flag in help_text, f"{setting.key}: {flag} is not an option of check"


def test_config_command_lists_every_setting(capsys) -> None:
    assert main(["config"]) == 0
    keys = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert keys == [s.key for s in SETTINGS]


def test_config_command_documents_one_setting(capsys) -> None:
    assert main(["config", "per-file-ignores"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("per-file-ignores\n")
    assert "Type: table of glob" in out and "Command line: --per-file-ignores" in out
    assert '    "tests/**" = ["PTX009"]' in out


def test_config_command_json(capsys) -> None:
    assert main(["config", "--output-format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["key"] for e in listed] == [s.key for s in SETTINGS]
    assert set(listed[0]) == {"key", "type", "default", "summary", "doc", "example", "flags"}


def test_unknown_setting_suggests_the_nearest(capsys) -> None:
    assert main(["config", "per-file-ignore"]) == 2
    assert "did you mean 'per-file-ignores'?" in capsys.readouterr().err


def test_configuration_page_is_generated_from_the_table() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == config_docs.markdown(), "run python scripts/gen_rule_docs.py"
