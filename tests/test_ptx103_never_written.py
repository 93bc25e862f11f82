"""PTX103 where no path from the template's start to its end writes an '=' output at all: every
instruction that writes it is unreachable (a ``bra.uni`` jumps over each, as in an
instruction-cache microbenchmark), or every path through one leaves the thread first. The
message says so, not "written only on some paths"; it stays PTX103's one finding (an
instruction names the output as its destination, so PTX104, about outputs no instruction
writes, is silent)."""

from __future__ import annotations

from tests.conftest import lint_text


def _findings(template: str) -> list:
    text = ('__device__ void f(int* out, int x) {\n'
            f'  asm volatile("{template}" : "=r"(*out) : "r"(x));\n'
            '}\n')
    return lint_text(text, select=("PTX103", "PTX104"))


def test_writes_every_branch_jumps_over_are_unreachable() -> None:
    [finding] = _findings("B0: bra.uni B1;\\n\\tadd.u32 %0, %1, 1;\\n\\t"
                          "B1: bra.uni B2;\\n\\tadd.u32 %0, %1, 2;\\n\\tB2:")
    assert finding.rule == "PTX103"
    assert "never written: every instruction that writes it is unreachable from the " \
           "template's start" in finding.message
    assert "some paths" not in finding.message
    assert "on every path its old value is lost" in finding.message
    assert finding.fix is not None


def test_one_write_jumped_over() -> None:
    [finding] = _findings("bra.uni END;\\n\\tmov.u32 %0, %1;\\n\\tEND:")
    assert "the instruction that writes it is unreachable" in finding.message


def test_every_path_through_the_write_leaves_the_thread() -> None:
    [finding] = _findings("{ .reg .pred p; setp.eq.s32 p, %1, 0; @p bra L;\\n\\t"
                          "mov.u32 %0, %1;\\n\\texit;\\n\\tL: }")
    assert finding.rule == "PTX103"
    assert "never written: every path through the instruction that writes it leaves the " \
           "thread" in finding.message


def test_a_write_on_some_paths_keeps_its_message() -> None:
    [finding] = _findings("{ .reg .pred p; setp.eq.s32 p, %1, 0; @p bra L;\\n\\t"
                          "mov.u32 %0, %1;\\n\\tL: }")
    assert "written only on some paths: on the other paths its old value is lost" \
        in finding.message
    [guarded] = _findings("{ .reg .pred p; setp.eq.s32 p, %1, 0; @p mov.u32 %0, %1; }")
    assert "written only under '@p'" in guarded.message
