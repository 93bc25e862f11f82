"""Probe 2: a tiny .cu kernel holding one statement, for nvcc's front-end checks.

The statement is copied as written (template, constraints, clobbers, qualifiers) with each
operand expression replaced by a local of the operand's resolved C++ type (``Operand.ctype``),
so nvcc judges exactly what the code asks: the size check of a constraint, its letters and
modifiers, operand modifiers, immediates. A ``#line`` directive gives the copy the statement's
own file and line, so nvcc's messages point where the user looks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ptxlint.model import AsmStatement, Operand, Span
from ptxlint.verify import scratch

PROBE_FILE = "probe.cu"
SYNTH_NAME = "ptxlint-probe.cu"
# The C++ type nvcc pairs with each constraint letter: used where ptxlint does not know the type.
LETTER_TYPE = {"h": "unsigned short", "r": "unsigned int", "l": "unsigned long long",
               "f": "float", "d": "double", "q": "__int128"}
_INT_LITERAL = re.compile(r"\s*\(?\s*-?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?\s*")
_STRING_LITERAL = re.compile(r'\s*"(?:[^"\\]|\\.)*"\s*')
# the types the probe takes from CUDA's headers (cuda_fp16.h, cuda_bf16.h) by name
_CUDA_TYPE = re.compile(r"\b(__half2?|__nv_bfloat162?|half2?|nv_bfloat162?)\b")
# the words of a type the probe's unit knows without the file: C's own, <cstdint>'s and
# <cstddef>'s, CUDA's vector types and the two CUDA headers it includes by name
_KNOWN_TYPE_WORD = re.compile(
    r"void|bool|char|short|int|long|float|double|signed|unsigned|const|volatile|__int128|"
    r"u?int(?:8|16|32|64|ptr|max)_t|size_t|ptrdiff_t|std::\w+_t|"
    r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]|"
    r"__half2?|__nv_bfloat162?|half2?|nv_bfloat162?"
)
_TYPE_WORD = re.compile(r"[A-Za-z_][\w:]*")


class NotProbeable(Exception):
    pass


_ARRAY = re.compile(r"(?P<base>[\w\s:*]+?)\s*(?P<dims>(?:\[\d+\])+)")


def _declare(operand: Operand, name: str) -> str:
    ctype = operand.ctype
    array = _ARRAY.fullmatch(ctype.spelling) if ctype is not None else None
    if array:  # C declarator syntax: the name goes before the dimensions
        return f"{array['base']} {name}{array['dims']}{{}};"
    return f"{_type_for(operand)} {name}{{}};"


def _type_for(operand: Operand) -> str:
    ctype = operand.ctype
    if ctype is not None and ctype.kind == "pointer":
        return _pointer_for(ctype.spelling)
    if ctype is not None and ctype.kind != "aggregate":
        return ctype.spelling
    if ctype is not None and re.fullmatch(r"(u?char|u?short|u?int|u?long|u?longlong|float|"
                                          r"double|half|bfloat16)[1-4]", ctype.spelling):
        return ctype.spelling  # CUDA's own vector types: nvcc knows them without a header
    if ctype is not None:
        raise NotProbeable(f"operand {operand.index} has a user-defined type {ctype.spelling!r}")
    letter = operand.constraint.letters[:1]
    if letter in LETTER_TYPE:
        return LETTER_TYPE[letter]
    raise NotProbeable(f"operand {operand.index}: type unknown and constraint "
                       f"{operand.constraint.text!r} names none")


def _pointer_for(spelling: str) -> str:
    """A pointer's type as the unit can spell it: as written where it knows every word of it,
    else a pointer to ``void`` with the same qualifiers and stars (``const _Type *`` -> ``const
    void *``). What the unit does with a pointer operand is hand its 64-bit value to the asm:
    the pointee's type is nothing nvcc checks there, and a template parameter or the file's
    own struct is a name the unit cannot declare (CCCL's ``_Type *__ptr``)."""
    star = spelling.find("*")
    pointee = spelling[:star] if star >= 0 else spelling
    words = _TYPE_WORD.findall(pointee)
    if all(_KNOWN_TYPE_WORD.fullmatch(word) for word in words):
        return spelling
    qualifiers = [word for word in words if word in ("const", "volatile")]
    return " ".join([*qualifiers, "void", spelling[star:] if star >= 0 else "*"])


def replacement(operand: Operand, value: int | None = None) -> tuple[str | None, str]:
    """(declaration or None, expression to use in the asm) for one operand; ``value`` is the
    file's own value for a non-literal "n" operand, where the caller knows one."""
    if operand.constraint.opaque:
        raise NotProbeable(f"operand {operand.index}'s constraint comes from a macro")
    letters = operand.constraint.letters
    if "n" in letters:
        # the value itself is what nvcc checks: keep literals, else a stand-in constant
        if _INT_LITERAL.fullmatch(operand.expression):
            return None, operand.expression
        return None, str(value) if value is not None else "1"
    if "C" in letters:
        if _STRING_LITERAL.fullmatch(operand.expression):
            return None, operand.expression
        raise NotProbeable(f"operand {operand.index} splices a constant array ('C')")
    name = f"ptxlint_v{operand.index}"
    return _declare(operand, name), name


def _c_string(text: str) -> str:
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
               .replace("\t", "\\t"))
    return f'"{escaped}"'


def rebuilt(statement: AsmStatement, exprs: dict[int, str], volatile: bool = False,
            memory: bool = False) -> str:
    """The statement after preprocessing: its keyword and qualifiers, the template as one
    literal, each operand with its constraint around ``exprs[i]``, the clobbers, on one line;
    with ``volatile`` and a ``"memory"`` clobber added where asked (PTX101's and PTX102's fix,
    where the finding offers none of its own)."""
    words = [statement.keyword, *(q.name for q in statement.qualifiers)]
    if volatile and not statement.is_volatile:
        words.insert(1, "volatile")
    sections = [_c_string(statement.template.text)]
    if statement.extended:
        outputs = [o for o in statement.operands if o.role == "output"]
        inputs = [o for o in statement.operands if o.role == "input"]

        def one(operand: Operand) -> str:
            name = f"[{operand.symbolic_name}] " if operand.symbolic_name else ""
            return f"{name}{_c_string(operand.constraint.text)}({exprs[operand.index]})"

        sections.append(", ".join(one(o) for o in outputs))
        sections.append(", ".join(one(o) for o in inputs))
        clobbers = [c.name for c in statement.clobbers]
        if memory and "memory" not in clobbers:
            clobbers.append("memory")
        if clobbers:
            sections.append(", ".join(_c_string(c) for c in clobbers))
    return f"{' '.join(words)}({' : '.join(sections)})"


def build(statement: AsmStatement, values: Mapping[int, int] | None = None,
          volatile: bool = False, memory: bool = False, rebuild: bool = False) -> str:
    """The probe's source text; ``values`` gives non-literal "n" operands the file's own values
    (else a stand-in 1); ``volatile``, ``memory``: the statement with that fix, written as
    ``rebuilt`` writes it (as is ``rebuild``: the unit to compare with)."""
    if memory and not statement.extended:
        raise NotProbeable("a basic asm statement takes no clobber")
    if statement.template.has_holes or any(p.kind == "macro" for p in statement.template.pieces):
        raise NotProbeable("part of the template is a macro whose text is unknown")
    if statement.opaque_sections:
        raise NotProbeable("an operand or clobber section comes from a macro")
    if statement.goto_labels:
        raise NotProbeable("asm goto")
    text = statement.source.text
    decls: list[str] = []
    edits: list[tuple[Span, str]] = []
    exprs: dict[int, str] = {}
    for operand in statement.operands:
        decl, expr = replacement(operand, (values or {}).get(operand.index))
        if decl:
            decls.append(decl)
        edits.append((operand.expression_span, expr))
        exprs[operand.index] = expr
        spelled = text[operand.constraint.span.start:operand.constraint.span.end]
        if not spelled.startswith(('"', "u8\"", "L\"", "u\"", "U\"", "R\"")):
            # a macro spells the constraint (CUDA's `__LDG_PTR(ptr)`, `#define __LDG_PTR "l"`),
            # which the header may #undef at its end: the unit includes the header, so it
            # writes the letters the macro stands for
            edits.append((operand.constraint.span, _c_string(operand.constraint.text)))
    if (statement.context.branch or statement.context.expansion is not None or rebuild
            or volatile or memory):
        # the source holds #if lines (another branch too) or a macro invocation: write the
        # statement as the preprocessor leaves it
        body = rebuilt(statement, exprs, volatile, memory)
    else:
        body = text[statement.span.start:statement.span.end]
        for span, new in sorted(edits, key=lambda e: e[0].start, reverse=True):
            a, b = span.start - statement.span.start, span.end - statement.span.start
            body = body[:a] + new + body[b:]
    # a statement in a #define body carries its continuation backslashes: harmless outside
    # a macro (line splicing), but the last one must not swallow the ';'
    body = body.rstrip().rstrip("\\")
    spellings = " ".join(decls)
    for name in _CUDA_TYPE.findall(spellings):
        if re.search(rf"\b(?:struct|class|union)\s+{name}\b|\btypedef\b[^;]*\b{name}\s*;|"
                     rf"\busing\s+{name}\s*=", text):
            # warp's own CRT defines `struct __half { unsigned short u; }`: cuda_fp16.h's
            # __half in its place would put another type before nvcc
            raise NotProbeable(f"the file defines its own {name!r}")
    includes = ["#include <cstdint>", "#include <cstddef>"]
    if "half" in spellings:
        includes.append("#include <cuda_fp16.h>")
    if "bfloat16" in spellings:
        includes.append("#include <cuda_bf16.h>")
    path = scratch.line_name(statement.source.path)
    return "\n".join([
        *includes,
        "__global__ void ptxlint_probe() {",
        *(f"  {d}" for d in decls),
        f'#line {statement.line} "{path}"',
        " " * (statement.source.line_col(statement.span.start).column - 1) + body + ";",
        f'#line 1000000 "{SYNTH_NAME}"',
        "}",
        "",
    ])
