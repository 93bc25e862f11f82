"""PTX207 invalid-operand."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.operand_issues import MeantNumber, number_meant_as_operand, operand_findings
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Fix, PtxInstruction, PtxOperand, Severity
from ptxlint.rule import Rule, RuleContext


class InvalidOperand(Rule):
    id = "PTX207"
    name = "invalid-operand"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "Operand count, immediate value or operand syntax the instruction form rejects"
    tags = ("correctness", "operands", "ptx")
    docs = """\
## What it does
Checks the operands of every instruction whose form the instruction grammar knows
(`ptxlint/ptx/grammar_data.py`: arithmetic, logic, `cp.async`, `mbarrier`, barriers, fences,
warp collectives; `grammar_data_tensor.py`: `mma.sync`/`mma.sp`, `wgmma`, `tcgen05`,
`ldmatrix`/`stmatrix`...), and the operand list of any PTX instruction:

- the wrong number of operands for the form (`add.u32 %0, %1;`), or of elements in a vector:
  an `mma`/`wgmma` fragment or accumulator whose length follows the shape and type
  (`wgmma...m64n64k16.f32...` takes 32 accumulators), a `tcgen05.ld` destination whose length
  follows the shape and `.num`, the coordinates of a surface load or store (`suld`, `sust`),
  whose count follows the geometry (`.2d` two, `.3d` four);
- the data of a surface load or store that does not match its `.v2`/`.v4`: a vector where none
  is written (`sust.p.2d.b32 [%0, {%1, %2}], {%3, %4};`), which ptxas takes and stores or loads
  the first element of only, and a scalar under `sust`'s `.v2`/`.v4`, which ptxas takes with the
  registers after it;
- an immediate the form does not allow: the byte count of `cp.async.cg` (only 16), a barrier id
  outside 0..15, a register where only an immediate is allowed (`cp.async.wait_group %0` with
  `"r"`, a `wgmma` transpose flag), a sparsity selector outside the range of its `mma.sp` shape,
  a thread count that is no multiple of 32, a bulk-copy size that is no multiple of 16;
- a literal of the wrong class, as ptxas 13.0 reads them: an integer for a `.f32`/`.f64`
  operand (`add.f32 %0, %1, 1;`: write `1.0` or `0f3F800000`), a floating-point literal for an
  integer operand or a 64-bit descriptor, cache policy or mbarrier state (`1.0`), a `.f64`
  literal (`1.0`, `0d...`) for a `.b32` operand, any literal for `.f16`/`.bf16`/packed operands;
- an integer literal beside a float register in one vector, whatever the instruction's type
  (`mov.b64 %0, {%1, 16};` with `"f"(x)`, `st.global.v2.b32`, and in the families the grammar
  has no forms for, a `tex.grad`'s gradient `{%13, %14, %15, 16}`): ptxas 13.0 "Vector with
  elements of different types are not allowed" (a bit or integer register beside one is fine;
  an `"f"`/`"d"` operand is a float register only below sm_100, where nvcc declares it so: a
  statement built for sm_100+ only is judged with it untyped, as PTX206 does); where the
  literal's value is the number of an operand of the vector's role and letter that no `%N`
  names (`16` beside an unnamed `"f"` input 16), the finding says `%16` was likely meant, and
  PTX009 is silent on that operand (one typo);
- an operand that is not PTX at all: a C cast or expression left in the template
  (`cp.async.wait_group (int64_t)2;`), a register pair or vector where a scalar belongs (a
  vector of one, `{%1}`, stands for the scalar only in the data of `ld`, `ldu` and `st`, either
  operand of a `.bN` `mov`, and the data of a floating-point `multimem.ld_reduce` or `.st`:
  `red.global.add.f32 [%0], {%1};` is ptxas's "Vector is not expected", `add.u32 %0, {%1},
  %2;` its "Vector operand is not allowed"), a lone register where a vector of one belongs
  (`ldmatrix...x1.shared.b16 %0, [%1];`: ptxas "Vector of size 1 is expected"), an address
  where a register belongs;
- a special register where the instruction reads none: only `mov`, and `cvt` between integer
  types, take one as an operand of their own (`popc.b32 %0, %%lanemask_lt;`, `add.u32 %0, %1,
  %%laneid;`, `cvt.rn.f32.u32 %0, %%laneid;`: ptxas 13.0 "Special register argument not allowed
  for instruction"; copy it into a register with `mov` first). An element of a vector operand is
  none of its own: ptxas takes `st.global.v2.u32 [%0], {%%laneid, %1};`; an element of a special
  register that is no vector (`%%laneid.x`, `%%clock64.x`: ptxas "Unknown field '.x'"; the
  vectors %tid, %ntid, %ctaid, %nctaid and the cluster ids take `.x` to `.w`, or `.r` to `.a`),
  and one of those vectors read whole by an instruction other than `mov.v4` (`mov.u32 %0,
  %%tid;`: "Argument vector size mismatch");
- an address ptxas cannot read: two registers (`[%1+%2]`, unless `%2` is an `"n"` immediate),
  a register after an immediate (`[4+%1]`), a subtraction (`[%1-4]`: the offset is added,
  `[%1+-4]`), or an immediate address outside `.local` (`ld.shared.u32 %0, [16];`: ptxas
  "Immediate addresses allowed only for .local state space");
- a sink `_` in a value the instruction reads (`st.global.v2.u32 [%0], {%1, _};`: ptxas "Sink
  '_' not allowed as a source operand");
- a malformed list: a missing comma between operands, an empty operand.

An `"n"` operand is checked with its value when the C++ expression is an integer literal.

One defect, one finding (`ptxlint.analysis.roots`): silent where the operand at fault is an
asm operand whose constraint nvcc rejects (PTX002: `"m"`), whose type is no scalar (PTX005:
a `uint4` under `"r"`), or a `%N` with a GCC modifier (PTX007: `%H1`), and on an instruction
whose operands run into the next one where two string pieces meet without a `;` (PTX205:
`" cvt.u8.u16 datum, %1" " st.release.gpu.u8 [%0], datum;"` is one instruction of three
operands to ptxas, and one defect).

## Why is this bad?
ptxas rejects the file ("Argument 2 of instruction 'cp.async': unexpected value '4', expected
to be 16", "Arguments mismatch for instruction", "Parsing error near 'int64_t': syntax
error"), but only when it compiles the statement, which an `#if __CUDA_ARCH__` branch or an
uninstantiated template can postpone to a user's build. A surface store of a vector with no
`.v2`/`.v4` compiles, and writes one component of each texel: the others keep what was there.

## Example
```cuda
asm volatile("cp.async.cg.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(src));
asm volatile("cp.async.wait_group (int64_t)2;");
```

## Use instead
```cuda
asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(src));
asm volatile("cp.async.wait_group 2;");
```

## Fix safety
Three fixes, each where the source spells the operand literally. A lone register where the form
takes a vector of one is put in braces (`{%0}`): safe, the instruction reads and writes the
same register. A `cp.async.cg` of 4 or 8 bytes becomes `cp.async.ca`: unsafe, `.ca` also
caches the line in L1. A vector's bare number that names an operand nothing else names becomes
that operand's `%N`: unsafe, the vector then reads the operand instead of the constant.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        # what is reported is decided with PTX009, which stays silent on an operand whose %N
        # a reported vector spells as a bare number (ptxlint.analysis.operand_issues)
        arch = context.one_arch(analysis_of(statement))
        cuda_version = context.options.get("cuda_version")
        for found in operand_findings(statement, arch, cuda_version):
            span = self.template_span(statement, found.start, found.end)
            issue = found.issue
            if issue is None:  # a C-style operand, a malformed operand list
                yield self.finding(statement, span, found.message)
                continue
            if issue.one_element_vector:
                yield self.finding(statement, span, found.message,
                                   self._braces_fix(statement, found.start, found.end))
                continue
            message, fix = found.message, self._ca_fix(statement, found.instruction,
                                                       found.start)
            if fix is not None:
                message += ("; .cg copies 16 bytes only, '.ca' copies 4, 8 or 16 (and also "
                            "caches the line in L1)")
            elif issue.typed_floats:
                number = number_meant_as_operand(statement, arch, cuda_version)
                if number is not None and found.start <= number.literal.start < found.end:
                    meant = number.operand
                    message += (f"; but operand {meant.index} ({meant.expression}) is named by "
                                f"no %N: '{number.literal.text}' was likely meant as "
                                f"'%{meant.index}'")
                    fix = self._number_fix(statement, number)
            yield self.finding(statement, span, message, fix)

    def _number_fix(self, statement: AsmStatement, number: MeantNumber) -> Fix | None:
        """The bare number made the ``%N`` of the operand nothing names: unsafe, the vector
        then reads that operand instead of the constant."""
        literal = number.literal
        edit = self.template_edit(statement, literal.start, literal.end,
                                  f"%{number.operand.index}")
        if edit is None:
            return None
        return Fix(f"Read operand {number.operand.index} ('%{number.operand.index}') instead "
                   f"of the constant {literal.text}", (edit,), safe=False)

    def _braces_fix(self, statement: AsmStatement, start: int, end: int) -> Fix | None:
        """The lone register in braces: the one-element vector the form takes, the same
        register (safe: the instruction reads and writes exactly what it did)."""
        written = statement.template.text[start:end]
        edit = self.template_edit(statement, start, end, f"{{{written}}}")
        if edit is None:
            return None
        return Fix(f"Write the one-element vector '{{{written}}}'", (edit,))

    def _ca_fix(
        self, statement: AsmStatement, instruction: PtxInstruction, start: int
    ) -> Fix | None:
        """For a 4- or 8-byte ``cp.async.cg``: the same copy as ``cp.async.ca``, which takes
        those sizes (PTX ISA, cp.async: cp-size is 16 for .cg; 4, 8 or 16 for .ca). Unsafe: .ca
        also caches in L1, so what the copy costs and which cache holds the line change;
        widening the copy to 16 bytes instead would read 12 bytes past a 4-byte source, and
        misaligned addresses fault."""
        if instruction.opcode != "cp" or instruction.modifiers[:2] != ("async", "cg"):
            return None
        operands = instruction.operands
        if len(operands) < 3 or operands[2].start != start or _value(statement, operands[2]) \
                not in (4, 8):
            return None
        mnemonic = statement.template.text[instruction.opcode_start:instruction.opcode_end]
        at = mnemonic.find(".cg")
        if at < 0:
            return None
        begin = instruction.opcode_start + at
        edit = self.template_edit(statement, begin, begin + 3, ".ca")
        if edit is None:
            return None
        return Fix("Copy with cp.async.ca, which takes 4 and 8 bytes (also caches in L1)",
                   (edit,), safe=False)


def _value(statement: AsmStatement, operand: PtxOperand) -> int | None:
    text = operand.text.strip()
    if operand.kind == "ref" and operand.ref is not None and operand.ref < len(
            statement.operands):
        text = statement.operands[operand.ref].expression.strip().strip("()").strip()
    try:
        return int(text.rstrip("uUlL"), 0)
    except ValueError:
        return None
