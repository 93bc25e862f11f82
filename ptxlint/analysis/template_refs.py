"""How a template names its operands: the ``%N`` tokens by operand, the other ``%`` tokens by
kind, and where each instruction names each operand, worked out once per parsed template.

What it holds (:class:`TemplateRefs`): the ``%N`` (``$N``) tokens with a number, in text order
and by operand; the numbers named and the highest; the tokens with a GCC operand modifier
(``%n1``, ``%H0``); the ``%[name]`` tokens; the tokens that are not an operand and may be
mistakes (``%%``, a trailing ``%``, ``%clock``, a bad ``$``); and, on first ask, each operand's
uses by the instructions (:class:`Use`: which instruction, inside an address of which state
space). Who reads it: the statement summary (``operand_summary``: the ``needs`` features),
``operand_use`` (PTX004's fixes, PTX009, PTX301's fix), the root causes (``roots``,
``StatementAnalysis.template_root``), and the rules that read the tokens themselves (PTX001,
PTX008, PTX104, PTX301, PTX508, the input-to-output fix of PTX105/PTX106). Before it each of
them walked ``PtxTemplate.percents`` (143,649 tokens over CUTLASS's ``include/``) on its own,
and ``operand_use.uses`` walked every instruction's operands once per asm operand asked about
(quadratic in a 128-operand wgmma).

A function of the parse alone: ``parse_template`` hands every statement that spells a
template the same ``PtxTemplate``, so the index is kept by the parse's identity
(:class:`ptxlint.ptx.template_memo.TemplateMemo`, bounded) and a template that repeats
(flashinfer's spell each 4.5 times) is walked once. The token pass is the one the summary
made per statement before; the per-operand tables are built only when a rule asks for one.

What it buys (CUTLASS's ``include/``, 3,217 statements, CPU with the collector paused): asking
``uses`` of every operand took 1.00 s and takes 0.14-0.16 s; the statement summaries took
0.037-0.039 s and take 0.031-0.032 s (``roots.modified_tokens`` and ``referenced`` over every
statement: 11-12 ms, now 2-3 ms). The other token walks it replaces ran only on the statements
their rule's ``needs`` admit, or only for a finding, so the rules' phase as a whole does not move
measurably (1.16-1.26 s before, 1.18-1.24 s after, three runs each): the gain is one
definition of each answer, and no quadratic walk left for a fix on a wgmma to hit.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import NamedTuple, cast

from ptxlint.model import AsmStatement, PercentToken, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.percent_tokens import read_percents
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["ESCAPE_KINDS", "TemplateRefs", "Use", "refs_of"]

# Kinds of ``%``/``$`` token that are not an operand reference and may be mistakes.
ESCAPE_KINDS = frozenset({"escape", "trailing", "bare", "bad-dollar"})

_SPACES = ("shared", "global", "local", "const", "param")


class Use(NamedTuple):
    """One place a template's instruction names an asm operand, and whether it is inside an
    address (of which state space). A tuple, made without a data class's ``__init__``: a
    wgmma's template makes 130."""

    instruction: PtxInstruction
    space: str | None  # the state space of the address it sits in; None: not an address
    in_address: bool


class TemplateRefs:
    """The ``%`` tokens of one parsed template, by what the rules ask of them."""

    __slots__ = (
        "_by_index", "_ptx", "_starts", "_uses", "escapes", "highest", "modified", "named",
        "unique",
        "referenced", "refs",
    )

    def __init__(self, ptx: PtxTemplate) -> None:
        self._ptx = ptx
        refs: list[PercentToken] = []
        modified: list[PercentToken] = []
        named: list[PercentToken] = []
        escapes: list[PercentToken] = []
        unique: list[PercentToken] = []
        for token in ptx.percents:
            kind = token.kind
            if kind == "ref":
                if token.index is not None:
                    refs.append(token)
                if token.modifier:
                    modified.append(token)
            elif kind == "named":
                named.append(token)
            elif kind in ESCAPE_KINDS:
                escapes.append(token)
            elif kind == "unique":
                unique.append(token)
        # ``%N`` tokens with a number, in text order (``percents`` is in text order)
        self.refs: tuple[PercentToken, ...] = tuple(refs)
        # every token in ``refs`` has a number
        self.referenced = cast("frozenset[int]", frozenset([t.index for t in refs]))
        # the highest number named; -1 for none
        self.highest: int = max(self.referenced, default=-1)
        # ``%N`` tokens with a GCC operand modifier (``%n1``, ``%H0``), in text order
        self.modified: tuple[PercentToken, ...] = tuple(modified)
        # ``%[name]`` tokens, in text order
        self.named: tuple[PercentToken, ...] = tuple(named)
        # tokens of ESCAPE_KINDS, in text order
        self.escapes: tuple[PercentToken, ...] = tuple(escapes)
        # ``%=`` (``${:uid}``) tokens, in text order: nvcc expands them only in a statement
        # with operands (PTX008)
        self.unique: tuple[PercentToken, ...] = tuple(unique)
        self._by_index: dict[int, tuple[PercentToken, ...]] | None = None
        self._starts: list[int] | None = None
        self._uses: dict[int, tuple[Use, ...]] | None = None

    def tokens_of(self, index: int) -> tuple[PercentToken, ...]:
        """The ``%index`` tokens (modifiers included), in text order."""
        by_index = self._by_index
        if by_index is None:
            grouped: dict[int | None, list[PercentToken]] = {}
            for token in self.refs:
                grouped.setdefault(token.index, []).append(token)
            by_index = self._by_index = {
                cast(int, i): tuple(found) for i, found in grouped.items()
            }
        return by_index.get(index, ())

    def first(self, index: int) -> PercentToken | None:
        """The first ``%index`` token in the text, if any."""
        found = self.tokens_of(index)
        return found[0] if found else None

    def within(self, start: int, end: int) -> Iterator[PercentToken]:
        """The ``%N`` tokens that start in the template's characters ``[start, end)``, in text
        order."""
        starts = self._starts
        if starts is None:
            starts = self._starts = [t.start for t in self.refs]
            # ``percents`` is in text order (the parser's contract); a hand-made template that
            # is not would make the bisection miss tokens
            if any(a > b for a, b in zip(starts, starts[1:], strict=False)):
                self.refs = tuple(sorted(self.refs, key=lambda t: t.start))
                starts = self._starts = [t.start for t in self.refs]
        refs = self.refs
        for at in range(bisect_left(starts, start), len(refs)):
            token = refs[at]
            if token.start >= end:
                return
            yield token

    def uses(self, index: int) -> tuple[Use, ...]:
        """Every place an instruction of the template names ``%index``, in instruction and
        operand order; one pass over the instructions answers every operand."""
        uses = self._uses
        if uses is None:
            uses = self._uses = _uses(self._ptx)
        return uses.get(index, ())


def _space(modifier: str) -> str | None:
    head = modifier.split("::")[0]
    return head if head in _SPACES else None


def _uses(ptx: PtxTemplate) -> dict[int, tuple[Use, ...]]:
    found: dict[int, list[Use]] = {}
    for instruction in ptx.instructions:
        spaces = [s for m in instruction.modifiers if (s := _space(m)) is not None]
        address_number = 0
        for operand in instruction.operands:
            if operand.kind == "ref":  # most operands: no parts to search
                if operand.ref is not None:
                    found.setdefault(operand.ref, []).append(Use(instruction, None, False))
                continue
            if operand.kind == "address":
                # state spaces in the mnemonic name the address operands in order (dst, src)
                if len(spaces) == 1:
                    space: str | None = spaces[0]
                elif address_number < len(spaces):
                    space = spaces[address_number]
                else:
                    space = None
                address_number += 1
                use = Use(instruction, space, True)
            else:
                use = Use(instruction, None, False)
            named: list[int] = []
            _named(operand, named)
            # one use per operand of the instruction that names the index, however often
            for index in dict.fromkeys(named):
                found.setdefault(index, []).append(use)
    return {index: tuple(each) for index, each in found.items()}


def _named(operand: PtxOperand, out: list[int]) -> None:
    """Append the asm operand numbers ``operand`` names at any depth (a wgmma's vector of 128
    ``%N`` in its own loop, without a call per element)."""
    for part in operand.parts:
        if part.kind == "ref":
            if part.ref is not None:
                out.append(part.ref)
        elif part.parts:
            _named(part, out)


_REFS: TemplateMemo[TemplateRefs] = TemplateMemo(4096)


def refs_of(statement: AsmStatement) -> TemplateRefs:
    """The index of the statement's template, made on the first ask for that parse."""
    ptx = statement.ptx
    return _REFS.of(ptx, lambda: TemplateRefs(ptx))


def percents_rewritten(statement: AsmStatement) -> bool:
    """nvcc replaces the ``%`` sequences of the statement's template (``%%`` becomes ``%``,
    ``%0`` a register) before ptxas reads it: GCC syntax with operands. Basic asm, and
    extended asm whose operand lists are all empty (``::: "memory"``), reach ptxas verbatim
    (nvcc 13.0, measured)."""
    return statement.syntax != "llvm" and statement.extended and bool(statement.operands)


def comment_refs(statement: AsmStatement) -> tuple[PercentToken, ...]:
    """The operand references in the template's PTX comments (``// %L577``, ``// old: %5``,
    ``%[x]``) that nvcc reads. nvcc replaces ``%`` sequences before ptxas sees the text, and a
    PTX comment is text to it: in a statement of GCC syntax with operands it stops at a
    modifier there ("Asm operand modifier not supported at \"%L\""), a number past the last
    operand (an internal compiler error) and a symbolic name ("invalid symbolic operand
    name"), all measured with nvcc 13.0. With no operands nvcc leaves the text alone. The
    template's own tokens (``PtxTemplate.percents``) skip comments: an operand named only in a
    comment is not used by an instruction."""
    ptx = statement.ptx
    if not ptx.comments or not percents_rewritten(statement) or statement.template.has_holes:
        return ()
    text = statement.template.text
    spans = [(start, end) for start, end in ptx.comments if "%" in text[start:end]]
    if not spans:
        return ()
    only = [" "] * len(text)  # the comments alone, at their offsets
    for start, end in spans:
        only[start:end] = text[start:end]
    found: list[PercentToken] = []
    read_percents("".join(only), True, found, lambda message, start, end: None)
    return tuple(t for t in found if t.kind in ("ref", "named"))
