"""The built-in rules load on first use (ptxlint.lazy_rule): the manifest says what their classes
say, a stand-in is its class wherever a run looks, and a run imports only the rules it calls."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import subprocess
import sys
from pathlib import Path

import ptxlint_rules
import pytest

from ptxlint.engine import instantiate
from ptxlint.lazy_rule import (
    FIELDS,
    StaleManifest,
    entry_of,
    is_stand_in,
    render_manifest,
    stand_in,
)
from ptxlint.registry import load_rules
from ptxlint.rule import validate_rule_class
from tests.conftest import ROOT

REAL = ptxlint_rules.real_rules()


def test_the_manifest_is_what_the_rule_classes_say() -> None:
    manifest = Path(ROOT, "rules", "manifest.py").read_text(encoding="utf-8")
    assert manifest == render_manifest(REAL), (
        "rules/manifest.py is stale: run python scripts/gen_rule_manifest.py"
    )


def test_every_real_rule_class_is_valid_docs_included() -> None:
    # the registry does not read a stand-in's docs (that would import its module): here they are
    assert [problem for cls in REAL for problem in validate_rule_class(cls)] == []


def test_the_registry_gives_a_stand_in_for_every_built_in_rule() -> None:
    loaded = load_rules()
    assert loaded.problems == ()
    builtin = [r for r in loaded.rules if r.__module__.startswith("ptxlint_rules.")]
    assert [r.id for r in builtin] == [r.id for r in REAL]
    assert all(is_stand_in(r) for r in builtin)


@pytest.mark.parametrize("real", REAL, ids=lambda r: r.id)
def test_a_stand_in_is_its_class_wherever_a_run_looks(real) -> None:
    (stand,) = [r for r in ptxlint_rules.BUILTIN_RULES if r.id == real.id]
    for field in FIELDS:
        assert getattr(stand, field) == getattr(real, field), field
    assert (stand.__module__, stand.__qualname__) == (real.__module__, real.__qualname__)
    assert stand.docs == real.docs  # what the manifest does not hold comes from the class
    (rule,) = instantiate([stand])
    key = stand.check  # what the engine keys the pure rules' memo on
    # the real instance's check, kept on the stand-in
    assert rule.check.__func__ is real.check  # type: ignore[attr-defined]
    assert isinstance(rule.__dict__["_rule"], real) and rule.check is rule.check
    assert type(rule) is stand and stand.check is key  # the same key once loaded


def test_the_class_check_follows_a_patch_of_the_real_class(monkeypatch) -> None:
    """A test that replaces a rule's check must not get the memo's outcomes of the genuine one:
    the engine keys them on the class's check."""
    stand = next(r for r in ptxlint_rules.BUILTIN_RULES if r.id == "PTX003")
    real = next(r for r in REAL if r.id == "PTX003")
    genuine = stand.check

    def boom(self, statement, context):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(real, "check", boom)
    assert stand.check is boom
    (rule,) = instantiate([stand])
    assert rule.check.__func__ is boom  # type: ignore[attr-defined]
    monkeypatch.undo()
    assert stand.check is genuine


def test_an_instance_pickles_and_copies_as_its_real_class() -> None:
    stand = next(r for r in ptxlint_rules.BUILTIN_RULES if r.id == "PTX101")
    real = next(r for r in REAL if r.id == "PTX101")
    for made in (pickle.loads(pickle.dumps(stand())), copy.copy(stand())):
        assert type(made) is real and made.id == stand.id


def test_a_stale_entry_stops_the_rule_with_the_way_to_regenerate() -> None:
    real = next(r for r in REAL if r.needs)
    entry = list(entry_of(real))
    entry[2 + FIELDS.index("needs")] = ("never",)
    package = real.__module__.rsplit(".", 1)[0]
    stale = stand_in(package, tuple(entry))
    with pytest.raises(StaleManifest, match="gen_rule_manifest.py"):
        _ = stale().check
    missing = stand_in(package, (entry[0], "NoSuchRule", *entry[2:]))
    with pytest.raises(StaleManifest, match="no rule class NoSuchRule"):
        _ = missing.docs


def test_a_rule_module_the_manifest_does_not_list_is_loaded_at_once(tmp_path) -> None:
    folder = tmp_path / "fresh_rules"
    folder.mkdir()
    init = Path(ROOT, "rules", "__init__.py").read_text(encoding="utf-8")
    (folder / "__init__.py").write_text(init)
    listed = next(r for r in REAL if r.id == "PTX101")
    module = listed.__module__.rsplit(".", 1)[-1]
    (folder / f"{module}.py").write_text(Path(ROOT, "rules", f"{module}.py").read_text())
    for helper in Path(ROOT, "rules").glob("_*.py"):  # what the rule modules share
        if helper.name != "__init__.py":
            (folder / helper.name).write_text(helper.read_text())
    # the manifest lists PTX101 and a rule whose module is gone; it omits the new module
    gone = ("ptx998_removed", "Removed", *entry_of(listed)[2:])
    (folder / "manifest.py").write_text(f"RULES = ({entry_of(listed)!r}, {gone!r})\n")
    new = Path(ROOT, "rules", "ptx101_missing_volatile.py").read_text().replace(
        '"PTX101"', '"PTX999"').replace('"missing-volatile"', '"newly-added"')
    (folder / "ptx999_newly_added.py").write_text(new)
    spec = importlib.util.spec_from_file_location(
        "fresh_rules", folder / "__init__.py", submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["fresh_rules"] = package
    try:
        spec.loader.exec_module(package)
        rules = {r.id: r for r in package.BUILTIN_RULES}
        assert sorted(rules) == ["PTX101", "PTX999"]
        assert is_stand_in(rules["PTX101"]) and not is_stand_in(rules["PTX999"])
        assert "fresh_rules.ptx999_newly_added" in sys.modules
        assert f"fresh_rules.{module}" not in sys.modules
    finally:
        for name in [n for n in sys.modules if n == "fresh_rules" or n.startswith("fresh_rules.")]:
            del sys.modules[name]


PROBE = """
import sys
from ptxlint.cli import main
from ptxlint.registry import load_rules
classes = load_rules().rules
checks = [getattr(cls, "check") for cls in classes]  # what the engine's memo key reads
assert not [m for m in sys.modules if m.startswith("ptxlint_rules.ptx")], "imported on listing"
try:
    main(["check", sys.argv[1], "--no-cache", "--quiet"])
except SystemExit:
    pass
print(" ".join(sorted(m.split(".")[1][:6] for m in sys.modules if m.startswith("ptxlint_rules.ptx"))))
"""


def test_linting_a_small_file_imports_only_the_rules_it_calls(tmp_path) -> None:
    (tmp_path / "k.cu").write_text(
        '__device__ unsigned f(unsigned a) { unsigned d;\n'
        '  asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a)); return d; }\n'
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "k.cu")], cwd=ROOT, capture_output=True,
        text=True, timeout=300, check=True,
    )
    imported = set(done.stdout.split())
    assert "ptx101" in imported  # a rule every statement meets
    # the Python-DSL and protocol rules, the once-per-file PTX901 and the rules whose needs
    # the statement does not meet (no directive, label, brace, immediate, clobber)
    assert not {m for m in imported if m.startswith(("ptx5", "ptx6", "ptx9"))}
    assert not {"ptx010", "ptx201", "ptx202", "ptx203", "ptx503"} & imported
