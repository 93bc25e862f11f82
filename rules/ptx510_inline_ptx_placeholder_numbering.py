"""PTX510 inline-ptx-placeholder-numbering."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call

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

Where part of the template is built at run time (`"..." + compare + "..."`), that part may use
the numbers the rest seems to skip, and only numbers past the end of a list are flagged.

## Fix safety
No fix is offered: either the placeholder or the list is wrong, and only the author knows which.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api != "cute-ptx" or not call.placeholders:
            return
        counts = dict(call.role_counts)
        used: dict[str, set[int]] = {}
        for p in call.placeholders:
            used.setdefault(p.kind, set()).add(p.number)
        reported: set[tuple[str, int]] = set()
        for p in call.placeholders:
            key = (p.kind, p.number)
            if key in reported:
                continue
            listed = _LISTS[p.kind]
            count = counts.get(p.kind)
            written = statement.source.text[p.span.start : p.span.end]
            if count is not None and p.number >= count:
                reported.add(key)
                binds = (
                    f": the lowering binds it to {_LISTS[p.bound_kind]}[{p.bound_index}]"
                    if p.bound_kind
                    else ""
                )
                yield self.finding(
                    statement,
                    p.span,
                    f"'{written}' names {listed}[{p.number}], but the list has "
                    f"{count} element{'s' if count != 1 else ''}{binds}",
                )
                continue
            if not p.bound_kind or (p.bound_kind, p.bound_index) == key:
                continue
            if statement.template.has_holes:
                continue  # a part built at run time may spell the numbers it seems to skip
            own_gap = any(n not in used[p.kind] for n in range(p.number))
            if reported and not own_gap:
                continue  # shifted by a gap already reported: the same defect
            reported.add(key)
            skipped = [
                f"{{${kind}{n}}}"
                for kind in ("rw", "w", "r")
                for n in range(counts.get(kind, 0))
                if n not in used.get(kind, set()) and (kind != p.kind or n < p.number)
                and _before(kind, p.kind, n, p.number)
            ]
            unused = f"; it never uses {', '.join(skipped)}" if skipped else ""
            yield self.finding(
                statement,
                p.span,
                f"'{written}' binds {_LISTS[p.bound_kind]}[{p.bound_index}], not "
                f"{listed}[{p.number}]: the lowering numbers the placeholders the template "
                f"uses, read-write, then write-only, then read-only{unused}",
            )


_RANK = {"rw": 0, "w": 1, "r": 2}


def _before(kind: str, other: str, n: int, number: int) -> bool:
    """Whether argument ``kind``-``n`` comes before ``other``-``number`` in operand order."""
    return (_RANK[kind], n) < (_RANK[other], number)
