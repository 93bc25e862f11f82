"""PTX403 and the special registers newer than the PTX ISA a guard admits: ``%aggr_smem_size``
is PTX ISA 8.1, ``%current_graph_exec`` 8.0 and ``%reserved_smem_offset_*`` 7.6 (ptxas 13.0 under
an older ``.version``: "Feature '%aggr_smem_size' requires PTX ISA .version 8.1 or later"), so a
read of one under a guard that admits an older toolkit breaks that toolkit's build. (The target
a register needs is PTX401's, from the same table: ``ptxlint.ptx.special_registers``.)"""

from __future__ import annotations

import pytest

from ptxlint.model import PtxInstruction
from ptxlint.ptx.instructions import instruction_ptx_requirement
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, needs_ptxas, run_cached

# (the register, the PTX ISA version x10 it needs, the type of its mov, a target that has it)
REGISTERS = [
    ("aggr_smem_size", 81, "u32", "sm_90"),
    ("current_graph_exec", 80, "u64", "sm_90"),
    ("reserved_smem_offset_begin", 76, "b32", "sm_80"),
]
# the PTX ISA version before each (there is no 7.9)
_BEFORE = {81: 80, 80: 78, 76: 75}


def _mov(name: str, type_: str, register: str) -> PtxInstruction:
    [instruction] = parse_template(f"mov.{type_} {register}, %{name};",
                                   extended=False).instructions
    return instruction


@pytest.mark.parametrize(("name", "ptx", "type_", "target"), REGISTERS)
def test_the_register_raises_the_instructions_ptx_isa(name: str, ptx: int, type_: str,
                                                       target: str) -> None:
    register = "%rd1" if type_ == "u64" else "%r1"
    assert instruction_ptx_requirement(_mov(name, type_, register)) == (ptx, f"%{name}")
    # an instruction that reads none keeps its own
    assert instruction_ptx_requirement(_mov("laneid", "u32", "%r1"))[0] < ptx


def _guarded(condition: str) -> str:
    return ("__device__ unsigned smem() {\n  unsigned n = 0;\n"
            f"#if {condition}\n"
            '  asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(n));\n'
            "#endif\n  return n;\n}\n")


def test_ptx403_flags_a_guard_that_admits_a_toolkit_without_the_register() -> None:
    # CUDA 12.0 knows PTX ISA 8.0: %aggr_smem_size (8.1) came with CUDA 12.1
    [finding] = lint_text(_guarded("__CUDACC_VER_MAJOR__ >= 12 && __CUDA_ARCH__ >= 900"),
                          select=("PTX403",))
    assert "PTX ISA 8.1" in finding.message and "%aggr_smem_size" in finding.message
    assert lint_text(_guarded("CUDA_VERSION >= 12010 && __CUDA_ARCH__ >= 900"),
                     select=("PTX403",)) == []


@needs_ptxas
@pytest.mark.parametrize(("name", "ptx", "type_", "target"), REGISTERS)
def test_ptxas_reads_the_register_from_its_ptx_isa_on(name: str, ptx: int, type_: str,
                                                      target: str) -> None:
    def run(version: int) -> tuple[bool, str]:
        register = "%rd1" if type_ == "u64" else "%r1"
        source = (f".version {version // 10}.{version % 10}\n.target {target}\n"
                  ".address_size 64\n.visible .entry k() {\n .reg .b32 %r<4>;\n"
                  f" .reg .b64 %rd<4>;\n mov.{type_} {register}, %{name};\n ret;\n}}\n")
        done = run_cached(PTXAS, [f"-arch={target}", INPUT, "-o", "/dev/null"], source,
                          filename="case.ptx")
        return done.ok, done.stderr

    ok, said = run(_BEFORE[ptx])
    assert not ok and f"'%{name}' requires PTX ISA .version {ptx // 10}.{ptx % 10}" in said
    assert run(ptx)[0]
