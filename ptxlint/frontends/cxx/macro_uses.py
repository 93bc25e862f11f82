"""Invocations of macros whose expansion holds an asm statement, expanded at their use site.

``#define LOAD(T, SPACE) asm("ld." #SPACE "." #T ...)`` is opaque in its body: the template is
only known where ``LOAD(u32, global)`` is written. For every such invocation in the code of a
file (not inside another ``#define``), the invocation is expanded with the file's macro table,
laid out as text, and read like any statement; the positions of what was read are then mapped
back: characters of the arguments to the arguments, characters of a body in this file to the
body, everything else to the invocation.

A macro defined differently in each ``#if`` arm (``#if __CUDA_ARCH__ >= 700`` / ``#define
SHFL(...) asm("shfl.sync...")`` / ``#else`` / ``#define SHFL(...) asm("shfl...")``) has no one
definition at its use; the use is expanded once per definition that may be in force there
(:func:`expand_alternatives`), and each statement read from an expansion carries the guards of
the definitions it took, as a statement with ``#if`` inside carries its branch's.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING

from ptxlint.frontends.cxx.defines import INEXACT, MacroDef
from ptxlint.frontends.cxx.lexer import Token, tokens
from ptxlint.frontends.cxx.macros import (
    Expander,
    ExpansionError,
    MacroTable,
    VirtualText,
    from_source,
    lay_out,
)
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import (
    Clobber,
    Constraint,
    Offsets,
    Operand,
    Qualifier,
    SourceMap,
    Span,
    Template,
    TemplatePiece,
    piece_count,
    set_source_map,
)
from ptxlint.model_slots import (
    C_LETTERS,
    C_MODIFIERS,
    C_OPAQUE,
    C_SPAN,
    C_TEXT,
    O_CONSTRAINT,
    O_CTYPE,
    O_EXPRESSION,
    O_EXPRESSION_SPAN,
    O_INDEX,
    O_NAME,
    O_ROLE,
    O_SPAN,
    T_TEXT,
    new,
)

if TYPE_CHECKING:
    from ptxlint.frontends.cxx.guard_macros import GuardMacros

# An invocation longer than this many tokens is not read (unterminated `LOAD(` at the end of
# a file must not make every later use re-read the rest of the file).
MAX_INVOCATION_TOKENS = 20_000
_WS = on_first_use(r"\s+")
_END = operator.itemgetter(1)  # a spelling's end
_WORD_CHAR = on_first_use(r"[\w$]")


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Use:
    """An invocation of an asm macro in a file: the name, its arguments' tokens and where it is."""

    __slots__ = ("name", "start", "end", "toks", "has_directive")

    def __init__(
        self, name: str, start: int, end: int, toks: tuple[Token, ...], has_directive: bool,
    ) -> None:
        self.name = name
        self.start = start
        self.end = end
        self.toks = toks
        self.has_directive = has_directive  # an #if inside the arguments


class Expanded:
    """An invocation expanded: the expansion laid out as text that maps back to the source, the
    macros it used, and the asm-bearing ones it left unexpanded for want of one definition
    (where it was asked to watch them)."""

    __slots__ = ("use", "virtual", "used", "undecided", "chosen")

    def __init__(
        self,
        use: Use,
        virtual: VirtualText,
        used: tuple[MacroDef, ...],
        undecided: tuple[str, ...] = (),
        chosen: MacroDef | None = None,
    ) -> None:
        self.use = use
        self.virtual = virtual
        self.used = used
        self.undecided = undecided
        # of an expansion among alternatives (``expand_alternatives``): the definition chosen
        # first, the one that tells this alternative from the others
        self.chosen = chosen


def asm_macros(table: MacroTable) -> list[str]:
    return sorted(table.asm_names())


def find_uses(text: str, names: list[str]) -> Iterator[tuple[str, int]]:
    """Offsets where one of ``names`` is written (the caller decides whether it is code)."""
    if not names:
        return
    # The look-behind is checked per match, not in the pattern: there it was tried at every
    # character of the file (GMMA's 2.7 MB header: 53 ms, now 1 ms). A name preceded by a
    # word character is skipped; no use can start inside it (a name is all word characters).
    pattern = re.compile(r"(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w$])")
    word = _WORD_CHAR().match
    for m in pattern.finditer(text):
        start = m.start()
        if start == 0 or not word(text, start - 1):
            yield m.group(), start


def read_use(text: str, name: str, start: int, function_like: bool) -> Use | None:
    """The invocation at ``start``: the name and, for a function-like macro, its arguments."""
    stream = tokens(text, start)
    first = next(stream, None)
    if first is None or first.text != name:
        return None
    if not function_like:
        return Use(name, start, first.end, (first,), False)
    toks = [first]
    depth = 0
    directive = False
    for tok in stream:
        if len(toks) > MAX_INVOCATION_TOKENS:
            return None
        if len(toks) == 1 and tok.text != "(":
            return None  # the name without arguments: not an invocation
        if tok.text == "#" and _at_line_start(text, tok.start):
            directive = True
        toks.append(tok)
        if tok.text in ("(", "[", "{"):
            depth += 1
        elif tok.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return Use(name, start, tok.end, tuple(toks), directive)
    return None


def _at_line_start(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return text[line_start:offset].strip() == ""


def expand_use(
    table: MacroTable, text: str, use: Use, line: int, watched: frozenset[str] = frozenset()
) -> Expanded | None:
    """``use`` expanded with the definition in force of each macro; the names of ``watched``
    that have none (several may be) are left as they are and listed in ``undecided``."""
    expander = Expander(table, use.start, line, watched=watched)
    try:
        out = expander.expand(from_source(text, use.toks))
    except ExpansionError:
        return None
    return Expanded(use, lay_out(out), tuple(expander.used), tuple(expander.undecided))


def expansions(
    table: MacroTable,
    text: str,
    use: Use,
    line: int,
    guard_macros: GuardMacros,
    watched: frozenset[str],
) -> list[Expanded] | str:
    """``use`` expanded: once where every asm-bearing macro in it (``watched``) has one
    definition in force, else once per choice among their definitions
    (:func:`expand_alternatives`; only such uses pay for it). A reason where it cannot be
    expanded exactly."""
    done = expand_use(table, text, use, line, watched)
    if done is None:
        return f"macro {use.name}: could not be expanded exactly"
    if not done.undecided:
        return [done]
    return expand_alternatives(table, text, use, line, guard_macros, watched)


# --------------------------------------------------------------------------- alternatives


# More alternative expansions of one use than this are not read (the same bound as a
# statement's #if branches).
MAX_ALTERNATIVES = 16


def use_of_alternatives(table: MacroTable, text: str, name: str, start: int) -> Use | str | None:
    """The invocation at ``start`` of ``name``, a macro with no single definition there
    (``MacroTable.lookup`` gives none), read as its definitions that may be in force read it;
    a reason where that is not one reading (some take arguments, some do not), None where it
    is no invocation or no definition can be in force."""
    alternatives = table.alternatives(name, start)
    if not alternatives:
        return None
    function_like = {d.params is not None for d in alternatives}
    if len(function_like) > 1:
        return f"macro {name}: some of its definitions here take arguments, some do not"
    return read_use(text, name, start, function_like.pop())


def expand_alternatives(
    table: MacroTable,
    text: str,
    use: Use,
    line: int,
    guard_macros: GuardMacros,
    watched: frozenset[str],
) -> list[Expanded] | str:
    """``use`` expanded once per choice of definition for each macro of ``watched`` it meets
    that has several which may be in force there (``#if A`` / ``#define M asm(...)`` /
    ``#else`` / ``#define M asm(...)``), in definition order: each expansion's ``used`` holds
    its choices, so the statements read from it carry their guards. A choice whose
    definitions' guards, with the use's, hold for no target and supported toolkit, the file's
    macros they read known (``guard_macros``), is left out (``targets.holds_for_no_target``).
    A reason where the expansions cannot be made exactly, or there would be more than
    ``MAX_ALTERNATIVES``."""
    from ptxlint.ptx.targets import holds_for_no_target  # deferred: this path's alone

    done: list[Expanded] = []
    pending: list[tuple[dict[str, MacroDef], MacroDef | None]] = [({}, None)]
    source_toks = from_source(text, use.toks)
    site_guards = guard_macros.guards.at(use.start, use.end)[0]
    while pending:
        chosen, first = pending.pop(0)
        expander = Expander(table, use.start, line, chosen, watched)
        try:
            out = expander.expand(source_toks)
        except ExpansionError:
            return f"macro {use.name}: could not be expanded exactly"
        fork: list[MacroDef] = []
        for name in expander.undecided:
            fork = table.alternatives(name, use.start)
            if len(fork) > 1:
                break
        if len(fork) <= 1:
            virtual = lay_out(out)
            done.append(Expanded(use, virtual, tuple(expander.used), (), first))
            continue
        held = site_guards + tuple(g for d in chosen.values() for g in d.guards)
        for d in fork:
            guards = _without_own_include_guard(table, held + d.guards)
            if not holds_for_no_target(guards, guard_macros.inside(use.start, guards)):
                pending.append(({**chosen, d.name: d}, first or d))
        if len(done) + len(pending) > MAX_ALTERNATIVES:
            return f"macro {use.name}: over {MAX_ALTERNATIVES} combinations of its definitions"
    return done


def _without_own_include_guard(table: MacroTable, guards: tuple[str, ...]) -> tuple[str, ...]:
    """``guards`` without the file's own include guard (``#ifndef H`` / ``#define H``, the
    ``#define`` under that one condition alone), which holds wherever the file is read, but
    which the file's own ``#define H`` before the use would decide false."""
    first = guards[0] if guards else ""
    if not first.startswith("!defined("):
        return guards
    name = first[len("!defined(") : -1].strip()
    if not any(d.guards == (first,) for d in table.own.defines.get(name, ())):
        return guards
    return tuple(g for g in guards if g != first)


def invocation_text(text: str, use: Use) -> str:
    spelled = _WS().sub(" ", text[use.start : use.end]).replace("( ", "(").replace(" )", ")")
    return spelled if len(spelled) <= 80 else spelled[:77] + "..."


class Remap:
    """Maps spans of the laid-out expansion back to the linted file."""

    def __init__(self, virtual: VirtualText, invocation: Span, bodies: list[Span]) -> None:
        self.spans = virtual.spans
        self.invocation = invocation
        self.bodies = bodies

    def span(self, span: Span) -> Span:
        a, b = span.start, span.end
        if b <= a:
            at = self.point(a)
            return Span(at, at)
        spelled = self.spans[a:b]
        # the exact spellings: a search in C where none is inexact (most of an expansion's
        # spans, where the macro is the file's; the CUDA 13 headers' extraction -17 M
        # instructions, cachegrind)
        exact = [s for s in spelled if s != INEXACT] if INEXACT in spelled else spelled
        if not exact:
            return self.invocation
        # the least start is the least pair's; the ends' greatest taken in C: a template
        # piece spans a whole literal, and its characters were most of an expansion's steps
        lo = min(exact)[0]
        hi = max(map(_END, exact))
        inv = self.invocation
        if inv.start <= lo and hi <= inv.end:
            return Span(lo, hi)
        for body in self.bodies:
            if body.start <= lo and hi <= body.end:
                return Span(lo, hi)
        return inv

    def point(self, offset: int) -> int:
        if 0 <= offset < len(self.spans) and self.spans[offset] != INEXACT:
            return self.spans[offset][0]
        return self.invocation.start

    def template(
        self, template: Template, lo: int | None = None, hi: int | None = None
    ) -> Template:
        """``template`` (read from the laid-out expansion, all of it, its pieces' spans
        included, between characters ``lo`` and ``hi`` there: from the statement's "(" through
        its first colon or its end, else where its characters and pieces lie) mapped back to
        the file, its pieces and its per-character source map when first read
        (``ExpansionMap``)."""
        if lo is None or hi is None:
            starts, ends = template.char_starts, template.char_ends
            spans = [p.span for p in template.pieces]
            lo = min(min(starts, default=0), min((s.start for s in spans), default=0))
            hi = max(
                max(starts, default=-1) + 1,
                max(ends, default=0),
                max((s.end for s in spans), default=0),
            )
        mapped = object.__new__(Template)  # its pieces' and source map's slots left empty
        T_TEXT(mapped, template.text)
        # the map keeps the expansion's spans of the template alone, not the whole
        # expansion's (a function body's, where the template is one line of it)
        set_source_map(mapped, ExpansionMap(self.window(lo, hi), lo, template))
        return mapped

    def window(self, lo: int, hi: int) -> Remap:
        """This map over characters ``lo`` to ``hi`` of the expansion, numbered from ``lo``."""
        window = object.__new__(Remap)
        window.spans = self.spans[lo:hi]
        window.invocation = self.invocation
        window.bodies = self.bodies
        return window

    def char_spans(
        self, char_starts: Sequence[int], char_ends: Sequence[int]
    ) -> tuple[list[int], list[int]]:
        """The source span of each template character, from its span in the expansion."""
        starts: list[int] = []
        ends: list[int] = []
        spans, n = self.spans, len(self.spans)
        inv, bodies = self.invocation, self.bodies
        for a, b in zip(char_starts, char_ends, strict=True):
            if b > a + 1:
                mapped = self.span(Span(a, b))
                starts.append(mapped.start)
                ends.append(mapped.end)
                continue
            # ``span(Span(a, a + 1))`` without the two spans it made: the template's
            # characters are most of what an expansion maps (a third of reading one)
            spelled = spans[a] if a < n else INEXACT
            if spelled != INEXACT:
                lo, hi = spelled
                if (inv.start <= lo and hi <= inv.end) or any(
                    body.start <= lo and hi <= body.end for body in bodies
                ):
                    starts.append(lo)
                    ends.append(hi)
                    continue
            starts.append(inv.start)
            ends.append(inv.end)
        return starts, ends

    def operand(self, op: Operand) -> Operand:
        """``op`` with its spans mapped back: ``dataclasses.replace`` of it and a copy of its
        constraint, filled slot by slot, where a replace read the class's fields and called
        the frozen ``__init__`` (with the statement's ``RawStatement`` made directly, not
        replaced: extracting the CUDA 13 headers' statements, 24.9 M instructions fewer of
        11,791 M with the parses, cachegrind)."""
        c = op.constraint
        constraint = new(Constraint)
        C_TEXT(constraint, c.text)
        C_MODIFIERS(constraint, c.modifiers)
        C_LETTERS(constraint, c.letters)
        C_SPAN(constraint, self.span(c.span))
        C_OPAQUE(constraint, c.opaque)
        mapped = new(Operand)
        O_INDEX(mapped, op.index)
        O_ROLE(mapped, op.role)
        O_CONSTRAINT(mapped, constraint)
        O_EXPRESSION(mapped, op.expression)
        O_EXPRESSION_SPAN(mapped, self.span(op.expression_span))
        O_SPAN(mapped, self.span(op.span))
        O_NAME(mapped, op.symbolic_name)
        O_CTYPE(mapped, op.ctype)
        return mapped

    def clobber(self, c: Clobber) -> Clobber:
        return Clobber(c.name, self.span(c.span))

    def qualifier(self, q: Qualifier) -> Qualifier:
        return Qualifier(q.name, self.span(q.span))


class ExpansionMap(SourceMap):
    """The pieces and source map of a template read from a macro's expansion, made when
    first read (``model.set_source_map``): most are never read, only where a finding, a fix
    or a hover points into the template. Made from the template as read from the expansion
    (its pieces' and characters' spans there), each span mapped back through the window of
    the expansion's spans that holds the template. Mapping them back was a fifth of reading
    an expansion's statements (the CUDA 13 headers' 237, in their 150 uses: 15 ms of CPU, 5
    ms with the pieces alone made at once); with the pieces made on read too, the plain
    reader's template (its pieces and source map left to be made: ``LiteralMap``) stays
    unmade where the mapped one is: the CUDA 13 headers' extraction takes 60 M instructions
    fewer of 11,713 M with the parses, 54 M of them this map's (cachegrind)."""

    __slots__ = ("_window", "_lo", "_template")

    def __init__(self, window: Remap, lo: int, template: Template) -> None:
        self._window = window  # ``Remap.window(lo, ...)``: the template's characters' spans
        self._lo = lo
        self._template = template  # as read from the expansion

    def arrays(self) -> tuple[Offsets, Offsets]:
        lo, template = self._lo, self._template
        starts, ends = self._window.char_spans(
            [a - lo for a in template.char_starts], [b - lo for b in template.char_ends]
        )
        return Offsets("q", starts), Offsets("q", ends)

    def pieces(self) -> tuple[TemplatePiece, ...]:
        lo, window = self._lo, self._window
        return tuple(
            TemplatePiece(
                p.kind, window.span(Span(p.span.start - lo, p.span.end - lo)), p.text_start,
                p.text_end,
            )
            for p in self._template.pieces
        )

    def piece_count(self, kinds: Collection[str]) -> int:
        return piece_count(self._template, kinds)  # the mapped pieces are of the same kinds


# the spellings of each qualifier's meaning: `asm volatile` and `__asm__ __volatile__` say
# the same
_QUALIFIER_MEANING = {
    "volatile": "volatile", "__volatile__": "volatile", "__volatile": "volatile",
    "inline": "inline", "__inline": "inline", "__inline__": "inline", "goto": "goto",
}


def keyword_qualifiers(
    table: MacroTable, keyword: str, at: int, written: Sequence[Qualifier]
) -> tuple[Qualifier, ...]:
    """The qualifiers an asm keyword used at ``at`` takes from a macro of its own name:
    ``#define asm __asm__ __volatile__`` (sppark's fields, its copies) makes every
    ``asm("...")`` after it a volatile asm, as the preprocessor hands the compiler
    ``__asm__ __volatile__("...")``. Where several definitions may be in force (``#ifdef
    __GNUC__`` / ``#define asm __asm__ __volatile__`` / ``#else`` / ``#define asm asm
    volatile``), only what all of them add; none that ``written`` (the statement's own
    qualifiers) already says. Each as the first definition spells it, spanning the keyword
    (where the reader of the file sees the macro that adds it)."""
    if not table.definitions(keyword):
        return ()
    alternatives = table.alternatives(keyword, at)
    if not alternatives:
        return ()
    common: dict[str, str] | None = None
    for d in alternatives:
        if d.params is not None:
            return ()
        words = [t.text for t in d.body]
        if not words or words[0] not in ("asm", "__asm__", "__asm"):
            return ()
        meanings: dict[str, str] = {}
        for word in words[1:]:
            meaning = _QUALIFIER_MEANING.get(word)
            if meaning is None:
                return ()
            meanings.setdefault(meaning, word)
        common = meanings if common is None else {
            m: w for m, w in common.items() if m in meanings}
    said = {_QUALIFIER_MEANING.get(q.name, q.name) for q in written}
    span = Span(at, at + len(keyword))
    return tuple(Qualifier(w, span) for m, w in (common or {}).items() if m not in said)


# What may stand around a macro's asm statements and run nothing (``do { ... } while (0)``)
_WRAPPING = frozenset(("do", "while", "(", ")", "0", "false", "{", "}", ";"))


def only_asm(expanded: Sequence[Token], statements: Sequence[tuple[int, int]]) -> bool:
    """Whether an expansion's tokens (``expanded``) outside its asm statements (their
    extents) only wrap them: the invocation does nothing else (``Expansion.only_asm``)."""
    return all(t.text in _WRAPPING for t in expanded
               if not any(start <= t.start < end for start, end in statements))
