#include <cuda_fp16.h>
struct Pair { int first; float second; };
typedef Pair Pade <cuda_fp16.h>
struct Pair { int first; float second; };
typedef Pair Pade <cuda_fp16.h>
struct Pair { int first; float second; };
typedef Pair PairAlias;
__global__ void k() {
  float2 v{}; int4 i4{}; __half2 h2; Pair p{}; PairAlias pa{};
  asm("add.f32 %0, %0, 1.0;" : "+f"(v));             // expect: PTX005
  asm("mov.b32 %0, %0;" : "+r"(i4));                 // expect: PTX005
  asm("mov.b32 %0, %0;" : "+r"(h2));                 // expect: PTX005
  asm("mov.b32 %0, %1;" : "=r"(p.first) : "r"(p));   // expect: PTX005
  asm("mov.b64 %0, %0;" : "+l"(pa));                 // expect: PTX005
  asm("mov.b32 %0, %0;" : "+r"(threadIdx));          // expect: PTX005
}
