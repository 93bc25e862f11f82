"""Imports inside ``ptxlint/`` run one way: the module import graph has no cycle.

The graph is built statically from each module's source with ``ast``; nothing is imported.
An edge ``a -> b`` is an ``import`` or ``from ... import`` in ``a`` that names ``b`` (``from
pkg import sub`` names the submodule ``pkg.sub`` when there is one, else the package).

Function-level (deferred) imports count as edges. They exist to put off a module's cost until a
command needs it (``check`` never loads the language server), not to hide a dependency: a
deferred import that points back up the pipeline is still a dependency that runs both ways,
and it is how cycles used to survive (``config`` imported ``config_discovery`` inside
``load_config``). Imports under ``if TYPE_CHECKING:`` do not count: they never run, and
annotations may name any type.

The implicit import of a module's parent package (Python imports ``pkg/__init__`` before
``pkg.sub``) is not an edge either: a package that imports its own submodules would otherwise
always read as a cycle.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator, Mapping

from tests.conftest import ROOT

PACKAGE = os.path.join(ROOT, "ptxlint")

# Cycles known and not yet broken, each with its reason: any other cycle fails the test, and so
# does a listed one that has gone (then remove it here). An explicit exception, not a skip.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def _modules() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
            found[dotted.removesuffix(".__init__")] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == "TYPE_CHECKING"
        or isinstance(n, ast.Attribute) and n.attr == "TYPE_CHECKING"
        for n in ast.walk(test)
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth, leaving out ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _owner(name: str, modules: Mapping[str, str]) -> str | None:
    """The module of ``ptxlint`` that ``name`` is or lies in, if any."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


@functools.cache  # the tests read one graph: the sources do not change during a run
def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    origin = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    origin = node.module or ""
                names = [
                    f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else origin
                    for alias in node.names
                ]
            for name in names:
                owner = _owner(name, modules)
                if owner is not None and owner != module:
                    targets.add(owner)
        graph[module] = targets
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_deferred_imports_are_edges_and_type_checking_imports_are_not() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ptxlint.cli import main\n"
        "def f():\n    from ptxlint.config import Config\n"
    )
    named = [n.module for n in _imports(tree) if isinstance(n, ast.ImportFrom)]
    assert sorted(m for m in named if m) == ["ptxlint.config", "typing"]


def test_the_graph_sees_ptxlint_and_its_subpackages() -> None:
    graph = import_graph()
    assert "ptxlint.config_discovery" in graph and "ptxlint.lsp.server" in graph
    assert "ptxlint.config" in graph["ptxlint.config_discovery"]
    assert "ptxlint.lsp.actions" in graph["ptxlint.lsp.server"]  # from ptxlint.lsp import actions


def test_no_import_cycle_in_ptxlint() -> None:
    found = set(cycles(import_graph()))
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert new == [], f"import cycles: {new}"
    assert gone == [], f"listed in KNOWN_CYCLES but broken now (remove them): {gone}"


# What a front end may never reach, even through other modules: the stages after it.
ABOVE_THE_FRONT_ENDS = (
    "ptxlint.analysis", "ptxlint.engine", "ptxlint.rule", "ptxlint.registry", "ptxlint.run.runner",
    "ptxlint.cli", "ptxlint.report", "ptxlint.lsp", "ptxlint.verify", "ptxlint.fix",
)


def _reaches(graph: Mapping[str, set[str]], roots: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        for successor in graph.get(stack.pop(), ()):
            if successor not in seen:
                seen.add(successor)
                stack.append(successor)
    return seen


def test_the_front_ends_reach_nothing_after_them() -> None:
    """``ptxlint/frontends/`` and everything it imports, directly or not, stay below the
    analysis, the rules, the engine and what reads their findings."""
    graph = import_graph()
    front_ends = [m for m in graph if m.startswith("ptxlint.frontends")]
    assert front_ends
    reached = _reaches(graph, front_ends)
    above = sorted(
        m for m in reached
        if any(m == a or m.startswith(a + ".") for a in ABOVE_THE_FRONT_ENDS)
    )
    assert above == []


# The C++ front end's stages, in pipeline order (``ptxlint/frontends/cxx/__init__.py`` says
# what each owns). A module may import modules of its own stage or of the stages before it.
CXX_STAGES: dict[str, tuple[str, ...]] = {
    "preprocess": (
        "lexer", "preproc", "guards", "defines", "include_lookup", "headers", "macros",
        "companion", "specifier_macros", "guard_macros", "macro_uses", "branches",
    ),
    "locate": ("dialect", "host_code", "statement_tokens", "function_recovery",
               "statement_context", "function_spans", "part_tree"),
    "read": ("raw_statement", "statement_reader", "plain_reader", "operand_types",
             "keyword_macro_bodies", "extract"),
    "type": ("c_types", "declaration_index", "declared_types", "header_types", "macro_operands",
             "scope_lookup", "expression_types", "types"),
}
CXX = "ptxlint.frontends.cxx"


def test_every_cxx_module_has_a_stage() -> None:
    graph = import_graph()
    modules = {m.removeprefix(CXX + ".") for m in graph if m.startswith(CXX + ".")}
    staged = {name for names in CXX_STAGES.values() for name in names}
    assert modules == staged


def test_each_cxx_stage_imports_only_the_stages_before_it() -> None:
    graph = import_graph()
    order = {name: i for i, names in enumerate(CXX_STAGES.values()) for name in names}
    late = sorted(
        f"{module} -> {target}"
        for module in order
        for target in graph[f"{CXX}.{module}"]
        if target.startswith(CXX + ".")
        and order[target.removeprefix(CXX + ".")] > order[module]
    )
    assert late == []
