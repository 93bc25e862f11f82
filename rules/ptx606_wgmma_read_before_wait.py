"""PTX606 wgmma-read-before-wait."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.flow_syntax import subscripts, subscripts_at
from ptxlint.analysis.function_flow import FunctionFlow, Step, base_name, steps_of_kind
from ptxlint.analysis.group_counts import left_pending
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import WG_COMMIT, WG_MMA, WG_WAIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, byte_span, reaches_registers, where

_ACCESSES = ("read", "readwrite", "write")
_WAITS = frozenset({WG_COMMIT, WG_WAIT})


def _waits(flow: FunctionFlow, mma: Step, byte: int) -> list[Step] | None:
    """The ``wgmma.wait_group`` steps after the first ``wgmma.commit_group`` after ``mma``
    and before ``byte``, or ``None`` where no commit lies there."""
    # a commit or wait no run that takes the wgmma reaches is not one of its
    commits = [s for s in flow.steps if s.kind == WG_COMMIT
               and (mma.start, mma.order) < (s.start, s.order) and s.start < byte
               and not flow.exclusive(mma.start, s.start)]
    if not commits:
        return None
    first = commits[0]
    return [s for s in flow.steps
            if s.kind == WG_WAIT and (first.start, first.order) < (s.start, s.order)
            and s.start < byte and not flow.exclusive(mma.start, s.start)]


def _sole_writer(flow: FunctionFlow, mma: Step, name: str) -> bool:
    """``mma`` is the only ``wgmma`` on ``name`` a run reaches up to it: it is taken once, in
    no loop (an earlier turn may have filled another element, ``acc[(k + 1) % 2]``, in a group
    the wait completes), and no ``wgmma`` before it may be on ``name`` (``mma acc[0]; commit;
    mma acc[1]; commit; wait_group 1;`` completes ``acc[0]``). Element indices are not
    compared: a use of an element is taken as the wgmma's only where no other may be."""
    if flow.loops_at(mma.start) or not flow.once(mma):
        return False
    return not any(s.kind == WG_MMA and (s.start, s.order) < (mma.start, mma.order)
                   and not flow.exclusive(s.start, mma.start)
                   and name in (flow.keys(s, s.event.registers) or {name})
                   for s in flow.steps)


def _elements(flow: FunctionFlow, mma: Step, name: str) -> frozenset[int] | None:
    """The constant indices through which ``mma``'s own asm statement binds its registers to
    elements of the array ``name`` (``"r"(p[0]), "r"(p[(4) + 1])``); ``None`` where one is no
    constant element of it, or the wgmma is a helper's (its operands name the parameters)."""
    if mma.call is not None:
        return None
    operands = mma.statement.operands
    found: set[int] = set()
    for register in mma.event.registers:
        if register.ref is None or register.ref >= len(operands):
            return None
        expression = operands[register.ref].expression
        if base_name(expression) != name:
            continue
        index = _constant_element(flow, subscripts(expression, name))
        if index is None:
            return None
        found.add(index)
    return frozenset(found) if found else None


def _constant_element(flow: FunctionFlow, indices: tuple[str, ...]) -> int | None:
    """The element ``a[i]`` names, ``i`` a constant; None for ``a``, ``a[i][j]`` or ``a[n]``."""
    return flow.constant(indices[0]) if len(indices) == 1 else None


def _indices_at(flow: FunctionFlow, byte: int, name: str) -> tuple[str, ...]:
    """The subscripts on the use of ``name`` that begins at ``byte``."""
    node = flow.node.descendant_for_byte_range(byte, byte + len(name.encode()))
    return subscripts_at(node, flow.text) if node is not None else ()


def _other_element(flow: FunctionFlow, mma: Step, name: str, indices: tuple[str, ...]) -> bool:
    """``name[indices]`` is a constant element that ``mma`` does not bind: an array's
    elements live in registers of their own once its indices are constants (A fragments
    ``p[0..3]`` for one wgmma, ``p[4..7]`` filled for the next)."""
    index = _constant_element(flow, indices)
    used = _elements(flow, mma, name) if index is not None else None
    return used is not None and index not in used


def early_access(
    flow: FunctionFlow, mma: Step
) -> tuple[int, str, str, Step | None] | None:
    """The first access of a register ``mma`` reads or writes asynchronously (its accumulators
    and A fragment) by ordinary code after it, before a ``wgmma.commit_group`` and
    ``wgmma.wait_group`` cover it: (byte, the variable, how, the wait). The wait is one whose
    N certainly leaves the wgmma's group pending (:func:`.left_pending`), or ``None`` where
    no wait follows a commit before the access. Another ``wgmma`` on the same
    registers is not an access (the ISA allows chaining), nor an asm with no instruction (a
    register fence such as CUTLASS's ``warpgroup_fence_operand``), nor a write or arithmetic of
    a pointer the registers are elements behind (``acc = acc_base;``). ``None`` where a register
    cannot be named, or a call ptxlint cannot read lies before the access. Past a wait that
    leaves the group pending, a use of an element (``acc[j]``, or in an asm) is the wgmma's
    only where :func:`_sole_writer` says no older group may have filled it."""
    names = flow.keys(mma, mma.event.registers)
    if not names:
        return None
    found: list[tuple[int, str, str, bool]] = []
    for name in names:
        found.extend((byte, name, how, element) for byte, how, element in flow.uses_of(name)
                     if byte > mma.start and how in _ACCESSES
                     and reaches_registers(flow, name, element))
    for statement in flow.statements:
        start = flow.parsed.to_byte(statement.span.start)
        if start <= mma.start or not statement.ptx.instructions or any(
                i.opcode == "wgmma" for i in statement.ptx.instructions):
            continue
        used = [(n, o.expression) for o in statement.operands
                if (n := base_name(o.expression)) in names]
        others = [n for n, expression in used
                  if not _other_element(flow, mma, n, subscripts(expression, n))]
        if others and others[0] is not None:
            found.append((start, others[0], "asm", True))
    for byte, name, how, element in sorted(found):
        if flow.exclusive(mma.start, byte) or flow.lambda_at(byte) != flow.lambda_at(mma.start):
            continue
        if element and how != "asm" and _other_element(flow, mma, name, _indices_at(
                flow, byte, name)):
            continue
        waits = _waits(flow, mma, byte)
        if (waits is not None and any(left_pending(flow, mma, w) is None for w in waits)) or \
                flow.opaque_between(mma.start, byte, _WAITS):
            return None
        if any(s.kind == WG_MMA and (mma.start, mma.order) < (s.start, s.order)
               and s.start < byte and name in (flow.keys(s, s.event.registers) or ())
               for s in flow.steps):
            return None  # the last wgmma on the register before the access is the one reported
        if waits and element and not _sole_writer(flow, mma, name):
            return None  # another element may be an older group's, one the wait completed
        return byte, name, how, waits[0] if waits else None
    return None


class WgmmaReadBeforeWait(Rule):
    id = "PTX606"
    name = "wgmma-read-before-wait"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "wgmma accumulators used before wgmma.commit_group and wgmma.wait_group"
    tags = ("correctness", "async", "wgmma")
    docs = """\
## What it does
Flags the first use, by ordinary code, of a register that a `wgmma.mma_async` reads or writes
asynchronously (its accumulators `d`, and its A fragment when A comes from registers), after
the `wgmma.mma_async` and before a `wgmma.commit_group` followed by a `wgmma.wait_group`. The
registers are the C++ variables bound to those operands (through up to three calls of same-file
helpers); a use is a C++ read or write of one, or another asm statement on it. Another
`wgmma.mma_async` on the same accumulators is not a use (the ISA allows the chain), nor an
asm with no instruction (a register fence such as `warpgroup_fence_operand`), nor moving a
pointer the accumulators are elements behind (`acc = acc_base;`, `acc += 64;` where `acc` is
declared `float*`): that changes the pointer, not a register. Nor is a use of a constant
element the `wgmma.mma_async` does not bind (it reads `p[0]`..`p[3]`; code fills `p[4]` for
the next one): with constant indices each element is a register of its own. Where a
variable cannot be named, or a call ptxlint cannot read lies before the use (the wait may be
there: CUTLASS's `warpgroup_wait<N>()`), the rule is silent. A commit or wait no run that
takes the `wgmma.mma_async` reaches is not one of its: one in the other arm of its `if`, or in
the arm of another `if` that tests the same unchanging variable for another constant (warp
group roles: `if (wg == 0) {...}` then `if (wg == 1) {...}`). This rule is in preview.

It also flags a use whose only waits are `wgmma.wait_group N` that leave the wgmma's group
pending: fewer than N groups were committed after the one the wgmma joined (`mma;
commit_group; wait_group 1; read`). A use of the accumulators of an older group is fine: after
`mma S; commit; mma O; commit; wait_group 1`, `S` is complete and `O` is not. A use of an
element (`acc[j]`) counts there only where no older group may have filled it: the wgmma is in
no loop (double buffering, `acc[(k + 1) % 2]` filled by the previous turn) and no wgmma on the
same variable comes before it. N must be known (an immediate, or a constant passed to a
helper's template argument: `warpgroup_wait<1>()`), and every commit between the wgmma and
the wait counted: none in a loop the wgmma is not in, nor in an `if` arm or loop of a helper,
nor a call that may commit.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
PTX ISA 9.7.15.7 (`wgmma.wait_group`): "Accessing the accumulator register or the input
register containing the fragments of matrix A of a `wgmma.mma_async` instruction without first
performing a `wgmma.wait_group` instruction that waits on a wgmma-group including that
`wgmma.mma_async` instruction is undefined behavior." And `wgmma.wait_group N` waits only
"until only N or fewer of the most recent wgmma-groups are pending": the N most recent groups,
the wgmma's among them, may still be running when it returns. ptxas patches it where it can
see it:
compiled with `-gencode arch=compute_90a,code=sm_90a`, ptxas 13.0 prints "(C7517)
warpgroup.wait is injected in around line N by compiler to allow use of registers defined by
GMMA" and serialises the pipeline (the fixtures' read before the wait gets it; a wait with no
commit before it gets no message, and is undefined all the same). `--verify` compiles the file
for sm_90a and confirms the finding with that line where it names the function. Past a
`wait_group N` that leaves the group pending, ptxas 13.0 prints C7517 for some forms and for
others only "(C7514) ... wgmma.mma_async instructions are serialized due to non wgmma
instructions reading accumulator registers of a wgmma": there the finding stays unverifiable.

## Example
```cuda
asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
             " {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(desc_a), "l"(desc_b));
asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
out[threadIdx.x] = d[0];
```

## Use instead
```cuda
asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
out[threadIdx.x] = d[0];
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, WG_MMA):
            access = early_access(flow, step)
            if access is None:
                continue
            byte, name, how, wait = access
            between = "no wgmma.commit_group and wgmma.wait_group in between"
            pending = left_pending(flow, step, wait) if wait is not None else None
            if wait is not None and pending is not None:
                count, younger = pending
                between = (f"the `wgmma.wait_group {count}` at {where(flow, wait)} lets the "
                           f"{count} most recent wgmma-group(s) stay pending, and only "
                           f"{younger} was committed after the wgmma's")
            verb = f"`{name}` is {'written' if how == 'write' else 'read'}"
            if how == "asm":
                verb = f"an asm statement uses `{name}`"
            yield self.finding(
                statement, byte_span(flow, byte, byte + len(name.encode())),
                f"{verb} here while the wgmma.mma_async at {where(flow, step)} may still be "
                f"using it: {between}")
