"""The preprocessor conditions an asm statement is compiled under.

Read line by line rather than from tree-sitter's tree, whose ``#if`` nesting goes astray in
headers where a branch holds half a declaration (cuda_bf16.hpp): the ``#if``/``#elif``/``#else``
branches around a statement, outermost first (``!(c)`` for the branches after ``c``), plus the
condition of an enclosing CCCL ``NV_IF_TARGET``/``NV_IF_ELSE_TARGET``/``NV_DISPATCH_TARGET``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from ptxlint import file_memos
from ptxlint.frontends.cxx.lexer import BlockComments, DirectiveLines, block_comments
from ptxlint.lazy_regex import on_first_use

# ----------------------------------------------------------------------------- NV_IF_TARGET

# Starts with its literal, so that the regex engine skips to each "NV_"; the word boundary
# before it is checked per match (a leading ``\b`` made it try every character).
_NV_CALL = on_first_use(r"(NV_(?:IF_TARGET|IF_ELSE_TARGET|DISPATCH_TARGET))\s*\(")
_WORD_CHAR = on_first_use(r"\w")
# What ``_nv_calls`` acts on inside a call; the rest of an argument is skipped in one search, not
# a character at a time (the scan's Python loop was a third of the CUDA headers' guard reading).
_CALL_SYNTAX = on_first_use(r"[\"'()\[\]{},]")
_NV_COND = on_first_use(r"^\s*(NV_PROVIDES_SM|NV_IS_EXACTLY_SM|NV_HAS_FEATURE_SM)_(\d+)([af]?)\s*$")
_NV_SIMPLE = {
    "NV_IS_DEVICE": "defined(__CUDA_ARCH__)",
    "NV_IS_HOST": "!defined(__CUDA_ARCH__)",
    "NV_ANY_TARGET": "1",
    "NV_NO_TARGET": "0",
}


def _nv_condition(text: str) -> str:
    text = text.strip()
    if text in _NV_SIMPLE:
        return _NV_SIMPLE[text]
    m = _NV_COND().match(text)
    if m is None:
        return "__CUDA_ARCH__ && __ptxlint_unknown_target__"  # undecidable: never "compiled"
    kind, number, suffix = m.groups()
    if kind == "NV_PROVIDES_SM":
        return f"__CUDA_ARCH__ >= {number}0"
    if kind == "NV_IS_EXACTLY_SM":
        return f"__CUDA_ARCH__ == {number}0"
    return f"defined(__CUDA_ARCH_FEAT_SM{number}_ALL)"


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class _NvCall:
    """An ``NV_IF_TARGET``-style call in the file: which macro, where, and its argument spans."""

    __slots__ = ("name", "start", "args")

    def __init__(self, name: str, start: int, args: tuple[tuple[int, int], ...]) -> None:
        self.name = name
        self.start = start  # the macro name
        self.args = args  # top-level argument spans


def _nv_calls(text: str) -> list[_NvCall]:
    """Every ``NV_IF_*TARGET`` call of the file with its argument spans, in text order: what
    ``_split_call`` reads from each call's ``(``, for all of them in one pass over the text
    (reading each call to its end read nested calls once per level: 2,000 deep took 5 s). A
    call whose ``(`` an enclosing call reads as inside a literal is read alone."""
    word = _WORD_CHAR().match
    matches = [
        m for m in _NV_CALL().finditer(text) if not (m.start() > 0 and word(text, m.start() - 1))
    ]
    if not matches:
        return []
    opener = {m.end() - 1: k for k, m in enumerate(matches)}
    found: list[list[tuple[int, int]] | None] = [None] * len(matches)
    reached = [False] * len(matches)
    # the brackets open at the scan: [call index, its current argument's start, its arguments]
    # for a call's own "(", [-1, 0, []] for any other
    stack: list[list[Any]] = []
    n = len(text)
    following = 0  # the first call whose "(" the scan has not passed
    i = 0
    significant = _CALL_SYNTAX().search
    while True:
        if not stack:  # outside every call: on to the next one's "("
            while following < len(matches) and matches[following].end() - 1 < i:
                following += 1
            if following == len(matches):
                break
            i = matches[following].end() - 1
        else:  # inside one: on to the next character the scan acts on
            m = significant(text, i)
            i = m.start() if m is not None else n
        if i >= n:
            break
        c = text[i]
        if c == '"' or c == "'":
            i = _skip_literal(text, i)
            continue
        if c in "([{":
            k = opener.get(i, -1)
            if k >= 0:
                reached[k] = True
            stack.append([k, i + 1, []])
        elif c in ")]}":
            frame = stack.pop()
            if frame[0] >= 0:
                frame[2].append((frame[1], i))
                found[frame[0]] = frame[2]
        elif c == "," and stack[-1][0] >= 0:
            frame = stack[-1]
            frame[2].append((frame[1], i))
            frame[1] = i + 1
        i += 1
    calls = []
    for k, m in enumerate(matches):
        args = found[k] if reached[k] else _split_call(text, m.end(), m.end())
        if args is not None:
            calls.append(_NvCall(m.group(1), m.start(), tuple(args)))
    return calls


def _nesting(calls: list[_NvCall]) -> tuple[list[int], list[int]] | None:
    """For each call (in text order), the index of the innermost call whose span (its name to
    its closing parenthesis) holds it, or -1, and the call that holds it ``MAX_NESTING``
    levels deep (itself at that depth), or -1 within that depth; None where two spans overlap
    without one holding the other (text the calls were misread from): callers scan them all."""
    parents: list[int] = []
    capped: list[int] = []
    stack: list[int] = []
    for i, call in enumerate(calls):
        while stack and calls[stack[-1]].args[-1][1] <= call.start:
            stack.pop()
        if stack and call.args[-1][1] > calls[stack[-1]].args[-1][1]:
            return None
        parent = stack[-1] if stack else -1
        parents.append(parent)
        if len(stack) + 1 == MAX_NESTING:
            capped.append(i)
        else:
            capped.append(capped[parent] if len(stack) >= MAX_NESTING else -1)
        stack.append(i)
    return parents, capped


def _nv_guards(text: str, calls: list[_NvCall], start: int, end: int) -> tuple[str, ...]:
    """Conditions of the ``NV_IF_*TARGET`` calls whose arguments hold ``[start, end)``."""
    guards: list[str] = []
    for call in calls:  # the calls that open before `start`
        args = call.args
        if not args or args[-1][1] < end:
            continue
        for i, (a, b) in enumerate(args):
            if a <= start and end <= b:
                if i == 0:
                    break
                if call.name == "NV_DISPATCH_TARGET":
                    if i % 2 == 1:
                        guards.append(_nv_condition(text[args[i - 1][0] : args[i - 1][1]]))
                    break
                condition = _nv_condition(text[args[0][0] : args[0][1]])
                guards.append(condition if i == 1 else f"!({condition})")
                break
    return tuple(guards)


def _split_call(text: str, pos: int, must_pass: int) -> list[tuple[int, int]] | None:
    """Top-level argument spans of a call whose ``(`` ends at ``pos``; ``None`` when the call
    closes before ``must_pass``."""
    depth = 0
    args: list[tuple[int, int]] = []
    begin = pos
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _skip_literal(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if i < must_pass:
                    return None
                args.append((begin, i))
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append((begin, i))
            begin = i + 1
        i += 1
    return None


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    n = len(text)
    while i < n and text[i] != quote and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return i + 1


# ----------------------------------------------------------------------------- #if blocks

_DIRECTIVE = on_first_use(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_COMMENT = on_first_use(r"/\*.*?\*/|//.*$")
# Conditions read around a statement: the outermost MAX_NESTING levels of nested #if blocks,
# and in a branch after an #elif chain the first MAX_ELIFS conditions negated. Past either,
# the conditions stand as one UNREAD name: unknown, like any macro ptxlint cannot see, so
# the statement is linted and nothing depends on them. Each statement's guards are a tuple of
# its own, so without a cap 10,000 nested #if blocks with an asm in each (or an #elif chain as
# long) took the square of that. C requires 63 levels of nesting; code stays far below both.
MAX_NESTING = 256
MAX_ELIFS = 256
UNREAD = "__ptxlint_unread_conditions__"


def unread_note(guards: Iterable[tuple[str, ...]]) -> str | None:
    """The note for a file where some statement's guards (of ``guards``) were cut at
    ``MAX_NESTING`` (#if blocks, NV_IF_*TARGET calls) or ``MAX_ELIFS``, or None."""
    if not any(UNREAD in g for g in guards):
        return None
    return (f"#if blocks or NV_IF_TARGET calls nested over {MAX_NESTING} deep, or #elif chains "
            f"over {MAX_ELIFS} long: the conditions past them are not read, and what depends "
            "on them is not reported")


# An #if block longer than this is a file-wide "minimum target for this header" guard, not a
# statement guard: the functions under it only reach ptxas when someone calls them.
LOCAL_GUARD_LINES = 300


class Branch(NamedTuple):
    """One branch of an ``#if``/``#elif``/``#else`` block: the lines it covers and the conditions
    that hold inside it. A named tuple: a file's branches are made in one pass over its
    directives (CUTLASS include/'s asm files: 7,800 of them), a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__``."""

    start: int  # offset of the branch's first line
    end: int  # offset of the next #elif/#else/#endif
    block_lines: int  # lines from #if to #endif
    conditions: tuple[str, ...]  # what holds inside the branch


_BRANCH_START, _BRANCH_END = operator.itemgetter(0), operator.itemgetter(1)


def _branches(text: str, hidden: BlockComments | None = None) -> list[Branch]:
    """Every branch of every #if block, read line by line (continuations joined). The
    condition of an ``#elif``, ``#if``, ``#ifdef`` or ``#ifndef`` is read as
    ``_read_directive`` reads it, here, where each directive of the file passes. ``hidden``:
    the text's ``block_comments``, where the caller has them.

    A block's lines are counted from its ``#if`` to its ``#endif`` only: the line breaks
    between two blocks none encloses (most of a header whose include guard is ``#pragma
    once``) are never counted, where counting every directive's line number counted all the
    text up to the last directive."""
    out: list[Branch] = []
    stack: list[_Block] = []
    lines = _directive_lines(text, hidden)
    comment = _COMMENT().sub
    count = text.count
    newlines = 0  # line breaks from ``counted`` on, while a block is open
    counted = 0
    for start, offset, m in lines:
        kind = m.group(1)
        if kind == "endif":
            if stack:
                newlines += count("\n", counted, start)
                counted = start
                block = stack.pop()
                branches = block.branches
                b_start, _, b_conds = branches[-1]
                branches[-1] = (b_start, start, b_conds)
                size = newlines - block.if_line
                out += [Branch(b0, b1, size, c) for b0, b1, c in branches]
            continue
        if kind == "else":
            cond = ""
        else:
            cond = m.group(2)
            cond = (comment(" ", cond) if "/" in cond else cond).strip()
            if kind == "ifdef":
                cond = f"defined({cond})"
            elif kind == "ifndef":
                cond = f"!defined({cond})"
        if kind != "elif" and kind != "else":  # if, ifdef, ifndef
            # a block's size is the line breaks between its #if and its #endif: counted on
            # from an open block's last #if or #endif, and afresh from an outermost #if
            newlines = newlines + count("\n", counted, start) if stack else 0
            counted = start
            stack.append(_Block(newlines, [cond], [(offset, -1, (cond,))], []))
            continue
        if not stack:
            continue
        block = stack[-1]
        branches = block.branches
        b_start, _, b_conds = branches[-1]
        branches[-1] = (b_start, start, b_conds)
        branches.append((offset, -1, _next_branch(block, kind, cond)))
    return out


# Whether a text has a backslash-newline, and names an ``NV_`` macro: the answers of ``in``,
# from the regex engine's literal search, which is the faster of the two on source text (over
# the asm files of the CUDA 13 headers and CUTLASS include/, 13.6 MB: 11.1 -> 6.7 ms, and
# 9.8 -> 6.4 ms, best of 5).
_CONTINUED = on_first_use(r"\\\n")
_NV = re.compile("NV_")


def _continued(text: str) -> bool:
    return _CONTINUED().search(text) is not None


def _directive_lines(
    text: str, hidden: BlockComments | None = None
) -> Iterator[tuple[int, int, re.Match[str]]]:
    """The conditional directives of ``text`` (``_conditional_lines``), outside its block
    comments (``hidden``, read here where the caller has not)."""
    if hidden is None:
        hidden = block_comments(text)
    if _continued(text):
        return _conditional_lines(text, hidden)
    return _plain_conditional_lines(text, hidden)


def _conditional_lines(
    text: str, hidden: BlockComments | None = None
) -> Iterator[tuple[int, int, re.Match[str]]]:
    """The logical lines (continuations joined) that ``_DIRECTIVE`` matches, in text order:
    (start, start of the next line, match), but for those whose `#`
    lies in one of ``hidden`` (a block comment: no directive). Only lines with a `#` are
    joined and matched: each `#` is found with ``str.find``, not by splitting every line."""
    find = text.find
    n = len(text)
    hides = hidden.hides if hidden else None  # (its truth is a Python call: asked once)
    at = find("#")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if text[start:at].strip(" \t") or (hides is not None and hides(at)):
            at = find("#", at + 1)  # after code on its line, or commented out: not a directive
            continue
        # the logical line's start: back over continued lines that are blank so far
        while start >= 2 and text[start - 2] == "\\":
            before = text.rfind("\n", 0, start - 1) + 1
            if text[before : start - 2].strip(" \t"):
                break
            start = before
        else:
            end = find("\n", start)
            if end < 0:
                end = n
            line = text[start:end]
            while line.endswith("\\") and end < n:
                following = find("\n", end + 1)
                if following < 0:
                    following = n
                line = line[:-1] + " " + text[end + 1 : following]
                end = following
            m = _DIRECTIVE().match(line)
            if m is not None:
                yield start, end + 1, m
            at = find("#", end + 1) if end < n else -1
            continue
        at = find("#", at + 1)  # inside a logical line with code before it


# ``_DIRECTIVE`` from its `#` on, multi-line: a pattern that starts with its literal is searched
# from one `#` to the next, where a `^`-anchored one was tried at every character of the text.
_DIRECTIVE_FROM_HASH = on_first_use(r"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$",
                                    re.MULTILINE)


def _plain_conditional_lines(
    text: str, hidden: BlockComments | None = None
) -> Iterator[tuple[int, int, re.Match[str]]]:
    """``_conditional_lines(text, hidden)`` for a text with no backslash-newline, where every
    physical line is a logical one: one regex scan from `#` to `#`, each kept where only blanks
    precede it on its line (what ``_DIRECTIVE`` anchored at the line's start matches; its
    groups are the same). On the asm-bearing files of the CUDA 13 headers and CUTLASS
    include/ together: 59 ms with the anchored multi-line scan, 20 ms so."""
    rfind = text.rfind
    hides = hidden.hides if hidden else None  # (its truth is a Python call: asked once)
    for m in _DIRECTIVE_FROM_HASH().finditer(text):
        at = m.start()
        start = rfind("\n", 0, at) + 1
        if start != at and text[start:at].strip(" \t"):
            continue  # after code on its line: not a directive
        if hides is not None and hides(at):
            continue  # inside a block comment
        yield start, m.end() + 1, m


# A plain class too (see _NvCall's comment).
class _Block:
    """An ``#if`` block still open while a file's directives are read: its branches so far."""

    __slots__ = ("if_line", "previous", "branches", "negated")

    def __init__(
        self, if_line: int, previous: list[str], branches: list[tuple[int, int, tuple[str, ...]]],
        negated: list[str],
    ) -> None:
        self.if_line = if_line  # line breaks before its #if, from where ``_branches`` counts them
        self.previous = previous  # conditions of the #if and #elifs so far
        self.branches = branches  # (start, end or -1, conditions)
        self.negated = negated  # ``previous`` negated, made once when an #elif/#else needs them


def _read_directive(m: re.Match[str]) -> tuple[str, str]:
    """A conditional directive's kind and the condition it states (``#ifdef X``:
    ``defined(X)``); what follows #else and #endif is never read."""
    kind = m.group(1)
    if kind == "endif" or kind == "else":
        return kind, ""
    rest = m.group(2)
    rest = (_COMMENT().sub(" ", rest) if "/" in rest else rest).strip()
    if kind == "ifdef":
        return kind, f"defined({rest})"
    if kind == "ifndef":
        return kind, f"!defined({rest})"
    return kind, rest


def _next_branch(block: _Block, kind: str, cond: str) -> tuple[str, ...]:
    """The conditions of the branch an ``#elif cond`` or ``#else`` opens in ``block``: every
    earlier branch's negated (made when a branch first needs them, cut at ``MAX_ELIFS``), then
    the #elif's own."""
    made = block.negated
    if len(made) < len(block.previous):
        made.extend(f"!({c})" for c in block.previous[len(made) :])
    negated = tuple(made[:MAX_ELIFS])
    if len(made) > MAX_ELIFS:
        negated += (UNREAD,)
    if kind != "elif":
        return negated
    block.previous.append(cond)
    return negated + (cond,)


def _conditions_around(
    text: str, offset: int, hidden: BlockComments | None = None
) -> tuple[str, ...]:
    """The #if conditions around ``offset`` as ``FileGuards.at`` reads them from the index of
    every branch (``_branches``, ``_around``), from a walk of the directives up to ``offset``
    and on only to the ``#endif`` of the blocks open there: the current branch's conditions
    of each block open at ``offset`` that an ``#endif`` closes (``_branches`` leaves out a
    block never closed), outermost first, cut at ``MAX_NESTING`` blocks."""
    stack: list[_Block] = []  # ``branches`` holds the current branch only
    lines = _directive_lines(text, hidden)
    beyond = None  # the first directive past ``offset``
    for line in lines:
        start, after, m = line
        if start > offset:
            beyond = line
            break
        kind, cond = _read_directive(m)
        if kind in ("if", "ifdef", "ifndef"):
            stack.append(_Block(0, [cond], [(after, -1, (cond,))], []))
            continue
        if not stack:
            continue
        block = stack[-1]
        if kind == "endif":
            stack.pop()
            continue
        block.branches[0] = (after, -1, _next_branch(block, kind, cond))
    # the blocks open at ``offset`` close innermost first: count levels to each one's #endif
    unclosed = level = len(stack)
    if beyond is not None and unclosed:
        for _, _, m in itertools.chain((beyond,), lines):
            kind = m.group(1)
            if kind in ("if", "ifdef", "ifndef"):
                level += 1
            elif kind == "endif":
                level -= 1
                if level < unclosed:
                    unclosed = level
                    if not unclosed:
                        break
    chain = stack[unclosed:]
    if chain and chain[-1].branches[0][0] > offset:
        chain.pop()  # ``offset`` is on the block's own directive line: outside its branches
    if len(chain) > MAX_NESTING:
        return tuple(c for b in chain[:MAX_NESTING] for c in b.branches[0][2]) + (UNREAD,)
    return tuple(c for b in chain for c in b.branches[0][2])


# a chain of #if branches, outermost first, with all its guards and its local ones
_Around = tuple[tuple[Branch, ...], tuple[str, ...], tuple[str, ...]]


class FileGuards:
    """The guards of one file: its #if blocks and NV_IF_*TARGET calls are read once, and a
    query walks up the (nested) branches around the offset instead of scanning them all."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._branches: list[Branch] | None = None
        self._starts: list[int] = []
        self._parents: list[int] = []
        self._depths: list[int] = []  # levels of #if around each branch, itself included
        self._capped: list[int] = []  # the enclosing branch MAX_NESTING levels deep, or -1
        # a climb's start (the branch before the offset) -> (offset, where the climb ended)
        self._climbs: dict[int, tuple[int, int]] = {}
        self._calls: list[_NvCall] | None = None
        self._call_starts: list[int] = []
        self._call_parents: tuple[list[int], list[int]] | None = None  # ``_nesting``
        self._call_climbs: dict[int, tuple[int, int]] = {}  # as ``_climbs``, over the calls
        self._arounds: dict[int, _Around] = {-1: ((), (), ())}
        self._last_start = self._last_innermost = -1
        self._walked = False  # ``conditions_at`` walked the directives once without indexing
        # Looked up once: `in` over a 2 MB generated file for every statement is quadratic.
        self._has_directives = "#" in text

    @functools.cached_property
    def directives(self) -> DirectiveLines:
        """The file's directive lines, for the scanners that ask where its ``#error`` lines
        are (``ptx.targets``, ``host_code``) or whether an offset lies in a directive
        (``extract``)."""
        return DirectiveLines(self.text)

    @property
    def comments(self) -> BlockComments:
        """Read once (``directives.hidden``) for the walks of the directives
        (``conditions_at``, ``_index``), the file's own ``#define`` scan (``defines.collect``)
        and its other directive scanners."""
        return self.directives.hidden

    @functools.cached_property
    def _has_nv_calls(self) -> bool:
        """Looked up once, when first needed (2 ms over a 2.8 MB header)."""
        return _NV.search(self.text) is not None

    def _index(self) -> list[Branch]:
        branches = self._branches
        if branches is None:
            # by start, the longer first where two start alike: two stable sorts by C keys
            branches = _branches(self.text, self.comments)
            branches.sort(key=_BRANCH_END, reverse=True)
            branches.sort(key=_BRANCH_START)
            parents: list[int] = []
            depths: list[int] = []
            capped: list[int] = []
            stack: list[int] = []
            for i, branch in enumerate(branches):
                while stack and branches[stack[-1]].end <= branch.start:
                    stack.pop()
                parent = stack[-1] if stack else -1
                parents.append(parent)
                depths.append(len(stack) + 1)
                if len(stack) + 1 == MAX_NESTING:
                    capped.append(i)
                else:
                    capped.append(capped[parent] if len(stack) >= MAX_NESTING else -1)
                stack.append(i)
            self._parents, self._depths, self._capped = parents, depths, capped
            self._starts = [b.start for b in branches]
            self._branches = branches  # last: the index is whole once this is set
        return branches

    def innermost(self, start: int) -> int:
        """The index of the innermost #if branch around offset ``start`` (-1: none): it
        decides the whole chain (``_around``). The last query is remembered, for
        ``GuardMacros.at`` asks right after ``at`` about the same statement."""
        if not self._has_directives:
            return -1
        if start == self._last_start:
            return self._last_innermost
        branches = self._index()
        first = i = bisect.bisect_right(self._starts, start) - 1
        climbed = self._climbs.get(first)
        if climbed is not None and climbed[0] <= start:
            # the branches an earlier climb from here passed end before that offset: before
            # this one too (a statement after a block nested 100,000 deep climbs it once)
            i = climbed[1]
        while i >= 0 and branches[i].end <= start:
            i = self._parents[i]
        if first >= 0:
            self._climbs[first] = (start, i)
        self._last_start, self._last_innermost = start, i
        return i

    def _around(self, innermost: int) -> _Around:
        """The chain ending at branch ``innermost`` and its guards (all, and local), once per
        branch: the statements of one branch share them. Each branch's is its parent's with
        its own conditions added, the parent's read from the memo (the asm of CUTLASS's
        ``include/`` stands in 3,100 branches of its own under a few shared ones, each
        chain was walked and its conditions joined again from the outermost)."""
        arounds = self._arounds
        found = arounds.get(innermost)
        if found is not None:
            return found
        if self._depths[innermost] > MAX_NESTING:
            chain_, every_, local_ = self._around(self._capped[innermost])
            found = arounds[innermost] = (chain_, every_ + (UNREAD,), local_ + (UNREAD,))
            return found
        branches, parents = self._index(), self._parents
        path = []  # the branches from ``innermost`` up to the first one known (-1 always is)
        i = innermost
        while i not in arounds:
            path.append(i)
            i = parents[i]
        chain, every, local = arounds[i]
        for i in reversed(path):  # outermost first: each extends its parent's
            branch = branches[i]
            chain = (*chain, branch)
            every += branch.conditions
            if branch.block_lines <= LOCAL_GUARD_LINES:
                local += branch.conditions
            found = arounds[i] = (chain, every, local)
        assert found is not None
        return found

    def branch_after(self, start: int) -> Branch | None:
        """The first #if branch that starts after offset ``start`` (the first line after the
        next conditional directive, where an ``#endif`` closes its block), or None."""
        if not self._has_directives:
            return None
        branches = self._index()
        i = bisect.bisect_right(self._starts, start)
        return branches[i] if i < len(branches) else None

    def unread(self, start: int) -> bool:
        """Whether the #if blocks around offset ``start`` nest deeper than ``MAX_NESTING``
        (``chain`` stops there)."""
        innermost = self.innermost(start)
        return innermost >= 0 and self._depths[innermost] > MAX_NESTING

    def chain_end(self, innermost: int) -> int:
        """The last branch of ``chain`` at an offset whose innermost branch is ``innermost``:
        itself, or the one ``MAX_NESTING`` levels deep where the branches nest deeper."""
        if innermost >= 0 and self._depths[innermost] > MAX_NESTING:
            return self._capped[innermost]
        return innermost

    def parent(self, index: int) -> int:
        """The branch around branch ``index`` (an index of the file's branches), or -1."""
        return self._parents[index]

    def branch(self, index: int) -> Branch:
        return self._index()[index]

    def chain(self, start: int) -> list[Branch]:
        """The #if branches around offset ``start``, outermost first."""
        return list(self._around(self.innermost(start))[0])

    def at(self, start: int, end: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """All guards of ``[start, end)``, and the same without file-wide #if blocks
        (longer than :data:`LOCAL_GUARD_LINES` lines)."""
        _, every, local = self._around(self.innermost(start))
        extra = self._nv_extra(start, end) if self._has_nv_calls else ()
        return every + extra, local + extra

    def conditions_at(self, offset: int) -> tuple[str, ...]:
        """``at(offset, offset + 1)[0]``: all guards of the line at ``offset`` (a directive's:
        a header's ``#define``, an ``#error``). The first such question of a file whose
        branches are not indexed yet is answered by a walk of its directives up to
        ``offset`` and on to the ``#endif`` of the blocks open there (``_conditions_around``),
        not by indexing every branch of the file: a header is asked about one or two of its
        definitions (CUTLASS's three GMMA headers, 6.5 MB with 6,600 directives, each about
        the ``#define`` at its top: their definitions' guards took 37 ms of the run's CPU,
        12 ms so, most of it reading them again; every header definition's guards over
        CUTLASS ``include/`` 36-37.5 ms, 16-16.5 ms so, three runs each). A second question
        indexes the file as ``at`` does."""
        if self._branches is None and self._has_directives and not self._walked:
            self._walked = True
            every = _conditions_around(self.text, offset, self.comments)
            if self._calls is None and self.text.find("NV_", 0, offset) < 0:
                # no call starts before the offset, so none holds it: the whole text is not
                # searched for one (2 ms over a GMMA header, for a #define at its top)
                return every
        else:
            every = self._around(self.innermost(offset))[1]
        return every + self._nv_extra(offset, offset + 1) if self._has_nv_calls else every

    def _nv_extra(self, start: int, end: int) -> tuple[str, ...]:
        """The conditions of the ``NV_IF_*TARGET`` calls whose arguments hold ``[start, end)``
        (and ``UNREAD`` where they nest past ``MAX_NESTING``)."""
        text = self.text
        if self._calls is None:
            self._calls = _nv_calls(text)
            self._call_starts = [c.start for c in self._calls]
            self._call_parents = _nesting(self._calls)
        before = bisect.bisect_left(self._call_starts, start)
        cut = False
        if self._call_parents is None:
            calls = self._calls[:before]
        else:
            calls, cut = self._open_calls(before - 1, end)
        return _nv_guards(text, calls, start, end) + ((UNREAD,) if cut else ())

    def _open_calls(self, last: int, end: int) -> tuple[list[_NvCall], bool]:
        """Of the calls that start before a statement (``last``: the last of them), those
        that reach its ``end``, in text order, and whether more were left out: where the
        calls nest, the innermost that reaches ``end`` and the calls around it, the outermost
        ``MAX_NESTING`` of them (a scan of every call before each statement was quadratic)."""
        calls, nesting = self._calls, self._call_parents
        assert calls is not None and nesting is not None
        parents, capped = nesting
        i = last
        climbed = self._call_climbs.get(last)
        if climbed is not None and climbed[0] <= end:
            i = climbed[1]  # the calls passed then end before that end: before this one too
        while i >= 0 and calls[i].args[-1][1] < end:
            i = parents[i]
        if last >= 0:
            self._call_climbs[last] = (end, i)
        cut = i >= 0 and capped[i] >= 0 and capped[i] != i
        if cut:
            i = capped[i]
        found = []
        while i >= 0:
            found.append(calls[i])
            i = parents[i]
        found.reverse()
        return found, cut


def guards_of(text: str) -> FileGuards:
    """The :class:`FileGuards` of ``text``, shared by everything that asks about one file's
    directives: the statements' guards (extraction), the ``#if`` guards of the file's own
    definitions (``defines``), its ``#error`` lines (``ptx.targets``, ``host_code``) and its
    include guard (``analysis.include_guard``) read one walk of its conditional directives,
    where each made its own (over the CUDA 13 headers' run, walks of #if blocks took 26-29
    ms of CPU and of ``NV_IF_TARGET`` calls 16-17 ms; 23-25 and 8 ms so, three runs each).
    Kept by identity for the last few texts; ``file_memos.release`` forgets them."""
    for known in _RECENT:
        if known.text is text:
            return known
    made = FileGuards(text)
    _RECENT.insert(0, made)
    del _RECENT[_RECENT_KEPT:]
    return made


_RECENT: list[FileGuards] = []
_RECENT_KEPT = 4
file_memos.register(_RECENT.clear)
