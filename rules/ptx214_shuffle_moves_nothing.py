"""PTX214 shuffle-moves-nothing."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, PtxOperand, Severity
from ptxlint.ptx.judge import operand_class
from ptxlint.ptx.shuffle import MODES, WARP, conventional_clamp, moves_data
from ptxlint.rule import Rule, RuleContext


def _value(statement: AsmStatement, operand: PtxOperand | None) -> int | None:
    """The integer an operand spells: a template immediate, or an ``"n"`` operand whose
    expression is a literal; None otherwise."""
    if operand is None or operand.kind not in ("immediate", "ref"):
        return None
    known = operand_class(statement, operand, True)
    return known.value if known.kind == "imm" and known.type == "int" else None


def _members(mask: int | None) -> tuple[int, ...]:
    return tuple(WARP) if mask is None else tuple(lane for lane in WARP if mask >> lane & 1)


class ShuffleMovesNothing(Rule):
    id = "PTX214"
    name = "shuffle-moves-nothing"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("instructions",)
    summary = "A shfl whose operands leave every lane with its own value"
    tags = ("correctness", "template", "warp")
    docs = """\
## What it does
Flags a `shfl.sync` (or the deprecated `shfl`) whose lane offset `b` and packed clamp and
segment mask `c` are constants that let no lane read another lane's value, by the PTX ISA's
own pseudocode (`ptxlint.ptx.shuffle`): every lane then keeps its own `a` and the predicate
`p` is false everywhere. Only the member lanes of a constant member mask are counted. Where `b`
is not a constant, the shuffle is flagged only when no offset at all would move a value: the
clamp is the defect. The classic case is a clamp copied from one mode to the other:

* `.up` with clamp `0x1f`: `j = lane - b` must be at least `maxLane`, 31, so no lane
  receives (CUDA's `__shfl_up_sync` passes clamp 0, `c = (32 - width) << 8`);
* `.down` with clamp `0`: `j = lane + b` must be at most 0 (`__shfl_down_sync` passes
  `((32 - width) << 8) | 0x1f`).

A constant offset that moves nothing (`shfl.sync.down.b32 %0, %1, 0, 0x1f, -1`) is flagged
too, and the message blames the offset. Silent where `c` is not a constant, and where some
lane receives another's value, however few (a segment's last lanes with `.down` are meant to
keep theirs).

## Why is this bad?
The PTX ISA ("shfl.sync"): "If the computed source lane index j is in range, the thread will
copy the input operand a from lane j into its own destination register d; otherwise, the
thread will simply copy its own input a to destination d." The statement compiles and runs,
and a scan or reduction built on it silently returns each lane's own value.

## Example
```cuda
asm volatile("shfl.sync.up.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(prev) : "r"(x));
```

## Use instead
```cuda
asm volatile("shfl.sync.up.b32 %0, %1, 1, 0x0, 0xffffffff;" : "=r"(prev) : "r"(x));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for instruction in statement.ptx.instructions:
            if instruction.opcode != "shfl" or instruction.opaque:
                continue
            message = self._judge(statement, instruction)
            if message is not None and not analysis_of(statement).rocm_guarded:
                operands = instruction.operands
                yield self.finding(
                    statement,
                    self.template_span(statement, operands[3].start, operands[3].end),
                    message)

    def _judge(self, statement: AsmStatement, instruction: PtxInstruction) -> str | None:
        modes = [m for m in instruction.modifiers if m in MODES]
        operands = instruction.operands
        if len(modes) != 1 or len(operands) < 4:
            return None
        mode = modes[0]
        c = _value(statement, operands[3])
        if c is None:
            return None
        mask = None
        if "sync" in instruction.modifiers:
            if len(operands) < 5:
                return None
            mask = _value(statement, operands[4])
            if mask is not None:
                mask &= 0xFFFFFFFF
        lanes = _members(mask)
        if not lanes:
            return None
        b = _value(statement, operands[2])
        clamp = f"0x{c & 0x1F:x}"
        usual = f"0x{conventional_clamp(mode, c):x}"
        lanes_said = "every lane" if mask is None or len(lanes) == 32 else (
            f"every lane of member mask 0x{mask:x}")
        if not moves_data(mode, range(32), c, lanes):
            side = "lowest" if mode == "up" else "highest"
            return (f"'{instruction.mnemonic}' with c = {_spelled(operands[3], c)} moves no "
                    f"value whatever the offset: for .{mode} the clamp {clamp} is the {side} "
                    f"source lane, so {lanes_said} keeps its own value and the predicate is "
                    f"false; CUDA's own shuffles pass {usual} here")
        if b is not None and not moves_data(mode, (b,), c, lanes):
            return (f"'{instruction.mnemonic}' with offset {_spelled(operands[2], b)} moves no "
                    f"value: {lanes_said} keeps its own")
        return None


def _spelled(operand: PtxOperand, value: int) -> str:
    """How a message names a constant operand: as written, and its value where a ``%N``
    stands for it."""
    return operand.text if operand.kind == "immediate" else f"{operand.text} ({value:#x})"
