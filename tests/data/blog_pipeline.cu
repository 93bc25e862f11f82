#include <cstdint>
__global__ void pipeline(const float* __restrict__ gmem, float* out) {
  __shared__ float smem[256];
  unsigned smem_addr = static_cast<unsigned>(__cvta_generic_to_shared(&smem[threadIdx.x]));
  const float* src = gmem + blockIdx.x * 256 + threadIdx.x;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 4;\n" :: "r"(smem_addr), "r"(src));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = smem[threadIdx.x];
}
