"""PTX102 missing-memory-clobber."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis import effects as _effects
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._optimizer import add_memory_clobber


class MissingMemoryClobber(Rule):
    id = "PTX102"
    name = "missing-memory-clobber"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    summary = 'asm that touches or orders memory has no "memory" clobber'
    tags = ("correctness", "optimizer", "memory")
    docs = """\
## What it does
Flags an asm statement without a `"memory"` clobber whose template reads or writes memory
through an address operand (`ld`, `st`, `atom`, `red`, `cp.async*`, `ldmatrix`, `stmatrix`,
`mbarrier.*`, `cp.async.bulk*`, `tensormap.*`, `suld`/`sust`, `multimem.*`...) or orders
memory (`fence`, `membar`, `bar`, `barrier`, `cp.async.wait_*`, `wgmma.fence`...).

The message names the memory-ordering semantic of the instruction (`ptxlint.ptx.effects`
`Ordering`, read from its modifiers in any order, with the ISA's defaults): a release (`st.release`,
`red.release`, `atom.acq_rel`, `mbarrier.arrive`, `fence`) orders the C++ stores before it only
with the clobber, an acquire (`ld.acquire`, `mbarrier.try_wait`, `fence`) the C++ loads after it.
Weak and relaxed accesses still need it for the memory they read or write.

Severity:

* **warning** when the statement is not volatile and has outputs: the optimizer treats it as
  touching no memory at all, and nvcc 13.0 exploits that (below);
* **info** when it is `volatile`, or has no outputs (implicitly volatile): nvcc 13.0 and LLVM's
  NVPTX backend treat a volatile asm as a full memory barrier today, so the code works, but
  the documented contract (GCC's and the CUDA guide's) asks for the clobber and another
  compiler (clang, a future nvcc) may hold you to it.

It does not flag read-only loads (`ld.global.nc`, `ld.const`, `ldu`, `ld.param`, textures):
no C++ store can change that memory while the kernel runs. Nor a `commit_group` (`cp.async`,
`cp.async.bulk`, `wgmma`): it only closes the group of operations issued before it, and reads,
writes and orders no memory (the issue and the wait are what C++ accesses must not cross). Nor
an access of tensor memory alone (`tcgen05.ld`, `tcgen05.st`, `tcgen05.shift`,
`tcgen05.dealloc`, `tcgen05.relinquish_alloc_permit`): C++ cannot name tensor memory, so the
compiler holds none of it in registers and the clobber neither orders nor protects it;
`tcgen05.alloc` stores the allocated address to shared memory and `tcgen05.commit` arrives on
an mbarrier there, both in the generic proxy, so those ask for it. The tcgen05 fences
(`tcgen05.fence::before_thread_sync`, `::after_thread_sync`) access no memory either, but ask
for it as every fence does: each orders the asynchronous tcgen05 operations on its side
against the thread synchronization beside it, which the ISA names as morally strong
`ld`/`st`/`atom`, `mbarrier` and barrier instructions (its example: an `st.relaxed` of a
flag). Where that synchronization is C++'s own (an atomic or volatile flag, a
`cuda::barrier`), only the clobber keeps the compiler from moving it across the fence. It
stays silent when the clobber list comes through a macro.

In a volatile asm it does not flag instructions that only *issue* an access the asynchronous
proxy performs (`wgmma.mma_async` on registers and shared-memory descriptors,
`cp.async.bulk*`, `cp.reduce.async.bulk*`, `tcgen05.mma`/`cp`, `st.async`): the
memory is read or written later, what C++ wrote before reaches it only through a proxy fence
(`fence.proxy.async`), and C++ may only read what it wrote after the matching wait
(`wgmma.wait_group`, `cp.async.bulk.wait_group`, an `mbarrier` wait, `tcgen05.wait`): those
statements need the clobber. `cp.async` without `.bulk` is no such exemption: the ISA treats
it as a weak memory operation of the generic proxy, so only its own clobber orders the C++
stores before it (info, like any volatile access). A statement with outputs that is not
volatile, where PTX101 reports the missing `volatile`, is read as that fix leaves it: an
access only issued here is that one defect, not a second (one defect, one finding). Register-only
instructions (`mma`, `shfl`, arithmetic) never touch memory and are never flagged. nvcc 13.0
compiles a volatile `wgmma`/`mma`/`shfl` asm to the same PTX with and without the clobber,
with the C++ shared-memory store and load around it kept in place
(tests/test_optimizer_evidence.py).

The text output prints info findings as a one-line count unless `--show-info` is given or
`fail-on` is `info`; JSON and SARIF keep them all.

One defect, one finding (`ptxlint.analysis.roots`): an instruction no PTX form spells
(`st.glob.u32`, PTX204) has no known effects, so it asks for no clobber until it is spelled
right.

An instruction with a piece the front end cannot read (a macro whose text is unknown, an
f-string field of CUDA C++ held in a Python string, an operand spliced into a modifier:
`"st.global." PTX_TYPE`, `cta_group::%2`) has the effects that every spelling the PTX grammar
allows there shares (`ptxlint.ptx.hole_effects`): a store whose type is the hole is still a
store. Where the hole is the opcode, the sub-instruction (`st.` + hole) or may hold a qualifier
that decides the effect (`ld.global` + hole may be `ld.global.nc`), it is not judged.

## Why is this bad?
Without the clobber, LLVM's NVPTX backend models a non-volatile asm as not touching memory
(CUDA "Inline PTX Assembly", *Incorrect Optimization*). With `nvcc -arch=sm_90 -O3`
(CUDA 13.0), without a word of warning:

* a C++ load is **CSE'd across** an asm that stores to the same address:
  `a = *p; asm("st.global.u32 [%1], 7; ..." : "=r"(d) : "l"(p)); b = *p;` loads `*p` once and
  computes `a + b` as `a << 1`; with `"memory"` it loads again after the asm;
* a C++ store before an asm that reads the memory is **dead-store-eliminated**:
  `*p = 5; asm("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(p)); *p = 6;` never stores 5, so the
  asm reads stale memory; with `"memory"` both stores stay;
* a C++ store before a non-volatile release atomic is **dropped**: `data[0] = 42; asm("atom.
  release.gpu.global.exch.b32 %0, [%1], 1;" : "=r"(old) : "l"(flag)); data[0] = 43;` never
  stores 42, so the consumer that acquires `flag` cannot see it; with `"memory"` both stores
  stay, the first before the atomic;
* a spin loop on such a load is an infinite loop once the load is hoisted.

The first two pairs are compiled by tests/test_optimizer_evidence.py whenever nvcc is
available. The same test records that a `volatile` asm without the clobber is *not*
exploited by nvcc 13.0 today, which is why that case is only info.

## Example
```cuda
int a = *flag;
asm("st.global.u32 [%1], 7; mov.u32 %0, 0;" : "=r"(d) : "l"(flag));
int b = *flag;   // folded into a
```

## Use instead
```cuda
int a = *flag;
asm volatile("st.global.u32 [%1], 7; mov.u32 %0, 0;" : "=r"(d) : "l"(flag) : "memory");
int b = *flag;
```

## Fix safety
Safe: appends `"memory"` to the clobber list, creating the missing sections
(`: "=r"(x) : "l"(p)` becomes `: "=r"(x) : "l"(p) : "memory"`, `: "=r"(x)` becomes
`: "=r"(x) :: "memory"`); a clobber only takes optimizations away. Basic asm (no colon) gets
`::: "memory"` only when its template has no `%` (in extended asm `%` means something else).
No fix for `asm goto` or when a comment sits before the closing parenthesis.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm":
            return  # LLVM inline asm (Triton, CuTe DSL): the PTX5xx rules judge it
        if statement.has_memory_clobber or statement.opaque_sections:
            return
        exploited = not statement.is_volatile and bool(statement.outputs)
        # The template's effects before the analysis leaves out those of an instruction PTX204
        # reports as misspelled (which asks the grammar's verdict): where none of them would
        # count, neither would one of the analysis's, which is a subset (a volatile wgmma's
        # only effect is asynchronous; most templates have none).
        if not any(exploited or not e.asynchronous for e in _effects.memory_effects(statement)):
            return
        analysis = analysis_of(statement)
        effects = list(analysis.memory_effects)
        # PTX101's finding (its fact: a side effect of an asm with outputs that is not
        # volatile) names the root: once volatile, the asm is read as below
        if not exploited or analysis.side_effects:
            # Volatile: nvcc keeps C++ memory accesses on their side of the asm either way
            # (tests/test_optimizer_evidence.py), so the finding is about the contract, and the
            # contract matters where the clobber orders memory C++ reads or writes. An access
            # that is only issued here (wgmma.mma_async on descriptors, cp.async) is ordered by
            # its wait, which carries the clobber in code that works.
            effects = [e for e in effects if not e.asynchronous]
        if not effects:
            return
        # the ordering semantic is what the clobber exists for: name it first
        first = next((e for e in effects if e.releases or e.acquires), effects[0])
        if exploited and first.releases:
            consequence = (
                "the C++ stores before it may be sunk below it or dropped (nvcc 13.0 drops one), "
                "so the release publishes stale data"
            )
        elif exploited and first.acquires:
            consequence = (
                "the C++ loads after it may be moved above it or answered from values loaded "
                "before it, so they read data the acquire did not synchronize"
            )
        elif exploited:
            consequence = "C++ loads and stores around it may be cached or reordered across it"
        else:
            ordered = {(True, False): "the C++ stores before it",
                       (False, True): "the C++ loads after it",
                       (True, True): "the C++ accesses around it"}.get(
                           (first.releases, first.acquires))
            consequence = (
                "nvcc treats a volatile asm as a memory barrier today, "
                "but the contract asks for the clobber"
                + (f" (only with it does it order {ordered})" if ordered else "")
            )
        yield self.finding(
            statement,
            self.template_span(statement, first.start, first.end),
            f'{first.what}, but the asm has no "memory" clobber: {consequence}',
            fix=add_memory_clobber(statement),
            severity=None if exploited else Severity.INFO,
        )
