"""The language server's re-lint after an edit (ptxlint.lsp.incremental): an edit inside one asm
template re-reads only that statement, and every result is exactly a full lint's."""

from __future__ import annotations

import glob
import os
import random
import sys
from collections.abc import Iterator

import pytest

from ptxlint.engine import FileResult, SelectAll, instantiate, lint_kept, lint_source
from ptxlint.frontends.statement_problems import left_out
from ptxlint.frontends.syntax_tree import parse
from ptxlint.lsp.incremental import IncrementalLinter, _EditedSource
from ptxlint.model import AsmStatement, Finding, Severity, SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import Rule, RuleContext
from tests.conftest import FIXTURES

RULES = instantiate(load_rules().rules)
SELECTOR = SelectAll()
CONTEXT = RuleContext()

# Macros that expand to asm, an asm statement with #if inside and one under #if, a suppression
# comment, a carry flag across statements (PTX107), a brace opened in one statement and closed
# in the next (PTX203), a shared-window address made by one asm and used by another (PTX301),
# through a helper's return and a parameter (value flow reads names from the tree).
MIXED = """#include <cstdint>

#define LOAD_U32(dst, ptr) asm volatile("ld.global.u32 %0, [%1];" : "=r"(dst) : "l"(ptr))
#define SPIN() asm("bar.sync 0;")

__device__ unsigned first(unsigned a, const unsigned* p) {
  unsigned d, e;
  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));
  asm volatile("{\\n\\t.reg .pred p;\\n\\tsetp.eq.u32 p, %1, 0;\\n" : "=r"(e) : "r"(a));
  asm volatile("}" ::: "memory");
  LOAD_U32(d, p);
  LOAD_U32(e, p + 1);
  SPIN();
  return d + e;
}

__device__ unsigned carry(unsigned a, unsigned b) {
  unsigned lo, hi;
  asm("add.cc.u32 %0, %1, %2;" : "=r"(lo) : "r"(a), "r"(b));
  asm("addc.u32 %0, 0, 0;" : "=r"(hi));
  return lo + hi;
}

__device__ void shared_store(float v) {
  __shared__ float tile[32];
  uint32_t addr;
  asm("cvta.to.shared.u32 %0, %1;" : "=r"(addr) : "l"(tile));
  asm volatile("st.global.f32 [%0], %1;" :: "r"(addr), "f"(v) : "memory");
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(addr), "f"(v));  // ptxlint: ignore[PTX102]
}

__device__ uint32_t smem_addr(const void* p) {
  uint32_t a;
  asm("cvta.to.shared.u32 %0, %1;" : "=r"(a) : "l"(p));
  return a;
}

__device__ void store(uint32_t addr, float v) {
  asm volatile("st.global.f32 [%0], %1;" :: "r"(addr), "f"(v) : "memory");
}

__device__ void use(float v) {
  __shared__ float t[4];
  uint32_t a = smem_addr(t);
  asm volatile("st.global.f32 [%0], %1;" :: "r"(a), "f"(v) : "memory");
  store(smem_addr(t + 1), v);
}

__device__ float branches(float x) {
  float y;
  asm("mov.f32 %0, %1;"
#if __CUDA_ARCH__ >= 800
      "add.f32 %0, %0, 1.0;"
#else
      "add.f32 %0, %0, 2.0;"
#endif
      : "=f"(y) : "f"(x));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async;" ::: "memory");
#endif
  asm("mov.b32 %0, %%laneid;" : "=r"(*(unsigned*)&y));
  return y;
}

__global__ void kernel(unsigned* out, const unsigned* in) {
  unsigned v = first(threadIdx.x, in) + carry(1u, 2u);
  asm("st.global.u32 [%0], %1;" :: "l"(out), "r"(v));
  asm volatile("add.s32 %0, %1, %2;" : "=r"(v) : "r"(v), "n"(threadIdx.x));
  unsigned old;
  asm("atom.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(out));
  shared_store(1.0f + old);
}
"""

sys.path.insert(0, os.path.join(os.path.dirname(FIXTURES), "benchmarks"))
import lsp_latency  # noqa: E402


def shape(result: FileResult) -> list[tuple]:
    out = []
    for f in result.findings:
        fix = None
        if f.fix is not None:
            fix = (f.fix.description, f.fix.safe, tuple((e.span, e.new_text) for e in f.fix.edits))
        statement = f.statement.span if f.statement is not None else None
        out.append((f.rule, f.name, f.severity, f.path, f.span, f.message, fix, statement,
                    f.expansion, f.spelled_at, f.branch, f.latent))
    return out


def full(path: str, text: str) -> FileResult:
    return lint_source(SourceFile(path, text), RULES, CONTEXT, SELECTOR)


def same_as_full(linter: IncrementalLinter, path: str, text: str) -> FileResult:
    got = linter.lint(path, text, RULES, CONTEXT, SELECTOR)
    # a full lint's own tree is the reference: its parse may leave out the uses of macros the
    # file judges specifiers or template pieces where the tree errs at one, which a parse
    # without that judge (``parse(path, text)``) keeps
    linted = lint_kept(SourceFile(path, text), RULES, CONTEXT, SELECTOR, whole_tree=True)
    want = linted.result
    assert shape(got) == shape(want)
    assert got.statements == want.statements  # every field but the source object
    assert got.skipped_statements == want.skipped_statements
    assert got.expanded_macros == want.expanded_macros
    assert got.unexpanded_macros == want.unexpanded_macros
    assert got.skipped_invocations == want.skipped_invocations
    assert got.branch_variants == want.branch_variants
    assert got.internal_errors == want.internal_errors
    kept = {id(s) for s in got.statements}
    for statement in got.statements:
        assert statement.source.text == text
    for finding in got.findings:
        # or a statement extraction left out, which a rule spoke about (PTX014): the edit
        # that made it was linted whole
        assert (finding.statement is None or id(finding.statement) in kept
                or left_out(finding.statement.problems) is not None)
    document = linter._documents.get(path)
    if document is not None:
        fresh = linted.parsed.tree if linted.parsed is not None else parse(path, text).tree
        _same_tree(document.parsed.positions(), fresh)  # the edited tree's nodes
        parsed = document.parsed
        if isinstance(parsed, _EditedSource):  # the one a rule reads (parsed on a copy, so
            # that the next edit still starts from the edited tree)
            again = _EditedSource(parsed.text, parsed.data, parsed.positions().copy(),
                                  parsed.grammar, skipped=parsed.skipped)
            _same_tree(again.tree, fresh)
    return got


def _same_tree(got, want) -> None:
    """The kept tree (edited, not re-parsed) reads as a fresh parse of the text."""
    a, b = got.walk(), want.walk()
    while True:
        assert (a.node.type, a.node.start_byte, a.node.end_byte) == (
            b.node.type, b.node.start_byte, b.node.end_byte)
        if a.goto_first_child():
            assert b.goto_first_child()
            continue
        assert not b.goto_first_child()
        while not a.goto_next_sibling():
            assert not b.goto_next_sibling()
            if not a.goto_parent():
                assert not b.goto_parent()
                return
            assert b.goto_parent()
        assert b.goto_next_sibling()


def _literal_positions(result: FileResult) -> list[tuple[int, int]]:
    """The content of every template, constraint and clobber literal of every statement:
    where editors type PTX."""
    spans = []
    for statement in result.statements:
        literals = [p.span for p in statement.template.pieces if p.kind == "string"]
        literals += [o.constraint.span for o in statement.operands]
        literals += [c.span for c in statement.clobbers]
        for span in literals:
            if span.end - span.start > 2:
                spans.append((span.start + 1, span.end - 1))
    return spans


# What typing PTX inserts, plus what must make a full lint: a quote, a backslash, a line break,
# '#', '__volatile__' (PTX101's fix spells the file's choice), '__device__' (the grammar).
_PTX_PIECES = ["0", "1", "3", "%", "%1", "%%", " ", ".", ";", ",", "{", "}", "u32", "f32",
               "add.u32", "ld.shared.u32 %0, [%1];", "cvta.to.shared.u32", "addc", "x", "_a",
               "@p ", "setp.eq.u32 p, %1, 0;", "\\n\\t", "r", "l", "f", "=", "+", "&", "n",
               "memory", "cc"]
_BREAKERS = ['"', "\\", "\n", "#", "__volatile__", "__device__", " // ptxlint: ignore", "NV_"]
_ANY = list("0123456789%{};,()\"' abcxyz#\n_") + ["asm(", "__volatile__", "*/", "/*", "//"]


def _edit(text: str, at: int, end: int, rng: random.Random, pieces: list[str]) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return text[:at] + rng.choice(pieces) + text[at:]
    if kind == 1:
        return text[:at] + text[min(end, at + rng.randrange(1, 4)):]
    return text[:at] + rng.choice(pieces) + text[min(end, at + rng.randrange(1, 3)):]


def _random_edits(path: str, text: str, rng: random.Random, count: int) -> int:
    """``count`` edits, each checked against a full lint: half typing inside a template
    literal (some of it what must not take the fast path), the rest anywhere (function
    bodies, macros, #if lines, across functions); every other edit is kept, so statements
    drift from the first text. Returns how many took the fast path."""
    linter = IncrementalLinter()
    result = same_as_full(linter, path, text)
    original = text
    for i in range(count):
        literals = _literal_positions(result)
        choice = rng.random()
        if literals and choice < 0.5:
            start, end = rng.choice(literals)
            at = rng.randrange(start, end + 1)  # up to the closing quote
            pieces = _PTX_PIECES if rng.random() < 0.85 else _BREAKERS
            edited = _edit(text, at, end, rng, pieces)
        elif choice < 0.9:
            at = rng.randrange(len(text))
            edited = _edit(text, at, len(text), rng, _ANY)
        else:  # a range across whatever lies there (often several functions)
            at = rng.randrange(len(text))
            edited = text[:at] + text[at + rng.randrange(1, 400):]
        result = same_as_full(linter, path, edited)
        if i % 2:
            text = edited
        elif i % 8 == 0:  # back to the first text now and then: an undo
            text = original
            result = same_as_full(linter, path, text)
        else:
            result = same_as_full(linter, path, text)
    return linter.incremental_runs


def test_random_edits_of_macros_branches_and_functions_give_a_full_lints_result() -> None:
    fast = _random_edits("mixed.cu", MIXED, random.Random(14), 160)
    assert fast >= 40  # the fast path ran, not only the fallback


@pytest.mark.parametrize(
    "path",
    sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.cu")))[::6],
    ids=os.path.basename,
)
def test_random_edits_of_fixtures_give_a_full_lints_result(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    # seeded by the file's name: the edits must not depend on where the checkout lies
    _random_edits(path, text, random.Random(os.path.basename(path)), 24)


def test_typing_a_comment_end_into_a_template_closes_an_earlier_open_comment() -> None:
    """An unterminated "/*" reads as an error and the statements after it stay; a "*/" typed
    into a later template makes the two one comment, and the statements it spans are gone."""
    opened = (
        "__device__ void f(int a) {\n"
        '  asm volatile("mov.u32 %0, %0;" : "+r"(a));  /* an opened comment\n'
        '  asm volatile("add.u32 %0, %0, 1;" : "+r"(a));\n'
        '  asm volatile("sub.u32 %0, %0, 1;" : "+r"(a));\n'
        "}\n"
    )
    linter = IncrementalLinter()
    assert len(same_as_full(linter, "c.cu", opened).statements) == 3
    at = opened.index("1;\" : \"+r\"(a));\n}")
    closed = opened[:at] + "*/" + opened[at:]
    assert len(same_as_full(linter, "c.cu", closed).statements) == 1


def test_the_benchmarks_edits_take_the_fast_path_and_match_a_full_lint() -> None:
    text, lines = lsp_latency.generate(600, 24)
    column = lsp_latency.ASM.index("%1")
    linter = IncrementalLinter()
    same_as_full(linter, "generated.cu", text)
    rows = text.split("\n")
    for i in range(8):
        line = lines[(i // 2 * 7) % len(lines)]
        new = "3" if i % 2 == 0 else "1"  # break it, then mend it
        rows[line] = rows[line][: column + 1] + new + rows[line][column + 2 :]
        same_as_full(linter, "generated.cu", "\n".join(rows))
    rows[lines[3]] = rows[lines[3]].replace("add.u32 %0", "add.u32    %0")  # later spans move
    same_as_full(linter, "generated.cu", "\n".join(rows))
    assert linter.incremental_runs == 9


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"add.cc.u32 %0, %1, %2;"', '"add.cc.u32 %0, %1, %2; "'),  # typing at the end
        ('"add.cc.u32 %0, %1, %2;"', '"add.cc.u32 %0, %1, %2"'),  # deleting there
        ('"add.cc.u32 %0, %1, %2;"', '"sub.cc.u32 %0, %1, %2;"'),  # at the start, replacing
        ('"=r"(hi)', '"=l"(hi)'),  # a constraint's letter
        ('"=r"(hi)', '"=rr"(hi)'),
        (': "memory");\n  asm volatile("st.shared', ': "memor");\n  asm volatile("st.shared'),
    ],
)
def test_edits_of_a_literal_take_the_fast_path(old: str, new: str) -> None:
    linter = IncrementalLinter()
    same_as_full(linter, "mixed.cu", MIXED)
    assert old in MIXED
    same_as_full(linter, "mixed.cu", MIXED.replace(old, new, 1))
    assert linter.incremental_runs == 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("add.u32 %0, %1, %3;", "add.u32 %0, %1, %2;"),  # PTX001 goes
        # longer: PTX301's value flow reads names from a tree where they moved
        ("add.u32 %0, %1, %3;", "add.u32   %0, %1, %3;"),
        ("addc.u32 %0, 0, 0;", "add.u32 %0, 0, 0;"),  # PTX107's pair goes, in both statements
        ("cvta.to.shared.u32 %0, %1;", "cvta.to.global.u32 %0, %1;"),  # PTX301 elsewhere goes
        ('asm volatile("}" :::', 'asm volatile("" :::'),  # PTX203: the brace is not closed
        ("st.shared.f32 [%0], %1;", "st.shared.f32 [%0], %1; "),  # a suppressed finding
        ("mov.f32 %0, %1;", "mov.f32 %0, %2;"),  # before #if branches: not the fast path
        ('"=r"(lo)', '"=l"(lo)'),  # a constraint: PTX206 and PTX004 on the statement
        ('"=r"(lo)', '"+r"(lo)'),  # read-write now
        (':: "r"(addr), "f"(v) : "memory");\n  asm volatile("st.shared',
         ':: "r"(addr), "f"(v) : "memorx");\n  asm volatile("st.shared'),  # a clobber
        # PTX101's fix on the kernel's store spells 'volatile' as the file does
        ("add.s32 %0, %1, %2;", "add.s32 %0, %1, %2; __volatile__"),
    ],
)
def test_edits_whose_effect_reaches_other_statements(old: str, new: str) -> None:
    linter = IncrementalLinter()
    same_as_full(linter, "mixed.cu", MIXED)
    assert old in MIXED
    same_as_full(linter, "mixed.cu", MIXED.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"ld.global.u32 %0, [%1];"', '"ld.global.u32 %0, [%2];"'),  # a macro's body
        ('asm("bar.sync 0;")', 'asm("bar.sync 1;")'),  # another macro's body
        ('"add.f32 %0, %0, 1.0;"', '"add.f32 %0, %0, 3.0;"'),  # an #if branch inside
        ("add.cc.u32 %0", "add.cc.u32 %0__"),  # a file-wide word typed
        ("unsigned lo, hi;", "unsigned lo, hi, z;"),  # C++ in a function body
        ('"r"(a), "r"(b));\n  asm("addc', '"r"(a), "r"(a));\n  asm("addc'),  # an operand
    ],
)
def test_edits_outside_a_plain_template_are_linted_in_full(old: str, new: str) -> None:
    linter = IncrementalLinter()
    same_as_full(linter, "mixed.cu", MIXED)
    assert old in MIXED
    same_as_full(linter, "mixed.cu", MIXED.replace(old, new, 1))
    assert linter.incremental_runs == 0


def test_python_files_and_configuration_changes_are_linted_in_full() -> None:
    linter = IncrementalLinter()
    text = 'import triton\n'
    linter.lint("k.py", text, RULES, CONTEXT, SELECTOR)
    linter.lint("k.py", text + "\n", RULES, CONTEXT, SELECTOR)
    assert linter.incremental_runs == 0
    same_as_full(linter, "mixed.cu", MIXED)
    other = RuleContext(arch=70)
    got = linter.lint("mixed.cu", MIXED.replace("%1, %3", "%1, %2"), RULES, other, SELECTOR)
    assert linter.incremental_runs == 0
    want = lint_source(SourceFile("mixed.cu", MIXED.replace("%1, %3", "%1, %2")), RULES, other,
                       SELECTOR)
    assert shape(got) == shape(want)


def test_changed_range_is_the_longest_common_prefix_then_suffix() -> None:
    """Block by block, then halving in the block that differs: the same range as comparing
    character by character, also across block boundaries and where the texts overlap."""
    import ptxlint.lsp.incremental as incremental
    from ptxlint.lsp.incremental import changed_range

    def naive(old: str, new: str) -> tuple[int, int, int]:
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        return start, len(old) - end, len(new) - end

    rng = random.Random(3)
    block = incremental._BLOCK
    try:
        incremental._BLOCK = 8  # many blocks in a short text
        for _ in range(3000):
            old = "".join(rng.choice("ab") for _ in range(rng.randint(0, 60)))
            a = rng.randint(0, len(old))
            b = rng.randint(a, len(old))
            new = old[:a] + "".join(rng.choice("abc") for _ in range(rng.randint(0, 5))) + old[b:]
            edit = changed_range(old, new)
            assert (edit.start, edit.old_end, edit.new_end) == naive(old, new), (old, new)
    finally:
        incremental._BLOCK = block


def test_an_edit_beside_a_reserved_name_outside_its_literal_takes_the_fast_path() -> None:
    """CCCL names every operand ``__x``: a ``__`` outside the edited literal cannot be made or
    unmade by the edit (the quotes are between), so it is no reason for a full lint; one typed
    into the literal still is."""
    text = (
        "template <class _Type>\n"
        "static inline __device__ void __store(_Type* __ptr, _Type& __val)\n"
        '{ asm volatile("st.relaxed.gpu.b16 [%0],%1;" :: "l"(__ptr), "h"(__val) : "memory"); }\n'
    )
    linter = IncrementalLinter()
    same_as_full(linter, "cccl.h", text)
    same_as_full(linter, "cccl.h", text.replace("[%0],%1;", "[%0],%2;"))
    assert linter.incremental_runs == 1
    same_as_full(linter, "cccl.h", text.replace("[%0],%1;", "[%0],%1;__"))
    assert linter.incremental_runs == 1  # a "__" typed into the literal: linted in full


_KERNEL_MACRO = """#define MY_GLOBAL __global__
__device__ __forceinline__ unsigned helper(unsigned v) {
  unsigned r;
  asm("shfl.sync.up.b32 %0, %1, 1, 0, 0xffffffff;" : "=r"(r) : "r"(v));
  return r;
}
MY_GLOBAL void k(unsigned* out, unsigned x) {
  unsigned lane = threadIdx.x % 32;
  if (lane >= 16) return;
  if (lane < 8) {
    asm volatile("mov.u32 %0, %0;" : "+r"(x));
    asm volatile("bar.warp.sync 0x0000ffff;" ::: "memory");
  }
  out[threadIdx.x] = x;
}
"""


@pytest.mark.parametrize("new", ['"mov.u32 %0, %0; "', '"mov.u32 %0, %0;  "', '"mov.u32 %0,%0;"'])
def test_an_edit_keeps_kernel_macros_and_latent_findings(new: str) -> None:
    """After a fast-path edit (the same length, or shifting what follows), a function a macro
    declares a kernel (``#define MY_GLOBAL __global__``) is still one, so the kernel rules
    (PTX601 here) say what a full lint says, and a finding in a helper nothing calls still
    says so (``latent``)."""
    linter = IncrementalLinter()
    first = same_as_full(linter, "k.cu", _KERNEL_MACRO)
    assert {f.rule for f in first.findings} >= {"PTX601", "PTX101"}
    assert [bool(f.latent) for f in first.findings if f.rule == "PTX101"] == [True]
    same_as_full(linter, "k.cu", _KERNEL_MACRO.replace('"mov.u32 %0, %0;"', new))
    assert linter.incremental_runs == 1


def test_a_re_lint_asks_a_file_wide_rule_only_where_its_needs_hold() -> None:
    """A rule that reads other statements is asked again after an edit, but, as in a full lint
    (``engine.RulePlan``), only of the statements where one of its needs holds: PTX614's check
    reads the function's flows, and asking it of every statement of a file without tcgen05
    made each re-lint of the 5,000-line benchmark 13 times as slow."""
    asked: list[str] = []

    class NeedsTcgen05(Rule):
        id = "PTX999"
        name = "needs-cta-groups"
        severity = Severity.ERROR
        summary = "asked only of a tcgen05 instruction that names its .cta_group"
        needs = ("cta-groups",)
        scope = "file"

        def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
            asked.append(statement.template.text)
            return iter(())

    rules = [*RULES, NeedsTcgen05()]
    text, lines = lsp_latency.generate(200, 8)
    column = lsp_latency.ASM.index("%1")
    linter = IncrementalLinter()
    linter.lint("generated.cu", text, rules, CONTEXT, SELECTOR)
    rows = text.split("\n")
    rows[lines[2]] = rows[lines[2]][: column + 1] + "3" + rows[lines[2]][column + 2:]
    linter.lint("generated.cu", "\n".join(rows), rules, CONTEXT, SELECTOR)
    assert linter.incremental_runs == 1
    assert asked == []  # no statement names a .cta_group: neither lint asked it
