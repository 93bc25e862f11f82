"""A name that is no special register: an unknown one (``%%laneId``, ``%%warp_id``, ``%%clock32``)
is PTX213's, as an undeclared register is (ptxas: "Unknown symbol '%laneId'"), with the nearest
special register offered; an element of a register that is no vector (``%%laneid.x``) is
PTX207's ("Unknown field '.x'"). The vector registers' fourth element (``%tid.w``, or ``.a``) and
the compiler's own registers (``%%r1``) are taken. Each case is assembled with ptxas where it is
installed."""

from __future__ import annotations

import pytest

from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.special_registers import SPECIAL_REGISTERS, VECTOR_SPECIAL_REGISTERS
from ptxlint.rule import RuleContext
from tests.benchmark_module import load
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, run_cached

toolkits = load("toolkits")

RULES = ("PTX204", "PTX206", "PTX207", "PTX213")

# (the register a `mov.u32 %0, <it>;` reads, the rules that report it, a word of the message)
CASES = [
    ("%%laneId", ["PTX213"], "did you mean '%%laneid'?"),
    ("%%warp_id", ["PTX213"], "did you mean '%%warpid'?"),
    ("%%smId", ["PTX213"], "did you mean '%%smid'?"),
    ("%%clock32", ["PTX213"], "did you mean '%%clock' or '%%clock64'?"),
    ("%%cluster_foo", ["PTX213"], "declare it"),  # nothing near: an undeclared register
    ("%%reserved_smem_offset_2", ["PTX213"], "did you mean"),
    ("%%laneid.x", ["PTX207"], "which is no vector: write '%%laneid'"),
    ("%%cluster_ctarank.y", ["PTX207"], "no vector"),
    ("%%envreg32", ["PTX207"], "there are %envreg0 to %envreg31"),  # one rule, not two
    ("%%tid", ["PTX207"], "is a vector of four .u32"),  # "Argument vector size mismatch"
    ("%%cluster_nctaid", ["PTX207"], "read one element ('%%cluster_nctaid.x')"),
    ("%%tid.w", [], ""),
    ("%%ctaid.a", [], ""),
    ("%%laneid", [], ""),
    ("%%r1", [], ""),  # nvcc's own register, in the function the asm is inlined into
]


def _source(register: str) -> str:
    return (f'__device__ unsigned f() {{ unsigned r; asm volatile("mov.u32 %0, {register};" '
            f': "=r"(r)); return r; }}\n')


@pytest.mark.parametrize(("register", "rules", "words"), CASES)
def test_a_name_that_is_no_special_register(register: str, rules: list[str], words: str
                                             ) -> None:
    found = lint_text(_source(register), select=RULES)
    assert [f.rule for f in found] == rules
    assert all(words in f.message for f in found)


def test_a_misspelt_special_register_is_fixed_to_the_one_nearest_every_use() -> None:
    source = ('__device__ unsigned f() { unsigned r; asm volatile("{ .reg .pred p; '
              'setp.eq.u32 p, %%laneId, 0; selp.u32 %0, %%laneId, 1, p; }" : "=r"(r)); '
              'return r; }\n')
    [finding] = lint_text(source, select=("PTX213",))
    assert "(and 1 more use)" in finding.message and "Unknown symbol '%laneId'" in finding.message
    assert finding.fix is not None and not finding.fix.safe
    assert [e.new_text for e in finding.fix.edits] == ["%%laneid", "%%laneid"]
    # two as near: named both, no fix
    [finding] = lint_text(_source("%%clock32"), select=("PTX213",))
    assert finding.fix is None


def test_a_percent_name_declared_in_the_template_or_by_another_statement_is_no_finding() -> None:
    source = """__device__ unsigned f() {
  unsigned r;
  asm volatile(".reg .u32 %%held;\\n\\tmov.u32 %%held, 1;");
  asm volatile("{ .reg .u32 %%t; mov.u32 %%t, 2; mov.u32 %0, %%t; }" : "=r"(r));
  asm volatile("mov.u32 %0, %%held;" : "=r"(r));
  return r;
}
"""
    assert lint_text(source, select=RULES) == []


def test_a_name_a_basic_asm_statement_declares_is_the_one_extended_asm_escapes() -> None:
    # as sppark's fp2_t::mul_by_5 writes it: basic asm (no operands) spells the PTX name '%t',
    # extended asm '%%t', and ptxas reads one register
    source = """__device__ void f(unsigned& a, int pred) {
  asm("{ .reg.pred %pred; .reg.b32 %t;");
  asm("setp.ne.u32 %pred, %0, 0;" : : "r"(pred));
  asm("@%pred shl.b32 %%t, %0, 2; @%pred add.u32 %0, %0, %%t;" : "+r"(a));
  asm("}");
}
"""
    assert lint_text(source, select=("PTX213",)) == []
    assert [f.rule for f in lint_text(source.replace("%%t", "%%u"), select=("PTX213",))] == [
        "PTX213"]


def test_the_parser_reads_exactly_the_special_registers() -> None:
    for name in SPECIAL_REGISTERS:
        components = ("x", "w", "a") if name in VECTOR_SPECIAL_REGISTERS else ()
        for text in (f"%{name}", *(f"%{name}.{c}" for c in components)):
            [instruction] = parse_template(f"mov.u32 r, {text};", False).instructions
            assert instruction.operands[1].kind == "special", text
    for text in ("%cluster_foo", "%reserved_smem_offset_2", "%clusterx", "%laneId"):
        [instruction] = parse_template(f"mov.u32 r, {text};", False).instructions
        assert instruction.operands[1].kind == "register", text


def _ptxas_takes(line: str) -> tuple[bool, str]:
    assert PTXAS is not None
    source = (".version 8.0\n.target sm_90\n.address_size 64\n.entry k() {\n"
              ".reg .b32 %r<4>;\n" f"{line};\nret;\n}}\n")
    result = run_cached(PTXAS, ["-arch", "sm_90", INPUT, "-o", "/dev/null"], source,
                        filename="case.ptx")
    return result.ok, result.stderr


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not found")
@pytest.mark.parametrize(("register", "rules", "words"), CASES)
def test_ptxas_agrees(register: str, rules: list[str], words: str) -> None:
    ok, message = _ptxas_takes(f"mov.u32 %r1, {register.replace('%%', '%')}")
    assert ok == (not rules), message
    if "PTX213" in rules:
        assert "Unknown symbol" in message
    if "no vector" in words:
        assert "Unknown field" in message


@pytest.mark.parametrize(("register", "sm"), [
    ("%%reserved_smem_offset_begin", 80), ("%%reserved_smem_offset_1", 80),
    ("%%cluster_ctarank", 90), ("%%aggr_smem_size", 90), ("%%current_graph_exec", 0)])
def test_a_special_register_needs_the_target_that_has_it(register: str, sm: int) -> None:
    type_ = "u64" if "graph" in register else "u32"
    letter = "l" if type_ == "u64" else "r"
    source = (f'__device__ void f(unsigned long long* o) {{ unsigned long long r; '
              f'asm volatile("mov.{type_} %0, {register};" : "={letter}"(r)); *o = r; }}\n')
    for arch in (75, 80, 90):
        found = lint_text(source, select=("PTX401",), context=RuleContext(arch=arch))
        assert bool(found) == (arch < sm), (arch, found)


_PTXAS_12_4 = toolkits.found().get("12.4")


@pytest.mark.skipif(_PTXAS_12_4 is None, reason="no ptxas of CUDA 12.4 (benchmarks/toolkits.py)")
def test_ptxas_12_4_has_reserved_smem_offsets_from_sm_80_and_ptx_7_6_on() -> None:
    assert _PTXAS_12_4 is not None

    def takes(version: str, target: str) -> bool:
        source = (f".version {version}\n.target {target}\n.address_size 64\n.entry k() {{\n"
                  ".reg .b32 %r<2>;\nmov.u32 %r1, %reserved_smem_offset_begin;\nret;\n}\n")
        return run_cached(_PTXAS_12_4, ["-arch", target, INPUT, "-o", "/dev/null"], source,
                          filename="case.ptx").ok

    assert takes("7.6", "sm_80") and not takes("7.6", "sm_75") and not takes("7.5", "sm_80")
    assert SPECIAL_REGISTERS["reserved_smem_offset_begin"].sm == 80
    assert SPECIAL_REGISTERS["reserved_smem_offset_begin"].ptx == 76


# (the statement, the same in PTX, whether ptxas 13.0 takes it): a whole vector register
WHOLE = [
    ("mov.v4.u32 {%0, %1, %2, %3}, %%tid;", "mov.v4.u32 {%r0, %r1, %r2, %r3}, %tid", True),
    ("mov.v4.b32 {%0, %1, %2, %3}, %%clusterid;", "mov.v4.b32 {%r0, %r1, %r2, %r3}, %clusterid",
     True),
    ("mov.v2.u32 {%0, %1}, %%ntid;", "mov.v2.u32 {%r0, %r1}, %ntid", False),  # "Argument
    # vector size mismatch"
    ("cvt.u32.u32 %0, %%ctaid;", "cvt.u32.u32 %r0, %ctaid", False),  # "Vector operand is not
    # allowed"
]


@pytest.mark.parametrize(("template", "ptx", "taken"), WHOLE)
def test_a_whole_vector_register_is_read_by_mov_v4_only(template: str, ptx: str, taken: bool
                                                        ) -> None:
    outputs = ", ".join(f'"=r"(r[{i}])' for i in range(template.count("%") - 2))
    source = f'__device__ void f(unsigned* r) {{ asm volatile("{template}" : {outputs}); }}\n'
    found = lint_text(source, select=RULES)
    assert [f.rule for f in found] == ([] if taken else ["PTX207"]), found
    if PTXAS is not None:
        ok, message = _ptxas_takes(ptx)
        assert ok == taken, message


def test_a_percent_name_a_kernel_may_declare_through_another_file_is_a_warning() -> None:
    # xmp: PTXInliner::declarePredicate() (another header) declares %c1 at kernel scope,
    # before the inlined helper that reads it; nothing in this file can say it does not
    helper = """__device__ __forceinline__ unsigned use_c1(unsigned a, unsigned b) {
  unsigned r;
  asm volatile("setp.eq.u32 %%c1, %1, %2;\\n\\tselp.u32 %0, 1, 0, %%c1;"
               : "=r"(r) : "r"(a), "r"(b));
  return r;
}
"""
    [finding] = lint_text(helper, select=("PTX213",))
    assert finding.severity.value == "warning" and "unless the kernel" in finding.message
    # in a kernel nothing runs before it; a plain name is a forgotten .reg; a name one edit
    # from one this file declares is that declaration misspelt
    kernel = helper.replace("__device__ __forceinline__ unsigned", "__global__ void")
    assert [f.severity.value for f in lint_text(kernel, select=("PTX213",))] == ["error"]
    plain = helper.replace("%%c1", "c1")
    assert [f.severity.value for f in lint_text(plain, select=("PTX213",))] == ["error"]
    near = '__device__ void declare() { asm volatile(".reg .pred %c2;"); }\n' + helper
    assert [f.severity.value for f in lint_text(near, select=("PTX213",))] == ["error"]
