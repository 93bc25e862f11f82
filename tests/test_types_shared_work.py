"""Work the type resolver does once for several operands gives each the answer it would have
alone: declarations typed once per text, a block's table read through its ``#if`` blocks and
labels, and an operand the file's tree does not hold typed under the scopes around it."""

from __future__ import annotations

import pytest
import tree_sitter
import tree_sitter_cuda

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import scope_lookup
from ptxlint.frontends.cxx.types import TypeResolver
from ptxlint.model import SourceFile

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def _operand_types(source: str) -> list[str | None]:
    """Every operand's type spelling, in order, from one extraction (one resolver)."""
    statements = extract_statements(SourceFile("k.cu", source)).statements
    return [
        o.ctype.spelling if o.ctype is not None else None for s in statements for o in s.operands
    ]


def _each_alone(source: str) -> list[str | None]:
    """Every operand's type from a resolver of its own: nothing typed before is shared."""
    statements = extract_statements(SourceFile("k.cu", source)).statements
    data = source.encode()
    tree = _PARSER.parse(data)
    answers: list[str | None] = []
    for statement in statements:
        for operand in statement.operands:
            offset = source.index(f"({operand.expression})", statement.span.start) + 1
            found = TypeResolver(source, tree, data).resolve(operand.expression, offset)
            answers.append(found.spelling if found is not None else None)
    return answers


_DECLARATIONS = """
typedef unsigned long long T;
__device__ void f() { unsigned x; asm("" :: "r"(x)); }
__device__ void g() { unsigned x; asm("" :: "r"(x)); }
__device__ void h() { cuda::std::uint32_t y; asm("" :: "r"(y)); }
__device__ void h2() { cuda::std::uint32_t y; asm("" :: "r"(y)); }
__device__ void a() { T z; asm("" :: "l"(z)); }
template <class T> __device__ void b() { T z; asm("" :: "l"(z)); }
__device__ void c() { unsigned v[4]; asm("" :: "r"(v[0]), "l"(v)); }
__device__ void d() { unsigned *v; asm("" :: "r"(v[0]), "l"(v)); }
__device__ void e() { unsigned x = 1u; asm("" :: "r"(x)); }
"""


def test_declarations_of_one_text_have_one_type_only_where_their_words_decide_it() -> None:
    expected = [
        "unsigned int", "unsigned int",
        "unsigned int", "unsigned int",
        "unsigned long long",  # the typedef
        None,  # the template parameter of the same name
        "unsigned int", "unsigned int[4]",
        "unsigned int", "unsigned int *",
        "unsigned int",
    ]  # fmt: skip
    assert _operand_types(_DECLARATIONS) == expected
    assert _each_alone(_DECLARATIONS) == expected


def test_a_declaration_of_words_is_typed_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    typed: list[str] = []
    real = scope_lookup.ScopeLookup._entry_type

    def noting(self, entry, function_scope):
        typed.append(entry.declarator.text.decode())
        return real(self, entry, function_scope)

    monkeypatch.setattr(scope_lookup.ScopeLookup, "_entry_type", noting)
    _operand_types(_DECLARATIONS)
    # one typing per text of words; a type name is typed per declaration (it may be a
    # template parameter's), and `v` has two texts
    assert sorted(typed) == sorted(["x", "y", "z", "z", "v[4]", "*v", "x = 1u"])


def test_a_block_reads_its_declarations_through_if_blocks_and_labels_in_order() -> None:
    source = """
__device__ void f(int k) {
#if A
  unsigned x;
#  if B
  float w;
#  endif
#else
  unsigned long long x;
#endif
  asm("" :: "r"(x), "f"(w));
}
__device__ void g(int k) {
#ifdef A
  int8_t y;
#endif
here:
  signed char y2;
  switch (k) { case 0: break; }
  asm("" :: "r"(y), "r"(y2));
}
"""
    # the two `x` disagree; `w` is in an #if nested in an #if; `y` and `y2` are read
    assert _operand_types(source) == [None, "float", "signed char", "signed char"]


_LDG = """
#define LDG_PTR "l"
__device__ long f(const long *ptr, int k) {
  long r;
  if (k) {
    const char *ptr = 0;
    asm volatile("ld.global.nc.s64 %0, [%1];" : "=l"(r) : LDG_PTR (ptr));
  }
  asm volatile("ld.global.nc.s64 %0, [%1];" : "=l"(r) : LDG_PTR (ptr));
  auto g = [](const short *ptr) {
    long s;
    asm volatile("ld.global.nc.s64 %0, [%1];" : "=l"(s) : LDG_PTR (ptr));
    return s;
  };
  return r + g(0);
}
"""


def test_an_operand_the_tree_does_not_hold_as_a_value_is_typed_under_its_own_scopes() -> None:
    # tree-sitter reads `LDG_PTR (ptr)` as an error in the statement: the operand is typed
    # where it is written, under the block, the function or the lambda around it
    assert _operand_types(_LDG) == [
        "long", "char *", "long", "long *", "long", "short *",
    ]  # fmt: skip


_CALLS_AND_PARAMETERS = """
__device__ unsigned other(int);
__device__ unsigned long long h(unsigned long long (*get)(int), int k) {
  unsigned r;
  asm("" : "=r"(r) : "l"(get(k)), "r"(other(k)), "r"(k));
  auto f = [](unsigned long long (*g)(int), int j) {
    unsigned s;
    asm("" : "=r"(s) : "l"(g(j)), "r"(other(j)));
    return s;
  };
  return r + f(get, k);
}
__device__ void p(const unsigned *q) { unsigned d; asm("" : "=r"(d) : "l"(q)); }
__device__ void w(const unsigned *q) { unsigned d; asm("" : "=r"(d) : "r"(other(*q))); }
"""


def test_a_call_of_a_parameter_and_of_a_namespace_name_each_have_their_own_type() -> None:
    assert _operand_types(_CALLS_AND_PARAMETERS) == [
        "unsigned int", "unsigned long long", "unsigned int", "int",
        "unsigned int", "unsigned long long", "unsigned int",
        "unsigned int", "unsigned int *",
        "unsigned int", "unsigned int",
    ]  # fmt: skip
    assert _each_alone(_CALLS_AND_PARAMETERS) == _operand_types(_CALLS_AND_PARAMETERS)
