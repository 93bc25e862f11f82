"""The ``#define``s of a translation unit, and macro expansion with a source map.

Templates are often built by macros: ``#define LOAD(T, SPACE) asm("ld." #SPACE "." #T ...)``.
This module collects the definitions of a file and of the headers it includes by relative path
(one pass per file, memoised), and expands an invocation the way the C preprocessor does
(object-like and function-like macros, ``#``, ``##``, ``__VA_ARGS__``, ``__VA_OPT__``, nested
expansion with hide sets). Every expanded token remembers where its characters were spelled:
in the file being linted (the macro body or the invocation's arguments) or elsewhere (a header),
so that findings can point at exact characters.

Nothing is guessed: a name with two live definitions that differ, or one defined only under
conditions that cannot hold, does not expand, unless the expander is told which definition to
take (``Expander(chosen=...)``: a use expanded once per definition that may be in force,
``macro_uses.expand_alternatives``).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from typing import NamedTuple

from ptxlint.frontends.cxx import preproc
from ptxlint.frontends.cxx.defines import (
    INEXACT,
    MAX_EXPANDED_TOKENS,
    MAX_NESTING,
    FileDefines,
    MacroDef,
    Spelling,
    collect,
)
from ptxlint.frontends.cxx.headers import (
    ASM_KEYWORDS,
    HEADER_ASM,
    _asm_facts,
    _spread,
    closure,
    definers,
    read_already,
    read_whole,
    sketch_definers,
    spread_over,
)
from ptxlint.frontends.cxx.include_lookup import real_path
from ptxlint.frontends.cxx.lexer import Token, tokens

# --------------------------------------------------------------------------- headers


# --------------------------------------------------------------------------- the table


class MacroTable:
    """Every definition a file can see: its own (position-sensitive) and its headers'.

    The headers are walked when the table is made (``headers.closure``: their order decides
    which definition wins), but a header is read whole (``collect``) only when a name asked
    of the table may be defined there (``headers.sketch_definers``), when it spells ``asm``
    or an asm-bearing name in its definitions, or when its includes were not decided from
    its sketch. ``check -j 1 --no-cache`` reads 23 headers whole where it read 820 on the
    CUDA 13 headers (CUTLASS include/: 12 where 222, flashinfer: 29 where 170), and the
    tables' making (their walks included) took 0.106-0.113 s of CPU there, 0.045-0.048 s so;
    deciding the sketches' include lines costs 13-20 ms of that run's sketches. The whole
    run's instructions (cachegrind): -1.4% on the CUDA headers, -0.2% on flashinfer, CUTLASS
    include/ unchanged (-0.03%)."""

    def __init__(self, path: str, text: str, follow_includes: bool = True) -> None:
        self.path = path
        self.own = collect(path, text)
        self._closure: list[str] = []  # real paths, in the order read
        self._unread: set[str] = set()  # those not read whole yet (by this table's asking)
        if follow_includes and self.own.includes:
            self._closure, self._unread = closure(path, self.own.includes)
        self._headers: list[FileDefines] | None = None
        self._header_defs: dict[str, list[MacroDef]] = {}
        self._positions: dict[str, int] | None = None  # a header's real path -> its place
        self._asm_names: frozenset[str] | None = None
        # ``lookup`` of the names the file does not define itself: the same wherever it is
        # asked. An expansion looks up every identifier it rescans (the CUDA 13 headers: 6,600
        # look-ups, 5,400 of names the file does not define, few of them distinct).
        self._by_headers: dict[str, MacroDef | None] = {}
        self._directive_starts: list[int] | None = None  # ``epoch``

    @property
    def reach(self) -> list[str]:
        """The real paths of the headers the file's includes reach, in the order read (none
        read whole for it)."""
        return self._closure

    @property
    def headers(self) -> list[FileDefines]:
        """The headers the file's includes reach, each read whole, in the order read."""
        if self._headers is None:
            self._unread.clear()
            self._headers = [h for h in map(read_whole, self._closure) if h is not None]
        return self._headers

    def header(self, real: str) -> FileDefines | None:
        """The header at real path ``real``, read whole, where the file's includes reach it."""
        if real not in self._place():
            return None
        self._unread.discard(real)
        return read_whole(real)

    def _place(self) -> dict[str, int]:
        if self._positions is None:
            self._positions = {real: k for k, real in enumerate(self._closure)}
        return self._positions

    def epoch(self, at: int) -> int:
        """How many of the file's own ``#define``/``#undef`` directives start before offset
        ``at``: all that ``lookup(name, at)`` reads of ``at``, for any name (an own definition
        counts where it starts before ``at``, an ``#undef`` likewise; a header's, anywhere).
        What depends on the look-ups alone is the same at offsets of one epoch."""
        starts = self._directive_starts
        if starts is None:
            own = self.own
            starts = self._directive_starts = sorted(
                [d.start for defs in own.defines.values() for d in defs]
                + [u for undefs in own.undefs.values() for u in undefs]
            )
        return bisect.bisect_left(starts, at)

    def epoch_bounds(self, at: int) -> tuple[int, int]:
        """The offsets of the file's own directives around ``at`` (``epoch``): every look-up
        answers alike at offsets from the first up to the second (``-1`` and ``1 << 62`` where
        there is none before or after)."""
        k = self.epoch(at)
        starts = self._directive_starts or []
        return (starts[k - 1] if k else -1), (starts[k] if k < len(starts) else 1 << 62)

    def _from_headers(self, name: str) -> list[MacroDef]:
        """The headers' definitions of ``name``, in the order of ``headers``."""
        found = self._header_defs.get(name)
        if found is None:
            found = []
            unread = self._unread
            if unread:
                for real in sketch_definers(name):
                    if real in unread:
                        unread.discard(real)
                        read_whole(real)  # now among ``definers`` where it defines ``name``
            defining = definers(name)
            if defining:
                positions = self._place()
                ours = [h for h in defining if h.path in positions]
                ours.sort(key=lambda h: positions[h.path])
                found = [d for h in ours for d in h.defines[name]]
            self._header_defs[name] = found
        return found

    def definitions(self, name: str) -> list[MacroDef]:
        return self.own.defines.get(name, []) + self._from_headers(name)

    def lookup(self, name: str, at: int | None = None) -> MacroDef | None:
        """The one live definition of ``name`` at offset ``at`` of the file, else None."""
        own = self.own.defines.get(name)
        if not own:
            by_headers = self._by_headers
            if name not in by_headers:
                by_headers[name] = self._live(self._from_headers(name))
            return by_headers[name]
        return self._live(self._candidates(name, own, at))

    def alternatives(self, name: str, at: int | None = None) -> list[MacroDef]:
        """Every definition of ``name`` that may be the one in force at offset ``at``, in
        definition order: those ``lookup`` chooses among (the file's own after its last
        ``#undef`` before ``at``, else its headers'), less those under a condition that cannot
        hold. ``#if A`` / ``#define M 1`` / ``#else`` / ``#define M 2`` gives both, each the
        definition of one configuration, where ``lookup`` gives none; [] where the name is no
        macro at ``at``."""
        own = self.own.defines.get(name)
        candidates = self._candidates(name, own, at) if own else self._from_headers(name)
        return [d for d in candidates if preproc.evaluate_guards(d.guards) is not False]

    def _candidates(self, name: str, own: list[MacroDef], at: int | None) -> list[MacroDef]:
        """The definitions of ``name``, which the file defines itself (``own``), that can be
        in force at ``at``: its own after its last ``#undef`` before ``at``; where there are
        none and no ``#undef`` precedes, the headers'."""
        if at is None:
            candidates = list(own)
        else:
            undefs = [u for u in self.own.undefs.get(name, ()) if u < at]
            last_undef = max(undefs) if undefs else -1
            candidates = [d for d in own if last_undef < d.start < at]
            if not candidates and last_undef >= 0:
                return []  # #undef'd here
        return candidates or self._from_headers(name)

    def _live(self, candidates: list[MacroDef]) -> MacroDef | None:
        live = [d for d in candidates if preproc.evaluate_guards(d.guards) is not False]
        if not live:
            return None
        first = live[0]
        if any(not first.same_as(d) for d in live[1:]):
            # #if A / #define M 1 / #else / #define M 2: not decidable here, unless one of them
            # alone holds asm (`#ifdef __CUDA_ARCH__` / `{ ...; asm("brkpt;"); }` / `#else` /
            # `assert(0)`): the asm exists only where that one holds, and the statement read
            # from it carries its guards.
            bearing = [d for d in live if self._holds_asm(d)]
            if bearing and all(bearing[0].same_as(d) for d in bearing[1:]):
                return bearing[0]
            return None
        return first

    def _holds_asm(self, d: MacroDef) -> bool:
        names = self.asm_names()
        return any(
            t.kind == "ident"
            and (t.text in ASM_KEYWORDS or (t.text in names and t.text != d.name))
            for t in d.body
        )

    def asm_names(self) -> frozenset[str]:
        """Macros some expansion of which can contain an asm statement: those whose body
        holds the keyword, and those whose body uses one of them, transitively."""
        if self._asm_names is None:
            key = tuple(self._closure)
            inherited = HEADER_ASM.get(key)
            if inherited is None:
                # the headers read whole: one left unread defines no asm-bearing macro and
                # spells none in its definitions (``headers.closure``), so it adds nothing
                read = [h for h in map(read_already, self._closure) if h is not None]
                inherited = HEADER_ASM[key] = spread_over(read)
            own = _asm_facts(self.own)
            self._asm_names = _spread([own], set(inherited))
        return self._asm_names

    def asm_bearing(self, name: str) -> bool:
        """Whether some expansion of ``name`` can contain an asm statement."""
        return name in self.asm_names()


# --------------------------------------------------------------------------- expansion


# ``XToken(...)`` without the Python call of the named tuple's ``__new__``
_tuple_new = tuple.__new__


class XToken(NamedTuple):
    """A token of an expansion with the source of each of its characters. A tuple, not a
    frozen dataclass: an expansion makes one per token at every level it passes through (the
    CUDA 13 headers' 150 asm macro uses: 16,000), and a tuple is made in a third of the time
    (their expansions' CPU, the host-code check's included: 47-54 ms -> 39-43 ms)."""

    kind: str
    text: str
    spans: tuple[Spelling, ...]  # one per character of text; INEXACT where spelled elsewhere
    hide: frozenset[str] = frozenset()
    space_before: bool = False

    @classmethod
    def spelled(
        cls, tok: Token, exact: bool, space_before: bool, hide: frozenset[str] = frozenset()
    ) -> XToken:
        if exact:  # (start + k, start + k + 1) for each character, made in C
            start, end = tok.start, tok.start + len(tok.text)
            spans = tuple(zip(range(start, end), range(start + 1, end + 1), strict=True))
        else:
            spans = (INEXACT,) * len(tok.text)
        return _tuple_new(cls, (tok.kind, tok.text, spans, hide, space_before))


def from_source(text: str, toks: Sequence[Token]) -> list[XToken]:
    """Tokens of the linted file as expansion input (exact spans)."""
    out = []
    prev_end = -1
    for t in toks:
        out.append(XToken.spelled(t, True, prev_end != t.start))
        prev_end = t.end
    return out


class ExpansionError(Exception):
    """The expansion ran past a bound or met something it cannot do exactly."""


class Expander:
    """Expands token sequences with one :class:`MacroTable`, at one offset of the file."""

    def __init__(
        self,
        table: MacroTable,
        at: int,
        line: int = 0,
        chosen: dict[str, MacroDef] | None = None,
        watched: frozenset[str] = frozenset(),
    ) -> None:
        self.table = table
        self.at = at
        self.line = line
        self.produced = 0
        self.used: list[MacroDef] = []  # every definition that took part, outermost first
        # the definition taken for a name with several that may be in force
        # (``MacroTable.alternatives``), where one was chosen for this expansion
        self.chosen = chosen or {}
        # the names of ``watched`` (asm-bearing ones) left unexpanded for want of one
        # definition, in the order met; and those of any macro so left in an argument that a
        # ``#`` then stringifies (``_undecided_in``)
        self.watched = watched
        self.undecided: list[str] = []

    def expand(self, toks: Sequence[XToken], argument: bool = False) -> list[XToken]:
        """``toks`` fully macro-replaced. ``argument``: they are a macro argument replaced
        before substitution (C11 6.10.3.1); a macro there that has several definitions which
        may be in force, and none chosen, stays as its name, painted (its name in its hide
        set), so that a ``#`` of an enclosing macro that stringifies it knows the name is not
        the argument's value: ``XSTR(REG)`` with ``#if A`` / ``#define REG h`` / ``#else`` /
        ``#define REG r`` is ``"h"`` or ``"r"``, never ``"REG"``."""
        out: list[XToken] = []
        stack = list(reversed(toks))
        lookup, at = self.table.lookup, self.at  # one call a name
        chosen = self.chosen
        while stack:
            t = stack.pop()
            if t.kind != "ident" or t.text in t.hide:
                out.append(t)
                continue
            if t.text == "__LINE__" and self.line:
                out.append(XToken("number", str(self.line), (INEXACT,) * len(str(self.line))))
                continue
            d = chosen.get(t.text) if chosen else None
            if d is None:
                d = lookup(t.text, at)
            if d is None:
                if t.text in self.watched and t.text not in self.undecided:
                    self.undecided.append(t.text)
                elif argument and t.kind == "ident" and \
                        len(self.table.alternatives(t.text, at)) > 1:
                    t = _tuple_new(XToken, (t.kind, t.text, t.spans, t.hide | {t.text},
                                            t.space_before))
                out.append(t)
                continue
            if len(t.hide) >= MAX_NESTING:
                raise ExpansionError(f"macros nested more than {MAX_NESTING} deep")
            if d.params is None:
                body = self._substitute(d, {}, t.hide | {d.name}, t.space_before)
            else:
                if not stack or stack[-1].text != "(":
                    out.append(t)  # a function-like macro's name without arguments
                    continue
                args = _read_args(stack)
                if args is None:
                    raise ExpansionError(f"unterminated invocation of {d.name}")
                bound = _bind(d, args)
                if bound is None:
                    raise ExpansionError(f"{d.name} takes {len(d.params)} arguments")
                body = self._substitute(d, bound, t.hide | {d.name}, t.space_before)
            self.used.append(d)
            self.produced += len(body)
            if self.produced > MAX_EXPANDED_TOKENS:
                raise ExpansionError("expansion too large")
            stack.extend(reversed(body))
        return out

    def _substitute(
        self,
        d: MacroDef,
        args: dict[str, list[XToken]],
        hide: frozenset[str],
        space_before: bool,
    ) -> list[XToken]:
        exact = d.path == self.table.path or real_path(d.path) == real_path(self.table.path)
        body = _spelled_body(d, exact)
        expanded: dict[str, list[XToken]] = {}
        out: list[XToken] = []
        params = d.params or ()
        last = params[-1] if params and d.variadic else None
        placemarker = False  # the previous ## operand was an empty argument
        i = 0
        n = len(body)
        while i < n:
            t = body[i]
            if params and t.text in ("#", "%:") and i + 1 < n and body[i + 1].text in args:
                self._undecided_in(args[body[i + 1].text])
                out.append(_stringify(args[body[i + 1].text], t))
                placemarker = False
                i += 2
                continue
            va_opt = t.text == "__VA_OPT__" and last is not None
            if va_opt and i + 1 < n and body[i + 1].text == "(":
                end = _group_end(body, i + 1)
                if last is not None and args.get(last):
                    out.extend(self._substitute_inner(body[i + 2 : end - 1], args, expanded))
                i = end
                continue
            if t.text == "##":
                i += 1
                continue
            pasted_left = i > 0 and body[i - 1].text == "##"
            pasted_right = i + 1 < n and body[i + 1].text == "##"
            if t.kind == "ident" and t.text in args:
                raw = args[t.text]
                if pasted_left or pasted_right:
                    piece = list(raw)
                else:
                    if t.text not in expanded:
                        expanded[t.text] = self.expand(raw, True)
                    piece = expanded[t.text]
            else:
                piece = [t]
            if pasted_left and out and not placemarker:
                if t.text == last and out[-1].text == ",":
                    if not piece:
                        out.pop()  # GNU `, ## __VA_ARGS__` with no variadic arguments
                else:
                    out, piece = _paste(out, piece)
            placemarker = not piece and pasted_right
            if piece:
                first = _with_space(piece[0], t.space_before)
                if first is not piece[0]:  # else the piece as it is: nothing changes it
                    piece = [first, *piece[1:]]
            out.extend(piece)
            i += 1
        # a token of the definition's body has no hide set of its own: it shares ``hide``.
        # Each made by ``tuple.__new__`` (``_tuple_new``), unpacked in the loop, and a piece
        # copied only where its first token's spacing changes: with ``XToken.spelled`` and
        # ``_with_space`` made so, the CUDA 13 headers' extraction (150 asm macro uses) takes
        # 39 M instructions fewer, CUTLASS include/'s 6 M (cachegrind)
        result = [
            _tuple_new(XToken, (kind, text, spans, own | hide if own else hide, space))
            for kind, text, spans, own, space in out
        ]
        if result:
            result[0] = _with_space(result[0], space_before)
        return result

    def _undecided_in(self, arg: list[XToken]) -> None:
        """Note in ``undecided`` each macro that an argument's replacement left as its name
        for want of one definition (painted by ``expand``), where ``#`` stringifies that
        argument: the string is one of its definitions' spellings, not the name."""
        for t in arg:
            if t.kind == "ident" and t.text in t.hide and t.text not in self.undecided \
                    and t.text not in self.chosen and self.table.lookup(t.text, self.at) is None:
                self.undecided.append(t.text)

    def _substitute_inner(
        self,
        inner: Sequence[XToken],
        args: dict[str, list[XToken]],
        expanded: dict[str, list[XToken]],
    ) -> list[XToken]:
        out: list[XToken] = []
        for t in inner:
            if t.kind == "ident" and t.text in args:
                if t.text not in expanded:
                    expanded[t.text] = self.expand(args[t.text], True)
                out.extend(expanded[t.text])
            else:
                out.append(t)
        return out


def _spelled_body(d: MacroDef, exact: bool) -> tuple[XToken, ...]:
    """``d``'s body as expansion tokens, with exact spans where the definition is in the file
    being linted, made once per definition and reading: a body's tokens are the same at every
    use (their hide sets are the use's, added where the substitution ends), and bodies are
    substituted again and again: the CUDA 13 headers' 150 uses of the asm macros of
    cuda_fp16.hpp, cuda_bf16.hpp and CUB substitute 682 bodies, 14,200 tokens, of 68
    definitions. With ``lookup``'s memo and the templates' deferred source maps
    (``macro_uses.ExpansionMap``) those uses' CPU in a fresh process went 0.149-0.160 s ->
    0.114-0.119 s. Held by the definition (``MacroDef.memo``): bounded by the definitions read."""
    return d.memo(  # type: ignore[return-value]
        "xbody" if exact else "xbody-inexact",
        lambda: tuple(
            XToken.spelled(t, exact, i > 0 and d.body[i - 1].end != t.start)
            for i, t in enumerate(d.body)
        ),
    )


def _with_space(t: XToken, space: bool) -> XToken:
    if t.space_before == space:
        return t
    return _tuple_new(XToken, (t.kind, t.text, t.spans, t.hide, space))


def _group_end(toks: Sequence[XToken], open_index: int) -> int:
    depth = 0
    for j in range(open_index, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def _read_args(stack: list[XToken]) -> list[list[XToken]] | None:
    """Pops ``( a, b )`` off the stack (top is the ``(``) and returns the arguments."""
    stack.pop()
    args: list[list[XToken]] = [[]]
    depth = 0
    while stack:
        t = stack.pop()
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            if depth == 0 and t.text == ")":
                return args
            depth -= 1
        elif t.text == "," and depth == 0:
            args.append([])
            continue
        args[-1].append(t)
    return None


def _bind(d: MacroDef, args: list[list[XToken]]) -> dict[str, list[XToken]] | None:
    params = d.params or ()
    if not params:
        return {} if args == [[]] else None
    if not d.variadic:
        return dict(zip(params, args, strict=True)) if len(args) == len(params) else None
    fixed = len(params) - 1
    if len(args) < fixed:
        return None
    bound = {p: args[k] for k, p in enumerate(params[:-1])}
    rest: list[XToken] = []
    for k, a in enumerate(args[fixed:]):
        if k:
            rest.append(XToken("punct", ",", (INEXACT,)))
        rest.extend(a)
    bound[params[-1]] = rest
    return bound


def _stringify(arg: list[XToken], hash_token: XToken) -> XToken:
    """``#param``: the argument's spelling as a string literal, each character mapped."""
    quote_span = hash_token.spans[0] if hash_token.spans else INEXACT
    chars: list[str] = ['"']
    spans: list[Spelling] = [quote_span]
    for k, t in enumerate(arg):
        if k and t.space_before:
            chars.append(" ")
            spans.append(INEXACT)
        literal = t.kind in ("string", "raw", "char")
        for ch, span in zip(t.text, t.spans, strict=False):
            if literal and ch in ('"', "\\"):
                chars.append("\\")
                spans.append(span)
            chars.append(ch)
            spans.append(span)
    chars.append('"')
    spans.append(quote_span)
    return XToken("string", "".join(chars), tuple(spans), frozenset(), hash_token.space_before)


def _paste(out: list[XToken], piece: list[XToken]) -> tuple[list[XToken], list[XToken]]:
    """``left ## right``: the last token of ``out`` and the first of ``piece`` become one."""
    if not piece:
        return out, piece
    left, right = out[-1], piece[0]
    text = left.text + right.text
    relexed = list(tokens(text))
    if len(relexed) != 1:
        raise ExpansionError(f"pasting {left.text!r} and {right.text!r} is not one token")
    joined = XToken(relexed[0].kind, text, left.spans + right.spans, left.hide, left.space_before)
    return out[:-1] + [joined], piece[1:]


# --------------------------------------------------------------------------- virtual text


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class VirtualText:
    """Expanded tokens laid out as text, with each character's source spelling."""

    __slots__ = ("text", "spans")

    def __init__(self, text: str, spans: tuple[Spelling, ...]) -> None:
        self.text = text
        self.spans = spans  # per character


def lay_out(toks: Sequence[XToken]) -> VirtualText:
    parts: list[str] = []
    spans: list[Spelling] = []
    previous: str | None = None  # the text of the token before
    # each token unpacked, not read field by field (an expansion lays out 80 tokens a use)
    for _, text, spelled, _, space_before in toks:
        if previous is not None and (space_before or not _stay_apart(previous, text)):
            parts.append(" ")
            spans.append(INEXACT)
        previous = text
        parts.append(text)
        spans.extend(spelled if len(spelled) == len(text) else (INEXACT,) * len(text))
    return VirtualText("".join(parts), tuple(spans))


# --------------------------------------------------------------------------- string pieces


# A plain class too (see VirtualText's comment).
class ExpandedString:
    """A template or constraint piece that expanded to string literals only."""

    __slots__ = ("text", "starts", "ends", "used")

    def __init__(
        self, text: str, starts: list[int], ends: list[int], used: tuple[MacroDef, ...],
    ) -> None:
        self.text = text
        self.starts = starts
        self.ends = ends
        self.used = used


def expand_to_string(
    table: MacroTable,
    text: str,
    toks: Sequence[Token],
    within: tuple[int, int],
    forbidden: frozenset[str] = frozenset(),
) -> ExpandedString | None:
    """Expand the macro piece ``toks`` of a statement; its value when it is string literals.

    Characters spelled inside ``within`` (the piece itself: an argument such as ``u32`` of
    ``STR(u32)``) keep their exact position; all others (a macro body, a header) map to the
    whole piece. ``forbidden`` names parameters of an enclosing ``#define``: a piece that uses
    one has no value until that macro is expanded.
    """
    from ptxlint.frontends.cxx.lexer import decode_string_literal

    if any(t.kind == "ident" and t.text in forbidden for t in toks):
        return None
    if not any(t.kind == "ident" and table.lookup(t.text, within[0]) for t in toks):
        return None
    expander = Expander(table, within[0])
    try:
        out = expander.expand(from_source(text, toks))
    except ExpansionError:
        return None
    if expander.undecided:  # a string made from a macro with several definitions: unknown
        return None
    if not out or not all(t.kind in ("string", "raw") for t in out):
        return None
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    lo, hi = within
    for t in out:
        decoded = decode_string_literal(Token(t.kind, t.text, 0, len(t.text)))
        if not decoded.terminated:
            return None
        chars.append(decoded.text)
        for a, b in zip(decoded.starts, decoded.ends, strict=True):
            first, last = t.spans[a], t.spans[b - 1]
            if first[0] >= lo and last[1] <= hi and first != INEXACT and last != INEXACT:
                starts.append(first[0])
                ends.append(max(first[0] + 1, last[1]))
            else:
                starts.append(lo)
                ends.append(hi)
    return ExpandedString("".join(chars), starts, ends, tuple(expander.used))


@functools.lru_cache(maxsize=4096)
def _stay_apart(left: str, right: str) -> bool:
    """Whether ``left`` and ``right`` written together still lex as those two tokens.
    Memoised: an expansion asks it for every pair of adjacent tokens that had no space between
    them, by lexing the two again, and the pairs repeat (``(``, ``,``, ``%``, names)."""
    joined = [t.text for t in tokens(left + right)]
    return joined == [left, right]
