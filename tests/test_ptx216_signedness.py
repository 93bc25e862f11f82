"""PTX216 compares an integer min/max of memory with the signedness of the C++ integer its
address operand points to (``CType.pointee``, ``CType.unsigned``, read by the front end as
every operand's type is)."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

FLAGGED = {
    "red-max-u64-on-long-long": ('long long *p, long long v',
                                 'red.global.max.u64 [%0], %1;', '"l"(p), "l"(v)'),
    "red-min-u64-on-int64_t": ("int64_t *p, int64_t v", "red.global.min.u64 [%0], %1;",
                               '"l"(p), "l"(v)'),
    "multimem-red-on-int": ("int *p, int v", "multimem.red.relaxed.sys.global.max.u32 [%0], %1;",
                            '"l"(p), "r"(v)'),
    "signed-on-unsigned": ("unsigned long long *p, unsigned long long v",
                           "red.global.max.s64 [%0], %1;", '"l"(p), "l"(v)'),
    # a generic address, an offset, and a copy into a register keep the base (address_bases)
    "generic-atom": ("long long *p, long long v", "atom.max.u64 %1, [%0], %1;",
                     '"l"(p), "l"(v)'),
    "offset": ("long long *p, long long v", "red.global.max.u64 [%0+8], %1;", '"l"(p), "l"(v)'),
    "copied": ("long long *p, long long v",
               "{ .reg .b64 r; mov.b64 r, %0; red.global.max.u64 [r], %1; }", '"l"(p), "l"(v)'),
}
SILENT = {
    "same-signedness": ("int64_t *p, int64_t v", "red.global.max.s64 [%0], %1;",
                        '"l"(p), "l"(v)'),
    "add-wraps-alike": ("int *p, int v", "red.global.add.u32 [%0], %1;", '"l"(p), "r"(v)'),
    "void-pointer": ("void *p, long long v", "red.global.max.u64 [%0], %1;", '"l"(p), "l"(v)'),
    "integer-address": ("unsigned long long p, long long v", "red.global.max.u64 [%0], %1;",
                        '"l"(p), "l"(v)'),
    "other-size": ("int *p, long long v", "red.global.max.u64 [%0], %1;", '"l"(p), "l"(v)'),
    "template-element": ("T *p, T v", "red.global.max.u64 [%0], %1;", '"l"(p), "l"(v)'),
}


def _ptx216(parameters: str, template: str, operands: str) -> list[str]:
    text = (f"#include <cstdint>\ntemplate <class T> __device__ void f({parameters}) {{\n"
            f'  asm volatile("{template}" :: {operands} : "memory");\n}}\n')
    if "T " not in parameters:
        text = text.replace("template <class T> ", "")
    return [f.message for f in lint_text(text, select=("PTX216",))]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_min_or_max_of_the_other_signedness_is_flagged(case: str) -> None:
    [message] = _ptx216(*FLAGGED[case])
    assert "points to" in message and "use ." in message


@pytest.mark.parametrize("case", sorted(SILENT))
def test_what_the_type_does_not_decide_or_ptxlint_cannot_read_is_not(case: str) -> None:
    assert _ptx216(*SILENT[case]) == []


def test_the_message_names_the_type_to_use_and_the_operand() -> None:
    [message] = _ptx216(*FLAGGED["red-max-u64-on-long-long"])
    assert message.startswith("'red.global.max.u64' compares as unsigned, but %0 points to "
                              "'long long' (signed)")
    assert "use .s64, or declare the object unsigned" in message
