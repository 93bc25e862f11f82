"""What PTX instructions and special registers do besides computing their destination.

This is data, read by the PTX1xx rules (missing ``volatile``, missing ``"memory"`` clobber,
conditional and unwritten outputs) and by the instruction table (its side-effect column).

``EFFECTS`` is keyed by *mnemonic pattern*: the opcode word, then zero or more modifier words,
``"ld.global.nc"``. A pattern matches an instruction when the opcode is equal, the pattern's
first modifier is the instruction's first modifier (the sub-operation: ``mbarrier.expect_tx``
must not match ``mbarrier.arrive.expect_tx``), and every further word of the pattern is one of
the instruction's modifiers, in any order (the ISA lets ``.nc`` follow a cache operator,
``ld.global.cg.nc``). The pattern with the most words wins, so ``ld.global.nc`` overrides
``ld``, and ``bar.red`` overrides ``bar``. ``lookup`` does this.

Every entry names the PTX ISA 9.x section that states the fact (chapter 9 "Instruction Set",
chapter 10 "Special Registers"; section titles rather than numbers, which move between
releases). Facts about what the *compiler* assumes come from the CUDA "Inline PTX Assembly"
guide, section "Incorrect Optimization", and were checked with ``nvcc -arch=sm_90 -O3 -ptx``
(CUDA 13.0); see tests/test_optimizer_evidence.py.

Vocabulary:

* ``side_effect``: the instruction does something observable besides writing its destination
  registers (a store, a barrier, a value that depends on *when* or *with whom* it runs), so a
  non-volatile asm holding it may be deleted, hoisted out of a loop or merged with another.
* ``memory``: ``"read"``, ``"write"`` or ``"readwrite"`` when it accesses memory through an
  address operand that C++ code may also access; ``""`` when it does not, or when the memory
  is read-only for the life of the kernel (``ld.const``, ``ld.global.nc``, ``ldu``,
  ``ld.param``, textures): the compiler cannot break anything by moving such a read. Tensor
  memory (``tcgen05``) is no memory C++ may access: an instruction that touches only it has
  ``""`` and a side effect.
* ``orders_memory``: a fence or barrier: C++ memory accesses must not move across it.
* ``collective``: the result depends on the other lanes of the warp.
* ``asynchronous``: the memory access is only *issued* here and performed later, by another
  unit (``cp.async*``, ``wgmma.mma_async`` through its shared-memory descriptors, ``tcgen05``
  copies and MMAs, ``st.async``; ``tcgen05.ld``/``st``/``shift`` likewise complete later, in
  tensor memory): C++ code observes it only after a separate wait
  (``cp.async.wait_group``, ``wgmma.wait_group``, an mbarrier wait, ``tcgen05.wait``), and that
  wait, not the issue, is where a ``"memory"`` clobber orders the memory it *writes*.
* ``async_proxy``: the access is performed by the asynchronous proxy (PTX ISA "Memory
  Consistency Model", proxies: ``cp.async.bulk*``, ``cp.reduce.async.bulk*``, ``wgmma``'s
  shared-memory operands, the shared memory ``tcgen05`` copies and MMAs read): what C++
  wrote before it reaches it only through a proxy fence
  (``fence.proxy.async``), a statement of its own that carries the clobber. ``cp.async``
  without ``.bulk`` is not: the ISA treats it as a weak memory operation of the generic
  proxy, so the C++ stores before it are ordered by this statement's clobber alone.
* ``ordering``: the memory-ordering semantics (:class:`Ordering`: weak, relaxed, acquire,
  release, acq_rel, sc, volatile, mmio, and the scope), read from the modifiers in any order
  with the ISA's defaults by :func:`ordering` and applied by :func:`lookup`: a *strong* load
  (any but weak) reads what another thread writes while it runs, so it has a side effect (it
  must not be hoisted, merged or deleted); an acquire or release orders memory. No family is
  pure or exempt by its name alone: ``ld`` is as weak or as strong as its qualifiers say.
* ``writes``: which operands are *register destinations*. ``FIRST``: the first operand (a
  vector ``{a, b}`` writes every element, a pair ``p|q`` both halves); ``NONE``: no register
  operand is written (stores, barriers, ``prefetch``...; the first operand is an address or an
  input); ``FIRST_TWO``: the first two (``tcgen05.ld.red`` writes the values and the reduced
  value); ``UNKNOWN``: do not guess (``call``).
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from ptxlint.model import PtxInstruction, PtxOperand
from ptxlint.ptx import grammar
from ptxlint.ptx.special_registers import (
    SPECIAL_REGISTERS,
    VECTOR_SPECIAL_REGISTERS,
    SpecialRegister,
    nearest_special_registers,
    special_register,
    special_register_type,
)

__all__ = [
    "EFFECTS",
    "SPECIAL_REGISTERS",
    "VECTOR_SPECIAL_REGISTERS",
    "Effects",
    "Ordering",
    "SpecialRegister",
    "Writes",
    "lookup",
    "nearest_special_registers",
    "special_register",
    "special_register_type",
    "written_operands",
    "written_refs",
]


class Writes(str, Enum):
    FIRST = "first"
    FIRST_TWO = "first_two"
    NONE = "none"
    UNKNOWN = "unknown"


class Effects(NamedTuple):
    """What an instruction does besides computing its destination (the vocabulary is in the module
    docstring), and the PTX ISA section that says so."""

    side_effect: bool = False
    memory: str = ""  # "" | "read" | "write" | "readwrite"
    orders_memory: bool = False
    collective: bool = False
    asynchronous: bool = False
    async_proxy: bool = False
    writes: Writes = Writes.FIRST
    isa: str = ""  # the PTX ISA section that states it
    # the memory-ordering semantics of a load, store, atomic, fence or barrier (``ordering``)
    ordering: Ordering | None = None

    @property
    def pure(self) -> bool:
        """A function of its register inputs: safe to delete, hoist or merge when unused."""
        return not (self.side_effect or self.memory or self.orders_memory)


def _pure(isa: str) -> Effects:
    return Effects(isa=isa)


_INT = "9.7.1 Integer Arithmetic Instructions"
_EXT = "9.7.2 Extended-Precision Integer Arithmetic Instructions"
_FP = "9.7.3 Floating-Point Instructions"
_HALF = "9.7.4 Half Precision Floating-Point Instructions"
_CMP = "9.7.5 Comparison and Selection Instructions"
_LOGIC = "9.7.6 Logic and Shift Instructions"
_MOVE = "9.7.9 Data Movement and Conversion Instructions"
_TEX = "9.7.10 Texture Instructions"
_SURF = "9.7.11 Surface Instructions"
_CTRL = "9.7.12 Control Flow Instructions"
_SYNC = "9.7.13 Parallel Synchronization and Communication Instructions"
_MMA = "9.7.14 Warp Level Matrix Multiply-Accumulate Instructions"
_WGMMA = "9.7.15 Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"
_TCGEN05 = "9.7.16 TensorCore 5th Generation Family Instructions"
_STACK = "9.7.17 Stack Manipulation Instructions"
_VIDEO = "9.7.18 Video Instructions"
_MISC = "9.7.19 Miscellaneous Instructions"

_PURE_OPCODES: dict[str, str] = {
    **{
        op: _INT
        for op in (
            "add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev "
            "bfe bfi bmsk szext dp4a dp2a"
        ).split()
    },
    **{op: _EXT for op in ("addc", "subc", "madc")},
    **{op: _FP for op in "fma rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign testp".split()},
    **{op: _CMP for op in "set setp selp slct".split()},
    **{op: _LOGIC for op in "and or xor not cnot lop3 shf shl shr".split()},
    # mov/cvt of a special register is judged by the register (SPECIAL_REGISTERS).
    **{op: _MOVE for op in "mov prmt cvt cvta isspacep mapa getctarank createpolicy".split()},
    **{
        op: _VIDEO
        for op in (
            "vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 "
            "vmin2 vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4"
        ).split()
    },
    # Register-to-register warp MMA: collective, but a function of the registers (RULES.md:
    # `mma.sync` on registers must not be flagged as needing volatile).
    "mma": _MMA,
    "wmma.mma": _MMA,
    "movmatrix": _MMA,
    # Textures are read-only while a kernel runs; the query instructions read descriptors.
    "tex": _TEX,
    "tld4": _TEX,
    "txq": _TEX,
    "istypep": _TEX,
    "suq": _SURF,
    # A branch inside the template changes nothing outside it.
    "bra": _CTRL,
}

_SIDE = Effects(side_effect=True, writes=Writes.NONE)

EFFECTS: dict[str, Effects] = {
    **{op: _pure(isa) for op, isa in _PURE_OPCODES.items()},
    # ---- loads and stores (9.7.9 Data Movement and Conversion Instructions)
    "ld": Effects(memory="read", isa=_MOVE + ": ld"),
    # Read-only data: no C++ store can change it while the kernel runs.
    "ld.global.nc": Effects(isa=_MOVE + ": ld.global.nc (read-only, non-coherent)"),
    "ld.const": Effects(isa="5.1.3 Constant State Space; " + _MOVE + ": ld"),
    "ld.param": Effects(isa="5.1.6 Parameter State Space; " + _MOVE + ": ld"),
    "ldu": Effects(isa=_MOVE + ": ldu (load read-only, uniform)"),
    "st": Effects(side_effect=True, memory="write", writes=Writes.NONE, isa=_MOVE + ": st"),
    "st.async": Effects(
        side_effect=True,
        memory="write",
        asynchronous=True,
        async_proxy=True,
        writes=Writes.NONE,
        isa=_MOVE + ": st.async",
    ),
    "st.bulk": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_MOVE + ": st.bulk"
    ),
    "multimem.ld_reduce": Effects(memory="read", isa=_MOVE + ": multimem.ld_reduce"),
    "multimem.st": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_MOVE + ": multimem.st"
    ),
    "multimem.red": Effects(
        side_effect=True, memory="readwrite", writes=Writes.NONE, isa=_MOVE + ": multimem.red"
    ),
    "prefetch": Effects(side_effect=True, writes=Writes.NONE, isa=_MOVE + ": prefetch"),
    "prefetchu": Effects(side_effect=True, writes=Writes.NONE, isa=_MOVE + ": prefetchu"),
    "applypriority": Effects(side_effect=True, writes=Writes.NONE, isa=_MOVE + ": applypriority"),
    # discard leaves the cache line's contents undefined: a write as far as C++ is concerned.
    "discard": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_MOVE + ": discard"
    ),
    "ldmatrix": Effects(memory="read", collective=True, isa=_MOVE + ": ldmatrix"),
    "stmatrix": Effects(
        side_effect=True,
        memory="write",
        collective=True,
        writes=Writes.NONE,
        isa=_MOVE + ": stmatrix",
    ),
    # cp.async: reads global, writes shared, completes later.
    "cp": Effects(
        side_effect=True,
        memory="readwrite",
        asynchronous=True,
        async_proxy=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.bulk, cp.reduce.async.bulk",
    ),
    # "cp.async is treated as a weak memory operation in the Memory Consistency Model": the
    # generic proxy, completed by cp.async.wait_group / an mbarrier
    "cp.async": Effects(
        side_effect=True,
        memory="readwrite",
        asynchronous=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async",
    ),
    "cp.async.bulk": Effects(
        side_effect=True,
        memory="readwrite",
        asynchronous=True,
        async_proxy=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.bulk",
    ),
    # A commit only closes a group of the asynchronous operations issued before it: it reads,
    # writes and orders no memory (the ISA gives it no memory semantics; the issue and the wait
    # are the statements C++ accesses must not cross). Likewise the other commit_groups.
    "cp.async.commit_group": Effects(
        side_effect=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.commit_group",
    ),
    "cp.async.wait_group": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.wait_group",
    ),
    "cp.async.wait_all": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.wait_all",
    ),
    "cp.async.bulk.commit_group": Effects(
        side_effect=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.bulk.commit_group",
    ),
    "cp.async.bulk.wait_group": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_MOVE + ": cp.async.bulk.wait_group",
    ),
    "cp.async.bulk.prefetch": Effects(
        side_effect=True, writes=Writes.NONE, isa=_MOVE + ": cp.async.bulk.prefetch"
    ),
    "cp.async.mbarrier.arrive": Effects(
        side_effect=True,
        memory="readwrite",
        orders_memory=True,
        writes=Writes.NONE,
        isa=_SYNC + ": cp.async.mbarrier.arrive",
    ),
    "tensormap.replace": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_MOVE + ": tensormap.replace"
    ),
    # reads the tensor map at the address to answer (PTX ISA 9.5)
    "tensormap.query": Effects(memory="read", isa=_MOVE + ": tensormap.query"),
    "tensormap.cp_fenceproxy": Effects(
        side_effect=True,
        memory="readwrite",
        orders_memory=True,
        writes=Writes.NONE,
        isa=_SYNC + ": tensormap.cp_fenceproxy",
    ),
    # ---- surfaces (9.7.11): writable global memory behind a descriptor
    "suld": Effects(memory="read", isa=_SURF + ": suld"),
    "sust": Effects(side_effect=True, memory="write", writes=Writes.NONE, isa=_SURF + ": sust"),
    "sured": Effects(
        side_effect=True, memory="readwrite", writes=Writes.NONE, isa=_SURF + ": sured"
    ),
    # ---- control flow (9.7.12)
    "call": Effects(
        side_effect=True, memory="readwrite", writes=Writes.UNKNOWN, isa=_CTRL + ": call"
    ),
    "brx": Effects(side_effect=True, writes=Writes.NONE, isa=_CTRL + ": brx.idx"),
    "ret": Effects(side_effect=True, writes=Writes.NONE, isa=_CTRL + ": ret"),
    "exit": Effects(side_effect=True, writes=Writes.NONE, isa=_CTRL + ": exit"),
    # ---- synchronization and communication (9.7.13)
    "bar": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": bar, barrier"
    ),
    "barrier": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": bar, barrier"
    ),
    "bar.red": Effects(
        side_effect=True, orders_memory=True, collective=True, isa=_SYNC + ": bar.red"
    ),
    "barrier.red": Effects(
        side_effect=True, orders_memory=True, collective=True, isa=_SYNC + ": bar.red"
    ),
    "barrier.cta.red": Effects(
        side_effect=True, orders_memory=True, collective=True, isa=_SYNC + ": bar.red"
    ),
    "bar.warp": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": bar.warp.sync"
    ),
    "membar": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": membar, fence"
    ),
    "fence": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": membar, fence"
    ),
    "atom": Effects(side_effect=True, memory="readwrite", isa=_SYNC + ": atom"),
    "red": Effects(side_effect=True, memory="readwrite", writes=Writes.NONE, isa=_SYNC + ": red"),
    "red.async": Effects(
        side_effect=True,
        memory="readwrite",
        asynchronous=True,
        async_proxy=True,
        writes=Writes.NONE,
        isa=_SYNC + ": red.async",
    ),
    "vote": Effects(side_effect=True, collective=True, isa=_SYNC + ": vote"),
    "match": Effects(side_effect=True, collective=True, isa=_SYNC + ": match.sync"),
    "activemask": Effects(side_effect=True, collective=True, isa=_SYNC + ": activemask"),
    "redux": Effects(side_effect=True, collective=True, isa=_SYNC + ": redux.sync"),
    "elect": Effects(side_effect=True, collective=True, isa=_SYNC + ": elect.sync"),
    "shfl": Effects(side_effect=True, collective=True, isa=_MOVE + ": shfl.sync"),
    "griddepcontrol": Effects(side_effect=True, writes=Writes.NONE, isa=_SYNC + ": griddepcontrol"),
    # Waits until the prerequisite grids completed and their memory operations are visible.
    "griddepcontrol.wait": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_SYNC + ": griddepcontrol",
    ),
    "mbarrier": Effects(
        side_effect=True, memory="readwrite", orders_memory=True, isa=_SYNC + ": mbarrier"
    ),
    "mbarrier.test_wait": Effects(
        side_effect=True, memory="read", orders_memory=True, isa=_SYNC + ": mbarrier.test_wait"
    ),
    "mbarrier.try_wait": Effects(
        side_effect=True, memory="read", orders_memory=True, isa=_SYNC + ": mbarrier.try_wait"
    ),
    "mbarrier.init": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_SYNC + ": mbarrier.init"
    ),
    "mbarrier.inval": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_SYNC + ": mbarrier.inval"
    ),
    "mbarrier.expect_tx": Effects(
        side_effect=True,
        memory="readwrite",
        writes=Writes.NONE,
        isa=_SYNC + ": mbarrier.expect_tx",
    ),
    "mbarrier.complete_tx": Effects(
        side_effect=True,
        memory="readwrite",
        writes=Writes.NONE,
        isa=_SYNC + ": mbarrier.complete_tx",
    ),
    # Decodes a state value held in a register: pure.
    "mbarrier.pending_count": Effects(isa=_SYNC + ": mbarrier.pending_count"),
    # Whether the barrier has the layout mbarrier.init gave it, which nothing changes after: a
    # function of the address (CCCL mbarrier_check_layout.h: no volatile, no clobber).
    "mbarrier.check_layout": Effects(isa=_SYNC + ": mbarrier.check_layout"),
    # PTX ISA 9.3: submit hands the fabric operations issued so far to the fabric, and wait
    # waits until they have read their sources (CCCL fabric_submit.h, fabric_wait.h: volatile,
    # with a "memory" clobber); 9.5's submit.commit_group only closes a group, as
    # cp.async.bulk.commit_group does (no clobber in CCCL)
    "fabric": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_SYNC + ": fabric"
    ),
    "fabric.submit.commit_group": Effects(
        side_effect=True, writes=Writes.NONE, isa=_SYNC + ": fabric.submit"
    ),
    # The copies, reductions and atomics over the fabric: issued here, performed by the fabric
    # and completed on an mbarrier (the transaction count, ".mbarrier::complete_tx") that C++
    # waits on, as for the bulk copies; what they touch of this GPU is the CTA's shared memory
    # (the source of a put, a reduction or an atomic's operand; the destination of a get, a
    # pull-reduction and an atomic's old value). The fabric is a proxy of its own
    # (fence.proxy.generic::fabric), not the async proxy.
    **{
        f"fabric.{op}": Effects(
            side_effect=True, memory=memory, asynchronous=True, writes=Writes.NONE,
            isa=_SYNC + f": fabric.{op}",
        )
        for op, memory in (("try_put", "read"), ("try_red", "read"), ("try_get", "write"),
                           ("try_pullred", "write"), ("try_atom", "readwrite"))
    },
    "clusterlaunchcontrol.try_cancel": Effects(
        side_effect=True,
        memory="write",
        writes=Writes.NONE,
        isa=_SYNC + ": clusterlaunchcontrol.try_cancel",
    ),
    "clusterlaunchcontrol.query_cancel": Effects(isa=_SYNC + ": clusterlaunchcontrol.query_cancel"),
    # ---- matrix pipelines (9.7.14 - 9.7.16)
    "wmma.load": Effects(memory="read", collective=True, isa=_MMA + ": wmma.load"),
    "wmma.store": Effects(
        side_effect=True,
        memory="write",
        collective=True,
        writes=Writes.NONE,
        isa=_MMA + ": wmma.store",
    ),
    "wgmma": Effects(
        side_effect=True,
        memory="read",
        collective=True,
        asynchronous=True,
        async_proxy=True,
        isa=_WGMMA + ": wgmma.mma_async",
    ),
    "wgmma.fence": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_WGMMA + ": wgmma.fence"
    ),
    "wgmma.commit_group": Effects(
        side_effect=True,
        writes=Writes.NONE,
        isa=_WGMMA + ": wgmma.commit_group",
    ),
    "wgmma.wait_group": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_WGMMA + ": wgmma.wait_group",
    ),
    # tcgen05 (PTX ISA 9.7.16; the memory consistency model of its section 9.7.16.6). Tensor
    # memory is no memory C++ can name: no C++ load or store reaches it, so the compiler never
    # holds a value of it in a register, and a "memory" clobber (GCC's contract: memory the
    # compiler can see may change) neither orders nor protects it. An access of tensor memory
    # alone is therefore ``memory=""`` here, and only a side effect: the value a tcgen05.ld
    # reads depends on when it runs (the MMAs, copies and stores write it), and the
    # instructions that write it must neither be deleted nor merged. What tcgen05 does to memory
    # C++ can see is the ISA's list: tcgen05.alloc's store of the address to shared memory (a
    # weak store of the generic proxy, "Tensor Memory Allocation and Management"), the mbarrier
    # tcgen05.commit arrives on (in the generic proxy, when the tracked operations complete),
    # and the shared-memory matrices tcgen05.mma and tcgen05.cp read through descriptors (in
    # the async proxy, "Shared Memory Accesses"). A sub-instruction the table does not list
    # keeps the family's conservative catch-all.
    "tcgen05": Effects(side_effect=True, memory="readwrite", writes=Writes.NONE, isa=_TCGEN05),
    "tcgen05.alloc": Effects(
        side_effect=True, memory="write", writes=Writes.NONE, isa=_TCGEN05 + ": tcgen05.alloc"
    ),
    # only the allocation state of tensor memory: no operand in memory
    **{
        f"tcgen05.{op}": Effects(
            side_effect=True, writes=Writes.NONE, isa=f"{_TCGEN05}: tcgen05.{op}"
        )
        for op in ("dealloc", "relinquish_alloc_permit")
    },
    "tcgen05.commit": Effects(
        side_effect=True,
        memory="readwrite",
        asynchronous=True,
        writes=Writes.NONE,
        isa=_TCGEN05 + ": tcgen05.commit",
    ),
    # between tensor memory and registers, completed at tcgen05.wait::ld / ::st
    "tcgen05.ld": Effects(side_effect=True, asynchronous=True, isa=_TCGEN05 + ": tcgen05.ld"),
    "tcgen05.ld.red": Effects(
        side_effect=True,
        asynchronous=True,
        writes=Writes.FIRST_TWO,
        isa=_TCGEN05 + ": tcgen05.ld",
    ),
    **{
        f"tcgen05.{op}": Effects(
            side_effect=True, asynchronous=True, writes=Writes.NONE,
            isa=f"{_TCGEN05}: tcgen05.{op}",
        )
        for op in ("st", "shift")
    },
    # shared memory read through the descriptors into tensor memory, completion through
    # tcgen05.commit
    **{
        f"tcgen05.{op}": Effects(
            side_effect=True,
            memory="read",
            asynchronous=True,
            async_proxy=True,
            writes=Writes.NONE,
            isa=f"{_TCGEN05}: tcgen05.{op}",
        )
        for op in ("mma", "cp")
    },
    # Neither accesses memory. A wait is where the tcgen05.ld results a C++ store may write out
    # become valid (as cp.async.wait_group is for its copies). A fence orders the asynchronous
    # tcgen05 operations before it (::before_thread_sync) or after it (::after_thread_sync)
    # against the "execution ordering instructions" beside it (PTX ISA 9.7.16.6.3 and
    # tcgen05.fence): morally strong ld/st/atom, mbarrier and barrier instructions, the ISA's
    # example an `st.relaxed` of a flag in generic memory. Those may be C++'s own (an atomic,
    # a volatile access, a cuda::barrier), and the fence works only where it stays on its side
    # of them: a code-motion fence against memory operations the compiler can see, which is
    # what the "memory" clobber pins an asm statement with. So both order memory, as every
    # wait and fence of the table does, though neither orders a generic access by itself.
    "tcgen05.wait": Effects(
        side_effect=True, orders_memory=True, writes=Writes.NONE, isa=_TCGEN05 + ": tcgen05.wait"
    ),
    "tcgen05.fence": Effects(
        side_effect=True,
        orders_memory=True,
        writes=Writes.NONE,
        isa=_TCGEN05 + ": tcgen05.fence",
    ),
    # ---- stack (9.7.17) and miscellaneous (9.7.19)
    "stacksave": Effects(side_effect=True, isa=_STACK + ": stacksave"),
    "stackrestore": Effects(side_effect=True, writes=Writes.NONE, isa=_STACK + ": stackrestore"),
    "alloca": Effects(side_effect=True, isa=_STACK + ": alloca"),
    "trap": Effects(side_effect=True, writes=Writes.NONE, isa=_MISC + ": trap"),
    "brkpt": Effects(side_effect=True, writes=Writes.NONE, isa=_MISC + ": brkpt"),
    "pmevent": Effects(side_effect=True, writes=Writes.NONE, isa=_MISC + ": pmevent"),
    "nanosleep": Effects(side_effect=True, writes=Writes.NONE, isa=_MISC + ": nanosleep"),
    "setmaxnreg": Effects(side_effect=True, writes=Writes.NONE, isa=_MISC + ": setmaxnreg"),
}

# Patterns split once: opcode -> [(first modifier, further words, effects)], most specific first.
_Entry = tuple[str | None, frozenset[str], Effects]
_BY_OPCODE: dict[str, list[_Entry]] = {}
for _pattern, _effects in EFFECTS.items():
    _opcode, *_words = _pattern.split(".")
    _first = _words[0] if _words else None
    _BY_OPCODE.setdefault(_opcode, []).append((_first, frozenset(_words[1:]), _effects))
for _entries in _BY_OPCODE.values():
    _entries.sort(key=lambda entry: -(len(entry[1]) + (entry[0] is not None)))


def lookup(opcode: str, modifiers: tuple[str, ...] = ()) -> Effects | None:
    """The effects of ``opcode`` with ``modifiers`` (in instruction order), or ``None`` for an
    opcode not in the table; with the instruction's memory-ordering semantics (``ordering``)
    applied, whatever order its modifiers are written in (``ld.global.acquire.gpu`` is as
    much an acquire load as ``ld.acquire.gpu.global``)."""
    key = (opcode, modifiers)
    if key in _LOOKED_UP:
        return _LOOKED_UP[key]
    found = _table_lookup(opcode, modifiers)
    if found is not None:
        found = _with_ordering(found, ordering(opcode, modifiers))
    if len(_LOOKED_UP) >= 8192:
        _LOOKED_UP.clear()
    _LOOKED_UP[key] = found
    return found


_LOOKED_UP: dict[tuple[str, tuple[str, ...]], Effects | None] = {}


def _table_lookup(opcode: str, modifiers: tuple[str, ...]) -> Effects | None:
    entries = _BY_OPCODE.get(opcode)
    if entries is None:
        return None
    first = modifiers[0] if modifiers else None
    # a '::' qualifier names a form of the word it qualifies: tcgen05.wait::ld is a
    # tcgen05.wait, tcgen05.fence::before_thread_sync a tcgen05.fence
    head = first.partition("::")[0] if first else None
    rest = frozenset(modifiers[1:])
    for pattern_first, words, effects in entries:
        if pattern_first is None or (pattern_first in (first, head) and words <= rest):
            return effects
    return None


# --------------------------------------------------------------------------- memory ordering


_SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio")
_SCOPES = ("cta", "cluster", "gpu", "sys")
_ORDER_ISA = "8 Memory Consistency Model"


class Ordering(NamedTuple):
    """The memory-ordering semantics of one instruction (PTX ISA "Memory Consistency Model",
    and the ``ld``, ``st``, ``atom``, ``red``, ``fence``/``membar``, ``mbarrier`` and
    ``barrier.cluster`` sections that name each qualifier's default).

    ``sem``: ``weak`` (no synchronization: its effects become visible to other threads only
    through other synchronization), ``relaxed``, ``acquire``, ``release``, ``acq_rel``, ``sc``,
    ``volatile`` (``ld.volatile``/``st.volatile``: "equivalent to a relaxed memory operation
    with system-scope", and the number of volatile instructions is preserved: "volatile
    Operation") or ``mmio`` (``ld.mmio``/``st.mmio``: the number of operations is strictly
    preserved). The model "does not apply to texture (including ``ld.global.nc``) and surface
    accesses": those have no ordering here. Every one but ``weak`` is a *strong* operation:
    it exists to observe, or to be observed by, another thread while both run. ``scope``:
    ``cta``, ``cluster``, ``gpu``, ``sys``, or ``""`` where none applies (a weak access)."""

    sem: str
    scope: str
    kind: str  # "load" | "store" | "atomic" | "copy" | "fence" | "barrier"

    @property
    def strong(self) -> bool:
        return self.sem != "weak"

    @property
    def acquires(self) -> bool:
        """Orders the memory accesses after it (program order) after it."""
        return self.sem in ("acquire", "acq_rel", "sc")

    @property
    def releases(self) -> bool:
        """Orders the memory accesses before it (program order) before it."""
        return self.sem in ("release", "acq_rel", "sc")

    def describe(self) -> str:
        """``an acquire load at .gpu scope``, ``a weak store``, ``a volatile load``..."""
        sem = {"acq_rel": "acquire-release", "sc": "sequentially consistent",
               "mmio": "MMIO"}.get(self.sem, self.sem)
        article = "an" if sem[0] in "aeiouAEIOUM" else "a"
        scope = f" at .{self.scope} scope" if self.scope and self.sem not in ("weak",) else ""
        return f"{article} {sem} {self.kind}{scope}"


def _sem_scope(modifiers: tuple[str, ...], default_sem: str, default_scope: str
               ) -> tuple[str, str]:
    words = set(modifiers)
    sem = next((s for s in _SEMS if s in words), default_sem)
    if sem == "mmio" or (sem == "relaxed" and "mmio" in words):
        return "mmio", "sys"
    if sem == "volatile":
        return "volatile", "sys"  # the ISA: .volatile has the semantics of .relaxed.sys
    scope = next((s for s in _SCOPES if s in words), "")
    if sem == "weak":
        return sem, ""
    return sem, scope or default_scope


_MEMBAR_SCOPE = {"cta": "cta", "gl": "gpu", "sys": "sys"}


def ordering(opcode: str, modifiers: tuple[str, ...]) -> Ordering | None:
    """The memory-ordering semantics of the instruction, or ``None`` for one that has none
    (arithmetic, read-only loads, the asynchronous proxies' bulk copies, whose completion
    mechanism orders them)."""
    words = set(modifiers)
    if opcode in ("ld", "st"):
        if opcode == "ld" and words & {"nc", "const", "param"}:
            return None  # read-only data: nothing another thread writes while it runs
        if words & {"async", "bulk"}:
            return None  # st.async / st.bulk: completed through an mbarrier or a wait
        sem, scope = _sem_scope(modifiers, "weak", "")
        return Ordering(sem, scope, "load" if opcode == "ld" else "store")
    if opcode == "cp" and modifiers[:1] == ("async",) and not words & {
            "bulk", "commit_group", "wait_group", "wait_all", "mbarrier"}:
        return Ordering("weak", "", "copy")  # "treated as a weak memory operation" (cp.async)
    if opcode == "multimem":
        sub = modifiers[0] if modifiers else ""
        if sub == "ld_reduce":
            return Ordering(*_sem_scope(modifiers, "weak", ""), "load")
        if sub == "st":
            return Ordering(*_sem_scope(modifiers, "weak", ""), "store")
        if sub == "red":
            return Ordering(*_sem_scope(modifiers, "relaxed", "sys"), "atomic")
        return None
    if opcode in ("atom", "red"):
        if "async" in words:
            return None
        # .sem absent: .relaxed; .scope absent: .gpu (PTX ISA: atom, red)
        return Ordering(*_sem_scope(modifiers, "relaxed", "gpu"), "atomic")
    if opcode == "fence":
        if words & {"proxy", "mbarrier_init"} or any(m.startswith("proxy") for m in words):
            return None  # proxy fences order between proxies, not threads
        sem, scope = _sem_scope(modifiers, "acq_rel", "")
        return Ordering(sem, scope, "fence")
    if opcode == "membar":
        level = next((_MEMBAR_SCOPE[m] for m in modifiers if m in _MEMBAR_SCOPE), "")
        return Ordering("sc", level, "fence") if level else None
    if opcode == "mbarrier":
        sub = modifiers[0] if modifiers else ""
        if sub in ("arrive", "arrive_drop"):
            return Ordering(*_sem_scope(modifiers, "release", "cta"), "barrier")
        if sub in ("test_wait", "try_wait"):
            return Ordering(*_sem_scope(modifiers, "acquire", "cta"), "barrier")
        return None
    if opcode == "barrier" and modifiers[:1] == ("cluster",):
        if "arrive" in words:
            return Ordering(*_sem_scope(modifiers, "release", "cluster"), "barrier")
        if "wait" in words:
            return Ordering(*_sem_scope(modifiers, "acquire", "cluster"), "barrier")
    return None


def _with_ordering(effects: Effects, order: Ordering | None) -> Effects:
    """The table's effects with what the ordering adds: a strong load reads what another
    thread writes while it runs, so where and how often it runs is observable (a side effect:
    no hoisting, merging or deleting); an acquiring or releasing operation orders the memory
    accesses around it."""
    if order is None:
        return effects
    side_effect = effects.side_effect
    orders_memory = effects.orders_memory
    if order.kind == "load" and effects.memory and order.strong:
        side_effect = True
    if order.acquires or order.releases:
        orders_memory = True
    elif order.kind == "barrier":
        orders_memory = False  # `mbarrier.try_wait.relaxed`, `barrier.cluster.arrive.relaxed`
    if order.kind in ("load", "store", "atomic") and not effects.memory:
        return effects  # a read-only load: the table already says nothing can change it
    if (side_effect, orders_memory, order) == (effects.side_effect, effects.orders_memory,
                                               effects.ordering):
        return effects
    key = (id(effects), side_effect, orders_memory, order)
    made = _ORDERED.get(key)
    if made is None:
        if len(_ORDERED) >= 1024:
            _ORDERED.clear()
        made = _ORDERED[key] = effects._replace(side_effect=side_effect,
                                                orders_memory=orders_memory, ordering=order)
    return made


# A table entry with an ordering applied, by (the entry's identity, what the ordering sets): a
# function of those, and the spellings of one family mostly share them (``ld``/``st``'s
# caching, vector and type words change nothing here), where ``dataclasses.replace`` made one
# per spelling. The effects of the CUDA 13 headers' 2,819 spellings from a cold memo: 12.7-12.8
# -> 8.9-9.2 ms of CPU (best of 9, three runs alternated; CUTLASS's 1,824: 2.4 ms either way).
# The entries are the table's, which lives as long as the process, so their ids stay theirs;
# at most a few hundred keys (sems x scopes x kinds: 101 on the CUDA headers), cleared if full.
_ORDERED: dict[tuple[int, bool, bool, Ordering], Effects] = {}


# --------------------------------------------------------------------------- written operands


_AGGREGATE_DESTINATIONS = ("vector", "pair")


def _flatten_destination(operand: PtxOperand) -> list[PtxOperand]:
    if operand.kind not in _AGGREGATE_DESTINATIONS:
        return [operand]
    out: list[PtxOperand] = []
    for part in operand.parts:  # a wgmma's accumulator: 128 plain registers, no recursion
        if part.kind in _AGGREGATE_DESTINATIONS:
            out.extend(_flatten_destination(part))
        else:
            out.append(part)
    return out


def _add_destination(operand: PtxOperand, out: list[PtxOperand]) -> None:
    """``_flatten_destination(operand)`` without its addresses, appended to ``out``: one pass
    over a wgmma's 128 accumulators where a flattened list and a filtered copy of it were two
    (the grammar's written operands: every instruction the data-flow rules follow). The
    destinations of every instruction of CUTLASS's include/: 28-29 ms -> 25-26 ms of CPU. A
    vector whose text spells no nested aggregate or address is its parts, taken in one
    ``extend`` (one C-level scan of its text decides): 22.1-24.0 -> 15.8-17.7 ms (best of 9,
    three runs alternated; the CUDA headers' 12.2-13.6 ms unchanged)."""
    if operand.kind not in _AGGREGATE_DESTINATIONS:
        if operand.kind != "address":
            out.append(operand)
        return
    text = operand.text
    if "[" not in text and "|" not in text and text.count("{") <= 1:
        # no part is an address, a pair or a vector: those are spelled with a bracket, a bar
        # or a brace, and the text holds every such character the parser read
        out.extend(operand.parts)
        return
    for part in operand.parts:
        kind = part.kind
        if kind in _AGGREGATE_DESTINATIONS:
            _add_destination(part, out)
        elif kind != "address":
            out.append(part)


def written_operands(instruction: PtxInstruction) -> list[PtxOperand] | None:
    """The register operands ``instruction`` writes, or ``None`` when that is not known.

    An address (``[...]``) in first position is never a destination, whatever the table says.
    A modifier written apart from the opcode (``prmt .b32 %0, ...``, which ptxas accepts) leaves
    the operand list unreliable: ``None``; so does an operand count that no form of the
    instruction takes (``add.u32 %0 %1, %2;``).

    A pure function of the (immutable) instruction, memoised by identity: the data-flow rules
    and ``flow`` ask it of every instruction several times, and the engine shares one parse
    between the statements that spell a template. Each caller gets its own list.
    """
    written = written_tuple(instruction)
    return None if written is None else list(written)


def written_tuple(instruction: PtxInstruction) -> tuple[PtxOperand, ...] | None:
    """``written_operands``, the memo's own tuple: for a reader that keeps no list of its own
    (``flow`` walks a wgmma's 128 destinations once per template, and copied them first)."""
    known = _WRITTEN.get(id(instruction))
    if known is not None and known[0] is instruction:
        return known[1]
    written = _written_operands(instruction)
    if len(_WRITTEN) >= _WRITTEN_MAX:
        _WRITTEN.clear()
    _WRITTEN[id(instruction)] = (instruction, written)  # held, so the id stays its own
    return written


# Destinations by instruction identity; bounded, as the keys hold instructions.
_WRITTEN: dict[int, tuple[PtxInstruction, tuple[PtxOperand, ...] | None]] = {}
_WRITTEN_MAX = 4096


def _written_operands(instruction: PtxInstruction) -> tuple[PtxOperand, ...] | None:
    if instruction.opaque:
        return None
    for operand in instruction.operands:  # a loop: a generator per instruction cost more
        if operand.text.startswith("."):
            return None
    positions = _grammar_written(instruction)
    if positions is not None:
        counts = grammar.operand_counts(instruction.opcode, instruction.modifiers)
        if counts is not None and not counts[0] <= len(instruction.operands) <= counts[1] \
                and not any(o.kind == "opaque" for o in instruction.operands):
            # an operand count no form takes (`add.u32 %0 %1, %2;`, a comma missing): which
            # operand is the destination is anyone's guess (PTX207 reports the count)
            return None
        written: list[PtxOperand] = []
        for position in positions:
            if position < len(instruction.operands):
                _add_destination(instruction.operands[position], written)
        return tuple(written)
    effects = lookup(instruction.opcode, instruction.modifiers)
    if effects is None or effects.writes is Writes.UNKNOWN:
        return None
    if effects.writes is Writes.NONE or not instruction.operands:
        return ()
    count = 2 if effects.writes is Writes.FIRST_TWO else 1
    out: list[PtxOperand] = []
    for operand in instruction.operands[:count]:
        if operand.kind == "address":
            break
        out.extend(_flatten_destination(operand))
    return tuple(out)


def _grammar_written(instruction: PtxInstruction) -> tuple[int, ...] | None:
    """The operand positions the instruction's form writes, when the instruction grammar
    (:mod:`ptxlint.ptx.grammar`) knows the form; ``None`` otherwise (``written_positions``
    answers None for a spelling the grammar does not judge)."""
    return grammar.written_positions(instruction, _unknown_operand)


_UNKNOWN = grammar.OperandClass("unknown")


def _unknown_operand(operand: PtxOperand) -> grammar.OperandClass:
    return _UNKNOWN


def written_refs(instruction: PtxInstruction) -> set[int] | None:
    """The ``%N`` operand indices ``instruction`` writes, or ``None`` when not known."""
    written = written_operands(instruction)
    if written is None:
        return None
    return {o.ref for o in written if o.kind == "ref" and o.ref is not None}
