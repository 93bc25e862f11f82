"""The Triton ``tl.inline_asm_elementwise`` call for a derived statement.

The same derivation as the C++ wrapper (:mod:`ptxlint.generate.derive`), in LLVM's spelling:
operands are ``$N``, the constraint string lists outputs then inputs, comma-separated, and the
memory clobber is ``~{memory}``. ``is_pure`` is the negation of ``volatile``. Every value is an
elementwise tensor argument (a vector's elements one argument each); the element ``dtype``
follows the operand's PTX type, and ``pack`` is 2 where every value is a pair of 16-bit
elements in one 32-bit register (``.f16x2``: Triton puts two fp16 elements in each "r").

What Triton cannot pass raises :class:`NotExpressible`: a ``.shared`` address (its tensors hold
global pointers), a 128-bit value (no such dtype), an accumulator read and written, a form only
a newer ptxas or an older target has (the call has no ``#if``). A form with no register result
still returns one (an elementwise call must): the template writes 0 to a 32-bit result, which
the caller ignores. Immediates are spelled into the template (an LLVM "n" operand needs a
constant the Triton front end does not pass); the comment names the values the form admits.
"""

from __future__ import annotations

import re

from .cxx import function_name
from .derive import AsmOperand, Derived, NotExpressible, Parameter
from .guard import described

__all__ = ["call", "source"]

# PTX type -> Triton dtype of one element at pack=1 (the 8-bit types travel in 16-bit "h").
_DTYPES: dict[str, str] = {
    "u32": "tl.uint32", "b32": "tl.uint32", "s32": "tl.int32", "f32": "tl.float32",
    "u16": "tl.uint16", "b16": "tl.uint16", "s16": "tl.int16", "f16": "tl.float16",
    "bf16": "tl.bfloat16", "u8": "tl.uint16", "b8": "tl.uint16", "s8": "tl.int16",
    "u64": "tl.uint64", "b64": "tl.uint64", "s64": "tl.int64", "f64": "tl.float64",
    "int": "tl.uint64", "pred": "tl.int32",
}
# Pairs of 16-bit elements in one 32-bit register: the element dtype at pack=2.
_PAIRS = {"f16x2": "tl.float16", "bf16x2": "tl.bfloat16", "u16x2": "tl.uint16",
          "s16x2": "tl.int16"}
_LETTER_DTYPE = {"h": "tl.uint16", "r": "tl.uint32", "l": "tl.uint64", "f": "tl.float32",
                 "d": "tl.float64"}


def _params(derived: Derived) -> dict[str, Parameter]:
    return {p.name: p for p in derived.params}


def _pack(derived: Derived) -> int:
    values = [p for p in derived.params if p.kind in ("in", "out", "inout") and p.ptx_type]
    if values and all(p.ptx_type in _PAIRS for p in values):
        return 2
    return 1


def _dtype(operand: AsmOperand, param: Parameter, pack: int) -> str:
    if pack == 2:
        return _PAIRS[param.ptx_type]
    return _DTYPES.get(param.ptx_type, _LETTER_DTYPE.get(operand.letter, "tl.uint32"))


def _argument(operand: AsmOperand) -> str:
    return operand.param if operand.element < 0 else f"{operand.param}{operand.element}"


def _llvm_template(derived: Derived, immediates: dict[int, int], extra_output: bool) -> str:
    """The template with ``%N`` as LLVM's ``$N``, renumbered: immediates are spelled in and
    leave the operand list, and a result added for a form with none comes first."""
    renumbered: dict[int, int] = {}
    kept = 1 if extra_output else 0
    for index in range(len(derived.outputs) + len(derived.inputs)):
        if index not in immediates:
            renumbered[index] = kept
            kept += 1

    def ref(m: re.Match[str]) -> str:
        index = int(m.group(1))
        if index in immediates:
            return str(immediates[index])
        return f"${renumbered[index]}"

    lines = [re.sub(r"%(\d+)", ref, line) for line in derived.lines]
    if extra_output:
        lines.append("mov.u32 $0, 0;")
    if len(lines) == 1:
        return lines[0]
    return "{ " + " ".join(lines) + " }"


def call(derived: Derived, name: str | None = None) -> str:
    """A ``@triton.jit`` function whose body is the ``inline_asm_elementwise`` call."""
    selected = derived.selected
    params = _params(derived)
    for p in derived.params:
        if p.kind == "addr" and p.space.startswith("shared"):
            raise NotExpressible(f"'{p.name}' of '{selected.mnemonic}' is a .{p.space} address: "
                                 "Triton's inline_asm_elementwise takes tensors of values or "
                                 "global pointers, never a shared-memory address")
        if p.letter == "q":
            raise NotExpressible(f"'{p.name}' of '{selected.mnemonic}' is a 128-bit value: "
                                 "Triton has no 128-bit dtype")
        if p.kind == "inout":
            raise NotExpressible(f"'{p.name}' of '{selected.mnemonic}' is read and written "
                                 "(an accumulator): inline_asm_elementwise has no tied "
                                 "operands")
    need = selected.need
    if selected.form.toolkit is not None:
        major, minor = selected.form.toolkit
        raise NotExpressible(f"'{selected.mnemonic}' is new in the ptxas of CUDA {major}.{minor}: "
                             "an inline_asm_elementwise call has no #if to keep older "
                             "toolkits out")
    if need.removed:
        raise NotExpressible(f"'{selected.mnemonic}' is gone from sm_{need.removed} on, and "
                             "Triton builds for newer targets only")
    pack = _pack(derived)
    operands = (*derived.outputs, *derived.inputs)
    immediates = {i: params[o.param].example for i, o in enumerate(operands)
                  if o.letter == "n"}
    extra_output = not derived.outputs
    constraints = (["=r"] if extra_output else []) + [
        o.constraint for o in operands if o.letter != "n"]
    if derived.memory:
        constraints.append("~{memory}")
    args = [_argument(o) for o in derived.inputs if o.letter != "n"]
    if extra_output:
        # one 32-bit register per call: two 16-bit elements of it at pack=2
        dtypes = ["tl.int16" if pack == 2 else "tl.int32"]
    else:
        dtypes = [_dtype(o, params[o.param], pack) for o in derived.outputs]
    dtype = dtypes[0] if len(dtypes) == 1 else "(" + ", ".join(dtypes) + ",)"
    template = _llvm_template(derived, immediates, extra_output)
    lines = [
        "@triton.jit",
        f"def {name or function_name(selected.mnemonic)}({', '.join(args)}):",
    ]
    for p in derived.params:
        if p.kind == "imm" and p.values is not None:
            lines.append(f"    # {p.name} = {p.example} in the template: it may be "
                         f"{p.values.describe()}")
    if extra_output:
        lines.append("    # the instruction writes no register: the result is a 0 to ignore")
    lines += [
        "    return tl.inline_asm_elementwise(",
        f"        asm={template!r},",
        f"        constraints={','.join(constraints)!r},",
        f"        args=[{', '.join(args)}],",
        f"        dtype={dtype},",
        f"        is_pure={not derived.volatile},",
        f"        pack={pack},",
        "    )",
    ]
    return "\n".join(lines) + "\n"


def source(derived: Derived, name: str | None = None) -> str:
    selected = derived.selected
    header = [
        f"# {selected.mnemonic}: written by `ptxlint new --dialect triton` from the instruction "
        "grammar",
        f"# needs: {described(selected.need)}",
        "import triton",
        "import triton.language as tl",
        "",
        "",
    ]
    return "\n".join(header) + call(derived, name)
