"""PTX105 input-operand-written."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.operand_access import (
    Access,
    reads_of,
    register_operand,
    writes_of,
    written_indices,
)
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Fix, Operand, Severity
from ptxlint.rule import Rule, RuleContext

from ._dataflow import input_to_output, reversed_mov_finding


class InputOperandWritten(Rule):
    id = "PTX105"
    name = "input-operand-written"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("inputs",)
    summary = "An input operand is a destination of an instruction in the template"
    tags = ("correctness", "optimizer", "operands")
    docs = """\
## What it does
Flags an operand bound as an input (no `=` or `+`) that an instruction of the template writes:
a destination register, each element of a vector destination (`{%0, %1}`), either half of a
`p|q` pair, the old value an `atom` returns, the state an `mbarrier.arrive` returns.

What counts as a write comes from the instruction model (`ptxlint/ptx/operand_roles.py`): the
address of a store (`st [%0], %1`), of a `red`, `cp.async` or `mbarrier.init` is read, not
written, and the sink `_` is no operand at all. It judges register operands only
(`h r l q f d`), and stays silent for a template with a macro piece, an operand section that
comes through a macro, and an instruction whose destinations ptxlint does not know (`call`,
an unknown opcode).

One defect, one finding: a `mov` written the wrong way round
(`ptxlint/analysis/reversed_mov.py`), which writes inputs from a register of the template's own
that nothing wrote (`.reg .b128 _v; mov.b128 {%1, %2}, _v; st... [%0], _v;`, CCCL 3.0.1's
128-bit atomic store), is one finding for the `mov`, not one per input, and its fix swaps the
`mov`'s operands: making the inputs outputs would compile and still store garbage. A copy
between two asm operands written backwards (`mov.u32 %1, %0;` with `%1` an input and `%0` a
write-only output nothing wrote before) is PTX106's one finding. Silent, too, in an instruction
that names a `%N` past the last operand (PTX001): a `.v4` load given two outputs names an input
as its third element, and the defect is the count. Likewise in a CuTe DSL `inline_ptx`
instruction with a placeholder the lowering numbers again (PTX510).

Where the template writes exactly one input and names one write-only output nowhere
(`mov.u32 %1, %1;` given `"=r"(d)` and `"r"(a)`), the write was most likely meant for that
output: the finding says so and offers its number as the fix (unsafe: the template then computes
what it was meant to), and PTX009 is silent on the output.

## Why is this bad?
In Python (Triton's `inline_asm_elementwise`) the same mistake is silent wrong results:
`lg2.approx.f32 $1, $1` clobbers the register that still holds the tensor `x`, so later uses of
`x` see the logarithm (Triton 3.6.0, H100: 1024 of 1024 elements wrong); a temporary declared
inside `{ }` fixes it. LLVM constraint strings have no `+`, so there is no automatic fix there.

An input tells the compiler the asm only reads it: after the statement the C++ variable still
holds the value it had, and the compiler may keep using the register it passed in, or a copy
of it, or share that register with another value that happens to be equal. The write is lost,
or worse, silently changes a value the compiler believes unchanged. With `nvcc -arch=sm_90 -O3`
(CUDA 13.0):

- `unsigned long long d = 5; asm("cvt.u64.u32 %0, %1;" :: "l"(d), "r"(x)); out[0] = d + 1;`
  stores the constant 6: the converted value is lost. With `"+l"(d)` nvcc emits the `add.s64`.
- CUTLASS's pattern `uint64_t wide = 0; asm("cvt.u64.u32 %0, %1;" :: "l"(wide), "r"(addr));`
  followed by an unrelated `asm("st.global.u64 [%0], %1;" :: "l"(out), "l"(zero))` with
  `zero = 0` stores the shared address, not 0: nvcc keeps both zeros in the one register the
  first asm overwrote. With `"=l"(wide)` the store gets its own `mov.u64 %rd4, 0;`.

tests/test_optimizer_evidence.py compiles all of them whenever nvcc is available. nvcc says
nothing.

## Example
```cuda
uint64_t state;
asm volatile("mbarrier.arrive.shared::cta.b64 %1, [%0];"
             :: "r"(smem_bar), "l"(state) : "memory");
```

## Use instead
```cuda
uint64_t state;
asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
             : "=l"(state) : "r"(smem_bar) : "memory");
// or, when the state is not needed, discard it with the sink:
asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_bar) : "memory");
```

## Fix safety
Unsafe: the fix moves the operand to the end of the outputs, as `+` when the template also
reads it and as `=` when it only writes it, and renumbers every `%N` the move shifts. That
changes the statement's C++ contract (the variable is now written), which may be what the
template always did, or may mean the template writes the wrong operand; the fix is not offered
when the expression is not an lvalue or is `const` (nvcc would warn #137 and PTX013 would
report the output). For a backwards `mov` the fix swaps its operands instead: unsafe too, since
the template then computes what it was meant to, not what it did.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if (
            not statement.extended
            or statement.opaque_sections
            or statement.template.has_holes
        ):
            return
        # the %N the template writes, asked once: most write no input, and the rule speaks
        # only of an input among them
        written = written_indices(statement)
        inputs = [o for o in statement.inputs if o.index in written]
        if not inputs or analysis_of(statement).rocm_guarded:
            return
        for operand in inputs:
            if not register_operand(operand) or operand.constraint.modifiers.strip("&"):
                continue  # an input with '=' or '+' is malformed: PTX006/PTX50x say so
            writes = writes_of(statement, operand.index)
            if not writes:
                continue
            write = writes[0]
            if analysis_of(statement).numbering_root(write.operand.start, write.operand.end):
                continue  # its instruction names a %N past the last operand: PTX001's defect
            mov = analysis_of(statement).reversed_mov(write.position)
            if mov is not None and operand.index in mov.inputs:
                continue  # a backwards copy from an output: PTX106's finding, one for the mov
            if mov is not None and mov.writes_inputs and operand.index in mov.refs:
                if operand.index == mov.refs[0]:  # one finding for the mov, not one per input
                    yield reversed_mov_finding(self, statement, mov)
                continue
            if statement.syntax == "llvm":
                # Triton/CuTe: no '+' in LLVM constraint strings, and the input is a tensor
                # register other code still reads (research note row 9: WRONG 1024/1024)
                yield self.finding(
                    statement,
                    self.template_span(statement, write.operand.start, write.operand.end),
                    f"input ${operand.index} ('{operand.constraint.text}'"
                    f"{', ' + operand.expression if operand.expression else ''}) is written by "
                    f"'{write.instruction.mnemonic}': the register still holds the tensor for "
                    "later uses, which see the clobbered value; write to a temporary declared "
                    "inside '{ }' (or to an output)",
                )
                continue
            bound = f"'{operand.constraint.text}'({operand.expression.strip()})"
            misdirected = analysis_of(statement).misdirected_write
            if misdirected is not None and misdirected[0] == operand.index:
                yield self._misdirected(statement, operand, bound, write, misdirected[1])
                continue
            facts = facts_for(context, statement)
            yield self.finding(
                statement,
                self.template_span(statement, write.operand.start, write.operand.end),
                f"input %{operand.index} ({bound}) "
                f"is written by '{write.instruction.mnemonic}': the compiler assumes an input "
                "keeps its value, so the write is lost or clobbers a register it still uses; "
                f"make it an output ('{_modifier(statement, operand)}"
                f"{operand.constraint.text}')",
                fix=input_to_output(self, statement, operand, _modifier(statement, operand), facts),
            )

    def _misdirected(
        self, statement: AsmStatement, operand: Operand, bound: str, write: Access,
        output: Operand,
    ) -> Finding:
        """The one input written where the one write-only output named nowhere was meant."""
        what = f" ({output.expression.strip()})" if output.expression.strip() else ""
        return self.finding(
            statement,
            self.template_span(statement, write.operand.start, write.operand.end),
            f"input %{operand.index} ({bound}) is written by '{write.instruction.mnemonic}', and "
            f"output %{output.index}{what} is named nowhere: the write was most likely meant for "
            f"it (did you mean %{output.index}?); as written, the compiler assumes the input "
            "keeps its value and the output receives an undefined one",
            fix=_renumber(self, statement, write, output),
        )


def _renumber(rule: Rule, statement: AsmStatement, write: Access, output: Operand) -> Fix | None:
    """Write ``output``'s number where the template writes the input (unsafe: it changes what
    the template computes, to what it was most likely meant to)."""
    edit = rule.template_edit(statement, write.operand.start, write.operand.end,
                              f"%{output.index}")
    return Fix(f"Write %{output.index} instead", (edit,), safe=False) if edit else None


def _modifier(statement: AsmStatement, operand: Operand) -> str:
    """``=`` when the template never reads the operand and always writes it, else ``+``."""
    if reads_of(statement, operand.index):
        return "+"
    analysis = analysis_of(statement).flow
    return "=" if analysis is not None and operand.index in analysis.definite else "+"
