#!/usr/bin/env python3
"""Independent count of inline ``asm(...)`` statements in C/C++/CUDA sources.

This is a deliberately small, tree-sitter-free cross-check for ptxlint's own
count.  Usage::

    python scripts/count_asm.py PATH... [--per-file] [--json] [--list]

PATHs are files or folders; folders are walked recursively (symlinked folders
are followed once each, by real path, so symlink loops end) and files with the
extensions .cu .cuh .h .hpp .hh .inl .cc .cpp .cxx .c are read (UTF-8, with
undecodable bytes replaced).

How a file is processed
-----------------------
1. Lexing, one pass, output the same length as the input so that offsets (and
   line numbers) stay valid:

   * ``// ...`` comments (continued by backslash-newline) and ``/* ... */``
     comments become spaces (newlines kept);
   * string and character literals, with any prefix (``L u U u8``), keep their
     quotes but their contents become spaces; an unterminated ``"`` or ``'``
     ends at the end of its line (think ``#error don't``);
   * raw strings ``R"delim( ... )delim"`` (also ``LR uR UR u8R``) are read up
     to ``)delim"`` without escapes or splices, as the standard says;
   * a ``'`` inside a number is a C++14 digit separator (``1'000``), not a
     character literal;
   * a backslash-newline (line continuation) becomes two spaces, so a
     continued ``#define`` is one logical line.  (A keyword split by a line
     continuation, ``as\\<newline>m``, is therefore not recognised; no real code
     does that.)

2. Logical lines whose first non-blank character is ``#`` are preprocessor
   directives.  For ``#define`` the *body* (after the macro name and, for a
   function-like macro, its parameter list) is ordinary text and is searched;
   matches there are counted and also reported as ``in_macro``.  Every other
   directive (``#if``, ``#ifdef``, ``#elif``, ``#pragma``, ``#include``,
   ``#error``, ``#undef`` ...) and the name of a ``#define`` are not code:
   matches there are not counted (reported as ``in_directive``).

3. A match is one of the keywords ``asm``, ``__asm__``, ``__asm`` as a whole
   word, followed by blanks and any number of the qualifiers ``volatile``,
   ``__volatile__``, ``__volatile``, ``inline``, ``goto`` and then ``(``.
   So ``#define __asm__ asm`` (keyword without parenthesis), MSVC's
   ``__asm { ... }`` blocks and identifiers merely containing ``asm`` are not
   counted (a keyword not followed by ``(`` is reported as ``bare``).

4. A match that follows a declarator is an *asm label*, not a statement:
   ``register float v asm("v91");``, ``int f(void) __asm__("f64");``, glibc's
   ``name proto __asm__ (__ASMNAME (#alias))``.  It is recognised by the
   token just before the keyword, looking back past blanks, comments and
   preprocessor lines (``#if __CUDA_ARCH__ >= 700`` ends in a word but is no
   declarator) and, inside a ``#define`` body, not before the body's start:

   * a word other than ``else`` ``do`` ``return``: a label;
   * ``]``: a label (``int a[2] asm("a")``);
   * ``)``: a label only if it closes ``T name(...)``, ``name`` preceded by a
     word, ``*``, ``&``, ``>`` (``name`` may be ``ns::name``).  So not after
     ``if (...)``, ``if constexpr (...)``, ``while``/``for``/``switch (...)``,
     nor after a macro call that begins a statement without ``;``, as in
     libcu++'s ``NV_IF_TARGET(NV_PROVIDES_SM_70, (), (...))`` followed by
     ``asm volatile(...)``;
   * anything else (``;`` ``{`` ``}`` ``:`` ``,`` ``(`` or nothing): a statement.

   Labels are reported as ``labels`` and not counted; ``--list`` shows each
   one so that the rule can be checked by eye.

Counted, then: every asm statement or file-scope asm declaration written in
the text, in live code, in ``#if 0`` groups (reported as ``in_if0`` too:
the text is there, whether or not it is compiled) and in ``#define`` bodies,
including a statement written as a macro argument (``FOO(asm("..."))``),
each counted once where it is written, however often a macro expands it.

Output: total (statements counted), in_macro, and the excluded categories;
``--per-file`` adds a line per file with matches; ``--json`` prints the same
as JSON; ``--list`` prints every match (file:line, category, text).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

EXTENSIONS = {".cu", ".cuh", ".h", ".hpp", ".hh", ".inl", ".cc", ".cpp", ".cxx", ".c"}

IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
RAW_PREFIXES = ("R", "LR", "uR", "UR", "u8R")

KEYWORD_RE = re.compile(r"(?<![\w$])(?:__asm__|__asm|asm)(?![\w$])")
QUALIFIERS_RE = re.compile(
    r"(?:\s*(?:__volatile__|__volatile|volatile|inline|goto)(?![\w$]))*\s*\("
)
RAW_DELIM_RE = re.compile(r"([^()\\\s]{0,16})\(")
DIRECTIVE_RE = re.compile(r"[ \t\f\v]*#[ \t\f\v]*(\w*)")
DEFINE_NAME_RE = re.compile(r"[ \t\f\v]*([A-Za-z_$][\w$]*)(\([^)]*\))?")
STATEMENT_WORDS = {"else", "do", "return"}
CONTROL_WORDS = {"if", "while", "for", "switch", "constexpr"}


# --------------------------------------------------------------------------- lexing

def strip_comments_and_literals(text: str) -> str:
    """Comments and literal contents to spaces, line continuations to spaces.

    The result has the same length as `text` and the same newlines, except
    that each backslash-newline becomes two spaces.
    """
    out = list(text)
    n = len(text)
    i = 0

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            out[i] = out[i + 1] = " "
            i += 2
        elif c == "\\" and text.startswith("\r\n", i + 1):
            out[i] = out[i + 1] = out[i + 2] = " "
            i += 3
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = i + 2
            while j < n and text[j] != "\n":
                if text[j] == "\\" and text.startswith("\n", j + 1):
                    j += 2
                elif text[j] == "\\" and text.startswith("\r\n", j + 1):
                    j += 3
                else:
                    j += 1
            blank(i, j)
            for k in range(i, j):  # continuations inside the comment: no newline left
                if text[k] == "\n":
                    out[k] = " "
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            start = i
            k = i - 1  # the prefix, if any, is the identifier ending just before
            while k >= 0 and text[k] in IDENT_CHARS:
                k -= 1
            prefix = text[k + 1:i]
            if prefix in RAW_PREFIXES:
                m = RAW_DELIM_RE.match(text, i + 1)
                if m:
                    end = text.find(")" + m.group(1) + '"', m.end())
                    end = n if end < 0 else end + len(m.group(1)) + 2
                    blank(start + 1, end - 1)
                    i = end
                    continue
            i = skip_quoted(text, i, '"')
            blank(start + 1, i - 1 if text[i - 1] == '"' else i)
        elif c == "'":
            if is_digit_separator(text, i):
                i += 1
                continue
            start = i
            i = skip_quoted(text, i, "'")
            blank(start + 1, i - 1 if text[i - 1] == "'" else i)
        else:
            i += 1
    return "".join(out)


def skip_quoted(text: str, i: int, quote: str) -> int:
    """Index just after the literal opening at text[i]; an unterminated one ends at its line."""
    n = len(text)
    j = i + 1
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 2
        elif ch == quote:
            return j + 1
        elif ch == "\n":
            return j
        else:
            j += 1
    return n


def is_digit_separator(text: str, i: int) -> bool:
    """True if the ' at text[i] is inside a pp-number (1'000, 0xFF'FF)."""
    k = i - 1
    while k >= 0 and (text[k] in IDENT_CHARS or text[k] in ".'"):
        k -= 1
    token = text[k + 1:i]
    return bool(token) and (token[0].isdigit() or (token[0] == "." and token[1:2].isdigit()))


# --------------------------------------------------------------------------- regions

@dataclass
class Regions:
    directive: list[tuple[int, int]] = field(default_factory=list)  # not code
    macro: list[tuple[int, int]] = field(default_factory=list)  # #define bodies
    if0: list[tuple[int, int]] = field(default_factory=list)  # inside #if 0 ... #endif


def find_regions(clean: str) -> Regions:
    regions = Regions()
    if0_stack: list[int | None] = []  # start offset of an #if 0 group, or None
    pos = 0
    for line in clean.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        m = DIRECTIVE_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        if name == "define":
            d = DEFINE_NAME_RE.match(line, m.end())
            body = start + (d.end() if d else m.end())
            regions.directive.append((start, body))
            regions.macro.append((body, end))
            continue
        regions.directive.append((start, end))
        rest = line[m.end():].strip()
        if name in ("if", "ifdef", "ifndef"):
            if0_stack.append(end if name == "if" and rest in ("0", "(0)") else None)
        elif name in ("elif", "else", "endif") and if0_stack:
            top = if0_stack.pop()
            if top is not None:
                regions.if0.append((top, start))
            if name != "endif":
                if0_stack.append(None)
    for top in if0_stack:
        if top is not None:
            regions.if0.append((top, len(clean)))
    return regions


def inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in spans)


# --------------------------------------------------------------------------- matching

def is_asm_label(text: str, offset: int, floor: int) -> bool:
    """True if the keyword at `offset` follows a declarator (an asm label)."""
    k = offset - 1
    while k >= floor and text[k].isspace():
        k -= 1
    if k < floor:
        return False
    c = text[k]
    if c in IDENT_CHARS:
        j = k
        while j >= floor and text[j] in IDENT_CHARS:
            j -= 1
        word = text[j + 1:k + 1]
        return word not in STATEMENT_WORDS and not word[0].isdigit()
    if c == "]":
        return True
    if c == ")":
        # A label only after a function declarator "T name(...)": the "(" must
        # follow a name that itself follows a type (a word, "*", "&", ">" or
        # "::"-qualified name).  Not after "if (...)", "if constexpr (...)",
        # "while (...)", nor after a macro call such as "NV_IF_TARGET(...)"
        # that starts a statement (preceded by ";", "{", "}" or nothing).
        depth = 0
        while k >= floor:
            if text[k] == ")":
                depth += 1
            elif text[k] == "(":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        k = skip_space_back(text, k - 1, floor)
        j = k
        while j >= floor and text[j] in IDENT_CHARS:
            j -= 1
        name = text[j + 1:k + 1]
        if not name or name in CONTROL_WORDS:
            return False
        while j - 1 >= floor and text[j] == ":" and text[j - 1] == ":":  # ns::name
            j = j - 2
            while j >= floor and text[j] in IDENT_CHARS:
                j -= 1
        k = skip_space_back(text, j, floor)
        if k < floor:
            return False
        if text[k] in IDENT_CHARS:
            j = k
            while j >= floor and text[j] in IDENT_CHARS:
                j -= 1
            return text[j + 1:k + 1] not in STATEMENT_WORDS
        return text[k] in "*&>"
    return False


def skip_space_back(text: str, k: int, floor: int) -> int:
    while k >= floor and text[k].isspace():
        k -= 1
    return k


@dataclass
class Match:
    line: int
    category: str  # statement | label | directive | bare
    in_macro: bool
    in_if0: bool
    text: str


def scan_text(text: str) -> list[Match]:
    clean = strip_comments_and_literals(text)
    regions = find_regions(clean)
    # For looking back from a match in code: the text without any directive
    # lines, so that "#if __CUDA_ARCH__ >= 700" is not taken for a declarator.
    code = list(clean)
    for a, b in regions.directive + regions.macro:
        code[a:b] = " " * (b - a)
    code_view = "".join(code)
    matches = []
    for m in KEYWORD_RE.finditer(clean):
        off = m.start()
        q = QUALIFIERS_RE.match(clean, m.end())
        in_macro = inside(regions.macro, off)
        body = next((a for a, b in regions.macro if a <= off < b), None)
        if inside(regions.directive, off):
            category = "directive"
        elif q is None:
            category = "bare"
        elif (is_asm_label(clean, off, body) if body is not None
              else is_asm_label(code_view, off, 0)):
            category = "label"
        else:
            category = "statement"
        line_no = text.count("\n", 0, off) + 1
        eol = text.find("\n", off)
        snippet = text[off:eol if eol >= 0 else len(text)].strip()[:120]
        matches.append(Match(line_no, category, in_macro, inside(regions.if0, off), snippet))
    return matches


# --------------------------------------------------------------------------- files

def iter_files(paths: list[Path]):
    seen_dirs: set[str] = set()
    seen_files: set[str] = set()

    def walk(d: Path):
        real = os.path.realpath(d)
        if real in seen_dirs:
            return
        seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            p = Path(e.path)
            if e.is_dir(follow_symlinks=True):
                yield from walk(p)
            elif e.is_file(follow_symlinks=True) and p.suffix.lower() in EXTENSIONS:
                yield from one(p)

    def one(p: Path):
        real = os.path.realpath(p)
        if real not in seen_files:
            seen_files.add(real)
            yield p

    for p in paths:
        if p.is_dir():
            yield from walk(p)
        elif p.is_file():
            yield from one(p)
        else:
            print(f"count_asm: no such file or folder: {p}", file=sys.stderr)


def count(paths: list[Path]) -> dict:
    result = {"files": 0, "bytes": 0, "total": 0, "in_macro": 0, "in_if0": 0,
              "labels": 0, "in_directive": 0, "bare": 0, "per_file": {}, "matches": {}}
    for p in iter_files(paths):
        data = p.read_bytes()
        result["files"] += 1
        result["bytes"] += len(data)
        matches = scan_text(data.decode("utf-8", errors="replace"))
        stmts = [m for m in matches if m.category == "statement"]
        result["total"] += len(stmts)
        result["in_macro"] += sum(m.in_macro for m in stmts)
        result["in_if0"] += sum(m.in_if0 for m in stmts)
        result["labels"] += sum(m.category == "label" for m in matches)
        result["in_directive"] += sum(m.category == "directive" for m in matches)
        result["bare"] += sum(m.category == "bare" for m in matches)
        if stmts:
            result["per_file"][str(p)] = {"total": len(stmts),
                                          "in_macro": sum(m.in_macro for m in stmts)}
        if matches:
            result["matches"][str(p)] = [m.__dict__ for m in matches]
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--per-file", action="store_true", help="counts per file")
    ap.add_argument("--json", action="store_true", help="JSON output")
    ap.add_argument("--list", action="store_true", help="every match: file:line category text")
    args = ap.parse_args(argv)
    result = count(args.paths)
    matches = result.pop("matches")
    if not args.per_file:
        result.pop("per_file")
    if args.list and args.json:
        result["matches"] = matches
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if args.list:
        for path, ms in matches.items():
            for m in ms:
                flags = "".join([" macro" if m["in_macro"] else "", " if0" if m["in_if0"] else ""])
                print(f"{path}:{m['line']}: {m['category']}{flags}: {m['text']}")
    if args.per_file:
        for path, c in result["per_file"].items():
            print(f"{c['total']:6d} {c['in_macro']:6d}  {path}")
    print(f"files={result['files']} bytes={result['bytes']} total={result['total']} "
          f"in_macro={result['in_macro']} in_if0={result['in_if0']} labels={result['labels']} "
          f"in_directive={result['in_directive']} bare={result['bare']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
