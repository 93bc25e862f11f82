"""PTX014 unterminated-template-literal."""

from __future__ import annotations

from collections.abc import Iterator
from string import ascii_letters

from ptxlint.frontends.statement_problems import broken_literals
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import LEFT_OUT, Rule, RuleContext


class UnterminatedTemplateLiteral(Rule):
    id = "PTX014"
    name = "unterminated-template-literal"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = (LEFT_OUT,)
    summary = "A string literal of an asm template runs to the end of its line: nvcc rejects it"
    tags = ("correctness", "python")
    docs = """\
## What it does
Flags a string literal of an asm statement's template that runs to the end of its line, its
closing quote missing. A C++ string literal cannot hold a line break: a backslash at the end
of the line splices the next line on (and is not flagged), and a raw literal (`R"(...)"`) may
span lines (not flagged); any other line break ends the literal unterminated. The statement is
reported once, at its first such literal (the quote on the next line then opens a literal
where this one should have closed), and is not linted otherwise (what its template
would spell is no one's reading).

The usual cause is CUDA C++ held in a Python string that is not raw (PyTorch's `load_inline`
`cuda_sources`, CuPy's `RawKernel`, PyCUDA's `SourceModule`, ...): Python turns each `\\n`
of `"mov.b32 %0, %1;\\n"` into a line break before the compiler sees the source. Where the
line break the literal runs to is such an escape, the message says so.

## Why is this bad?
nvcc rejects the file (`error: missing closing quote`), as the C++ standard has every
compiler do (a `"` that starts no whole literal is ill-formed, [lex.pptoken]). For a source
held in a Python string, that happens only when the program runs and the string is compiled
(nvcc for `load_inline`, NVRTC for CuPy), with a message about a line of a source the user
never sees as such. In a group of `#if` that no
build takes, the preprocessor only warns: such a finding is marked latent.

## Example
```python
from torch.utils.cpp_extension import load_inline

cuda_src = \"\"\"
__global__ void k(unsigned *p) {
  unsigned r;
  asm volatile("mov.b32 %0, %1;\\n" : "=r"(r) : "r"(p[1]));
  p[0] = r;
}
\"\"\"
mod = load_inline("m", cpp_sources="", cuda_sources=cuda_src, functions=["k"])
```

## Use instead
A raw Python string keeps `\\n` as the two characters C++ reads as an escape (or write `\\\\n`);
the message names the raw form of the string as it opens (`r\"\"\"`, and `rf\"\"\"` for an
f-string, whose fields still work):
```python
cuda_src = r\"\"\"
__global__ void k(unsigned *p) {
  unsigned r;
  asm volatile("mov.b32 %0, %1;\\n" : "=r"(r) : "r"(p[1]));
  p[0] = r;
}
\"\"\"
```

## Fix safety
No fix is offered. Making the Python string raw changes the meaning of every other escape in
it (a `\\t`, a `\\\\`, a `\\"` or a `\\x41` then reaches the compiler as written), and the
string may be built from several pieces or names; in C++ the missing quote's place is a guess.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        broken = broken_literals(statement.problems)
        if not broken:
            return
        piece, escape, opening = broken[0]  # the literals after it are its echoes: the next
        # line's quote opens where this one should have closed
        message = (
            "this string literal of the asm template runs to the end of its line, its closing "
            "quote missing: nvcc rejects the file ('missing closing quote')"
        )
        if escape:
            message += (
                f"; the Python string that holds this CUDA source is not raw, so its '{escape}' "
                f"became a line break here: a raw string ({_raw(opening)}) or '\\\\n' keeps it"
            )
        yield self.finding(statement, statement.template.pieces[piece].span, message)


def _raw(opening: str) -> str:
    """The raw form of the Python string opened by ``opening`` (a quote or three, after the
    prefix letters): ``r`` before its other letters (an f-string's is ``rf``, a bytes string's
    ``rb``; a ``u`` string has none and becomes a plain ``r`` one), with its quotes; a raw
    triple-quoted string where the opening is not known."""
    quote = opening.lstrip(ascii_letters)
    if not quote:
        return 'r"""..."""'
    kept = "".join(c for c in opening[: len(opening) - len(quote)] if c not in "rRuU")
    return f"r{kept}{quote}...{quote}"
