"""``#if`` groups whose branches hold half a brace pair (a block opened under one ``#if`` and
closed under another, one body with two heads) are left out of the parse, all but one branch:
the functions around them are functions of the tree again, the statements keep their guards,
and a branch holding an asm statement is never left out."""

from __future__ import annotations

import tree_sitter
import tree_sitter_cuda

from ptxlint.frontends.split_conditionals import _head_groups, split_conditionals
from ptxlint.frontends.syntax_tree import parse
from ptxlint.lsp.incremental import IncrementalLinter
from tests.conftest import lint_text
from tests.test_incremental import same_as_full

# flashinfer's attention/prefill.cuh: the sm75 guard opens an if/else in one group and closes
# it in another; the kernel and everything after it was one ERROR node
SPLIT_IF = """\
template <typename T>
__device__ void prefill(T* out, unsigned a) {
#if (__CUDA_ARCH__ < 800)
  if constexpr (sizeof(T) == 2) {
    out[0] = T(0);
  } else {
#endif
    unsigned r;
    asm volatile("add.u32 %0, %1, 1;" : "=r"(r) : "r"(a));
    out[0] = T(r);
#if (__CUDA_ARCH__ < 800)
  }
#endif
}

__device__ void after(unsigned* p) {
  asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "memory");
}
"""

TWO_HEADS = """\
#ifdef WIDE
__device__ void f(unsigned* p, unsigned a, unsigned b) {
#else
__device__ void f(unsigned* p, unsigned a) {
#endif
  asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(a) : "memory");
}

__device__ void g() {}
"""


def _plain_parse_errs(text: str) -> bool:
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    return parser.parse(text.encode()).root_node.has_error


def _functions(text: str) -> list[str]:
    parsed = parse("k.cu", text)
    found: list[str] = []
    stack = [parsed.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            declarator = node.child_by_field_name("declarator")
            assert declarator is not None
            name = declarator.child_by_field_name("declarator")
            assert name is not None
            found.append(parsed.node_text(name))
        stack.extend(node.children)
    return sorted(found)


def test_a_block_opened_and_closed_under_two_groups_parses_as_the_code_inside() -> None:
    assert _plain_parse_errs(SPLIT_IF)  # why the step exists
    parsed = parse("k.cu", SPLIT_IF)
    assert parsed.split and not parsed.tree.root_node.has_error
    assert _functions(SPLIT_IF) == ["after", "prefill"]
    # what is left out: the four directive lines, and the two groups' empty #else
    left = [SPLIT_IF.encode()[a:b].decode() for a, b in parsed.skipped]
    assert [s.strip() for s in left] == ["#if (__CUDA_ARCH__ < 800)", "#endif"] * 2


def test_one_body_with_two_heads_keeps_the_first() -> None:
    assert _plain_parse_errs(TWO_HEADS)
    parsed = parse("k.cu", TWO_HEADS)
    assert not parsed.tree.root_node.has_error
    assert _functions(TWO_HEADS) == ["f", "g"]
    kept = TWO_HEADS.encode()
    for start, end in parsed.skipped:
        kept = kept[:start] + b" " * (end - start) + kept[end:]
    assert b"unsigned a, unsigned b" in kept and b"unsigned* p, unsigned a) {" not in kept


def test_the_statements_keep_their_guards_and_findings() -> None:
    # the guards are read from the text: the asm under the split group is still compiled
    # only where __CUDA_ARCH__ >= 800 is false or true alike (no guard of its own), and the
    # findings are those of the same code with balanced groups
    balanced = SPLIT_IF.replace("  } else {\n#endif", "  } else {}\n#endif").replace(
        "#if (__CUDA_ARCH__ < 800)\n  }\n#endif", "")
    got = sorted((f.rule, f.span.start - SPLIT_IF.index("asm"))
                 for f in lint_text(SPLIT_IF, "k.cu"))
    want = sorted((f.rule, f.span.start - balanced.index("asm"))
                  for f in lint_text(balanced, "k.cu"))
    assert got == want


def test_groups_that_pair_their_braces_are_left_alone() -> None:
    text = "#if A\nvoid f() { g(); }\n#else\nvoid f() {}\n#endif\nint x = '{';\n// {\n"
    assert split_conditionals(text.encode()) == ()
    assert parse("k.cu", text).skipped == ()


def test_a_branch_holding_asm_is_never_left_out() -> None:
    text = TWO_HEADS.replace("#else\n", '#else\n  asm("trap;");\n')
    assert split_conditionals(text.encode()) == ()


def test_if_0_keeps_its_else() -> None:
    text = "#if 0\nvoid f(int a) {\n#else\nvoid f(int a, int b) {\n#endif\n  g();\n}\n"
    kept = text.encode()
    for start, end in split_conditionals(kept):
        kept = kept[:start] + b" " * (end - start) + kept[end:]
    assert b"int a, int b" in kept and b"f(int a) {" not in kept


def test_a_choice_that_leaves_the_braces_unpaired_leaves_out_nothing() -> None:
    # the first branch opens a block the rest of the file does not close
    text = "void f() {\n#if A\n  if (c) {\n#else\n  }\n#endif\n}\n"
    assert split_conditionals(text.encode()) == ()


def test_the_language_servers_reparse_leaves_them_out_as_a_full_parse_does() -> None:
    linter = IncrementalLinter()
    same_as_full(linter, "split.cu", SPLIT_IF)
    same_as_full(linter, "split.cu", SPLIT_IF.replace("%1, 1;", "%1, 2;"))
    same_as_full(linter, "split.cu", SPLIT_IF.replace("%1, 1;", "%1,   1;"))
    assert linter.incremental_runs == 2


# flashinfer's generated kernels (cake_moe_grouped_gemm, cake_fmha): the kernel's name and
# parameters per configuration, nested groups included, the body after the last #endif
SPLIT_HEAD = """\
extern "C" {

__global__ __launch_bounds__(256) void
#if OUTER
#if WIDE
kernel_a(float* __restrict__ out, unsigned a, unsigned b)
#else
kernel_b(float* __restrict__ out, unsigned a)
#endif  // WIDE
#else
kernel_c(float* __restrict__ out, unsigned a)
#endif  // OUTER
{
  unsigned r;
  asm volatile("add.u32 %0, %1, 1;" : "=r"(r) : "r"(a));
  out[0] = r;
}

__device__ void after(unsigned* p) {
  asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "memory");
}

}
"""


def test_a_declaration_with_a_head_per_branch_keeps_the_first() -> None:
    assert _plain_parse_errs(SPLIT_HEAD)
    parsed = parse("k.cu", SPLIT_HEAD)
    assert parsed.split and not parsed.tree.root_node.has_error
    assert _functions(SPLIT_HEAD) == ["after", "kernel_a"]
    kept = SPLIT_HEAD.encode()
    for start, end in parsed.skipped:
        kept = kept[:start] + b" " * (end - start) + kept[end:]
    assert b"kernel_a(" in kept and b"kernel_b(" not in kept and b"kernel_c(" not in kept
    assert b"#" not in kept


def test_groups_of_statements_or_with_braces_are_no_heads() -> None:
    heads = SPLIT_HEAD.encode()
    assert _head_groups(heads)  # the shape itself
    for no_head in (
        heads.replace(b"unsigned a)\n#endif  // OUTER", b"unsigned a);\n#endif  // OUTER"),
        heads.replace(b"kernel_c(", b"{ kernel_c("),  # a brace in a branch
        heads.replace(b"#endif  // OUTER\n{", b"#endif  // OUTER\nconst {"),  # no body next
        heads.replace(b"__launch_bounds__(256) void\n", b"__launch_bounds__(256) void;\n"),
        heads.replace(b"#else\nkernel_c", b"#endif\n#if X\nkernel_c"),  # no alternative
    ):
        assert not [r for r in _head_groups(no_head) if r[0] < no_head.index(b"{\n  unsigned")]


# A branch that closes a block and opens another (``} {``) counts no more of one brace than of
# the other; it is half a brace pair all the same (flashinfer's cake_fmha dcp kernels)
CLOSE_REOPEN = """\
__device__ void f(unsigned* p, unsigned a, bool e) {
  if (e) {
    p[1] = a;
#if SPLIT
  }
  {
    p[2] = a;
#endif
  }
  asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(a) : "memory");
}

__device__ void g() {}
"""


def test_a_branch_that_closes_and_reopens_a_block_is_half_a_pair() -> None:
    assert _plain_parse_errs(CLOSE_REOPEN)
    parsed = parse("k.cu", CLOSE_REOPEN)
    assert parsed.split and not parsed.tree.root_node.has_error
    assert _functions(CLOSE_REOPEN) == ["f", "g"]
