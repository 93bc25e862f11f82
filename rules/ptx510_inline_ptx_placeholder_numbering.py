"""PTX510 inline-ptx-placeholder-numbering."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.llvm_binding import WrongPlaceholder, llvm_call
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

_LISTS = {"r": "read_only_args", "w": "write_only_types", "rw": "read_write_args"}


class InlinePtxPlaceholderNumbering(Rule):
    id = "PTX510"
    name = "inline-ptx-placeholder-numbering"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "An inline_ptx placeholder that binds another argument than its number says"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
Checks the `{$rN}`, `{$wN}` and `{$rwN}` placeholders of CuTe DSL's `cute.arch.inline_ptx`
(MLIR's `nvvm.inline_ptx`) against the argument lists: every number of a kind must name an
argument of its list, and the numbers a template uses must be 0, 1, 2... with none left out.

## Why is this bad?
The NVVM lowering does not look the number up in the list. It collects the numbers the
template uses, sorts them, and numbers them again from 0: read-write first, then write-only,
then read-only. `{$r1}` in a template that never spells `{$r0}` becomes the first read-only
operand, `read_only_args[0]`, and the value the author meant is never read. Nothing fails: the
kernel computes with the wrong value (nvidia-cutlass-dsl 4.8.1: `add.s32 {$w0}, {$r1}, 1` with
`read_only_args=[a, b]` adds 1 to `a`). A number past the end of its list names a register
that does not exist, and LLVM or ptxas rejects the kernel.

## Example
```python
cute.arch.inline_ptx("add.s32 {$w0}, {$r1}, 1;",
                     write_only_types=[Int32], read_only_args=[a, b])
```

## Use instead
```python
cute.arch.inline_ptx("add.s32 {$w0}, {$r0}, 1;",
                     write_only_types=[Int32], read_only_args=[b])
```

One defect, one finding: the lowering numbers every placeholder of the call as one list, so the
placeholders a skipped number shifts, and those past the end of their list, are one finding on
the first of them, which names the rest. What the template does with the argument a shifted
placeholder binds instead (an output read before any write, PTX106; an input written, PTX105; a
register of the wrong type, PTX206) is the same defect, and those rules stay silent in its
instruction.

Where part of the template is built at run time (`"..." + compare + "..."`), that part may use
the numbers the rest seems to skip, and only numbers past the end of a list are flagged.

## Fix safety
No fix is offered: either the placeholder or the list is wrong, and only the author knows which.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        wrong = analysis_of(statement).misnumbered_placeholders
        if not wrong:
            return
        call = llvm_call(statement)
        assert call is not None  # only an inline_ptx call has placeholders
        counts = dict(call.role_counts)
        used: dict[str, set[int]] = {}
        for p in call.placeholders:
            used.setdefault(p.kind, set()).add(p.number)
        # One finding per statement: the lowering numbers the template's placeholders as one
        # list, so every misnumbered placeholder is a consequence of the same numbering.
        said = [_misnumbered(w, counts, used, statement) for w in wrong]
        others = [brief for _, brief in said[1:]]
        also = f"; also {', '.join(others)}" if others else ""
        yield self.finding(statement, wrong[0].placeholder.span, said[0][0] + also)


def _misnumbered(wrong: WrongPlaceholder, counts: dict[str, int], used: dict[str, set[int]],
                 statement: AsmStatement) -> tuple[str, str]:
    """What is wrong with a misnumbered placeholder, said in full and briefly."""
    p = wrong.placeholder
    listed = _LISTS[p.kind]
    count = counts.get(p.kind)
    written = statement.source.text[p.span.start : p.span.end]
    if wrong.past_end:
        binds = (
            f": the lowering binds it to {_LISTS[p.bound_kind]}[{p.bound_index}]"
            if p.bound_kind
            else ""
        )
        elements = f"{count} element{'s' if count != 1 else ''}"
        brief = f"'{written}' is past the end of {listed}" + (
            f" and binds {_LISTS[p.bound_kind]}[{p.bound_index}]" if p.bound_kind else "")
        return (f"'{written}' names {listed}[{p.number}], but the list has {elements}{binds}",
                brief)
    skipped = [
        f"{{${kind}{n}}}"
        for kind in ("rw", "w", "r")
        for n in range(counts.get(kind, 0))
        if n not in used.get(kind, set()) and (kind != p.kind or n < p.number)
        and _before(kind, p.kind, n, p.number)
    ]
    unused = f"; it never uses {', '.join(skipped)}" if skipped else ""
    brief = f"'{written}' binds {_LISTS[p.bound_kind]}[{p.bound_index}]"
    return (f"{brief}, not {listed}[{p.number}]: the lowering numbers the placeholders the "
            f"template uses, read-write, then write-only, then read-only{unused}", brief)


_RANK = {"rw": 0, "w": 1, "r": 2}


def _before(kind: str, other: str, n: int, number: int) -> bool:
    """Whether argument ``kind``-``n`` comes before ``other``-``number`` in operand order."""
    return (_RANK[kind], n) < (_RANK[other], number)
