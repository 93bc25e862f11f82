"""Cost bounded by the input: deep nesting and large inputs (issue: every input bounded).

``NodeFinder`` answers what tree-sitter's ``descendant_for_byte_range`` answers, with the
ancestors, without a parent step per level (each is a descent from the root in tree-sitter).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ptxlint.frontends.syntax_tree import KEPT_UPS, MAX_UPS, NodeFinder, parse

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[Path]:
    return sorted((ROOT / "fixtures").rglob("*.cu"))[:120]


def _expected(root, start: int, end: int):  # noqa: ANN001, ANN202
    node = root.descendant_for_byte_range(start, end)
    ups = []
    parent = node.parent
    while parent is not None and len(ups) < MAX_UPS:
        ups.append(parent)
        parent = parent.parent
    return node, ups


@pytest.mark.parametrize("order", ["text", "shuffled"])
def test_node_finder_agrees_with_tree_sitter_descent_and_parents(order: str) -> None:
    rng = random.Random(7)
    checked = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        parsed = parse(str(path), text)
        data = parsed.data
        ranges = [(m.start(), m.end()) for m in re.finditer(rb"\w+|[^\w\s]", data)][:400]
        ranges += [(a, a + rng.choice((0, 1, 5, 60))) for a in
                   (rng.randrange(len(data) + 2) for _ in range(40))]
        ranges.sort()
        if order == "shuffled":
            rng.shuffle(ranges)
        parents: dict[int, object] = {}
        finder = NodeFinder(parsed.tree.root_node, parents)  # type: ignore[arg-type]
        root = parsed.tree.root_node
        for start, end in ranges:
            node, ups = finder.find(start, end)
            want, want_ups = _expected(root, start, end)
            assert node == want, (path.name, start, end)
            assert [u.id for u in ups] == [u.id for u in want_ups], (path.name, start, end)
            if len(ups) > KEPT_UPS:  # past the ancestors handed back, the map has the way up
                assert parents[ups[KEPT_UPS - 1].id] == ups[KEPT_UPS]  # type: ignore[comparison-overlap]
            checked += 1
    assert checked > 10_000


def test_node_finder_walks_a_deep_tree_once() -> None:
    """Nested ``#if`` 3,000 deep: every keyword's ancestors known, no parent step per level
    (a ``Node.parent`` call per level made this quadratic)."""
    depth = 3_000
    text = "#if A\n" * depth + "int x;\n" + "#endif\n" * depth
    parsed = parse("deep.cu", text)
    parents: dict[int, object] = {}
    finder = NodeFinder(parsed.tree.root_node, parents)  # type: ignore[arg-type]
    at = text.index("int x")
    node, ups = finder.find(at, at + 3)
    assert node.type == "primitive_type"
    # past the nearest ancestors, the whole way up is registered: a climb reads it from the map
    steps, current = KEPT_UPS, ups[KEPT_UPS - 1]
    while current.id in parents:
        current = parents[current.id]  # type: ignore[assignment]
        steps += 1
    assert current == parsed.tree.root_node
    assert steps > depth


def test_if_blocks_nested_past_the_cap_leave_the_inner_conditions_unknown() -> None:
    from ptxlint.frontends.cxx.guards import MAX_NESTING, UNREAD, FileGuards
    from ptxlint.frontends.cxx.preproc import evaluate_guards

    depth = MAX_NESTING + 40
    text = "".join(f"#if L{i}\n" for i in range(depth)) + "x;\n" + "#endif\n" * depth
    guards, local = FileGuards(text).at(text.index("x;"), text.index("x;") + 2)
    assert guards[:MAX_NESTING] == tuple(f"L{i}" for i in range(MAX_NESTING))
    assert guards[MAX_NESTING:] == (UNREAD,) and local[-1] == UNREAD
    assert evaluate_guards(guards) is None
    # within the cap every level is read
    shallow = "#if 0\n#if A\nx;\n#endif\n#endif\n"
    assert FileGuards(shallow).at(shallow.index("x;"), shallow.index("x;") + 2)[0] == ("0", "A")


def test_a_long_elif_chain_negates_its_first_conditions_and_marks_the_rest_unknown() -> None:
    from ptxlint.frontends.cxx.guards import MAX_ELIFS, UNREAD, FileGuards
    from ptxlint.frontends.cxx.preproc import evaluate_guards

    count = MAX_ELIFS + 30
    text = "#if C0\n" + "".join(f"#elif C{i}\n" for i in range(1, count)) + "#else\nx;\n#endif\n"
    guards, _ = FileGuards(text).at(text.index("x;"), text.index("x;") + 2)
    assert guards == (*(f"!(C{i})" for i in range(MAX_ELIFS)), UNREAD)
    # a false negation still decides: "#if 1 ... #else" is never compiled, however long
    decided = "#if 1\n" + "".join(f"#elif C{i}\n" for i in range(count)) + "#else\nx;\n#endif\n"
    at = decided.index("x;")
    assert evaluate_guards(FileGuards(decided).at(at, at + 2)[0]) is False


def _deep_kernel(depth: int, statements_per_level: int = 0) -> str:
    asm = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(*p));\n'
    return (
        "__global__ void k(int *p) {\n"
        + ("#if A\n" + asm * statements_per_level) * depth
        + asm
        + "#endif\n" * depth
        + "}\n"
    )


def test_a_statement_deep_inside_if_blocks_is_still_linted_and_typed() -> None:
    """Past the nesting cap the statement keeps its operands' types (the block's
    declarations are read without recursion: 2,000 levels raised RecursionError)."""
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    result = extract_statements(SourceFile("deep.cu", _deep_kernel(3_000)))
    [statement] = result.statements
    assert statement.context.function == "k"
    assert statement.operands[0].ctype is not None
    assert statement.operands[0].ctype.spelling == "int"


def test_nv_if_target_calls_nested_past_the_cap_leave_the_inner_conditions_unknown() -> None:
    from ptxlint.frontends.cxx.guards import MAX_NESTING, UNREAD, FileGuards

    depth = MAX_NESTING + 30
    text = ("".join(f"NV_IF_TARGET(NV_PROVIDES_SM_{i}, (\n" for i in range(depth)) + "x;\n"
            + "));\n" * depth)
    at = text.index("x;")
    guards, local = FileGuards(text).at(at, at + 2)
    assert guards[:MAX_NESTING] == tuple(f"__CUDA_ARCH__ >= {i}0" for i in range(MAX_NESTING))
    assert guards[MAX_NESTING:] == (UNREAD,) and local == guards
    # after the nest, a statement is under none of its calls
    text += "y;\n"
    at = text.index("y;")
    assert FileGuards(text).at(at, at + 2) == ((), ())


def test_nv_if_target_calls_are_read_once_however_deep() -> None:
    """Each call was read to its closing parenthesis on its own: nested 2,000 deep, 5 s."""
    from ptxlint.frontends.cxx.guards import _nv_calls

    depth = 3_000
    text = "NV_IF_TARGET(NV_IS_DEVICE, (\n" * depth + "x;\n" + "));\n" * depth
    calls = _nv_calls(text)
    assert len(calls) == depth
    assert calls[0].args == ((13, 25), (26, len(text) - 3))
    assert calls[-1].start == text.rindex("NV_IF_TARGET")


def test_ancestors_of_a_node_are_its_parent_steps() -> None:
    from ptxlint.frontends.syntax_tree import ancestors_of

    rng = random.Random(3)
    checked = 0
    for path in _sources()[:60]:
        parsed = parse(str(path), path.read_text(encoding="utf-8", errors="replace"))
        root = parsed.tree.root_node
        data = parsed.data
        for _ in range(30):
            at = rng.randrange(len(data) + 1)
            node = root.descendant_for_byte_range(at, at + rng.choice((0, 1, 8)))
            expected = []
            parent = node.parent
            while parent is not None:
                expected.append(parent.id)
                parent = parent.parent
            assert [a.id for a in ancestors_of(root, node)] == expected, (path.name, at)
            checked += 1
    assert checked > 1000


def test_value_flow_finds_the_function_of_a_statement_deep_inside_if_blocks() -> None:
    """PTX301's value of an operand climbs to its function: by parent steps, 20,000 nested #if
    blocks took 16 s."""
    from ptxlint.engine import instantiate, lint_source
    from ptxlint.model import SourceFile
    from ptxlint.registry import load_rules
    from ptxlint.rule import RuleContext

    depth = 3_000
    text = ("__global__ void k(unsigned *p) {\n" + "#if A\n" * depth
            + 'asm volatile("st.shared.u32 [%0], %1;" :: "l"(p), "r"(1));\n'
            + "#endif\n" * depth + "}\n")
    findings = lint_source(SourceFile("deep.cu", text), instantiate(load_rules().rules),
                           RuleContext()).findings
    assert "PTX301" in {f.rule for f in findings}  # a global pointer given to .shared


def _climbed_functions(node):  # noqa: ANN001, ANN202
    """The innermost function definition at or above ``node``, and it again unless a lambda
    lies between (``host_code.enclosing_function``), by parent steps."""
    lambda_between = False
    current = node
    while current is not None:
        if current.type == "function_definition":
            return current, (None if lambda_between else current)
        if current.type == "lambda_expression":
            lambda_between = True
        current = current.parent
    return None, None


_LAMBDAS = """
__device__ void outer(int* p) {
  auto f = [&](int v) {
    struct Local { __device__ void method(int w) { asm("mov.u32 %0, %1;" : "=r"(w) : "r"(w)); } };
    asm volatile("add.u32 %0, %0, 1;" : "+r"(v));
    auto g = [](int u) { asm("mov.u32 %0, 0;" : "=r"(u)); };
  };
  asm("membar.gl;");
}
auto top = [](int x) { asm("mov.u32 %0, 1;" : "=r"(x)); };
int plain = 0;
"""


def test_node_finder_names_the_function_a_parent_climb_finds() -> None:
    """``NodeFinder.functions`` reads the innermost function, and whether a lambda lies
    between it and the node, from the way down: what a climb by parent steps finds, for
    statements in lambdas, in functions inside lambdas and outside any function."""
    sources = [("lambdas.cu", _LAMBDAS)] + [
        (str(path), path.read_text(encoding="utf-8", errors="replace"))
        for path in _sources()[:60]
    ]
    kinds: set[tuple[bool, bool]] = set()
    for name, text in sources:
        parsed = parse(name, text)
        finder = NodeFinder(parsed.tree.root_node, {})
        ranges = [(m.start(), m.end()) for m in re.finditer(rb"\w+|[^\w\s]", parsed.data)][:600]
        for start, end in ranges:
            node, _ = finder.find(start, end)
            fn, enclosing = finder.functions()
            want_fn, want_enclosing = _climbed_functions(node)
            assert (fn, enclosing) == (want_fn, want_enclosing), (name, start, end)
            kinds.add((fn is not None, enclosing is not None))
    # inside a function, inside a lambda in a function, and outside any function all came up
    assert kinds == {(True, True), (True, False), (False, False)}
