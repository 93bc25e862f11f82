"""The ``#if`` groups whose branches hold half a brace pair, and what to leave out of the parse
so that tree-sitter reads the code around them.

tree-sitter's C and C++ grammars take a conditional group only where each branch is whole
declarations or statements. Real kernels open a block in one group and close it in another::

    #if (__CUDA_ARCH__ < 800)
      if constexpr (std::is_same_v<DTypeQ, nv_bfloat16>) { ... } else {
    #endif
        ...the kernel...
    #if (__CUDA_ARCH__ < 800)
      }
    #endif

or give one body two heads (``#ifdef X void f(a) { #else void f(a, b) { #endif``; or
``void`` ``#if X`` ``f(a)`` ``#else`` ``f(a, b)`` ``#endif`` ``{``, one declarator per branch
and the body after the group: ``_head_groups``). The error
recovery then puts the rest of the file in one ERROR node (flashinfer's attention/prefill.cuh,
4,534 lines; xqa/mha.cu), and no function there is seen by what reads functions from the tree
(function flows, value flow, the protocol rules).

Leaving out the directive lines of such a group and every branch but the one kept makes the
kept branch plain code, as the preprocessor does for one configuration; the groups are chosen so
that the braces of the whole file pair up again (else nothing is left out). The guards of a
statement are read from the text, line by line (``cxx.guards``), not from the tree, so no
statement loses its ``#if``. A branch holding an asm keyword is never left out: its statement
would then lie outside the tree.
"""

from __future__ import annotations

import re

from ptxlint.lazy_regex import on_first_use

__all__ = ["closes_before", "pairs_up", "split_conditionals"]

# Block and line comments, string and character literals (their braces are no braces), a
# directive's logical line (continuations included) with its name, and the braces themselves.
_TOKENS = on_first_use(
    rb"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    rb"|^[ \t]*#[ \t]*(\w*)(?:\\\r?\n|[^\n])*|[{}]",
    re.M | re.S,
)
_OPENS = frozenset((b"if", b"ifdef", b"ifndef"))
_ALTERNATIVES = frozenset((b"elif", b"else", b"elifdef", b"elifndef"))
# Where a conditional directive may be, for the first, rough look (``_counts_unpaired``):
# starting with its literal, the regex engine skips to each "#".
_ROUGH = on_first_use(rb"#[ \t]*(if|ifdef|ifndef|elif|else|elifdef|elifndef|endif)\b")
_ASM = on_first_use(rb"\b(?:asm|__asm|__asm__)\b")
# An ``#endif`` line followed by a block's ``{``: where a conditional group may end a
# declaration's head (``_head_groups``), for the first, rough look.
_HEAD_BEFORE_BODY = on_first_use(rb"#[ \t]*endif\b[^\n]*\n\s*\{")
# A directive's logical line, with its name.
_DIRECTIVE_LINE = on_first_use(rb"^[ \t]*#[ \t]*(\w*)(?:\\\r?\n|[^\n])*", re.M)
_BRACE = on_first_use(rb"[{}]")
_NEVER = on_first_use(rb"^[ \t]*#[ \t]*if[ \t]+0[ \t]*(?://.*|/\*.*)?$", re.M)


class _Branch:
    __slots__ = ("start", "depth", "low")

    def __init__(self, start: int) -> None:
        self.start = start  # the offset of its directive line
        self.depth = 0  # braces opened minus closed in it (kept nested groups included)
        self.low = 0  # the least depth it reached: below 0, it closes what it did not open


class _Group:
    __slots__ = ("branches", "directives")

    def __init__(self, start: int, end: int) -> None:
        self.branches = [_Branch(start)]
        self.directives = [(start, end)]  # the group's directive lines, #endif last


def split_conditionals(data: bytes) -> tuple[tuple[int, int], ...]:
    """The byte ranges to leave out of ``data``'s parse, sorted: for each conditional group a
    branch of which opens or closes a brace it does not pair (outside comments and literals), its
    directive lines and every branch but one (the first; the ``#else`` of ``#if 0``); none of
    them where there is none, or where the choice would not pair the file's braces. The groups
    that give a declaration alternative heads (``_head_groups``) are left out whatever the rest
    gives: they hold no brace."""
    if b"#" not in data or b"{" not in data:
        return ()
    heads = _head_groups(data) if _HEAD_BEFORE_BODY().search(data) else []
    if not _counts_unpaired(data):
        return tuple(heads)
    out: list[tuple[int, int]] = []
    stack: list[_Group] = []
    depth = low = 0  # the file's own, outside any group
    for m in _TOKENS().finditer(data):
        token = m.group()
        if token == b"{" or token == b"}":
            step = 1 if token == b"{" else -1
            if stack:
                branch = stack[-1].branches[-1]
                branch.depth += step
                branch.low = min(branch.low, branch.depth)
            else:
                depth += step
                low = min(low, depth)
            continue
        word = m.group(1)
        if word is None:
            continue  # a comment or a literal
        if word in _OPENS:
            stack.append(_Group(m.start(), m.end()))
        elif word in _ALTERNATIVES and stack:
            group = stack[-1]
            group.branches.append(_Branch(m.start()))
            group.directives.append((m.start(), m.end()))
        elif word == b"endif" and stack:
            group = stack.pop()
            group.directives.append((m.start(), m.end()))
            kept = _settle(data, group, out)
            if kept is None:
                return tuple(heads)
            if stack:
                outer = stack[-1].branches[-1]
                outer.low = min(outer.low, outer.depth + kept.low)
                outer.depth += kept.depth
            else:
                low = min(low, depth + kept.low)
                depth += kept.depth
    if stack or depth != 0 or low < 0 or not out:
        return tuple(heads)  # a head's groups hold no brace: they pair the file's alike
    # sorted; overlapping where a group lies in a branch left out (the parse joins them:
    # syntax_tree._merged)
    return tuple(sorted(out + heads))


def _settle(data: bytes, group: _Group, out: list[tuple[int, int]]) -> _Branch | None:
    """The branch that counts for the braces around ``group``: where every branch is whole,
    its first (all pair their braces); else the one kept, with the rest of the group added to
    ``out``. None where a branch to leave out holds an asm statement."""
    branches = group.branches
    whole = all(b.depth == 0 and b.low == 0 for b in branches)
    if whole:
        return branches[0]
    if len(branches) == 1:  # no #else: the group's absence is a branch too, an empty one
        branches.append(_Branch(group.directives[-1][0]))
    keep = len(branches) - 1 if _NEVER().match(data, group.directives[0][0]) else 0
    ends = [b.start for b in branches[1:]] + [group.directives[-1][0]]
    left: list[tuple[int, int]] = []
    for k, (branch, end) in enumerate(zip(branches, ends, strict=True)):
        if k == keep or branch.start == end:
            continue
        if _ASM().search(data, branch.start, end):
            return None
        left.append((branch.start, end))
    left.extend(d for d in group.directives if not any(s <= d[0] < e for s, e in left))
    out.extend(left)
    return branches[keep]


def _head_groups(data: bytes) -> list[tuple[int, int]]:
    """The byte ranges to leave out where conditional groups give one declaration alternative
    heads: after its specifiers (a word or ``)``: ``__global__ __launch_bounds__(256) void``)
    a group, nested groups in it allowed, whose branches hold declarators only (no brace, no
    ``;``), and the body's ``{`` right after its ``#endif``. flashinfer's generated kernels name
    the kernel and its parameters per configuration so; tree-sitter reads the declarators as
    one and puts the rest of the file in an ERROR node. Left out: every directive line of the
    group and every branch but the first one reached (the first branch of each group in it), as
    the preprocessor keeps one declarator. Only the text since the last brace or ``;`` before
    each ``#endif`` followed by a ``{`` is read: such a group holds neither."""
    out: list[tuple[int, int]] = []
    for m in _HEAD_BEFORE_BODY().finditer(data):
        line_end = data.find(b"\n", m.start())
        since = max(data.rfind(b"{", 0, m.start()), data.rfind(b"}", 0, m.start()),
                    data.rfind(b";", 0, m.start())) + 1
        opens: list[int] = []
        start = closed = -1
        for line in _DIRECTIVE_LINE().finditer(data, since, line_end):
            if line.group(1) in _OPENS:
                opens.append(line.start())
            elif line.group(1) == b"endif" and opens:
                start, closed = opens.pop(), line.end()
        if start < 0 or opens or closed != line_end:
            continue  # the #endif closes a group opened before the head (or is no directive)
        kept = _kept_head(data, start, line_end)
        if kept is not None:
            out.extend(((start, kept[0]), (kept[1], line_end)))
    return out


def _kept_head(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The declarator kept of the group from ``start`` (its ``#if`` line) to ``end`` (the end of
    its ``#endif`` line), as ``(start, end)``, where the group is alternative heads
    (``_head_groups``); None otherwise."""
    group = data[start:end]
    if b"{" in group or b"}" in group or b";" in group or _ASM().search(group):
        return None  # (an asm keyword: its statement must stay in the tree)
    before = data[max(0, start - 256):start].rstrip()
    if not before or not (before[-1:].isalnum() or before[-1:] in (b"_", b")")):
        return None
    if not data[end:end + 256].lstrip().startswith(b"{"):
        return None
    lines = _DIRECTIVE_LINE().finditer(data, start, end)
    at, alternatives, first = start, 0, None
    for line in lines:
        if first is None and line.start() > at and data[at:line.start()].strip():
            first = (at, line.start())
        if line.group(1) in _ALTERNATIVES:
            alternatives += 1
        at = line.end()
    return first if alternatives and first is not None else None


def closes_before(data: bytes, start: int, end: int) -> bool:
    """The block whose ``{`` is at ``start`` may close before ``end``: a conditional directive
    lies between, and counting the braces of every branch (comments, literals and directive
    lines aside) closes it on the way. ``if (c) {`` ``#if X`` ``}`` ``{ ... }`` ``#endif`` ``}``
    puts the second block inside the ``if`` in tree-sitter's reading, outside it wherever X
    holds: which one compiles the text does not say."""
    return _ROUGH().search(data, start, end) is not None and _closed_at(data, start, end) != -1


def pairs_up(data: bytes, start: int, end: int) -> bool:
    """The block from the ``{`` at ``start`` to the ``}`` just before ``end`` is one block
    counting the braces of every branch: none closes it early, none is left open. Where an
    ``#if`` gives a body two heads or a branch closes a block, tree-sitter's block may end
    elsewhere than the code's."""
    return _closed_at(data, start, end) == end


def _closed_at(data: bytes, start: int, end: int) -> int:
    """Where the block opened at ``start`` closes, counting every brace before ``end`` (the
    end of the closing ``}``), or -1 where it stays open."""
    depth = 0
    for m in _TOKENS().finditer(data, start, end):
        token = m.group()
        if token == b"{":
            depth += 1
        elif token == b"}":
            depth -= 1
            if depth <= 0:
                return m.end()
    return -1


def _counts_unpaired(data: bytes) -> bool:
    """Whether some branch of a conditional group has more of one brace than of the other,
    counted roughly (comments, literals and a "#" inside them included): the exact scan runs
    only where this says so. Over the asm files of the CUDA headers and CUTLASS, whose trees
    all have some error, it costs a sixteenth of the exact scan and passes 4 files of 175."""
    stack: list[list[int]] = []
    at = 0
    for m in _ROUGH().finditer(data):
        if stack:
            closes = data.count(b"}", at, m.start())
            if closes and stack[-1][-1] == 0 and (
                    first := _BRACE().search(data, at, m.start())) is not None \
                    and first.group() == b"}":
                return True  # the branch closes a block it did not open (``} else {``)
            stack[-1][-1] += data.count(b"{", at, m.start()) - closes
        at = m.start()
        word = m.group(1)
        if word in _OPENS:
            stack.append([0])
        elif word == b"endif":
            if stack and any(stack.pop()):
                return True
        elif stack:
            stack[-1].append(0)
    return False
