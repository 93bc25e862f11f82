"""Whether two protocol steps of a function are about the same pipeline stage.

A software pipeline keeps several copies (stages) of a buffer in shared memory, each with its
mbarriers, and picks one per turn of its loop with an index that changes each turn
(``stage = k % STAGES``, ``slot += 1``). A step's operand names the stage it is about through
that index: ``full_bar[stage]``, ``smem_a + stage * TILE_BYTES``, a descriptor made from
``tiles[ring_idx]``. Two steps whose operands are computed from one such index are about the
same stage; two whose operands share only a base (the shared-memory pointer, the struct that
holds every stage) or a constant are not known to be.

:func:`computed_from` names the variables an operand's value is computed from, in the terms
of the function whose flow holds the step: the identifiers of the expressions of the asm
operands it is computed from in its template (:func:`.operand_inputs`: ``[%0]``, or a register
``mapa`` computed from ``%0``), for a local what each of its definitions and assignments is
computed from (a few levels), and through each call down to the asm statement, a helper's
parameter by the argument the call binds to it (a member call's object for the members the
helper reads). :func:`same_stage` asks whether one operand names a variable the
other is computed from, which changes in a loop around both steps: declared or written inside
it.
"""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.frontends.cxx.lexer import identifiers
from ptxlint.model import PtxOperand
from ptxlint.ptx.operand_inputs import operand_inputs

__all__ = ["Inputs", "computed_from", "joined", "same_stage"]

# How many definitions deep a local is followed (``desc = make_desc(addr)``, ``addr = base +
# stage * BYTES``): a stage index is rarely further than two locals from its use.
_DEPTH = 4
_CHANGES = frozenset({"write", "readwrite", "declare", "initialise"})


class Inputs(NamedTuple):
    """What an operand is computed from, in the terms of one function: ``direct``, the
    variables its expression in that function names (an argument of the call that reaches the
    statement, or the asm operand itself); ``every``, those and what they are computed from;
    ``spelled``, those expressions (``&buf[next % S][i]``)."""

    direct: frozenset[str]
    every: frozenset[str]
    spelled: tuple[str, ...] = ()


_NOTHING = Inputs(frozenset(), frozenset())


def joined(inputs: list[Inputs]) -> Inputs:
    """What any of several operands is computed from (a wgmma's A and B descriptors)."""
    return Inputs(frozenset().union(*(i.direct for i in inputs)),
                  frozenset().union(*(i.every for i in inputs)))


def _names(flow: FunctionFlow, expression: str, depth: int, found: set[str],
           direct: set[str] | None = None, spelled: list[str] | None = None) -> None:
    if spelled is not None:
        spelled.append(expression)
    for name in identifiers(expression):
        if direct is not None:
            direct.add(name)
        if name in found:
            continue
        found.add(name)
        if depth >= _DEPTH or name in flow.parameters:
            continue
        for value in flow.values_of(name) or ():
            if value is not None:  # (``x += 64``: its other definitions are followed too)
                _names(flow, flow.text(value), depth + 1, found)


def computed_from(flow: FunctionFlow, step: Step, operand: PtxOperand | None) -> Inputs:
    """The variables of ``flow`` the value of ``operand`` of ``step`` is computed from (the
    module's docstring); empty where no asm operand reaches it."""
    if operand is None:
        return _NOTHING
    statement = step.statement
    operands = statement.operands
    found: set[str] = set()
    direct: set[str] = set()
    spelled: list[str] = []
    for ref in operand_inputs(statement.ptx, step.instruction, operand):
        if ref < len(operands):
            _through_calls(flow, step, operands[ref].expression, found, direct, spelled)
    return Inputs(frozenset(direct), frozenset(found), tuple(spelled))


def _through_calls(flow: FunctionFlow, step: Step, expression: str, found: set[str],
                   direct: set[str] | None = None, spelled: list[str] | None = None) -> None:
    call = step.call
    if call is None:
        _names(flow, expression, 0, found, direct, spelled)
        return
    helper = call.helper
    inner: set[str] = set()
    if step.inner is not None:
        _through_calls(helper, step.inner, expression, inner)
    else:
        _names(helper, expression, 0, inner)
    parameters = helper.parameters
    for name in inner:
        if name in parameters:
            index = parameters.index(name)
            if index < len(call.arguments):
                _names(flow, call.arguments[index], 0, found, direct, spelled)
    if call.receiver:  # the members the method reads are the object's
        _names(flow, call.receiver, 0, found, direct, spelled)


def _changes_in(flow: FunctionFlow, name: str, loop: tuple[int, int]) -> bool:
    return any(loop[0] <= byte < loop[1] for byte, how, _ in flow.uses_of(name)
               if how in _CHANGES)


def same_stage(flow: FunctionFlow, first: Inputs, second: Inputs,
               at: tuple[int, int]) -> str | None:
    """The index that picks one stage for both steps, or None: a variable one step's operand
    names and the other's is computed from (:func:`computed_from` of each), declared or written
    in a loop of ``flow`` around both bytes ``at``. A variable both are computed from only
    further down (``slot = it % SLOTS`` and ``stage = it % STAGES``, both from ``it``) picks
    two stages."""
    shared = (first.direct & second.every) | (first.every & second.direct)
    if not shared:
        return None
    loops = [loop for loop in flow.loops_at(at[0]) if loop[0] <= at[1] < loop[1]]
    return next((name for name in sorted(shared) for loop in loops
                 if _changes_in(flow, name, loop)), None)
