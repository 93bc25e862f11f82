"""PTX612: ldmatrix and stmatrix take one row address from each lane; an address certainly the
same in every lane reads (or writes) one row for all of them."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_text
from tests.toolchain_cache import gpu_program, needs_gpu

HEAD = "#include <cstdint>\n#include <cuda_fp16.h>\n"
LOAD_X4 = ('asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"'
           ' : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(ADDR));')


def _found(body: str, address: str, params: str = "const half* a", kind: str = "__global__",
           before: str = "") -> list[str]:
    text = (HEAD + before + f"{kind} void k({params}) {{\n  uint32_t r[4];\n{body}\n  "
            + LOAD_X4.replace("ADDR", address) + "\n}\n")
    return [f.message for f in lint_text(text, select=("PTX612",))]


def test_a_shared_base_plus_a_constant_is_flagged() -> None:
    found = _found("  __shared__ half tile[16 * 16];\n"
                   "  uint32_t smem_base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));",
                   "smem_base + 64")
    assert len(found) == 1
    assert "`smem_base + 64` (%4)" in found[0] and "ldmatrix" in found[0]


def test_uniform_parts_are_flagged() -> None:
    # the warp index, a kernel parameter, blockIdx, a template parameter, a namespace-scope
    # shared array, a 2-D array's row
    before = "extern __shared__ half dyn[];\ntemplate <int K>\n"
    found = _found("  __shared__ half tile[4][256];\n  int warp = threadIdx.x / 32;\n"
                   "  uint32_t b = __cvta_generic_to_shared(&tile[warp][K * blockIdx.x]);",
                   "b + stride", params="const half* a, int stride", before=before)
    assert len(found) == 1
    found = _found("  int warp = threadIdx.x >> 5;",
                   "(uint32_t)__cvta_generic_to_shared(dyn + warp * 512)", before=before)
    assert len(found) == 1


def test_stmatrix_and_x1_are_flagged() -> None:
    text = HEAD + """__global__ void k() {
  __shared__ half out[64];
  uint32_t v = 0;
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
               :: "r"((uint32_t)__cvta_generic_to_shared(out)), "r"(v));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
               : "=r"(v) : "r"((uint32_t)__cvta_generic_to_shared(&out[8])));
}
"""
    found = [f.message for f in lint_text(text, select=("PTX612",))]
    assert len(found) == 2 and "stmatrix" in found[0] and "ldmatrix" in found[1]


def test_lane_dependent_addresses_are_silent() -> None:
    decl = ("  __shared__ half tile[16 * 16];\n"
            "  uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));\n"
            "  int lane = threadIdx.x % 32;")
    for address in ("base + threadIdx.x % 16 * stride", "base + lane * 32",
                    "(uint32_t)__cvta_generic_to_shared(&tile[lane % 16 * 16 + lane / 16 * 8])",
                    "base + (threadIdx.x & 15) * 32", "base + threadIdx.y * 32"):
        assert _found(decl, address, params="const half* a, int stride") == [], address


def test_unknown_addresses_are_silent() -> None:
    # a __device__ helper's parameter; a local defined on a lane condition, or twice; data
    # read from memory; a lane helper's result
    assert _found("  uint32_t addr = __cvta_generic_to_shared(smem);", "addr",
                  params="const void* smem", kind="__device__") == []
    decl = ("  __shared__ half tile[256];\n"
            "  uint32_t base = __cvta_generic_to_shared(tile);\n"
            "  uint32_t off = 0;\n  if (threadIdx.x % 32 < 8) off = 64;")
    assert _found(decl, "base + off") == []
    decl = ("  __shared__ half tile[256];\n  uint32_t addr;\n"
            "  if (threadIdx.x % 32 < 8) addr = __cvta_generic_to_shared(tile);")
    assert _found(decl, "addr") == []
    assert _found("  __shared__ uint32_t rows[32];", "rows[0]") == []
    before = "__device__ unsigned lane_id();\n"
    assert _found("  __shared__ half tile[256];\n"
                  "  uint32_t b = __cvta_generic_to_shared(&tile[lane_id() * 8]);",
                  "b", before=before) == []


def test_an_address_computed_in_the_template_is_silent() -> None:
    text = HEAD + """__global__ void k() {
  __shared__ half tile[256];
  uint32_t r;
  asm volatile("{ .reg .u32 a, l; mov.u32 l, %%laneid; mad.lo.u32 a, l, 16, %1;\\n"
               "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [a]; }"
               : "=r"(r) : "r"((uint32_t)__cvta_generic_to_shared(tile)));
}
"""
    assert lint_text(text, select=("PTX612",)) == []


HELPER = HEAD + """__device__ void ldmatrix_a(uint32_t (&r)[4], const void* smem) {
  uint32_t addr = __cvta_generic_to_shared(smem);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__global__ void gemm(int k) {
  __shared__ half tile[2][16 * 16];
  uint32_t r[4];
  ldmatrix_a(r, tile[0]);
  CALL
}
"""


def test_a_helper_every_call_passes_one_address_is_flagged() -> None:
    # the defect of a public GEMM kernel: the helper gets the tile's base in every lane
    found = [f.message for f in lint_text(HELPER.replace("CALL", "ldmatrix_a(r, &tile[1][k]);"),
                                          select=("PTX612",))]
    assert len(found) == 1 and "every call of `ldmatrix_a` in this file passes `smem`" in found[0]


def test_a_helper_one_call_passes_a_lane_s_row_is_silent() -> None:
    text = HELPER.replace("CALL", "ldmatrix_a(r, &tile[1][threadIdx.x % 16 * 16]);")
    assert lint_text(text, select=("PTX612",)) == []


def test_a_parameter_stepped_by_the_lane_is_silent() -> None:
    assert _found("  p += threadIdx.x % 16 * 8;", "(uint32_t)__cvta_generic_to_shared(p)",
                  params="const half* p") == []
    text = HELPER.replace("uint32_t addr = __cvta_generic_to_shared(smem);",
                          "smem = (const char*)smem + threadIdx.x % 16 * 32;\n"
                          "  uint32_t addr = __cvta_generic_to_shared(smem);")
    assert lint_text(text.replace("CALL", ""), select=("PTX612",)) == []


def test_a_helper_called_from_a_helper_is_silent() -> None:
    text = HELPER.replace("CALL", "").replace(
        "__global__ void gemm", "__device__ void outer(const half* s) { uint32_t q[4]; "
        "ldmatrix_a(q, s); }\n__global__ void gemm")
    assert lint_text(text, select=("PTX612",)) == []


# ldmatrix .x1 on an 8x8 tile of b16 values row * 8 + column: lane t receives row t / 4,
# columns 2 * (t % 4) and the next (PTX ISA, "Warp-level matrix load instruction: ldmatrix",
# the fragment layout of .m8n8 .b16); with ROW the row address each of lanes 0-7 gives.
_RUN = HEAD + """#include <cstdio>
__global__ void load(unsigned* out) {
  __shared__ unsigned short tile[64];
  for (int i = threadIdx.x; i < 64; i += 32) tile[i] = (unsigned short)i;
  __syncwarp();
  unsigned v;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(ROW)));
  out[threadIdx.x] = v;
}
int main() {
  unsigned* out;
  cudaMallocManaged(&out, 32 * sizeof(unsigned));
  load<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  for (int t = 0; t < 32; ++t) printf("%u %u\\n", out[t] & 0xffff, out[t] >> 16);
  return 0;
}
"""


@needs_gpu
def test_on_a_gpu_one_address_for_every_lane_loads_row_0_for_every_row(tmp_path: Path) -> None:
    rows = {}
    for name, row in (("own-row", "&tile[(threadIdx.x % 8) * 8]"), ("one-address", "tile")):
        source = _RUN.replace("ROW", row)
        findings = lint_text(source, select=("PTX612",))
        assert len(findings) == (name == "one-address"), findings
        folder = tmp_path / name
        folder.mkdir()
        out = gpu_program(str(folder), source, "-arch=native")()
        pairs = [tuple(int(v) for v in line.split()) for line in out.splitlines()]
        assert len(pairs) == 32
        assert all(high == low + 1 and low % 8 == 2 * (t % 4) for t, (low, high) in enumerate(pairs))
        rows[name] = [low // 8 for low, _ in pairs]
    assert rows["own-row"] == [t // 4 for t in range(32)]
    assert rows["one-address"] == [0] * 32  # every lane's "row" is row 0
