#!/usr/bin/env python3
"""Evidence for the PTX6xx rules (warp convergence and asynchronous protocols) from the
toolchain and a GPU run: each defect a rule reports, next to its clean twin.

* ptxas (CUDA 13.0, ``-gencode arch=compute_90a,code=sm_90a``) on the wgmma fixtures: the
  C7517 ("warpgroup.wait is injected") and C7519 ("warpgroup.arrive is injected") info
  messages it prints where the PTX606/PTX607 fixtures break the wgmma protocol, and none on
  their clean twins. Needs nvcc only.
* a GPU run (Hopper: sm_90a): small kernels with one defect each (a full-mask shfl.sync under
  ``lane == 0``, cp.async waited without commit, cp.async read before its wait, a TMA load on
  a TMA store of generically written shared memory without a proxy
  fence, an expect-tx count larger or smaller than the bytes copied, a stage's mbarrier
  arrived on before the wgmma reading it was waited, and a producer warp zeroing it then, a
  TMA store's source written again before its wait),
  each next to its clean twin; and one control, an unfenced mbarrier.init used by a TMA load
  of the same CTA, which the PTX ISA allows and PTX604 leaves alone. A kernel counts what went
  wrong (stale shared-memory words read, mbarrier phases that never completed within a bounded
  spin, wrong words stored, accumulators that missed a value of the tiles);
  the host prints one JSON line per experiment. A hang is reported as such (the program is
  killed after ``--timeout`` seconds).
  Where compute-sanitizer runs (racecheck, synccheck), its verdict is recorded too.

Usage: ``python benchmarks/protocol_evidence.py [--compile-only] [--out DIR]``. Writes
``protocol_evidence.json`` (and the build log) to DIR, ``$OUT`` when set, else a temporary
folder. Not part of CI: it needs nvcc, and a Hopper GPU for the run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rules"
ARCH = ("-gencode", "arch=compute_90a,code=sm_90a")
_PTXAS_INFO = re.compile(r"\((C75\d\d)\) (.*?) in function '([^']+)'")

KERNELS = r"""
#include <cstdint>
#include <cstdio>
#include <cstring>

__device__ __forceinline__ uint32_t smem(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ bool test_wait(uint64_t* bar, int parity) {
  uint32_t done;
  asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               "selp.b32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(smem(bar)), "r"(parity) : "memory");
  return done != 0;
}
// a bounded spin: false when the phase did not complete (the hang a defect causes)
__device__ bool bounded_wait(uint64_t* bar, int parity) {
  for (long i = 0; i < (1L << 22); ++i) if (test_wait(bar, parity)) return true;
  return false;
}

// ---- PTX601: a full-mask shfl.sync reached by lane 0 only (lane 5 takes the other arm and
// changes the value lane 0 reads: count0 counts lane-0 results that are not lane 5's value at
// the shuffle of the converged twin), and an mma.sync reached by half a warp (count1 counts
// accumulator words that differ from the converged result)
__global__ void conv(float* out, unsigned* counts, int mode) {
  unsigned lane = threadIdx.x % 32;
  float v = lane;
  if (mode == 1) {
    if (lane == 0) asm volatile("shfl.sync.idx.b32 %0, %0, 5, 0x1f, 0xffffffff;" : "+f"(v));
    else v += 100.f;
  } else if (mode == 0) {
    asm volatile("shfl.sync.idx.b32 %0, %0, 5, 0x1f, 0xffffffff;" : "+f"(v));
    if (lane != 0) v += 100.f;
  }
  if (lane == 0 && mode < 2 && v != 5.f) atomicAdd(&counts[0], 1u);
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  unsigned a = 0x3c003c00u, b = 0x3c003c00u;  // half 1.0 pairs: every d is k = 16
  if (mode == 2 && lane >= 16) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = 0.f;
  } else if (mode >= 2) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3},"
                 " {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    for (int i = 0; i < 4; ++i) if (d[i] != 16.f) atomicAdd(&counts[1], 1u);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + d[0];
}

// ---- PTX602/PTX603: cp.async into a sentinel-filled tile, read after a broken wait
constexpr int kWords = 4096;  // 16 KB of shared memory per block
__global__ void cp_async_kernel(const float4* g, unsigned* stale, int mode) {
  __shared__ float4 tile[kWords / 4];
  for (int i = threadIdx.x; i < kWords / 4; i += blockDim.x) tile[i] = make_float4(-1, -1, -1, -1);
  __syncthreads();
  for (int i = threadIdx.x; i < kWords / 4; i += blockDim.x) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                 :: "r"(smem(&tile[i])), "l"(g + blockIdx.x * (kWords / 4) + i) : "memory");
  }
  if (mode == 0) {  // clean: commit, then wait
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  } else if (mode == 1) {  // PTX602: wait_group with nothing committed
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  } else {  // PTX603: committed, never waited before the read
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  __syncthreads();
  unsigned n = 0;
  for (int i = threadIdx.x; i < kWords / 4; i += blockDim.x) n += tile[i].x == -1.f;
  atomicAdd(stale, n);
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// ---- PTX604 / PTX608: a bulk load completing on an mbarrier
constexpr int kBytes = 8192;
__global__ void bulk_load(const float* g, unsigned* counts, int mode) {
  __shared__ alignas(128) float tile[kBytes / 4];
  __shared__ alignas(8) uint64_t bar;
  for (int i = threadIdx.x; i < kBytes / 4; i += blockDim.x) tile[i] = -1.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the sentinel, not the init
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
    if (mode != 1) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // mode 2: expects twice the bytes copied (PTX608: hang); mode 3: half (early phase)
    uint32_t expect = mode == 2 ? 2 * kBytes : mode == 3 ? kBytes / 2 : kBytes;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem(&bar)), "r"(expect) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];"
                 :: "r"(smem(tile)), "l"(g + blockIdx.x * (kBytes / 4)), "r"(kBytes),
                    "r"(smem(&bar)) : "memory");
  }
  bool done = bounded_wait(&bar, 0);
  unsigned n = 0;
  for (int i = threadIdx.x; i < kBytes / 4; i += blockDim.x) n += tile[i] == -1.f;
  atomicAdd(&counts[0], n);
  if (threadIdx.x == 0 && !done) atomicAdd(&counts[1], 1u);
  if (mode == 3 && threadIdx.x == 0) bounded_wait(&bar, 1);  // drain the stray complete-tx
  __syncthreads();
}

// ---- PTX605: shared memory written by st.shared, stored by TMA
__global__ void bulk_store(float* out, int mode) {
  __shared__ alignas(128) float tile[kBytes / 4];
  if (mode < 2) {  // every thread writes, then a barrier
    for (int i = threadIdx.x; i < kBytes / 4; i += blockDim.x) tile[i] = blockIdx.x * 1.0f + i;
  } else if (threadIdx.x == 0) {  // the storing thread writes, and stores at once
    for (int i = 0; i < kBytes / 4; ++i) tile[i] = blockIdx.x * 1.0f + i;
  }
  if (mode == 0 || mode == 2) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(out + blockIdx.x * (kBytes / 4)), "r"(smem(tile)), "r"(kBytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
__global__ void check_store(const float* out, unsigned* wrong) {
  int b = blockIdx.x;
  unsigned n = 0;
  for (int i = threadIdx.x; i < kBytes / 4; i += blockDim.x)
    n += out[b * (kBytes / 4) + i] != b * 1.0f + i;
  atomicAdd(wrong, n);
}

// ---- PTX615: a stage's mbarrier.arrive before the wgmma reading it is retired. Every
// element of A and B is 1, so each m64n64k16 adds 16 to each accumulator whatever the layout
// (the descriptors keep every core matrix inside the 2 KB tiles). A producer warp waits on the
// stage's "empty" barrier and zeroes the tiles; what the wgmmas read after that adds less.
constexpr int kMmas = 64;
__device__ __forceinline__ uint64_t tile_desc(const void* p) {
  // no swizzle; leading byte offset 128 (the next core matrix along K), stride 256 (along M)
  return (uint64_t)((smem(p) >> 4) & 0x3FFF) | ((uint64_t)(128 >> 4) << 16)
         | ((uint64_t)(256 >> 4) << 32);
}
__device__ __forceinline__ void wgmma64(float (&d)[32], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,"
               "%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
               "%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                 "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                 "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                 "+f"(d[30]), "+f"(d[31])
               : "l"(a), "l"(b) : "memory");
}
template <int kMode>
__global__ void release(unsigned* wrong) {
  __shared__ alignas(1024) unsigned short a[64 * 16];
  __shared__ alignas(1024) unsigned short b[64 * 16];
  __shared__ alignas(8) uint64_t empty;
  const int t = threadIdx.x;
  for (int i = t; i < 64 * 16; i += blockDim.x) { a[i] = 0x3C00; b[i] = 0x3C00; }  // 1.0
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" :: "r"(smem(&empty))
                 : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  // the warpgroup's index as every lane holds it: ptxas serialises wgmmas it sees in a path it
  // takes for divergent (C7520), which would close the window under test
  const int group = __shfl_sync(0xffffffff, t / 128, 0);
  if (group == 0) {
    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    #pragma unroll
    for (int r = 0; r < kMmas; ++r) wgmma64(d, tile_desc(a), tile_desc(b));
    if constexpr (kMode == 0) {
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&empty)) : "memory");
    if constexpr (kMode != 0) {
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
    unsigned n = 0;
    for (int i = 0; i < 32; ++i) n += d[i] != 16.0f * kMmas;
    atomicAdd(wrong, n);
  } else if (t < 160) {
    while (!test_wait(&empty, 0)) {}
    for (int i = t - 128; i < 64 * 16; i += 32) { a[i] = 0; b[i] = 0; }
  }
}

// ---- PTX616: the shared memory a TMA store reads, written again before the store's wait.
// Turn 0 stores tile = b + i to out[2b], turn 1 rewrites it to -(b + i) and stores it to
// out[2b + 1]; a turn-0 word that reads -(b + i) was sent after the rewrite.
constexpr int kReuseWords = 8192;  // 32 KB
__global__ void store_reuse(float* out, int mode) {
  __shared__ alignas(128) float tile[kReuseWords];
  for (int turn = 0; turn < 2; ++turn) {
    if (turn == 1 && mode == 0 && threadIdx.x == 0)
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
    const float sign = turn == 0 ? 1.0f : -1.0f;
    for (int i = threadIdx.x; i < kReuseWords; i += blockDim.x)
      tile[i] = sign * (blockIdx.x + i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"(out + (2 * blockIdx.x + turn) * (size_t)kReuseWords), "r"(smem(tile)),
                      "r"(kReuseWords * 4) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
__global__ void check_reuse(const float* out, unsigned* wrong) {
  const int b = blockIdx.x;
  unsigned n0 = 0, n1 = 0;
  for (int i = threadIdx.x; i < kReuseWords; i += blockDim.x) {
    n0 += out[(2 * b) * (size_t)kReuseWords + i] != b + i * 1.0f;
    n1 += out[(2 * b + 1) * (size_t)kReuseWords + i] != -(b + i * 1.0f);
  }
  atomicAdd(&wrong[0], n0);
  atomicAdd(&wrong[1], n1);
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("{\"error\": \"%s\"}\n", cudaGetErrorString(e)); return 2; } } while (0)

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  int blocks = argc > 3 ? atoi(argv[3]) : 1024;
  float* g; unsigned* c;
  const size_t floats = (size_t)blocks * (kWords * 4 > 2 * kReuseWords ? kWords * 4
                                                                       : 2 * kReuseWords);
  CHECK(cudaMalloc(&g, floats * 4));
  CHECK(cudaMalloc(&c, 16));
  CHECK(cudaMemset(g, 0, floats * 4));
  CHECK(cudaMemset(c, 0, 16));
  unsigned h[4] = {0, 0, 0, 0};
  if (!strcmp(what, "conv")) {
    conv<<<blocks, 128>>>(g, c, mode);
  } else if (!strcmp(what, "cp_async")) {
    cp_async_kernel<<<blocks, 128>>>((const float4*)g, c, mode);
  } else if (!strcmp(what, "bulk_load")) {
    bulk_load<<<blocks, 128>>>(g, c, mode);
  } else if (!strcmp(what, "release")) {
    if (mode == 0) release<0><<<blocks, 160>>>(c);
    else release<1><<<blocks, 160>>>(c);
  } else if (!strcmp(what, "store_reuse")) {
    store_reuse<<<blocks, 256>>>(g, mode);
    CHECK(cudaDeviceSynchronize());
    check_reuse<<<blocks, 256>>>(g, c);
  } else if (!strcmp(what, "bulk_store")) {
    bulk_store<<<blocks, 256>>>(g, mode);
    CHECK(cudaDeviceSynchronize());
    check_store<<<blocks, 256>>>(g, c);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, c, 16, cudaMemcpyDeviceToHost));
  printf("{\"experiment\": \"%s\", \"mode\": %d, \"blocks\": %d, \"count0\": %u, \"count1\": %u}\n",
         what, mode, blocks, h[0], h[1]);
  return 0;
}
"""

# (experiment, mode, what it is, rule, what count0/count1 mean)
RUNS = [
    ("conv", 0, "clean: shfl.sync reached by the whole warp", "PTX601",
     "lane-0 results other than lane 5's value"),
    ("conv", 1, "bad: full-mask shfl.sync under lane == 0", "PTX601",
     "lane-0 results other than lane 5's value"),
    ("conv", 3, "clean: mma.sync reached by the whole warp", "PTX601", "; wrong accumulators"),
    ("conv", 2, "bad: mma.sync reached by lanes 0-15 only", "PTX601", "; wrong accumulators"),
    ("cp_async", 0, "clean: commit then wait_group 0", "PTX602/PTX603", "stale words read"),
    ("cp_async", 1, "bad: wait_group 0 with nothing committed", "PTX602", "stale words read"),
    ("cp_async", 2, "bad: committed, read before any wait", "PTX603", "stale words read"),
    ("bulk_load", 0, "clean: fenced init, expect-tx = bytes copied", "PTX604/PTX608",
     "stale words; phases not completed"),
    ("bulk_load", 1, "control: one CTA, mbarrier.init not fenced before the TMA load (no "
     "defect: the copy accesses its mbarrier through the generic proxy; PTX604 is silent)",
     "PTX604", "stale words; phases not completed"),
    ("bulk_load", 2, "bad: expect-tx twice the bytes copied", "PTX608",
     "stale words; phases not completed"),
    ("bulk_load", 3, "bad: expect-tx half the bytes copied", "PTX608",
     "stale words; phases not completed"),
    ("bulk_store", 0, "clean: fence.proxy.async before the TMA store", "PTX605", "wrong words"),
    ("bulk_store", 1, "bad: TMA store of st.shared data, no proxy fence", "PTX605",
     "wrong words"),
    ("bulk_store", 2, "clean: one thread writes, fences, stores", "PTX605", "wrong words"),
    ("bulk_store", 3, "bad: one thread writes and stores at once, no proxy fence", "PTX605",
     "wrong words"),
]
RUNS += [
    ("release", 0, "clean: commit_group and wait_group 0, then mbarrier.arrive", "PTX615",
     "accumulators that missed a 1.0 of the tiles"),
    ("release", 1, "bad: mbarrier.arrive, then commit_group and wait_group 0", "PTX615",
     "accumulators that missed a 1.0 of the tiles"),
]
RUNS += [
    ("store_reuse", 0, "clean: wait_group.read 0 before the tile is written again", "PTX616",
     "turn-0 words stored wrong; turn-1 words stored wrong"),
    ("store_reuse", 1, "bad: the tile written again with no wait after its TMA store", "PTX616",
     "turn-0 words stored wrong; turn-1 words stored wrong"),
]
SANITIZED = [("synccheck", "conv", 1), ("synccheck", "conv", 2), ("synccheck", "conv", 0),
             ("racecheck", "cp_async", 2), ("racecheck", "cp_async", 0)]


def ptxas_messages(nvcc: str, work: Path) -> list[dict[str, object]]:
    """The C75xx info lines ptxas prints for each wgmma fixture."""
    found: list[dict[str, object]] = []
    for fixture in sorted(FIXTURES.glob("PTX60[67]_*.cu")):
        done = subprocess.run([nvcc, *ARCH, "-c", str(fixture), "-o", str(work / "f.o")],
                              capture_output=True, text=True, timeout=300)
        messages = [{"code": m.group(1), "text": m.group(2), "function": m.group(3)}
                    for m in _PTXAS_INFO.finditer(done.stdout + done.stderr)]
        found.append({"fixture": fixture.name, "returncode": done.returncode,
                      "messages": messages})
    return found


def run(binary: Path, args: list[str], timeout: float) -> dict[str, object]:
    try:
        done = subprocess.run([str(binary), *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"hang": True, "timeout_s": timeout}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    result: dict[str, object] = json.loads(lines[-1]) if lines else {}
    result["returncode"] = done.returncode
    if done.returncode != 0:
        result["stderr"] = done.stderr[-2000:]
    return result


def sanitize(tool: str, binary: Path, args: list[str], timeout: float) -> dict[str, object]:
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        return {"tool": tool, "skipped": "compute-sanitizer not found"}
    try:
        done = subprocess.run([sanitizer, "--tool", tool, str(binary), *args],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"tool": tool, "args": args, "hang": True}
    text = done.stdout + done.stderr
    summary = re.findall(r"(?:RACECHECK|SYNCCHECK) SUMMARY: .*|ERROR SUMMARY: .*", text)
    return {"tool": tool, "args": args, "returncode": done.returncode, "summary": summary,
            "first_report": next((ln for ln in text.splitlines() if "Barrier error" in ln
                                  or "hazard" in ln.lower() or "Invalid" in ln), "")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compile-only", action="store_true", help="ptxas evidence only")
    parser.add_argument("--out", default=os.environ.get("OUT") or tempfile.mkdtemp())
    parser.add_argument("--timeout", type=float, default=30.0)
    options = parser.parse_args()
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("nvcc not found", file=sys.stderr)
        return 2
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp())
    report: dict[str, object] = {"ptxas": ptxas_messages(nvcc, work)}
    if not options.compile_only:
        source = work / "protocols.cu"
        source.write_text(KERNELS)
        binary = work / "protocols"
        build = subprocess.run([nvcc, *ARCH, "-O2", "-lineinfo", "-o", str(binary), str(source)],
                               capture_output=True, text=True, timeout=600)
        (out / "build.log").write_text(build.stdout + build.stderr)
        if build.returncode != 0:
            report["build_failed"] = build.stderr[-4000:]
        else:
            runs = []
            for experiment, mode, label, rule, counts in RUNS:
                result = run(binary, [experiment, str(mode)], options.timeout)
                runs.append({"rule": rule, "label": label, "counts": counts, **result})
                print(json.dumps(runs[-1]), flush=True)
            report["runs"] = runs
            report["sanitizer"] = [sanitize(tool, binary, [experiment, str(mode), "8"],
                                            options.timeout * 4)
                                   for tool, experiment, mode in SANITIZED]
    (out / "protocol_evidence.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
