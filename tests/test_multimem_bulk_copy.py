"""PTX ISA 9.1's bulk copy and bulk reduction of shared memory to every GPU of a multicast
object (``multimem.cp.async.bulk``, ``multimem.cp.reduce.async.bulk``: ptxas 13.1 and 13.5 on
sm_90 and newer; 13.1 says "Feature 'multimem.cp.async.bulk' requires PTX ISA .version 9.1"):
the global forms of ``cp.async.bulk``/``cp.reduce.async.bulk`` with ``multimem.`` before them,
without a cache hint or a byte mask. torchcomms' ncclx ``tma_ptx.cuh`` spells the copy; PTX204
called '.cp' an unknown modifier of 'multimem'."""

from __future__ import annotations

import pytest

from ptxlint.ptx.versions import version_options
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

COPY = "multimem.cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
REDUCE = "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group{} [%0], [%1], %2;"


def _findings(template: str, cuda: str) -> list[str]:
    text = (
        "__device__ void f(void *dst, unsigned src, unsigned n) {\n"
        f'  asm volatile("{template}" :: "l"(dst), "r"(src), "r"(n) : "memory");\n}}\n'
    )
    context = RuleContext(options=version_options(cuda, None, "."))
    return [f"{f.rule}: {f.message}" for f in lint_text(text, "k.cu", context=context)
            if f.rule.startswith("PTX2")]


@pytest.mark.parametrize("template", [
    COPY, REDUCE.format(".add.f32"), REDUCE.format(".add.noftz.bf16"), REDUCE.format(".inc.u32"),
    REDUCE.format(".min.s64"), REDUCE.format(".xor.b64"),
])
def test_cuda_13_1_takes_the_multicast_bulk_forms(template: str) -> None:
    assert _findings(template, "13.1") == []


def test_cuda_13_0_does_not() -> None:
    (finding,) = _findings(COPY, "13.0")
    assert finding.startswith("PTX204") and "new in ptxas 13.1" in finding


@pytest.mark.parametrize("template", [
    # ptxas 13.5: "Illegal modifier '.L2::cache_hint'", "Modifier '.noftz' required"
    COPY.replace("bulk_group", "bulk_group.L2::cache_hint"), REDUCE.format(".add.bf16"),
])
def test_what_the_multicast_forms_lack_is_reported(template: str) -> None:
    assert [f.split(":")[0] for f in _findings(template, "13.5")] == ["PTX204"]
