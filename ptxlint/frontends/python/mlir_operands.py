"""The types of an MLIR ``llvm.inline_asm`` call's operands (JAX Mosaic GPU, Pallas' Mosaic
lowering, CuTe DSL), read from the MLIR ``ir`` types the call spells, so that a constraint
letter that does not fit its value is judged as in C++ (PTX004's LLVM branch).

Results come from ``res``: one type, or a literal struct (``llvm.StructType.get_literal([...])``,
``ir.Type.parse("!llvm.struct<(i32, i32)>")``) whose members are the outputs in order.
Arguments come from ``operands_``: a value built by a typed builder (``arith.constant(i32, 1)``).
Where either is not knowable, the operand keeps no type: never a guess.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import tree_sitter

from ptxlint.model import Operand, Span

from . import mlir_types
from .values import Values

_STRUCT = re.compile(r"^!llvm\.struct<\((.*)\)>$")


def _result_types(values: Values, node: tree_sitter.Node) -> list[mlir_types.MlirType] | None:
    single = mlir_types.mlir_type(values, node)
    if single is not None:
        return [single]
    target = values.definition(node)
    if target is None or target.type != "call":
        return None
    function = target.child_by_field_name("function")
    arguments = target.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = [a for a in arguments.named_children if a.type != "comment"]
    callee = values.text(function)
    if callee.endswith("StructType.get_literal") and args:
        members = values.definition(args[0])
        if members is None or members.type not in ("list", "tuple"):
            return None
        found = [mlir_types.mlir_type(values, m) for m in members.named_children
                 if m.type != "comment"]
        return None if any(t is None for t in found) else [t for t in found if t is not None]
    if callee.endswith("Type.parse") and args:
        text = values.string(args[0])
        m = _STRUCT.match(text.text.strip()) if not text.has_holes else None
        if m is None:
            return None
        parsed = [mlir_types.parse(part) for part in m.group(1).split(",")]
        return None if any(t is None for t in parsed) else [t for t in parsed if t is not None]
    return None


def mlir_operand_types(
    values: Values,
    bound: dict[str, tree_sitter.Node],
    param: Callable[[str], str | None],
    operands: tuple[Operand, ...],
) -> tuple[Operand, ...]:
    """``operands`` with the types the call's MLIR ``res`` and ``operands_`` spell."""
    res_name, args_name = param("dtype"), param("args")
    res = bound.get(res_name) if res_name else None
    args = bound.get(args_name) if args_name else None
    outputs = [o for o in operands if o.role == "output"]
    inputs = [o for o in operands if o.role == "input"]
    types: dict[int, mlir_types.MlirType] = {}
    labels: dict[int, tuple[str, Span]] = {}
    if res is not None:
        found = _result_types(values, res)
        if found is not None and len(found) == len(outputs):
            types.update((o.index, t) for o, t in zip(outputs, found, strict=True))
    if args is not None:
        target = values.definition(args)
        if target is not None and target.type in ("list", "tuple"):
            items = [c for c in target.named_children if c.type != "comment"]
            if len(items) == len(inputs) and not any("splat" in c.type for c in items):
                for operand, item in zip(inputs, items, strict=True):
                    t = mlir_types.value_type(values, item)
                    if t is not None:
                        types[operand.index] = t
                    labels[operand.index] = (values.text(item), values.span(item))
    if not types and not labels:
        return operands
    out: list[Operand] = []
    for o in operands:
        if o.index in types and o.ctype is None:
            o = dataclasses.replace(o, ctype=mlir_types.ctype(types[o.index]))
        if o.index in labels and not o.expression:
            text, span = labels[o.index]
            o = dataclasses.replace(o, expression=text, expression_span=span)
        out.append(o)
    return tuple(out)
