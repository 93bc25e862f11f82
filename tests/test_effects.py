"""The effects table answers per family as the PTX ISA says."""

from __future__ import annotations

from ptxlint.ptx.effects import SPECIAL_REGISTERS, Writes, lookup, written_refs
from ptxlint.ptx.parser import parse_template


def _effects(mnemonic: str):
    opcode, *mods = mnemonic.split(".")
    effects = lookup(opcode, tuple(mods))
    assert effects is not None, mnemonic
    return effects


def test_read_only_loads_are_pure_and_plain_loads_read_memory() -> None:
    for m in ("ld.global.nc.f32", "ld.global.cg.nc.v4.u32", "ld.const.u32", "ldu.global.f32"):
        assert _effects(m).pure, m
    assert _effects("ld.global.u32").memory == "read"
    assert not _effects("ld.global.u32").side_effect


def test_stores_atomics_barriers_and_collectives_have_side_effects() -> None:
    for m in (
        "st.global.u32",
        "atom.global.add.u32",
        "red.global.add.u32",
        "bar.sync",
        "membar.gl",
        "fence.acq_rel.gpu",
        "cp.async.ca.shared.global",
        "cp.async.wait_group",
        "shfl.sync.bfly.b32",
        "vote.sync.ballot.b32",
        "activemask.b32",
        "elect.sync",
        "nanosleep.u32",
        "trap",
        "setmaxnreg.inc.sync",
    ):
        assert _effects(m).side_effect, m


def test_pure_families() -> None:
    for m in (
        "add.s32",
        "fma.rn.f32",
        "cvt.rn.f16x2.f32",
        "prmt.b32",
        "lop3.b32",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "mov.b64",
    ):
        assert _effects(m).pure, m


def test_sub_operation_is_anchored() -> None:
    assert _effects("mbarrier.arrive.expect_tx.shared.b64").writes is Writes.FIRST
    assert _effects("mbarrier.expect_tx.shared.b64").writes is Writes.NONE
    assert _effects("bar.red.popc.u32").writes is Writes.FIRST
    assert _effects("bar.sync").writes is Writes.NONE


def test_a_double_colon_qualifier_names_a_form_of_the_word_it_qualifies() -> None:
    # tcgen05.wait::ld and tcgen05.fence::after_thread_sync order the tcgen05 operations; they
    # access no memory C++ reads, unlike the family's catch-all
    for modifiers in (("wait::ld", "sync", "aligned"), ("wait::st", "sync", "aligned"),
                      ("fence::before_thread_sync",), ("fence::after_thread_sync",)):
        effects = lookup("tcgen05", modifiers)
        assert effects is not None
        assert effects.orders_memory and effects.memory == "", modifiers
    catch_all = lookup("tcgen05", ("future_op", "sync", "aligned"))
    assert catch_all is not None and catch_all.memory == "readwrite"


def test_tcgen05_accesses_only_the_memory_the_isa_names() -> None:
    """Tensor memory is no memory C++ can name: an access of it alone is a side effect, not a
    memory effect. The memory C++ sees: alloc's weak store of the address to shared memory,
    the mbarrier commit arrives on (generic proxy), the shared-memory matrices mma and cp read
    in the async proxy (PTX ISA 9.7.16)."""
    expected = {
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32": ("write", False, False),
        "tcgen05.alloc.exclusive.cta_group::1.sync.aligned.shared::cta.b32":
            ("write", False, False),
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32": ("", False, False),
        "tcgen05.dealloc.exclusive.cta_group::2.sync.aligned.b32": ("", False, False),
        "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned": ("", False, False),
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64":
            ("readwrite", True, False),
        "tcgen05.ld.sync.aligned.32x32b.x2.b32": ("", True, False),
        "tcgen05.ld.red.sync.aligned.32x32b.x2.u32.min": ("", True, False),
        "tcgen05.st.sync.aligned.32x32b.x2.b32": ("", True, False),
        "tcgen05.shift.cta_group::1.down": ("", True, False),
        "tcgen05.cp.cta_group::1.128x256b": ("read", True, True),
        "tcgen05.mma.cta_group::1.kind::f16": ("read", True, True),
        "tcgen05.mma.ws.sp.cta_group::1.kind::tf32": ("read", True, True),
    }
    for mnemonic, (memory, asynchronous, async_proxy) in expected.items():
        effects = _effects(mnemonic)
        assert effects.side_effect and not effects.orders_memory, mnemonic
        assert (effects.memory, effects.asynchronous, effects.async_proxy) == (
            memory, asynchronous, async_proxy), mnemonic
    assert _effects("tcgen05.ld.red.sync.aligned.32x32b.x2.u32.min").writes is Writes.FIRST_TWO


def test_ptx102_asks_no_clobber_for_tensor_memory_allocation_state() -> None:
    """A volatile asm of tcgen05.dealloc or relinquish_alloc_permit touches no memory C++ sees
    (the CUTLASS allocator's spelling): no clobber to ask for; alloc stores to shared memory
    and commit arrives on an mbarrier in the generic proxy: the contract's info stays."""
    from tests.conftest import lint_text

    def ptx102(body: str) -> list[str]:
        code = f"__device__ void f(unsigned t, unsigned s, unsigned long long b) {{\n  {body}\n}}\n"
        return [f.message for f in lint_text(code, select=("PTX102",))]

    assert ptx102('asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;"'
                  ' :: "r"(t));') == []
    assert ptx102('asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");'
                  ) == []
    assert ptx102('asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};"'
                  ' :: "r"(t), "r"(s));') == []
    (alloc,) = ptx102('asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32'
                      ' [%0], 32;" :: "r"(s));')
    assert "' writes memory" in alloc
    (commit,) = ptx102('asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one'
                       '.shared::cluster.b64 [%0];" :: "r"(s));')
    assert "reads and writes memory" in commit


def test_special_registers() -> None:
    for name in (
        "clock",
        "clock64",
        "globaltimer",
        "globaltimer_lo",
        "smid",
        "warpid",
        "pm3",
        "pm7_64",
    ):
        assert SPECIAL_REGISTERS[name].changes, name
    for name in (
        "tid",
        "ntid",
        "laneid",
        "ctaid",
        "nctaid",
        "lanemask_lt",
        "nsmid",
        "dynamic_smem_size",
    ):
        assert not SPECIAL_REGISTERS[name].changes, name


def test_written_refs() -> None:
    def refs(text: str) -> list[set[int] | None]:
        return [written_refs(i) for i in parse_template(text, extended=True).instructions]

    assert refs("mov.b64 {%0, %1}, %2;") == [{0, 1}]
    assert refs("st.global.u32 [%0], %1;") == [set()]
    assert refs("atom.global.add.u32 %0, [%1], %2;") == [{0}]
    assert refs("shfl.sync.up.b32 %0|p, %1, 1, 0, -1;") == [{0}]
    assert refs("tcgen05.ld.red.sync.aligned.32x32b.x2.u32.min {%0, %1}, %2, [%3];") == [{0, 1, 2}]
    assert refs("call (%0), f, (%1);") == [None]


def test_spellings_with_one_ordering_share_the_effects_it_gives() -> None:
    """An entry of the table with an ordering applied is a function of the two: spellings of a
    family that differ in words the ordering ignores get one object, and every spelling's
    effects are the entry with its ordering applied, made afresh."""

    from ptxlint.ptx import effects

    spellings = [("ld", ("global", "acquire", "gpu", "u32")),
                 ("ld", ("acquire", "gpu", "global", "v4", "b64")),
                 ("ld", ("relaxed", "sys", "shared", "f32")), ("ld", ("volatile", "u8")),
                 ("st", ("release", "cta", "global", "b32")), ("st", ("global", "u16")),
                 ("atom", ("add", "acq_rel", "cluster", "u32")), ("red", ("or", "b64")),
                 ("fence", ("sc", "gpu")), ("mbarrier", ("try_wait", "relaxed", "cta", "b64")),
                 ("barrier", ("cluster", "arrive", "relaxed")), ("add", ("u32",))]
    effects._LOOKED_UP.clear()
    effects._ORDERED.clear()
    found = [lookup(opcode, modifiers) for opcode, modifiers in spellings]
    assert found[0] is found[1] and found[0] is not found[2]
    for (opcode, modifiers), got in zip(spellings, found, strict=True):
        entry = effects._table_lookup(opcode, modifiers)
        order = effects.ordering(opcode, modifiers)
        assert entry is not None and got is not None, opcode
        expected = effects._with_ordering(entry, None)
        if order is not None:
            side = entry.side_effect or (order.kind == "load" and bool(entry.memory)
                                         and order.strong)
            orders = entry.orders_memory
            if order.acquires or order.releases:
                orders = True
            elif order.kind == "barrier":
                orders = False
            plain = order.kind in ("load", "store", "atomic") and not entry.memory
            expected = entry if plain else entry._replace(side_effect=side,
                                                          orders_memory=orders, ordering=order)
        assert got == expected, (opcode, modifiers)
    acquiring, releasing = found[0], found[4]
    assert acquiring is not None and acquiring.ordering is not None
    assert releasing is not None and releasing.ordering is not None
    assert acquiring.ordering.acquires and releasing.ordering.releases


def test_a_vectors_destinations_are_its_registers_one_by_one() -> None:
    """The written operands of an instruction are its written operands flattened (vector and
    pair elements one by one, addresses left out), whether a vector's parts are plain
    registers (taken whole) or nest an address, a pair or a vector, or a comment inside the
    vector spells one."""
    from ptxlint.ptx import effects, grammar

    vectors = ["{%0, %1, %2, %3}", "{%0,%1,  %2 , %3}", "{%0, [%1], %2, %3}", "{%0|%1, %2, %3, %4}",
               "{%0, {%1, %2}, %3}", "{%0, /* [x] | {y} */ %1, %2, %3}", "{r1, _, %2, 1}",
               "{%0, %1, %2, %3} // [z]", "{%0}"]
    texts = [f"ld.global.v4.u32 {vector}, [%9];" for vector in vectors]
    texts += [f"mov.b64 {vector}, %9;" for vector in vectors]
    texts += ["wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, "
              "1, 1, 1, 1;", "setp.eq.u32 %0|%1, %2, 0;", "add.u32 %0, %1, %2;"]
    compared = 0
    for text in texts:
        for extended, syntax in ((True, "gnu"), (False, "gnu"), (False, "llvm")):
            spelled = text.replace("%", "$") if syntax == "llvm" else text
            for instruction in parse_template(spelled, extended, syntax).instructions:
                positions = effects._grammar_written(instruction)
                if positions is None or instruction.opaque:
                    continue
                expected = [leaf for p in positions if p < len(instruction.operands)
                            for leaf in effects._flatten_destination(instruction.operands[p])
                            if leaf.kind != "address"]
                low, high = grammar.operand_counts(instruction.opcode, instruction.modifiers)
                if not low <= len(instruction.operands) <= high:
                    # (a comment that swallows the address): no form takes that count, so
                    # which operand is written is not known
                    assert effects._written_operands(instruction) is None, spelled
                    continue
                assert effects._written_operands(instruction) == tuple(expected), spelled
                compared += 1
    assert compared >= 2 * len(vectors)
