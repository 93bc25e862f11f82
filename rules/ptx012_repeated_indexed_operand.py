"""PTX012 repeated-indexed-operand."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ptxlint.analysis.operand_access import writes_of, written_indices
from ptxlint.analysis.operand_elements import Element, member_element, subscript_element
from ptxlint.model import AsmStatement, Finding, Operand, Severity
from ptxlint.rule import Rule, RuleContext


def _element(expression: str) -> Element | None:
    """The element of a walk ``expression`` names: by a literal subscript (``A[2]``,
    ``data[3].w``, ``frag.x[1]``, ``__as_u32(acc[2])``), else a vector member (``v.x``)."""
    return subscript_element(expression) or member_element(expression)


class RepeatedIndexedOperand(Rule):
    id = "PTX012"
    name = "repeated-indexed-operand"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("indexed-operands",)
    summary = ("An element of an array or vector is passed twice while its neighbour is never "
               "passed")
    tags = ("correctness", "operands")
    docs = """\
## What it does
Flags an operand list that walks through an array by literal index (`A[0], A[1], A[2]...`)
where one element is passed twice and another element of the same walk is never passed:
`"d"(A[0]), "d"(A[2]), "d"(A[2]), "d"(A[3])`, or `data[3].z, data[2].w` at the end of a list of
`data[i].x, .y, .z, .w`; and one that walks through a vector's members the same way
(`"=r"(v.x), "=r"(v.x), "=r"(v.z), "=r"(v.w)`: `v.y` is never passed). The elements of one
walk are the operands that spell the same text around an integer-literal index (its last
subscript), read from each expression's syntax tree: a conversion of each element
(`__as_u32(acc[0])`, `__as_u32(acc[1])`...) walks `acc`; `a[1] + b[i]` is no element.

## Why is this bad?
It is a copy-and-paste slip in the index, and nothing else notices it: the statement compiles,
the instruction reads the repeated register in both places, and the skipped element is never
used, so the result is silently wrong (a matrix fragment with one register duplicated, a vector
store writing one lane twice). CUTLASS shipped both examples above (`arch/mma_sm90.h`'s f64
`mma.sync`, `arch/memory.h`'s 128-bit shared store) before fixing them.

An element repeated on purpose (a broadcast) leaves no hole in the walk, and is not flagged.
One defect, one finding: an input the template writes is an output bound in the input list
(`: "r"(a[0]), "r"(a[0]), "r"(a[2])` where the instruction's destination is `%0`), PTX105's
finding, and no element of the walk the instruction reads.

## Example
```cuda
asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
             "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
    : "=d"(D[0]), "=d"(D[1]), "=d"(D[2]), "=d"(D[3])
    : "d"(A[0]), "d"(A[2]), "d"(A[2]), "d"(A[3]), "d"(A[4]), "d"(A[5]), "d"(A[6]), "d"(A[7]),
      "d"(B[0]), "d"(B[1]), "d"(B[2]), "d"(B[3]),
      "d"(C[0]), "d"(C[1]), "d"(C[2]), "d"(C[3]));
```

## Use instead
```cuda
    : "d"(A[0]), "d"(A[1]), "d"(A[2]), "d"(A[3]), "d"(A[4]), "d"(A[5]), "d"(A[6]), "d"(A[7]),
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        # Only an array element or a vector member can be part of a walk, and a walk has three
        # of them: most statements have none (the "indexed-operands" gate), and are not asked.
        indexed = [o for o in statement.operands if _element(o.expression) is not None]
        if len(indexed) < 3:
            return
        # an input the template writes is an output bound in the input list (PTX105's
        # finding), no element of a walk it reads
        written = written_indices(statement) if any(
            o.role == "input" for o in indexed) else frozenset()
        for role in ("output", "input"):
            yield from self._walks(statement, [
                o for o in indexed if o.role == role
                and not (role == "input" and o.index in written and writes_of(statement, o.index))
            ])

    def _walks(self, statement: AsmStatement, operands: list[Operand]) -> Iterator[Finding]:
        # (text before, text after the position) -> its elements: one walk, the same text
        # around each index (one array with one member after it, one conversion of each...)
        walks: dict[tuple[str, str], list[tuple[int, Operand]]] = defaultdict(list)
        shapes: dict[tuple[str, str], Element] = {}
        for operand in operands:
            element = _element(operand.expression)
            if element is not None:
                key = (element.before, element.after)
                walks[key].append((element.index, operand))
                shapes.setdefault(key, element)
        # The longest walk over the same array (other members): how far the walks go.
        reach: dict[str, int] = defaultdict(lambda: -1)
        for key, walk in walks.items():
            base = shapes[key].base
            reach[base] = max(reach[base], max(i for i, _ in walk))
        for key, walk in walks.items():
            indices = [i for i, _ in walk]
            seen = set(indices)
            if len(walk) < 3 or len(seen) == len(indices):
                continue
            top = max(reach[shapes[key].base], max(indices))
            missing = [i for i in range(min(indices), top + 1) if i not in seen]
            if len(missing) != 1 or len(indices) - len(seen) != 1:
                continue  # one slip: exactly one element twice and exactly one never
            repeated = next(i for i in seen if indices.count(i) > 1)
            first, second = [o for i, o in walk if i == repeated][:2]
            skipped = shapes[key].spelled(missing[0])
            yield self.finding(
                statement,
                second.expression_span,
                f"{second.role} operand %{second.index} '{second.expression}' repeats operand "
                f"%{first.index}, and {skipped} is never passed: an index typo? "
                + ("The instruction reads the same register twice" if second.role == "input"
                   else "Both outputs write the same variable"),
            )
