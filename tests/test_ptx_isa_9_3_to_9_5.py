"""The instruction forms PTX ISA 9.3, 9.4 and 9.5 added (CUDA 13.3, 13.4, 13.5), each gated by
the toolkit whose ptxas first takes it (``toolkit=13.x``).

The unit tests need no ptxas: under the toolkit that added a form (and every newer one) the rules
accept it, under the one before they report it as new in that toolkit. The agreement tests run
where ``benchmarks/toolkits.py 13.2 13.5`` (and 13.3, 13.4) have fetched those toolkits' ptxas,
and skip otherwise: every gated form assembles with ptxas 13.5 and its own toolkit's, and the
ptxas of 13.2 (and of the toolkit just before its own) rejects it."""

from __future__ import annotations

import re
import subprocess

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.effects import lookup
from ptxlint.ptx.instructions import ptx_requirement
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.versions import (
    NEWEST_KNOWN,
    CudaVersion,
    format_cuda,
    ptx_for_cuda,
    version_options,
)
from ptxlint.rule import RuleContext
from tests.benchmark_module import load
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, parallel_map, run_cached

toolkits = load("toolkits")
agreement = load("ptxas_agreement")

SPELLING = ("PTX204", "PTX206", "PTX207")

# (toolkit that added it, the C++ statement spelling it): each a form CCCL 3.5's generated
# wrappers (cuda/__ptx/instructions/generated) or the ISA's notes name, written as code does
NEWER: tuple[tuple[CudaVersion, str], ...] = (
    ((13, 3), 'asm volatile("fabric.submit;" ::: "memory");'),
    ((13, 3), 'asm volatile("fabric.submit.op_restrict::fetching;" ::: "memory");'),
    ((13, 5), 'asm volatile("fabric.submit.commit_group;");'),
    ((13, 3), 'asm volatile("fabric.wait.sync_restrict::reads;" ::: "memory");'),
    ((13, 5), 'asm volatile("fabric.wait.sync_restrict::read %0;" :: "n"(2) : "memory");'),
    ((13, 3), 'asm volatile("fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B'
              '.mbarrier::report::fabric.relaxed.sys.b128 [%0, %1], [%2], %3, [%4];" :: "r"(n), '
              '"l"(g), "r"(s), "r"(n), "r"(s) : "memory");'),
    ((13, 3), 'asm volatile("fabric.try_red.async.multimem.shared::cta.mbarrier::complete_tx::16B'
              '.mbarrier::report::fabric.counted::bytes.relaxed.sys.add.acc::f32.bf16 [%0, %1, '
              '%1], [%2], %3, [%4];" :: "r"(n), "l"(g), "r"(s), "r"(n), "r"(s) : "memory");'),
    ((13, 3), 'asm volatile("fabric.try_pullred.async.multimem.shared::cta'
              '.mbarrier::complete_tx::bytes.mbarrier::report::fabric.relaxed.sys.max.s64.sync '
              '[%0], [%1, %2], %3, [%4], 0xFFFFFFFF;" :: "r"(s), "r"(n), "l"(g), "r"(n), "r"(s) '
              ': "memory");'),
    ((13, 4), 'asm volatile("fabric.try_atom.async.shared::cta.mbarrier::complete_tx::16B'
              '.mbarrier::report::fabric.L2::cache_hint.relaxed.sys.cas.b128 [%0, %1], [%2], '
              '[%2], [%3], %1;" :: "r"(n), "l"(g), "r"(s), "r"(s) : "memory");'),
    ((13, 3), 'asm volatile("fence.proxy.fabric::fabric.alias.acquire.sys;" ::: "memory");'),
    ((13, 3), 'asm volatile("fence.proxy.fabric::generic.alias.release.sys;" ::: "memory");'),
    ((13, 3), 'asm volatile("fence.proxy.generic::fabric.alias.acquire.sys;" ::: "memory");'),
    ((13, 4), 'asm volatile("fence.proxy.alias.release.sys;" ::: "memory");'),
    ((13, 4), 'asm volatile("fence.proxy.async::generic.release.sync_restrict::shared::cluster'
              '::read.cluster;" ::: "memory");'),
    ((13, 5), 'asm volatile("fence.alias.sync_restrict::read.release.sys;" ::: "memory");'),
    ((13, 5), 'asm volatile("cp.async.bulk.wait_group.sync_restrict::proxy::async %0;" :: '
              '"n"(0) : "memory");'),
    ((13, 4), 'asm volatile("prefetch.global.L1::32B.valid_addr [%0];" :: "l"(g) : "memory");'),
    ((13, 3), 'asm("mbarrier.init.layout::v1.shared.b64 [%0], %1;" :: "r"(s), "r"(n) : '
              '"memory");'),
    ((13, 3), 'asm("{ .reg .pred P; mbarrier.check_layout.layout::v0.shared::cta.b64 P, [%1]; '
              'selp.b32 %0, 1, 0, P; }" : "=r"(n) : "r"(s));'),
    ((13, 3), 'asm volatile("{ .reg .pred P, Q; .reg .b8 B; mbarrier.try_wait.phase_type::primary'
              '.acquire.cta.shared::cta.b64 P|Q, B, [%1], %2; selp.b32 %0, 1, 0, Q; }" : "=r"(n) '
              ': "r"(s), "l"(g) : "memory");'),
    ((13, 3), 'asm volatile("{ .reg .pred P; mbarrier.test_wait.parity.phase_type::conditional'
              '.relaxed.cluster.shared::cta.b64 P, [%1], %2; selp.b32 %0, 1, 0, P; }" : "=r"(n) '
              ': "r"(s), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster'
              '.multicast::cluster::32b.b64 _, [%0], %1, %2;" :: "r"(s), "r"(n), "r"(n) : '
              '"memory");'),
    ((13, 4), 'asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cluster'
              '.multicast::cluster::32b.b64 [%0], %1, %2;" :: "r"(s), "r"(n), "n"(3) : "memory");'),
    ((13, 4), 'asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one'
              '.sync_restrict::shared::read::mma::a.shared::cluster.multicast::cluster::32b.b64 '
              '[%0], %1;" :: "r"(s), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("tcgen05.alloc.exclusive.cta_group::1.sync.aligned.shared::cta.b32 '
              '[%0], %1;" :: "r"(s), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("tcgen05.dealloc.exclusive.cta_group::2.sync.aligned.b32 %0, %1;" '
              ':: "r"(n), "r"(n) : "memory");'),
    ((13, 4), 'asm("cvt.rp.satfinite.ue5m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(f), "f"(f));'),
    ((13, 4), 'asm("cvt.rn.bf16x2.ue5m3x2 %0, %1;" : "=r"(n) : "h"(h));'),
    ((13, 4), 'asm("{ .reg .b8 B; cvt.rz.satfinite.e2m1x2.f16x2 B, %1; cvt.u16.u8 %0, B; }" : '
              '"=h"(h) : "r"(n));'),
    ((13, 4), 'asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes'
              '.mbarrier::report::validity::per_element::ff [%0], [%1], %2, [%3];" :: "r"(s), '
              '"l"(g), "r"(n), "r"(s) : "memory");'),
    ((13, 4), 'asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'
              '.multicast::cluster::32b.L2::cache_hint [%0], [%1], %2, [%3], %4, %5;" :: "r"(s), '
              '"l"(g), "r"(n), "r"(s), "r"(n), "l"(g) : "memory");'),
    ((13, 4), 'asm volatile("cp.async.bulk.prefetch.L2.global.L2::evict_last [%0], %1;" :: '
              '"l"(g), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("applypriority.async.bulk.global.bulk_group.L2::evict_normal [%0], '
              '%1;" :: "l"(g), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile'
              '.mbarrier::complete_tx::bytes.cta_group::1.mbarrier::report::disabled'
              '.override::global_address.override::global_dim_stride [%0], [%1, %2, {%3, %3}, '
              '{%4}, %3, {%4, %4}], [%0];" :: "r"(s), "l"(g), "l"(g), "h"(h), "r"(n) : "memory");'),
    ((13, 4), 'asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile'
              '.override::global_address.override::global_dim.bulk_group [%0, %0, {%1}, {%2}], '
              '[%3];" :: "l"(g), "h"(h), "r"(n), "r"(s) : "memory");'),
    ((13, 4), 'asm volatile("fabric.try_get.async.tensor.1d.shared::cta.tile'
              '.mbarrier::complete_tx::bytes.mbarrier::report::fabric.override::global_address'
              '.relaxed.sys.b128 [%0], [%1, %2, %1, {%2}], [%0];" :: "r"(s), "l"(g), "r"(n) : '
              '"memory");'),
    ((13, 4), 'asm volatile("tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.max.sp::2:4.abs'
              '.f32.b2 {%1}, {%2, %3}, %0, [%4];" : "=f"(f), "=r"(n), "=f"(f), "=f"(f) : "r"(s) '
              ': "memory");'),
    ((13, 5), 'asm("sin.approx.ftz.2pi.f32 %0, %1;" : "=f"(f) : "f"(f));'),
    ((13, 4), 'asm("mul.e4m3x4.e2m1x4.e4m3x4 %0, %1, %2;" : "=r"(n) : "h"(h), "r"(n));'),
    ((13, 4), 'asm("mul.rn.satfinite.e5m2x4.e3m2x4.e2m1x4 %0, %1, %2;" : "=r"(n) : "r"(n), '
              '"h"(h));'),
    ((13, 4), 'asm("fma.rn.satfinite.e4m3x4.e4m3x4.e5m2x4 %0, %1, %2, %3;" : "=r"(n) : "r"(n), '
              '"r"(n), "r"(n));'),
    ((13, 4), 'asm("add.satfinite.e4m3x4.e2m1x4 %0, %1, %2;" : "=r"(n) : "h"(h), "r"(n));'),
    ((13, 4), 'asm("sub.rn.e5m2x4.e2m3x4 %0, %1, %2;" : "=r"(n) : "r"(n), "r"(n));'),
    ((13, 5), 'asm("cos.approx.ftz.2pi.f32 %0, %1;" : "=f"(f) : "f"(f));'),
    ((13, 5), 'asm volatile("{ .reg .pred P; tensormap.query.alloc_class_large.global.b1024 P, '
              '[%1]; selp.b32 %0, 1, 0, P; }" : "=r"(n) : "l"(g) : "memory");'),
)


def _kernel(statement: str) -> str:
    return ("__device__ void k(const float* g, unsigned s, unsigned n, float f, "
            "unsigned short h) {\n"
            f"  {statement}\n}}\n")


def _spelling_findings(statement: str, cuda: CudaVersion) -> list[str]:
    context = RuleContext(options=version_options(format_cuda(cuda), None, "."))
    return [f"{f.rule} {f.message}" for f in lint_text(_kernel(statement), select=SPELLING,
                                                         context=context)]


@pytest.mark.parametrize(("added", "statement"), NEWER)
def test_a_newer_form_is_accepted_from_its_toolkit_on(added: CudaVersion, statement: str) -> None:
    for cuda in ((13, 5), added):
        assert _spelling_findings(statement, cuda) == [], (cuda, statement)


@pytest.mark.parametrize(("added", "statement"), NEWER)
def test_a_newer_form_is_new_in_its_toolkit_for_the_older_ones(
    added: CudaVersion, statement: str,
) -> None:
    before = (added[0], added[1] - 1)
    for cuda in ((13, 0), before):
        [finding] = _spelling_findings(statement, cuda)
        assert finding.startswith("PTX204") and f"new in ptxas {format_cuda(added)}" in finding


@pytest.mark.parametrize("text", [
    "fabric.submit.op_restrict::fetching.commit_group",  # ptxas 13.5: Unknown modifier
    "fabric.wait",  # "Illegal modifier ''"
    "fence.proxy.fabric::fabric.alias.acquire.gpu",  # ".sys modifier required"
    "fence.proxy.fabric::fabric.alias.sys",  # ".acquire/.release modifier required"
    "fence.proxy.alias.acq_rel.sys",  # "Illegal modifier '.acq_rel'"
    "fence.alias.sync_restrict::read.acquire.sys",  # "cannot be combined with modifier"
    "cp.async.bulk.wait_group.read.sync_restrict::proxy::async 0",  # "Invalid combination"
    "prefetch.global.L1::32B [%rd1]",  # ".valid_addr modifier required"
    "prefetch.global.L1.valid_addr [%rd1]",  # ".L1::32B modifier required"
    "sin.approx.2pi.f32 %f1, %f2",  # ".ftz modifier required"
    "ex2.approx.ftz.2pi.f32 %f1, %f2",  # "Illegal modifier '.2pi'"
    "mbarrier.check_layout.shared::cta.b64 %p1, [%rd1]",  # ".layout modifier required"
    "mbarrier.check_layout.layout::v0.shared::cta.b64 %r1, [%rd1]",  # "Arguments mismatch"
    "fabric.wait.sync_restrict::read %r1",  # "Arguments mismatch"
    "cvt.rz.e2m1x2.f32 %c1, %f1, %f2",  # "'.satfinite' modifier required"
    "tcgen05.ld.red.spcompress.sync.aligned.32x32b.x2.min.sp::2:4.f32.b2 {%r1}, {%f1}, %f3, "
    "[%r2]",  # "Modifier .x2 not allowed"
    "tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.min.sp::1:2.f32.b2 {%r1}, {%f1, %f2}, %f3, "
    "[%r2]",  # ".sp::2:4 modifier required"
    "tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.add.sp::2:4.f32.b2 {%r1}, {%f1, %f2}, %f3, "
    "[%r2]",  # "Illegal operation '.add'"
    # the size override is for one dimension only, sizes and strides for two or more ("Illegal
    # modifier '.override::global_dim'"), in that order before the coordinates
    "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
    ".override::global_address.override::global_dim [%r1], [%rd1, %rd2, {%h1, %h2}, {%r2, %r3}], "
    "[%r4]",
    "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
    ".override::global_address [%r1], [%rd1, {%r2, %r3}], [%r4]",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"
    ".mbarrier::report::validity::per_16bytes::800 [%r1], [%rd1], 16, [%r2]",  # Unknown
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster::32b "
    "[%r1], [%rd1], 16, [%r2], %h5",  # "Arguments mismatch"
    "cp.async.bulk.prefetch.L2.global.L2::evict_first [%rd1], 16",  # "Unsupported modifier"
    "cp.async.bulk.prefetch.L2.global.L2::evict_last.L2::cache_hint [%rd1], 16, %rd2",
    "applypriority.async.bulk.global.L2::evict_normal [%rd1], %r1",  # needs .bulk_group
    "applypriority.async.bulk.global.bulk_group.L2::evict_normal [%rd1], %rd2",
    "cvt.rn.relu.ue5m3x2.f32 %h1, %f1, %f2",  # "Illegal modifier '.relu'"
    "cvt.rm.satfinite.ue5m3x2.f32 %h1, %f1, %f2",  # "Illegal rounding modifier"
    "cvt.rz.f16x2.ue5m3x2 %r1, %h1",  # "Illegal rounding modifier"
    "cvt.rn.satfinite.ue5m3x2.f32 %r1, %f1, %f2",  # "Arguments mismatch"
    "mbarrier.try_wait.phase_type::conditional.acquire.cta.shared::cta.b64 %p1, [%rd1], %rd2",
    "mbarrier.try_wait.parity.phase_type::conditional.acquire.cta.b64 %p1|%p2, [%rd1], %r2",
    "mbarrier.try_wait.phase_type::primary.acquire.cta.shared::cta.b64 %p1|%p2, %h1, [%rd1], "
    "%rd2",  # the report's value is a .b8: "Arguments mismatch"
    "mbarrier.try_wait.phase_type::primary.acquire.cta.shared::cluster.b64 %p1, [%rd1], %rd2",
    "mbarrier.test_wait.phase_type::primary.acquire.cta.b64 %p1|%p2, [%rd1], %rd2, %r1",
    "mbarrier.arrive.release.cluster.shared::cluster.multicast::cluster::32b.b64 %rd1, [%rd2], "
    "%r1, %r2",  # "Sink '_' is expected"
    "mbarrier.arrive.release.cluster.shared::cluster.multicast::cluster::32b.b64 _, [%rd2], %r1, "
    "%h2",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
    ".multicast::cluster::32b.b64 [%r1], %h1",  # "must be 32-bit size"
    # fabric (ptxas 13.5): the endpoint is a .u32 and the offset a .u64 ("Arguments mismatch"),
    # the data type is required ("Unexpected instruction types"), .relaxed never alone
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.sys.b128 [%rd3, %rd1], [%r3], %r2, [%r4]",
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.sys.b128 [%r1, %r5], [%r3], %r2, [%r4]",
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.sys [%r1, %rd1], [%r3], %r2, [%r4]",
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.b128 [%r1, %rd1], [%r3], %r2, [%r4]",
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".cp_mask.counted::bytes.relaxed.sys.b128 [%r1, %rd1, %rd2], [%r3], %r2, [%r4], %h1",
    "fabric.try_put.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".counted::bytes.relaxed.sys.b128 [%r1, %rd1], [%r3], %r2, [%r4]",  # two parts, not three
    "fabric.try_red.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.sys.add.s32 [%r1, %rd1], [%r3], %r2, [%r4]",  # "Incorrect type '.s32'"
    "fabric.try_red.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".cp_mask.relaxed.sys.add.u32 [%r1, %rd1], [%r3], %r2, [%r4], %h1",
    "fabric.try_pullred.async.multimem.shared::cta.mbarrier::complete_tx::bytes"
    ".mbarrier::report::fabric.relaxed.sys.add.u32.sync [%r3], [%r1, %rd1], %r2, [%r4], 15",
    "fabric.try_pullred.async.multimem.shared::cta.mbarrier::complete_tx::bytes"
    ".mbarrier::report::fabric.relaxed.sys.min.acc::f32.f16.sync [%r3], [%r1, %rd1], %r2, "
    "[%r4], 0xFFFFFFFF",  # "Illegal reduction operation"
    "fabric.try_get.async.multimem.shared::cta.mbarrier::complete_tx::bytes"
    ".mbarrier::report::fabric.relaxed.sys.b128 [%r3], [%r1, %rd1], %r2, [%r4]",
    "fabric.try_atom.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.add.u32 [%r1, %rd1], [%r3], [%r5], [%r4]",  # ".sys modifier required"
    "fabric.try_atom.async.shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
    ".relaxed.sys.inc.u32 [%r1, %rd1], [%r3], [%r5], [%r4]",  # "Illegal reduction operation"
])
def test_what_ptxas_13_5_rejects_of_the_newer_families_is_rejected(text: str) -> None:
    assert agreement.predict(text).status == "reject"


def _errors_for_13_5(text: str) -> list[str]:
    """The grammar's errors that ptxas 13.5 makes too: not those only older toolkits make."""
    [instruction] = parse_template(text + ";", extended=False).instructions
    verdict = grammar.check(instruction, agreement.resolve)
    return [i.message for i in verdict.issues if i.severity == "error" and not i.ptxas_takes
            and (i.toolkit is None or i.toolkit > (13, 5))]


# the x4 packs' arithmetic (ptxas 13.5, sm_100a): an e4m3x4/e5m2x4 result only ("Unexpected
# instruction types"), the types by position, .rn the only rounding, no .relu, .ftz nor
# immediates, bit registers of the packs' sizes ("Arguments mismatch")
@pytest.mark.parametrize("text", [
    "mul.e2m1x4.e4m3x4.e4m3x4 %h1, %r1, %r2",
    "mul.e4m3x4.e4m3x4 %r1, %r2, %r3",
    "mul.rz.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3",
    "mul.relu.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3",
    "mul.e4m3x4.e2m1x4.e4m3x4 %r1, %r2, %r3",
    "mul.e4m3x4.e2m1x4.e4m3x4 %f1, %h2, %r3",
    "mul.e4m3x4.e4m3x4.e4m3x4 %r1, 1, %r3",
    "fma.ftz.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3, %r4",
    "fma.e4m3x4.e2m1x4.e2m1x4 %r1, %h1, %h2, %h3",
    "add.e4m3x4.e2m1x4 %r1, %r2, %h3",
    "add.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3",
    "min.e4m3x4.e4m3x4 %r1, %r2, %r3",
    "mul.f16x2.bf16x2.f16x2 %r1, %r2, %r3",  # the result is of the first pack's type
    "mul.rn.f16x2.f16x2.bf16x2 %r1, %r2, %r3",  # "Illegal rounding modifier"
    "add.f32x2.f32x2.f16x2 %rd1, %rd2, %r3",  # "Unexpected instruction types"
    "add.rn.bf16x2.f32x2.f32x2 %r1, %rd2, %rd3",  # "Illegal rounding modifier"
    "add.f16x2.f32x2.f32x2 %r1, %rd2, %rd3",  # ".ftz modifier required"
    "add.f32x2.f16x2.f32x2 %f1, %r2, %rd3",  # "Arguments mismatch"
    "cvt.rn.satfinite.f16x2.e4m3x2 %r1, %h2",  # "Unexpected instruction types"
    "tensormap.query.alloc_class_large.shared::cluster.b1024 %p1, [%rd1]",  # "State space
    # incorrect"
    "tensormap.query.alloc_class_large.global.b1024 %r1, [%rd1]",  # "Arguments mismatch"
    "tensormap.query.alloc_class_large.global %p1, [%rd1]",  # ".b1024 modifier required"
])
def test_what_ptxas_13_5_rejects_of_the_9_4_arithmetic_is_rejected(text: str) -> None:
    assert _errors_for_13_5(text)


@pytest.mark.parametrize("text", [
    "mul.e4m3x4.e2m1x4.e4m3x4 %r1, %h2, %r3",
    "mul.satfinite.rn.e5m2x4.e2m3x4.e3m2x4 %r1, %r2, %r3",
    "fma.rn.e4m3x4.e2m1x4.e2m1x4 %r1, %h1, %h2, %r3",
    "add.e4m3x4.e2m1x4 %r1, %h2, %r3",
    "sub.satfinite.e5m2x4.e4m3x4 %r1, %r2, %r3",
    # the sm_107 family's half-precision mixes
    "mul.f16x2.f16x2.bf16x2 %r1, %r2, %r3",
    "add.rp.f32x2.bf16x2.f32x2 %rd1, %r2, %rd3",
    "sub.rz.bf16x2.f32x2.f32x2 %r1, %rd2, %rd3",
    "add.ftz.f16x2.f32x2.f32x2 %r1, %rd2, %rd3",
    "tensormap.query.alloc_class_large.b1024 %p1, [%rd1+8]",
    # (PTX ISA 9.2's widening to .bf16x2 takes .satfinite too, ptxas 13.2 on)
    "cvt.rn.relu.satfinite.bf16x2.e2m1x2 %r1, %c2",
])
def test_what_ptxas_13_5_takes_of_the_9_4_arithmetic_is_taken(text: str) -> None:
    assert _errors_for_13_5(text) == []


def test_the_newer_forms_need_their_ptx_isa_and_targets() -> None:
    def needs(text: str) -> tuple[int, grammar.Need | None]:
        [instruction] = parse_template(text + ";", extended=False).instructions
        return (ptx_requirement(instruction.opcode, instruction.modifiers)[0],
                grammar.modifier_need(instruction.opcode, instruction.modifiers))

    ptx, need = needs("fabric.submit")
    assert ptx == 93 and need is not None and need.admits(100, "") and not need.admits(90, "a")
    ptx, need = needs("fence.proxy.alias.release.sys")
    assert ptx == 94 and need is not None and need.admits(90, "") and not need.admits(80, "")
    ptx, need = needs("mul.e4m3x4.e2m1x4.e4m3x4")
    assert ptx == 94 and need is not None and need.admits(100, "a") and need.admits(103, "a")
    assert not any(need.admits(sm, suffix) for sm, suffix in
                   ((100, "f"), (100, ""), (107, "a"), (110, "a"), (120, "a")))
    ptx, need = needs("add.ftz.f16x2.f32x2.f32x2")
    assert ptx == 94 and need is not None and need.admits(107, "f")
    assert not any(need.admits(sm, suffix) for sm, suffix in ((107, ""), (100, "a"), (120, "a")))
    ptx, need = needs("tensormap.query.alloc_class_large.global.b1024")
    assert ptx == 95 and need is not None and need.admits(90, "a") and need.admits(107, "f")
    assert not any(need.admits(sm, "") for sm in (90, 100, 107))
    ptx, need = needs("sin.approx.ftz.2pi.f32")
    assert ptx == 95 and need is not None and need.admits(75, "")
    ptx, need = needs("tcgen05.alloc.exclusive.cta_group::1.sync.aligned.shared::cta.b32")
    assert ptx == 94 and need is not None and not need.admits(120, "a")


def test_fabric_submit_and_wait_order_memory_and_commit_group_only_closes_a_group() -> None:
    for words in (("submit",), ("submit", "op_restrict::fetching"),
                  ("wait", "sync_restrict::reads")):
        effects = lookup("fabric", words)
        assert effects is not None and effects.orders_memory and effects.side_effect
    closing = lookup("fabric", ("submit", "commit_group"))
    assert closing is not None and closing.side_effect and not closing.orders_memory
    put = lookup("fabric", ("try_put", "async", "shared::cta"))
    get = lookup("fabric", ("try_get", "async", "shared::cta"))
    assert put is not None and put.memory == "read" and put.asynchronous
    assert get is not None and get.memory == "write" and not get.async_proxy
    layout = lookup("mbarrier", ("check_layout", "layout::v0", "shared::cta", "b64"))
    assert layout is not None and layout.pure


# ----------------------------------------------------------------------------- ptxas


# Fetched on the first run where a toolkit is installed, as tests/test_isa_versions.py fetches
# 12.4, 13.1 and 13.2: the newest ptxas proves every form of 9.3-9.5, 13.2's that it is new.
_FETCHED = ("13.2", "13.5")


def _found(version: str) -> str | None:
    have = toolkits.found()
    if version not in have and version in _FETCHED and PTXAS is not None:
        try:
            toolkits.fetch(version)
        except (OSError, subprocess.SubprocessError, ValueError, KeyError):
            return None
        have = toolkits.found()
    return have.get(version)


def _assembles(ptxas: str, isa: int, target: str, line: str) -> bool:
    source = (f".version {isa // 10}.{isa % 10}\n.target {target}\n.address_size 64\n"
              ".entry k() {\n"
              ".reg .b16 %h<16>; .reg .b32 %r<64>; .reg .b64 %rd<16>; .reg .f32 %f<64>;\n"
              ".reg .f64 %fd<16>; .reg .pred %p<8>; .reg .b128 %q<4>; .reg .b8 %c<16>;\n"
              f"{line};\nL1:\nret;\n}}\n")
    return run_cached(ptxas, ["-arch", target, INPUT, "-o", "/dev/null"], source,
                      filename="case.ptx").ok


# the agreement benchmark's targets, and sm_107a (new in ptxas 13.4), the only one some 9.4 forms
# are on
TARGETS = (*agreement.TARGETS, (107, "a"))


def _knows(ptxas: str, isa: int, target: str) -> bool:
    """Whether that ptxas assembles for ``target`` at all: an older one that does not know the
    target rejects every form there, which proves nothing of the form."""
    return _assembles(ptxas, isa, target, "add.u32 %r1, %r2, %r3")


# the registers _assembles declares, by name prefix (longest first)
_DECLARED = (("%rd", 16), ("%fd", 16), ("%r", 64), ("%f", 64), ("%h", 16), ("%p", 8),
             ("%q", 4), ("%c", 16))
_REGISTER = re.compile(r"%(rd|fd|r|f|h|p|q|c)[0-9]+")


def _distinct(text: str) -> str:
    """``text`` with each register a different one of its class: the benchmark's generator
    names vector elements modulo 16, and ptxas stops at a load that writes one register twice
    ("intrinsic PREAD offset mismatch: out-of-order or overlapping reads", tcgen05.ld.red's
    64 kept values), which says nothing of the form."""
    used: dict[str, int] = {}

    def fresh(found: re.Match[str]) -> str:
        prefix = "%" + found.group(1)
        limit = dict(_DECLARED)[prefix]
        used[prefix] = used.get(prefix, -1) + 1
        return f"{prefix}{used[prefix] % limit}"

    return _REGISTER.sub(fresh, text)


def _gated_past_13_2() -> list[tuple[grammar.Form, str, list[str]]]:
    """Each form gated past 13.2, a target its need admits, and its instances."""
    out = []
    for form in grammar.forms():
        if form.toolkit is None or form.toolkit <= (13, 2):
            continue
        target = next((f"sm_{sm}{suffix}" for sm, suffix in TARGETS
                       if form.need.admits(sm, suffix)), None)
        if target is not None:
            out.append((form, target, [_distinct(i.text()) for i in agreement.instances(form)]))
    return out


def test_every_form_gated_past_13_2_assembles_with_13_5_and_not_with_13_2() -> None:
    newest, oldest = _found("13.5"), _found("13.2")
    if newest is None or oldest is None:
        pytest.skip("ptxas 13.5 or 13.2 not cached (python benchmarks/toolkits.py 13.2 13.5)")
    gated = _gated_past_13_2()
    assert len(gated) >= 18  # the 13.3-13.5 forms are there to be proven
    for form, _, _ in gated:
        assert form.toolkit is not None
        own = ptx_for_cuda(form.toolkit)
        assert own is not None and own > 92
    targets = sorted({target for _, target, _ in gated})
    old_knows = dict(zip(targets, parallel_map(lambda t: _knows(oldest, 92, t), targets),
                         strict=True))
    # (ptxas, ISA, target, text, whether it must assemble): each a compile of its own
    checks = [(newest, 95, target, text, True) for _, target, texts in gated for text in texts]
    checks += [(oldest, 92, target, text, False) for _, target, texts in gated
               if old_knows[target] for text in texts]
    said = parallel_map(lambda c: _assembles(c[0], c[1], c[2], c[3]), checks)
    for check, assembles in zip(checks, said, strict=True):
        assert assembles is check[4], check[1:4]
    rejected = sum(1 for check in checks if not check[4])
    assert rejected >= len(gated)  # most forms are on targets ptxas 13.2 knows


def test_the_widening_to_bf16x2_takes_satfinite_from_ptxas_13_2_on() -> None:
    text = "cvt.rn.satfinite.bf16x2.e4m3x2 %r1, %h2"
    checked = 0
    for version, isa, takes in (("13.1", 91, False), ("13.2", 92, True), ("13.5", 95, True)):
        ptxas = _found(version)
        if ptxas is not None:
            assert _assembles(ptxas, isa, "sm_100a", text) is takes, version
            checked += 1
    if not checked:
        pytest.skip("no ptxas of 13.1, 13.2 or 13.5 cached (python benchmarks/toolkits.py 13.2)")


def test_every_form_gated_past_13_2_is_its_own_toolkits_and_not_the_one_befores() -> None:
    checked = 0
    for form, target, texts in _gated_past_13_2():
        assert form.toolkit is not None
        own, before = format_cuda(form.toolkit), format_cuda((13, form.toolkit[1] - 1))
        own_ptxas, before_ptxas = _found(own), _found(before)
        own_isa, before_isa = ptx_for_cuda(form.toolkit), ptx_for_cuda((13, form.toolkit[1] - 1))
        assert own_isa is not None and before_isa is not None
        for text in texts[:4]:
            if own_ptxas is not None:
                assert _assembles(own_ptxas, own_isa, target, text), (own, text)
                checked += 1
            if before_ptxas is not None and _knows(before_ptxas, before_isa, target):
                assert not _assembles(before_ptxas, before_isa, target, text), (before, text)
                checked += 1
    if not checked:
        pytest.skip("no ptxas of 13.2-13.5 cached (python benchmarks/toolkits.py 13.3 13.4 13.5)")


GUARDED = """\
#if __cccl_ptx_isa >= {isa}
__device__ void f() {{ asm volatile("fabric.submit.op_restrict::fetchin;" ::: "memory"); }}
#endif
"""


def test_code_guarded_by_the_newest_known_ptx_isa_is_judged_and_newer_code_is_not() -> None:
    """CCCL guards each wrapper by the PTX ISA that added it: up to the newest toolkit whose
    forms the grammar covers (NEWEST_KNOWN's PTX ISA) the grammar judges it, past it abstains."""
    known = (ptx_for_cuda(NEWEST_KNOWN) or 0) * 10
    assert known >= 930  # the fabric wrappers' guard, __cccl_ptx_isa >= 930
    for isa in (930, known):
        [finding] = lint_text(GUARDED.format(isa=isa), select=("PTX204",))
        assert "op_restrict::fetchin" in finding.message
    assert lint_text(GUARDED.format(isa=known + 10), select=("PTX204",)) == []
