"""Namespace, constraint, statement and template-piece macros left out of the parse: which
macros are such (``cxx.specifier_macros.SpecifierMacros.braces``/``constraint``/``statements``/
``template_piece``), which of
their uses are found (``frontends.specifier_uses.macro_uses``), and the tree and the statements
read with them left out (``syntax_tree.parse``)."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
from ptxlint.frontends.specifier_uses import macro_uses, statement_call
from ptxlint.frontends.syntax_tree import _error_at_specifier, left_out_after_edit, parse
from ptxlint.model import SourceFile

# The CUDA headers' way of passing a pointer to asm (sm_32_intrinsics.hpp): the constraint is
# a macro, which the asm grammar cannot take, and its recovery swallows the functions after.
LDG = """#if defined(_WIN64) || defined(__LP64__)
#define LDG_PTR "l"
#else
#define LDG_PTR "r"
#endif
static __device__ __inline__ void store(short *ptr, short v) {
  asm ("st.global.wt.b16 [%0], %1;" :: LDG_PTR(ptr), "h"(v) : "memory");
}
static __device__ __inline__ int load(const int *ptr) {
  int ret;
  asm ("ld.global.nc.s32 %0, [%1];" : "=r"(ret) : LDG_PTR(ptr));
  return ret;
}
static __device__ __inline__ void trap() { asm volatile ("trap;"); }
"""

# A namespace opened and closed by macros (cuda_pipeline_helpers.h, CUB, CCCL): tree-sitter
# reads the opener as a type name and errs across the template after it.
NAMESPACED = """#define NS_OPEN(name) namespace name {
#define MY_PROLOGUE_CHECK() static_assert(1, "prologue");
#define MY_BEGIN_NAMESPACE MY_PROLOGUE_CHECK() NS_OPEN(lib) inline namespace v1 {
#define MY_END_NAMESPACE } }
MY_BEGIN_NAMESPACE
template <class T>
struct Barrier {
  __device__ void arrive(unsigned addr) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr));
  }
};
// the lane's index
__device__ inline unsigned lane() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
/* end of lib::v1 */
MY_END_NAMESPACE
"""

# CCCL's target dispatch as <nv/target> defines it for nvcc (its C++11 branch): each branch of
# statements is an argument, bare (the CUDA headers) or in parentheses (CCCL, for the commas).
DISPATCH = """#define REMOVE_PAREN(...) __VA_ARGS__
#define BLOCK_EXPAND(...) {REMOVE_PAREN(__VA_ARGS__)}
#define TARGET_IF(cond, t, f) PICK_##cond(t, f)
#define IF_ELSE_TARGET(cond, t, f) BLOCK_EXPAND(TARGET_IF(cond, t, f))
static __device__ unsigned add2(const unsigned a, const unsigned b) {
  IF_ELSE_TARGET(IS_DEVICE,
    unsigned val;
    asm("add.f16x2 %0, %1, %2;" : "=r"(val) : "r"(a), "r"(b));
    return val;
  ,
    return host_add2(a, b);
  )
}
struct SimdMin {
  __device__ unsigned operator()(unsigned x, unsigned y) const {
    NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (unsigned short lo = 0, hi = 0;
       asm("vmin2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(x) : "r"(x), "r"(y), "r"(0u));
       return x + lo + hi;),
      (return x < y ? x : y;))
  }
};
__device__ void done() { asm volatile("exit;"); }
"""

# An asm template that macros write pieces of between its literals (the CUDA headers'
# cuda_fp16.hpp, hexp's special cases): the grammar concatenates no name with a literal.
PIECES = r"""#define STRINGIFY_INNER(x) #x
#define STRINGIFY(x) STRINGIFY_INNER(x)
#define SPEC_CASE(i, r, spc, ulp) \
   "{.reg.b16 spc, ulp, p;\n" \
   "  mov.b16 spc," STRINGIFY(spc) ";\n" \
   "  mov.b16 ulp," STRINGIFY(ulp) ";\n" \
   "  set.eq.f16.f16 p," STRINGIFY(i) ", spc;\n" \
   "  @p add.f16 r,r,ulp;\n}\n"
#define MOVE "  mov.b16 r,h;\n"
__device__ unsigned short hexp(unsigned short a) {
  unsigned short val;
  asm("{.reg.b16 h,r;\n"
      "  mov.b16 h,%1;\n"
      MOVE
      SPEC_CASE(h, r, 0X1F79U, 0x9400U)
      SPEC_CASE(h, r, 0X25CFU, 0x9400U)
      "  mov.b16 %0,r;\n}" : "=h"(val) : "h"(a));
  return val;
}
__device__ void done() { asm volatile("exit;"); }
"""


def _judge(text: str) -> SpecifierMacros:
    return SpecifierMacros(lambda: MacroTable("k.cu", text))


def _contexts(text: str) -> list[tuple[str | None, list[str | None]]]:
    result = extract_statements(SourceFile("k.cu", text))
    return [(s.context.function, [o.ctype.spelling if o.ctype else None for o in s.operands])
            for s in result.statements]


# ------------------------------------------------------------------ which macros


_DEFINES = """#define INPUT "l"
#define SPLIT "r" "n"
#define OUTPUT "=r"
#define READ_WRITE "+l"
#define CALLED(x) "r"
#define NUMBER 4
#define OPEN namespace a::b [[deprecated]] {
#define LINKAGE extern "C" {
#define CLOSE } }
#define MIXED } namespace c {
#define DECLARES namespace d { int x;
#define EMPTY
#if defined(A)
#define SOMETIMES namespace e {
#else
#define SOMETIMES
#endif
"""


@pytest.mark.parametrize(("name", "expected"), [
    ("INPUT", True), ("SPLIT", True), ("OUTPUT", False), ("READ_WRITE", False),
    ("CALLED", False), ("NUMBER", False), ("UNDEFINED", False),
])
def test_a_constraint_macro_spells_an_input_constraint_in_every_definition(
    name: str, expected: bool
) -> None:
    assert _judge(_DEFINES).constraint(name, len(_DEFINES)) is expected


@pytest.mark.parametrize(("name", "expected"), [
    ("OPEN", 1), ("LINKAGE", 1), ("CLOSE", -1), ("MIXED", 0), ("DECLARES", 0), ("EMPTY", 0),
    ("SOMETIMES", 1), ("INPUT", 0), ("UNDEFINED", 0),
])
def test_a_namespace_macro_opens_or_closes_namespaces_only(name: str, expected: int) -> None:
    assert _judge(_DEFINES).braces(name, len(_DEFINES)) == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("IF_ELSE_TARGET", True),  # braces two macros down
    ("BLOCK_EXPAND", True), ("TARGET_IF", False), ("REMOVE_PAREN", False),
    ("NV_IF_ELSE_TARGET", True),  # CCCL's own, no definition visible
    ("NV_IF_TARGETS", False),
])
def test_a_statement_macro_pastes_its_arguments_into_a_block(name: str, expected: bool) -> None:
    assert _judge(DISPATCH).statements(name, len(DISPATCH)) is expected


@pytest.mark.parametrize(("name", "expected"), [
    ("SPEC_CASE", True), ("STRINGIFY", True), ("STRINGIFY_INNER", True), ("MOVE", True),
    ("hexp", False), ("UNDEFINED", False),
])
def test_a_template_piece_macro_is_string_literals_in_every_definition(
    name: str, expected: bool
) -> None:
    assert _judge(PIECES).template_piece(name, len(PIECES)) is expected
    assert not _judge(_DEFINES).template_piece("NUMBER", len(_DEFINES))
    assert _judge(_DEFINES).template_piece("OUTPUT", len(_DEFINES))  # string literals too


def test_a_namespace_macro_is_read_through_function_like_macros() -> None:
    judge = _judge(NAMESPACED)
    assert judge.braces("MY_BEGIN_NAMESPACE", len(NAMESPACED)) == 1
    assert judge.braces("MY_END_NAMESPACE", len(NAMESPACED)) == -1


# ------------------------------------------------------------------ which uses


def test_a_constraint_use_is_left_out_with_its_operand_and_one_comma() -> None:
    text = ('asm("a" :: C(p), "r"(x));\n'  # first: the comma after
            'asm("b" : "=r"(y) : "r"(x), C(q));\n'  # last: the comma before
            'asm("c" :: C(f(p)));\n'  # alone, a call in its expression
            "int z = g(u, C);\n")  # no operand: kept
    found = macro_uses(text, _FixedJudge(constraints={"C"}))
    assert [text[a:b] for a, b in found.constraints] == ["C(p),", ', C(q)', "C(f(p))"]
    assert found.names == (("C", "constraint"),)


def test_namespace_uses_are_left_out_only_where_openers_and_closers_pair() -> None:
    text = "OPEN\nint f();\n#endif\nCLOSE\n"
    found = macro_uses(text, _FixedJudge(braces={"OPEN": 1, "CLOSE": -1}))
    assert [text[a:b] for a, b in found.namespaces] == ["OPEN", "CLOSE"]
    unpaired = "OPEN\nint f();\n"
    assert macro_uses(unpaired, _FixedJudge(braces={"OPEN": 1})).namespaces == []
    inside = "int g = OPEN;\nint h(CLOSE);\n"  # where no declaration starts: none
    assert macro_uses(inside, _FixedJudge(braces={"OPEN": 1, "CLOSE": -1})).namespaces == []


def test_a_statement_macros_call_is_left_out_but_for_its_statements() -> None:
    text = "M(COND, a = 1; f(a, b);, (int x, y; g(x);), OTHER(1, 2), (c)) ;"
    kept = "".join(c if not any(a <= k < b for a, b in statement_call(text, 1)) else " "
                   for k, c in enumerate(text))
    assert kept.split() == [
        "M", "a", "=", "1;", "f(a,", "b);", "int", "x,", "y;", "g(x);", "OTHER(1,", "2)", "(c)", ";"]
    assert statement_call("M(COND, f(a, b))", 1) == []  # no statement: an expression
    assert statement_call("M(COND,\n#if A\n a;\n#endif\n)", 1) == []  # a branch under #if
    assert statement_call("M(COND, a;", 1) == []  # no end


def test_a_template_piece_is_left_out_among_the_literals_it_follows() -> None:
    text = ('asm("a;" S(x, (y)) S(z) "b;" : "=r"(v));\n'  # after a literal, then after a piece
            'asm("c;" S : "=r"(v));\n'  # before the outputs, object-like
            'f(S(x));\n'  # no literal before it
            'g("d" S(x) + 1);\n')  # no literal, name or list end after it
    found = macro_uses(text, _FixedJudge(constraints={"S"}))
    assert [text[a:b] for a, b in found.pieces] == ["S(x, (y))", "S(z)", "S"]


class _FixedJudge:
    def __init__(self, braces: dict[str, int] | None = None,
                 constraints: frozenset[str] | set[str] = frozenset()) -> None:
        self._braces = braces or {}
        self._constraints = constraints

    def __call__(self, name: str, at: int) -> bool:
        return False

    def braces(self, name: str, at: int) -> int:
        return self._braces.get(name, 0)

    def constraint(self, name: str, at: int) -> bool:
        return name in self._constraints

    def statements(self, name: str, at: int) -> bool:
        return False

    def template_piece(self, name: str, at: int) -> bool:
        return name in self._constraints  # the string macros of the test


# ------------------------------------------------------------------ the tree


@pytest.mark.parametrize("text", [LDG, NAMESPACED, DISPATCH, PIECES])
def test_the_parse_leaves_the_macros_out_where_the_tree_errs_at_them(text: str) -> None:
    assert parse("k.cu", text).tree.root_node.has_error  # the case is real
    judged = parse("k.cu", text, _judge(text))
    assert not judged.tree.root_node.has_error
    assert judged.specifier_uses == ()  # no function's header starts at them


def test_each_statement_is_read_in_its_function_with_its_operands_typed() -> None:
    assert _contexts(LDG) == [
        ("store", ["short *", "short"]), ("load", ["int", "int *"]), ("trap", [])]
    assert _contexts(NAMESPACED) == [
        ("arrive", ["unsigned int"]), ("lane", ["unsigned int"])]
    assert _contexts(DISPATCH) == [
        ("add2", ["unsigned int"] * 3), ("operator()", ["unsigned int"] * 4),
        ("done", [])]
    assert _contexts(PIECES) == [("hexp", ["unsigned short"] * 2), ("done", [])]


def test_an_output_constraint_macro_is_never_left_out() -> None:
    text = LDG.replace('"l"', '"=l"').replace('"r"\n', '"=r"\n')
    parsed = parse("k.cu", text, _judge(text))
    assert parsed.tree.root_node.has_error
    assert parsed.left_out_names == ()


class _Node:
    """What the parse's gate reads of a tree-sitter node."""

    def __init__(self, kind: str, start: int, rows: tuple[int, int],
                 children: tuple[_Node, ...] = ()) -> None:
        self.type, self.start_byte, self.children = kind, start, children
        self.start_point, self.end_point = (rows[0], 0), (rows[1], 0)


def test_an_error_from_the_files_start_is_asked_of_the_names_it_holds_first() -> None:
    # tree-sitter's recovery may make the whole file one ERROR node from byte 0 (CCCL's
    # __numeric/sub_overflow.h): the namespace macro that confused it is one of its children
    text = "// " + "x" * 200 + "\n" + NAMESPACED
    parsed = parse("k.cu", text)
    opener = text.index("MY_BEGIN_NAMESPACE\ntemplate")
    comment = _Node("comment", 0, (0, 0))
    name = _Node("type_identifier", opener, (6, 6))
    whole = _Node("ERROR", 0, (0, 16), (comment, name))
    assert _error_at_specifier(parsed, {"error": [whole]}, _judge(text))
    alone = _Node("ERROR", 0, (0, 16), (comment,))
    assert not _error_at_specifier(parsed, {"error": [alone]}, _judge(text))


@pytest.mark.parametrize("text", [LDG, NAMESPACED, DISPATCH, PIECES])
def test_an_edit_inside_a_literal_leaves_out_what_a_fresh_parse_does(text: str) -> None:
    old = parse("k.cu", text, _judge(text))
    at = text.index("asm") + 6
    edited = text[:at] + "  " + text[at:]
    fresh = parse("k.cu", edited, _judge(edited))
    assert left_out_after_edit(old, edited.encode()) == (fresh.skipped, fresh.specifier_uses)
    assert fresh.skipped  # the case is real
