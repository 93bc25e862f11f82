"""What the rules ask of a statement's operand list and of its template's ``%`` tokens, found
in one pass over each and kept for the statement.

Nine rules and analyses each walked the operands (a wgmma has 130) to ask one question: is any
constraint several letters (PTX003), a tie or a letter nvcc does not take (PTX002), a modifier
that does not fit its role (PTX006), is any operand never named (PTX009), indexed (PTX012), an
output, an input, an immediate (the engine's ``Rule.needs``). They read the answers here, and
the engine does not call a rule whose question is answered no (``ptxlint.rule.NEEDS``). Over
CUTLASS's ``include/`` (3,217 statements, 143,350 operands) the rules without typing took
1.10-1.15 s of CPU instead of 1.16-1.23 s.

A function of the statement alone (its operands, clobbers and parsed template). The ``%``
tokens' features are read off the template's index (:mod:`ptxlint.analysis.template_refs`),
made once per parsed template and read by the rules that walk the tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ptxlint import file_memos
from ptxlint.analysis.template_refs import comment_refs, refs_of
from ptxlint.constraints import VALID_CLOBBERS, VALID_LETTERS
from ptxlint.model import AsmStatement, Operand

__all__ = ["SUMMARY_NEEDS", "OperandSummary", "summary_of"]

# Constraint letters that take no modifier: an integer constant and a spliced string.
IMMEDIATE_LETTERS = frozenset("nC")


# The statement features (names of ``ptxlint.rule.NEEDS``) this summary answers.
SUMMARY_NEEDS = (
    "operands",
    "outputs",
    "inputs",
    "write-only-outputs",
    "immediate-operand",
    "several-letters",
    "tied-operands",
    "foreign-letters",
    "foreign-clobbers",
    "misplaced-modifiers",
    "indexed-operands",
    "percents",
    "unreferenced-operands",
    "stray-references",
    "modified-references",
    "percent-escapes",
)


class OperandSummary(NamedTuple):
    """A statement's operands and ``%`` tokens, as the rules ask of them."""

    # ``%N`` numbers the template names (``%n1`` included): ``TemplateRefs.referenced``
    referenced: frozenset[int]
    # which of SUMMARY_NEEDS hold; each is named in ``ptxlint.rule.NEEDS``
    holds: frozenset[str]
    # some output is write-only (``=`` without ``+``): only such an output can be read before
    # it is written (``StatementAnalysis.undefined_reads`` asks nothing of the others, and a
    # wgmma's 128 outputs are all ``+``: over CUTLASS's include/ its CPU fell from 13.7-14.0 to
    # 6.5-6.8 ms)
    write_only_outputs: bool = False
    # some output's constraint is "n": only then does PTX010 walk the outputs for immediates
    # (a wgmma's 128 outputs are all registers; over CUTLASS's include/ the rule walked 112,000
    # operands of its 1,894 statements with an "n" operand to find 4,825)
    immediate_outputs: bool = False
    # some operand's constraint is "f" or "d" (not opaque): only then does the register nvcc
    # declares for an operand depend on the target (``.f32`` below sm_100, ``.b32`` from it:
    # ``ptxlint.ptx.judge``), so PTX206 asks the guards' lowest target only then
    float_operands: bool = False


def summary_of(statement: AsmStatement) -> OperandSummary:
    """The statement's summary, worked out on the first ask after another statement's (the
    engine tests a statement's features, then its rules read it, statement by statement)."""
    for known, summary in _LAST:
        if known is statement:
            return summary
    summary = _summarize(statement)
    _LAST[:] = [(statement, summary)]
    return summary


def _element_like(expression: str) -> bool:
    """An array element (``A[0]``) or a vector member (``v.x``): what PTX012 walks."""
    return "[" in expression or expression.rstrip()[-2:] in (".x", ".y", ".z", ".w")


def _indexed(operands: Sequence[Operand]) -> bool:
    """Whether three of ``operands`` or more are ``_element_like``. Each is asked only where
    the expressions hold a '[' or a '.' at all, told by one search of their texts joined: a
    wgmma's 130 operands are plain names (CUTLASS's include/: 143,000 operands, each asked
    before; a GMMA statement's 137 names: 16.4 -> 2.2 us, timeit). The texts are read by a
    comprehension: ``map(attrgetter(...))`` over the slots took 3.9 us."""
    joined = "\0".join([o.expression for o in operands])
    if "[" not in joined and "." not in joined:
        return False
    return len([1 for o in operands if _element_like(o.expression)]) >= 3


_LAST: list[tuple[AsmStatement, OperandSummary]] = []
file_memos.register(_LAST.clear)


def _summarize(statement: AsmStatement) -> OperandSummary:
    holds: set[str] = set()
    write_only = immediate_outputs = float_operands = False
    operands = statement.operands
    if operands:
        # the distinct (role, constraint) pairs: a wgmma's 130 operands have three or four
        kinds = frozenset({(o.role, c.letters, c.modifiers, c.opaque)
                           for o in operands for c in (o.constraint,)})
        known = _BY_KINDS.get(kinds)
        if known is None:
            if len(_BY_KINDS) >= _BY_KINDS_MAX:
                _BY_KINDS.clear()
            known = _BY_KINDS[kinds] = _kinds_facts(kinds)
        kind_holds, write_only, immediate_outputs, float_operands = known
        holds.update(kind_holds)
        if len(operands) >= 3 and _indexed(operands):
            holds.add("indexed-operands")
    clobbers = statement.clobbers
    if clobbers and any(c.name not in VALID_CLOBBERS for c in clobbers):
        holds.add("foreign-clobbers")
    refs = refs_of(statement)
    referenced = refs.referenced
    if statement.ptx.percents:
        holds.add("percents")
        if refs.named or refs.highest >= len(operands):
            holds.add("stray-references")
        if refs.modified:
            holds.add("modified-references")
        if refs.escapes or (refs.unique and not operands and statement.extended):
            holds.add("percent-escapes")  # (a `%=` where nvcc leaves it as written: PTX008's)
    if operands and statement.ptx.comments:
        for token in comment_refs(statement):  # what nvcc reads in PTX comments too
            if token.modifier:
                holds.add("modified-references")
            elif token.kind == "named" or token.index is not None and token.index >= len(operands):
                holds.add("stray-references")
    if operands and not referenced.issuperset([o.index for o in operands]):
        holds.add("unreferenced-operands")
    return OperandSummary(
        referenced, frozenset(holds), write_only, immediate_outputs, float_operands
    )


# What a set of distinct (role, letters, modifiers, opaque) kinds says (``_kinds_facts``), by
# that set: a function of it alone, and the statements of a tree spell few such sets (54 over
# the CUDA 13 headers' 3,746 statements, where every template differs). What it buys: the
# summaries of those statements 22.3-23.2 -> 18.5-19.4 ms of CPU (best of five, alternating).
# Bounded: cleared when full.
_KindsFacts = tuple[frozenset[str], bool, bool, bool]
_BY_KINDS: dict[frozenset[tuple[str, str, str, bool]], _KindsFacts] = {}
_BY_KINDS_MAX = 1024


def _kinds_facts(kinds: frozenset[tuple[str, str, str, bool]]) -> _KindsFacts:
    """What the operands' constraints say, from their distinct kinds: the needs they meet
    (``SUMMARY_NEEDS``), and whether some output is write-only, some output an ``"n"`` or
    ``"C"`` immediate, some operand a float register."""
    holds = {"operands"}
    write_only = immediate_outputs = float_operands = False
    for role, letters, modifiers, opaque in kinds:
        if role == "output":
            holds.add("outputs")
            if not opaque and "=" in modifiers and "+" not in modifiers:
                write_only = True
                holds.add("write-only-outputs")
        elif role == "input":
            holds.add("inputs")
        if opaque:
            continue
        if letters == "f" or letters == "d":
            float_operands = True
        if _misplaced(role, letters, modifiers):
            holds.add("misplaced-modifiers")
        if letters.isdigit():
            holds.add("tied-operands")
            continue
        if letters == "n":
            holds.add("immediate-operand")
        if role == "output" and letters in ("n", "C"):
            immediate_outputs = True
        if len(letters) > 1:
            holds.add("several-letters")
        if letters not in VALID_LETTERS and any(
            letter not in VALID_LETTERS and not letter.isspace() for letter in letters
        ):
            holds.add("foreign-letters")
    return frozenset(holds), write_only, immediate_outputs, float_operands


def _misplaced(role: str, letters: str, modifiers: str) -> bool:
    """A modifier that does not fit the operand (PTX006): any on an immediate letter, an output
    without ``=`` or ``+``, an input with one."""
    if modifiers and not IMMEDIATE_LETTERS.isdisjoint(letters):
        return True
    flows = "=" in modifiers or "+" in modifiers
    return flows != (role == "output")
