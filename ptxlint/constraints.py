"""What nvcc accepts for each NVPTX constraint letter, learned from nvcc 13.0 itself.

The table was measured with ``nvcc -arch=sm_90 -ptx`` on one kernel per (type x letter x
direction); tests/test_nvcc_oracle_operands.py re-measures it whenever nvcc is available. What it
showed:

* The front end checks the operand's *size and class*: an integer-class letter (``h r l q``)
  takes integers, ``bool``, enums and pointers of exactly its size; a float letter (``f d``)
  takes only ``float``/``double`` of its size. ``float`` with ``r`` is rejected although both are
  4 bytes, and so is ``int`` with ``f``. Inputs and outputs behave the same.
* 1-byte types (``char``, ``bool``) fit no letter.
* An array operand decays to a pointer (size 8): ``"l"(arr)`` is accepted, ``"r"(arr)`` is a
  size mismatch, not a scalar-type error.
* ``__half``/``__nv_bfloat16`` fit no letter: their several conversion operators make the
  conversion ambiguous (and with ``__CUDA_NO_HALF_CONVERSIONS__`` they are plain structs).
* A struct, union or CUDA vector type (``int4``, ``float2``, ``__half2``) is "not scalar"; a class
  with a conversion operator, however, is converted and accepted, so callers only get here with
  records types.py has proved plain.
* ``long double`` is accepted with *every* letter (a front-end quirk): ptxlint abstains on it.
* Every other ASCII letter and digit is rejected in device code: ``i m s`` as "not allowed
  inside a __device__/__global__ function", ``j k v w z B O P T U W`` as "unknown asm constraint
  letter", the rest (GCC's x86 letters and matching constraints ``0``-``9``) as a size mismatch.
"""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.model import CType

# letter -> (operand class, size in bytes). Directions do not differ (measured).
REGISTER_LETTERS: dict[str, tuple[str, int]] = {
    "h": ("integer", 2),
    "r": ("integer", 4),
    "l": ("integer", 8),
    "q": ("integer", 16),
    "f": ("floating", 4),
    "d": ("floating", 8),
}
IMMEDIATE_LETTERS = frozenset({"n", "C"})
VALID_LETTERS = frozenset(REGISTER_LETTERS) | IMMEDIATE_LETTERS
# NVPTX's letters in LLVM constraint strings (Triton, CuTe DSL, llvmlite: LLVM's
# llvm/lib/Target/NVPTX, getConstraintType and getRegForInlineAsmConstraint), with the
# target-independent 'n', 'i', 'X' and '*m' memory: 'b' (a predicate) and 'c' (a byte) are
# registers there, and 'i' an immediate, where in nvcc's GCC syntax they are not letters at all
LLVM_LETTERS = frozenset("bchrlfdqniXm*")
VALID_CLOBBERS = frozenset({"memory"})

# How nvcc words its rejection of each invalid letter, for messages.
_DEVICE_FORBIDDEN = frozenset("ims")
_UNKNOWN = frozenset("jkvwzBOPTUW")

# C++ kinds (CType.kind) nvcc treats as integer-class operands.
_INTEGER_CLASS = frozenset({"integer", "bool", "enum", "pointer"})


def letter_problem(letter: str) -> str:
    """Why nvcc rejects an invalid constraint letter, in nvcc's words."""
    if letter.isdigit():
        return 'matching constraints ("0".."9") are not supported by nvcc'
    if letter in _DEVICE_FORBIDDEN:
        return (
            f"constraint letter '{letter}' is not allowed inside a __device__/__global__ function"
        )
    if letter in _UNKNOWN:
        return f"unknown asm constraint letter '{letter}'"
    return f"'{letter}' is not an NVPTX constraint letter (nvcc accepts h r l q f d n C)"


class Verdict(NamedTuple):
    """nvcc's answer for one operand: accepted, or rejected by which rule and why."""

    accepted: bool
    rule: str = ""  # "PTX004" (size/class) or "PTX005" (not scalar)
    reason: str = ""


ACCEPT = Verdict(True)


def is_array(ctype: CType) -> bool:
    return ctype.kind == "aggregate" and ctype.spelling.endswith("]")


def operand_verdict(ctype: CType | None, letter: str) -> Verdict | None:
    """What nvcc does with an operand of type ``ctype`` under register ``letter``; None: unknown.

    Only register letters (``h r l q f d``) are judged here.
    """
    if ctype is None or letter not in REGISTER_LETTERS:
        return None
    want_class, want_size = REGISTER_LETTERS[letter]
    kind, size = ctype.kind, ctype.size
    if kind == "aggregate":
        if is_array(ctype):
            kind, size = "pointer", 8  # decays
        else:
            return Verdict(
                False, "PTX005", f"'{ctype.spelling}' is not a scalar type (struct/vector)"
            )
    if kind == "half":
        return Verdict(
            False,
            "PTX004",
            f"'{ctype.spelling}' is a class type with several conversions; nvcc accepts it "
            "with no constraint letter",
        )
    if kind == "floating" and size not in (4, 8):
        return None  # long double: nvcc accepts it everywhere; say nothing
    if size is None:
        return None
    operand_class = (
        "integer" if kind in _INTEGER_CLASS else "floating" if kind == "floating" else ""
    )
    if not operand_class:
        return None
    if operand_class == want_class and size == want_size:
        return ACCEPT
    what = "an integer" if want_class == "integer" else "a floating-point"
    return Verdict(
        False,
        "PTX004",
        f"'{ctype.spelling}' ({kind}, {size} byte{'s' if size != 1 else ''}) does not "
        f"fit constraint '{letter}' ({what} operand of {want_size} bytes)",
    )


def letter_for(ctype: CType) -> str | None:
    """The register letter nvcc accepts for ``ctype``, if exactly one does."""
    fits = [letter for letter in REGISTER_LETTERS if operand_verdict(ctype, letter) == ACCEPT]
    return fits[0] if len(fits) == 1 else None
