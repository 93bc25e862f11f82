"""MLIR types as Python code spells them (JAX Mosaic GPU, CuTe DSL, any ``mlir.ir`` user).

``ir.IntegerType.get_signless(32)``, ``ir.F16Type.get()``, ``T.i32()``, ``Int32.mlir_type``,
``ir.VectorType.get([2], ir.F16Type.get())``, ``ir.Type.parse("!llvm.ptr")``, and names bound
to them, are read into the type LLVM gives the value; nothing else is guessed. The register
letter follows MLIR's NVVM lowering (``BasicPtxBuilderInterface::getRegisterType``), packed
vectors included.
"""

from __future__ import annotations

import re

import tree_sitter

from ptxlint.model import CType
from ptxlint.value_class import value_class

from .values import Values


@value_class(slots=False)
class MlirType:
    spelling: str  # "i32", "f16", "vector<2xf16>", "ptr", "ptr<3>"
    kind: str  # "integer" | "floating" | "pointer" | "vector" | "bool"
    bits: int | None  # None: a pointer whose width depends on the target's address space
    element: str = ""  # a vector's element type
    lanes: int = 1


_SCALAR = re.compile(r"^(i|f|bf)(\d+)$")
_VECTOR = re.compile(r"^vector<(\d+)x(\w+)>$")
_PTR = re.compile(r"^!llvm\.ptr(?:<(\d+)>)?$")
_FLOAT_CLASSES = {"F16Type": "f16", "BF16Type": "bf16", "F32Type": "f32", "F64Type": "f64"}
_NUMERIC = {
    "Int8": "i8", "Uint8": "i8", "Int16": "i16", "Uint16": "i16", "Int32": "i32",
    "Uint32": "i32", "Int64": "i64", "Uint64": "i64", "Float16": "f16", "BFloat16": "bf16",
    "Float32": "f32", "Float64": "f64", "Boolean": "i1",
}
# Builders whose first argument is the result type (``arith.constant(i32, 5)``,
# ``llvm.bitcast(i32, x)``, Mosaic's ``c(5, i32)`` has it second).
_TYPED_FIRST = frozenset(
    "constant index_cast index_castui extui extsi trunci bitcast ptrtoint inttoptr fptosi "
    "fptoui sitofp uitofp extf truncf zext sext trunc".split()
)


def parse(text: str) -> MlirType | None:
    """An MLIR type's textual form."""
    text = text.strip()
    m = _SCALAR.match(text)
    if m:
        bits = int(m.group(2))
        if m.group(1) == "i":
            return MlirType(text, "bool" if bits == 1 else "integer", bits)
        return MlirType(text, "floating", bits)
    m = _VECTOR.match(text)
    if m:
        element = parse(m.group(2))
        if element is None or element.bits is None:
            return None
        lanes = int(m.group(1))
        return MlirType(text, "vector", element.bits * lanes, element.spelling, lanes)
    m = _PTR.match(text)
    if m:
        space = int(m.group(1) or 0)
        return MlirType(f"ptr<{space}>" if space else "ptr", "pointer", 64 if space == 0 else None)
    return None


def mlir_type(values: Values, node: tree_sitter.Node, depth: int = 0) -> MlirType | None:
    """The MLIR type ``node`` spells, through names bound once."""
    if depth > 8:
        return None
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "attribute":
        owner = target.child_by_field_name("object")
        attribute = target.child_by_field_name("attribute")
        if owner is not None and attribute is not None and values.text(attribute) == "mlir_type":
            name = values.text(owner).rsplit(".", 1)[-1]
            return parse(_NUMERIC[name]) if name in _NUMERIC else None
        return None
    if target.type != "call":
        return None
    function = target.child_by_field_name("function")
    arguments = target.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = [a for a in arguments.named_children if a.type != "comment"]
    callee = values.text(function)
    parts = callee.split(".")
    last = parts[-1]
    klass = parts[-2] if len(parts) >= 2 else ""
    if klass == "T" and not args:  # CuTe DSL's `T.i32()`
        return parse(last)
    if klass in _FLOAT_CLASSES and last == "get":
        return parse(_FLOAT_CLASSES[klass])
    if klass == "IntegerType" and last in ("get_signless", "get_signed", "get_unsigned") and args:
        bits = values.scalar(args[0])
        return parse(f"i{bits}") if isinstance(bits, int) and bits > 0 else None
    if klass == "Type" and last == "parse" and args:
        value = values.string(args[0])
        return None if value.has_holes else parse(value.text)
    if klass == "VectorType" and last == "get" and len(args) >= 2:
        shape = values.definition(args[0])
        if shape is None or shape.type not in ("list", "tuple"):
            return None
        dims = [values.scalar(d) for d in shape.named_children if d.type != "comment"]
        element = mlir_type(values, args[1], depth + 1)
        if len(dims) != 1 or not isinstance(dims[0], int) or element is None:
            return None
        return parse(f"vector<{dims[0]}x{element.spelling}>")
    if klass == "PointerType" and last == "get":
        space = values.scalar(args[0]) if args else 0
        return parse(f"!llvm.ptr<{space}>") if isinstance(space, int) else None
    return None


def value_type(values: Values, node: tree_sitter.Node) -> MlirType | None:
    """The type of an SSA value as the source builds it: a typed builder's result type
    (``arith.constant(i32, 1)``, ``llvm.bitcast(i32, x)``, Mosaic's ``c(1, i32)``), or the
    value of a CuTe DSL number of a named type (``Int64(p).ir_value(loc=loc, ip=ip)``: the
    class converts its argument to that type, whose MLIR type ``.mlir_type`` names)."""
    target = values.definition(node)
    if target is None or target.type != "call":
        return None
    function = target.child_by_field_name("function")
    arguments = target.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = [a for a in arguments.named_children if a.type not in ("comment", "keyword_argument")]
    last = values.text(function).rsplit(".", 1)[-1]
    if last == "ir_value" and function.type == "attribute":
        number = _numeric_class(values, function.child_by_field_name("object"))
        return parse(_NUMERIC[number]) if number is not None else None
    if last in _TYPED_FIRST and args:
        return mlir_type(values, args[0])
    if last == "c" and len(args) == 2:
        return mlir_type(values, args[1])
    return None


def _numeric_class(values: Values, node: tree_sitter.Node | None) -> str | None:
    """The CuTe DSL number class ``node`` is built by (``Int32`` of ``Int32(x)``,
    ``cutlass.Float32(x)``), through a name bound once."""
    target = values.definition(node) if node is not None else None
    if target is None or target.type != "call":
        return None
    callee = target.child_by_field_name("function")
    name = values.text(callee).rsplit(".", 1)[-1] if callee is not None else ""
    return name if name in _NUMERIC else None


def register_letter(t: MlirType) -> str | None:
    """``getRegisterType``: the letter the NVVM lowering picks; None where it fails."""
    if t.kind == "vector":
        element = parse(t.element)
        if element is None:
            return None
        widened = t.element
        if t.lanes == 2 and t.element in ("f16", "bf16"):
            widened = "f32"
        elif t.lanes == 2 and t.element.startswith("f") and element.bits == 8:
            widened = "i16"
        elif t.lanes == 4 and t.element == "i8":
            widened = "i32"
        elif t.lanes == 4 and element.bits == 8:
            widened = "f32"
        elif t.lanes == 4 and element.bits == 4:
            widened = "i16"
        elif t.lanes > 1:
            return None
        scalar = parse(widened)
        return register_letter(scalar) if scalar is not None else None
    if t.kind == "pointer":
        return "r" if t.spelling == "ptr<3>" else "l"
    return {"i1": "b", "i16": "h", "i32": "r", "i64": "l", "f32": "f", "f64": "d"}.get(
        t.spelling
    )


def ctype(t: MlirType) -> CType:
    """The model's type for an operand of MLIR type ``t`` (its size in bytes, where known)."""
    kind = {"vector": "integer", "bool": "bool"}.get(t.kind, t.kind)
    size = t.bits // 8 if t.bits is not None and t.bits >= 8 else (1 if t.bits else None)
    return CType(t.spelling, kind, size)
