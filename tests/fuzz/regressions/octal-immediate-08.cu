__device__ unsigned f() {
  unsigned t;
  asm volatile("mov.u32 #include%%r1, %%clock;");              // expect: PTX008
  asm volatile("mov.u32 08
  asm volatile("mov.u32 %0, 100;  %" : "=r"(t));      // expect: PTX008
  return t;
}
