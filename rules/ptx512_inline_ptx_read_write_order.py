"""PTX512 inline-ptx-read-write-order."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call


class InlinePtxReadWriteOrder(Rule):
    id = "PTX512"
    name = "inline-ptx-read-write-order"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "inline_ptx with read_write_args and read_only_args: the lowering swaps their values"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
Flags a CuTe DSL `cute.arch.inline_ptx` (or MLIR `nvvm.inline_ptx`) call that has both
`read_write_args` and `read_only_args` (or a predicate after read-write arguments).

## Why is this bad?
The NVVM lowering passes the call's values in the order read-write, read-only, predicate, but
writes its input constraints in the order read-only, predicate, and then the ties that give
each read-write register its starting value. LLVM pairs values and constraints in order, so
`{$r0}` reads `read_write_args[0]`, and a `{$rwN}` register starts from a read-only value.
Measured with nvidia-cutlass-dsl 4.8.1 (`cute.compile`, sm_90a):
`sub.s32 {$rw0}, {$rw0}, {$r0};` with `read_write_args=[a]`, `read_only_args=[b]` computes
`b - a`, and `mad.lo.s32 {$rw0}, {$r0}, {$r1}, {$rw0};` with `[a]` and `[b, c]` computes
`a * b + c`. The kernel compiles and its results are silently wrong; where the types of the
swapped values differ, LLVM or ptxas rejects it instead.

## Example
```python
cute.arch.inline_ptx("sub.s32 {$rw0}, {$rw0}, {$r0};", read_write_args=[acc],
                     read_only_args=[x])
```

## Use instead
Give the read-write value as a read-only input and take the result as a write-only output:
```python
acc = cute.arch.inline_ptx("sub.s32 {$w0}, {$r0}, {$r1};", write_only_types=[Int32],
                           read_only_args=[acc, x])
```

## Fix safety
No fix is offered: the rewrite changes how the call's result is used.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api != "cute-ptx":
            return
        counts = dict(call.role_counts)
        rw = counts.get("rw", 0)
        reads = counts.get("r", 0) + counts.get("predicate", 0)
        if not rw or not reads or "r" not in counts:
            return
        inputs = [o for o in statement.inputs if not o.constraint.letters.isdigit()]
        ties = [o for o in statement.inputs if o.constraint.letters.isdigit()]
        pairs = [
            f"{{$r{k}}} reads '{o.expression}'"
            for k, o in enumerate(inputs[: counts.get("r", 0)])
        ][:2]
        if ties:
            pairs.append(f"{{$rw0}} starts from '{ties[0].expression}'")
        span = call.args_span or statement.span
        written = [o for o in statement.outputs if o.index < rw]
        if written:
            span = written[0].expression_span
        yield self.finding(
            statement,
            span,
            "with read_write_args and read_only_args together, the lowering passes the "
            "read-write values first but ties them last, so the values land in the wrong "
            f"registers: {'; '.join(pairs)} (nvidia-cutlass-dsl 4.8.1)",
        )
