"""The regions of a raw shared buffer (``analysis.buffer_regions``) read from the syntax tree:
comments inside an expression or a declaration, parenthesised terms, a helper that moves the
address inside a conversion, namespaced and target-sized types."""

from __future__ import annotations

import pytest

from ptxlint.analysis.buffer_regions import (
    copy_region,
    memory_region,
    read_region,
    variable_region,
)
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import COPY

_KERNEL = r"""
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_past_state(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared((char*)dst + 4480);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
}
__global__ void k(const float4* g, float* out, bool flip) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  int smem = (int)__cvta_generic_to_shared(smem_raw);
  float* s_state = reinterpret_cast<float*>(smem_raw + 4480 /* after the keys */);
  float* s_line = reinterpret_cast<float*>(smem_raw + 4480 // after the keys
  );
  float* s_cast = (float*) /* the state */ (smem_raw + 4480);
  float* s_words = reinterpret_cast<cuda::std::uint32_t*>(smem_raw) + 1120;
  float* s_vectors = reinterpret_cast<float*>(smem_raw + sizeof(float4) * 280);
  long* s_long = reinterpret_cast<long*>(smem_raw) + 560;
  cp_async_past_state(smem_raw, g + threadIdx.x);
  cp_async16(smem_raw + 4480, g + threadIdx.x);
  asm volatile("cp.async.commit_group;");
  out[0] = smem_raw[4480 /* the state */ + threadIdx.x];
  out[1] = smem_raw[threadIdx.x];
  out[2] = s_state[flip ? 0 : 1120];
  out[3] = s_state[1][threadIdx.x];
}
"""


def _kernel(text: str) -> FunctionFlow:
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements))
    [kernel] = [f for f in flows.flows() if f.name == "k"]
    return kernel


@pytest.fixture(scope="module")
def flow() -> FunctionFlow:
    return _kernel(_KERNEL)


def test_a_comment_in_the_buffer_declaration_leaves_its_type_read() -> None:
    commented = _kernel(_KERNEL.replace("__align__(16) unsigned",
                                        "__align__(16) /* carved below */ unsigned"))
    assert variable_region(commented, "smem_raw") == ("smem_raw", 0)
    assert variable_region(commented, "s_state") == ("smem_raw", 4480)


@pytest.mark.parametrize("name", ["s_state", "s_line", "s_cast"])
def test_a_comment_inside_the_address_is_no_term(flow: FunctionFlow, name: str) -> None:
    assert variable_region(flow, name) == ("smem_raw", 4480)


@pytest.mark.parametrize(("address", "region"), [
    ("smem + 4480 /* the state */ + threadIdx.x * 16", ("smem_raw", 4480)),
    ("smem + 4480 + (threadIdx.x << 4)", ("smem_raw", 4480)),  # a parenthesised index
    ("smem + 4480 + threadIdx.x << 4", None),  # the shift is of the whole sum
    ("smem + (flip ? 0 : 4480) + threadIdx.x * 16", None),
    ("smem + 4480 + stage_bytes", None),  # a name not read: maybe an offset, not an index
])
def test_the_terms_of_a_copy_address(flow: FunctionFlow, address: str,
                                     region: tuple[str, int] | None) -> None:
    assert copy_region(flow, address) == region


def test_element_sizes_come_from_the_front_end_types(flow: FunctionFlow) -> None:
    assert variable_region(flow, "s_words") == ("smem_raw", 4480)  # cuda::std::uint32_t: 4
    assert variable_region(flow, "s_vectors") == ("smem_raw", 4480)  # sizeof(float4): 16
    assert variable_region(flow, "s_long") is None  # a long is 4 bytes on Windows, 8 on Linux


def _read(flow: FunctionFlow, line: int) -> tuple[str, int] | None:
    """The region of the read on the line ``out[line] = NAME...``."""
    data = flow.parsed.data
    at = data.index(b"out[%d] = " % line) + len(b"out[0] = ")
    name = data[at:data.index(b"[", at)].decode()
    return read_region(flow, name, at)


def test_a_comment_in_a_subscript_keeps_its_constant_term(flow: FunctionFlow) -> None:
    assert _read(flow, 0) == ("smem_raw", 4480)
    assert _read(flow, 1) == ("smem_raw", 0)


def test_a_choice_or_a_second_dimension_reads_no_certain_region(flow: FunctionFlow) -> None:
    assert _read(flow, 2) is None
    assert _read(flow, 3) is None


def test_a_helper_that_moves_its_parameter_inside_a_conversion_is_no_alias(
        flow: FunctionFlow) -> None:
    """``cp_async_past_state(smem_raw, ...)`` copies to ``smem_raw + 4480``: not the region
    the argument names. The plain helper passes its argument on: the region of the call's."""
    moved, plain = [s for s in flow.steps if s.kind == COPY]
    assert memory_region(flow, moved, moved.event.memory) is None
    assert memory_region(flow, plain, plain.event.memory) == ("smem_raw", 4480)


@pytest.mark.parametrize(("spelling", "size", "least"), [
    ("unsigned char", 1, 1),
    ("uint32_t", 4, 4),
    ("int64_t", 8, 8),  # a long long on Windows, a long on Linux: 8 bytes on both
    ("long", None, 4),
    ("unsigned long", None, 4),
    ("long2", None, None),  # its lanes are longs
    ("float4", 16, None),
    ("__nv_bfloat162", 4, None),
    ("T", None, None),
])
def test_a_built_in_size_is_certain_only_where_every_target_agrees(
        spelling: str, size: int | None, least: int | None) -> None:
    from ptxlint.frontends.cxx.c_types import certain_size, least_integer_size

    assert certain_size(spelling) == size
    assert least_integer_size(spelling) == least


@pytest.mark.parametrize(("expression", "value"), [
    ("sizeof(int2) * 560", 4480),
    ("sizeof(unsigned int) * 1120", 4480),
    ("sizeof(cuda::std::uint32_t) * 1120", 4480),
    ("sizeof(bool)", 1),
    ("sizeof(long) * 560", None),  # 4 bytes on Windows, 8 on Linux
    ("sizeof(cute::float4)", None),  # another namespace's type of that name
])
def test_a_sizeof_term_is_the_front_end_size(flow: FunctionFlow, expression: str,
                                              value: int | None) -> None:
    assert flow.constant(expression) == value
    region = ("smem_raw", value) if value is not None else None
    assert copy_region(flow, f"smem + {expression} + threadIdx.x * 16") == region


def test_a_helper_that_adds_a_run_time_index_passes_its_argument_on() -> None:
    """CUB's ``memcpy_async_aligned``: each thread copies to ``(char*)dst + offset``, an index
    into the region of the caller's ``dst``."""
    flow = _kernel(r"""
__device__ void copy_tile(void* dst, const void* src, unsigned int bytes) {
  for (unsigned int offset = threadIdx.x * 16; offset < bytes; offset += 256 * 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;"
                 :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(
                        static_cast<char*>(dst) + offset))),
                    "l"(static_cast<const char*>(src) + offset) : "memory");
  }
}
__global__ void k(const float4* g) {
  extern __shared__ unsigned char smem_raw[];
  copy_tile(smem_raw + 4480, g, 1024);
}
""")
    [copy] = [s for s in flow.steps if s.kind == COPY]
    assert memory_region(flow, copy, copy.event.memory) == ("smem_raw", 4480)


def test_a_helper_that_adds_a_stage_offset_is_no_alias() -> None:
    """A pipeline's helper copies into stage ``stage`` of the buffer it is given: a run-time
    offset before the index is no region, in a helper's address as in the kernel's own."""
    flow = _kernel(r"""
__device__ void copy_stage(void* dst, const void* src, int stage) {
  unsigned int offset = threadIdx.x * 16;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;"
               :: "r"(static_cast<uint32_t>(__cvta_generic_to_shared(
                      static_cast<char*>(dst) + stage * 4480 + offset))),
                  "l"(src) : "memory");
}
__global__ void k(const float4* g, int stage) {
  extern __shared__ unsigned char smem_raw[];
  copy_stage(smem_raw, g, stage + 1);
}
""")
    [copy] = [s for s in flow.steps if s.kind == COPY]
    assert memory_region(flow, copy, copy.event.memory) is None
