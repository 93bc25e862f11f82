"""Proof from the compiler that PTX101-PTX107 find real miscompilations, and that their fixes
are exact, re-lint clean and still compile.

Each evidence case is a defective kernel; the *fixed* kernel is produced by applying the rule's
own fix edits, and both are compiled with ``nvcc -arch=sm_90 -O3 -ptx``. The assertion names
what the optimizer did to the defective one (deleted the asm, hoisted the clock read, CSE'd the
load, dropped the store, lost the old value). Compiles run in parallel and their output is
cached by content hash in the test cache (tests/toolchain_cache.py).
Skipped, with the reason, when nvcc is not installed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pytest

from ptxlint.model import Edit, Finding
from tests.conftest import FIXTURES, lint_text
from tests.test_corpora import precision
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, parallel_map, run_cached

# --------------------------------------------------------------------------- helpers


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits, last first so earlier offsets stay valid."""
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True)
    for earlier, later in zip(ordered[1:], ordered, strict=False):
        assert earlier.span.end <= later.span.start, f"overlapping edits {earlier} {later}"
    for edit in ordered:
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def fix_all(text: str, rule: str) -> tuple[str, list[Finding]]:
    findings = [f for f in lint_text(text, select=(rule,)) if f.rule == rule]
    edits = [e for f in findings if f.fix is not None for e in f.fix.edits]
    return apply_edits(text, edits), findings


def compile_cached(source: str, mode: str, inputs: Sequence[str] = ()) -> tuple[bool, str]:
    """``(ok, ptx or error text)`` for ``nvcc -arch=sm_90 -O3`` with ``-ptx`` or ``-c``;
    ``inputs``: the headers it includes whose text the verdict depends on."""
    assert NVCC is not None
    flag = "-ptx" if mode == "ptx" else "-c"
    run = run_cached(
        NVCC,
        ["-arch=sm_90", "-O3", flag, INPUT, "-o", OUTPUT],
        source,
        filename="k.cu",
        read_output=mode == "ptx",
        inputs=inputs,
    )
    return run.ok, run.output if run.ok and mode == "ptx" else run.stderr


def compile_many(jobs: list[tuple[str, str]]) -> list[tuple[bool, str]]:
    return parallel_map(lambda job: compile_cached(*job), jobs)


def code(ptx: str) -> str:
    """The PTX without comments (the header names the temporary file)."""
    return "\n".join(line for line in ptx.splitlines() if not line.lstrip().startswith("//"))


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class Evidence:
    name: str
    rule: str
    source: str
    # (defective PTX, fixed PTX) -> the optimization happened to the defective one only
    shows: Callable[[str, str], bool]
    what: str


EVIDENCE = (
    Evidence(
        "deleted-asm",
        "PTX101",
        """
__global__ void k(unsigned *out) {
  unsigned t;
  asm("st.global.u32 [%1], 1; mov.u32 %0, 0;" : "=r"(t) : "l"(out));
}
""",
        lambda bad, good: "st.global.u32 [%rd1], 1" in good and "st.global.u32" not in bad,
        "the asm (and its store) is deleted because its output is unused",
    ),
    Evidence(
        "hoisted-clock",
        "PTX101",
        """
__global__ void k(unsigned *out, int n) {
  for (int i = 0; i < n; ++i) {
    unsigned t;
    asm("mov.u32 %0, %%clock;" : "=r"(t));
    out[i] = t;
  }
}
""",
        lambda bad, good: good.count("%clock") > bad.count("%clock"),
        "the %clock read is hoisted out of the loop: one read for all iterations",
    ),
    Evidence(
        "cse-load-across-store",
        "PTX102",
        """
__global__ void k(int *p, int *out) {
  int a = *p;
  int d;
  asm("st.global.u32 [%1], 7; mov.u32 %0, 0;" : "=r"(d) : "l"(p));
  int b = *p;
  out[0] = a + b + d;
}
""",
        lambda bad, good: good.count("ld.global.u32") > bad.count("ld.global.u32"),
        "the load of *p after the asm is replaced by the value loaded before it",
    ),
    Evidence(
        "dead-store-before-load",
        "PTX102",
        """
__global__ void k(int *p, int *out) {
  int d;
  *p = 5;
  asm("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(p));
  *p = 6;
  out[0] = d;
}
""",
        lambda bad, good: good.count("st.global.u32") > bad.count("st.global.u32"),
        "the store of 5 before the asm that reads it is eliminated",
    ),
    Evidence(
        "lost-old-value",
        "PTX103",
        """
__global__ void k(int *out, int x) {
  int r = 42;
  asm("{ .reg .pred p; setp.gt.s32 p, %1, 0; @p mov.s32 %0, 1; }" : "=r"(r) : "r"(x));
  out[0] = r;
}
""",
        lambda bad, good: re.search(r"\b42;", good) is not None and "42;" not in bad,
        "the initial 42 never reaches the output register when the predicate is false",
    ),
    Evidence(
        "lost-input-write",
        "PTX105",
        """
__global__ void k(unsigned long long *out, unsigned x) {
  unsigned long long d = 5;
  asm("cvt.u64.u32 %0, %1;" :: "l"(d), "r"(x));
  out[0] = d + 1;
}
""",
        lambda bad, good: re.search(r"mov\.u64\s+%rd\d+, 6;", bad) is not None
        and "add.s64" in good and "add.s64" not in bad,
        "the asm's write to the input is lost: d + 1 is folded to the constant 6",
    ),
    Evidence(
        "clobbered-zero",
        "PTX105",
        # CUTLASS's tma_descriptor_replace_dims_strides_in_shared_mem pattern (cute/arch/
        # copy_sm90_desc.hpp): a 64-bit 0 "converted" in place, as an input
        """
__global__ void k(unsigned long long *out, unsigned v) {
  __shared__ unsigned buf[32];
  unsigned addr = (unsigned)__cvta_generic_to_shared(buf);
  unsigned long long wide = 0;
  asm volatile("cvt.u64.u32 %0, %1;" :: "l"(wide), "r"(addr));
  asm volatile("st.shared.u32 [%0], %1;" :: "l"(wide), "r"(v) : "memory");
  unsigned long long zero = 0;
  asm volatile("st.global.u64 [%0], %1;" :: "l"(out), "l"(zero) : "memory");
}
""",
        lambda bad, good: _stored_register_written_by_cvt(bad)
        and not _stored_register_written_by_cvt(good),
        "the register nvcc keeps the constant 0 in is the one the asm overwrote: a later "
        "store of 0 stores the shared address",
    ),
    Evidence(
        "read-before-write",
        "PTX106",
        """
__global__ void k(int *out, int x) {
  int acc = 42;
  asm("add.s32 %0, %0, %1;" : "=r"(acc) : "r"(x));
  out[0] = acc;
}
""",
        lambda bad, good: re.search(r"\b42;", good) is not None and "42;" not in bad,
        "the 42 the add reads is never put in the register: it reads an undefined value",
    ),
    Evidence(
        "input-shares-the-output-register",
        "PTX108",
        """
__global__ void k(unsigned *out, unsigned n) {
  unsigned x = threadIdx.x;
  for (unsigned i = 0; i < n; ++i) {
    unsigned y;
    asm("mov.u32 %0, 7;\\n\\tadd.u32 %0, %0, %1;" : "=r"(y) : "r"(x));
    x = y;
  }
  out[threadIdx.x] = x;
}
""",
        lambda bad, good: _adds_its_own_register(bad) and not _adds_its_own_register(good),
        "the loop-carried x gets y's register: the add reads the 7 just written, not x",
    ),
)


def _adds_its_own_register(ptx: str) -> bool:
    return re.search(r"mov\.u32 (%r\d+), 7;\s*add\.u32 \1, \1, \1;", ptx) is not None


def _stored_register_written_by_cvt(ptx: str) -> bool:
    stored = re.search(r"st\.global\.u64 \[%rd\d+\], (%rd\d+);", ptx)
    return stored is not None and f"cvt.u64.u32 {stored.group(1)}," in ptx


CARRY_SPLIT = """
__global__ void k(unsigned *out, const unsigned *b, int n) {
  unsigned a = out[0], total = 0;
  for (int i = 0; i < n; ++i) {
    unsigned c;
    asm("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b[i]));
    asm("addc.u32 %0, 0, 0;" : "=r"(c));
    total += c;
  }
  out[0] = a;
  out[1] = total;
}
"""
CARRY_JOINED = CARRY_SPLIT.replace(
    'asm("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b[i]));\n    asm("addc.u32 %0, 0, 0;" : "=r"(c));',
    'asm("add.cc.u32 %0, %0, %2;\\n\\taddc.u32 %1, 0, 0;" : "+r"(a), "=r"(c) : "r"(b[i]));',
)


@pytest.fixture(scope="module")
def evidence_ptx() -> dict[str, tuple[str, str]]:
    jobs: list[tuple[str, str]] = []
    for case in EVIDENCE:
        fixed, findings = fix_all(case.source, case.rule)
        assert findings, f"{case.rule} does not flag the {case.name} example"
        jobs += [(case.source, "ptx"), (fixed, "ptx")]
    if NVCC is None:
        return {}
    results = compile_many(jobs)
    out: dict[str, tuple[str, str]] = {}
    for i, case in enumerate(EVIDENCE):
        (ok_bad, bad), (ok_good, good) = results[2 * i], results[2 * i + 1]
        assert ok_bad and ok_good, (bad, good)
        out[case.name] = (code(bad), code(good))
    return out


@needs_nvcc
@pytest.mark.parametrize("case", EVIDENCE, ids=lambda c: c.name)
def test_nvcc_miscompiles_the_defect_and_not_the_fix(
    case: Evidence, evidence_ptx: dict[str, tuple[str, str]]
) -> None:
    bad, good = evidence_ptx[case.name]
    assert bad != good
    assert case.shows(bad, good), f"nvcc no longer shows it: {case.what}\n{bad}\n----\n{good}"


@needs_nvcc
def test_volatile_without_memory_clobber_is_not_exploited_today() -> None:
    """Why PTX102 is only info on volatile asm: nvcc 13.0 treats volatile as a memory barrier.
    If this starts failing, nvcc got stricter and PTX102 should warn for volatile asm too."""
    source = """
__global__ void k(int *p, int *out) {
  int a = *p;
  int d;
  asm volatile("st.global.u32 [%1], 7; mov.u32 %0, 0;" : "=r"(d) : "l"(p));
  int b = *p;
  out[0] = a + b + d;
}
"""
    findings = [f for f in lint_text(source, select=("PTX102",)) if f.rule == "PTX102"]
    assert [f.severity.value for f in findings] == ["info"]
    fixed, _ = fix_all(source, "PTX102")
    (ok1, bad), (ok2, good) = compile_many([(source, "ptx"), (fixed, "ptx")])
    assert ok1 and ok2
    assert code(bad).count("ld.global.u32") == code(good).count("ld.global.u32") == 2


# Register-only and asynchronous instructions in a volatile asm: a C++
# shared-memory store before the asm and a load after it, compiled with and without the
# clobber. The PTX is the same, with the store still before the asm and the load after it:
# nvcc orders volatile asm against C++ memory accesses anyway, and these instructions touch no
# memory the surrounding C++ accesses at that point (mma, shfl: registers; wgmma.mma_async:
# shared memory through descriptors, read asynchronously and ordered by wgmma.fence/wait_group).
REGISTER_ONLY = {
    "wgmma.mma_async": (
        "sm_90a",
        """
__global__ void k(float *out, unsigned long long da, unsigned long long db) {
  __shared__ float s[256];
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  s[threadIdx.x] = out[threadIdx.x];
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, "
               "p, 1, 1, 0, 0;\\n}\\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db)CLOBBER);
  out[threadIdx.x] = s[threadIdx.x ^ 1] + d0 + d1 + d2 + d3;
}
""",
    ),
    "mma.sync": (
        "sm_90",
        """
__global__ void k(float *out, const unsigned *in) {
  __shared__ float s[256];
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  s[threadIdx.x] = out[threadIdx.x];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(in[0]), "r"(in[1]), "r"(in[2]), "r"(in[3]), "r"(in[4]), "r"(in[5])CLOBBER);
  out[threadIdx.x] = s[threadIdx.x ^ 1] + d0 + d1 + d2 + d3;
}
""",
    ),
    "shfl.sync": (
        "sm_90",
        """
__global__ void k(float *out) {
  __shared__ float s[256];
  float v = out[threadIdx.x], r;
  s[threadIdx.x] = v;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v)CLOBBER);
  out[threadIdx.x] = s[threadIdx.x ^ 1] + r;
}
""",
    ),
}


def _arch_ptx(source: str, arch: str) -> tuple[bool, str]:
    assert NVCC is not None
    run = run_cached(
        NVCC, [f"-arch={arch}", "-O3", "-ptx", INPUT, "-o", OUTPUT], source, filename="k.cu",
        read_output=True,
    )
    return run.ok, code(run.output) if run.ok else run.stderr


@pytest.mark.parametrize("name", sorted(REGISTER_ONLY))
def test_register_only_and_async_instructions_in_volatile_asm_are_not_flagged(name: str) -> None:
    _, source = REGISTER_ONLY[name]
    bare = source.replace("CLOBBER", "")
    assert [f for f in lint_text(bare, select=("PTX102",)) if f.rule == "PTX102"] == []


@needs_nvcc
@pytest.mark.parametrize("name", sorted(REGISTER_ONLY))
def test_volatile_register_only_asm_compiles_the_same_with_and_without_the_clobber(
    name: str,
) -> None:
    arch, source = REGISTER_ONLY[name]
    jobs = [source.replace("CLOBBER", ""), source.replace("CLOBBER", ' : "memory"')]
    (ok1, without), (ok2, with_clobber) = parallel_map(lambda s: _arch_ptx(s, arch), jobs)
    assert ok1 and ok2, (without, with_clobber)
    assert without == with_clobber
    mnemonic = name.split(".")[0]
    store = without.index("st.shared.f32")
    asm = without.index(mnemonic, store)
    assert without.index("ld.shared.f32", asm) > asm, without


@needs_nvcc
def test_carry_consumer_in_its_own_statement_is_hoisted_out_of_the_loop() -> None:
    """PTX107's evidence: the addc of the split pair runs once, above the loop, before any
    add.cc; joined in one statement it follows every add.cc. (No fix: merging two statements
    is the user's edit, so the joined text is written here by hand.)"""
    assert CARRY_JOINED != CARRY_SPLIT
    assert [f.rule for f in lint_text(CARRY_SPLIT, select=("PTX107",))] == ["PTX107", "PTX107"]
    assert lint_text(CARRY_JOINED, select=("PTX107",)) == []
    (ok1, bad), (ok2, good) = compile_many([(CARRY_SPLIT, "ptx"), (CARRY_JOINED, "ptx")])
    assert ok1 and ok2, (bad, good)
    bad, good = code(bad), code(good)
    first_addc, first_loop = bad.index("addc.u32"), bad.index("$L__BB0_3:")
    assert first_addc < first_loop, "nvcc no longer hoists the addc above the loop"
    assert bad.count("addc.u32") < bad.count("add.cc.u32")
    assert good.count("addc.u32") == good.count("add.cc.u32")


CARRY_VOLATILE = """
__global__ void k(const unsigned *b, unsigned __int128 *w, unsigned *out, int n) {
  unsigned a = out[0], total = 0;
  unsigned __int128 acc = w[0];
  for (int i = 0; i < n; ++i) {
    unsigned c;
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b[i]));
    acc += w[i + 1];
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
    total += c;
  }
  out[0] = a;
  out[1] = total;
  w[0] = acc;
}
"""


@needs_nvcc
def test_volatile_carry_statements_keep_their_order_but_not_the_flag() -> None:
    """PTX107's warning: volatile keeps the split pair in order, and nvcc puts the 128-bit
    addition written between them there too, as add.cc/addc.cc of its own: the user's addc
    reads the carry of the compiler's addition."""
    found = lint_text(CARRY_VOLATILE, select=("PTX107",))
    assert [(f.rule, f.severity.value) for f in found] == [
        ("PTX107", "warning"), ("PTX107", "warning")
    ]
    [(ok, ptx)] = compile_many([(CARRY_VOLATILE, "ptx")])
    assert ok, ptx
    ptx = code(ptx)
    producer = ptx.index("add.cc.u32")
    consumer = ptx.index("addc.u32", producer)
    assert "add.cc.s64" in ptx[producer:consumer], "nvcc no longer places its carry between"


CARRY_NO_OUTPUT = """
__device__ unsigned carry_of(unsigned a, unsigned b) {
  unsigned c;
  asm("{ .reg .u32 t; add.cc.u32 t, %0, %1; }" :: "r"(a), "r"(b));
  asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
  return c;
}
"""


def test_an_asm_without_outputs_keeps_its_order_as_a_volatile_one() -> None:
    """An asm with no output operand is volatile without the word (GCC's rule): the pair keeps
    its order, PTX107 warns; a consumer that is neither volatile nor output-free may move."""
    found = lint_text(CARRY_NO_OUTPUT, select=("PTX107",))
    assert [(f.rule, f.severity.value) for f in found] == [
        ("PTX107", "warning"), ("PTX107", "warning")
    ]
    plain = CARRY_NO_OUTPUT.replace("asm volatile(", "asm(")
    assert sorted(f.severity.value for f in lint_text(plain, select=("PTX107",))) == [
        "error", "warning"
    ]


KEPT_WITHOUT_OUTPUTS = """
__global__ void k(unsigned *p, unsigned v) {
  asm("st.global.u32 [%0], %1;" :: "l"(p), "r"(v));
  asm("st.global.u32 [%0], %1;" :: "l"(p), "r"(v));
  unsigned r;
  asm("mov.u32 %0, %%clock;" : "=r"(r));
  asm("mov.u32 %0, %%clock;" : "=r"(r));
}
"""


@needs_nvcc
def test_nvcc_keeps_an_asm_without_outputs_as_volatile() -> None:
    """Two identical asm with no outputs both stay; the asm whose outputs are unused goes."""
    [(ok, ptx)] = compile_many([(KEPT_WITHOUT_OUTPUTS, "ptx")])
    assert ok, ptx
    ptx = code(ptx)
    assert ptx.count("st.global.u32") == 2
    assert "%clock" not in ptx


# --------------------------------------------------------------------------- fixes


FIXABLE = ("PTX101", "PTX102", "PTX103", "PTX105", "PTX106", "PTX108")


def _fixture(rule: str) -> str:
    with open(os.path.join(FIXTURES, "rules", f"{rule}_bad.cu"), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("rule", FIXABLE)
def test_fixes_relint_clean(rule: str) -> None:
    text = _fixture(rule)
    fixed, findings = fix_all(text, rule)
    assert findings and all(f.fix is not None for f in findings)
    assert [f for f in lint_text(fixed, select=(rule,)) if f.rule == rule] == []


@needs_nvcc
def test_fixed_fixtures_still_compile() -> None:
    jobs = [(fix_all(_fixture(rule), rule)[0], "c") for rule in FIXABLE]
    for rule, (ok, err) in zip(FIXABLE, compile_many(jobs), strict=True):
        assert ok, f"{rule} fixed fixture does not compile:\n{err}"


def test_memory_clobber_fix_creates_missing_sections() -> None:
    cases = {
        'asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(p));': (
            'asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(p) : "memory");'
        ),
        'asm volatile("ld.global.u32 %0, [%%rd1];" : "=r"(x));': (
            'asm volatile("ld.global.u32 %0, [%%rd1];" : "=r"(x) :: "memory");'
        ),
        'asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "cc");': (
            'asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "cc", "memory");'
        ),
        'asm volatile("st.global.u32 [%0], 1;" :: "l"(p) :);': (
            'asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "memory");'
        ),
        'asm("membar.gl;");': 'asm("membar.gl;" ::: "memory");',
    }
    for before, after in cases.items():
        text = f"__device__ void f(int *p, int x) {{ {before} }}\n"
        fixed, findings = fix_all(text, "PTX102")
        assert findings, before
        assert fixed == f"__device__ void f(int *p, int x) {{ {after} }}\n"


def test_volatile_fix_follows_the_file_spelling() -> None:
    clock = '("mov.u32 %0, %%clock;" : "=r"(t));'
    for before, after in {
        f"asm{clock}": f"asm volatile{clock}",
        f"__asm__{clock}": f"__asm__ __volatile__{clock}",
        f'asm {clock} asm __volatile__("");': f'asm __volatile__ {clock} asm __volatile__("");',
    }.items():
        text = f"__device__ void f(unsigned t) {{ {before} }}\n"
        fixed, _ = fix_all(text, "PTX101")
        assert fixed == f"__device__ void f(unsigned t) {{ {after} }}\n"


def test_inout_fix_edits_only_the_equals_sign() -> None:
    text = (
        '__device__ void f(int r, int x) { asm("{ .reg .pred p; setp.gt.s32 p, %1, 0; '
        '@p mov.s32 %0, 1; }" : "=&r"(r) : "r"(x)); }\n'
    )
    fixed, findings = fix_all(text, "PTX103")
    assert len(findings) == 1
    assert fixed == text.replace('"=&r"', '"+&r"')


def test_input_fix_moves_the_operand_and_renumbers() -> None:
    text = (
        "__device__ void f(unsigned bar, unsigned long long state) {\n"
        '  asm volatile("mbarrier.arrive.shared::cta.b64 %1, [%0];" :: "r"(bar), "l"(state)'
        ' : "memory");\n}\n'
    )
    fixed, findings = fix_all(text, "PTX105")
    assert len(findings) == 1 and findings[0].fix is not None and not findings[0].fix.safe
    assert fixed == text.replace(
        '"mbarrier.arrive.shared::cta.b64 %1, [%0];" :: "r"(bar), "l"(state)',
        '"mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar)',
    )


def test_input_fix_keeps_reads_with_plus_and_skips_non_lvalues() -> None:
    text = (
        "__device__ unsigned long long f(unsigned long long d, unsigned x) {\n"
        '  asm("mov.u32 %0, 0; cvt.u64.u32 %1, %1; add.u64 %1, %1, %2;" : "=r"(x) : "l"(d), '
        '"l"(d + 1));\n'
        '  asm("cvt.u64.u32 %0, %0;" :: "l"(d + 1));\n'
        "  return d;\n}\n"
    )
    findings = [f for f in lint_text(text, select=("PTX105",)) if f.rule == "PTX105"]
    assert len(findings) == 2
    first, second = findings
    assert first.fix is not None and second.fix is None
    fixed, _ = fix_all(text, "PTX105")
    assert ': "=r"(x), "+l"(d) : "l"(d + 1)' in fixed
    assert "cvt.u64.u32 %1, %1; add.u64 %1, %1, %2;" in fixed  # d stays %1 as an output


CCCL_ATOMIC_128 = """
#include <cuda/atomic>
struct alignas(16) S { unsigned long long a, b; };
__global__ void exchange(S *p, S *out, S v) {
  cuda::atomic_ref<S, cuda::thread_scope_device> r(*p);
  out[0] = r.exchange(v);
}
// apart: the unbraced `.reg .b128 _v` of both in one kernel is a duplicate (PTX201)
__global__ void store(S *p, S v) {
  cuda::atomic_ref<S, cuda::thread_scope_device> r(*p);
  r.store(v);
}
"""


@needs_nvcc
def test_the_reviewed_cccl_128_bit_atomics_defect_is_real() -> None:
    """tests/data/reviewed_findings.toml judges PTX105/PTX106 on the CUDA headers' 128-bit
    atomics true: the packing mov.b128 has its operands swapped, so exchange and store send the
    uninitialised `_v` to memory and exchange returns registers nothing wrote. When a toolkit
    ships the fixed CCCL (#3440), this test skips and those reviews are stale."""
    include = precision.cuda_include()
    atomics = [os.path.join(str(include), "cccl/cuda/std/__atomic")] if include else []
    ok, ptx = compile_cached(CCCL_ATOMIC_128, "ptx", atomics)
    if not ok and "has no member" in ptx:
        pytest.skip("this toolkit's CCCL does not compile 16-byte atomic_ref")
    assert ok, ptx
    swapped = re.findall(r"mov\.b128 \{%rd\d+, %rd\d+\}, _v;", ptx)
    if not swapped:
        pytest.skip("this toolkit's CCCL packs the 128-bit operands the right way round")
    assert "atom.exch.acquire.gpu.b128 _d,[%rd" in ptx and re.search(r"st\.\w+\.gpu\.b128", ptx)
    assert len(swapped) == 2  # exchange and store each pack their inputs backwards
