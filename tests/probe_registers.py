"""The registers the operand-type tests declare in their ptxas probes, by name prefix: the bit
and float ones, and ones declared with a signed, unsigned, half or packed type; and the class
the grammar's check reads off each operand of a probe."""

from __future__ import annotations

from ptxlint.ptx.operand_classes import OperandClass, immediate_class
from tests.toolchain_cache import INPUT, Run, run_cached

# by name prefix, longest first
DECLARED = (("%us", "u16"), ("%ss", "s16"), ("%hf", "f16"), ("%hx", "f16x2"), ("%ul", "u64"),
            ("%sl", "s64"), ("%rd", "b64"), ("%fd", "f64"), ("%u", "u32"), ("%s", "s32"),
            ("%r", "b32"), ("%h", "b16"), ("%f", "f32"), ("%p", "pred"))


def declarations(count: int) -> str:
    """The ``.reg`` lines of ``count`` registers of each prefix."""
    return "".join(f".reg .{type_} {prefix}<{count}>; " for prefix, type_ in DECLARED)


def resolve(operand: object) -> OperandClass:
    """A probe operand's class: a declared register's type, or an immediate's class."""
    text = getattr(operand, "text", "")
    for prefix, type_ in DECLARED:
        if text.startswith(prefix) and text[len(prefix):].isdigit():
            return OperandClass("reg", type_)
    if getattr(operand, "kind", "") == "immediate":
        return immediate_class(text)
    return OperandClass("unknown")


def assemble(ptxas: str, version: str, target: str, text: str, count: int) -> Run:
    """ptxas's (cached) verdict on the instruction ``text`` in a kernel that declares
    ``count`` registers of each prefix."""
    source = (f".version {version}\n.target {target}\n.address_size 64\n.entry k() {{\n"
              f"{declarations(count)}\n{text};\nret;\n}}\n")
    return run_cached(ptxas, ["-arch", target, INPUT, "-o", "/dev/null"], source,
                      filename="case.ptx")
