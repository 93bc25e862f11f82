"""PTX216 reduction-signedness-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.operand_use import value_types
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, PtxOperand, Severity
from ptxlint.ptx.address_bases import address_bases
from ptxlint.rule import Rule, RuleContext

# The instructions that combine a value with memory by an integer min or max: the ISA's
# ``atom``, ``red``, ``red.async``, ``multimem.red``, ``multimem.ld_reduce`` and
# ``cp.reduce.async.bulk``; the first address is the memory combined into.
_REDUCING = frozenset({"atom", "red", "multimem", "cp"})
_ORDERING = frozenset({"min", "max"})
_INTEGER_TYPES = {"u32": (False, 4), "s32": (True, 4), "u64": (False, 8), "s64": (True, 8)}


class ReductionSignednessMismatch(Rule):
    id = "PTX216"
    name = "reduction-signedness-mismatch"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("instructions",)
    summary = ("An atomic or reduction min/max compares memory with the other signedness than "
               "the C++ object it points to")
    tags = ("correctness", "operands", "atomics")
    docs = """\
## What it does
Flags an integer `.min` or `.max` of `atom`, `red`, `red.async`, `multimem.red`,
`multimem.ld_reduce` or `cp.reduce.async.bulk` whose type's signedness (`.u32`/`.u64` against
`.s32`/`.s64`) is not that of the C++ integer its address operand points to, where the operand
is a pointer to an integer of the type's size (`"l"(p)` with `long long *p` and
`atom.global.max.u64`). The address's operand is found as PTX301 finds it: `[%0]`,
`[%0+8]`, or a register the template copies `%0` into. The pointer's type is read as the front
end reads every operand's (`CType.pointee`); a `void *`, an integer holding an address (`uintptr_t`,
`__cvta_generic_to_shared`'s result), a pointer to another size or a type ptxlint cannot
resolve is not judged, nor are the register forms `min`/`max`, where comparing signed values
as unsigned is a known idiom (a negative index clamps to the bound).

## Why is this bad?
The instruction's type decides the comparison (PTX ISA, `atom`/`red`: the operation is
performed on the memory at the address as the instruction type; `min`/`max`: "Integer (signed
and unsigned)"). As unsigned, a negative `long long` is larger than every positive one: an
`atom.max.u64` over signed values keeps `-1` against `5`, and an `atom.min.u64` never moves
from a negative start. The statement compiles and runs, and the result is wrong only once a
negative value (or, the other way round, one with the top bit set) meets the comparison: Kokkos'
desul generated `red.min.u64` for `int64_t` (kokkos/kokkos 8181d7075 fixed it to `.s64`).

## Example
```cuda
__device__ void atomic_max(long long *address, long long value) {
  asm volatile("red.global.max.u64 [%0], %1;" :: "l"(address), "l"(value) : "memory");
}
```

## Use instead
```cuda
__device__ void atomic_max(long long *address, long long value) {
  asm volatile("red.global.max.s64 [%0], %1;" :: "l"(address), "l"(value) : "memory");
}
```

## Fix safety
No automatic fix: either the instruction's type or the object's declaration may be the one
that is wrong.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        seen: set[int] = set()
        # the base of each address, through copies into registers (``address_bases``, PTX301's)
        for base in address_bases(statement.ptx):
            instruction = base.use.instruction
            if id(instruction) in seen or instruction.opaque \
                    or instruction.opcode not in _REDUCING \
                    or _ORDERING.isdisjoint(instruction.modifiers) \
                    or base.use.operand is not _first_address(instruction):
                continue
            seen.add(id(instruction))
            words = value_types(instruction) & _INTEGER_TYPES.keys()
            if len(words) != 1 or base.ref >= len(statement.operands):
                continue
            [word] = words
            signed, size = _INTEGER_TYPES[word]
            ctype = statement.operands[base.ref].ctype
            pointee = ctype.pointee if ctype is not None and ctype.kind == "pointer" else None
            if pointee is None or pointee.kind != "integer" or pointee.unsigned is None \
                    or pointee.size != size or pointee.unsigned != signed:
                continue  # the same signedness, or nothing known to compare
            if analysis_of(statement).rocm_guarded:
                return
            yield self.finding(
                statement,
                self.template_span(statement, instruction.opcode_start, instruction.opcode_end),
                f"'{instruction.mnemonic}' compares as {'signed' if signed else 'unsigned'}, but "
                f"%{base.ref} points to '{pointee.spelling}' "
                f"({'unsigned' if pointee.unsigned else 'signed'}): "
                + ("a value with the top bit set compares as negative"
                   if signed else "a negative value compares above every positive one")
                + f"; use .{'u' if signed else 's'}{word[1:]}, or declare the object "
                f"{'signed' if signed else 'unsigned'}")


def _first_address(instruction: PtxInstruction) -> PtxOperand | None:
    """The memory the instruction combines into: its first address operand."""
    return next((o for o in instruction.operands if o.kind == "address"), None)
