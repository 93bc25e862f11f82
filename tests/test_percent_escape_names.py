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
