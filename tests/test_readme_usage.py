"""The README's Usage block names only options and commands that exist, and names every
output format (it is the first place a user looks)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptxlint.cli import _extra_formats, build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def _usage_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Usage\n+```console\n(.*?)```", text, re.M | re.S)
    assert match is not None
    return match.group(1)


def _help(*command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return capsys.readouterr().out


def test_every_option_in_the_usage_block_exists(capsys) -> None:
    usage = _usage_block()
    known = "\n".join(
        _help(*command, capsys=capsys)
        for command in (("check",), ("stats",), ("rule",), ("config",), ("doctor",), ())
    )
    for option in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", usage))):
        assert option in known, f"README's usage names {option}, which no command has"


def test_every_command_in_the_usage_block_exists() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for line in _usage_block().splitlines():
        words = line.split()
        if len(words) > 1 and words[0] == "ptxlint" and re.fullmatch(r"[a-z]+", words[1]):
            assert words[1] in commands, line


def test_usage_block_lists_every_output_format() -> None:
    line = next(s for s in _usage_block().splitlines() if "--output-format" in s)
    listed = set(line.split()[-1].split("|"))
    assert listed == {"text", "json", "sarif", "github", *_extra_formats()}
