"""PTX901 unused-suppression (the check itself is ptxlint/suppress.py, run by the engine)."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class UnusedSuppression(Rule):
    id = "PTX901"
    name = "unused-suppression"
    severity = Severity.WARNING
    needs = ("never",)
    summary = "Suppression comment that suppresses nothing: unused, an unknown code or a prefix"
    tags = ("suppressions", "maintainability")
    precision = "very-high"
    docs = """\
## What it does
Flags a `// ptxlint: ignore[...]`, `// ptxlint: ignore-file[...]` or `// ptxlint:
ignore-begin[...]` comment, or one of its codes, that suppresses nothing:

- a code that is not a rule id or name (`PTX999`, `missing-volatle`),
- an id prefix (`PTX1`): suppressions need a full id or name, unlike `--select`,
- a code of a rule that ran on the file but has no finding there to suppress,
- a bare `ignore`, `ignore-file` or `ignore-begin` that suppressed no finding,
- an `ignore-begin` that no `ignore-end` closes, or an `ignore-end` that closes no open
  `ignore-begin` (with the same codes, when it lists codes): a range that is not closed
  suppresses nothing, as clang-tidy's unmatched `NOLINTBEGIN`.

Codes of rules that did not run on the file (deselected, or removed by `per-file-ignores`) are
not judged, nor are those of a retired rule (`ptxlint rule ID` says it is retired): they stay
valid and do nothing. The check runs after every other rule of the file, so it is a file-level
rule: it never looks at a single statement.

## Why is this bad?
A misspelt code silences nothing while looking as if it did, and a suppression left behind
after the defect was fixed will silently hide the next real defect on that statement.

## Example
```cuda
asm volatile("bar.sync 0;" ::: "memory");  // ptxlint: ignore[PTX102]
asm("mov.u32 %0, %%clock;" : "=r"(t));     // ptxlint: ignore[PTX1]
```

## Use instead
```cuda
asm volatile("bar.sync 0;" ::: "memory");
asm("mov.u32 %0, %%clock;" : "=r"(t));     // ptxlint: ignore[PTX101]
// ptxlint: ignore-begin[PTX201]
asm(".reg .u32 t; mov.u32 t, 1;");          // a range: every line up to its ignore-end
asm(".reg .u32 u; mov.u32 u, 2;");
// ptxlint: ignore-end[PTX201]
```

## Fix safety
Safe: the fix deletes only the codes that suppress nothing, or the whole comment when none is
left (for a range, its `ignore-end` too, so the pair stays matched); no finding appears or
disappears except this one. An unmatched `ignore-begin` or `ignore-end` has no fix: only its
author knows where the range should end.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        # Per statement there is nothing to see: the engine calls ptxlint.suppress.check once
        # the file's other findings are known.
        return iter(())
