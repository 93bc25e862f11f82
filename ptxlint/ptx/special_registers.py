"""PTX's special registers (PTX ISA section 10): ``%clock``, ``%tid``, ``%laneid`` and the rest,
with what ptxlint knows of each (whether it changes within a thread, the type a ``mov`` of it
has, the target and ISA version that brought it, which ones are vectors), and the names nearest
to one misspelt. A leaf of ``ptxlint.ptx``: the grammar's operand checks read it, and
``effects`` (which imports the grammar) hands it on."""

from __future__ import annotations

import re

from ptxlint.ptx.nearest import edit_distance

__all__ = [
    "SPECIAL_REGISTERS",
    "VECTOR_SPECIAL_REGISTERS",
    "SpecialRegister",
    "nearest_special_registers",
    "special_register",
    "special_register_type",
]

# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class SpecialRegister:
    """What ptxlint knows of a PTX special register (``%clock``, ``%tid``): whether its value may
    change within a thread, the PTX type a read of it has, and the PTX ISA section that says
    so."""

    __slots__ = ("changes", "isa", "type", "component_type", "sm", "ptx")

    def __init__(self, changes: bool, isa: str, type_: str | None,
                 component_type: str | None, sm: int = 0, ptx: int = 0) -> None:
        self.changes = changes  # may read differently at two points of one thread's run
        self.isa = isa
        # the lowest target that has it (ptxas 13.0 for sm_80: "Feature '%clusterid' requires
        # .target sm_90 or higher"), and the PTX ISA version * 10 that brought it; 0: any
        self.sm = sm
        self.ptx = ptx
        # the type a ``mov`` of the register itself must have (ptxas 13.0 measured: "Arguments
        # mismatch" for another size, ``mov.u64 d, %laneid``), or None where ptxas takes
        # several or the register is a vector; ``component_type`` the same for ``.x``..``.w``
        self.type = type_
        self.component_type = component_type


_SREG = "10 Special Registers"


def _sregs(names: str, changes: bool, section: str, type_: str | None = "u32",
           component_type: str | None = None, sm: int = 0, ptx: int = 0
           ) -> dict[str, SpecialRegister]:
    return {n: SpecialRegister(changes, f"{_SREG}: {section}", type_, component_type, sm, ptx)
            for n in names.split()}


# The types are the ISA's (section 10), each measured with ptxas 13.0 against a `mov` of the
# other sizes. Where ptxas takes more than the ISA's type the entry says None: the components
# of %tid, %ntid, %ctaid and %nctaid move into 16-bit registers too (legacy code), and %gridid,
# a .u64, into a 32-bit one.
SPECIAL_REGISTERS: dict[str, SpecialRegister] = {
    # Counters and timers: a new value at every read.
    # (the PTX ISA versions: ptxas 12.4's "Feature '%clock_hi' requires PTX ISA .version 5.0")
    **_sregs("clock", True, "%clock, %clock_hi"),
    **_sregs("clock_hi", True, "%clock, %clock_hi", ptx=50),
    **_sregs("clock64", True, "%clock64", "u64"),
    **_sregs("globaltimer", True, "%globaltimer", "u64", ptx=31),
    **_sregs("globaltimer_lo globaltimer_hi", True, "%globaltimer", ptx=31),
    **_sregs(" ".join(f"pm{i}" for i in range(8)), True, "%pm0..%pm7"),
    **_sregs(" ".join(f"pm{i}_64" for i in range(8)), True, "%pm0_64..%pm7_64", "u64", ptx=40),
    # The ISA calls %smid and %warpid volatile: a thread may be rescheduled after preemption.
    **_sregs("smid", True, "%smid"),
    **_sregs("warpid", True, "%warpid"),
    # Fixed for the thread's (or the launch's) lifetime.
    **_sregs("tid ntid", False, "%tid, %ntid", None),
    **_sregs("laneid", False, "%laneid"),
    **_sregs("nwarpid", False, "%nwarpid"),
    **_sregs("ctaid nctaid", False, "%ctaid, %nctaid", None),
    **_sregs("nsmid", False, "%nsmid"),
    **_sregs("gridid", False, "%gridid", None),
    # The cluster registers (PTX ISA 7.8) and %aggr_smem_size (8.1) exist on sm_90 and newer
    # only: ptxas 13.0 for sm_80 answers "Feature '%cluster_ctarank' requires .target sm_90 or
    # higher" for each.
    **_sregs("is_explicit_cluster", False, "%is_explicit_cluster", "pred", sm=90, ptx=78),
    **_sregs(
        "clusterid nclusterid cluster_ctaid cluster_nctaid",
        False,
        "%clusterid, %cluster_ctaid and their n-counterparts",
        None,
        "u32",
        sm=90,
        ptx=78,
    ),
    **_sregs("cluster_ctarank cluster_nctarank", False, "%cluster_ctarank, %cluster_nctarank",
             sm=90, ptx=78),
    **_sregs("lanemask_eq lanemask_le lanemask_lt lanemask_ge lanemask_gt", False, "%lanemask_*"),
    **_sregs(" ".join(f"envreg{i}" for i in range(32)), False, "%envreg<32>", "b32"),
    **_sregs("total_smem_size dynamic_smem_size", False, "%total_smem_size, %dynamic_smem_size",
             ptx=41),
    **_sregs("aggr_smem_size", False, "%aggr_smem_size", sm=90, ptx=81),
    **_sregs(
        "reserved_smem_offset_begin reserved_smem_offset_end reserved_smem_offset_cap "
        "reserved_smem_offset_0 reserved_smem_offset_1",
        False,
        "%reserved_smem_offset_*",
        "b32",
        sm=80,  # ptxas 12.4 for sm_75: "Feature '%reserved_smem_offset_begin' requires .target
        ptx=76,  # sm_80 or higher", and .version 7.6
    ),
    **_sregs("current_graph_exec", False, "%current_graph_exec", "u64", ptx=80),
}

# The registers that are vectors (``.v4 .u32`` in the ISA), read one element at a time:
# ``%tid.x``..``%tid.w`` (or ``.r``..``.a``; ptxas 13.0 reads ``.w`` as 0). Any other takes no
# element: ``%laneid.x`` is "Unknown field '.x'".
VECTOR_SPECIAL_REGISTERS = frozenset({
    "tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid", "cluster_ctaid",
    "cluster_nctaid"})


def nearest_special_registers(name: str) -> tuple[str, ...]:
    """The special registers (PTX spelling, ``%laneid``) nearest to ``name`` (``%laneId``,
    ``%%warp_id``), a letter's case no edit: those at the least distance, if it is one edit, or
    two in a name of six letters or more (``%tmp`` is two edits from ``%tid`` too, and is a
    register left undeclared)."""
    word = name.lstrip("%").lower()
    by_distance: dict[int, list[str]] = {}
    for known in SPECIAL_REGISTERS:
        if re.fullmatch(r"(?:envreg|pm)[1-9][0-9]*(?:_64)?", known):
            continue  # %envreg0 and %pm0 stand for the rest
        by_distance.setdefault(edit_distance(word, known), []).append("%" + known)
    least = min(by_distance)
    return tuple(by_distance[least]) if least <= (1 if len(word) < 6 else 2) else ()


def special_register_type(operand_text: str) -> str | None:
    """The PTX type a ``mov`` of the special register ``operand_text`` (``%%laneid``,
    ``%clusterid.x``) must have, or None where ptxlint does not know one."""
    base, _, component = operand_text.lstrip("%").partition(".")
    entry = SPECIAL_REGISTERS.get(base)
    if entry is None:
        return None
    return entry.component_type if component else entry.type


def special_register(operand_text: str) -> tuple[str, SpecialRegister | None]:
    """The PTX name of a special-register operand (``%%clock64``, ``%tid.x``) and its entry."""
    name = operand_text.lstrip("%").split(".", 1)[0]
    return name, SPECIAL_REGISTERS.get(name)
