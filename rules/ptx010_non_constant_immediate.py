"""PTX010 non-constant-immediate."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cxx_facts import FunctionFacts, facts_for
from ptxlint.analysis.operand_names import names_variables
from ptxlint.analysis.operand_summary import summary_of
from ptxlint.analysis.placement import argument_kind
from ptxlint.analysis.runtime_builtins import runtime_builtin
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Operand, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import TRITON_FAMILY

_NOT_INTEGRAL = {
    "floating": "a floating-point value",
    "pointer": "a pointer",
    "aggregate": "a struct/array/vector",
    "half": "a half-precision class value",
}


class NonConstantImmediate(Rule):
    id = "PTX010"
    name = "non-constant-immediate"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("immediate-operand", "llvm")
    summary = '"n" operand that is not an integral constant expression'
    tags = ("correctness", "constraints")
    docs = """\
## What it does
Flags an `"n"` (immediate) operand that nvcc will not accept as an integral constant
expression, where ptxlint can prove it: a CUDA built-in variable (`threadIdx.x`, `blockDim.x`,
`warpSize`), a value of floating-point, pointer or struct type, a bare enumerator (nvcc 13
rejects an expression of *enum* type as an immediate: `"n"(MyEnum::kValue)` fails while
`"n"((int)MyEnum::kValue)` works), and an expression that uses a function parameter or a local
variable of integral type that is not `constexpr` (nor `const` with a constant initializer).
nvcc checks this in the front end, before any inlining: `__forceinline__` and a caller that
always passes a literal do not help.

Template parameters (`template <int N>`), `constexpr` values, `const` integral locals
initialised from constants, `sizeof`/`alignof`/`decltype` operands, members (`Cfg::kTile`),
literals, casts to an integer type, parameters of class type (a `cute::Int<4>` converts
through a `constexpr` operator) and anything ptxlint cannot prove non-constant are accepted:
precision first. The C++ facts come from one pass over the enclosing function
(`ptxlint/analysis/cxx_facts.py`).

In Triton's `inline_asm_elementwise`, an argument is a tensor (a register per element) or a
compile-time constant: a literal, a `tl.constexpr` parameter or local, an expression of those,
which Triton lowers to an LLVM constant. `"n"` takes only the constant; the rule flags an
argument it proves to be a runtime value (a parameter that is not `tl.constexpr`, a
`tl.load`, `tl.arange` or other tensor-making call, a local assigned one) and stays silent on
constants and on what it cannot follow (`ptxlint.analysis.placement.argument_kind`).
Triton 3.9.0, compiling for sm_90: `"n"` on a `tl.constexpr` and on `MASK + 1` of a constexpr
`MASK` splices the numbers into the PTX (`lop3.b32 %r2, %r1, 983055, 983056, 0xEA`); on a
`tl.load`ed tensor LLVM reports `constraint 'n' expects an integer constant expression`, and
Triton goes on and emits the asm empty: the instruction silently disappears from the PTX
(tests/test_triton_immediates.py, where Triton is installed).

## Why is this bad?
`"n"` splices the value into the template text at compile time; nvcc rejects anything else:
`an asm operand must be an integral constant expression` (or, for a float or pointer, `asm
operand type size(N) does not match type/size implied by constraint 'n'`).

## Example
```cuda
enum { kStages = 4 };
asm volatile("cp.async.wait_group %0;" :: "n"(kStages));
asm volatile("bar.sync %0;" :: "n"(threadIdx.x / 32));

__device__ __forceinline__ void wait(int stages) {
  asm volatile("cp.async.wait_group %0;" :: "n"(stages));   // a parameter, even if inlined
}
```

## Use instead
```cuda
asm volatile("cp.async.wait_group %0;" :: "n"(static_cast<long long>(kStages)));
asm volatile("bar.sync %0;" :: "r"(threadIdx.x / 32));   // a register, not an immediate

template <int Stages>
__device__ __forceinline__ void wait() {
  asm volatile("cp.async.wait_group %0;" :: "n"(Stages));
}
```

## Fix safety
An enumerator is wrapped in `static_cast<long long>(...)`, which keeps its value: safe, except
for enums with a 64-bit underlying type, whose unsigned values above 2^63 would change (unsafe).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if analysis_of(statement).rocm_guarded:
            return  # hipcc code: not nvcc's constraints
        if statement.llvm is not None and statement.llvm.api in TRITON_FAMILY:
            yield from self._tensor_immediates(statement)
            return
        # the function's facts, read at the first "n" operand that names a variable: one
        # look-up of the function around the statement (a GMMA wrapper's 2 to 4 "n" operands
        # each asked it again)
        facts: FunctionFacts | None | bool = False  # False: not read yet
        # the inputs alone where no output is "n" (a wgmma's 128 outputs are registers)
        operands = statement.operands if summary_of(statement).immediate_outputs else (
            statement.inputs)
        for operand in operands:
            c = operand.constraint
            if c.opaque or c.letters != "n":
                continue
            if operand.role == "output" and analysis_of(statement).operand_root(operand.index):
                continue  # an immediate output: PTX006's (nvcc's message is the same)
            message, fix = _judge(statement, operand)
            if not message and names_variables(operand.expression):
                if facts is False:
                    facts = facts_for(context, statement)
                message = _variable(facts, operand)
            if message:
                yield self.finding(
                    statement,
                    operand.span,
                    f'"n" operand {operand.index} ({operand.expression}) {message}',
                    fix=fix,
                )

    def _tensor_immediates(self, statement: AsmStatement) -> Iterator[Finding]:
        """Triton passes a tensor or a runtime scalar as a register value, which an immediate
        constraint cannot take (research note row 3f); a compile-time constant (a literal, a
        ``tl.constexpr``) reaches LLVM as a constant, which it can. Only an argument the
        analysis proves to be a runtime value is flagged (``analysis.placement``)."""
        for operand in statement.inputs:
            c = operand.constraint
            if c.opaque or c.letters not in ("n", "i") or not operand.expression:
                continue
            if argument_kind(statement, operand.expression) != "runtime":
                continue  # a constexpr, a literal, or not known: silence
            yield self.finding(
                statement,
                operand.span,
                f'"{c.letters}" operand {operand.index} ({operand.expression}): a tensor or '
                "runtime value, which Triton passes in a register, never as a constant (LLVM: "
                "'constraint \\'n\\' expects an integer constant expression'); use 'r', make "
                "it a tl.constexpr, or write the constant into the template",
            )


def _variable(facts: FunctionFacts | None | bool, operand: Operand) -> str:
    """Why ``operand`` names a variable nvcc cannot treat as a constant, or ``""``: ``facts``
    are the enclosing function's (``None`` where not known)."""
    if not isinstance(facts, FunctionFacts):
        return ""
    found = facts.non_constant(operand.expression, operand.expression_span.start)
    if found is None:
        return ""
    name, why = found
    return (
        f"uses '{name}', {why}: not an integral constant expression, even where the function "
        "is inlined; make it a template parameter or constexpr, or pass it in a register"
    )


def _judge(statement: AsmStatement, operand: Operand) -> tuple[str, Fix | None]:
    ctype = operand.ctype
    if ctype is not None and ctype.kind in _NOT_INTEGRAL:
        return (
            f"is {_NOT_INTEGRAL[ctype.kind]} ('{ctype.spelling}'), not an integral constant",
            None,
        )
    if ctype is not None and ctype.kind == "enum":
        span = operand.expression_span
        text = statement.source.text[span.start : span.end]
        fix = Fix(
            "Convert the enumerator to an integer: static_cast<long long>(...)",
            (Edit(span, f"static_cast<long long>({text})"),),
            safe=ctype.size is not None and ctype.size < 8,
        )
        return (
            f"has enum type '{ctype.spelling}'; nvcc accepts only an integral constant "
            "expression here (cast it to an integer)",
            fix,
        )
    # CUDA built-in variables: values only known while the kernel runs (warpSize included:
    # nvcc 13 rejects it as an "n" operand)
    builtin = runtime_builtin(operand.expression)
    if builtin is not None:
        return (
            f"uses '{builtin}', which is only known at run time; pass it in a register ('r') "
            "instead",
            None,
        )
    return "", None
