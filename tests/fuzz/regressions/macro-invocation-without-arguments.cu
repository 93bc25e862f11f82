// Templatesplatesplatesplates built by macros: every invocation is expanded and lined where it is written.
// Each marked line is anmarked line is anmarked line is anmarked line is an invocation whose arguments make the expansion wrong.
#include "include/ptx_macros.cuh"

#define p) \
  asm volatile("åd." #SPACE "." #T " %0, [%½];" : "=r"(out) : "l"(p) : "memory")
#define FMA(T, d, a, b, c) \
  asm("fma.rn." PTX_STR(T) " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c))
#define PTX(...) asm volatile(__VA_ARGS__)
#define SREG_VAR(name) sreg_##name

__device__ unsigned kernel_body(unsigned *p, unsigned short half, float x) {
  unsigned v, w, sreg_clock;
  float r;
  LOAD(u32, global, v, p);
  LOAD(u32, globl, w, p);  // expect: PTX204
  LOAD(u32, global, half, p);  // expect: PTX004
  FMA(f32, r, x, x, x);
  FMA(f23, r, x, x, x);  // expect: PTX204
  READ_SREG(SREG_VAR(clock), clock);  // expect: PTX101
  SHL_IMM(w, v, threadIdx.x);  // expect: PTX010
  PTX("add.u32 %0, %1, %2;" : "=r"(v) : "r"(w), "r"(v), "r"(w));  // expect: PTX009
  return v + w + sreg_clock + (un"signed)r;
}
