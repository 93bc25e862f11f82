"""The carry flag through one template: which instruction sets the carry each consumer reads.

PTX ISA, "Extended-Precision Integer Arithmetic Instructions": ``add.cc``, ``addc``, ``sub.cc``,
``subc``, ``mad.cc`` and ``madc`` reference an implicit condition code register with one carry
flag (CC.CF), "holding carry-in/carry-out or borrow-in/borrow-out"; "no other instructions
access the condition code", and it "is mainly intended for use in straight-line code
sequences". ``addc`` computes ``d = a + b + CC.CF`` and writes the carry out only with ``.cc``;
``subc`` computes ``d = a - (b + CC.CF)``. So in a template, each consumer reads the carry of
the last ``.cc`` instruction before it on its path, and nothing else.

Two questions are asked of that flow:

- :func:`carry_use` (PTX107): is there a consumer with no producer at all before it in the
  template, and is the last carry produced ever consumed?
- :func:`carry_breaks` (PTX209): inside the template, does a consumer read a carry that is not
  the one its chain meant? Three ways, each from the semantics above:

  * *consumed twice*: ``add.cc; addc; addc``: the middle ``addc`` has no ``.cc``, so it leaves
    the flag as it was and the last one adds the same carry again (the chain's middle link
    lacks ``.cc``);
  * *overwritten*: ``add.cc; add.cc; addc``: a chain's first carry is replaced by the next
    producer's before any instruction reads it (the second was meant to be ``addc.cc``, or two
    chains are interleaved);
  * *not on every path*: ``@p add.cc; addc``: the producer runs under a predicate the consumer
    does not share, so where the predicate is false the consumer reads a stale flag.

A label, a branch or an instruction that cannot be read ends what is known: the flow after it
is not followed (silence over guessing).
"""

from __future__ import annotations

from ptxlint.model import AsmStatement, PtxInstruction
from ptxlint.ptx.flow import ends_straight_line

__all__ = ["CarryBreak", "CarryUse", "carry_breaks", "carry_use", "CONSUMERS", "PRODUCERS"]

# `.cc` on these writes the carry flag; addc, subc and madc read it. No other instruction
# reads or writes it.
PRODUCERS = frozenset({"add", "sub", "mad", "addc", "subc", "madc"})
CONSUMERS = frozenset({"addc", "subc", "madc"})


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class CarryUse:
    """How one template uses the carry flag, in text order."""

    __slots__ = ("first_unfed", "last_producer", "consumed_after_last_producer", "consumers")

    def __init__(
        self, first_unfed: PtxInstruction | None, last_producer: PtxInstruction | None,
        consumed_after_last_producer: bool, consumers: int,
    ) -> None:
        self.first_unfed = first_unfed  # the first consumer with no producer before it
        self.last_producer = last_producer
        self.consumed_after_last_producer = consumed_after_last_producer
        self.consumers = consumers


def carry_use(statement: AsmStatement) -> CarryUse | None:
    """The template's carry-flag use, or ``None`` where it cannot be read (a macro piece, an
    opaque instruction)."""
    if statement.template.has_holes:
        return None
    produced = False
    first_unfed: PtxInstruction | None = None
    last: PtxInstruction | None = None
    consumed_after = False
    consumers = 0
    for instruction in statement.ptx.instructions:
        if instruction.opaque:
            return None
        if instruction.opcode in CONSUMERS:
            consumers += 1
            consumed_after = True
            if not produced and first_unfed is None:
                first_unfed = instruction
        if instruction.opcode in PRODUCERS and "cc" in instruction.modifiers:
            produced = True
            last = instruction
            consumed_after = False
    return CarryUse(first_unfed, last, consumed_after, consumers)


# A plain class too (see CarryUse's comment).
class CarryBreak:
    """A consumer (or, for ``overwritten``, a producer) that breaks its chain."""

    __slots__ = ("kind", "at", "producer", "other")

    def __init__(
        self, kind: str, at: PtxInstruction, producer: PtxInstruction,
        other: PtxInstruction | None = None,
    ) -> None:
        self.kind = kind  # "consumed-twice" | "overwritten" | "not-on-every-path"
        self.at = at  # the instruction to point at
        self.producer = producer  # the instruction whose carry is at stake
        self.other = other  # consumed-twice: the earlier consumer; overwritten:
        # the producer that replaces the carry


def _guard(instruction: PtxInstruction) -> tuple[str, bool] | None:
    predicate = instruction.predicate
    return None if predicate is None else (predicate.register.text, predicate.negated)


def carry_breaks(statement: AsmStatement) -> tuple[CarryBreak, ...]:
    """The places where a consumer in the template reads a carry its chain did not mean."""
    if statement.template.has_holes:
        return ()
    ptx = statement.ptx
    if not any(i.opcode in CONSUMERS for i in ptx.instructions):
        return ()
    labels = sorted(label.start for label in ptx.labels)
    found: list[CarryBreak] = []
    producer: PtxInstruction | None = None  # the last instruction that wrote the flag
    read_by: PtxInstruction | None = None  # a consumer without .cc that read its carry
    read = False  # its carry was read by some consumer
    for instruction in ptx.instructions:
        if instruction.opaque:
            return tuple(found)
        if producer is not None and any(producer.end <= at < instruction.start for at in labels):
            producer, read_by, read = None, None, False  # a branch target: the path is unknown
        opcode = instruction.opcode
        writes = opcode in PRODUCERS and "cc" in instruction.modifiers
        if opcode in CONSUMERS and producer is not None:
            guard, produced_under = _guard(instruction), _guard(producer)
            if produced_under is not None and produced_under != guard:
                found.append(CarryBreak("not-on-every-path", instruction, producer))
            elif read_by is not None and _guard(read_by) == guard:
                found.append(CarryBreak("consumed-twice", instruction, producer, read_by))
            read = True
            if not writes:
                read_by = read_by or instruction
        if writes:
            if (
                producer is not None and not read and producer.opcode not in CONSUMERS
                and _guard(producer) == _guard(instruction)
            ):
                # a chain's first carry replaced before anything read it
                found.append(CarryBreak("overwritten", producer, producer, instruction))
            producer, read_by, read = instruction, None, False
        if ends_straight_line(instruction):
            producer, read_by, read = None, None, False
    return tuple(found)
