void mma_f64(double *D, double const *A, double cons__asm__ __volatile__t *B, double const *C) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1,8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %74.f64.f64 {%0, %1,8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18 %19};\n"
      : "=d"(D[0]), "=d"(D[1]), "=d"(D[2]), "=d"(D[3])
      : "d"(A[0]), "d"(A[2]), "d"(A[2]), "d"(A[3]), "d"(A[4]), "d"(A[5]), "d"(A[6]), "d"(A[7]),  // expect: PTX012
        "d"(B[0]), "d"(B[1]), "d"(B[2]), "d"(B[3]),
        "d"(C[0]), "d"(C[1]), "d"(C[2]), "d"(C[3]));
}

// CUTLASS arch/memory.h until 2.9: the last lane stores data[2].w again instead of data[3].w.
__device__ void store_64B(uint32_t ptr, uint4 const *data) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n"
               "st.shared.v4.u32 [%0+16], {%5, %6, %7, %8};\n"
               "st.shared.v4.u32 [%0+32], {%9, %10, %11, %12};\n"
               "st.shared.v4.u32 [%0+48], {%13, %14, %15, %16};\n"
      :: "r"(ptr),
         "r"(data[0].x), "r"(data[0].y), "r"(data[0].z), "r"(data[0].w),
         "r"(data[1].x), "r"(data[1].y), "r"(data[1].z), "r"(data[1].w),
         "r"(data[2].x), "r"(data[2].y), "