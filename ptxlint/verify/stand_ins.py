"""The values a PTX probe writes for the "n" operands a file does not fix, and what ptxas's
words about them may prove.

A template parameter or a macro argument with no value in the file (``"n"(BYTES)``) still has to
be a number in the probe. Whatever ptxas says on the line that holds such a stand-in may be about
the stand-in rather than the code: ``cp.async.cg ... 1`` is rejected for its size, which the
real ``BYTES`` may well get right. So the probe is built twice, with stand-ins that differ in
what ptxas checks of an immediate: 1 (odd, below every size and alignment) and 16 (a power of
two, the size and alignment most instructions take). An error that both probes report on the
same line in the same words did not come from either value; one that only one of them reports,
or that quotes the value, did, and proves nothing.

That is evidence about the words, not a proof for every value: a check that 1 and 16 both fail
in the same words would pass as value-free. Only a message a rule's recipe agrees with
(``recipes.Recipe.agrees``: an unknown opcode or modifier, a missing feature, never a value
out of range) confirms a finding, which narrows it to the errors ptxas decides before it reads
any number.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ptxlint.model import AsmStatement
from ptxlint.verify import immediates
from ptxlint.verify.diagnostics import Diagnostic

# the first stand-in is the one the messages name (``guess_reason``)
STAND_IN = 1
STAND_INS = (STAND_IN, 16)


def value_sets(statement: AsmStatement) -> tuple[list[dict[int, int]], bool]:
    """The values to probe the statement's non-literal "n" operands with, one dict per
    configuration, and whether they are the file's own (False: a stand-in for some, and then one
    configuration per stand-in of ``STAND_INS``, the file's own values kept where it has them)."""
    operands = [o for o in immediates.immediates(statement)
                if immediates.literal(o.expression) is None]
    if not operands:
        return [{}], True
    found = {o.index: immediates.values(statement, o) for o in operands}
    if all(found.values()):
        indexes = sorted(found)
        combos = itertools.islice(itertools.product(*(found[i] for i in indexes)),
                                  immediates.MAX_VALUES)
        return [dict(zip(indexes, combo, strict=True)) for combo in combos], True
    return [{i: (v[0] if v else stand_in) for i, v in found.items()}
            for stand_in in STAND_INS], False


def unknown_names(statement: AsmStatement) -> str:
    """The "n" operands the file fixes no value for, quoted, for a message."""
    unknown = [o.expression for o in immediates.immediates(statement)
               if not immediates.values(statement, o)]
    return ", ".join(f"'{e}'" for e in unknown) or "an \"n\" operand"


def guess_reason(statement: AsmStatement, diag: Diagnostic | None) -> str:
    """Why a probe with stand-ins leaves the finding unverifiable: ptxas's words on a stand-in's
    line (``diag``) that another stand-in did not give, or a clean compile (None)."""
    what = unknown_names(statement)
    if diag is None:
        return (f"the file fixes no value for {what}: the probe stood {STAND_IN} in for it, "
                "and a clean compile with a stand-in proves nothing")
    return (f"the file fixes no value for {what}, and ptxas's words on the line that holds "
            f"it depend on that value: {diag.tool}: {diag.message} (with a stand-in {STAND_IN})")


def value_free_note(statement: AsmStatement) -> str:
    """How a confirmation from errors every stand-in gave says so: " (the same with 'BYTES'
    = 1 and = 16)"."""
    values = " and = ".join(str(v) for v in STAND_INS)
    return f" (the same with {unknown_names(statement)} = {values})"


def same_in_every_probe(heard: Sequence[Sequence[Diagnostic]]) -> frozenset[tuple[int, str]]:
    """(line, words) of the errors that every stand-in probe gave (``heard``: one list per
    probe, each the errors ptxas gave on the lines that hold a stand-in); nothing where fewer
    than two probes ran, since one value alone cannot show its words do not depend on it."""
    if len(heard) < 2:
        return frozenset()
    common = {(d.line, d.message) for d in heard[0]}
    for errors in heard[1:]:
        common &= {(d.line, d.message) for d in errors}
    return frozenset(common)
