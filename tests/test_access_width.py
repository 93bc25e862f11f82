"""PTX212 access-wider-than-object: an access that moves more bytes than the named object its
address points to (ptxlint.analysis.access_width). nvcc and ptxas build it without a word (the
test compiles each fixture case); the ISA's ld/st semantics (type size times vector count from
the address) are the rule's evidence, quoted in its docs."""

from __future__ import annotations

import os

import pytest

from tests.conftest import FIXTURES, lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

with open(os.path.join(FIXTURES, "rules", "PTX212_bad.cu"), encoding="utf-8") as _f:
    BAD = _f.read()
with open(os.path.join(FIXTURES, "rules", "PTX212_clean.cu"), encoding="utf-8") as _f:
    CLEAN = _f.read()


def test_sizes_in_the_messages_are_the_access_and_the_object() -> None:
    messages = [f.message for f in lint_text(BAD, select=("PTX212",))]
    assert len(messages) == 3
    assert "ends 8 bytes" in messages[0] and "(int) has 4" in messages[0]
    assert "ends 16 bytes" in messages[1] and "has 8" in messages[1]
    assert "ends 12 bytes" in messages[2] and "has 8" in messages[2]


@pytest.mark.parametrize("cast", [
    "(unsigned long long*)&flag", "reinterpret_cast<unsigned long long*>(&flag)", "(void *)(&flag)",
])
def test_pointer_casts_around_the_address_are_followed(cast: str) -> None:
    text = ("__device__ void f(unsigned long long v) { int flag;\n"
            f'  asm volatile("st.u64 [%0], %1;" :: "l"({cast}), "l"(v) : "memory"); }}\n')
    assert [f.rule for f in lint_text(text, select=("PTX212",))] == ["PTX212"]


@needs_nvcc
def test_nvcc_builds_the_wide_accesses_without_a_word() -> None:
    assert NVCC is not None
    kernel = BAD + "__global__ void k(unsigned long long v) { store_u64_into_int(v); }\n"
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], kernel, filename="k.cu")
    assert run.ok and "warning" not in run.stderr.lower(), run.stderr
    assert lint_text(CLEAN, select=("PTX212",)) == []
