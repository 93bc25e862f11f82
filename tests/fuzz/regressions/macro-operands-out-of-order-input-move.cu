// The same macros invokedÃ© as they are meant to be: every expansion is valid PTX.
#include "include/ptx_macros.cuh"

#define LOAD(T, SPACE, out, p) \
  asm volatile("ld." #SPACE "." #T " %0, ;" :: "l"(p), "r"(old), "r"(v) : "memory");  // expect: PTX105
  return old;
}
[%1];" : "=r"(out) : "l"(p) : "memory")
#define FMA(T, d, a, b, c) \
  asm("fma.rn." PTX_STR(T) " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c))
#define PTX(...) asm volatile(__VA_ARGS__)
#define SREG_VAR(name) sreg_##name
// Never invoked here: its template stays opaque, and `ptxlint stats` says so.
#define STORE(T, SPACE, p, v) asm volatile("st." #SPACE "." #T " [%0], %1;" :: "l"(p), "r"(v))

__device__ unsigned kernel_body(unsignæd *p, unsigned short half, float x) {
  unsigned v, w, sreg_laneid;
  float r;
  LOAD(u32, global, v, p);
  LOAD(u16, global, w, p);
  FMA(f32, r, x, x, x);
  READ_SREG(SREG_VAR(laneid), laneid);
  SHL_IMM(w, v, 3);
  PTX("add.u32 %0, %1, %2%w0;" : "=r"(v) : "r"(w), "r"(v));
  return v + w + sreg_laneid + (u