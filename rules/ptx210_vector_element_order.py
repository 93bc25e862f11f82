"""PTX210 vector-element-order."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.vector_order import VectorOrder, vector_orders
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

_MEMBERS = "xyzw"


class VectorElementOrder(Rule):
    id = "PTX210"
    name = "vector-element-order"
    pure = False  # a store's source may be a constant declared elsewhere in the file
    scope = "file"  # another statement of the function may pack the object the other way
    severity = Severity.WARNING
    needs = ("instructions",)
    summary = ("A vector's or packed pair's elements are bound to one C++ vector in another "
               "order")
    tags = ("correctness", "template", "operands")
    docs = """\
## What it does
Flags a vector load or store (`ld`, `ldu`, `st`, `atom`, `red` with `.v2`/`.v4`/`.v8`) whose
brace elements are all bound to members of one C++ vector (`v.x` .. `v.w`) or elements of one
array (`a[0]` ..), in an order that is not the object's layout order: `{v.w, v.x, v.y, v.z}`,
`{a[1], a[0]}` (`ptxlint.analysis.vector_order`).

The same holds for the two other places PTX orders a C++ object's elements by position:

- a register pack or unpack, `mov.b64 %0, {%1, %2}` (and `mov.b32`, `.b16`, `.b128`): the
  brace list fills the register from the low bits up (PTX ISA, `mov`), as CUDA's vector types
  and `half2` keep element 0 in the low half, so `{v.y, v.x}` swaps them;
- a conversion to a packed pair, `cvt.rn.f16x2.f32 %0, %1, %2` (`.bf16x2`, `.e4m3x2`,
  `.e2m1x2`, `.ue8m0x2`...): "the value converted from input a is stored in the upper half"
  (PTX ISA, `cvt`), so the layout order binds `a` to `v.y` and `b` to `v.x`, the reverse of
  `__floats2half2_rn(v.x, v.y)`'s argument order. Bound to `v.x, v.y` in that order, the pair
  holds `v` swapped. Over 60 public trees, every one of 166 such conversions and 177 such
  packs bound to one object follows the layout order.

A window of the object in its own order (`{v.z, v.w}`) is not flagged, nor a store from an
object the file declares constant (`__constant__`, `constexpr`, `const` with an initializer),
whose words are an encoding written out in the order the stored value needs (CUTLASS stores
the double 1.0 from `uint2 {0x3ff00000, 0}` as `{y, x}`), nor a matrix fragment, whose
element order follows other rules. An element bound to anything else (two objects, a
computed index) leaves the operand alone; so does a pair of separate variables, unless they
are named for their halves (`lo`/`hi`, `x_low`/`x_high`, `upper`): the low one belongs in the
low half (58 such packs and pairs in the public trees, every one in that order). Nor is a
pack whose object the same function also unpacks the other way, in another element order
(`mov.b64 {%0, %1}, %2` into `t.x, t.y`, then `mov.b64 %0, {%1, %2}` from `t.y, t.x`): the
two compute a permutation of the register's pieces (a swap of its halves, a rotation by 16
bits, as hash kernels write them), and the object only carries the pieces between them. Nor
is the one pack or unpack of an object in a function named for a swap (ccminer's
`vectorizeswap` splits a 64-bit value into a `uint2` high half first): the permutation is
what the function is for; the same `mov` in a `vectorize` is reported.

## Why is this bad?
PTX ISA, `ld`/`st` with a vector type: element *i* of the brace list is the *i*-th element in
memory from the address. CUDA's `int4` keeps `x, y, z, w` at offsets 0, 4, 8, 12, and an array
keeps `a[k]` at `k` elements. A brace list bound in another order moves every element into
another member: the C++ value is the memory permuted, and nothing reports it (nvcc and ptxas
accept any binding). On an H200 (CUDA 13.0), `ld.global.v4.u32 {%0, %1, %2, %3}` bound to
`v.w, v.x, v.y, v.z` reads the memory `{1, 2, 3, 4}` as `v = {2, 3, 4, 1}`
(tests/test_vector_element_order.py runs it wherever a GPU is present; so it does for
`cvt.rn.f16x2.f32 %0, %1, %2` bound to `v.x, v.y`, whose `__low2float` is `v.y`).

## Example
```cuda
asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
             : "=r"(v.w), "=r"(v.x), "=r"(v.y), "=r"(v.z) : "l"(p));
asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h2) : "f"(v.x), "f"(v.y));
```

## Use instead
```cuda
asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(h2) : "f"(v.x), "f"(v.y));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        orders = vector_orders(statement)
        if not orders or analysis_of(statement).rocm_guarded:
            return
        for order in orders:
            positions = order.positions
            if all(a < b for a, b in zip(positions, positions[1:], strict=False)):
                continue  # the layout order, or a window of it
            if order.constant_source:
                continue  # a constant written out word by word, in the order it is stored
            if order.kind == "pack":
                others = _packs_of_the_object(statement, order, context)
                if others is not None and (_round_trip(order, others)
                                           or _named_for_a_swap(statement, others)):
                    continue  # the register's pieces are permuted on purpose
            bound = ", ".join(order.expressions)
            layout = ", ".join(
                sorted(order.expressions, key=lambda e: positions[order.expressions.index(e)])
            )
            mnemonic = order.instruction.mnemonic
            # two variables named for their half (``x_lo``, ``x_hi``), or one object's elements
            swapped = ("the half named low lands high" if "*" in order.base
                       else f"the packed value holds '{order.base}' swapped (element 0 belongs "
                            "in the low half, where __floats2half2_rn(x, y) puts x)")
            if order.kind == "pair":
                low, high = order.expressions
                message = (
                    f"'{mnemonic}' writes its first source to the upper half and its second to "
                    f"the lower, but the first is {high} and the second {low}: {swapped}; swap "
                    "the two sources")
            elif order.kind == "pack" and _is_unpack(order):
                message = (
                    f"'{mnemonic}' unpacks the register into its brace elements from the low "
                    f"bits up, but they are bound to {{{bound}}}: "
                    + ("the low half lands in the one named high" if "*" in order.base else
                       f"'{order.base}' receives the register's pieces swapped against its "
                       "layout")
                    + f"; bind them in layout order {{{layout}}}")
            elif order.kind == "pack":
                message = (
                    f"'{mnemonic}' packs its brace elements from the low bits up, but they are "
                    f"bound to {{{bound}}}: "
                    + ("the half named low lands high" if "*" in order.base else
                       f"the register holds '{order.base}' with its elements swapped against "
                       "its layout")
                    + f"; bind them in layout order {{{layout}}}")
            else:
                verb = "stores" if order.instruction.opcode in ("st", "red") else "moves"
                message = (
                    f"'{mnemonic}' {verb} memory elements 0..{len(positions) - 1} in brace "
                    f"order, but they are bound to {{{bound}}}: '{order.base}' is permuted "
                    f"against memory; bind them in layout order {{{layout}}}")
            yield self.finding(
                statement,
                self.template_span(statement, order.operand.start, order.operand.end),
                message,
            )


def _is_unpack(order: VectorOrder) -> bool:
    """A `mov` whose brace list is its destination: the register is split into the object."""
    return order.instruction.operands[0] is order.operand


def _packs_of_the_object(statement: AsmStatement, order: VectorOrder,
                         context: RuleContext) -> list[VectorOrder] | None:
    """The other packs and unpacks of the same object in the statement's function; None where
    the function or the file's other statements cannot be read."""
    parsed = context.parsed
    to_byte = getattr(parsed, "to_byte", None)
    if to_byte is None or not context.file_statements:
        return None
    function = facts_for(context, statement)
    if function is None:
        return None
    others: list[VectorOrder] = []
    for other in context.file_statements:
        if other is statement or other.context.macro is not None:
            continue
        if not function.start <= to_byte(other.span.start) < function.end:
            continue
        others.extend(theirs for theirs in vector_orders(other)
                      if theirs.kind == "pack" and theirs.base == order.base)
    return others


def _round_trip(order: VectorOrder, others: list[VectorOrder]) -> bool:
    """Another statement of the same function packs or unpacks the same object the other way
    (one splits a register into the object, the other joins the object into a register) in
    another element order: the pair computes a permutation of the register's pieces (a swap
    of its halves, a rotation by 16 bits), and the object only carries them from one to the
    other, so its layout is not what either order is judged against."""
    unpack = _is_unpack(order)
    return any(_is_unpack(theirs) != unpack and len(theirs.positions) == len(order.positions)
               and theirs.positions != order.positions for theirs in others)


def _named_for_a_swap(statement: AsmStatement, others: list[VectorOrder]) -> bool:
    """The function's name says it swaps (ccminer's `vectorizeswap`, which returns a 64-bit
    value split into a `uint2` high half first), and this is its one pack or unpack of the
    object: the permutation is what the function is for. With another one of the object
    beside it the pair is judged together (`_round_trip`): two in the same swapped order
    undo each other, whatever the name says."""
    name = statement.context.function
    return name is not None and "swap" in name.lower() and not others
