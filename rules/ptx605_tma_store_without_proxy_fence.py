"""PTX605 tma-store-without-proxy-fence."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.analysis.store_sources import writes_into
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import BULK_STORE, FENCE_PROXY, SHARED_WRITE
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, line_of, step_span

_FENCES = frozenset({FENCE_PROXY})


def unfenced_write(flow: FunctionFlow, store: Step) -> tuple[int, str] | None:
    """The last generic-proxy write of the shared buffer a bulk store reads, earlier in the
    function with no ``fence.proxy.async`` (nor a call ptxlint cannot read) between: (its
    byte, how it writes). ``None`` where the buffer cannot be named."""
    place = flow.place(store, store.event.memory)
    if place is None:
        return None
    buffer, offset = place
    writes: list[tuple[int, str, Step | None]] = [
        (byte, f"`{buffer}[...] =`", None) for byte, how, element in flow.uses_of(buffer)
        if element and not offset and how in ("write", "readwrite") and byte < store.start]
    writes.extend((s.start, f"`{s.instruction.mnemonic}`", s) for s in flow.steps
                  if s.kind == SHARED_WRITE and (s.start, s.order) < (store.start, store.order)
                  and writes_into(flow, s, place))
    for byte, how, step in sorted(writes, key=lambda w: w[0], reverse=True):
        if flow.exclusive(byte, store.start) or flow.lambda_at(byte) != flow.lambda_at(
                store.start):
            continue
        fenced = flow.steps_between(step, store, _FENCES) if step is not None else [
            s for s in flow.steps if byte < s.start and (s.start, s.order) < (store.start,
                                                                                store.order)
            and s.kind in _FENCES]
        if fenced or flow.opaque_between(byte, store.start, _FENCES):
            return None
        return byte, how
    return None


class TmaStoreWithoutProxyFence(Rule):
    id = "PTX605"
    name = "tma-store-without-proxy-fence"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "A TMA store reads shared memory written by ordinary stores, with no proxy fence"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags a bulk copy that reads the CTA's shared memory through the async proxy (a TMA store
`cp.async.bulk.tensor...global.shared::cta`, `cp.async.bulk.global.shared::cta`,
`cp.reduce.async.bulk...`) when the same function wrote that buffer earlier with ordinary
stores (C++ `buf[i] = v`, `st.shared`, `stmatrix`) and no `fence.proxy.async.shared::cta` (or
`fence.proxy.async`) lies between the last such write and the copy. The buffer is the variable
behind the copy's shared-memory operand (through `__cvta_generic_to_shared`, casts, locals
defined once and up to three calls of same-file or included-project helpers). An `st.shared`
or `stmatrix` writes that buffer where its address is the copy's own plus run-time indices
(`out_addr + lane * 16`: `p + i` is `&p[i]`); one that adds a constant (`smem + 4096`), or a
name whose value ptxlint cannot see, may write another region of a raw buffer, and does not
count. Where the buffer cannot be named, where a call ptxlint cannot read lies between the
write and the copy (the fence may be there: CUTLASS's `fence_view_async_shared()`), or where
the two are in the two arms of one `if`, the rule is silent. This rule is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
Ordinary stores are performed by the generic proxy and the bulk copy reads through the async
proxy. PTX ISA 9.7.9.25.2 ("Async Proxy"): "The cp{.reduce}.async.bulk operations are performed
in the asynchronous proxy (or async proxy). Accessing the same memory location across multiple
proxies needs a cross-proxy fence. For the async proxy, fence.proxy.async should be used to
synchronize memory between generic proxy and the async proxy." Without it the TMA unit may read
the tile before the stores reach it and write stale data to global memory; a `__syncthreads()`
orders the threads, not the proxies.

## Example
```cuda
tile[threadIdx.x] = acc;
__syncthreads();
if (threadIdx.x == 0)
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;"
               :: "l"(out), "r"(smem_addr(tile)) : "memory");
```

## Use instead
```cuda
tile[threadIdx.x] = acc;
asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
__syncthreads();
if (threadIdx.x == 0)
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;"
               :: "l"(out), "r"(smem_addr(tile)) : "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, BULK_STORE):
            write = unfenced_write(flow, step)
            if write is None:
                continue
            byte, how = write
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` reads shared memory through the async proxy "
                f"that {how} at line {line_of(flow, byte)} wrote through the generic proxy, "
                f"with no fence.proxy.async in between")
