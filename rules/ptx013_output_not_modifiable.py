"""PTX013 output-not-modifiable-lvalue."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cxx_facts import FunctionFacts, facts_for
from ptxlint.analysis.output_lvalues import output_problems
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class OutputNotModifiableLvalue(Rule):
    id = "PTX013"
    name = "output-not-modifiable-lvalue"
    pure = False  # reads the declarations of the operands' variables in the file
    scope = "statement"
    severity = Severity.ERROR
    needs = ("outputs",)
    summary = "An asm output that is no modifiable lvalue: nvcc rejects it, or writes a const"
    tags = ("correctness", "operands")
    docs = """\
## What it does
Flags an output operand (`=` or `+`) whose C++ expression nvcc cannot write
(`ptxlint.analysis.output_lvalues`, measured against nvcc 13.0 by
tests/test_nvcc_oracle_expressions.py):

* **error**, nvcc says "expression must be a modifiable lvalue": a literal, an arithmetic,
  logical or comparison expression (`x + 1`, `-x`, `!x`, `&x`), a postfix `x++`, a `sizeof`, a
  braced temporary or a member of one (`int{}`, `S{}.a`), `std::move(x)`, a lambda called for a
  value, and a cast that converts (`(long)i`, `(float)i`, `(char)i` of an `int`);
* **error**, nvcc says "a compound lvalue is not allowed as an asm output operand": a
  conditional `c ? x : y`, a comma expression, a prefix `++x`/`--x`, a compound assignment
  `x += 1`. C++ calls each of these an lvalue; nvcc's front end does not take them;
* **warning**, nvcc warns "expression must be a modifiable lvalue" (#137) and compiles: an
  output that is `const`: a `const` or `constexpr` local or parameter, a `const` reference, an
  element behind a pointer to `const`, a cast to a `const` reference, the built-ins
  `threadIdx`, `blockIdx`, `blockDim`, `gridDim`.

It stays silent where nvcc accepts: names, members, subscripts, dereferences (`*p++`), a plain
assignment (`x = y`), reference casts (`(unsigned&)f`), casts between integer types of one
size (nvcc ignores them, warning #1156), bit-fields, `register` variables; and wherever the text
does not settle it: a call whose return type is not in view, a template-id, a member of a
`const` object (it may be `mutable`), a cast of an operand whose type is unknown or dependent.

## Why is this bad?
The errors stop the build; the statement usually sits in a template or a header that one
configuration instantiates, so the break arrives late, in someone else's build. The warning
compiles into an asm that writes storage the compiler assumes never changes: a `constexpr` or
`const` initialised from a constant is folded at every use, so the value the asm wrote is never
read; a built-in like `threadIdx.x` is re-read from its special register.

## Example
```cuda
__device__ unsigned lanes(bool hi, unsigned &a, unsigned &b) {
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(hi ? a : b));
  return a + b;
}
```

## Use instead
```cuda
__device__ unsigned lanes(bool hi, unsigned &a, unsigned &b) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  (hi ? a : b) = lane;
  return a + b;
}
```

## Fix safety
No fix: where the value should go is the author's choice.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm" or not statement.outputs:
            return
        parsed = context.parsed
        if parsed is not None and getattr(parsed, "text", None) is not statement.source.text:
            parsed = None

        def facts() -> FunctionFacts | None:
            return facts_for(context, statement)

        problems = output_problems(statement, facts, parsed)  # type: ignore[arg-type]
        # hipcc code is not nvcc's front end; asked only with a problem in hand (the statement
        # analysis for every statement with an output was 220 bytes a statement of a file's peak)
        if not problems or analysis_of(statement).rocm_guarded:
            return
        for problem in problems:
            operand = problem.operand
            if problem.error:
                verdict = "nvcc rejects it"
            else:
                verdict = "nvcc only warns and compiles an asm that writes a const object"
            yield self.finding(
                statement,
                operand.expression_span,
                f"output {operand.index} ({operand.expression.strip()}) is {problem.what}: "
                f"{verdict} ('{problem.nvcc}')",
                severity=None if problem.error else Severity.WARNING,
            )
