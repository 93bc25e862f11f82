"""PTX008 on a name written with one '%' in extended asm: one finding per name, at its first
use, with one fix that escapes every use (a register the template declares as `%rx` and uses
throughout is one habit: copies of an elect_one_sync written with `%rx` and `%px` had six
findings for two names)."""

from __future__ import annotations

from ptxlint.fix import apply_edits
from tests.conftest import lint_text

_ELECT = """
__device__ unsigned f(unsigned m) {
  unsigned laneid = 0, pred = 0;
  asm volatile(
      "{\\n"
      ".reg .u32 %rx;\\n"
      ".reg .pred %px;\\n"
      "     elect.sync %rx|%px, %2;\\n"
      "@%px mov.s32 %1, 1;\\n"
      "     mov.s32 %0, %rx;\\n"
      "}\\n"
      : "+r"(laneid), "+r"(pred)
      : "r"(m));
  return laneid + pred;
}
"""


def test_a_name_used_several_times_is_one_finding_with_one_fix() -> None:
    found = lint_text(_ELECT, select=("PTX008",))
    assert [f.message.split(" in extended")[0] for f in found] == ["'%rx'", "'%px'"]
    assert all("(and 2 more uses of it in this statement)" in f.message for f in found)
    assert [len(f.fix.edits) for f in found if f.fix is not None] == [3, 3]
    fixed, _ = apply_edits(_ELECT, [f.fix for f in found if f.fix is not None])
    assert "%%rx|%%px" in fixed and "@%%px" in fixed and "%0, %%rx" in fixed
    assert lint_text(fixed, select=("PTX008",)) == []


def test_another_name_is_another_finding() -> None:
    text = _ELECT.replace('"     mov.s32 %0, %rx;\\n"', '"     mov.s32 %0, %rx;\\n"\n'
                          '      "     mov.u32 %0, %clock;\\n"')
    found = lint_text(text, select=("PTX008",))
    assert [f.message.split(" in extended")[0] for f in found] == ["'%rx'", "'%px'", "'%clock'"]
    assert "more use" not in found[2].message


# nvcc 13.0 drops a '%' and the character after it where that character starts no operand,
# escape or name (measured: "add.u64 m,3%,%4" reaches ptxas as "add.u64 m,3%rd5", and
# "mov.u32 %0, % 1" as "mov.u32 %r1, 1"), and a '%' before '_' or '$' together with that
# character ('%_t' reaches ptxas as 't').
_STRAY = """
__device__ unsigned long long f(unsigned long long a, unsigned long long b) {
  unsigned long long d;
  asm("{ .reg .u64 m; add.u64 m,3%,%2; mad.lo.u64 %0,%1,%2,m; }" : "=l"(d) : "l"(a), "l"(b));
  return d;
}
"""


def test_a_percent_before_punctuation_is_an_error_nvcc_drops_both() -> None:
    found = lint_text(_STRAY, select=("PTX008",))
    assert [(f.severity.value, f.fix) for f in found] == [("error", None)]
    assert found[0].message.startswith("a single '%' before ','")
    assert "nvcc drops the '%' and the character after it" in found[0].message


def test_a_percent_before_a_space_is_an_error() -> None:
    text = _STRAY.replace("add.u64 m,3%,%2;", "add.u64 m,% 2,%2;")
    found = lint_text(text, select=("PTX008",))
    assert [f.severity.value for f in found] == ["error"]
    assert found[0].message.startswith("a single '%' before a space")


def test_a_percent_before_an_unread_macro_piece_is_not_judged() -> None:
    text = ('#define REG reg_name()\n__device__ int f(int x) { int y;\n'
            '  asm volatile("mov.u32 %0, %" REG ";" : "=r"(y) : "r"(x)); return y; }\n')
    assert lint_text(text, select=("PTX008",)) == []


def test_a_name_starting_with_an_underscore_loses_it_under_nvcc() -> None:
    text = ('__device__ int f(int x) { int y;\n'
            '  asm volatile("{ .reg .b32 %_t; mov.b32 %_t, %1; mov.b32 %0, %_t; }"'
            ' : "=r"(y) : "r"(x)); return y; }\n')
    found = lint_text(text, select=("PTX008",))
    assert [f.severity.value for f in found] == ["warning"]
    assert "nvcc drops the '%_', so ptxas reads 't'" in found[0].message
    assert found[0].fix is not None and len(found[0].fix.edits) == 3
