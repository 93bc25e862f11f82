"""The ``.pragma`` strings of the PTX ISA, and what ptxas does with each in an asm template.

A ``.pragma`` directive passes a list of strings to ptxas (PTX ISA, "Descriptions of .pragma
Strings"): ``nounroll``, ``used_bytes_mask <mask>``, ``frequency <n>`` and, from PTX ISA 9.0,
``enable_smem_spilling``. Checked with ptxas 13.0, each on its own in a kernel's body:

* a string it does not know (``unroll``, ``noprefetch``, ``NOUNROLL``: the names are
  case-sensitive) assembles with "ptxas warning : Pragma 'unroll' unsupported" and does
  nothing; the warning quotes the whole string ("Pragma 'unroll 4' unsupported"). A known name
  after whitespace (``" nounroll"``, ``" frequency 2"``) is unknown too, and ``nounroll`` is
  known only as the whole string: ``"nounroll 4"`` and ``"nounroll "`` are unsupported, where
  ``"enable_smem_spilling 1"`` is taken;
* ``used_bytes_mask`` and ``frequency`` without their argument stop it: "Argument(s) to pragma
  'frequency' cannot be empty";
* ``enable_smem_spilling`` is taken in whole-program compilation only: with ``-rdc=true``
  (without ``-dlto``, whose ptxas runs at link time on the whole program), with ``-G`` (without
  ``-dopt=on``) and with ``-Xptxas -c`` ptxas stops with "Pragma 'enable_smem_spilling' is not
  allowed for per-function compilation modes". nvcc defines ``__CUDACC_RDC__`` under
  ``-rdc=true`` and ``__CUDACC_DEBUG__`` under ``-G`` (both checked with nvcc 13.0), so a
  guard on them keeps the pragma out of those builds.
"""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE

__all__ = [
    "ARGUMENT_TAKING", "KNOWN", "PER_FUNCTION_MACROS", "PER_FUNCTION_REJECTED", "Pragma",
    "pragmas_of", "unsupported",
]

KNOWN = frozenset({"nounroll", "used_bytes_mask", "frequency", "enable_smem_spilling"})
ARGUMENT_TAKING = frozenset({"used_bytes_mask", "frequency"})
# known only as the whole string: anything after the name makes it an unknown pragma
WHOLE_STRING = frozenset({"nounroll"})
# taken only where ptxas compiles the whole program at once
PER_FUNCTION_REJECTED = frozenset({"enable_smem_spilling"})
# nvcc's macros for the options that make ptxas compile function by function
PER_FUNCTION_MACROS = (("__CUDACC_RDC__", "-rdc=true"), ("__CUDACC_DEBUG__", "-G"))

_STRING = on_first_use(r'"([^"\\]*)"')
# what a macro (a hole), an operand ('%0', '$0') or an f-string field ('{name}') fills in
_FILLED = on_first_use(rf"[%${{{HOLE}]")


class Pragma(NamedTuple):
    """One string of a ``.pragma`` directive: its name (the first word), whether anything
    follows the name, where the name is in the template (``[start, end)``), and the string as
    written (what ptxas quotes)."""

    name: str
    has_argument: bool
    start: int
    end: int
    text: str


def unsupported(pragma: Pragma) -> bool:
    """Whether ptxas ignores the string as a pragma it does not know ("Pragma '...'
    unsupported"): an unknown name, whitespace before the name, or ``nounroll`` with anything
    after it."""
    return (pragma.name not in KNOWN or pragma.text[:1].isspace()
            or (pragma.name in WHOLE_STRING and pragma.text != pragma.name))


def pragmas_of(directive_text: str, directive_start: int) -> tuple[Pragma, ...]:
    """The strings of the ``.pragma`` directive ``directive_text`` (which starts at template
    offset ``directive_start``). A string a macro or an operand fills in (a hole, ``%``, ``$``,
    ``{``) is not a pragma's name yet, and is left out."""
    out = []
    for match in _STRING().finditer(directive_text):
        body = match.group(1)
        if not body.strip() or _FILLED().search(body):
            continue
        words = body.split()
        offset = match.start(1) + body.index(words[0])
        start = directive_start + offset
        out.append(Pragma(words[0], len(words) > 1, start, start + len(words[0]), body))
    return tuple(out)
