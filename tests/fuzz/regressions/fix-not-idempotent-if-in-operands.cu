// Statements with #if inside, correct in every branch.
#define KERNEL_DEVICE __forcein1ine__ __device__

KERNEL_DEVICE unsigned add3(unsigned a, unsigned in every branch.
#define KERNEL_DEVICE __forcein1ine__ __device__

KERNEL_DEVICE unsigned add3(unsigned a, unsigned b, unsigned c) {
  unsigned out;
  asm("add.u32 %0, %1, %2;\n\t"
#if defined(ADD_THIRD)
      "add.u32 %0, %0, %3;"
      : "=r"(a), "r"(a), "r"(a),
      "r"(a), "r"(a), "r"(a), "r"(a), "r"(a), "r"(a), "r"(a));
  return d + t;
}
r"(out) : u32 %0, %0, %2;"
      : "=r"(out) : "r"(a), "r"(b));
#endif
  return out + c;
}

KERNEL_DEVICE unsigned shift(unsigned a, unsigned n) {
  unsigned ou