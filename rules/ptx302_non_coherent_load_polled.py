"""PTX302 non-coherent-load-polled."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from ptxlint.analysis.flow_binding import bound_expression, operand_expression
from ptxlint.analysis.flow_syntax import EXITS
from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import NC_LOAD
from ptxlint.rule import Rule, RuleContext

from ._protocol import line_of, step_span

_LOOPS = frozenset({"for_statement", "while_statement", "do_statement"})
_LEAVES = EXITS | {"continue_statement"}  # what leaves or repeats a loop
_NAME = re.compile(r"[A-Za-z_]\w*")
_CHANGES = frozenset({"write", "readwrite"})


def _unwrapped(text: str) -> str:
    """``text`` without one pair of parentheses around all of it (``bound_expression`` puts
    an argument in them)."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for at, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and at < len(text) - 1:
            return text  # `(a) + (b)`: not one pair
    return text[1:-1].strip()


def _result(flow: FunctionFlow, step: Step) -> tuple[str | None, int]:
    """What holds the loaded value where the function has it: the output variable of its own
    asm, or the variable a helper call's result initialises or is assigned to (None where the
    call's value is used in place); and where that happens (the byte)."""
    if step.call is None:
        destination = step.instruction.operands[0] if step.instruction.operands else None
        return operand_expression(step.statement, destination), step.start
    call = flow.node.descendant_for_byte_range(step.call.start, step.call.end)
    if call is None or call.type != "call_expression":
        return None, step.start
    parent = call.parent
    if parent is not None and parent.type == "init_declarator":
        declarator = parent.child_by_field_name("declarator")
        return (flow.parsed.node_text(declarator) if declarator is not None else None,
                step.start)
    if parent is not None and parent.type == "assignment_expression" and \
            parent.child_by_field_name("right") == call:
        left = parent.child_by_field_name("left")
        return (flow.parsed.node_text(left) if left is not None else None), step.start
    return None, step.start


def _names(text: str) -> set[str]:
    return set(_NAME.findall(text))


def _controls(flow: FunctionFlow, loop: Node, after: int, value: str | None,
              call: tuple[int, int] | None) -> int | None:
    """The byte of a condition of ``loop`` that depends on the loaded value: the loop's own
    condition, or that of an ``if`` inside it (after the load) one of whose arms leaves or
    repeats the loop; the value is ``value`` (a variable's spelling) or the call itself (``call``'s
    bytes, used in place)."""
    conditions = []
    own = loop.child_by_field_name("condition")
    if own is not None:
        conditions.append(own)
    for node, condition, _, _ in flow.ifs:
        if condition is None or not (loop.start_byte <= node.start_byte < loop.end_byte) \
                or node.start_byte < after:
            continue
        arms = [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
        if any(arm is not None and (arm.type in _LEAVES or any(
                n.type in _LEAVES for n in _descendants(arm))) for arm in arms):
            conditions.append(condition)
    spelled = re.compile(rf"(?<![\w.>]){re.escape(value.strip())}(?!\w)") if value else None
    for condition in conditions:
        if call is not None and condition.start_byte <= call[0] < condition.end_byte:
            return condition.start_byte
        if spelled is not None and spelled.search(flow.parsed.node_text(condition)):
            return condition.start_byte
    return None


def _descendants(node: Node) -> Iterator[Node]:
    stack = list(node.children)
    while stack:
        current = stack.pop()
        yield current
        if current.type not in _LOOPS:  # (a break there leaves that loop, not this one)
            stack.extend(current.children)


def polled(flow: FunctionFlow, step: Step) -> tuple[int, str] | None:
    """Where the function polls the memory a non-coherent load reads: (the byte of the loop
    condition that depends on the value, the address as the function spells it). The load
    is in a loop, reads the same address on every turn (no name of the address changes in
    the loop) and a condition that leaves or repeats the loop reads the value."""
    loops = flow.loops_at(step.start)
    if not loops:
        return None
    start, end = loops[-1]  # the innermost
    loop = flow.node.descendant_for_byte_range(start, end)
    if loop is None or loop.type not in _LOOPS:
        return None
    spelled = operand_expression(step.statement, step.event.memory)
    address = bound_expression(step, spelled) if spelled is not None else None
    if address is None:
        return None
    for name in _names(address):
        if any(start <= at < end and how in _CHANGES for at, how, _ in flow.uses_of(name)):
            return None  # another address on each turn: a walk over read-only data
    value, at = _result(flow, step)
    call = (step.call.start, step.call.end) if step.call is not None and value is None else None
    if value is None and call is None:
        return None
    byte = _controls(flow, loop, at, value, call)
    return (byte, _unwrapped(address)) if byte is not None else None


class NonCoherentLoadPolled(Rule):
    id = "PTX302"
    name = "non-coherent-load-polled"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "A load through the non-coherent read-only path is polled in a loop"
    tags = ("correctness", "memory")
    docs = """\
## What it does
Flags `ld.global.nc` (any `ld...nc` form) or `ldu` whose value decides whether a loop goes on,
where the loop reads the same address on every turn: the loop's condition reads the value, or
an `if` inside the loop whose arm leaves or repeats it (`break`, `continue`, `return`) does.
The load may be in the function's own asm or in a helper it calls (same file or an included
project header: `while (ld_nc(&flag) == 0) {}`, `uint64_t h = ld_volatile(&head); if (h ==
tail) continue;`).

Silent where a name in the address changes inside the loop (`ld_nc(&data[i])` in a search over
read-only data), where the value only feeds other computation, and where a helper computes the
address from more than one of its parameters.

## Why is this bad?
The non-coherent path (`ld.global.nc`, what `__ldg` and `const __restrict__` produce, and
`ldu`) is for data that stays read-only for the lifetime of the kernel: its cache is not kept
coherent with writes of other threads, other GPUs or the host. A loop that waits for a flag,
a counter or a ring buffer's head to change through it may read a stale copy on every turn
and never see the change (uccl's `ld_volatile` helper was `ld.global.nc.u64`, polled for the
ring buffer's head and tail until it was changed to `ld.volatile.global.u64`).

## Example
```cuda
__device__ uint64_t ld_flag(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__global__ void wait_for(const uint64_t* flag) {
  while (ld_flag(flag) == 0) {}
}
```

## Use instead
```cuda
__device__ uint64_t ld_flag(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
```
This rule is in preview.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, NC_LOAD):
            found = polled(flow, step)
            if found is None:
                continue
            byte, address = found
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` reads `{address}` through the non-coherent "
                f"read-only path, and a loop polls it (the condition at line "
                f"{line_of(flow, byte)}, which decides whether the loop goes on, reads the "
                "value): that path is only for data the kernel never changes, so the loop may "
                "read a stale copy on every turn; use ld.volatile, ld.relaxed or ld.acquire")
