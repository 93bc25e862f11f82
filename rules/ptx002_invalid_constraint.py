"""PTX002 invalid-constraint."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.constraints import LLVM_LETTERS, VALID_CLOBBERS, letter_problem
from ptxlint.model import AsmStatement, Finding, Severity, Span
from ptxlint.rule import Rule, RuleContext


class InvalidConstraint(Rule):
    id = "PTX002"
    name = "invalid-constraint"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("foreign-letters", "tied-operands", "foreign-clobbers", "llvm")
    summary = "Constraint letter or clobber that NVPTX does not have"
    tags = ("correctness", "constraints")
    docs = """\
## What it does
Flags operand constraints whose letters are not NVPTX's (`h r l q f d n C`, with the modifiers
`= + &`): GCC's `m`, `i`, `g`, `s`, `x`, `b`, clang's `c`, every other letter, and matching
constraints `"0"`..`"9"`. It also flags clobbers other than `"memory"`: `"cc"` and register
names such as `"r1"`. A clobber spelled as a constraint (`"r"`) in a statement whose outputs
are listed one `:` too late (`: : "=r"(a) : "r"`) is that shift's, PTX006's finding.

A constraint that comes from a macro ptxlint cannot resolve is left alone, and so is host
(x86/ARM) asm, which ptxlint does not lint. Code only clang compiles (clang's own
`__clang_cuda_*.h` headers, or a branch under `!defined(__NVCC__)`) may use clang's `i` and `c`.

## Why is this bad?
nvcc rejects every one of them in device code: `asm constraint letter 'm' is not allowed inside
a __device__/__global__ function`, `unknown asm constraint letter 'j'`, `asm operand type
size(4) does not match type/size implied by constraint '0'`, `The cc clobber constraint is not
supported in device code`, `unknown register name "r1"`. PTX has no memory operands, no
condition codes and no fixed registers for the compiler to save: pass addresses as `l` (or `r`
for a shared-window address), values in registers, and clobber `"memory"` where the template
touches memory.

## Example
```cuda
asm("ld.global.u32 %0, %1;" : "=r"(v) : "m"(*p));
asm("add.u32 %0, %1, 1;" : "=r"(x) : "0"(x));
asm volatile("bar.sync 0;" ::: "cc", "r1");
```

## Use instead
```cuda
asm("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
asm("add.u32 %0, %0, 1;" : "+r"(x));
asm volatile("bar.sync 0;" ::: "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        if analysis.rocm_guarded:
            return  # hipcc code: not nvcc's constraints
        if statement.syntax == "llvm":
            for operand in statement.operands:
                c = operand.constraint
                if not c.opaque:
                    yield from self._llvm(statement, operand.index, c.text, c.letters, c.span)
        for problem in analysis.constraint_problems:
            c = problem.operand.constraint
            advice = "; use '+' on the output instead" if problem.tied else ""
            yield self.finding(
                statement,
                c.span,
                f'constraint "{c.text}" of operand {problem.operand.index}: '
                f"{letter_problem(problem.letter[0])}{advice}",
            )
        shifted = analysis.shifted_clobbers
        for clobber in statement.clobbers:
            if clobber.name in VALID_CLOBBERS or clobber in shifted:
                continue
            if clobber.name == "cc":
                why = "the cc clobber is not supported in device code (PTX has no condition codes)"
            else:
                why = f'unknown register name "{clobber.name}" (only "memory" is valid)'
            yield self.finding(statement, clobber.span, f'clobber "{clobber.name}": {why}')

    def _llvm(
        self, statement: AsmStatement, index: int, text: str, letters: str, span: Span
    ) -> Iterator[Finding]:
        """LLVM constraint letters NVPTX knows: register classes, immediates ('n', 'i'), 'X'
        (anything), a tied operand number, or an explicit register in braces."""
        if letters.isdigit() or (letters.startswith("{") and letters.endswith("}")):
            return  # tied ("=r,0": PTX504 checks what it names) or `{%r1}`
        for letter in dict.fromkeys(letters):
            if letter not in LLVM_LETTERS:
                yield self.finding(
                    statement,
                    span,
                    f"constraint \"{text}\" of operand {index}: '{letter}' is not an NVPTX "
                    "constraint letter in LLVM syntax (registers: b h c r l f d q; immediates: "
                    "n i; anything: X)",
                )

