"""Split an LLVM constraint string (``"=r,=r,r,~{memory}"``) into entries with positions: shared
by the front ends of LLVM-syntax inline asm (Python, Julia)."""

from __future__ import annotations

import re

from ptxlint.model import HOLE, ConstraintEntry, Span, Template

# GCC clobber words LLVM does not know as clobbers: without `~{...}` they are read as inputs.
GCC_CLOBBERS = frozenset({"memory", "cc"})


# The characters the split reads; the others are skipped by the regex engine (a constraint
# string of CuTe DSL's is up to 400 characters and 70 entries).
_SEPARATORS = re.compile(r"[{},]")


def split_constraints(template: Template) -> tuple[ConstraintEntry, ...]:
    """Entries at the commas outside braces; the text ends with one more comma (which, inside
    an unclosed brace, ends nothing)."""
    text = template.text
    entries: list[ConstraintEntry] = []
    start = 0
    depth = 0
    for m in _SEPARATORS.finditer(text):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            i = m.start()
            entries.append(_entry(template, start, i, len(entries)))
            start = i + 1
    if depth == 0:
        entries.append(_entry(template, start, len(text), len(entries)))
    if len(entries) == 1 and not entries[0].text and not entries[0].opaque:
        return ()  # "" : no constraints at all
    return tuple(entries)


def _entry(template: Template, start: int, end: int, position: int) -> ConstraintEntry:
    raw = template.text[start:end]
    lead = len(raw) - len(raw.lstrip())
    body = raw.strip()
    lo = start + lead
    hi = lo + len(body)
    if body:
        span = template.source_span(lo, hi)
    else:
        anchor = template.source_span(start, start + 1) if template.text else Span(0, 0)
        span = Span(anchor.start, anchor.start)
    opaque = HOLE in body
    if not body:
        role = "empty"
    elif body.startswith("~"):
        role = "clobber"
    elif body.startswith("="):
        role = "output"
    elif body in GCC_CLOBBERS:
        role = "gcc-clobber"
    else:
        role = "input"
    return ConstraintEntry(body, span, position, role, opaque)


def clobber_name(entry: ConstraintEntry) -> str:
    """``~{memory}`` -> ``memory``."""
    name = entry.text[1:]
    if name.startswith("{") and name.endswith("}"):
        name = name[1:-1]
    return name
