"""PTX101's fix spells the qualifier as the file does: ``__volatile__`` in a file that writes it
somewhere, ``volatile`` elsewhere, whichever file was linted before."""

from __future__ import annotations

from tests.conftest import lint_text

_LOAD = (
    "__device__ unsigned load(const unsigned *p) {\n"
    "  unsigned v;\n"
    '  asm("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p));\n'
    "  return v;\n"
    "}\n"
)
_SPELLED = '__device__ void fence() { asm __volatile__("fence.acq_rel.gpu;" ::: "memory"); }\n'


def _inserted(text: str, path: str) -> list[str]:
    return [
        edit.new_text
        for finding in lint_text(text, path, select=("PTX101",))
        if finding.fix is not None
        for edit in finding.fix.edits
    ]


def test_the_fix_spells_volatile_as_each_file_does() -> None:
    for _ in range(2):  # each file in turn, after the other
        assert _inserted(_LOAD + _SPELLED, "spelled.cu") == [" __volatile__"]
        assert _inserted(_LOAD, "plain.cu") == [" volatile"]
