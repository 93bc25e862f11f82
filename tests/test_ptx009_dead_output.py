"""PTX009 on an output no %N names: silent where nothing reads the variable after the asm (the
undefined value it receives reaches nothing), reported wherever a read may follow."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

_ASM = 'asm volatile("prefetch.global.L2 [%1];" : "=l"(w) : "l"(w));'


def _ptx009(body: str) -> list[str]:
    return [f.message for f in lint_text(body, select=("PTX009",))]


def test_a_local_nothing_reads_after_the_asm_is_not_reported() -> None:
    code = (
        "__device__ void touch(const float* base, int n) {\n"
        "  for (int i = 0; i < n; ++i) {\n"
        "    unsigned long long w = (unsigned long long)(base + i);\n"
        f"    {_ASM}\n"
        "  }\n"
        "}\n"
    )
    assert _ptx009(code) == []


@pytest.mark.parametrize("code", [
    pytest.param(
        "__device__ unsigned long long touch(const float* base) {\n"
        "  unsigned long long w = (unsigned long long)base;\n"
        f"  {_ASM}\n"
        "  return w;\n"
        "}\n",
        id="read-after-the-asm",
    ),
    pytest.param(
        "__device__ void touch(const float* base, int n) {\n"
        "  unsigned long long w = (unsigned long long)base;\n"
        "  for (int i = 0; i < n; ++i) {\n"
        f"    {_ASM}\n"
        "  }\n"
        "}\n",
        id="the-next-iteration-reads-it",
    ),
    pytest.param(
        "__device__ void keep(unsigned long long* q);\n"
        "__device__ void touch(const float* base) {\n"
        "  unsigned long long w = (unsigned long long)base;\n"
        "  unsigned long long* alias = &w;\n"
        f"  {_ASM}\n"
        "  keep(alias);\n"
        "}\n",
        id="its-address-was-taken",
    ),
    pytest.param(
        "__device__ void touch(unsigned long long& w) {\n"
        f"  {_ASM}\n"
        "}\n",
        id="a-reference-parameter",
    ),
    pytest.param(
        "__device__ void touch(const float* base) {\n"
        "  static unsigned long long w;\n"
        f"  {_ASM}\n"
        "}\n",
        id="static-storage",
    ),
    pytest.param(
        "struct Slot { unsigned long long w; };\n"
        "__device__ void touch(Slot& s) {\n"
        '  asm volatile("prefetch.global.L2 [%1];" : "=l"(s.w) : "l"(s.w));\n'
        "}\n",
        id="a-member",
    ),
])
def test_an_output_that_may_be_read_later_is_still_reported(code: str) -> None:
    messages = _ptx009(code)
    assert len(messages) == 1
    assert "receives an undefined value" in messages[0]


FENCE = r"""
__global__ void k(float* out, unsigned x) {
  unsigned a[2] = {x, x + 1};
  asm volatile("wgmma.fence.sync.aligned;" : CONSTRAINTS :: "memory");
  out[0] = a[0] + a[1];
}
"""


@pytest.mark.parametrize(("constraints", "reported"), [
    # the writes of the A fragments complete before the fence: ordered, not forgotten
    ('"+r"(a[0]), "+r"(a[1])', []),
    # an output it only writes receives an undefined value
    ('"+r"(a[0]), "=r"(a[1])', ["output operand 1 (a[1])"]),
])
def test_read_write_operands_of_a_template_that_names_none_are_ordered(
        constraints: str, reported: list[str]) -> None:
    findings = lint_text(FENCE.replace("CONSTRAINTS", constraints), "k.cu", select=("PTX009",))
    assert [f.message.split(" is ")[0] for f in findings] == reported
