"""What a statement's template does that the optimizer cannot see: the effects that need
``volatile`` (PTX101, PTX505) and those that need a ``"memory"`` clobber (PTX102, PTX505).

The lists here are the template's, shared by the statements that spell it; the rules read them
through the statement's analysis (``StatementAnalysis.side_effects``, ``.memory_effects``),
which leaves out an instruction PTX204 reports as misspelled (``st.glob.u32``): what it does is
unknown until it is spelled right, and its effects would only echo the typo.

An instruction with a hole in it (an f-string field, a macro the front end could not read, an
operand spliced into a modifier: ``st.global.{dtype}``, ``cta_group::%0``) has the effects all
its possible spellings share (:mod:`ptxlint.ptx.hole_effects`): a store whose type is a hole
writes memory. One whose opcode, or whose first modifier, starts with a hole has none here, nor
does a ``call`` with one (its target may be a state read, ``ptx.call_targets``).

A ``call`` of an OptiX intrinsic that reads the program's state has neither kind of effect; one
that reads or writes the ray's payload has an effect but no memory access (``ptx.call_targets``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE, AsmStatement, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.call_targets import keeps_to_payload, reads_program_state
from ptxlint.ptx.effects import Effects, Ordering, lookup, special_register
from ptxlint.ptx.hole_effects import effects_with_holes
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["Effect", "instruction_effects", "memory_effects", "shown_mnemonic", "side_effects"]


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Effect:
    """One reason a template is more than a function of its inputs."""

    __slots__ = ("what", "start", "end", "asynchronous", "position", "ordering", "effects")

    def __init__(
        self, what: str, start: int, end: int, asynchronous: bool = False, position: int = -1,
        ordering: Ordering | None = None, effects: Effects | None = None,
    ) -> None:
        # e.g. "'st.global.u32' writes memory", "'%clock' changes while the thread runs"
        self.what = what
        self.start = start  # template offsets of the piece to point at
        self.end = end
        # Only issues a memory access that the asynchronous proxy performs later (cp.async.bulk,
        # wgmma.mma_async, tcgen05): C++ reaches it through a proxy fence and a wait, separate
        # statements, which is where ordering belongs.
        self.asynchronous = asynchronous
        self.position = position  # the instruction's index in the template
        # the instruction's memory-ordering semantics and kind; None where it has none
        self.ordering = ordering
        # what the instruction does (``instruction_effects``); None for a special register's
        self.effects = effects

    @property
    def sem(self) -> str:
        """``Ordering.sem`` ("weak", "relaxed", "acquire", ...), or "" without an ordering."""
        return self.ordering.sem if self.ordering is not None else ""

    @property
    def kind(self) -> str:
        """``Ordering.kind`` ("load", "store", "atomic", ...), or "" without an ordering."""
        return self.ordering.kind if self.ordering is not None else ""

    @property
    def acquires(self) -> bool:
        return self.ordering is not None and self.ordering.acquires

    @property
    def releases(self) -> bool:
        return self.ordering is not None and self.ordering.releases

    @property
    def strong_load(self) -> bool:
        """A load that exists to see another thread's write (relaxed, acquire, volatile, MMIO)."""
        return self.ordering is not None and self.ordering.kind == "load" \
            and self.ordering.strong


def _specials(operands: tuple[PtxOperand, ...]) -> Iterator[PtxOperand]:
    for operand in operands:
        if operand.kind == "special":
            yield operand
        yield from _specials(operand.parts)


def shown_mnemonic(instruction: PtxInstruction) -> str:
    """The instruction's mnemonic as a message quotes it: a hole shown as an ellipsis. A run of
    holes is one ellipsis: a token-pasted macro name (``MIXOP_##OP##_##T``) leaves a hole per
    token, and to the reader it is one piece of text the source does not spell."""
    return _HOLES().sub("\u2026", instruction.mnemonic)


_HOLES = on_first_use(f"{HOLE}+")


# an operand spliced into a modifier: extended asm's (``cta_group::%0``, ``%[n]``), LLVM's
# (``$2``, ``${2}``, ``${2:x}``, ``${:uid}``)
_SPLICE = on_first_use(r"%(?:[A-Za-z]?[0-9]+|\[[A-Za-z_][A-Za-z0-9_]*\])"
                     r"|\$(?:[0-9]+|\{[0-9]*(?::\w*)?\})")


def instruction_effects(instruction: PtxInstruction) -> Effects | None:
    """What ``instruction`` does (``ptx.effects.lookup``); for one with a hole in it, what all
    its spellings do (module docstring), or None where that is not known."""
    if not instruction.opaque:
        return lookup(instruction.opcode, instruction.modifiers)
    opcode, modifiers = instruction.opcode, instruction.modifiers
    if opcode == "call" or "%" in opcode or "$" in opcode:
        return None
    if any("%" in m or "$" in m for m in modifiers):
        modifiers = tuple(_SPLICE().sub(HOLE, m) for m in modifiers)
        if any("%" in m or "$" in m for m in modifiers):
            return None
    # a hole between the mnemonic and the operands may hold modifiers
    operands = instruction.operands
    open_tail = bool(operands) and operands[0].text.startswith(HOLE)
    if not open_tail and not any(HOLE in m for m in modifiers):
        return lookup(opcode, modifiers)  # a hole among the operands only
    return effects_with_holes(opcode, modifiers, open_tail)


# Effects by template and list: both lists depend on the template's parse alone, which
# the engine shares between the statements that spell it.
_EFFECTS: TemplateMemo[tuple[Effect, ...]] = TemplateMemo(2048)


def _of_template(
    which: str, ptx: PtxTemplate, compute: Callable[[PtxTemplate], list[Effect]]
) -> list[Effect]:
    return list(_EFFECTS.of(ptx, lambda: tuple(compute(ptx)), which))


def side_effects(statement: AsmStatement) -> list[Effect]:
    """Effects that need ``volatile`` (PTX101's list), of every instruction of the template."""
    return _of_template("side", statement.ptx, _side_effects)


def _side_effects(ptx: PtxTemplate) -> list[Effect]:
    found: list[Effect] = []
    for position, ins in enumerate(ptx.instructions):
        if reads_program_state(ins) or (ins.opaque and HOLE in ins.opcode):
            continue
        effects = instruction_effects(ins)
        if effects is not None and effects.side_effect:
            order = effects.ordering
            if order is not None and order.kind == "load" and order.strong:
                why = f"({order.describe()}) reads memory"  # what other threads write
            elif order is not None and order.strong:
                why = f"is {order.describe()}"
            elif effects.collective and not effects.memory:
                why = "depends on the other lanes of the warp"
            elif effects.memory in ("write", "readwrite"):
                why = "writes memory"
            elif effects.orders_memory:
                why = "is a barrier or fence"
            else:
                why = "has a side effect"
            found.append(Effect(
                f"'{shown_mnemonic(ins)}' {why}", ins.opcode_start, ins.opcode_end,
                position=position, ordering=order, effects=effects,
            ))
        for operand in _specials(ins.operands):
            name, register = special_register(operand.text)
            if register is not None and register.changes:
                found.append(Effect(
                    f"'%{name}' changes while the thread runs", operand.start, operand.end,
                    position=position,
                ))
    return found


def memory_effects(statement: AsmStatement) -> list[Effect]:
    """Instructions that access C++-visible memory or order it (PTX102's list), every one."""
    return _of_template("memory", statement.ptx, _memory_effects)


def _memory_effects(ptx: PtxTemplate) -> list[Effect]:
    found: list[Effect] = []
    for position, ins in enumerate(ptx.instructions):
        if reads_program_state(ins) or keeps_to_payload(ins):
            continue  # OptiX's state and payload: no memory (``ptx.call_targets``)
        effects = instruction_effects(ins)
        if effects is None:
            continue
        order = effects.ordering
        named = f" ({order.describe()})" if order is not None else ""
        if effects.memory:
            verb = {"read": "reads", "write": "writes", "readwrite": "reads and writes"}[
                effects.memory
            ]
            if effects.orders_memory:
                verb += " and orders"
            found.append(
                Effect(
                    f"'{shown_mnemonic(ins)}'{named} {verb} memory",
                    ins.opcode_start,
                    ins.opcode_end,
                    # an async-proxy access is ordered against C++ by a proxy fence and its
                    # wait, statements of their own; cp.async (a weak generic-proxy access)
                    # is ordered against the C++ stores before it by this statement only
                    asynchronous=effects.async_proxy and not effects.orders_memory,
                    position=position,
                    ordering=order,
                    effects=effects,
                )
            )
        elif effects.orders_memory:
            found.append(Effect(
                f"'{shown_mnemonic(ins)}'{named} orders memory", ins.opcode_start, ins.opcode_end,
                position=position, ordering=order, effects=effects,
            ))
    return found
