"""The tokens of one asm statement, read from its keyword to its end: the lexer's tokens with
each preprocessor line kept whole, bounded so that broken code stays linear."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ptxlint.frontends.cxx.lexer import NEXT_TOKEN as _NEXT_TOKEN
from ptxlint.frontends.cxx.lexer import Token
from ptxlint.frontends.cxx.lexer import new_token as _new_token
from ptxlint.lazy_regex import on_first_use

KEYWORDS = ("asm", "__asm__", "__asm")


# the words GNU C allows between the keyword and its "("
QUALIFIERS = ("volatile", "__volatile__", "__volatile", "inline", "__inline", "__inline__", "goto")
ASM_KEYWORD = on_first_use(r"(?<![\w$])(?:__asm__|__asm|asm)(?![\w$])")


def keyword_tokens(toks: Sequence[Token]) -> dict[object, int]:
    """Token index of each asm keyword by offset, and under ``("next", offset)`` the index of
    the keyword after it."""
    found = [i for i, t in enumerate(toks) if t.kind == "ident" and ASM_KEYWORD().fullmatch(t.text)]
    out: dict[object, int] = {toks[i].start: i for i in found}
    for here, following in zip(found, found[1:], strict=False):
        out[("next", toks[here].start)] = following
    return out


def code_tokens(text: str, start: int, stop: int | None = None) -> list[Token]:
    """Tokens from ``start`` to the end of the statement (or to ``stop``), preprocessor lines
    kept as single ``directive`` tokens.

    An unterminated statement ends before the next asm keyword: otherwise each of n nested
    unterminated ``asm(`` would read to the end of the file (quadratic time). Real code never
    nests an asm statement inside another's parentheses.

    One pass over the lexer's matches (``lexer.tokens`` inlined: CUTLASS's GMMA header reads
    265,000 tokens here), O(tokens of the statement)."""
    out: list[Token] = []
    append = out.append
    depth = 0
    skip_until = -1
    # #if blocks opened inside the statement: (depth at the #if, depth at the end of the first
    # branch). Each branch starts from the #if's depth, and the statement ends once the
    # parenthesis closes outside every block.
    groups: list[list[int]] = []
    whole = stop is None
    for m in _NEXT_TOKEN().finditer(text, start, len(text) if stop is None else stop):
        kind = m.lastgroup
        if kind is None:
            break  # only blanks and comments were left
        if kind == "delim":
            kind = "raw"
        at = m.start(kind)
        if at < skip_until:
            continue
        word = m.group(kind)
        if kind != "punct":
            if kind == "ident" and whole and out and word in KEYWORD_WORDS:
                break
            append(_new_token(Token, (kind, word, at, m.end())))
            if len(out) > 200_000:
                break
            continue
        if word == "#" and at_line_start(text, at):
            skip_until = end_of_directive(text, at)
            append(Token("directive", text[at:skip_until], at, skip_until))
            directive = _DIRECTIVE_WORD().match(text, at)
            name = directive.group(1) if directive else ""
            if name in ("if", "ifdef", "ifndef"):
                groups.append([depth, -1])
            elif name in ("elif", "else") and groups:
                if groups[-1][1] < 0:
                    groups[-1][1] = depth
                depth = groups[-1][0]
            elif name == "endif" and groups:
                opened, first = groups.pop()
                depth = first if first >= 0 else depth
                if depth == 0 and whole and len(out) > 2:
                    break
            continue
        append(_new_token(Token, ("punct", word, at, m.end())))
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
            if depth == 0 and whole and not groups:
                break
        elif word in (";", "{", "}") and depth == 0 and len(out) > 1 and whole and not groups:
            break
        if len(out) > 200_000:
            break
    return out


KEYWORD_WORDS = frozenset(KEYWORDS)  # what ASM_KEYWORD().fullmatch accepts of an identifier


_DIRECTIVE_WORD = on_first_use(r"#[ \t]*(\w*)")


def at_line_start(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return text[line_start:offset].strip() == ""


def end_of_directive(text: str, offset: int) -> int:
    i = offset
    while True:
        nl = text.find("\n", i)
        if nl == -1:
            return len(text)
        if nl > 0 and text[nl - 1] == "\\" or (nl > 1 and text[nl - 2 : nl] == "\\\r"):
            i = nl + 1
            continue
        return nl


_WORD_CHAR = re.compile(r"[\w$]")


def keyword_starts(text: str) -> Iterator[tuple[int, str]]:
    """What ``ASM_KEYWORD.finditer(text)`` finds, as (start, keyword). The literal ``asm`` is
    searched and its surroundings checked here: the pattern's leading look-behind made the
    regex engine try it at every character (GMMA's 2.7 MB header: 63 ms, now 1 ms)."""
    word = _WORD_CHAR.match
    find = text.find
    at = find("asm")
    while at >= 0:
        end = at + 3
        if at >= 2 and text[at - 2] == "_" == text[at - 1]:
            start = at - 2
            if text.startswith("__", end) and not word(text, end + 2):
                end += 2
            elif word(text, end):
                start = -1
        else:
            start = at if not word(text, end) else -1
        if start >= 0 and (start == 0 or not word(text, start - 1)):
            yield start, text[start:end]
            at = find("asm", end)
        else:
            at = find("asm", at + 3)
