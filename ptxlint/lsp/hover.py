"""Hover: a finding's rule documentation, and a PTX instruction's summary.

The instruction table (``ptxlint/ptx/instructions.py``) may be absent or still growing, so it is
imported lazily and any failure degrades to the small description list below; a hover never
raises.
"""

from __future__ import annotations

import bisect
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from ptxlint.engine import INTERNAL_ERROR
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.model import AsmStatement, Finding, PtxInstruction
from ptxlint.ptx.opcodes import PTX_OPCODES

# The fallback when the instruction table cannot answer: one line for the common opcodes.
_BRIEF = {
    "add": "Add two values.",
    "sub": "Subtract one value from another.",
    "mul": "Multiply two values.",
    "mad": "Multiply two values and add a third.",
    "fma": "Fused multiply-add with a single rounding.",
    "div": "Divide one value by another.",
    "rem": "Remainder of an integer division.",
    "min": "Minimum of two values.",
    "max": "Maximum of two values.",
    "abs": "Absolute value.",
    "neg": "Negate.",
    "and": "Bitwise AND.",
    "or": "Bitwise OR.",
    "xor": "Bitwise exclusive OR.",
    "not": "Bitwise NOT.",
    "shl": "Shift bits left.",
    "shr": "Shift bits right.",
    "shf": "Funnel shift.",
    "lop3": "Arbitrary three-input logic operation.",
    "prmt": "Permute bytes from a pair of registers.",
    "mov": "Set a register from a register, immediate, special register or address.",
    "cvt": "Convert a value between types.",
    "cvta": "Convert an address between a state space and the generic space.",
    "selp": "Select one of two values by a predicate.",
    "setp": "Compare two values and set predicates.",
    "set": "Compare two values and write the result as a number.",
    "ld": "Load from memory.",
    "ldu": "Load a value that is the same for all threads of a warp.",
    "st": "Store to memory.",
    "atom": "Atomic read-modify-write; returns the old value.",
    "red": "Atomic reduction in memory; returns nothing.",
    "cp": "Copy between state spaces (cp.async and friends).",
    "prefetch": "Prefetch a line into a cache level.",
    "fence": "Order memory accesses.",
    "membar": "Memory barrier (older spelling of fence).",
    "bar": "Barrier synchronization of threads in a CTA.",
    "barrier": "Barrier synchronization of threads in a CTA.",
    "mbarrier": "Operate on an mbarrier object in shared memory.",
    "shfl": "Exchange registers between the threads of a warp.",
    "vote": "Vote across the threads of a warp.",
    "match": "Find threads of a warp holding the same value.",
    "redux": "Reduce a value across the threads of a warp.",
    "activemask": "The mask of the warp's active threads.",
    "bra": "Branch to a label.",
    "call": "Call a function.",
    "ret": "Return from a function.",
    "exit": "Terminate the thread.",
    "trap": "Abort execution.",
    "nanosleep": "Suspend the thread for about the given number of nanoseconds.",
    "popc": "Count the set bits.",
    "clz": "Count leading zeros.",
    "brev": "Reverse the bits.",
    "bfe": "Extract a bit field.",
    "bfi": "Insert a bit field.",
    "rcp": "Reciprocal.",
    "sqrt": "Square root.",
    "rsqrt": "Reciprocal square root.",
    "ex2": "Base-2 exponential.",
    "lg2": "Base-2 logarithm.",
    "sin": "Sine.",
    "cos": "Cosine.",
    "tanh": "Hyperbolic tangent.",
    "mma": "Warp-level matrix multiply-accumulate.",
    "wmma": "Warp-level matrix multiply-accumulate on fragments.",
    "wgmma": "Warpgroup-level matrix multiply-accumulate.",
    "ldmatrix": "Load matrices from shared memory for mma.",
    "stmatrix": "Store matrices to shared memory.",
    "tcgen05": "Tensor Core 5th generation operations.",
    "isspacep": "Test whether an address is in a state space.",
    "elect": "Elect one leader thread of a set.",
}

# Names the table module may use for its lookup; the first callable that answers wins.
_LOOKUP_NAMES = ("lookup", "lookup_instruction", "find_instruction", "instruction", "describe")
_SUMMARY_FIELDS = ("summary", "description", "brief", "doc")


def finding_hover(findings: Sequence[Finding], offset: int, docs: RuleDocs) -> list[str]:
    sections = []
    for finding in findings:
        if not (finding.span.start <= offset <= finding.span.end):
            continue
        page = docs.markdown(finding.rule) if finding.rule != INTERNAL_ERROR else None
        head = f"**{finding.rule}** `{finding.name}`: {finding.message}"
        sections.append(head + ("\n\n---\n\n" + page if page else ""))
    return sections


def instruction_at(statements: Sequence[AsmStatement], offset: int) -> PtxInstruction | None:
    """The instruction whose opcode is at source ``offset``, if any."""
    for statement in statements:
        if not (statement.span.start <= offset < statement.span.end):
            continue
        template = statement.template
        i = bisect.bisect_right(template.char_starts, offset) - 1
        if i < 0 or offset >= template.char_ends[i]:
            return None
        for instruction in statement.ptx.instructions:
            if instruction.opcode_start <= i < instruction.opcode_end and not instruction.opaque:
                return instruction
    return None


def instruction_hover(instruction: PtxInstruction) -> str | None:
    summary = _table_summary(instruction)
    if summary is None:
        if instruction.opcode not in PTX_OPCODES:
            return None
        summary = _BRIEF.get(instruction.opcode, "PTX instruction.")
    return f"```ptx\n{instruction.mnemonic}\n```\n\n{summary}"


def _table_summary(instruction: PtxInstruction) -> str | None:
    lookup = _table_lookup()
    if lookup is None:
        return None
    for key in (instruction.mnemonic, instruction.opcode):
        try:
            entry = lookup(key)
        except Exception:  # a table in the middle of being written must not break hovers
            continue
        text = _summary_of(entry)
        if text:
            return text
    return None


def _summary_of(entry: Any) -> str | None:
    if entry is None:
        return None
    if isinstance(entry, str):
        return entry
    for name in _SUMMARY_FIELDS:
        value = entry.get(name) if isinstance(entry, dict) else getattr(entry, name, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


_lookup_cache: list[Callable[[str], Any] | None] = []


def _table_lookup() -> Callable[[str], Any] | None:
    if not _lookup_cache:
        _lookup_cache.append(_find_lookup())
    return _lookup_cache[0]


def _find_lookup() -> Callable[[str], Any] | None:
    try:
        module = importlib.import_module("ptxlint.ptx.instructions")
    except Exception:  # absent, or half-written: use the fallback
        return None
    for name in _LOOKUP_NAMES:
        candidate = getattr(module, name, None)
        if callable(candidate):
            return candidate
    return None
