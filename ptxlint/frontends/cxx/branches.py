"""A statement with ``#if`` inside its argument list or template, split into one statement per
preprocessor branch.

::

    asm volatile("{\\n"
    #if defined(USE_FP8)
                 "cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;\\n"
    #else
                 "cvt.rn.f16x2.f32 %0, %2, %1;\\n"
    #endif
                 "}" : "=r"(out) : "f"(a), "f"(b));

is two statements: one under ``defined(USE_FP8)``, one under ``!(defined(USE_FP8))``. Each
keeps the exact positions of its tokens; its branch conditions are added to its guards.
"""

from __future__ import annotations

import itertools
import re

from ptxlint.frontends.cxx.lexer import Token
from ptxlint.lazy_regex import on_first_use

# More variants than this are not linted (a statement with five independent #if blocks is
# listed as skipped rather than read 32 times).
MAX_VARIANTS = 16

_DIRECTIVE = on_first_use(r"#\s*(\w*)(.*)", re.S)
_COMMENT = on_first_use(r"/\*.*?\*/|//[^\n]*", re.S)
_CONDITIONAL = {"if", "ifdef", "ifndef", "elif", "else", "endif"}
# Directives that change nothing the statement means.
_HARMLESS = {"pragma", "line", "error", "warning", ""}
# ``defined X`` and ``defined ( X )`` are ``defined(X)``; a term a leading ``!`` negates whole
_DEFINED = on_first_use(r"\bdefined\s*(?:\(\s*(\w+)\s*\)|\s(\w+))")
_SINGLE_TERM = on_first_use(r"defined\(\w+\)|\w+")


class BranchError(Exception):
    """The statement's directives cannot be split into branches exactly."""


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Variant:
    """One reading of a statement with ``#if`` inside: the tokens of one branch choice, and the
    conditions that choose it."""

    __slots__ = ("tokens", "conditions")

    def __init__(self, tokens: tuple[Token, ...], conditions: tuple[str, ...]) -> None:
        self.tokens = tokens
        self.conditions = conditions  # what holds in this variant, outermost first


class _Group:
    """An ``#if`` group being read in a statement's tokens: its branches so far, each with its
    conditions and its tokens and nested groups."""

    __slots__ = ("branches", "previous", "has_else")

    def __init__(
        self, branches: list[tuple[tuple[str, ...], list[object]]], previous: list[str],
        has_else: bool = False,
    ) -> None:
        self.branches = branches  # (conditions, items)
        self.previous = previous  # conditions of the #if and #elifs so far
        self.has_else = has_else


def _directive(tok: Token) -> tuple[str, str]:
    m = _DIRECTIVE().match(tok.text)
    if m is None:
        return "", ""
    rest = _COMMENT().sub(" ", m.group(2)).replace("\\\r\n", " ").replace("\\\n", " ")
    return m.group(1), " ".join(rest.split())


def split(stream: list[Token]) -> list[Variant]:
    """Every combination of branches of the #if blocks in ``stream`` (directive tokens are
    ``kind == "directive"``); raises :class:`BranchError` when that is not exact."""
    root: list[object] = []
    stack: list[tuple[_Group, list[object]]] = []  # open groups and the list they sit in
    current = root
    for tok in stream:
        if tok.kind != "directive":
            current.append(tok)
            continue
        kind, rest = _directive(tok)
        if kind in _HARMLESS:
            continue
        if kind not in _CONDITIONAL:
            raise BranchError(f"#{kind} inside the statement")
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if":
                cond = rest
            else:
                cond = f"defined({rest})" if kind == "ifdef" else f"!defined({rest})"
            group = _Group([((cond,), [])], [cond])
            current.append(group)
            stack.append((group, current))
            current = group.branches[-1][1]
            continue
        if not stack:
            raise BranchError(f"#{kind} without its #if inside the statement")
        group, parent = stack[-1]
        if kind in ("elif", "else"):
            negated = tuple(f"!({c})" for c in group.previous)
            conds = negated + ((rest,) if kind == "elif" else ())
            if kind == "elif":
                group.previous.append(rest)
            else:
                group.has_else = True
            group.branches.append((conds, []))
            current = group.branches[-1][1]
            continue
        stack.pop()  # endif
        current = parent
    if stack:
        raise BranchError("#if not closed inside the statement")
    variants = _expand(root)
    if len(variants) > MAX_VARIANTS:
        raise BranchError(f"{len(variants)} combinations of #if branches (over {MAX_VARIANTS})")
    return [Variant(tuple(toks), conds) for toks, conds in variants]


def _expand(items: list[object]) -> list[tuple[list[Token], tuple[str, ...]]]:
    """All (tokens, conditions) alternatives of a list of tokens and groups."""
    parts: list[list[tuple[list[Token], tuple[str, ...]]]] = []
    run: list[Token] = []
    for item in items:
        if isinstance(item, Token):
            run.append(item)
            continue
        if run:
            parts.append([(run, ())])
            run = []
        assert isinstance(item, _Group)
        options: list[tuple[list[Token], tuple[str, ...]]] = []
        for conds, inner in item.branches:
            for toks, more in _expand(inner):
                options.append((toks, conds + more))
        if not item.has_else:  # no #else: the block may also contribute nothing
            options.append(([], tuple(f"!({c})" for c in item.previous)))
        parts.append(options)
        if _count(parts) > MAX_VARIANTS * 4:
            raise BranchError("too many combinations of #if branches")
    if run:
        parts.append([(run, ())])
    out = []
    for combo in itertools.product(*parts):
        joined: list[Token] = []
        holds: tuple[str, ...] = ()
        for t, c in combo:
            joined.extend(t)
            holds += c
        if not contradicts(holds):
            out.append((joined, holds))
    return out


def contradicts(conditions: tuple[str, ...]) -> bool:
    """Whether ``conditions`` ask one condition both to hold and not to hold: two ``#ifdef X``
    blocks in one statement take the same branch in every build (no ``#define`` can stand
    between them: :func:`split` refuses one), so "X in the first, not X in the second" is no
    build at all and its reading would be a second finding on code that never exists. Also
    asked of the guards of two places that one build must hold together
    (``analysis.cta_groups``)."""
    if len(conditions) < 2:
        return False
    seen: dict[str, bool] = {}
    for condition in conditions:
        key, holds = _literal(condition)
        if key is None:
            continue
        if seen.setdefault(key, holds) != holds:
            return True
    return False


def _literal(condition: str) -> tuple[str | None, bool]:
    """``condition`` as (its text without negations and spaces, whether it holds); None where
    it may change between two lines of one statement (``__LINE__``, ``__COUNTER__``)."""
    holds = True
    text = _DEFINED().sub(r"defined(\1\2)", condition).replace(" ", "")
    while True:
        if text.startswith("!(") and _closes_at_end(text, 1):
            text, holds = text[2:-1], not holds
        elif text.startswith("!") and _SINGLE_TERM().fullmatch(text, 1):
            text, holds = text[1:], not holds
        else:
            break
    if "__LINE__" in text or "__COUNTER__" in text:
        return None, holds
    return text, holds


def _closes_at_end(text: str, start: int) -> bool:
    """Whether the parenthesis at ``start`` closes at the last character of ``text``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i == len(text) - 1
    return False


def _count(parts: list[list[tuple[list[Token], tuple[str, ...]]]]) -> int:
    total = 1
    for p in parts:
        total *= len(p)
    return total
