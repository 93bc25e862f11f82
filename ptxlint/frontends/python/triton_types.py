"""Element types, element counts and Triton's register packing rule.

Research note 1.2: per asm instance every result and argument takes ``pack`` registers for
32/64-bit elements and pointers, and ``pack / min(pack, 32 / bits)`` for narrower elements
(sub-32-bit elements share a register as an LLVM vector). Anything not knowable is ``None``.
"""

from __future__ import annotations

import tree_sitter

from .signatures import Signature, api_signature, bind
from .values import Values

# Triton / JAX / CuTe element type names (last attribute) -> bits.
BITS: dict[str, int] = {}
for _names, _bits in (
    ("float16 fp16 bfloat16 bf16 int16 uint16 half", 16),
    ("float32 fp32 int32 uint32 tf32 float", 32),
    ("float64 fp64 int64 uint64 double", 64),
    (
        "int8 uint8 float8e4nv float8e5 float8e4b15 float8e4b8 float8e5b16 fp8e4nv fp8e5 "
        "float8_e4m3fn float8_e5m2",
        8,
    ),
):
    for _name in _names.split():
        BITS[_name] = _bits
POINTER = "pointer"


def bits_of(dtype: str | None) -> int | None:
    if dtype is None:
        return None
    if dtype == POINTER:
        return 64
    return BITS.get(dtype)


def registers(bits: int | None, pack: int) -> tuple[int, int]:
    """Registers one tensor takes per asm instance: exact when ``bits`` is known, else the
    range over every element width Triton allows (8-bit to 64-bit)."""
    if bits is not None:
        if bits >= 32:
            return pack, pack
        per = min(32 // bits, pack)
        return max(1, pack // per), max(1, pack // per)
    low = max(1, pack // min(4, pack))
    return low, pack


def dtype_name(values: Values, node: tree_sitter.Node) -> str | None:
    """``tl.float16`` / ``core.float16`` / ``jnp.float16`` / ``"float16"`` -> ``"float16"``."""
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "string":
        text = values.text(target).strip("'\"")
    elif target.type in ("attribute", "identifier"):
        text = values.text(target).rsplit(".", 1)[-1]
    else:
        return None
    return text if text in BITS else None


def result_dtypes(values: Values, node: tree_sitter.Node) -> tuple[str | None, ...] | None:
    """The element type of every result: a dtype, or a tuple/list of them."""
    target = values.definition(node)
    if target is None:
        return None
    if target.type in ("tuple", "list"):
        items = [c for c in target.named_children if c.type != "comment"]
        if any(c.type in ("list_splat", "parenthesized_list_splat") for c in items):
            return None
        return tuple(dtype_name(values, c) for c in items)
    if target.type in ("attribute", "identifier", "string"):
        return (dtype_name(values, target),)
    return None


# The calls whose ``dtype`` argument is the element type of what they return (``x.to(dtype)``,
# ``tl.full(shape, value, dtype)``, ``tl.cast(input, dtype)``), by the callee's last name.
_DTYPE_CALLS: dict[str, Signature] = {
    "to": api_signature(("dtype",)),
    "full": api_signature(("shape", "value", "dtype")),
    "zeros": api_signature(("shape", "dtype")),
    "ones": api_signature(("shape", "dtype")),
    "cast": api_signature(("input", "dtype")),
}


def arg_dtype(values: Values, node: tree_sitter.Node, depth: int = 0) -> str | None:
    """Element type of a Triton tensor expression, where the source says it."""
    if depth > 8:
        return None
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "integer":
        return "int32"
    if target.type == "float":
        return "float32"
    if target.type != "call":
        return None
    function = target.child_by_field_name("function")
    arguments = target.child_by_field_name("arguments")
    if function is None or arguments is None or function.type != "attribute":
        return None
    method = function.child_by_field_name("attribute")
    signature = _DTYPE_CALLS.get(values.text(method)) if method is not None else None
    if signature is None:
        return None  # before the arguments are bound: CuTe's `x.ir_value(loc=loc, ip=ip)`
    dtype = bind(values.parsed, signature, arguments).given.get("dtype")
    return dtype_name(values, dtype) if dtype is not None else None


# Calls whose result has the element count of their first argument (of the receiver: ``to``).
_ELEMENTWISE = ("load", "to", "cast", "abs", "exp", "log")


def elements(values: Values, node: tree_sitter.Node, depth: int = 0) -> int | None:
    """Element count of a tensor expression built from ``tl.arange`` with literal bounds."""
    if depth > 12:
        return None
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "binary_operator":
        counts = [
            elements(values, side, depth + 1)
            for side in (target.child_by_field_name("left"), target.child_by_field_name("right"))
            if side is not None
        ]
        known = [c for c in counts if c is not None]
        return known[0] if known and all(c == known[0] for c in known) else None
    if target.type != "call":
        return None
    function = target.child_by_field_name("function")
    arguments = target.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    name = values.text(function).rsplit(".", 1)[-1]
    if name != "arange" and name not in _ELEMENTWISE:
        return None  # before the arguments are listed (as in ``arg_dtype``)
    args = [a for a in arguments.named_children if a.type not in ("comment", "keyword_argument")]
    if name == "arange" and len(args) == 2:
        low, high = values.scalar(args[0]), values.scalar(args[1])
        if isinstance(low, int) and isinstance(high, int) and high > low:
            return high - low
        return None
    if name in _ELEMENTWISE and function.type == "attribute":
        receiver = function.child_by_field_name("object")
        if name in ("to",) and receiver is not None:
            return elements(values, receiver, depth + 1)
        if args:
            return elements(values, args[0], depth + 1)
    return None
