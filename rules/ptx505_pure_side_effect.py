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

An instruction no PTX form spells (PTX204) has no known effects here
(`ptxlint.analysis.roots`).

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
        effects = _effects(statement)
        if not effects:
            return
        first = effects[0]
        api = API_NAMES.get(call.api, call.api)
        if call.side_effects_span is not None:
            flag = statement.source.text[call.side_effects_span.start : call.side_effects_span.end]
            declared = f"{call.side_effects_name}={flag}"
        else:
            declared = f"{call.side_effects_name} omitted (pure)"
        yield self.finding(
            statement,
            self.template_span(statement, first.start, first.end),
            f"{first.what}, but the {api} asm is declared pure ({declared}): the optimizer "
            "deletes it when its result is unused, merges identical calls and moves it across "
            "stores, silently",
            fix=_fix(statement),
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
