"""The analysis is the layer under the rules: it imports the model, ``ptxlint.ptx`` and the front
ends' data, never a rule, a report format or the engine that runs the rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ANALYSIS = Path(__file__).resolve().parent.parent / "ptxlint" / "analysis"
_ABOVE = ("ptxlint_rules", "rules", "ptxlint.engine", "ptxlint.rule", "ptxlint.report",
          "ptxlint.run.runner", "ptxlint.cli", "ptxlint.lsp", "ptxlint.verify")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("path", sorted(ANALYSIS.glob("*.py")), ids=lambda p: p.name)
def test_the_analysis_imports_nothing_above_it(path: Path) -> None:
    above = {
        name for name in _imports(path)
        if name.startswith("..") or any(name == a or name.startswith(a + ".") for a in _ABOVE)
    }
    assert above == set(), f"{path.name} imports {sorted(above)}"


def test_every_analysis_module_was_looked_at() -> None:
    assert {p.name for p in ANALYSIS.glob("*.py")} >= {"statement.py", "roots.py", "guards.py"}
