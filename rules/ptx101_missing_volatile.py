"""PTX101 missing-volatile."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._optimizer import add_volatile


class MissingVolatile(Rule):
    id = "PTX101"
    name = "missing-volatile"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("outputs",)
    summary = "asm with an observable effect is not volatile: the optimizer may delete or move it"
    tags = ("correctness", "optimizer")
    docs = """\
## What it does
Flags a non-`volatile` asm statement with at least one output whose template does something
besides computing its outputs:

* loads that exist to see another thread's write, the *strong* loads of the PTX memory
  consistency model: `ld.relaxed.<scope>`, `ld.acquire.<scope>`, `ld.volatile` (the ISA gives
  it the semantics of `.relaxed.sys`), `ld.mmio`, `multimem.ld_reduce.relaxed`/`.acquire`, in
  whatever order the modifiers are written (`ld.global.acquire.gpu` is one);
* reads a special register that changes while the thread runs: `%clock`, `%clock_hi`,
  `%clock64`, `%globaltimer`, `%globaltimer_lo`, `%globaltimer_hi`, `%pm0`..`%pm7`,
  `%pm0_64`..`%pm7_64`, and `%smid`, `%warpid` (the PTX ISA calls these two volatile: a thread
  may be rescheduled);
* stores, atomics, reductions (`st`, `atom`, `red`, `multimem.st`, `sust`, `stmatrix`...);
* barriers and fences (`bar`, `barrier`, `bar.warp.sync`, `membar`, `fence`);
* asynchronous copies and pipelines with their commits and waits (`cp.async*`,
  `cp.async.bulk*`, `mbarrier.*`, `wgmma.*`, `tcgen05.*`);
* warp collectives whose result depends on other lanes (`shfl`, `vote`, `match`, `redux`,
  `activemask`, `elect`);
* `prefetch`, `trap`, `exit`, `brkpt`, `nanosleep`, `setmaxnreg`, `griddepcontrol`, `pmevent`.

The facts live in `ptxlint/ptx/effects.py` with their PTX ISA sections; the memory-ordering
semantics of each load, store, atomic, fence and barrier (`Ordering`: weak, relaxed, acquire,
release, acq_rel, sc, volatile, mmio, and the scope) are read from its modifiers, with the ISA's
defaults (`atom`/`red` without `.sem` are `.relaxed.gpu`). The message names the semantic. It
does not flag pure arithmetic and conversions, `mma.sync` on registers, weak loads (`ld`,
`ld.global`, `ld.shared`: a missing `"memory"` clobber is PTX102's business), read-only loads
(`ld.global.nc`, `ld.const`, `ldu`, `ld.param`), or
special registers that are constant for the thread (`%tid`, `%ntid`, `%laneid`, `%ctaid`,
`%nctaid`, `%lanemask_*`, `%nsmid`, `%dynamic_smem_size`...).

Severity: **warning**; **info** when the statement has a `"memory"` clobber. nvcc 13.0 gives a
non-volatile asm with a `"memory"` clobber the same treatment as a volatile one (it is kept
when its output is unused, a `%clock` read in a loop stays in the loop), so such code works
today; but a `"memory"` clobber promises memory access, not side effects, and GCC's contract
lets a compiler delete a non-volatile asm whose outputs are unused even then.

It never flags an asm with **no outputs**: GCC, clang and nvcc treat it as implicitly volatile
(nvcc 13.0 keeps it and does not move memory accesses across it). One finding per statement,
on the first effect found.

One defect, one finding (`ptxlint.analysis.roots`): an instruction no PTX form spells
(`atom.globl.add.u32`, PTX204) has no known effects, so it asks for no `volatile` until it is
spelled right.

An instruction with a piece the front end cannot read (a macro whose text is unknown, an
f-string field of CUDA C++ held in a Python string, an operand spliced into a modifier:
`"st.global." PTX_TYPE`, `cta_group::%2`) has the effects that every spelling the PTX grammar
allows there shares (`ptxlint.ptx.hole_effects`): a store whose type is the hole is still a
store. Where the hole is the opcode, the sub-instruction (`st.` + hole) or may hold a qualifier
that decides the effect (`ld.global` + hole may be `ld.global.nc`), it is not judged.

## Why is this bad?
The compiler assumes a non-volatile asm is a pure function of its inputs (CUDA "Inline PTX
Assembly", *Incorrect Optimization*). With `nvcc -arch=sm_90 -O3` (CUDA 13.0) that is what
happens, and nvcc never warns:

* an asm whose output is unused is **deleted**, stores and all:
  `asm("st.global.u32 [%1], 1; mov.u32 %0, 0;" : "=r"(t) : "l"(out));` with `t` unused
  compiles to an empty kernel; with `volatile` the store is emitted;
* a strong load in a spin-wait is **hoisted** out of the loop:
  `do { asm("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag)); } while (v == 0);`
  loads once, before the loop, and spins for ever; with `volatile` (or, today, a `"memory"`
  clobber) the load stays in the loop;
* a `%clock` read inside a loop is **hoisted** out of it: `for (...) { asm("mov.u32 %0,
  %%clock;" : "=r"(t)); out[i] = t; }` reads the clock once, before the loop; with
  `volatile` it reads it in every iteration.

Both pairs are compiled by tests/test_optimizer_evidence.py whenever nvcc is available.
The same transformations merge two `activemask`/`shfl` results or move a `bar.sync`, with
effects only a race detector will show.

## Example
```cuda
unsigned t;
for (int i = 0; i < n; ++i) {
  asm("mov.u32 %0, %%clock;" : "=r"(t));
  out[i] = t;
}
```

## Use instead
```cuda
unsigned t;
for (int i = 0; i < n; ++i) {
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
  out[i] = t;
}
```

## Fix safety
Safe: adds `volatile` right after the asm keyword (`__volatile__` when the keyword is
`__asm__`/`__asm` or the file already spells it so). `volatile` only takes optimizations
away; it never changes what the template does. No fix when the keyword comes from a macro.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm":
            return  # LLVM inline asm (Triton, CuTe DSL): the PTX5xx rules judge it
        if statement.is_volatile or not statement.outputs:
            return  # no outputs: implicitly volatile
        effects = analysis_of(statement).side_effects
        if not effects:
            return
        # a strong load is the effect that breaks first (a spin-wait hoisted out of its loop)
        first = next((e for e in effects if e.strong_load), effects[0])
        if statement.has_memory_clobber:
            # nvcc 13.0 keeps and does not move a non-volatile asm with a "memory" clobber.
            consequence = (
                'its "memory" clobber keeps nvcc from deleting or moving it today, '
                "but the contract asks for volatile"
            )
        elif first.strong_load:
            consequence = (
                "a strong load exists to see another thread's write, but the compiler may hoist "
                "it out of a loop or merge it with an earlier read (nvcc 13.0 hoists it: a "
                "spin-wait on it never ends)"
            )
        else:
            consequence = (
                "the compiler may delete it when its outputs are unused, or hoist or merge it"
            )
        yield self.finding(
            statement,
            self.template_span(statement, first.start, first.end),
            f"{first.what}, but the asm is not volatile: {consequence}",
            fix=add_volatile(statement),
            severity=Severity.INFO if statement.has_memory_clobber else None,
        )
