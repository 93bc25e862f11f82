"""The protocol steps and collectives the instruction facts give (ptxlint.ptx.protocols)."""

from __future__ import annotations

import pytest

from ptxlint.ptx import protocols
from ptxlint.ptx.parser import parse_template


def _events(text: str) -> list[protocols.Event]:
    [instruction] = parse_template(text, True).instructions
    return list(protocols.events(instruction))


@pytest.mark.parametrize(("text", "kind"), [
    ("cp.async.cg.shared.global [%0], [%1], 16;", protocols.COPY),
    ("cp.async.commit_group;", protocols.COMMIT),
    ("cp.async.wait_group 1;", protocols.WAIT),
    ("cp.async.wait_all;", protocols.WAIT),
    ("mbarrier.init.shared::cta.b64 [%0], 1;", protocols.MBAR_INIT),
    ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;", protocols.EXPECT_TX),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;", protocols.EXPECT_TX),
    ("mbarrier.arrive.shared::cta.b64 _, [%0];", protocols.MBAR_ARRIVE),
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], 1;", protocols.MBAR_ARRIVE),
    ("mbarrier.arrive_drop.shared.b64 %0, [%1];", protocols.MBAR_ARRIVE),
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;", protocols.MBAR_WAIT),
    ("fence.mbarrier_init.release.cluster;", protocols.FENCE_INIT),
    ("fence.proxy.async.shared::cta;", protocols.FENCE_PROXY),
    ("fence.proxy.async;", protocols.FENCE_PROXY),
    ("barrier.cluster.arrive.aligned;", protocols.CLUSTER_RELEASE),
    ("wgmma.fence.sync.aligned;", protocols.WG_FENCE),
    ("wgmma.commit_group.sync.aligned;", protocols.WG_COMMIT),
    ("wgmma.wait_group.sync.aligned 0;", protocols.WG_WAIT),
    ("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};", protocols.SHARED_WRITE),
    ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];", protocols.SHARED_READ),
])
def test_each_protocol_step_is_read_off_the_mnemonic(text: str, kind: str) -> None:
    assert [e.kind for e in _events(text)] == [kind]


def test_an_arrive_is_about_its_address_operand_whatever_its_state() -> None:
    for text in ("mbarrier.arrive.shared::cta.b64 _, [%0];",
                 "mbarrier.arrive.noComplete.shared.b64 %0, [%1], 2;"):
        [event] = _events(text)
        assert event.memory is not None and event.memory.kind == "address"


@pytest.mark.parametrize(("text", "kind", "columns", "group"), [
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;", protocols.TC_ALLOC,
     128, "cta_group::1"),
    ("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;", protocols.TC_ALLOC,
     None, "cta_group::2"),
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;", protocols.TC_DEALLOC, 64,
     "cta_group::1"),
    ("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", protocols.TC_RELINQUISH,
     None, "cta_group::2"),
])
def test_tensor_memory_steps_carry_their_columns_and_group(text: str, kind: str,
                                                           columns: int | None,
                                                           group: str) -> None:
    [event] = _events(text)
    assert (event.kind, event.count, event.group) == (kind, columns, group)
    if kind != protocols.TC_RELINQUISH:
        assert event.count_operand is not None  # nCols, an immediate or a register


@pytest.mark.parametrize(("text", "group"), [
    ("tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, 1;", "cta_group::2"),
    ("tcgen05.cp.cta_group::1.128x256b [%0], %1;", "cta_group::1"),
    ("tcgen05.shift.cta_group::2.down [%0];", "cta_group::2"),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];",
     "cta_group::1"),
])
def test_the_other_grouped_tcgen05_instructions_carry_their_group(text: str, group: str) -> None:
    assert [(e.kind, e.group) for e in _events(text)] == [(protocols.TC_GROUPED, group)]


@pytest.mark.parametrize("text", [
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];",  # no .cta_group: no step
    "tcgen05.wait::ld.sync.aligned;",
    "fence.proxy.async.global;",  # not the CTA's shared memory
    "barrier.cluster.arrive.relaxed.aligned;",  # releases nothing
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];",
    "add.u32 %0, %1, %2;",
])
def test_instructions_that_take_none_of_the_steps(text: str) -> None:
    assert _events(text) == []


def test_a_tma_load_completes_on_its_mbarrier_operand_and_a_store_reads_shared_memory() -> None:
    [load] = _events("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];")
    assert load.kind == protocols.BULK_LOAD and not load.tensor and not load.multicast
    assert load.barrier is not None and load.barrier.text == "[%3]"
    assert load.size_operand is not None and load.size_operand.text == "%2"
    [tensor] = _events("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
                       "::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;")
    assert tensor.tensor and tensor.multicast and tensor.barrier is not None
    assert tensor.barrier.text == "[%4]"
    [store] = _events("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];")
    assert store.kind == protocols.BULK_STORE and store.memory is not None
    assert store.memory.text == "[%3]"


def test_the_wgmma_registers_are_its_accumulators_and_register_a_fragment() -> None:
    [mma] = _events("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3},"
                    " {%4,%5,%6,%7}, %8, p, 1, 1, 1;")
    assert [r.text for r in mma.registers] == [f"%{i}" for i in range(8)]


@pytest.mark.parametrize(("text", "aligned", "mask"), [
    ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
     "{%0,%1,%2,%3};", True, None),
    ("bar.sync 1, 64;", True, None),
    ("shfl.sync.bfly.b32 %0, %1, 16, 0x1f, 0xffffffff;", False, "0xffffffff"),
    ("bar.warp.sync %0;", False, "%0"),
])
def test_collectives(text: str, aligned: bool, mask: str | None) -> None:
    [instruction] = parse_template(text, True).instructions
    found = protocols.collective(instruction)
    assert found is not None and found.aligned == aligned
    assert (found.mask.text if found.mask is not None else None) == mask


def test_a_plain_instruction_is_no_collective() -> None:
    [instruction] = parse_template("add.u32 %0, %1, %2;", True).instructions
    assert protocols.collective(instruction) is None
