"""Hover: a finding's rule documentation, and what ptxlint knows of a PTX instruction.

An instruction's hover is a one-line description (the short list below: the instruction table
holds facts, not prose) plus the table's facts about this exact spelling: the target and PTX ISA
version it needs, a deprecation, a modifier the family lacks, the operand types. The table
(``ptxlint/ptx/instructions.py``) is imported lazily and every lookup is guarded, so a table
that is missing, older or mid-edit only makes the hover shorter; a hover never raises.
"""

from __future__ import annotations

import bisect
import importlib
from collections.abc import Sequence
from types import ModuleType
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
    table = _table()
    known = instruction.opcode in PTX_OPCODES
    if table is not None:
        known = known or bool(_ask(table, "is_opcode", instruction.opcode))
    if not known:
        return None
    lines = [
        f"```ptx\n{instruction.mnemonic}\n```",
        _BRIEF.get(instruction.opcode, "PTX instruction."),
    ]
    if table is not None:
        lines.extend(
            _facts(table, instruction.opcode, instruction.modifiers, len(instruction.operands))
        )
    derived = derived_constraints(instruction.mnemonic)
    if derived:
        lines.append(derived)
    return "\n\n".join(lines)


def derived_constraints(mnemonic: str) -> str | None:
    """What ``ptxlint new`` derives for this spelling: the constraints (outputs, inputs),
    ``volatile`` and ``"memory"``; None when it derives nothing (not a whole form, or one no
    wrapper can bind)."""
    try:
        from ptxlint.generate import derive, select

        derived = derive(select(mnemonic))
    except Exception:  # a hover never raises: no derivation, no line
        return None
    outputs = ", ".join(f'`"{o.constraint}"`' for o in derived.outputs) or "none"
    inputs = ", ".join(f'`"{o.constraint}"`' for o in derived.inputs) or "none"
    effects = ["`volatile`" if derived.volatile else "no `volatile` (pure)"]
    if derived.memory:
        effects.append('`"memory"` clobber')
    braces = " (in braces, with its `.reg .pred`)" if derived.braces else ""
    return (f"Derived constraints (`ptxlint new {mnemonic}`): outputs {outputs}; inputs "
            f"{inputs}; {', '.join(effects)}{braces}.")


def _facts(table: ModuleType, opcode: str, modifiers: tuple[str, ...], operands: int) -> list[str]:
    facts = []
    need = _ask(table, "requirement", opcode, modifiers)
    sm, ptx = getattr(need, "sm", 0), getattr(need, "ptx", 0)
    if sm or ptx:
        target = f"sm_{sm}{getattr(need, 'suffix', '')}" if sm else "any target"
        isa = f", PTX ISA {ptx // 10}.{ptx % 10}" if ptx else ""
        feature = getattr(need, "feature", "")
        facts.append(f"Needs {target}{isa}" + (f" (for `{feature}`)" if feature else "") + ".")
    only = getattr(need, "only", ())
    if only:
        facts.append("Exists only on " + ", ".join(f"sm_{n}" for n in only) + ".")
    form = _ask(table, "form_of", opcode, modifiers)
    if isinstance(form, str) and form:
        facts.append(f"Form (instruction grammar): `{form}`.")
    deprecated = _ask(table, "deprecation", opcode, modifiers)
    if getattr(deprecated, "message", ""):
        facts.append(f"Deprecated: {deprecated.message}.")
    unknown = _ask(table, "unknown_modifier", opcode, modifiers)
    if isinstance(unknown, int) and 0 <= unknown < len(modifiers):
        facts.append(f"`.{modifiers[unknown]}` is not a modifier of `{opcode}`.")
    types = _ask(table, "operand_types", opcode, modifiers)
    # The table's signature may list more positions than this form has (add vs. add.cc).
    names = [n or "?" for n in getattr(types, "names", ())][:operands]
    if names and any(n != "?" for n in names):
        facts.append("Operand types: " + ", ".join(f"`{n}`" for n in names) + ".")
    return facts


def _ask(table: ModuleType, name: str, *args: object) -> Any:
    function = getattr(table, name, None)
    if not callable(function):
        return None
    try:
        return function(*args)
    except Exception:  # a table in the middle of being written must not break hovers
        return None


_table_cache: list[ModuleType | None] = []


def _table() -> ModuleType | None:
    if not _table_cache:
        try:
            _table_cache.append(importlib.import_module("ptxlint.ptx.instructions"))
        except Exception:  # absent or half-written: descriptions only
            _table_cache.append(None)
    return _table_cache[0]
