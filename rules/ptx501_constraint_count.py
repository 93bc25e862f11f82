"""PTX501 constraint-count-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import API_NAMES, constraint_span, registers


class ConstraintCountMismatch(Rule):
    id = "PTX501"
    name = "constraint-count-mismatch"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "LLVM constraint string does not have one entry per register the call binds"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
For PTX in Python written in LLVM syntax, counts the outputs (`=` entries) and inputs of the
constraint string and compares them with the registers the call binds:

- Triton / helion / Pallas `inline_asm_elementwise`: outputs first, `pack` registers per result
  of a 32- or 64-bit type, `pack / min(pack, 32 / bits)` for narrower types (two `f16` or four
  `u8` share one register), then the same for every tensor of `args`. Where an element type is
  not knowable the rule uses the range Triton could bind (8-bit to 64-bit) and stays silent
  inside it;
- CuTe DSL `llvm.inline_asm`: one input per entry of `operands`, no output when `res` is `None`.

One defect, one finding: the template's `$N` are numbered against the operands the call binds,
so a `$N` past the string's operands (PTX001) or an entry no `$N` names (PTX009) is this
mismatch seen from the template, and those rules stay silent on it.

## Why is this bad?
Triton checks neither string: a constraint string with too few or too many entries reaches
LLVM, which aborts the Python process (SIGABRT, no exception) with *number of input constraints
does not match number of parameters*, *inline asm with one output cannot return struct* or
*number of output constraints does not match number of return struct elements* (Triton 3.6.0,
H100: research note rows 3a, 4a-4c, 5a, 5b). The packing rule is easy to get wrong: at `pack=2`
an `f16` result is *one* `r` register holding two halves, not two `h` registers.
MLIR's `llvm.inline_asm` (CuTe DSL, JAX Mosaic GPU) checks neither: with nvidia-cutlass-dsl
4.8.1, an input constraint with no operand kills the Python process at compile (SIGILL), and an
operand with no constraint is dropped without a word (a warning: what it carried never reaches
the template).

## Example
```python
# pack=2, float32: two registers per side
y = tl.inline_asm_elementwise("neg.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                              is_pure=True, pack=2)
# pack=2, float16: one register per side
h = tl.inline_asm_elementwise("neg.f16 $0, $2; neg.f16 $1, $3;", "=h,=h,h,h",
                              [x.to(tl.float16)], dtype=tl.float16, is_pure=True, pack=2)
```

## Use instead
```python
y = tl.inline_asm_elementwise("neg.f32 $0, $2; neg.f32 $1, $3;", "=r,=r,r,r", [x],
                              dtype=tl.float32, is_pure=True, pack=2)
h = tl.inline_asm_elementwise("neg.f16x2 $0, $1;", "=r,r", [x.to(tl.float16)],
                              dtype=tl.float16, is_pure=True, pack=2)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        found = analysis_of(statement).binding_mismatch
        if found is None:
            return
        call = found.call
        span = constraint_span(call)
        api = API_NAMES.get(call.api, call.api)
        outputs, inputs = found.outputs, found.inputs
        if found.operands is None:  # Triton's family
            wrong: list[str] = []
            have: list[str] = []
            if found.output_registers is not None:
                n = len(call.results or ())
                wrong.append(
                    f"{registers(found.output_registers)} for the {n} result"
                    f"{'s' if n != 1 else ''} ({_types(call.results)})"
                )
                have.append(f"{outputs} output{'s' if outputs != 1 else ''}")
            if found.input_registers is not None:
                n = len(call.args or ())
                dtypes = tuple(a.dtype for a in call.args or ())
                wrong.append(
                    f"{registers(found.input_registers)} for the {n} argument"
                    f"{'s' if n != 1 else ''} ({_types(dtypes)})"
                )
                have.append(f"{inputs} input{'s' if inputs != 1 else ''}")
            yield self.finding(
                statement,
                span,
                f"{api} binds {' and '.join(wrong)} at pack={call.pack}, but the "
                f"constraint string has {' and '.join(have)}: "
                + (
                    # the op counts entries itself, before Triton (torch 2.12's HOP)
                    "the op raises ValueError at the call"
                    if call.api == "torch" and call.pack == 1
                    else "LLVM aborts the process"
                ),
            )
            return
        # Measured with nvidia-cutlass-dsl 4.8.1 (cute.compile, sm_90a): a constraint with no
        # operand kills the process (SIGILL); an operand with no constraint is dropped.
        operands = found.operands
        fewer = operands < inputs
        yield self.finding(
            statement,
            span,
            f"{api} passes {operands} operand{'s' if operands != 1 else ''} "
            f"but the constraint string has {inputs} input{'s' if inputs != 1 else ''}: "
            + (
                "the compile kills the Python process (CuTe DSL 4.8.1: SIGILL)"
                if fewer
                else "the operands past the constraints are silently dropped"
            ),
            severity=None if fewer else Severity.WARNING,
        )


def _types(dtypes: tuple[str | None, ...] | None) -> str:
    if not dtypes:
        return "no element types"
    return ", ".join(d or "element type unknown" for d in dtypes)
