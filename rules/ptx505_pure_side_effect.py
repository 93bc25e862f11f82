"""PTX505 pure-asm-side-effect."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.effects import Effect
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import API_NAMES, llvm_call

# Reads the optimizer may merge or hoist safely: read-only caches and constant banks.
_READ_ONLY = frozenset({"nc", "const", "param"})
# Special registers whose change makes a pure read wrong: timers and counters. %smid and
# %warpid may change after preemption (PTX101 counts them), but a merged read is as good as
# any; Triton's own `smid()` is pure.
_STABLE_ENOUGH = ("'%smid'", "'%warpid'")


class PureAsmSideEffect(Rule):
    id = "PTX505"
    name = "pure-asm-side-effect"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "asm declared pure (is_pure=True, has_side_effects=False) has an effect"
    tags = ("correctness", "optimizer", "python")
    docs = """\
## What it does
Flags a pure LLVM inline asm whose template writes or reads memory, synchronizes (barriers,
fences, warp collectives), or reads a special register that changes while the thread runs
(`%clock`, `%globaltimer`): Triton's `is_pure=True`, CuTe DSL's `has_side_effects=False` (or
omitted), llvmlite/Numba's `side_effect=False` (or omitted). The effects are the ones PTX101
knows (`ptxlint.ptx.effects`); `%tid`, `%laneid` and other fixed registers are pure.

An asm with no result written as raw LLVM IR (llvmlite's `ir.InlineAsm`, Julia's `@asmcall`)
is not flagged: the call carries no memory attributes, so LLVM keeps it in order with the loads
and stores around it whatever its purity (llvmlite 0.50, LLVM 22, -O3: two identical pure void
`st.global` calls both kept, the store before them kept, a load after them not forwarded).
MLIR's lowering (CuTe DSL) marks a pure call as touching no memory, so there a void one is
deleted and flagged.

An instruction no PTX form spells (PTX204) has no known effects here
(`ptxlint.analysis.roots`).

A template built with an f-string or `.format` may leave a hole where a field is
(`f"st.global.{dtype} [$1], $2;"`): the instruction has the effects every spelling the PTX
grammar allows there shares (`ptxlint.ptx.hole_effects`), so a pure store whose type is a field
is flagged as the literal one is. Where the field is the opcode, the sub-instruction or may be a
qualifier that decides the effect (`ld.global.{cache}` may be `ld.global.nc`, which reads
data that cannot change), it is not flagged.

Findings are ranked by danger. Writes, atomics, barriers, fences, warp collectives and timers
are errors. A pure *load* is an error where something can change the memory between two
executions of it, and a warning otherwise:

- an ordered load (`ld.acquire`, `ld.relaxed`, `ld.volatile`, `ld.mmio`): it exists to see
  another thread's write, and a spin-wait on a pure one compiles to an infinite loop (the
  load is hoisted out of the loop and read once);
- a load from shared memory (`ld.shared`, `ldmatrix`): the block's threads write it while the
  kernel runs;
- a load inside a loop of its function, or after a barrier or fence there
  (`ptxlint.analysis.placement`): it is meant to see what changed since the last iteration
  or before the barrier, and a merged or hoisted copy does not;
- any other weak load (`ld.global`, generic `ld`): a warning. It is harmless while the memory
  is read-only input for the kernel's life, and stale once the kernel (or another) writes it.
  `ld.global.nc`, `ld.const` and `ld.param` read data that cannot change and are not flagged.

The message names the case.

## Why is this bad?
Pure asm is a function of its inputs to the optimizer: it is deleted when its result is
unused, merged with an identical call, and hoisted or reordered across stores. Measured with
Triton 3.6.0 on an H100 (research note rows 7a-7f): a pure `atom.global.add` whose result is
unused is deleted (counter stays 0); two identical pure atomics are merged (counter 1, both
results 0); a pure `st.global` is deleted; two pure `%globaltimer` reads around a `nanosleep`
fold to a difference of 0; a pure `ld.global` after a `tl.store` returns the stale value; a
pure `bar.sync 0` disappears. Everything compiles; the results are silently wrong.

## Example
```python
old = tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [ptrs],
                                dtype=tl.uint32, is_pure=True, pack=1)
t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                               is_pure=True, pack=1)
```

## Use instead
```python
old = tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [ptrs],
                                dtype=tl.uint32, is_pure=False, pack=1)
t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                               is_pure=False, pack=1)
```

## Fix safety
Safe where the flag is a literal: declaring an effect only takes optimizations away.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.side_effects is not False:
            return
        if call.api in _RAW_IR and not statement.outputs:
            # llvmlite and LLVM.jl emit the call as raw LLVM IR with no memory attributes: a
            # void asm is kept, in order with the memory accesses around it (verify/llvm_probe.py
            # measured the pure void fence kept; tests/test_pure_void_raw_ir.py says what else);
            # what deletes it is MLIR's purity (Triton, CuTe DSL), which they never go through
            return
        effects = _effects(statement)
        if not effects:
            return
        ranked = [(_danger(statement, effect), effect) for effect in effects]
        (severity, why), first = min(ranked, key=lambda r: (_RANK[r[0][0]], r[1].start))
        api = API_NAMES.get(call.api, call.api)
        if call.side_effects_span is not None:
            flag = statement.source.text[call.side_effects_span.start : call.side_effects_span.end]
            declared = f"{call.side_effects_name}={flag}"
        else:
            declared = f"{call.side_effects_name} omitted (pure)"
        yield self.finding(
            statement,
            self.template_span(statement, first.start, first.end),
            f"{first.what}, but the {api} asm is declared pure ({declared}): {why}",
            fix=_fix(statement),
            severity=severity,
        )


# The APIs whose asm call is raw LLVM IR, with no memory attributes whatever its purity.
_RAW_IR = frozenset({"llvmlite", "julia"})

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_EFFECT = (
    "the optimizer deletes it when its result is unused, merges identical calls and moves "
    "it across stores, silently"
)


def _danger(statement: AsmStatement, effect: Effect) -> tuple[Severity, str]:
    """How dangerous a pure asm with ``effect`` is, and why (the message's second half)."""
    instruction = statement.ptx.instructions[effect.position] if effect.position >= 0 else None
    if instruction is None or effect.what.startswith("'%"):
        return Severity.ERROR, _EFFECT  # a time-varying special register
    effects = effect.effects  # the analysis's: what every spelling of a holed mnemonic does
    order = effects.ordering if effects is not None else None
    if order is not None and order.kind == "load" and order.strong and effects is not None \
            and effects.memory == "read" and not effects.collective:
        return Severity.ERROR, (
            f"an ordered load ({order.describe()}) exists to see another thread's write, but a "
            "pure one may be merged with an earlier load or hoisted out of a loop: a spin-wait "
            "on it compiles to an infinite loop"
        )
    if effects is None or effects.memory != "read" or effects.side_effect:
        return Severity.ERROR, _EFFECT  # a write, an atomic, a barrier, a fence, a collective
    modifiers = set(instruction.modifiers)
    if any(m == "shared" or m.startswith("shared::") for m in modifiers) or (
        instruction.opcode == "ldmatrix"
    ):
        return Severity.ERROR, (
            "shared memory changes while the kernel runs (the block's threads write it), and a "
            "pure load may be merged with an earlier one or moved across the writes and "
            "barriers around it, reading a stale value"
        )
    placement = analysis_of(statement).placement
    if placement.in_loop:
        return Severity.ERROR, (
            "inside a loop, a pure load may be hoisted out of it and read once: every iteration "
            "sees the first value"
        )
    if placement.after_barrier:
        return Severity.ERROR, (
            "after a barrier, a pure load may be merged with an identical load before it or moved "
            "above it, and miss what the other threads wrote"
        )
    return Severity.WARNING, (
        "harmless while the memory is read-only input for the kernel, but the optimizer may "
        "merge it with an identical load or move it across stores, so it reads a stale value "
        "once the kernel writes that memory (declare it impure, or read through ld.global.nc "
        "if the data is read-only)"
    )


def _effects(statement: AsmStatement) -> list[Effect]:
    analysis = analysis_of(statement)
    found = {e.start: e for e in analysis.side_effects if not e.what.startswith(_STABLE_ENOUGH)}
    for effect in analysis.memory_effects:
        if effect.start in found:
            continue
        instruction = next(
            (i for i in statement.ptx.instructions if i.opcode_start == effect.start), None
        )
        if instruction is not None and _READ_ONLY & set(instruction.modifiers):
            continue  # `ld.global.nc`: read-only data, merging is harmless
        found[effect.start] = effect
    return [found[k] for k in sorted(found)]


def _fix(statement: AsmStatement) -> Fix | None:
    call = statement.llvm
    if call is None or call.side_effects_span is None:
        return None
    span = call.side_effects_span
    text = statement.source.text[span.start : span.end]
    flip = {"True": "False", "False": "True"}.get(text)
    if flip is None:
        return None
    return Fix(f"Declare the side effect: {call.side_effects_name}={flip}", (Edit(span, flip),))
