"""The C++ operand expressions held against nvcc: output and in-out operands across the
grammar's corners (casts, templates and dependent names, members, subscripts, conditionals,
commas, lambdas, braced temporaries, increments, assignments, bit-fields, const objects,
references, register variables, built-ins). Shared by tests/test_nvcc_oracle_expressions.py
and benchmarks/operand_expressions.py; each case is one small translation unit, since one error
can hide another."""

from __future__ import annotations

from dataclasses import dataclass

PRELUDE = """\
#include <utility>
struct S { int a; mutable int m; int bf : 4; __device__ int &ref() { return a; }
           __device__ int val() const { return a; } };
template <typename T> struct Box { T val; static constexpr int k = 4; };
__device__ int g_dev;
__device__ const int g_const = 3;
__device__ int &get_ref();
__device__ int get_val();
"""

_FUNCTION = """\
__device__ void k(int *p, const int *cp, S &s, const S &cs, int &ref, const int &cref, float f,
                  int i, bool c, const int cparam) {
  int x = 0, y = 0; const int cx = 1; constexpr int kx = 2; int arr[4] = {};
  unsigned u = 0; S loc{}; const S cloc{}; volatile int vx = 0; int *const pc = p;
  int &alias = x; float fl = 0; register int rv = 0;
  (void)cx; (void)kx; (void)y; (void)u; (void)fl; (void)vx; (void)rv; (void)cparam;
  ASM
}
"""

_TEMPLATE = """\
template <typename T> __device__ void t(T &tv, Box<T> &b) {
  ASM
}
template __device__ void t<unsigned>(unsigned &, Box<unsigned> &);
"""


@dataclass(frozen=True)
class ExpressionCase:
    expression: str
    constraint: str = "=r"
    where: str = "function"  # "function" | "template"

    @property
    def source(self) -> str:
        body = _TEMPLATE if self.where == "template" else _FUNCTION
        template = "add.u32 %0, %0, 1;" if self.constraint.startswith("+") else "mov.u32 %0, 1;"
        asm = f'asm volatile("{template}" : "{self.constraint}"({self.expression}));'
        return PRELUDE + body.replace("ASM", asm)

    def __str__(self) -> str:
        return f'{self.where}: "{self.constraint}"({self.expression})'


_OUTPUTS = [
    # names, members, subscripts, dereferences
    "x", "(x)", "loc.a", "s.a", "p[0]", "*p", "arr[i]", "arr[x + 1]", "*p++", "p[i++]",
    "*(p + 1)", "(*p)", "*&x", "ref", "alias", "g_dev", "vx", "rv", "*pc", "pc[1]", "u", "i",
    # bit-fields and mutable members
    "loc.bf", "s.bf", "cloc.m", "cs.m",
    # calls
    "get_ref()", "loc.ref()", "get_val()", "loc.val()",
    # casts
    "(int)x", "(unsigned)x", "(unsigned)i", "(int)u", "(signed)u", "(int)(x)", "((int)x)",
    "(int)(unsigned)x", "int(x)", "unsigned(x)", "static_cast<int>(x)",
    "static_cast<unsigned>(x)", "(long)x", "(short)x", "(char)x", "(bool)x", "(float)x",
    "(int)fl", "(int)c", "(int&)x", "(int&)(x)", "static_cast<int&>(x)",
    "reinterpret_cast<int&>(fl)", "*reinterpret_cast<int*>(&fl)", "(unsigned&)fl",
    "*(unsigned*)&fl", "(volatile int&)x", "(const int&)x", "static_cast<const int&>(x)",
    "const_cast<int&>(cx)", "const_cast<int&>(cref)", "(int)-x",
    # operators
    "x + 1", "-x", "~x", "!x", "x++", "x--", "loc.a++", "++x", "--x", "x = 3", "(x = y)",
    "x += 1", "x <<= 1", "c ? x : y", "(c ? x : y)", "c ? x : 1", "c ? *p : x", "(x, y)",
    "sizeof(x)", "42", "nullptr",
    # temporaries, xvalues, lambdas
    "int{}", "S{}.a", "std::move(x)", "[&]() -> int& { return x; }()", "[&]() { return x; }()",
    # const objects
    "cx", "kx", "cparam", "cref", "cp[0]", "*cp", "cs.a", "cloc.a", "g_const", "threadIdx.x",
    "blockDim.y",
]

CASES: tuple[ExpressionCase, ...] = (
    *(ExpressionCase(e) for e in _OUTPUTS),
    ExpressionCase("x", '=" "r'),  # a constraint spelled as two literals: "=" "r"
    ExpressionCase("rv", '+" "r'),
    *(ExpressionCase(e, "+r") for e in ("x", "cx", "(int)x", "loc.bf", "x + 1", "cref",
                                        "c ? x : y", "++x")),
    *(ExpressionCase(e, where="template") for e in (
        "tv", "b.val", "Box<T>::k", "(T)tv", "(int)tv", "(long)tv", "static_cast<T>(tv)",
        "static_cast<T&>(tv)", "tv + 1", "b.val++",
    )),
)

# nvcc rejects or warns on these, but the text around the asm cannot say so: the rule must
# stay silent. A call's return type, a static member's constness and a namespace-scope const
# are declared out of the function's view; a member of a const object may be `mutable`
# (cloc.m is accepted); `(int)tv` and `(long)tv` convert only once T is known.
ABSTAIN = frozenset({"get_val()", "loc.val()", "Box<T>::k", "(int)tv", "(long)tv", "cs.a",
                     "cloc.a", "g_const"})
