"""PTX008 percent-escape."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.template_refs import percents_rewritten, refs_of
from ptxlint.model import HOLE, AsmStatement, Finding, Fix, PercentToken, Severity, Span
from ptxlint.rule import Rule, RuleContext


class PercentEscape(Rule):
    id = "PTX008"
    name = "percent-escape"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("percent-escapes",)
    summary = "'%' written the wrong way for the kind of asm statement"
    tags = ("correctness", "template")
    docs = """\
## What it does
Checks how `%` is spelled, which depends on the kind of statement:
- nvcc rewrites `%` only in a statement with operands (13.0, measured). *Basic* asm (no
  colon) and extended asm whose operand lists are all empty (`asm volatile("..." ::: "memory")`)
  are passed to ptxas verbatim, so `%%clock` reaches ptxas as `%%clock`, and `%=` as `%=`: a
  syntax error (**error**). A single `%clock` is right there, and is not flagged;
- a `%` at the very end of an *extended* template crashes nvcc 13.0 with an internal compiler
  error (**error**);
- *extended* asm naming a PTX register or special register with a single `%` (`%clock`,
  `%tid.x`, `%r1`): nvcc 13.0 passes it through, clang rejects it (*invalid % escape*), and the
  CUDA inline PTX guide requires `%%` (**warning**). One finding per name, at its first use,
  counting the others, with one fix for them all: a register the template declares and uses
  as `%rx` throughout is one habit, not a defect per use. A name that starts with `_` or `$`
  (`%_t`) is not passed through: nvcc 13.0 drops the `%` and that first character, so ptxas
  reads `t` (still a **warning**: every use is renamed alike);
- *extended* asm with a single `%` before anything that is not a name, a digit, `%`, `=` or
  `[` (`add.u64 m, 3%, %4`, `% 2`): nvcc 13.0 drops the `%` *and the character after it*
  (measured), so ptxas reads `add.u64 m, 3%rd5` with the comma gone; clang rejects it
  (**error**, no fix: only the author knows what the `%` was for).

`%=` (a number unique to the statement instance) is fine in extended asm with operands.

In Python's LLVM-syntax APIs (Triton `inline_asm_elementwise`, CuTe DSL `llvm.inline_asm`,
llvmlite `InlineAsm`) `%` is not special at all and operands are `$N`: `%%laneid` reaches ptxas
as `%%laneid` (*Parsing error near '%'*, Triton 3.6.0) and the CUDA habit `%0` is the unknown
symbol `%0` (**error** for both; `%laneid` and `$0` are right). A `$` that is not `$N`, `${N}`,
`${:uid}` or `$$` is an LLVM error.

## Why is this bad?
The C++ front end rewrites `%` only in extended asm with operands. Writing the escape where
none is processed (or leaving it out where it is) hands ptxas text other than what the author
read: a syntax error at best, and code that another compiler (clang) rejects at worst.

## Example
```cuda
asm volatile("{ .reg .u32 t; mov.u32 t, %%clock; }");  // basic asm with %%
asm volatile("mov.u32 %0, %clock;" : "=r"(t));     // extended asm with a single %
```

## Use instead
```cuda
asm volatile("{ .reg .u32 t; mov.u32 t, %clock; }");
asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
```

## Fix safety
Both rewrites are safe: they produce the text ptxas was meant to see.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm":
            yield from self._llvm(statement)
            return
        # nvcc rewrites `%` only in a statement with operands (13.0, measured): basic asm, and
        # extended asm whose operand lists are all empty (`::: "memory"`), reach ptxas verbatim
        processed = percents_rewritten(statement)
        unexpanded = False  # a `%=` of such a statement reported
        # The template index's escapes alone (most tokens are plain operand references); a
        # source span only for a finding.
        refs = refs_of(statement)
        # a `%=` with operands is a number unique to the statement instance: fine
        tokens = refs.escapes if processed else sorted(refs.escapes + refs.unique,
                                                       key=lambda t: t.start)
        bare_names: dict[str, list[PercentToken]] | None = None  # a name's uses, on demand
        for token in tokens:
            if token.kind not in ("escape", "trailing", "bare", "unique"):
                continue
            span = self.template_span(statement, token.start, token.end)
            if not processed:
                if token.kind == "unique":
                    if unexpanded:
                        continue  # one finding for the statement's `%=`s: one cause
                    unexpanded = True
                yield from self._verbatim(statement, token, span)
                continue
            if token.kind == "trailing":
                yield self.finding(
                    statement,
                    span,
                    "a '%' at the end of an extended asm template crashes nvcc (internal "
                    "compiler error); write '%%' for a literal percent sign",
                )
            elif token.kind == "bare" and not token.name:
                after = statement.template.text[token.end : token.end + 1]
                if after != HOLE:  # before a piece the front end could not read: unknown
                    yield self._dropped(statement, after, span)
            elif token.kind == "bare":
                if bare_names is None:
                    bare_names = {}
                    for t in tokens:
                        if t.kind == "bare":
                            bare_names.setdefault(t.name, []).append(t)
                uses = bare_names[token.name]
                if uses[0] is not token:
                    continue  # the name's first use speaks for it
                edits = [self.template_edit(statement, t.start, t.start + 1, "%%") for t in uses]
                more = len(uses) - 1
                also = (f" (and {more} more use{'s' if more > 1 else ''} of it in this "
                        "statement)") if more else ""
                # nvcc 13.0 drops a '%' together with the character after it unless that is
                # a letter, a digit, '%', '=' or '[' (measured): '%_t' reaches ptxas as 't'
                rest = token.name[1:]
                nvcc = ("nvcc passes it through" if token.name[0].isalpha() else
                        f"nvcc drops the '%{token.name[0]}', so ptxas reads "
                        + (f"'{rest}'" if rest else "nothing of it"))
                yield self.finding(
                    statement,
                    span,
                    f"'%{token.name}' in extended asm must be written '%%{token.name}'{also}: a "
                    f"single '%' introduces an operand (clang rejects it, {nvcc})",
                    fix=Fix("Escape the register as '%%'", tuple(e for e in edits if e))
                    if all(edits) else None,
                    severity=Severity.WARNING,
                )

    def _dropped(self, statement: AsmStatement, after: str, span: Span) -> Finding:
        """A ``%`` before ``after``, a character that starts no operand, escape or name
        (``3%,``): nvcc 13.0 drops the ``%`` and that character both (measured), so ptxas never
        sees the character; clang rejects the statement."""
        shown = {" ": "a space", "\t": "a tab", "\n": "a newline"}.get(after, f"'{after}'")
        return self.finding(
            statement,
            span,
            f"a single '%' before {shown} in extended asm: nvcc drops the '%' and the character "
            "after it, so ptxas reads the template without them (clang rejects it); write '%%' "
            "for a PTX '%', or remove the stray '%'",
        )

    def _verbatim(self, statement: AsmStatement, token: PercentToken,
                  span: Span) -> Iterator[Finding]:
        """A ``%`` token of a statement nvcc passes to ptxas verbatim: ``%%`` and ``%=`` stay
        as written (ptxas: "Parsing error near '%'"); ``%laneid`` is right as it is."""
        what = ("basic asm (no operands)" if not statement.extended
                else "an asm without operands (its lists empty)")
        if token.kind == "escape":
            edit = self.template_edit(statement, token.start, token.end, "%")
            yield self.finding(
                statement,
                span,
                f"{what} is passed to ptxas verbatim: '%%' stays '%%' and is a syntax error; "
                "write a single '%'",
                fix=Fix("Replace '%%' with '%'", (edit,)) if edit else None,
            )
        elif token.kind == "trailing":
            yield self.finding(
                statement,
                span,
                f"{what} is passed to ptxas verbatim: the '%' at the end of the template is a "
                "syntax error there; drop it, or write '%%' once the statement has operands",
            )
        elif token.kind == "unique" and statement.extended:
            yield self.finding(
                statement,
                span,
                f"{what} is passed to ptxas verbatim: '%=' is not expanded and is a syntax "
                "error; nvcc numbers '%=' only in a statement with operands",
            )

    def _llvm(self, statement: AsmStatement) -> Iterator[Finding]:
        """LLVM syntax (Triton, CuTe DSL, llvmlite): ``%`` is an ordinary character and
        operands are ``$N``, so ``%%laneid`` and ``%0`` reach ptxas as written."""
        comments = statement.ptx.comments
        for token in refs_of(statement).escapes:  # the kinds below are among them
            if any(start <= token.start < end for start, end in comments):
                continue
            span = self.template_span(statement, token.start, token.end)
            if token.kind == "escape":
                edit = self.template_edit(statement, token.start, token.end, "%")
                yield self.finding(
                    statement,
                    span,
                    "'%' is not an escape in LLVM inline asm (Triton, CuTe DSL): '%%' reaches "
                    "ptxas as '%%', a syntax error; write a single '%' ('%laneid')",
                    fix=Fix("Replace '%%' with '%'", (edit,)) if edit else None,
                )
            elif token.kind == "bare" and token.name.isdigit():
                edit = self.template_edit(statement, token.start, token.start + 1, "$")
                yield self.finding(
                    statement,
                    span,
                    f"'%{token.name}' is not an operand in LLVM inline asm: ptxas sees the "
                    f"unknown symbol '%{token.name}'; write '${token.name}'",
                    fix=Fix("Write the operand as '$N'", (edit,)) if edit else None,
                )
            elif token.kind == "bad-dollar":
                yield self.finding(
                    statement,
                    span,
                    f"'{statement.template.text[token.start : token.end]}' is not an LLVM "
                    "operand ('$N', '${N}', '${:uid}'); write '$$' for a literal '$'",
                )
