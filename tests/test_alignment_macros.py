"""CUDA's alignment macros (``__align__(n)``, ``__CUDA_ALIGN__(n)``), which tree-sitter's
grammars do not know, are left out of the parse: the declarations around them read as C++
does after the preprocessor, and every node keeps the file's own offsets."""

from __future__ import annotations

import pytest

from ptxlint.frontends.syntax_tree import attribute_macros, parse, parse_leaving_out
from ptxlint.lsp.incremental import IncrementalLinter
from tests.test_incremental import same_as_full

CASES = [
    "__global__ void k() {\n  extern __shared__ __align__(16) char smem[];\n  wait<0>();\n}\n",
    "__global__ void k() {\n  __shared__ __align__(sizeof(float4) * 2) float s[4];\n  wait<0>();\n}\n",
    "struct __align__(16) S { int a; };\nvoid wait() { g(); }\n",
    "typedef struct __align__(8) { float x, y; } pair_t;\nvoid wait() { g(); }\n",
    "struct S { __align__(8) int a; };\nvoid wait() { g(); }\n",
    "class __builtin_align__(4) C { int a; };\nvoid wait() { g(); }\n",
    "struct __CUDA_ALIGN__(2) h { short x; };\nvoid wait() { g(); }\n",
]


@pytest.mark.parametrize("text", CASES)
def test_a_declaration_with_an_alignment_macro_parses_whole(text: str) -> None:
    parsed = parse("k.cu", text)
    assert not parsed.tree.root_node.has_error
    assert parsed.skipped and all(text[a:b].endswith(")") for a, b in parsed.skipped)
    # the call after it is a node of its own, where the text has it
    calls = [n for n in _walk(parsed.tree.root_node) if n.type in ("call_expression",
                                                                    "function_definition")]
    assert any(parsed.node_text(n).startswith(("wait", "void wait")) for n in calls)


def test_the_same_text_without_the_macro_is_what_tree_sitter_misreads() -> None:
    # the reason for the step: without it, the grammar reads `__align__` as a type and the
    # next statement into an error node
    import tree_sitter
    import tree_sitter_cuda

    data = CASES[0].encode()
    plain = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language())).parse(data)
    assert plain.root_node.has_error


def test_a_define_and_an_unclosed_use_are_left_alone() -> None:
    text = ("#define __CUDA_ALIGN__(n) __align__(n)\n"
            "#define V(t) \\\n  struct __align__(8) t \\\n  { int x; }\n"
            "int x = __align__(3 + \n 4);\n")
    assert attribute_macros(text.encode()) == ()
    assert attribute_macros(text.replace("\n", "\r\n").encode()) == ()
    assert attribute_macros(b"int x; // no macro here\n") == ()


def test_a_file_parsed_in_parts_leaves_them_out_too() -> None:
    text = CASES[0] + "void other() {\n  h();\n}\n"
    body = text.index("{\n  h();")
    parsed = parse_leaving_out("k.cu", text, [(body + 1, body + 8)])
    assert parsed.skipped == parse("k.cu", text).skipped
    assert not parsed.tree.root_node.has_error


ALIGNED = """\
struct __align__(16) Pair { int a, b; };
__global__ void k(unsigned* out, unsigned a, unsigned b) {
  __shared__ __align__(16) unsigned s[32];
  unsigned hi;
  asm("add.u32 %0, %1, %2;" : "=r"(hi) : "r"(a), "r"(b));
  s[threadIdx.x] = hi;
  out[0] = s[1];
}
"""


def test_the_language_servers_reparse_leaves_them_out_as_a_full_parse_does() -> None:
    linter = IncrementalLinter()
    same_as_full(linter, "aligned.cu", ALIGNED)
    same_as_full(linter, "aligned.cu", ALIGNED.replace("%1, %2;", "%1, %3;"))
    longer = ALIGNED.replace("%1, %2;", "%1,   %2;")
    same_as_full(linter, "aligned.cu", longer)
    assert linter.incremental_runs == 2


def _walk(node):  # type: ignore[no-untyped-def]
    yield node
    for child in node.children:
        yield from _walk(child)
