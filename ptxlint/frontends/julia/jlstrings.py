"""Julia string literals and LLVM IR string constants, decoded with a source map.

Julia: ``"..."`` with its escapes (``\\$`` is a dollar sign, ``\\n`` a line break), ``$name`` and
``$(expr)`` interpolations (holes: their value is not knowable here), ``\\`` before a line break
(the break and the next line's indentation vanish), ``raw"..."`` (only ``\\"`` is an escape),
and ``\"\"\"...\"\"\"`` with Julia's dedent: a line break right after the opening quotes is
dropped, and the indentation common to the lines (the closing quotes' line included, blank lines
not) is removed.

LLVM IR (the text of a ``Base.llvmcall``): ``\\XX`` is the byte with hex value XX.
"""

from __future__ import annotations

import re

from ptxlint.frontends.sourced import Sourced
from ptxlint.model import Span, TemplatePiece

JL_STRING = "jlstring"

_SIMPLE = {
    "n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "$": "$", "0": "\0", "a": "\a",
    "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "'": "'",
}
_IDENT = re.compile(r"[A-Za-z_\u00a1-\uffff][\w!\u00a1-\uffff]*")
_HEX = re.compile(r"\\([0-9A-Fa-f]{2})")


def _dedent(text: str, lo: int, hi: int) -> list[tuple[str, int, int]]:
    """The characters of a triple-quoted literal's body ``text[lo:hi]`` after Julia's dedent,
    each with its source span."""
    chars = [(text[i], i, i + 1) for i in range(lo, hi)]
    if chars and chars[0][0] == "\n":
        chars = chars[1:]
    elif len(chars) > 1 and chars[0][0] == "\r" and chars[1][0] == "\n":
        chars = chars[2:]
    lines: list[list[tuple[str, int, int]]] = [[]]
    for c in chars:
        lines[-1].append(c)
        if c[0] == "\n":
            lines.append([])
    widths: list[int] = []
    for k, line in enumerate(lines):
        body = "".join(c[0] for c in line).rstrip("\n")
        last = k == len(lines) - 1
        if not body.strip() and not last:
            continue
        if k == 0 and lo > 0 and text[lo - 1] == '"' and chars and chars[0][1] == lo:
            continue  # text right after the opening quotes: not indented
        widths.append(len(body) - len(body.lstrip(" \t")))
    cut = min(widths) if widths else 0
    out: list[tuple[str, int, int]] = []
    for k, line in enumerate(lines):
        if k == 0 and chars and chars[0][1] == lo:
            out.extend(line)
            continue
        drop = 0
        while drop < min(cut, len(line)) and line[drop][0] in " \t":
            drop += 1
        out.extend(line[drop:])
    return out


def decode(text: str, start: int, end: int) -> Sourced:
    """The value of the Julia string literal ``text[start:end]`` (prefix and quotes included)."""
    m = re.match(r'([A-Za-z_]\w*)?("""|")', text[start:end])
    if m is None:
        return Sourced.hole(Span(start, end))
    prefix = m.group(1) or ""
    quote = m.group(2)
    lo = start + m.end()
    hi = end - len(quote)
    if hi < lo:
        return Sourced.hole(Span(start, end))
    raw = prefix == "raw"
    if prefix and not raw:
        return Sourced.hole(Span(start, end))  # a string macro: its value is the macro's
    chars = _dedent(text, lo, hi) if quote == '"""' else [
        (text[i], i, i + 1) for i in range(lo, hi)
    ]
    out_chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    holes: list[tuple[int, Span]] = []  # (text position, source span)
    i = 0
    n = len(chars)
    while i < n:
        c, s, e = chars[i]
        if c == "\\" and i + 1 < n:
            nxt = chars[i + 1][0]
            if raw:
                if nxt == '"':
                    out_chars.append('"')
                    starts.append(s)
                    ends.append(chars[i + 1][2])
                    i += 2
                    continue
            elif nxt == "\n":
                i += 2
                while i < n and chars[i][0] in " \t":
                    i += 1
                continue
            elif nxt in _SIMPLE:
                out_chars.append(_SIMPLE[nxt])
                starts.append(s)
                ends.append(chars[i + 1][2])
                i += 2
                continue
            elif nxt in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[nxt]
                digits = ""
                j = i + 2
                while j < n and len(digits) < width and chars[j][0] in "0123456789abcdefABCDEF":
                    digits += chars[j][0]
                    j += 1
                if digits:
                    out_chars.append(chr(min(int(digits, 16), 0x10FFFF)))
                    starts.append(s)
                    ends.append(chars[j - 1][2])
                    i = j
                    continue
        if c == "$" and not raw:
            j = _interpolation_end(chars, i)
            holes.append((len(out_chars), Span(s, chars[j - 1][2])))
            out_chars.append("\x00")  # placeholder, replaced by the hole below
            starts.append(s)
            ends.append(chars[j - 1][2])
            i = j
            continue
        out_chars.append(c)
        starts.append(s)
        ends.append(e)
        i += 1
    value = Sourced(
        "".join(out_chars), starts, ends, [TemplatePiece(JL_STRING, Span(start, end), 0, 0)]
    )
    value.pieces = [TemplatePiece(JL_STRING, Span(start, end), 0, len(value.text))]
    if not holes:
        return value
    out = Sourced()
    last = 0
    for at, span in holes:
        out = out + value.slice(last, at) + Sourced.hole(span)
        last = at + 1
    return out + value.slice(last, len(value.text))


def _interpolation_end(chars: list[tuple[str, int, int]], i: int) -> int:
    """Where the interpolation that starts with the ``$`` at ``i`` ends."""
    n = len(chars)
    if i + 1 < n and chars[i + 1][0] == "(":
        depth = 0
        j = i + 1
        while j < n:
            if chars[j][0] == "(":
                depth += 1
            elif chars[j][0] == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n
    rest = "".join(c[0] for c in chars[i + 1 : i + 64])
    m = _IDENT.match(rest)
    return i + 1 + (m.end() if m else 0)


def decode_llvm(value: Sourced) -> Sourced:
    """An LLVM IR string constant's body: ``\\XX`` escapes become their character."""
    out = Sourced()
    last = 0
    for m in _HEX.finditer(value.text):
        out = out + value.slice(last, m.start())
        char = chr(int(m.group(1), 16))
        out = out + Sourced(char, [value.starts[m.start()]], [value.ends[m.end() - 1]], [])
        last = m.end()
    return out + value.slice(last, len(value.text))
