"""PTX006 bad-constraint-modifier."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span
from ptxlint.rule import Rule, RuleContext

_IMMEDIATE_LETTERS = frozenset(("n", "C"))


class BadConstraintModifier(Rule):
    id = "PTX006"
    name = "bad-constraint-modifier"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("misplaced-modifiers",)
    summary = "Constraint modifier does not fit the operand's role"
    tags = ("correctness", "constraints")
    docs = """\
## What it does
Flags an output operand whose constraint has neither `=` (write-only) nor `+` (read-write), an
input operand whose constraint has `=` or `+`, and any modifier on the immediate constraints
`n` and `C`. An output under `n` or `C` (`"=n"(r)`) is one finding: an output is written, so it
needs a register letter (nvcc: "an asm operand must be an integral constant expression", or
"No constraint modifiers are allowed for the 'C' constraint"); PTX010 (the value is no
constant) and PTX207 (an immediate where the instruction writes a register) are silent on it.

A statement with no inputs whose outputs all lack `=` and `+` and are only read by the template
(`stmatrix...[%0], {%1, %2};` given `: "r"(p), "r"(a), "r"(b)`) is one finding, not one per
operand: its inputs are written one `:` too early (an asm without outputs starts its inputs
with `::`), and the fix makes them the input list. Where the template writes one of them, each
output without `=` or `+` is its own finding.

Likewise a statement with an empty output list whose inputs all have `=` or `+`
(`: : "=r"(a), "=r"(b) : "r"`) is one finding, at its first operand: its outputs are written one
`:` too late (nvcc: "an asm input operand may not have the '=' or '+' modifiers", once per
operand). Clobbers spelled as constraints (`"r"`) are then the input list the `:` pushed on:
PTX002 is silent on them, and PTX001 on a `%N` they would number.

## Why is this bad?
The modifier tells the compiler how data flows through the operand. nvcc rejects an output
without `=`/`+` and an input with one; a modifier on `n` (an integer constant) or `C` (a
constant string spliced into the template) has no meaning and is rejected too.

## Example
```cuda
asm("mov.u32 %0, %1;" : "r"(out) : "r"(in));      // output without '='
asm("add.u32 %0, %0, %1;" : "=r"(x) : "+r"(y));   // input with '+'
```

## Use instead
```cuda
asm("mov.u32 %0, %1;" : "=r"(out) : "r"(in));
asm("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
```

## Fix safety
Adding the missing `=` to an output is safe: the code did not compile before, and `=` is the
meaning an output without a modifier is closest to. Making the operand list an input list
(`::`) is unsafe: it is what a template that only reads every operand means, but which list
an operand belongs in is the author's call. Other cases have no automatic fix, because
whether the operand should move to the other list is a decision about the code's intent.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm":
            return  # LLVM inline asm (Triton, CuTe DSL): the PTX5xx rules judge it
        early = analysis_of(statement).early_inputs
        if early:
            # one colon, not each operand: inputs written where the outputs go
            listed = ", ".join(f"%{o.index}" for o in early)
            yield self.finding(
                statement,
                early[0].constraint.span,
                f"the operands after the first ':' ({listed}) have neither '=' nor '+', and "
                "the template only reads them: inputs listed one ':' too early (an asm "
                "without outputs starts its inputs with '::'); nvcc rejects an output "
                "without '=' or '+'",
                fix=_as_inputs(statement),
            )
            return
        late = analysis_of(statement).late_outputs
        if late:
            # one colon, not each operand: outputs written where the inputs go
            listed = ", ".join(f"%{o.index}" for o in late) if len(late) < 4 \
                else f"%{late[0].index}..%{late[-1].index}"
            shifted = analysis_of(statement).shifted_clobbers
            pushed = ""
            if shifted:
                names = ", ".join(f'"{c.name}"' for c in shifted)
                pushed = f"; the clobbers {names} are constraints, the inputs the ':' pushed on"
            yield self.finding(
                statement,
                late[0].constraint.span,
                f"the output list is empty and every operand after the second ':' ({listed}) "
                f"has '=' or '+': outputs listed one ':' too late{pushed}; nvcc rejects an "
                "input with '=' or '+'",
            )
            return
        for operand in statement.operands:
            c = operand.constraint
            if c.opaque:
                continue
            if operand.role == "output" and c.letters in _IMMEDIATE_LETTERS:
                yield self.finding(
                    statement,
                    c.span,
                    f"output operand {operand.index} (\"{c.text}\") has an immediate "
                    f"constraint ('{c.letters}'): an output is written, so it needs a register "
                    "letter ('=r', '=l'...); nvcc rejects it",
                )
            elif c.modifiers and not _IMMEDIATE_LETTERS.isdisjoint(c.letters):
                yield self.finding(
                    statement,
                    c.span,
                    f"constraint \"{c.text}\": modifier '{c.modifiers}' on an immediate "
                    f"constraint ('{c.letters}') has no meaning",
                )
            elif operand.role == "output" and not ("=" in c.modifiers or "+" in c.modifiers):
                yield self.finding(
                    statement,
                    c.span,
                    f"output operand {operand.index} (\"{c.text}\") has neither '=' nor '+'",
                    fix=_insert_equals(statement, c.span),
                )
            elif operand.role == "input" and ("=" in c.modifiers or "+" in c.modifiers):
                yield self.finding(
                    statement,
                    c.span,
                    f'input operand {operand.index} ("{c.text}") has an output modifier; '
                    "read-write operands belong in the output list with '+'",
                )


def _as_inputs(statement: AsmStatement) -> Fix | None:
    """The output list made the input list: a second ':' after the first, and the empty input
    list's own ':' taken away where a clobber list follows it. One replacement up to the
    closing parenthesis, so that a fix which adds a section (PTX102's clobber) waits for the
    next pass and is worked out on the new sections."""
    colons = statement.colons
    text = statement.source.text
    end = statement.span.end
    if not colons or len(colons) > 3 or text[end - 1 : end] != ")":
        return None  # (asm goto's labels: not this shape)
    if any(text[c] != ":" for c in colons):
        return None
    first = colons[0]
    rest = text[first + 1:end]
    if len(colons) > 1:
        at = colons[1] - first - 1
        # the colon and a blank before it, where blanks stand on both sides of it
        gap = 1 if rest[at - 1:at] == " " and rest[at + 1:at + 2] == " " else 0
        rest = rest[:at - gap] + rest[at + 1:]
    return Fix("Make the operands inputs: the list after '::'",
               (Edit(Span(first, end), "::" + rest),), safe=False)


def _insert_equals(statement: AsmStatement, span: Span) -> Fix | None:
    literal = statement.source.text[span.start : span.end]
    quote = literal.find('"')
    if quote < 0 or 'R"' in literal[: quote + 1]:
        return None
    at = span.start + quote + 1
    return Fix("Make the output write-only with '='", (Edit(Span(at, at), "="),))
