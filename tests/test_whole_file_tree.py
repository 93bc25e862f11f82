"""A whole-file lint reads a tree without the functions no asm statement needs, where that
pays (part_tree.whole_file_tree), and says exactly what it says with the whole tree: the same
findings, field by field; where a rule reads the file's statements, or value flow meets a
function left out, the file is linted again with the whole tree."""

from __future__ import annotations

import pytest

from ptxlint import engine, file_memos
from ptxlint.engine import Linted, SelectAll, lint_kept
from ptxlint.frontends.cxx import part_tree as part_tree_module
from ptxlint.frontends.cxx.function_spans import function_spans, scan
from ptxlint.frontends.cxx.part_tree import whole_file_tree
from ptxlint.frontends.extraction import WHOLE, Share
from ptxlint.lsp.incremental import IncrementalLinter
from ptxlint.model import SourceFile
from ptxlint.rule import Rule, RuleContext
from tests.finding_fields import default_rules, finding_fields

# An asm statement whose operand is a helper's result (value flow follows the call into
# shared_window) and one whose operand is a parameter (value flow reads load_shared's caller),
# a template nothing instantiates (its findings latent), and asm-free functions that neither
# call nor are called by any of them: what the left-out tree leaves out.
HELPERS = r"""
#include <cstdint>

__device__ unsigned load_shared(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

__device__ uint32_t shared_window(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ uint32_t truncated(const void* p) {
  return (uint32_t)(uintptr_t)p;
}

template <typename T>
__device__ T never_named(T x) {
  T y;
  asm("add.u32 %0, %1, %3;" : "=r"(y) : "r"(x));
  return y;
}

__global__ void caller(unsigned* out) {
  __shared__ unsigned tile[32];
  out[0] = load_shared((unsigned)(uintptr_t)tile);  // a truncated generic pointer
  unsigned v, w;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(shared_window(tile)) : "memory");
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(truncated(tile)) : "memory");
  out[1] = v + w;
}
""" + "".join(
    f"""
__device__ int pad_{i}(int x) {{
  int s = 0;
  for (int k = 0; k < {i + 2}; ++k) {{ s += x * k - {i}; }}
  return s;
}}
"""
    for i in range(24)
)


def _fields(linted: Linted) -> list[object]:
    return finding_fields(linted.result.findings)


def _lint(rules: list[Rule], whole_tree: bool) -> Linted:
    linted = lint_kept(SourceFile("helpers.cu", HELPERS), rules, RuleContext(),
                       whole_tree=whole_tree)
    file_memos.release()
    return linted


def _left_out_names(linted: Linted) -> set[str]:
    assert linted.parsed is not None
    spans = function_spans(HELPERS)
    assert spans is not None
    return {s.name for s in spans if s.body in linted.parsed.unread}


@pytest.fixture
def any_file_leaves_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate open for every file: the test file is far smaller than the files it lets
    through."""
    monkeypatch.setattr(part_tree_module, "WHOLE_MIN_BYTES", 0)
    monkeypatch.setattr(part_tree_module, "WHOLE_BYTES_PER_ASM", 0)


def _padded(size: int) -> str:
    """HELPERS with asm-free functions added up to ``size`` characters."""
    pads = [HELPERS]
    total, i = len(HELPERS), 0
    while total < size:
        # few names, long bodies: the search for the names stays under its bound
        steps = "".join(f"  x = x * {k} + (x >> {k % 7});\n" for k in range(40))
        pad = f"__device__ int more_{i}(int x) {{\n{steps}  return x;\n}}\n"
        pads.append(pad)
        total, i = total + len(pad), i + 1
    return "".join(pads)


def test_the_gate_lets_through_only_big_files_of_sparse_asm() -> None:
    sparse = _padded(part_tree_module.WHOLE_MIN_BYTES)
    assert whole_file_tree(SourceFile("small.cu", HELPERS)) is None
    tree = whole_file_tree(SourceFile("sparse.cu", sparse))
    assert tree is not None and tree.unread
    asm = sparse.count("asm")
    dense = sparse + "// asm\n" * (len(sparse) // part_tree_module.WHOLE_BYTES_PER_ASM - asm + 1)
    assert whole_file_tree(SourceFile("dense.cu", dense)) is None


@pytest.mark.usefixtures("any_file_leaves_out")
def test_a_lint_on_the_left_out_tree_finds_what_the_whole_tree_lint_does() -> None:
    rules = default_rules()
    whole = _lint(rules, whole_tree=True)
    assert whole.parsed is not None and not whole.parsed.unread
    # a helper's value and a caller's argument (value flow across functions), a latent one
    assert sum(f.rule == "PTX301" for f in whole.result.findings) == 2
    assert any(f.latent for f in whole.result.findings)
    left_out = _lint(rules, whole_tree=False)
    # linted on the left-out tree, without a fall-back: the pads went, the functions the
    # statements' names lead to stayed
    names = _left_out_names(left_out)
    assert {f"pad_{i}" for i in range(24)} <= names
    assert not names & {"load_shared", "shared_window", "truncated", "never_named", "caller"}
    assert _fields(left_out) == _fields(whole)
    assert [s.span for s in left_out.result.statements] == \
        [s.span for s in whole.result.statements]


@pytest.mark.usefixtures("any_file_leaves_out")
def test_a_rule_that_reads_the_file_statements_has_the_file_linted_with_the_whole_tree() -> None:
    class ReadsOthers(Rule):
        id, name = "PTX997", "reads-others"

        def check(self, statement, context):
            others = context.file_statements
            if len(others) and context.parsed.unread:
                return [self.finding(statement, statement.keyword_span, "partial tree")]
            return ()

    rules = [*default_rules(), ReadsOthers()]
    whole = _lint(rules, whole_tree=True)
    again = _lint(rules, whole_tree=False)
    assert again.parsed is not None and not again.parsed.unread  # the fall-back's tree
    assert not any(f.rule == "PTX997" for f in again.result.findings)
    assert _fields(again) == _fields(whole)


@pytest.mark.usefixtures("any_file_leaves_out")
def test_value_flow_that_meets_a_left_out_function_has_the_file_linted_with_the_whole_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every asm-free function left out, whatever the statements' names lead to: value flow
    # follows shared_window's call into a function that is not in the tree
    def asm_free(source: SourceFile, share: Share) -> list:
        read = scan(source.text)
        assert read is not None
        return [(f.params, f.body) for f in read.functions
                if f.plain and "asm" not in source.text[f.body[0]:f.body[1]]]

    rules = default_rules()
    whole = _lint(rules, whole_tree=True)
    monkeypatch.setattr(part_tree_module, "_unread", asm_free)
    tree = part_tree_module.part_tree(SourceFile("helpers.cu", HELPERS), WHOLE)
    spans = function_spans(HELPERS)
    assert spans is not None
    assert {"shared_window", "truncated"} <= {s.name for s in spans if s.body in tree.unread}
    again = _lint(rules, whole_tree=False)
    assert again.parsed is not None and not again.parsed.unread
    assert _fields(again) == _fields(whole)


@pytest.mark.usefixtures("any_file_leaves_out")
def test_the_language_server_keeps_the_whole_tree_for_its_re_lint() -> None:
    rules = default_rules()
    linter = IncrementalLinter()
    context = RuleContext()
    selector = SelectAll()
    first = linter.lint("helpers.cu", HELPERS, rules, context, selector)
    edited = HELPERS.replace('"add.u32 %0, %1, %3;"', '"add.u32 %0, %1, %2;"', 1)
    second = linter.lint("helpers.cu", edited, rules, context, selector)
    assert linter.incremental_runs == 1
    full = lint_kept(SourceFile("helpers.cu", edited), rules, context, whole_tree=True)
    assert [f.message for f in second.findings] == [f.message for f in full.result.findings]
    assert [f.message for f in first.findings] != [f.message for f in second.findings]


@pytest.mark.usefixtures("any_file_leaves_out")
def test_an_extraction_that_fails_on_the_left_out_tree_is_done_again_on_the_whole_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = default_rules()
    whole = _lint(rules, whole_tree=True)
    real = engine.extract
    trees: list[object] = []

    def fails_left_out(source, parse_template, lookup, share=WHOLE, parsed=None):
        trees.append(parsed)
        if parsed is not None and parsed.unread:
            raise RuntimeError("a reading the left-out tree does not hold")
        return real(source, parse_template, lookup, share, parsed)

    monkeypatch.setattr(engine, "extract", fails_left_out)
    again = _lint(rules, whole_tree=False)
    assert len(trees) == 2 and trees[-1] is None  # the second parses the whole file
    assert not any(f.rule == "internal-error" for f in again.result.findings)
    assert _fields(again) == _fields(whole)
