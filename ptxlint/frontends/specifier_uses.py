"""The uses of specifier macros that precede a declaration, and what to leave out of the parse
so that tree-sitter reads the declaration.

A macro that expands to declaration specifiers only (``#define CUTLASS_DEVICE __forceinline__
__device__``; ``__CUDA_HOSTDEVICE__``, empty outside CUDA) is, to tree-sitter, an identifier:
it reads ``CUTLASS_DEVICE Pipeline(Params p) : params_(p) {}`` as a declaration of type
``CUTLASS_DEVICE``, and ``__CUDA_HOSTDEVICE__ __CUDA_FP16_INLINE__ __half::operator signed
char() const`` as two type names, then recovers with an ERROR node that may hold the rest of a
class or of the file (CUTLASS's sm90_pipeline.hpp, 1,388 of its lines; cuda_fp16.hpp, 3,483).
A statement macro that expands to a pragma (``CUTLASS_PRAGMA_UNROLL for (...)``) is the same
to it. Leaving such a use out of the parse gives the declaration tree-sitter's own keywords
or none, as the preprocessor gives it the specifiers, which the grammar never needs to tell a
declaration from another.

Which names are such macros is the caller's to judge (``cxx.specifier_macros``, from the
file's macros and its headers'); here, where a use of one stands where a declaration's
specifiers or a statement's start may: after the end of a declaration or statement (``;``,
a brace, ``:`` of an access specifier or label, ``>`` of a template head, ``)`` of an
attribute or a condition, ``]]``) or another word, and before a word, ``::``, ``~`` or
``[[`` (what a declaration's specifiers, declarator or a statement begin with). A use in a
directive, a comment or a literal is none. Offsets are the text's characters.

Two more kinds of macro use are left out with them (``macro_uses``): one that opens or closes
namespaces (``CUB_NAMESPACE_BEGIN``), where a declaration may start (after nothing, ``;`` or a
brace, comments and directives between), only where the file's openers and closers left out
are as many; and one that is an input operand's constraint (``:: __LDG_PTR(ptr)``), after the
``:`` or ``,`` that starts an operand and before the ``,``, ``:`` or ``)`` that ends it, left out
with its operand and one comma next to it, so that the operand list around reads whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, Protocol

from ptxlint.lazy_regex import on_first_use

__all__ = ["MacroJudge", "MacroUses", "RecordedJudge", "macro_uses", "specifier_uses"]


class MacroJudge(Protocol):
    """What a use of a macro expands to, by name and the character it stands at
    (``cxx.specifier_macros.SpecifierMacros``)."""

    def __call__(self, name: str, at: int) -> bool:
        """Declaration specifiers, attributes or a pragma only (or nothing)."""

    def braces(self, name: str, at: int) -> int:
        """1: namespace openings only; -1: their closing braces only; 0: neither."""

    def constraint(self, name: str, at: int) -> bool:
        """An input operand's constraint string."""

    def statements(self, name: str, at: int) -> bool:
        """A function-like macro that pastes its arguments into a block."""

    def template_piece(self, name: str, at: int) -> bool:
        """String literals (an asm template's piece), its arguments stringified."""


class MacroUses(NamedTuple):
    """The character ranges, in order, of the macro uses a parse may leave out."""

    specifiers: list[tuple[int, int]]  # before a declaration or statement (``specifier_uses``)
    namespaces: list[tuple[int, int]]  # namespace openers and closers, as many of each
    constraints: list[tuple[int, int]]  # an operand whose constraint is a macro, with a comma
    # a call of a statement macro but for the statements in its arguments (``statement_call``)
    calls: list[tuple[int, int]]
    # a macro, with its arguments, among a template's string literals (``_template_piece``)
    pieces: list[tuple[int, int]]
    # each name left out and what the judge said of it ("specifier", "opens", "closes",
    # "constraint", "statements", "piece"), for a parse of an edit of the text to ask again
    # (``RecordedJudge``)
    names: tuple[tuple[str, str], ...]


class RecordedJudge:
    """A ``MacroJudge`` that says of each name what another said of it (``MacroUses.names``)."""

    def __init__(self, names: tuple[tuple[str, str], ...]) -> None:
        self._kinds = dict(names)

    def __call__(self, name: str, at: int) -> bool:
        return self._kinds.get(name) == "specifier"

    def braces(self, name: str, at: int) -> int:
        return {"opens": 1, "closes": -1}.get(self._kinds.get(name, ""), 0)

    def constraint(self, name: str, at: int) -> bool:
        return self._kinds.get(name) == "constraint"

    def statements(self, name: str, at: int) -> bool:
        return self._kinds.get(name) == "statements"

    def template_piece(self, name: str, at: int) -> bool:
        return self._kinds.get(name) == "piece"

# Block and line comments, string and character literals and a directive's logical line
# (continuations included), whose words are no uses, and the macro-looking words: ALL_CAPS,
# leading underscores allowed (``__CUDA_HOSTDEVICE__``, ``_CCCL_NODISCARD``); the keywords the
# grammar reads (``__device__``, ``_Pragma``) are none. Only these pass through Python: a
# tokenizer of the whole file cost four times the parse it saves (CUDA 13 headers).
_CANDIDATES = on_first_use(
    r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    r"|^[ \t]*#(?:\\\r?\n|[^\n])*|(?P<word>\b_*[A-Z][A-Z0-9_]*\b)",
    re.M | re.S,
)
# What a declaration's specifiers, its declarator or a statement may begin with.
_NEXT = on_first_use(r"\s*(?:[A-Za-z_]|::|~|\[\[)")
# The characters a declaration's specifiers or a statement may follow, besides a word's (the
# end of a declaration or statement, a brace, ``:`` of an access specifier or label, ``>`` of a
# template head, ``)`` of an attribute or a condition, ``]]``).
_BEFORE = frozenset(";{}:>)]")
_WORD_BEFORE = on_first_use(r"\w+$")
# Words after which a word is an operand, not a declaration's start.
_EXPRESSION_WORDS = frozenset(("return", "case", "goto", "sizeof", "co_return", "co_yield",
                               "throw", "new", "delete", "typeid", "alignof", "decltype"))


def specifier_uses(text: str, is_specifier: Callable[[str, int], bool]) -> list[tuple[int, int]]:
    """The character ranges, in order, of the uses of macros in ``text`` that
    ``is_specifier(name, offset)`` says expand to declaration specifiers (or a pragma, or
    nothing) only and that stand where a declaration's specifiers may."""
    return macro_uses(text, _SpecifiersOnly(is_specifier)).specifiers


class _SpecifiersOnly:
    """A ``MacroJudge`` that knows specifier macros only."""

    def __init__(self, is_specifier: Callable[[str, int], bool]) -> None:
        self._is_specifier = is_specifier

    def __call__(self, name: str, at: int) -> bool:
        return self._is_specifier(name, at)

    def braces(self, name: str, at: int) -> int:
        return 0

    def constraint(self, name: str, at: int) -> bool:
        return False

    def statements(self, name: str, at: int) -> bool:
        return False

    def template_piece(self, name: str, at: int) -> bool:
        return False


def macro_uses(text: str, judge: MacroJudge) -> MacroUses:
    """Every use in ``text`` that the parse may leave out: ``specifier_uses``, and the uses of
    namespace and constraint macros (the module's docstring), found in one scan."""
    specifiers: list[tuple[int, int]] = []
    namespaces: list[tuple[int, int]] = []
    constraints: list[tuple[int, int]] = []
    calls: list[tuple[int, int]] = []
    pieces: list[tuple[int, int]] = []
    names: dict[str, str] = {}
    balance = 0
    follows = _NEXT().match
    # where the last comment, literal or directive ended, and whether a declaration may start
    # right after it (a literal ends an expression; the others leave what came before)
    quiet_end, quiet_open = 0, True
    # where the last string literal or template piece ended: a piece follows one
    string_end = -1
    for m in _CANDIDATES().finditer(text):
        start, end = m.span()
        if m.lastgroup != "word":
            if text[start] == '"':
                string_end = end
            quiet_open = text[start] not in "\"'" and _opens_declaration(
                text, start, quiet_end, quiet_open)
            quiet_end = end
            continue
        name = m.group()
        if follows(text, end) is not None and _may_precede(text, start) and judge(name, start):
            specifiers.append((start, end))
            names[name] = "specifier"
        elif _opens_declaration(text, start, quiet_end, quiet_open):
            if sign := judge.braces(name, start):
                namespaces.append((start, end))
                names[name] = "opens" if sign > 0 else "closes"
                balance += sign
            elif judge.statements(name, start) and (skeleton := statement_call(text, end)):
                calls.extend([(start, end), *skeleton])
                names[name] = "statements"
        elif (operand := _constraint_operand(text, start, end)) is not None and \
                judge.constraint(name, start):
            constraints.append(operand)
            names[name] = "constraint"
        elif _follows_string(text, start, string_end) and (
                piece := _template_piece(text, start, end)) is not None and \
                judge.template_piece(name, start):
            pieces.append(piece)
            names[name] = "piece"
            string_end = piece[1]
    if balance:
        namespaces = []
        names = {name: kind for name, kind in names.items() if kind not in ("opens", "closes")}
    return MacroUses(specifiers, namespaces, constraints, calls, pieces, tuple(names.items()))


def _follows_string(text: str, start: int, string_end: int) -> bool:
    """Whether only blanks stand between the string literal (or template piece) that ends
    at ``string_end`` and ``start``."""
    return 0 <= string_end <= start and not text[string_end:start].strip()


def _template_piece(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The range of the macro use at ``[start, end)`` among a template's literals, its
    arguments included; None where what follows it is no literal, ``:``, ``)`` or name."""
    at = end
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    stop = end
    if at < len(text) and text[at] == "(":
        close = _closing(text, at, min(len(text), at + _OPERAND_REACH) - 1)
        if close < 0:
            return None
        stop = at = close + 1
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
    if at < len(text) and (text[at] in '":)_' or text[at].isalpha()):
        return start, stop
    return None


# What a call's scan acts on: literals and comments (stepped over), brackets, ``,`` and ``;``,
# and a directive, where it gives up (a branch of the call's arguments under ``#if``).
_CALL_TOKENS = on_first_use(
    r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|/\*.*?\*/|//[^\n]*"
    r"|(?P<directive>^[ \t]*\#)|(?P<mark>[()\[\]{},;])",
    re.M | re.S,
)
# How far a statement macro's call is looked for its end.
_CALL_REACH = 1 << 16


def statement_call(text: str, end: int) -> list[tuple[int, int]]:
    """For the call of a statement macro whose name ends at ``end``, what to leave out but
    for the statements in its arguments: its ``(``, each argument that is one name (a
    condition: ``NV_IS_DEVICE``), the ``,`` between arguments, the parentheses that wrap an
    argument of statements whole (``(s1; s2;)``) and its ``)``. [] where the name is not
    followed by a call whose arguments hold statements, or the call holds a directive or does
    not close within reach."""
    at = end
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    if at >= len(text) or text[at] != "(":
        return []
    left_out = [(at, at + 1)]
    depth = 0
    argument = at + 1  # where the argument being read starts
    statements = False  # whether it holds a ``;``
    any_statements = False
    for m in _CALL_TOKENS().finditer(text, at, min(len(text), at + _CALL_REACH)):
        if m.lastgroup == "directive":
            return []
        mark = m.group("mark")
        if mark is None:
            continue
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth -= 1
        elif mark == ";":
            statements = True
        if depth == 1 and mark == "," or depth == 0:
            where = m.start()
            left_out.extend(_argument_left_out(text, argument, where, statements))
            any_statements = any_statements or statements
            left_out.append((where, where + 1))
            if depth == 0:
                return left_out if any_statements else []
            argument, statements = where + 1, False
    return []


def _argument_left_out(text: str, start: int, end: int, statements: bool
                       ) -> list[tuple[int, int]]:
    """What to leave out of the argument ``text[start:end]``: the parentheses that wrap it
    whole where it holds statements; all of it where it is one name (the dispatch's
    condition, ``NV_PROVIDES_SM_90``); else nothing (an expression, or a macro's invocation
    that expands to statements: ``__COMPARISON_OP_HALF2_MACRO(set.eq)``, read where it
    stands)."""
    first, last = start, end - 1
    while first < end and text[first] in " \t\r\n":
        first += 1
    while last > first and text[last] in " \t\r\n":
        last -= 1
    if not statements:
        return [(start, end)] if _NAME().fullmatch(text, first, last + 1) else []
    if text[first] != "(" or text[last] != ")" or _closing(text, first, last) != last:
        return []
    return [(first, first + 1), (last, last + 1)]


_NAME = on_first_use(r"[A-Za-z_]\w*")


def _closing(text: str, start: int, stop: int) -> int:
    """Where the ``(`` at ``start`` closes, looking no further than ``stop``; -1 where not."""
    depth = 0
    for m in _CALL_TOKENS().finditer(text, start, stop + 1):
        mark = m.group("mark")
        if mark in ("(", "[", "{"):
            depth += 1
        elif mark in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _opens_declaration(text: str, start: int, quiet_end: int, quiet_open: bool) -> bool:
    """Whether a declaration may start at ``start``: nothing but blanks before it, or ``;``
    or a brace, or the comment or directive that ends at ``quiet_end`` (``quiet_open``: whether
    one may start after that)."""
    k = start - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return True
    if k == quiet_end - 1:
        return quiet_open
    return text[k] in ";{}"


# How far an operand's parenthesized expression is looked for its end.
_OPERAND_REACH = 512


def _constraint_operand(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The range to leave out for the operand whose constraint is the word at
    ``[start, end)``: the word, its parenthesized expression and the comma after it (else the
    one before it); None where the word does not stand so (after ``:`` or ``,``, before
    ``(``, and the ``)`` followed by ``,``, ``:`` or ``)``)."""
    at = end
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    if at >= len(text) or text[at] != "(":
        return None
    k = start - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0 or text[k] not in ":,":
        return None
    depth = 0
    for close in range(at, min(len(text), at + _OPERAND_REACH)):
        c = text[close]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        elif c in "\";{}":
            return None  # a literal or a statement's punctuation: not a plain operand
    else:
        return None
    after = close + 1
    while after < len(text) and text[after] in " \t\r\n":
        after += 1
    if after >= len(text) or text[after] not in ",:)":
        return None
    if text[after] == ",":
        return start, after + 1
    return (k if text[k] == "," else start), close + 1


def _may_precede(text: str, start: int) -> bool:
    """Whether what comes before ``start`` (blanks aside) may end what a declaration's
    specifiers follow: nothing, a word that makes no operand of what follows, or one of
    ``_BEFORE`` that is not part of ``::``, ``->`` or a single ``]``."""
    k = start - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return True
    last = text[k]
    if last == "_" or last.isalnum():
        word = _WORD_BEFORE().search(text, max(0, k - 31), k + 1)
        return word is None or word.group() not in _EXPRESSION_WORDS
    if last not in _BEFORE:
        return False
    before = text[k - 1] if k else ""
    if last == ":":
        return before != ":"
    if last == ">":
        return before != "-"
    if last == "]":
        return before == "]"
    return True
