from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from ptxlint import config as config_module
from ptxlint.config import (
    VALID_KEYS,
    Config,
    ConfigError,
    RuleSelector,
    find_config,
    load_config,
    merge_cli,
    normalize_arch,
    parse_arch,
)

RULES = [
    ("PTX101", "missing-clobber"),
    ("PTX102", "missing-volatile"),
    ("PTX110", "constraint-width"),
    ("PTX201", "arch-feature"),
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- finding


def test_find_config_walks_upward_from_common_folder(tmp_path: Path) -> None:
    cfg = write(tmp_path / "proj/ptxlint.toml", "")
    write(tmp_path / "proj/src/a/x.cu", "")
    write(tmp_path / "proj/src/b/y.cu", "")
    found = find_config([str(tmp_path / "proj/src/a/x.cu"), str(tmp_path / "proj/src/b")])
    assert found == str(cfg)


def test_find_config_nearest_folder_wins(tmp_path: Path) -> None:
    write(tmp_path / "ptxlint.toml", "")
    inner = write(tmp_path / "sub/pyproject.toml", "[tool.ptxlint]\nselect = ['PTX1']\n")
    assert find_config([str(tmp_path / "sub")]) == str(inner)


def test_find_config_skips_pyproject_without_table(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", "[tool.ptxlint]\n")
    write(tmp_path / "sub/pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    # A broken pyproject that never mentions us must not break lookup.
    write(tmp_path / "sub/deeper/pyproject.toml", "[[[ not toml")
    assert find_config([str(tmp_path / "sub/deeper")]) == str(outer)


def test_find_config_nested_tool_table_counts(tmp_path: Path) -> None:
    cfg = write(tmp_path / "pyproject.toml", "[tool.ptxlint.per-file-ignores]\n'a.cu' = ['PTX1']\n")
    assert find_config([str(tmp_path)]) == str(cfg)


def test_ptxlint_toml_beats_pyproject_in_same_folder(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.ptxlint]\nselect = ['PTX2']\n")
    cfg = write(tmp_path / "ptxlint.toml", "select = ['PTX1']\n")
    assert find_config([str(tmp_path)]) == str(cfg)
    hidden = write(tmp_path / ".ptxlint.toml", "")
    assert find_config([str(tmp_path)]) == str(hidden)


def test_find_config_none_and_relative_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.cu", "")
    result = find_config(["a.cu"])
    # Nothing in tmp_path; whatever an ancestor of tmp_path holds is out of our hands.
    assert result is None or not result.startswith(str(tmp_path))
    cfg = write(tmp_path / "ptxlint.toml", "")
    assert find_config(["a.cu"]) == str(cfg)
    assert find_config([]) == str(cfg)


def test_find_config_broken_pyproject_mentioning_us_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.ptxlint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        find_config([str(tmp_path)])


# --------------------------------------------------------------------------- loading


def test_load_none_gives_defaults() -> None:
    assert load_config(None) == Config()


def test_load_full_pyproject(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        """
[project]
name = "x"

[tool.ptxlint]
select = ["PTX1"]
extend-select = ["PTX201"]
ignore = ["missing-volatile"]
arch = "compute_90a"
extensions = ["cu", ".cuh"]
exclude = ["third_party/"]
respect-gitignore = false
max-file-size = 1024
fail-on = "error"

[tool.ptxlint.per-file-ignores]
"tests/*.cu" = ["PTX101"]

[tool.ptxlint.severity]
PTX1 = "info"
""",
    )
    config = load_config(str(path))
    assert config == Config(
        select=("PTX1",),
        extend_select=("PTX201",),
        ignore=("missing-volatile",),
        per_file_ignores=(("tests/*.cu", ("PTX101",)),),
        severity=(("PTX1", "info"),),
        arch=("sm_90a",),
        extensions=(".cu", ".cuh"),
        exclude=("third_party/",),
        respect_gitignore=False,
        max_file_size=1024,
        fail_on="error",
        source=str(path),
    )
    assert config.root == str(tmp_path)


def test_explicit_config_file(tmp_path: Path) -> None:
    path = write(tmp_path / "elsewhere/custom.toml", "arch = 80\n")
    assert load_config(str(path)).arch == ("sm_80",)


def test_explicit_pyproject_without_table_is_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert load_config(str(path)) == Config(source=str(path))


def test_unknown_key_names_key_suggests_and_lists_valid(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool.ptxlint]\nextend_select = ['PTX1']\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(path))
    message = str(info.value)
    assert str(path) in message
    assert "unknown key 'extend_select' in [tool.ptxlint]" in message
    assert "did you mean 'extend-select'?" in message
    assert "valid keys: " + ", ".join(VALID_KEYS) in message


def test_tool_table_in_ptxlint_toml_gets_a_hint(tmp_path: Path) -> None:
    path = write(tmp_path / "ptxlint.toml", "[tool.ptxlint]\nselect = ['PTX1']\n")
    with pytest.raises(ConfigError, match=r"unknown key 'tool'.*top level"):
        load_config(str(path))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("select = 'PTX1'", r"select: expected an array of rule selectors, got string 'PTX1'"),
        ("select = ['PTX 1']", r"select: invalid rule selector 'PTX 1'"),
        ("ignore = [1]", r"ignore: expected an array of rule selectors"),
        ("respect-gitignore = 'yes'", r"respect-gitignore: expected true or false"),
        ("max-file-size = '2MB'", r"max-file-size: expected a non-negative integer"),
        ("max-file-size = -1", r"max-file-size: expected a non-negative integer"),
        ("max-file-size = true", r"max-file-size: expected a non-negative integer"),
        ("fail-on = 'fatal'", r"fail-on: expected one of error, warning, info, never"),
        ("arch = 'sm_80a'", r"arch: invalid arch 'sm_80a'"),
        ("arch = true", r"arch: expected a string"),
        ("severity = { PTX1 = 'loud' }", r"severity: 'PTX1': invalid level 'loud'"),
        ("severity = ['PTX1']", r"severity: expected a table"),
        ("per-file-ignores = { 'a.cu' = 'PTX1' }", r"per-file-ignores: 'a.cu': expected an array"),
        ("exclude = ['[z-a]']", r"exclude: invalid pattern"),
        ("extensions = ['a/b']", r"extensions: invalid extension"),
    ],
)
def test_bad_values_name_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / "ptxlint.toml", text + "\n")
    with pytest.raises(ConfigError, match=expected) as info:
        load_config(str(path))
    assert str(info.value).startswith(f"{path}: ")


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    path = write(tmp_path / "ptxlint.toml", "select = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(str(path))
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(tmp_path / "missing.toml"))


# --------------------------------------------------------------------------- arch


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sm_90a", (90, "a")),
        ("sm_100f", (100, "f")),
        ("compute_80", (80, "")),
        ("90", (90, "")),
        ("SM_90A", (90, "a")),
        ("sm90", (90, "")),
        (" sm_120a ", (120, "a")),
        ("compute_100a", (100, "a")),
    ],
)
def test_parse_arch(text: str, expected: tuple[int, str]) -> None:
    assert parse_arch(text) == expected


@pytest.mark.parametrize(
    "text", ["", "sm_", "sm_9", "sm_90x", "gfx90a", "sm_080", "sm_80a", "sm_90f"]
)
def test_parse_arch_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid arch"):
        parse_arch(text)


def test_normalize_arch() -> None:
    assert normalize_arch("compute_90a") == "sm_90a"
    assert normalize_arch(75) == "sm_75"


# --------------------------------------------------------------------------- CLI merge


def test_merge_cli_replaces_and_extends() -> None:
    base = Config(select=("PTX1",), ignore=("PTX110",), exclude=("a/",), arch=("sm_80",))
    merged = merge_cli(
        base,
        select=["PTX2"],
        extend_select=["PTX101"],
        ignore=["PTX102"],
        extend_exclude=["b/"],
        arch="90a",
        fail_on=None,
        severity={"PTX2": "error"},
    )
    assert merged.select == ("PTX2",)
    assert merged.extend_select == ("PTX101",)
    assert merged.ignore == ("PTX110", "PTX102")
    assert merged.exclude == ("a/", "b/")
    assert merged.arch == ("sm_90a",)
    assert merged.fail_on == "warning"
    assert merged.severity == (("PTX2", "error"),)
    assert merge_cli(base, exclude=["c/"]).exclude == ("c/",)
    # Empty lists are how argparse says "flag not given": they must not wipe the config.
    assert merge_cli(base, select=[], exclude=(), ignore=[]) == base


def test_merge_cli_validates_and_rejects_unknown() -> None:
    with pytest.raises(ConfigError, match="--arch: invalid arch"):
        merge_cli(Config(), arch="sm_7")
    with pytest.raises(TypeError, match="nonsense"):
        merge_cli(Config(), nonsense=1)


# --------------------------------------------------------------------------- selection


def enabled_ids(selector: RuleSelector, path: str | None = None) -> list[str]:
    return [rule_id for rule_id, name in RULES if selector.enabled(rule_id, name, path)]


def test_default_is_all_rules() -> None:
    assert enabled_ids(RuleSelector(Config(), RULES)) == ["PTX101", "PTX102", "PTX110", "PTX201"]


def test_default_disabled_rules_need_selecting() -> None:
    selector = RuleSelector(Config(), RULES, default_disabled={"PTX201"})
    assert enabled_ids(selector) == ["PTX101", "PTX102", "PTX110"]
    selector = RuleSelector(Config(extend_select=("PTX2",)), RULES, default_disabled={"PTX201"})
    assert "PTX201" in enabled_ids(selector)


def test_select_by_prefix_id_and_name() -> None:
    assert enabled_ids(RuleSelector(Config(select=("PTX1",)), RULES)) == [
        "PTX101",
        "PTX102",
        "PTX110",
    ]
    selector = RuleSelector(Config(select=("PTX11", "missing-clobber")), RULES)
    assert enabled_ids(selector) == ["PTX101", "PTX110"]
    assert enabled_ids(RuleSelector(Config(select=("ALL",), ignore=("PTX1",)), RULES)) == ["PTX201"]


def test_more_specific_selector_wins() -> None:
    # An exact select beats a prefix ignore ...
    selector = RuleSelector(Config(select=("PTX101",), ignore=("PTX1",)), RULES)
    assert enabled_ids(selector) == ["PTX101"]
    # ... an exact ignore beats a prefix select ...
    selector = RuleSelector(Config(select=("PTX1",), ignore=("PTX101",)), RULES)
    assert enabled_ids(selector) == ["PTX102", "PTX110"]
    # ... a longer prefix beats a shorter one ...
    selector = RuleSelector(
        Config(select=("PTX",), ignore=("PTX1",), extend_select=("PTX11",)), RULES
    )
    assert enabled_ids(selector) == ["PTX110", "PTX201"]
    # ... and on a tie ignore wins.
    selector = RuleSelector(Config(select=("PTX1",), ignore=("PTX1",)), RULES)
    assert enabled_ids(selector) == []
    selector = RuleSelector(Config(select=("PTX101",), ignore=("missing-clobber",)), RULES)
    assert enabled_ids(selector) == []


def test_ignore_with_empty_select() -> None:
    selector = RuleSelector(Config(ignore=("PTX1",), extend_select=("PTX110",)), RULES)
    assert enabled_ids(selector) == ["PTX110", "PTX201"]


def test_per_file_ignores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = Config(
        per_file_ignores=(
            ("tests/", ("PTX1",)),
            ("*.cuh", ("arch-feature",)),
            ("/src/legacy.cu", ("ALL",)),  # anchored at the config's folder, proj/
            ("!src/**", ("PTX201",)),  # negated: files outside src/ lose PTX201
        ),
        source=str(tmp_path / "proj/ptxlint.toml"),
    )
    selector = RuleSelector(config, RULES)
    assert enabled_ids(selector, "proj/src/main.cu") == RULES_IDS
    assert enabled_ids(selector, "proj/src/tests/t.cu") == ["PTX201"]
    assert enabled_ids(selector, "proj/tests/t.cu") == []
    assert enabled_ids(selector, "proj/src/k.cuh") == ["PTX101", "PTX102", "PTX110"]
    assert enabled_ids(selector, "proj/src/legacy.cu") == []
    assert enabled_ids(selector, str(tmp_path / "proj/src/legacy.cu")) == []
    assert enabled_ids(selector, "proj/other/x.cu") == ["PTX101", "PTX102", "PTX110"]
    # Without a path, per-file ignores do not apply.
    assert enabled_ids(selector) == RULES_IDS


RULES_IDS = [rule_id for rule_id, _ in RULES]


def test_per_file_ignores_match_path_as_given(tmp_path: Path) -> None:
    # The config lives elsewhere; the path as given still matches the glob.
    config = Config(per_file_ignores=(("gen/*.cu", ("PTX1",)),), source="/nonexistent/cfg.toml")
    selector = RuleSelector(config, RULES)
    assert enabled_ids(selector, "./gen/a.cu") == ["PTX201"]
    assert enabled_ids(selector, "src/gen/a.cu") == RULES_IDS  # anchored: "gen/*.cu" has a slash


def test_severity_overrides() -> None:
    config = Config(
        severity=(
            ("PTX1", "info"),
            ("PTX101", "error"),
            ("arch-feature", "warning"),
            ("PTX1", "warning"),
        )
    )
    selector = RuleSelector(config, RULES)
    assert selector.severity_for("PTX101", "missing-clobber", "warning") == "error"
    assert selector.severity_for("PTX102", "missing-volatile", "error") == "warning"  # later tie
    assert selector.severity_for("PTX201", "arch-feature", "error") == "warning"
    assert selector.severity_for("PTX999", "other", "info") == "info"


def test_severity_off_disables() -> None:
    selector = RuleSelector(Config(severity=(("PTX1", "off"), ("PTX110", "error"))), RULES)
    assert enabled_ids(selector) == ["PTX110", "PTX201"]


def test_unknown_selectors() -> None:
    config = Config(
        select=("PTX1", "ALL", "PTX999"),
        ignore=("missing-clobbers",),
        per_file_ignores=(("*.cu", ("PTX3",)),),
        severity=(("arch-feature", "off"), ("XYZ", "info")),
    )
    selector = RuleSelector(config, RULES)
    assert selector.unknown_selectors() == ["PTX999", "missing-clobbers", "PTX3", "XYZ"]
    assert selector.unknown_selectors([("PTX999", "x")]) == [
        "PTX1",
        "missing-clobbers",
        "PTX3",
        "arch-feature",
        "XYZ",
    ]


# --------------------------------------------------------------------------- tomli fallback


def test_tomli_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("tomli")
    monkeypatch.setitem(sys.modules, "tomllib", None)  # makes "import tomllib" fail
    monkeypatch.setitem(sys.modules, "tomli", fake)
    assert config_module._import_toml() is fake


def test_tomllib_preferred_when_present() -> None:
    if sys.version_info >= (3, 11):
        import tomllib

        assert config_module._import_toml() is tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        assert config_module._import_toml().__name__ == "tomli"


def test_config_root_defaults_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Config().root == os.getcwd()
