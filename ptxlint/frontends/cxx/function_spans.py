"""Where a C++ file's function definitions lie, read from the text without a parse: the
interiors of each one's parameter list and body, and its name.

A file linted in parts (``ptxlint.engine_parts``) parses only what its part reads: the
parameter lists and bodies of functions that hold only other parts' statements are left out
of its parse. This scan finds them. It is exact about comments, string and character
literals, raw strings and preprocessor lines, and it answers None (parse the whole file)
wherever it cannot be: a backslash-newline outside a directive or comment, a digit separator,
a raw string or block comment it cannot bound, a file that is not ASCII (its offsets would
not be the tree's bytes). A span it gives is only a proposal: the part's tree must show each
left-out interior as a function definition's parameter list and body, or the part parses the
whole file (``ptxlint.engine_parts``).

Cost: 50-55 ms over CUTLASS's 2.8 MB GMMA header (6,628 braces, 2,214 directive lines, 736
functions) on a 2-core machine, against the 0.15-0.2 s of parse a part of it no longer pays.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ptxlint.frontends.cxx.guards import guards_of
from ptxlint.lazy_regex import on_first_use

__all__ = ["FunctionSpan", "Scan", "function_spans", "scan"]


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class FunctionSpan:
    """One function definition: ``name`` (the word before its parameter list), and the
    interiors, without their brackets, of its parameter list and its body (character
    offsets, ``[start, end)``). ``plain``: both interiors hold nothing a file-wide index of
    declarations reads (a record, enum, typedef or alias, a ``#define`` or ``#include``; a
    local class's member functions), and the body's directives are balanced ``#if`` blocks
    whose branches each keep its braces balanced."""

    __slots__ = ("name", "params", "body", "plain")

    def __init__(
        self, name: str, params: tuple[int, int], body: tuple[int, int], plain: bool,
    ) -> None:
        self.name = name
        self.params = params
        self.body = body
        self.plain = plain


# On one line: a string or character literal (possibly unterminated), a line comment, the
# start of a block comment, a brace.
_LINE_TOKENS = on_first_use(
    r"\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"?|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?|//|/\*|[{}]"
)
_BRACES = on_first_use(r"[{}]")
# what may stand between a parameter list's ``)`` and the body's ``{``
_AFTER_PARAMS = on_first_use(
    r"(?:\s|\bconst\b|\bnoexcept\b|\boverride\b|\bfinal\b|\bvolatile\b|&)*")
_NOT_NAMES = frozenset({
    "if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof",
    "alignas", "noexcept", "throw", "operator", "static_assert", "__attribute__",
    "__declspec", "requires", "defined",
})
_SCOPE_WORDS = on_first_use(r"\b(?:namespace|struct|class|union)\b|\bextern\s*\"C")
# what a file-wide index reads, or makes the interior more than local code
_NOT_PLAIN = ("struct", "class", "union", "enum", "typedef", "using")
_CONDITIONALS = {"if": 1, "ifdef": 1, "ifndef": 1, "elif": 0, "elifdef": 0, "elifndef": 0,
                 "else": 0, "endif": -1}
_HARMLESS = frozenset({"pragma", "error", "warning", "line"})


class Scan(NamedTuple):
    """What the scan read of a file: its function definitions at namespace or class scope, in
    text order, and where its code is not (block comments and raw strings, directives)."""

    text: str
    functions: list[FunctionSpan]
    skips: list[tuple[int, int]]
    directives: list[tuple[int, int, str]]

    def in_directive(self, at: int) -> bool:
        """Whether ``at`` lies in a preprocessor directive (a ``#define``'s body among them)."""
        k = bisect.bisect_right([s for s, _, _ in self.directives], at) - 1
        return k >= 0 and at < self.directives[k][1]

    def in_comment_or_literal(self, at: int) -> bool:
        """Whether ``at`` lies in a comment, a string or character literal or a raw string."""
        starts = [s for s, _ in self.skips]
        if _covered(self.skips, starts, at) >= 0:
            return True
        line = _line_start(self.text, at)
        k = bisect.bisect_right(starts, at) - 1
        if k >= 0 and self.skips[k][1] > line:
            line = self.skips[k][1]  # the line goes on after a region that ends on it
        return _in_literal_or_comment(self.text, line, at)


def function_spans(text: str) -> list[FunctionSpan] | None:
    """The function definitions of ``text`` at namespace or class scope, in text order; None
    where the scan cannot be exact."""
    found = scan(text)
    return None if found is None else found.functions


def scan(text: str) -> Scan | None:
    """``function_spans`` with what else the scan read (``Scan``); None where it cannot be
    exact."""
    if not text.isascii() or _digit_separator(text):
        return None
    skips = _skip_regions(text)
    if skips is None:
        return None
    directives = _directives(text, skips)
    if directives is None:
        return None
    if not _splices_known(text, skips, directives):
        return None
    braces = _code_braces(text, skips, directives)
    if braces is None:
        return None
    functions = _functions(text, braces, directives, _words_at(text, _NOT_PLAIN))
    return None if functions is None else Scan(text, functions, skips, directives)


def _words_at(text: str, words: tuple[str, ...]) -> list[int]:
    """Where each of ``words`` occurs as a whole word in ``text``, in order (literals and
    comments included: a hit there only makes the scan more careful). One ``str.find`` per
    occurrence: a pattern of alternatives bounded by ``\\b`` is tried at every character
    (0.26 s over the GMMA header, against about 3 ms)."""
    found: list[int] = []
    for word in words:
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or not _is_word_char(text[at - 1])) and (
                end == len(text) or not _is_word_char(text[end])
            ):
                found.append(at)
            at = text.find(word, end)
    found.sort()
    return found


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _digit_separator(text: str) -> bool:
    """Whether a ``'`` follows a digit (``1'000``): a separator the literal scan would read as
    a character literal's quote."""
    at = text.find("'")
    while at >= 0:
        if at and text[at - 1].isdigit():
            return True
        at = text.find("'", at + 1)
    return False


def _all(text: str, needle: str) -> list[int]:
    found = []
    at = text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _skip_regions(text: str) -> list[tuple[int, int]] | None:
    """Block comments and raw strings in code, in order, as ``[start, end)``; None where one
    does not end or cannot be told from a string or comment."""
    regions: list[tuple[int, int]] = []
    candidates = sorted(_all(text, "/*") + _all(text, 'R"'))
    covered = 0
    for at in candidates:
        if at < covered:
            continue
        line = max(_line_start(text, at), covered)
        if _in_literal_or_comment(text, line, at):
            continue
        if text.startswith("/*", at):
            end = text.find("*/", at + 2)
            if end < 0:
                return None
            covered = end + 2
        else:
            if at and (text[at - 1].isalnum() or text[at - 1] == "_") and not re.search(
                r"(?:^|[^\w])(?:u8|u|U|L)$", text[max(0, at - 3) : at]
            ):
                continue  # an identifier ending in R, then a string: no raw string
            open_paren = text.find("(", at + 2, at + 20)
            if open_paren < 0:
                return None
            delimiter = text[at + 2 : open_paren]
            end = text.find(")" + delimiter + '"', open_paren)
            if end < 0:
                return None
            covered = end + len(delimiter) + 2
        regions.append((at, covered))
    return regions


def _in_literal_or_comment(text: str, line: int, at: int) -> bool:
    """Whether ``at`` lies inside a literal or line comment that starts on its line at or
    after ``line`` (a line that does not start inside a block comment or raw string)."""
    for m in _LINE_TOKENS().finditer(text, line, at + 1):
        token = m.group()
        if m.start() >= at:
            return False
        if token == "//":
            return True
        if token[0] in "\"'" and m.end() > at:
            return True
        if token == "/*":
            return False  # the block comment starts before ``at``: handled by the caller
    return False


def _covered(skips: list[tuple[int, int]], starts: list[int], at: int) -> int:
    """The end of the skip region that holds ``at``, or -1."""
    k = bisect.bisect_right(starts, at) - 1
    if k >= 0 and at < skips[k][1]:
        return skips[k][1]
    return -1


def _directives(
    text: str, skips: list[tuple[int, int]]
) -> list[tuple[int, int, str]] | None:
    """Each preprocessor directive as ``(start, end, word)``: from its ``#`` through its
    continued lines, as the file's directive lines (``FileGuards.directives``, which its
    extraction reads too) give them. None where a block comment or raw string crosses one's
    end of line (one that starts on the directive and holds a line break)."""
    lines = guards_of(text).directives.lines()
    starts = [s for s, _ in skips]
    for at, end, _ in lines:
        k = bisect.bisect_left(starts, at)
        while k < len(skips) and skips[k][0] < end:
            if text.find("\n", skips[k][0], skips[k][1]) >= 0:
                return None
            k += 1
    return lines


def _splices_known(
    text: str, skips: list[tuple[int, int]], directives: list[tuple[int, int, str]]
) -> bool:
    """Whether every backslash-newline lies in a directive or a block comment (elsewhere it
    splices a line comment or a string with the next line)."""
    starts = [s for s, _ in skips]
    directive_starts = [s for s, _, _ in directives]
    at = text.find("\\\n")
    while at >= 0:
        k = bisect.bisect_right(directive_starts, at) - 1
        if not (k >= 0 and at < directives[k][1]) and _covered(skips, starts, at) < 0:
            return False
        at = text.find("\\\n", at + 2)
    return True


def _code_braces(
    text: str, skips: list[tuple[int, int]], directives: list[tuple[int, int, str]]
) -> list[tuple[int, str]] | None:
    """The braces in code, outside directives, literals and comments: ``(offset, char)``."""
    starts = [s for s, _ in skips]
    directive_starts = [s for s, _, _ in directives]
    out: list[tuple[int, str]] = []
    line_done = -1
    for m in _BRACES().finditer(text):
        at = m.start()
        if at < line_done:
            continue
        line = _line_start(text, at)
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line_done = end
        # the line's braces, read once: from its start, or from the end of a region that
        # covers it, skipping the regions that start on it
        position = line
        k = bisect.bisect_right(starts, line) - 1
        if k >= 0 and skips[k][1] > line:
            position = skips[k][1]
        d = bisect.bisect_right(directive_starts, line) - 1
        if d >= 0 and directives[d][1] > line:
            position = max(position, directives[d][1])  # a directive's continued line
        if position < end and _plain_line(text, position, end, starts):
            # only double-quoted strings on it: a brace is in one after an odd count of quotes
            at = text.find("{", position, end)
            close = text.find("}", position, end)
            while at >= 0 or close >= 0:
                here = at if close < 0 or 0 <= at < close else close
                if text.count('"', position, here) % 2 == 0:
                    out.append((here, text[here]))
                if here == at:
                    at = text.find("{", at + 1, end)
                else:
                    close = text.find("}", close + 1, end)
            continue
        while position < end:
            token = _LINE_TOKENS().search(text, position, end)
            if token is None:
                break
            start = token.start()
            covering = _covered(skips, starts, start)
            if covering >= 0:
                position = covering
                if covering > end:
                    line_done = covering  # the region runs on past this line
                    break
                continue
            dk = bisect.bisect_right(directive_starts, start) - 1
            if dk >= 0 and start < directives[dk][1]:
                position = directives[dk][1]
                continue
            value = token.group()
            if value == "//":
                break
            if value == "/*":
                return None  # a block comment the region scan did not see
            if value in "{}":
                out.append((start, value))
            position = token.end()
    return out


def _plain_line(text: str, start: int, end: int, starts: list[int]) -> bool:
    """Whether ``[start, end)`` holds no character literal, comment, escape or raw string."""
    k = bisect.bisect_left(starts, start)
    if k < len(starts) and starts[k] < end:
        return False
    return text.find("'", start, end) < 0 and text.find("/", start, end) < 0 \
        and text.find("\\", start, end) < 0


def _functions(
    text: str,
    braces: list[tuple[int, str]],
    directives: list[tuple[int, int, str]],
    not_plain: list[int],
) -> list[FunctionSpan] | None:
    """Match the braces, and name the bodies at namespace or class scope."""
    found: list[FunctionSpan] = []
    starts = [s for s, _, _ in directives]
    # each open brace: whether a function may be defined right inside it, and the index in
    # ``found`` of the function whose body it opens (-1: none)
    stack: list[tuple[bool, int]] = []
    previous = 0  # just past the last code brace before the current one
    for at, char in braces:
        if char == "{":
            scope_here = not stack or stack[-1][0]
            candidate = _candidate(text, previous, at) if scope_here else None
            if candidate is not None:
                stack.append((False, len(found)))
                found.append(FunctionSpan(candidate[0], candidate[1], (at + 1, -1), False))
            else:
                stack.append((scope_here and _opens_scope(text, previous, at), -1))
        else:
            if not stack:
                return None
            _, index = stack.pop()
            if index >= 0:
                found[index] = _closed(text, found[index], at, directives, starts, not_plain)
        previous = at + 1
    if stack:
        return None
    return found


def _opens_scope(text: str, previous: int, brace: int) -> bool:
    """Whether the brace at ``brace`` opens a namespace, a class, struct or union body or an
    ``extern "C"`` block: where functions are defined."""
    header = text[max(previous, text.rfind(";", 0, brace)) : brace]
    words = list(_SCOPE_WORDS().finditer(header))
    last = words[-1] if words else None
    if last is None or re.search(r"\benum\b", header):
        return False
    tail = header[last.start() :]
    return "(" not in tail and "=" not in tail


def _candidate(text: str, previous: int, brace: int) -> tuple[str, tuple[int, int]] | None:
    """The name and parameter interior of a function whose body opens at ``brace``, or None
    where what precedes it is not ``name(parameters) [qualifiers]``."""
    close = text.rfind(")", previous, brace)
    if close < 0 or _AFTER_PARAMS().fullmatch(text, close + 1, brace) is None:
        return None
    depth = 1
    at = close
    while depth:
        opening = text.rfind("(", previous, at)
        closing = text.rfind(")", previous, at)
        if opening < 0:
            return None
        if closing > opening:
            depth += 1
            at = closing
        else:
            depth -= 1
            at = opening
    interior = text[at + 1 : close]
    if any(c in interior for c in "\"'/#{};"):
        return None  # a literal, comment or directive among the parameters: not read here
    end = at
    while end > previous and text[end - 1] in " \t\n\r":
        end -= 1
    begin = end
    while begin > previous and _is_word_char(text[begin - 1]):
        begin -= 1
    name = text[begin:end]
    if not name or name[0].isdigit() or name in _NOT_NAMES:
        return None
    before = text[max(previous, begin - 10) : begin].rstrip()
    if before.endswith(("~", "operator", ",")) or (before.endswith(":")
                                                    and not before.endswith("::")):
        return None  # a destructor, an operator, a member initializer
    return name, (at + 1, close)


def _closed(
    text: str,
    span: FunctionSpan,
    close: int,
    directives: list[tuple[int, int, str]],
    starts: list[int],
    not_plain: list[int],
) -> FunctionSpan:
    """``span`` with its body's end, and whether it is plain (``FunctionSpan``)."""
    start = span.body[0]
    plain = (
        not _any_in(not_plain, *span.params)
        and not _any_in(not_plain, start, close)
        and _balanced_directives(text, start, close, directives, starts)
    )
    return FunctionSpan(span.name, span.params, (start, close), plain)


def _any_in(offsets: list[int], start: int, end: int) -> bool:
    k = bisect.bisect_left(offsets, start)
    return k < len(offsets) and offsets[k] < end


def _balanced_directives(
    text: str, start: int, end: int, directives: list[tuple[int, int, str]], starts: list[int]
) -> bool:
    """Whether the directives in ``[start, end)`` are conditionals that open and close there,
    each branch leaving the braces as its ``#if`` found them, or harmless ones
    (``_HARMLESS``)."""
    k = bisect.bisect_left(starts, start)
    depth_at_if: list[int] = []
    last = start
    depth = 0
    while k < len(directives) and directives[k][0] < end:
        at, stop, word = directives[k]
        k += 1
        depth += _brace_balance(text, last, at)
        last = stop
        if word in _HARMLESS:
            continue
        step = _CONDITIONALS.get(word)
        if step is None:
            return False
        if step == 1:
            depth_at_if.append(depth)
        elif not depth_at_if or depth_at_if[-1] != depth:
            return False
        elif step == -1:
            depth_at_if.pop()
        if step == 0:
            depth = depth_at_if[-1]  # the next branch starts where the #if did
    return not depth_at_if


def _brace_balance(text: str, start: int, end: int) -> int:
    """``{`` less ``}`` in ``[start, end)``, literals and comments included: a branch whose
    count is off holds a brace in a literal, which the caller then refuses (conservative)."""
    return text.count("{", start, end) - text.count("}", start, end)
