"""No module of ptxlint, its rules, its benchmarks or its scripts grows past 1,000 lines: past
that a module holds more than one job, and the layout (``docs/architecture.md``) stops saying
where things are. Data a script reads (the repositories ``scripts/fixed_bugs.py`` mines) lives
beside it as data, not as code."""

from __future__ import annotations

import os

from tests.conftest import ROOT

LIMIT = 1000


def _modules() -> list[str]:
    found = []
    for top in ("ptxlint", "rules", "benchmarks", "scripts"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            found.extend(os.path.join(folder, f) for f in files if f.endswith(".py"))
    return found


def test_the_walk_finds_the_package() -> None:
    names = {os.path.relpath(p, ROOT) for p in _modules()}
    assert os.path.join("ptxlint", "frontends", "cxx", "extract.py") in names
    assert os.path.join("rules", "__init__.py") in names
    assert os.path.join("scripts", "fixed_bugs.py") in names


def test_no_module_is_over_a_thousand_lines() -> None:
    long = {}
    for path in _modules():
        with open(path, encoding="utf-8") as handle:
            lines = sum(1 for _ in handle)
        if lines > LIMIT:
            long[os.path.relpath(path, ROOT)] = lines
    assert long == {}
