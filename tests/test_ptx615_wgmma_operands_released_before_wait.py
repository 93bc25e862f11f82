"""PTX615: an mbarrier.arrive on the stage a wgmma.mma_async reads, before a wgmma.commit_group
and wgmma.wait_group retire it. The stage is the one a loop-varying index picks for both the
barrier and the wgmma's descriptors; the template's own registers (a mapa) are followed."""

from __future__ import annotations

import pytest

from ptxlint.model import PtxTemplate
from ptxlint.ptx.operand_inputs import operand_inputs
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
__device__ __forceinline__ uint64_t desc(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p)) >> 4;
}
__device__ __forceinline__ void mma(float (&d)[4], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
               :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))) : "memory");
}
__device__ void elsewhere();
"""


def _findings(body: str) -> list[str]:
    text = HELPERS + f"""
__device__ void consumer(float (&d)[4], uint16_t* sa, uint16_t* sb, uint64_t* full,
                         uint64_t* empty, uint64_t* other, int n) {{
{body}
}}
"""
    return [f.message for f in lint_text(text, select=("PTX615",))]


LOOP = """  for (int k = 0; k < n; ++k) {{
    const int s = k % 4;
    fence();
    mma(d, desc(sa + s * 1024), desc(sb + s * 1024));
{turn}
  }}"""


def test_a_release_with_no_commit_and_no_wait_names_the_index() -> None:
    found = _findings(LOOP.format(turn="    arrive(&empty[s]);") + "\n  commit();\n  wait<0>();")
    assert found == ["mbarrier.arrive here releases the stage `s` picks while the wgmma.mma_async "
                     "at line 25 (through mma()) may still be reading it: a "
                     "wgmma.commit_group and a wgmma.wait_group must come between"]


def test_a_commit_alone_asks_for_the_wait() -> None:
    found = _findings(LOOP.format(turn="    commit();\n    arrive(&empty[s]);\n    wait<0>();"))
    assert len(found) == 1 and found[0].endswith("a wgmma.wait_group must come between")


@pytest.mark.parametrize("turn", [
    "    commit();\n    wait<0>();\n    arrive(&empty[s]);",
    # wait_group 1 keeps this turn's group running; the release is of the previous turn's stage
    "    commit();\n    wait<1>();\n    arrive(&empty[(k + 3) % 4]);",
    # a call ptxlint cannot read may wait
    "    commit();\n    elsewhere();\n    arrive(&empty[s]);",
    # a barrier no index ties to the wgmma's stage
    "    arrive(other);\n    commit();\n    wait<0>();",
])
def test_silent_where_the_stage_is_retired_or_not_the_wgmmas(turn: str) -> None:
    assert _findings(LOOP.format(turn=turn)) == []


def test_two_indices_from_one_counter_pick_two_stages() -> None:
    body = """  for (int it = 0; it < n; ++it) {
    const int stage = it % 4;
    const int slot = it % 2;
    fence();
    mma(d, desc(sa + stage * 1024), desc(sb + stage * 1024));
    arrive(&empty[slot]);
    commit();
    wait<0>();
  }"""
    assert _findings(body) == []
    assert len(_findings(body.replace("empty[slot]", "empty[stage]"))) == 1


def test_no_loop_no_stage() -> None:
    # the same release outside any loop: no index picks a stage, so nothing ties the two
    body = "  fence();\n  mma(d, desc(sa), desc(sb));\n  arrive(&empty[0]);\n  commit();\n  wait<0>();"
    assert _findings(body) == []


def test_an_index_kept_across_turns_and_a_pointer_computed_from_it() -> None:
    # fast.cu's shape: the stage pointer is a local of the turn, the index a counter reset in it
    body = """  int q = 0;
  for (int k = 0; k < n; ++k, ++q) {
    if (q == 4) q = 0;
    uint16_t* a = sa + q * 1024;
    fence();
    for (int j = 0; j < 4; ++j) mma(d, desc(&a[j * 16]), desc(sb + q * 1024 + j * 16));
    commit();
    arrive(&empty[q]);
    wait<0>();
  }"""
    assert len(_findings(body)) == 1
    assert _findings(body.replace("    arrive(&empty[q]);\n    wait<0>();",
                                  "    wait<0>();\n    arrive(&empty[q]);")) == []


def test_producer_and_consumer_arms_are_not_in_program_order() -> None:
    body = """  for (int k = 0; k < n; ++k) {
    const int s = k % 4;
    if (threadIdx.x < 128) {
      fence();
      mma(d, desc(sa + s * 1024), desc(sb + s * 1024));
      commit();
      wait<0>();
    } else {
      arrive(&empty[s]);
    }
  }"""
    assert _findings(body) == []


def test_one_finding_per_release_after_two_wgmmas() -> None:
    body = LOOP.format(turn="    mma(d, desc(sa + s * 1024 + 16), desc(sb + s * 1024 + 16));\n"
                            "    arrive(&empty[s]);") + "\n  commit();\n  wait<0>();"
    found = _findings(body)
    assert len(found) == 1 and "at line 26" in found[0]


def _template(text: str) -> PtxTemplate:
    return parse_template(text, True)


def test_operand_inputs_follow_the_templates_registers() -> None:
    ptx = _template("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
                    "mbarrier.arrive.shared::cluster.b64 _, [r];\n}")
    arrive = ptx.instructions[-1]
    assert operand_inputs(ptx, arrive, arrive.operands[1]) == {0, 1}
    direct = _template("mbarrier.arrive.shared::cta.b64 _, [%2];")
    assert operand_inputs(direct, direct.instructions[0], direct.instructions[0].operands[1]) == {2}
    # a register written again from a constant no longer holds the operand
    ptx = _template("mov.u32 r, %0;\nmov.u32 r, 0;\nst.shared.u32 [r], %1;")
    store = ptx.instructions[-1]
    assert operand_inputs(ptx, store, store.operands[0]) == set()
    # under a guard it may still hold it
    ptx = _template("mov.u32 r, %0;\n@p mov.u32 r, %2;\nst.shared.u32 [r], %1;")
    store = ptx.instructions[-1]
    assert operand_inputs(ptx, store, store.operands[0]) == {0, 2}


NEXT_TURN = """  int prev = 0;
  for (int k = 0; k < n; ++k) {
    const int s = k % 4;
    if (k > 0) {
TOP
      arrive(&empty[prev]);
    }
    fence();
    mma(d, desc(sa + s * 1024), desc(sb + s * 1024));
    commit();
END
    prev = s;
  }"""


def _next_turn(top: str, end: str) -> str:
    return NEXT_TURN.replace("TOP", top).replace("END", end)


def test_a_release_at_the_top_of_the_next_turn() -> None:
    found = _findings(_next_turn("", ""))
    assert len(found) == 1
    assert "at line 30 (through mma()) of the previous turn may still be reading it: a " \
        "wgmma.wait_group must come between" in found[0]


@pytest.mark.parametrize("top, end", [("      wait<0>();", ""), ("", "    wait<1>();"),
                                      ("      elsewhere();", "")])
def test_the_next_turns_release_after_a_wait_is_silent(top: str, end: str) -> None:
    assert _findings(_next_turn(top, end)) == []
