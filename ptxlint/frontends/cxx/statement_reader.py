"""Read one asm statement from its tokens: qualifiers, the template's string pieces with a
source map, operands with their constraints and expressions, clobbers and labels. Macro
pieces stay opaque holes unless :class:`MacroPieces` resolves them exactly."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ptxlint.frontends.cxx.lexer import Token, decode_string_literal, literal_value
from ptxlint.frontends.cxx.macros import ExpandedString, MacroTable, expand_to_string
from ptxlint.frontends.cxx.raw_statement import RawStatement as _RawStatement
from ptxlint.frontends.cxx.statement_tokens import QUALIFIERS
from ptxlint.frontends.statement_problems import (
    DIRECTIVE_INSIDE,
    UNTERMINATED,
    broken_literal,
    unread_operand,
)
from ptxlint.frontends.statement_problems import missing_comma as missing_comma_problem
from ptxlint.model import (
    HOLE,
    Clobber,
    Constraint,
    Operand,
    Qualifier,
    SourceFile,
    Span,
    Template,
    TemplatePiece,
)

_MODIFIERS = "=+&"


class StatementReader:
    def __init__(
        self,
        source: SourceFile,
        stream: Sequence[Token],
        macros: MacroPieces,
        in_macro: bool,
    ) -> None:
        self.source = source
        self.toks = stream
        self.macros = macros
        self.in_macro = in_macro
        self.problems: list[str] = []
        self.opaque_sections = False
        self.missing_commas: list[tuple[int, int]] = []

    def read(self) -> _RawStatement | None:
        toks = self.toks
        i = 1
        qualifiers: list[Qualifier] = []
        while i < len(toks) and toks[i].kind == "ident" and toks[i].text in QUALIFIERS:
            qualifiers.append(Qualifier(toks[i].text, Span(toks[i].start, toks[i].end)))
            i += 1
        if i >= len(toks) or toks[i].text != "(":
            return None  # `#define __asm__ asm`, MSVC `__asm { }`: not a GNU asm statement
        open_paren = toks[i].start
        current: list[Token] = []
        sections: list[list[Token]] = [current]
        colons: list[int] = []
        depth = 0
        end = None
        for k in range(i + 1, len(toks)):
            tok = toks[k]
            kind, text = tok[0], tok[1]
            if kind == "punct":  # brackets and colons are punctuation
                if text in _OPENING:
                    depth += 1
                elif text in _CLOSING:
                    if depth == 0:
                        if text == ")":
                            end = tok[3]
                            break
                        continue
                    depth -= 1
                elif depth == 0 and text in (":", "::"):
                    for c in range(len(text)):
                        colons.append(tok[2] + c)
                        current = []
                        sections.append(current)
                    continue
            elif kind == "directive":
                self.opaque_sections = True
                self.problems.append(DIRECTIVE_INSIDE)
                continue
            current.append(tok)
        if end is None:
            self.problems.append(UNTERMINATED)
            last = toks[-1].end if toks else open_paren + 1
            end = last
        template = self._template(sections[0], open_paren)
        outputs = self._operands(sections[1], "output", 0) if len(sections) > 1 else []
        inputs = self._operands(sections[2], "input", len(outputs)) if len(sections) > 2 else []
        clobbers = self._clobbers(sections[3]) if len(sections) > 3 else []
        labels = (
            tuple(t.text for t in sections[4] if t.kind == "ident") if len(sections) > 4 else ()
        )
        if len(sections) > 5:
            self.problems.append("more than four colons")
        return _RawStatement(
            qualifiers=tuple(qualifiers),
            extended=len(sections) > 1,
            template=template,
            operands=tuple(outputs + inputs),
            clobbers=tuple(clobbers),
            goto_labels=labels,
            colons=tuple(colons),
            open_paren=open_paren,
            end=end,
            problems=tuple(self.problems),
            opaque_sections=self.opaque_sections,
            missing_commas=tuple(self.missing_commas),
        )

    # -- template

    def _template(self, toks: list[Token], open_paren: int) -> Template:
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        pieces: list[TemplatePiece] = []
        i = 0
        while i < len(toks):
            tok = toks[i]
            begin = len(starts)  # one entry per template character so far
            kind, literal, at, end = tok
            if (
                kind == "string"
                and len(literal) > 1
                and literal[0] == literal[-1] == '"'
                and "\\" not in literal
            ):  # the usual literal, terminated, without escapes: decode_string_literal's reading
                chars.append(literal[1:-1])
                starts.extend(range(at + 1, end - 1))
                ends.extend(range(at + 2, end))
                pieces.append(TemplatePiece(kind, Span(at, end), begin, len(starts)))
                i += 1
                continue
            if kind in ("string", "raw"):
                if len(literal) > DECODED_CHARS:
                    decoded = decode_string_literal(tok)
                    spelled, terminated = decoded.text, decoded.terminated
                    starts.extend(decoded.starts)
                    ends.extend(decoded.ends)
                else:
                    spelled, runs, terminated = _decoded(kind, literal)
                    for first_start, first_end, count in runs:
                        starts.extend(range(at + first_start, at + first_start + count))
                        ends.extend(range(at + first_end, at + first_end + count))
                chars.append(spelled)
                if not terminated:
                    self.problems.append(broken_literal(len(pieces)))
                pieces.append(TemplatePiece(kind, Span(at, end), begin, begin + len(spelled)))
                i += 1
                continue
            # Anything else is a macro (or, in a #define body, a `#param` stringification).
            j = i + 1
            if tok.text == "#" and j < len(toks):
                j += 1
            if j < len(toks) and toks[j].text == "(":
                j = _skip_group(toks, j)
            piece_end = toks[j - 1].end
            value = self.macros.piece(toks[i:j], (tok.start, piece_end))
            if value is not None:
                chars.append(value.text)
                starts.extend(value.starts)
                ends.extend(value.ends)
            else:
                chars.append(HOLE)
                starts.append(tok.start)
                ends.append(piece_end)
            pieces.append(TemplatePiece("macro", Span(tok.start, piece_end), begin, len(starts)))
            i = j
        text = "".join(chars)
        if not pieces:
            self.problems.append("empty template section")
            starts, ends = [], []
            pieces.append(TemplatePiece("string", Span(open_paren + 1, open_paren + 1), 0, 0))
        return Template(text, starts, ends, tuple(pieces))  # made Offsets from the lists

    # -- operands

    def _operands(self, toks: list[Token], role: str, first_index: int) -> list[Operand]:
        operands: list[Operand] = []
        for group in _split_operands(toks, self.problems, self.missing_commas):
            if not group:
                continue
            operand = self._operand(group, role, first_index + len(operands))
            if operand is None:
                self.opaque_sections = True
                self.problems.append(unread_operand(role, group[0].start))
                continue
            operands.append(operand)
        return operands

    def _operand(self, group: list[Token], role: str, index: int) -> Operand | None:
        k = 0
        name = None
        if group[0].text == "[" and len(group) >= 3 and group[2].text == "]":
            name = group[1].text
            k = 3
        if group[-1].text != ")":
            return None
        # The expression is the last parenthesized group; everything before it is the constraint.
        depth = 0
        open_index = None
        for j in range(len(group) - 1, k - 1, -1):
            if group[j].text == ")":
                depth += 1
            elif group[j].text == "(":
                depth -= 1
                if depth == 0:
                    open_index = j
                    break
        if open_index is None or open_index == k:
            return None
        constraint = self._constraint(group[k:open_index])
        if constraint is None:
            return None
        open_tok, close_tok = group[open_index], group[-1]
        raw = self.source.text[open_tok.end : close_tok.start]
        lead = len(raw) - len(raw.lstrip())
        expression = raw.strip()
        expr_start = open_tok.end + lead
        return Operand(
            index=index,
            role=role,
            constraint=constraint,
            expression=expression,
            expression_span=Span(expr_start, expr_start + len(expression)),
            span=Span(group[0].start, close_tok.end),
            symbolic_name=name,
        )

    def _constraint(self, toks: list[Token]) -> Constraint | None:
        if not toks:
            return None
        span = Span(toks[0].start, toks[-1].end)
        if len(toks) == 1:  # the usual "r": one literal
            only = toks[0]
            if only[0] in _LITERALS:
                return _constraint_from_text(literal_value(only[0], only[1]), span)
        elif all(t.kind in _LITERALS for t in toks):
            text = "".join(literal_value(t.kind, t.text) for t in toks)
            return _constraint_from_text(text, span)
        return macro_constraint(self.source, self.macros, toks, span)

    def _clobbers(self, toks: list[Token]) -> list[Clobber]:
        clobbers: list[Clobber] = []
        for group in _split_commas(toks):
            if group and all(t.kind in ("string", "raw") for t in group):
                name = "".join(literal_value(t.kind, t.text) for t in group)
                clobbers.append(Clobber(name, Span(group[0].start, group[-1].end)))
            elif group:
                self.opaque_sections = True
        return clobbers


def macro_constraint(
    source: SourceFile, macros: MacroPieces, toks: Sequence[Token], span: Span
) -> Constraint:
    """The constraint spelled by ``toks`` (at ``span``), neither empty nor literals only: a
    macro's value where it expands to string literals (``__LDG_PTR``), literals and such
    macros side by side joined as the compiler joins adjacent literals after expanding them
    (``"=" _ASM_PTR_``, C++ [lex.phases] 6), else opaque. A name written right after a
    literal's closing quote is no macro but the literal's suffix (``"="_ASM_PTR_``: a
    user-defined literal since C++11, which nvcc rejects here): that stays opaque."""
    if len(toks) > 1 and any(t.kind in _LITERALS for t in toks) and all(
            t.kind in _LITERALS or t.kind == "ident" for t in toks) and not any(
            a.kind in _LITERALS and b.kind == "ident" and a.end == b.start
            for a, b in zip(toks, toks[1:], strict=False)):
        parts = [literal_value(t.kind, t.text) if t.kind in _LITERALS
                 else macros.constraint_text(t) for t in toks]
        if all(part is not None for part in parts):
            return _constraint_from_text("".join(p for p in parts if p is not None), span)
    if toks[0].kind == "ident":
        if len(toks) == 1:
            text = macros.constraint_text(toks[0])
        else:
            value = macros.piece(toks, (span.start, span.end))
            text = value.text if value is not None else None
        if text is not None:
            return _constraint_from_text(text, span)
    text = source.text[span.start : span.end]
    return Constraint(text=text, modifiers="", letters="", span=span, opaque=True)


def _constraint_from_text(text: str, span: Span) -> Constraint:
    modifiers, letters = constraint_parts(text)
    return Constraint(text=text, modifiers=modifiers, letters=letters, span=span)


@functools.lru_cache(maxsize=1024)
def constraint_parts(text: str) -> tuple[str, str]:
    modifiers = "".join(c for c in text if c in _MODIFIERS)
    letters = "".join(c for c in text if c not in _MODIFIERS and not c.isspace())
    return modifiers, letters


def _skip_group(toks: Sequence[Token], open_index: int) -> int:
    """Index just past the group opened at ``open_index``."""
    depth = 0
    for j in range(open_index, len(toks)):
        if toks[j].text in ("(", "[", "{"):
            depth += 1
        elif toks[j].text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def _split_operands(
    toks: list[Token], problems: list[str], missing_commas: list[tuple[int, int]]
) -> list[list[Token]]:
    """Operands split on commas, and also where a comma is missing: nvcc's front end reads
    ``"r"(a) "l"(b)`` as two operands (CUTLASS ships such code), GCC and clang reject it.

    One pass (the depth at a top-level comma is 0, so splitting on commas first and then
    within each piece counts the same depths)."""
    groups: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for tok in toks:
        text = tok[1]
        if depth == 0:
            if text == ",":
                groups.append(current)
                current = []
                continue
            if current and current[-1][1] == ")" and (tok[0] in _LITERALS or text == "["):
                missing_comma(problems, missing_commas, current[-1][2], tok[2])
                groups.append(current)
                current = []
        if text in _OPENING:
            depth += 1
        elif text in _CLOSING:
            depth -= 1
        current.append(tok)
    groups.append(current)
    return groups


def missing_comma(
    problems: list[str], missing_commas: list[tuple[int, int]], close: int, at: int
) -> None:
    """Note nvcc's missing comma between an operand ending at ``close`` and the next, at ``at``
    (both readers, the token path and the plain one, say it in these words)."""
    problems.append(missing_comma_problem(at))
    missing_commas.append((close, at))


def _split_commas(toks: list[Token]) -> list[list[Token]]:
    groups: list[list[Token]] = [[]]
    depth = 0
    for tok in toks:
        if tok.text in _OPENING:
            depth += 1
        elif tok.text in _CLOSING:
            depth -= 1
        if tok.text == "," and depth == 0:
            groups.append([])
            continue
        groups[-1].append(tok)
    return groups


_OPENING = frozenset("([{")


_CLOSING = frozenset(")]}")


_LITERALS = frozenset(("string", "raw"))


DECODED_CHARS = 512  # longer literals are decoded where they are, not kept


@functools.lru_cache(maxsize=4096)
def _decoded(kind: str, literal: str) -> tuple[str, tuple[tuple[int, int, int], ...], bool]:
    """``decode_string_literal`` of a literal spelled at offset 0, memoised (templates repeat
    their literals: "\\n\\t", "}\\n", ...): its text, whether it is terminated, and its
    offsets as runs (first start, first end, count) of characters whose starts and ends each
    step by one, so that a use adds the token's start per run, not per character."""
    decoded = decode_string_literal(Token(kind, literal, 0, len(literal)))
    runs: list[tuple[int, int, int]] = []
    last_start = last_end = -2
    for start, end in zip(decoded.starts, decoded.ends, strict=True):
        if runs and start == last_start + 1 and end == last_end + 1:
            first_start, first_end, count = runs[-1]
            runs[-1] = (first_start, first_end, count + 1)
        else:
            runs.append((start, end, 1))
        last_start, last_end = start, end
    return decoded.text, tuple(runs), decoded.terminated


class MacroPieces:
    """Template and constraint pieces that are macros (``STR(op)``, ``__LDG_PTR``), expanded
    with the file's #defines (and its relatively included headers'); the table is built on
    first use, once per file."""

    def __init__(self, source: SourceFile, forbidden: frozenset[str] = frozenset()) -> None:
        self.source = source
        self.forbidden = forbidden
        self._table: MacroTable | None = None
        # ``constraint_text`` by name and ``MacroTable.epoch``: bounded by the file's
        # identifiers (an epoch is a count of its own directives)
        self._constraints: dict[tuple[str, int], str | None] = {}

    @property
    def table(self) -> MacroTable:
        if self._table is None:
            self._table = MacroTable(self.source.path, self.source.text)
        return self._table

    def table_now(self) -> MacroTable:
        """``table``, as a bound method for those that read it later (``GuardMacros``,
        ``HostFunctions``): it holds these pieces, never their holder, so a file's objects
        form no cycle through it and go by reference counting when the file is done."""
        return self.table

    def with_forbidden(self, forbidden: frozenset[str]) -> MacroPieces:
        other = MacroPieces(self.source, forbidden)
        other._table = self._table
        if self._table is None:
            other._table = self.table
        return other

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        if not any(t.kind == "ident" for t in toks):
            return None
        return expand_to_string(self.table, self.source.text, toks, within, self.forbidden)

    def constraint_text(self, name: Token) -> str | None:
        """``piece([name], ...).text`` for a constraint spelled as one identifier
        (``__LDG_PTR``), or None: the same wherever the file's own directives before it are
        the same (``MacroTable.epoch``), so worked out once per name and epoch. The CUDA 13
        headers' sm_32_intrinsics.hpp spells 320 constraints so (``__LDG_PTR (ptr)``): its
        extraction takes 53-54 ms of CPU with the memo, 60-61 ms with an expansion each."""
        key = (name.text, self.table.epoch(name.start))
        memo = self._constraints
        if key not in memo:
            value = self.piece((name,), (name.start, name.end))
            memo[key] = value.text if value is not None else None
        return memo[key]


class RefusedPieces(MacroPieces):
    """For ``reread``: a macro piece needs the file's macro table, so the statement is read
    in full instead; ``asked`` says whether one came up."""

    def __init__(self, source: SourceFile) -> None:
        super().__init__(source)
        self.asked = False

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        if any(t.kind == "ident" for t in toks):
            self.asked = True
        return None

    def constraint_text(self, name: Token) -> str | None:
        self.asked = True
        return None


class NoPieces(MacroPieces):
    """An expansion is already expanded: what is left of its macros stays a hole."""

    def __init__(self) -> None:
        pass

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        return None

    def constraint_text(self, name: Token) -> str | None:
        return None
