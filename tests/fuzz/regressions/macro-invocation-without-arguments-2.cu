#define PTR_CONSTRAINT MACRO_FROM_ asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(g));
  asm volatile("ld.f32 %0, [%1];" : "=f"(\
v) : "l"(sp));
  asm volatile("sELSEWHERE
__device__ unsigned f(const unsigned* p, unsigned x, float y, double z) {
  unsigned v;
  asm("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  asm("add.u32 %0, %0, %1;" : "+r"(x) : "n"(4));
  asm("mov.b32 %0, %1;" : "=&r"(v) : "f"(y));
  asm("mov.b64 %0, %1;" : "=d"(z) : "d"(z));
  asm("ld.global.u32 %0, [%1];" : "=r"(v) : PTR_CONSTRAINT(p));
  asm volatile("membar.gl;" ::: "memory");
  return v + x;
}
#if defined(__x86_64__)
static inline unsigned long long rdtsc() {
  unsigned lo, hi;
  ;_asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) :: "cc");
  return ((unsigned long long)hi << 32) | lo;
}
#endif
#if defined(USE_ROCM)
__device__ void keep(int x) { asm volatile("" : "+v"(x)); }
#endif
