"""PTX506 replicated-side-effect."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.effects import shown_mnemonic
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import TRITON_FAMILY, llvm_call

# Triton launches 4 warps unless told otherwise.
DEFAULT_THREADS = 4 * 32


class ReplicatedSideEffect(Rule):
    id = "PTX506"
    name = "replicated-side-effect"
    scope = "statement"
    severity = Severity.WARNING
    needs = ("llvm",)
    summary = "Side-effecting asm on a tensor smaller than the thread count runs once per copy"
    tags = ("correctness", "python")
    docs = """\
## What it does
Flags an impure Triton `inline_asm_elementwise` that writes memory (a store, an atomic, a
reduction) on a tensor whose element count, known from `tl.arange` with literal bounds, is
smaller than the threads of the default launch (`num_warps=4`, 128 threads).

## Why is this bad?
When a tensor has fewer elements than the block has threads, Triton's layout replicates the
elements across threads, and the asm runs once per copy: an impure `red.global.add` on 32
elements with `num_warps=4` increments every cell 4 times (Triton 3.6.0, H100, research note
row 7g; triton-lang/triton#11065, fixed by PR #11511 after 3.6.0). Loads and stores that
Triton emits itself are masked to one owner; inline asm is not.

## Example
```python
offs = tl.arange(0, 32)
tl.inline_asm_elementwise("red.global.add.u32 [$1], 1;", "=r,l", [ptr + offs],
                          dtype=tl.int32, is_pure=False, pack=1)
```

## Use instead
Give the tensor at least as many elements as threads (or launch with fewer warps:
`num_warps=1` for 32 elements), or use `tl.atomic_add`, which Triton masks to one owner:
```python
offs = tl.arange(0, 32)
tl.atomic_add(ptr + offs, 1)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api not in TRITON_FAMILY or call.side_effects is not True:
            return
        elements = call.result_elements
        if elements is None or elements >= DEFAULT_THREADS:
            return
        for effect in analysis_of(statement).memory_effects:
            effects = effect.effects
            if effects is None or effects.memory not in ("write", "readwrite"):
                continue
            instruction = statement.ptx.instructions[effect.position]
            copies = DEFAULT_THREADS // elements
            warps = max(1, elements // 32)
            yield self.finding(
                statement,
                self.template_span(statement, instruction.opcode_start, instruction.opcode_end),
                f"'{shown_mnemonic(instruction)}' writes memory, and the tensor has {elements} "
                f"elements: with the default num_warps=4 (128 threads) Triton replicates them "
                f"and runs this asm {copies} times per element (triton-lang/triton#11065); "
                f"launch with num_warps={warps} or use tl.atomic_add/tl.store",
            )
            return
