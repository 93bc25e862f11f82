"""Predicates a template computes and drops, and the output that was meant to receive one.

A predicate cannot leave an asm statement by itself: an instruction must move it into an output
(``selp.b32 %0, 1, 0, p;``). A predicate declared inside the template's braces that an
instruction writes and nothing reads (no ``@p`` guard, no ``selp``/``and``/``not`` that takes
it) is a lost result (PTX208's finding).

Where, beside that one lost predicate, exactly one write-only integer output is written by no
instruction, the two are one defect seen from both sides: the instruction that moved the
predicate into the output is missing (a ``try_wait`` loop whose ``selp`` was deleted). Its
"never referenced" (PTX009) or "never written" (PTX104) is the echo; PTX208's finding names the
output and the instruction it lacks (:func:`lost_result`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ptxlint.analysis.operand_access import register_operand, written_indices
from ptxlint.model import AsmStatement, Operand, PtxInstruction
from ptxlint.ptx.operand_roles import destinations, leaves
from ptxlint.ptx.scopes import braces_known

__all__ = ["LostPredicate", "lost_predicates", "lost_result"]


class LostPredicate(NamedTuple):
    """Predicate ``name``, declared in the template, last written by ``instruction`` and never
    read."""

    name: str
    instruction: PtxInstruction


# The selp type that moves a predicate into a register of each letter: an integer flag, or a
# choice between two values (``selp.f32 %0, a, b, p;``: the ISA's selp takes .f32 and .f64).
SELP_TYPES = {"h": "b16", "r": "b32", "l": "b64", "f": "f32", "d": "f64"}

# Instructions whose predicate result is a function of their sources alone; elect.sync's or
# mbarrier.test_wait's is not, even from immediates.
_PURE = frozenset({"setp", "mov", "and", "or", "xor", "not", "selp"})


def lost_predicates(
    statement: AsmStatement, unspelled: Callable[[PtxInstruction], bool]
) -> tuple[LostPredicate, ...]:
    """The predicates declared inside the template's braces that an instruction writes and no
    instruction reads, in the order of their declarations. ``unspelled``: whether no form
    spells an instruction (PTX204, PTX207: what it writes is moot, one defect is one finding).

    Left out: a predicate declared at the top level or in braces a later statement closes
    (another statement may read it), one written last from immediates only (``setp.ne.b32 p1,
    1, 0;``: a generator's placeholder, dead rather than lost), the unread half of a ``p|q``
    pair whose other half is read (:func:`_partner_read`), ``p<4>`` ranges, and any statement
    with a hole in its template (the hole may read it)."""
    ptx = statement.ptx
    declared: dict[str, int] = {}
    for directive in ptx.directives:
        if directive.depth >= 1 and ".pred" in directive.text.split():
            for name in directive.declared:
                if "<" not in name:  # p<4> declares p0..p3: not followed here
                    declared.setdefault(name, directive.start)
    if not declared or not braces_known(statement):  # they die with the statement
        return ()
    # Only the declared predicates are followed (a wgmma's 128 registers and its other
    # operands are never one): reads, writes and constant writes of other names are not kept,
    # and whether an instruction computes from immediates only is asked only where it writes
    # a declared predicate.
    written: dict[str, PtxInstruction] = {}
    # the declared predicates each instruction writes (by its identity): the two halves of a
    # `p|q` pair are one comparison's results
    together: dict[int, list[str]] = {}
    constant: set[str] = set()  # written last from immediates only
    read: set[str] = set()
    for instruction in ptx.instructions:
        if instruction.opaque:
            return ()  # a hole may read it
        if instruction.predicate is not None:
            read.add(instruction.predicate.register.text)
        # the destinations the data-flow rules read (``operand_roles``, the grammar's written
        # positions first); none known (an unknown opcode, a `call`) counts every operand as
        # read
        written_here = destinations(instruction) or ()
        # Of them, those that may spell a declared predicate (``!`` aside): only these can be a
        # declared name's write, and only a declared name's read is told from them. A wgmma's
        # 128 destinations spell none: one pass over their texts.
        mine = [d for d in written_here if d.text in declared or "!" in d.text]
        taken = {id(d) for d in mine}
        for operand in instruction.operands:
            if not operand.parts:
                name = operand.text.lstrip("!")
                if name in declared and id(operand) not in taken:
                    read.add(name)
            elif any(name in operand.text for name in declared):
                read.update(part.text.lstrip("!") for part in leaves(operand)
                            if id(part) not in taken)
            # else no part spells a declared predicate (a wgmma's 128 registers)
        from_constants: bool | None = None  # asked of the first declared one written
        for operand in mine:
            if operand.text not in declared:
                continue
            written[operand.text] = instruction  # the last write is the one lost
            together.setdefault(id(instruction), []).append(operand.text)
            if from_constants is None:
                # every destination is no source, whatever it spells
                from_constants = _from_immediates(instruction, {id(d) for d in written_here})
            if from_constants:
                constant.add(operand.text)
            else:
                constant.discard(operand.text)
    lost = [
        LostPredicate(name, instruction) for name, instruction in written.items()
        if name not in read and name not in constant and not unspelled(instruction)
        and not _partner_read(name, instruction, together, written, read)
    ]
    lost.sort(key=lambda p: declared[p.name])
    return tuple(lost)


def _partner_read(
    name: str, instruction: PtxInstruction, together: dict[int, list[str]],
    written: dict[str, PtxInstruction], read: set[str],
) -> bool:
    """Whether ``instruction``, the last writer of ``name``, writes another declared predicate
    that is read and still holds its value: the other half of a `p|q` pair (`setp.lt.s32 p|q`,
    `setp.ltu.f16x2 p|q`, one comparison's two results). The instruction's result is used; the
    unread half is a by-product of its form (the sink `_` would name it), not a lost result."""
    return any(
        other != name and other in read and written.get(other) is instruction
        for other in together.get(id(instruction), ())
    )


def lost_result(
    statement: AsmStatement,
    lost: tuple[LostPredicate, ...],
    claimed: Callable[[Operand], bool],
) -> tuple[LostPredicate, Operand] | None:
    """``(predicate, output)`` where the template loses exactly one predicate and writes
    exactly one write-only output (``=``, not ``+``, a register letter ``h``, ``r``, ``l``,
    ``f`` or ``d`` that ``selp`` can fill) with no instruction: the instruction that moved
    the one into the other is missing. ``claimed``: whether another root already names the
    output (a vector's lacking element, a misdirected write or read, an operand nvcc
    rejects)."""
    if len(lost) != 1 or statement.opaque_sections or not statement.extended:
        return None
    written = written_indices(statement)
    unwritten = [
        o for o in statement.outputs
        if o.index not in written and not o.constraint.opaque
        and "+" not in o.constraint.modifiers
    ]
    if len(unwritten) != 1:
        return None
    (output,) = unwritten
    if (
        not register_operand(output)
        or output.constraint.letters not in SELP_TYPES
        or claimed(output)
    ):
        return None
    return lost[0], output


def _from_immediates(instruction: PtxInstruction, taken: set[int]) -> bool:
    """Whether ``instruction`` computes its result from immediates alone: every leaf it reads
    (the guard apart; ``taken`` holds its destinations' ids) is one, and it reads some."""
    if instruction.opcode not in _PURE:
        return False
    sources = [part for operand in instruction.operands for part in leaves(operand)
               if id(part) not in taken]
    return bool(sources) and all(part.kind == "immediate" for part in sources)
