"""PTX612 uniform-matrix-row-address."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.divergence import Kind
from ptxlint.analysis.function_flow import flows_of
from ptxlint.analysis.lane_addresses import operand_kind
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxOperand, Severity
from ptxlint.rule import Rule, RuleContext

_WHAT = {
    "ldmatrix": ("reads", "every row of each matrix it loads is that one row"),
    "stmatrix": ("writes", "every lane's row goes to those 16 bytes, the others are lost"),
}


def _address_ref(operand: PtxOperand) -> int | None:
    """The ``%N`` an address operand's register part is (``[%4]``, ``[%4+16]``); None for an
    address without one (a PTX register of the template, a symbol)."""
    refs = [p.ref for p in operand.parts if p.kind == "ref"]
    return refs[0] if len(refs) == 1 and refs[0] is not None else None


class UniformMatrixRowAddress(Rule):
    id = "PTX612"
    name = "uniform-matrix-row-address"
    severity = Severity.WARNING
    # ldmatrix and stmatrix always spell .sync.aligned: a statement without a collective has neither
    needs = ("collectives",)
    summary = "ldmatrix/stmatrix given the same row address by every lane of the warp"
    tags = ("correctness", "memory", "warp")
    docs = """\
## What it does
Flags an `ldmatrix` or `stmatrix` whose address operand is bound to a C++ value that is
certainly the same in every lane of the warp: built only from constants, template
parameters, `blockIdx`/`blockDim`/`gridDim`, a kernel's parameters, the warp index
(`threadIdx.x / 32`), the address of a `__shared__` variable and conversions of these
(`__cvta_generic_to_shared`, casts), through locals defined once at a point the whole warp
reaches (the divergence classifier of PTX601, read as an address). `smem_base + 64` with
`smem_base = __cvta_generic_to_shared(tile)` is flagged. In a `__device__` helper, a
parameter counts where the file calls the helper and every call passes such a value (one call
level up): `ldmatrix_a(frag, tile)` from a kernel, with `tile` a `__shared__` array.

Anything the analysis cannot tell is silent: an address that depends on the lane or thread
index (`threadIdx.x % 16 * stride`, a lane helper's result), a `__device__` helper's
parameter where the file has no call of the helper, or one call passes a value the analysis
cannot tell (its callers may pass each lane its own row), a local assigned more than once or
under a condition, a member, an element read from memory, an address computed inside the
template (`mov.u32 %r, %laneid; ...`), an operand that is also an output. `movmatrix` has no
address operand (it transposes registers) and is not checked.

## Why is this bad?
The PTX ISA ("ldmatrix"): the instruction loads one or more matrices "across all threads in
a warp", and "each address corresponds to the start of a matrix row": threads 0-7 give the
addresses of the first matrix's eight rows, threads 8-15 those of the second, and so on (for
`.x1` threads 0-7 alone, for `.x2` threads 0-15, for `.x4` all 32). `stmatrix` takes its row
addresses the same way. Where every lane passes one address, every row of every matrix is
read from that one 16-byte row (`ldmatrix`: the fragment holds row 0 eight times, and an
`mma` on it computes garbage without any error), or every row is stored to it (`stmatrix`:
the warp's rows overwrite each other, one survives). A public GEMM kernel passed its shared
tile's base address to `ldmatrix.x4` and `ldmatrix.x2.trans` in every lane; every sub-matrix
read the first 8x8 block, and the defect was blamed on a driver bug before the loads were
rewritten.

## Example
```cuda
__global__ void gemm(const half* a) {
  __shared__ half tile[16 * 16];
  uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint32_t r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base + 64));
}
```

## Use instead
Each lane passes the address of the row it supplies: lane `l` gives row `l % 16` of the
16x16 tile, the left or right 8 columns by `l / 16`.
```cuda
  int lane = threadIdx.x % 32;
  uint32_t row = base + ((lane % 16) * 16 + (lane / 16) * 8) * sizeof(half);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(row));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        addresses = [(i.opcode, operand) for i in statement.ptx.instructions
                     if i.opcode in _WHAT and not i.opaque
                     for operand in i.operands if operand.kind == "address"]
        if not addresses or statement.context.macro is not None \
                or analysis_of(statement).rocm_guarded:
            return
        flows = flows_of(context)
        if flows is None:
            return
        flow = flows.function_holding(statement)
        if flow is None:
            return
        for opcode, address in addresses:
            ref = _address_ref(address)
            if ref is None or ref >= len(statement.operands):
                continue
            operand = statement.operands[ref]
            if operand.role != "input":
                continue
            kind, passed = operand_kind(flows, flow, operand)
            if kind is not Kind.UNIFORM:
                continue
            verb, result = _WHAT[opcode]
            calls = "" if not passed else (
                f" (every call of `{flow.name}` in this file passes "
                + " and ".join(f"`{p}`" for p in passed) + " a value the same in all lanes)")
            yield self.finding(
                statement, self.template_span(statement, address.start, address.end),
                f"every lane of the warp passes `{operand.expression}` (%{ref}) as its row "
                f"address: it is the same in all lanes{calls}, so `{opcode}` {verb} one row "
                f"for all of them and {result}; the PTX ISA takes one row address from each lane "
                "(lanes 0-7 the first matrix's rows, 8-15 the second's, ...)")
