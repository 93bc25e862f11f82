"""PTX405 unsupported-pragma."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.pragmas import (
    ARGUMENT_TAKING,
    KNOWN,
    PER_FUNCTION_MACROS,
    PER_FUNCTION_REJECTED,
    pragmas_of,
    unsupported,
)
from ptxlint.ptx.targets import left_out_where_defined
from ptxlint.rule import Rule, RuleContext


class UnsupportedPragma(Rule):
    id = "PTX405"
    name = "unsupported-pragma"
    pure = True
    scope = "statement"
    severity = Severity.WARNING  # error where every build's ptxas stops
    needs = ("directives",)
    summary = "A .pragma string ptxas ignores, or rejects in builds that compile the statement"
    tags = ("correctness", "toolkit")
    docs = """\
## What it does
Reads the strings of each `.pragma` directive in a template and flags:

- a string whose name the PTX ISA does not have (its pragmas are `nounroll`,
  `used_bytes_mask`, `frequency` and `enable_smem_spilling`; names are case-sensitive), whose
  name follows whitespace (`" nounroll"`), or `nounroll` with anything after it
  (`"nounroll 4"`): a warning;
- `used_bytes_mask` or `frequency` without its argument: an error;
- `enable_smem_spilling` where no `#if` around the statement leaves out the builds whose ptxas
  compiles function by function: `-rdc=true` (nvcc defines `__CUDACC_RDC__`) and `-G`
  (`__CUDACC_DEBUG__`). A warning naming the options the guards let in: whether the project
  builds that way is its own to say.

A string a macro or an operand fills in is not read. The build-mode check is for C++ asm
statements (their `#if` guards); a Python DSL's template gets the first two only.

## Why is this bad?
Checked with ptxas 13.0 in a kernel's body: an unknown pragma assembles with "ptxas warning :
Pragma 'unroll' unsupported" (the whole string quoted: "Pragma 'nounroll 4' unsupported") and
does nothing, so a misspelt `nounroll` or
`enable_smem_spilling` silently loses its effect; `.pragma "frequency";` stops the build
("Argument(s) to pragma 'frequency' cannot be empty"). `enable_smem_spilling` (PTX ISA 9.0)
is taken in whole-program compilation only: built with `-rdc=true` (without `-dlto`), or with
`-G`, ptxas stops with "Pragma 'enable_smem_spilling' is not allowed for per-function
compilation modes". A project whose release build is whole-program finds out when someone
builds it for debugging, or links it as a relocatable library.

## Example
```cuda
#if defined(__CUDA_ARCH__) && CUDART_VERSION >= 13000
#define SPILL_TO_SHARED_MEMORY asm volatile(".pragma \\"enable_smem_spilling\\";")
#endif

__global__ void kernel(float* x) {
  asm volatile(".pragma \\"no_unroll\\";");
  for (int i = 0; i < 8; ++i) x[i] *= 2.f;
}
```

## Use instead
```cuda
#if defined(__CUDA_ARCH__) && CUDART_VERSION >= 13000 && !defined(__CUDACC_RDC__) && \\
    !defined(__CUDACC_DEBUG__)
#define SPILL_TO_SHARED_MEMORY asm volatile(".pragma \\"enable_smem_spilling\\";")
#endif

__global__ void kernel(float* x) {
  asm volatile(".pragma \\"nounroll\\";");
  for (int i = 0; i < 8; ++i) x[i] *= 2.f;
}
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for directive in statement.ptx.directives:
            if directive.name != ".pragma":
                continue
            for pragma in pragmas_of(directive.text, directive.start):
                span = self.template_span(statement, pragma.start, pragma.end)
                if unsupported(pragma):
                    close = [pragma.name] if pragma.name in KNOWN else difflib.get_close_matches(
                        pragma.name.lower(), sorted(KNOWN), 1, 0.75)
                    meant = f" (did you mean '{close[0]}'?)" if close else ""
                    yield self.finding(
                        statement, span,
                        f"ptxas does not know the pragma '{pragma.text}'{meant}: it assembles "
                        f"with \"Pragma '{pragma.text}' unsupported\" and does nothing; the "
                        "PTX ISA's pragmas are nounroll, used_bytes_mask, frequency and "
                        "enable_smem_spilling, each at the start of its string (nounroll "
                        "alone in it)")
                elif pragma.name in ARGUMENT_TAKING and not pragma.has_argument:
                    yield self.finding(
                        statement, span,
                        f"the pragma '{pragma.name}' takes an argument: ptxas stops with "
                        f"\"Argument(s) to pragma '{pragma.name}' cannot be empty\"",
                        severity=Severity.ERROR)
                elif pragma.name in PER_FUNCTION_REJECTED and statement.syntax == "gnu":
                    options = _options_let_in(statement)
                    if options:
                        yield self.finding(
                            statement, span,
                            f"'{pragma.name}' is taken in whole-program compilation only: "
                            f"built with {' or '.join(options)}, ptxas stops with \"Pragma "
                            f"'{pragma.name}' is not allowed for per-function compilation "
                            "modes\", and no #if around it leaves those builds out; guard it "
                            "with " + " && ".join(
                                f"!defined({macro})" for macro, _ in PER_FUNCTION_MACROS))


def _options_let_in(statement: AsmStatement) -> list[str]:
    """The nvcc options that make ptxas compile function by function and that the statement's
    guards do not leave out."""
    guards = analysis_of(statement).guards
    macros = statement.context.guard_macros
    return [option for macro, option in PER_FUNCTION_MACROS
            if not left_out_where_defined(guards, macro, macros)]
