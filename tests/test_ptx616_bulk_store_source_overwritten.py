"""PTX616: a write of the shared memory a bulk (TMA) store reads, before a
cp.async.bulk.wait_group completes the store's bulk async-group; with the protocol events and
the template-parameter defaults the counts are read through."""

from __future__ import annotations

import pytest

from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.protocols import BULK_COMMIT, BULK_STORE, BULK_WAIT, events
from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void store(void* gmem, const void* smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"(smem_u32(smem)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void load(void* smem, const void* gmem, uint64_t* bar, uint32_t bytes) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem_u32(smem)), "l"(gmem), "r"(bytes), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N = 0>
__device__ __forceinline__ void wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}
template <int N = 1>
__device__ __forceinline__ void wait_one() {
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}
__device__ void elsewhere();
"""


def _lines(body: str, extra: str = "") -> list[int]:
    text = HELPERS + extra + f"""
__global__ void k(float* out, const float* in, uint64_t* bar, int n) {{
  __shared__ alignas(128) float tile[256];
{body}
}}
"""
    start = text.count("\n", 0, text.index("__global__ void k("))
    return [text.count("\n", 0, f.span.start) - start
            for f in lint_text(text, "k.cu", select=("PTX616",))]


@pytest.mark.parametrize(("text", "kinds"), [
    ("cp.async.bulk.commit_group;", [BULK_COMMIT]),
    ("cp.async.bulk.wait_group.read 0;", [BULK_WAIT]),
    ("cp.async.bulk.wait_group 2;", [BULK_WAIT]),
    ("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 16;", [BULK_STORE]),
    ("cp.async.wait_group 0;", ["cp.async.wait"]),
])
def test_events_of_the_bulk_group_instructions(text: str, kinds: list[str]) -> None:
    instruction = parse_template(text, True).instructions[0]
    assert [e.kind for e in events(instruction)] == kinds


def test_the_count_of_a_bulk_wait_is_read() -> None:
    [event] = events(parse_template("cp.async.bulk.wait_group.read 3;", True).instructions[0])
    assert event.count == 3


def test_a_write_after_the_store_with_no_wait() -> None:
    assert _lines("  store(out, tile, 1024);\n  commit();\n  tile[threadIdx.x] = 1.0f;") == [4]


def test_the_wait_between_completes_the_store() -> None:
    assert _lines("  store(out, tile, 1024);\n  commit();\n  wait_read<0>();\n"
                  "  tile[threadIdx.x] = 1.0f;") == []


def test_a_template_default_is_the_count_of_a_call_that_leaves_it_out() -> None:
    # wait_read() waits 0: complete; wait_one() waits 1, with only the store's group committed
    assert _lines("  store(out, tile, 1024);\n  commit();\n  wait_read();\n"
                  "  tile[threadIdx.x] = 1.0f;") == []
    assert _lines("  store(out, tile, 1024);\n  commit();\n  wait_one();\n"
                  "  tile[threadIdx.x] = 1.0f;") == [5]


def test_a_call_that_may_wait_silences_it() -> None:
    assert _lines("  store(out, tile, 1024);\n  commit();\n  elsewhere();\n"
                  "  tile[threadIdx.x] = 1.0f;") == []


def test_a_load_into_the_source_is_a_write() -> None:
    assert _lines("  store(out, tile, 1024);\n  commit();\n  load(tile, in, bar, 1024);") == [4]


def test_a_write_in_the_next_turn_with_the_wait_after_the_loop() -> None:
    body = ("  for (int t = 0; t < n; ++t) {\n    tile[threadIdx.x] = t;\n"
            "    store(out + t * 256, tile, 1024);\n    commit();\n  }\n  wait_read<0>();")
    assert _lines(body) == [3]
    waited = body.replace("    commit();\n", "    commit();\n    wait_read<0>();\n")
    assert _lines(waited) == []


def test_a_stage_that_changes_each_turn_is_not_the_same_buffer() -> None:
    body = ("  for (int t = 0; t < n; ++t) {\n    float* stage = tile + (t % 2) * 128;\n"
            "    stage[threadIdx.x] = t;\n    store(out + t * 128, stage, 512);\n"
            "    commit();\n  }")
    assert _lines(body) == []


# A helper's loop whose wait counts a template parameter only its call binds (to a default):
# deepseek-ai/DeepEP's tma_copy before 2dfbdb9 waited kNumStages - 1 = 1 before refilling the
# stage the store had just read.
PIPELINE = r"""
template <int kUnused, int kNumStages = 2>
__device__ __forceinline__ void copy(float* smem, float* dst, const float* src, uint64_t* bar,
                                     int iterations) {
  for (int i = 0; i < iterations; ++i) {
    const int stage = i % kNumStages;
    store(dst + i * 256, smem + stage * 256, 1024);
    commit();
    if (i + kNumStages < iterations) {
      wait_read<kNumStages - 1>();
      load(smem + stage * 256, src + (i + kNumStages) * 256, bar + stage, 1024);
    }
  }
}
"""


def test_a_helper_loop_counted_through_its_call() -> None:
    assert _lines("  copy<0>(tile, out, in, bar, n);", PIPELINE) == [2]
    assert _lines("  copy<0, 1>(tile, out, in, bar, n);", PIPELINE) == []


def test_the_helper_flagged_on_its_own_is_not_flagged_again_at_the_call() -> None:
    fixed = PIPELINE.replace("wait_read<kNumStages - 1>()", "wait_read<1>()")
    found = lint_text(HELPERS + fixed + "__global__ void k(float* o, const float* i, uint64_t* b,"
                      " int n) { __shared__ float t[512]; copy<0>(t, o, i, b, n); }",
                      "k.cu", select=("PTX616",))
    assert len(found) == 1
    assert "load" not in found[0].message and "cp.async.bulk" in found[0].message


def test_a_call_of_the_standard_library_takes_no_step() -> None:
    # std:: holds no PTX; a lambda whose body calls only it neither (libcu++'s cuda::std does)
    assert _lines("  store(out, tile, 1024);\n  commit();\n  auto m = std::make_pair(n, 4);\n"
                  "  tile[threadIdx.x] = m.first;") == [5]
    assert _lines("  auto f = [&](int i) { return std::make_pair(i, 2 * i); };\n"
                  "  store(out, tile, 1024);\n  commit();\n  auto m = f(n);\n"
                  "  tile[threadIdx.x] = m.first;") == [6]
    assert _lines("  store(out, tile, 1024);\n  commit();\n  cuda::std::atomic_thread_fence();\n"
                  "  tile[threadIdx.x] = 1.0f;") == []


def test_a_helper_that_stores_then_writes_is_its_own_finding_only() -> None:
    helper = r"""
__device__ __forceinline__ void st_shared(float* p, float v) {
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(smem_u32(p)), "f"(v) : "memory");
}
__device__ void store_then_write(float* tile, float* out) {
  store(out, tile, 1024);
  commit();
  st_shared(tile, 0.0f);
}
"""
    text = HELPERS + helper + "__global__ void k(float* o) { __shared__ float t[256]; " \
        "store_then_write(t, o); store_then_write(t, o + 256); }"
    found = lint_text(text, "k.cu", select=("PTX616",))
    assert len(found) == 1
    assert text.count("\n", 0, found[0].span.start) == text.count("\n", 0,
                                                                  text.index("  st_shared(tile"))


def test_two_stores_of_one_source_then_a_write_is_one_finding() -> None:
    assert _lines("  store(out, tile, 1024);\n  commit();\n  store(out + 256, tile, 1024);\n"
                  "  commit();\n  tile[threadIdx.x] = 1.0f;") == [6]


# A ring of staging buffers: the loop picks one with an index that comes back round, and a
# store of one turn is pending when a later turn writes the same buffer again.
RING = r"""
__device__ __forceinline__ void st_shared(uint32_t addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(addr), "f"(v) : "memory");
}
"""


def _ring(loop: str, index: str, advance: str, wait: str = "") -> list[int]:
    body = (f"  int {index} = 0;\n  {loop} {{\n{wait}"
            f"    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared("
            f"tile + {index} * 64));\n"
            f"    st_shared(base + threadIdx.x * 4, 1.0f);\n"
            f"    store(out + t * 64, tile + {index} * 64, 256);\n    commit();\n"
            f"    {advance};\n  }}\n  wait_read<0>();")
    return _lines(body, RING)


@pytest.mark.parametrize("advance", [
    "s = (s + 1) % 4", "s = (s + 1) & 3", "s ^= 1", "if (++s == 4) s = 0",
    "s = s == 3 ? 0 : s + 1",
])
def test_a_ring_index_with_no_wait_in_the_loop(advance: str) -> None:
    assert _ring("for (int t = 0; t < n; ++t)", "s", advance) == [5]


def test_the_ring_message_names_the_index() -> None:
    text = HELPERS + RING + """
__global__ void k(float* out, int n) {
  __shared__ alignas(128) float tile[256];
  int s = 0;
  for (int t = 0; t < n; ++t) {
    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile + s * 64));
    st_shared(base + threadIdx.x * 4, 1.0f);
    store(out + t * 64, tile + s * 64, 256);
    commit();
    s = (s + 1) % 4;
  }
}
"""
    [found] = lint_text(text, "k.cu", select=("PTX616",))
    assert "`s` comes back round" in found.message
    assert "no cp.async.bulk.wait_group anywhere in the loop" in found.message


def test_a_wait_in_the_ring_loop_is_left_to_the_pipeline() -> None:
    # wait_group.read STAGES - 1 before refilling the oldest buffer: its count is not reckoned
    assert _ring("for (int t = 0; t < n; ++t)", "s", "s = (s + 1) % 4",
                 "    wait_read<3>();\n") == []


def test_an_index_that_only_grows_is_no_ring() -> None:
    assert _ring("for (int t = 0; t < n; ++t)", "s", "s += 1") == []
    assert _ring("for (int t = 0; t < n; ++t)", "s", "++s") == []


def test_a_loop_that_counts_no_further_than_the_ring() -> None:
    assert _ring("for (int t = 0; t < 4; ++t)", "s", "s = (s + 1) % 4") == []
    assert _ring("for (int t = 0; t < 8; ++t)", "s", "s = (s + 1) % 4") == [5]
    # a bound or a size ptxlint cannot read: the remainder exists to come round
    assert _ring("for (int t = 0; t < n; ++t)", "s", "s = (s + 1) % n") == [5]


def test_a_stage_index_taken_of_the_counter_each_turn() -> None:
    body = ("  for (int t = 0; t < n; ++t) {\n    const int s = t % 2;\n"
            "    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared("
            "tile + s * 64));\n    st_shared(base + threadIdx.x * 4, 1.0f);\n"
            "    store(out + t * 64, tile + s * 64, 256);\n    commit();\n  }")
    assert _lines(body, RING) == [5]


def test_a_wait_each_outer_turn_covers_an_inner_loop_of_the_ring() -> None:
    # the inner loop may take fewer turns than the ring has buffers; the outer one waits
    body = ("  int s = 0;\n  for (int t = 0; t < n; ++t) {\n"
            "    for (int j = 0; j < 2; ++j) {\n"
            "      uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared("
            "tile + s * 64));\n      st_shared(base + threadIdx.x * 4, 1.0f);\n"
            "      store(out + t * 64, tile + s * 64, 256);\n      commit();\n"
            "      s = (s + 1) % 4;\n    }\n    wait_read<0>();\n  }")
    assert _lines(body, RING) == []


def test_a_write_at_the_stage_plus_a_constant_is_another_region() -> None:
    body = ("  int s = 0;\n  for (int t = 0; t < n; ++t) {\n"
            "    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared("
            "tile + s * 64));\n    st_shared(base + 128, 1.0f);\n"
            "    store(out + t * 64, tile + s * 64, 256);\n    commit();\n"
            "    s = (s + 1) % 4;\n  }")
    assert _lines(body, RING) == []
