"""The fast path for a statement written plainly: string literals, operands and clobbers read
with regular expressions straight from the text, no tokens. A statement with a macro, a
comment, a directive or anything else unusual inside it is left to the token reader
(:mod:`.statement_reader`), which gives the same reading. An operand section spelled as one
read before is made from that reading (``_KeptSections``)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Collection
from itertools import repeat, starmap

from ptxlint.frontends.cxx.lexer import SKIPPED, Token, decode_string_literal
from ptxlint.frontends.cxx.raw_statement import RawStatement as _RawStatement
from ptxlint.frontends.cxx.statement_reader import (
    DECODED_CHARS,
    MacroPieces,
    _decoded,
    constraint_parts,
    macro_constraint,
    missing_comma,
)
from ptxlint.frontends.cxx.statement_tokens import KEYWORD_WORDS, QUALIFIERS
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import (
    Clobber,
    Constraint,
    Offsets,
    Operand,
    Qualifier,
    SourceFile,
    SourceMap,
    Span,
    Template,
    TemplatePiece,
    new_span,
    operand_place,
    set_constraint_place,
    set_operand_place,
    set_source_map,
)
from ptxlint.model_slots import (
    C_LETTERS,
    C_MODIFIERS,
    C_OPAQUE,
    C_TEXT,
    O_CONSTRAINT,
    O_EXPRESSION,
    O_INDEX,
    O_NAME,
    O_ROLE,
    PIECE_KIND,
    PIECE_SPAN,
    PIECE_TEXT_END,
    PIECE_TEXT_START,
    SPAN_END,
    SPAN_START,
    T_TEXT,
    new,
    slot_setters,
)

# The reader's fast path. Most statements are plain: a template of string literals, and operands
# each of one plain constraint literal and a parenthesized expression without literals, comments
# or directives (``"=r"(d0)``, ``[p] "l"(ptr + 1)``, ``"n"(int32_t(scaleA))``). Such a statement
# is read with a regex match per operand instead of a token tuple per token (CUTLASS's GMMA
# header: 48,612 operands, 264,000 tokens); anything else returns None and the token path reads
# it, as it always did. Where this path gives a reading it is the token path's
# (tests/test_plain_reader.py checks the two against each other on generated statements).
#
# The patterns skip only blanks between tokens: one that skipped comments before a required
# token could, on failing, backtrack into a comment and find its token there (Python 3.10 has
# no atomic groups). Comments are skipped by the lexer's own pattern where a plain pattern
# fails (``_after_comments``), and a comment inside an operand sends the statement to the token
# path.
_BLANKS = r"[ \t\r\f\v\n]*"  # the lexer's blanks, without its line continuations


# An expression's characters: none that starts a literal, a comment or a directive, and no
# bracket; brackets nest, matched by kind (as the token path counts them). A backslash, a line
# continuation or not, changes no token that counts.
_EXPR_CHAR = r"""[^()\[\]{}"'/#]"""


_EXPR_RUN = rf"{_EXPR_CHAR}*(?:/(?![/*]){_EXPR_CHAR}*)*"


def _nested(depth: int) -> str:
    inner = _EXPR_RUN
    for _ in range(depth):
        inner = rf"{_EXPR_RUN}(?:(?:\({inner}\)|\[{inner}\]|\{{{inner}\}}){_EXPR_RUN})*"
    return inner


_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"  # the lexer's identifier


_PLAIN_WORD = re.compile(_BLANKS + rf"(?:({_IDENT})|\()")  # a qualifier, or the "("


# a string literal without prefix (the lexer's pattern)
_STRING = r'"[^"\\\n]*(?:(?:\\\r?\n|\\.)[^"\\\n]*)*"'


# a string literal, or a raw one without prefix (the lexer's pattern: CCCL writes templates so)
_PLAIN_LITERAL = on_first_use(
    _BLANKS + "(" + _STRING + r'|R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")',
    re.S,
)


# Templates of string literals with blanks between them, each literal as ``_PLAIN_LITERAL``
# matches it: the whole run in one match, its literals and their bodies found by C loops
# (``_literal_run``), where a match a literal made a Python iteration of the reading
_PLAIN_STRINGS = re.compile(f"(?:{_BLANKS}{_STRING})+", re.S)
_STRING_LITERAL = re.compile(_STRING, re.S)
_STRING_BODY = re.compile(_STRING.replace('"', '"(', 1)[:-1] + ')"', re.S)
# an escape other than ``\n`` and ``\t``, or a line continuation: decoded per literal
_OTHER_ESCAPE = re.compile(r"\\[^nt]")


_PLAIN_SEP = re.compile(_BLANKS + r"([,:)])")
_RUN_END = re.compile(_BLANKS + r"(?=[,:)])")  # blanks before a separator


# up to the "(" of the expression
_OPERAND_HEAD = (
    _BLANKS
    + rf"(?P<op>(?:\[{_BLANKS}(?P<name>{_IDENT}){_BLANKS}\]{_BLANKS})?"
    + r'"(?P<con>[^"\\\n]*)")'
    + _BLANKS
    + r"\("
)


# after the ")": a separator, or the literal or "[" of an operand after a missing comma
_OPERAND_TAIL = _BLANKS + r'(?P<sep>[,:)"\[])?'


# a whole operand whose expression nests brackets two deep (deeper: ``_expression_end``)
_PLAIN_OPERAND = re.compile(_OPERAND_HEAD + rf"(?P<expr>{_nested(2)})\)" + _OPERAND_TAIL)


_PLAIN_HEAD = on_first_use(_OPERAND_HEAD)


# an operand whose constraint is one identifier, a macro (``__LDG_PTR (ptr)``), up to its
# expression's "(": groups numbered as ``_PLAIN_HEAD``'s
_MACRO_HEAD = on_first_use(
    _BLANKS
    + rf"(?P<op>(?:\[{_BLANKS}(?P<name>{_IDENT}){_BLANKS}\]{_BLANKS})?(?P<con>{_IDENT}))"
    + _BLANKS
    + r"\("
)


_PLAIN_TAIL = on_first_use(_OPERAND_TAIL)


_PLAIN_RUN = on_first_use(_EXPR_RUN)


_PLAIN_CLOSERS = {"(": ")", "[": "]", "{": "}"}


_PLAIN_CLOBBER = on_first_use(
    _BLANKS + r'(?P<lit>"(?P<name>[^"\\\n]*)")' + _BLANKS + r"(?P<sep>[,:)])?"
)


_TOKEN_LIMIT = 200_000  # code_tokens' bound on a statement's tokens (each at least a character)


def _after_comments(text: str, pos: int) -> int:
    """Where the blanks, comments and line continuations from ``pos`` end (the lexer's own
    pattern: the token path skips the same), or -1 where there are none."""
    end = SKIPPED().match(text, pos).end()  # type: ignore[union-attr]  # matches ""
    return end if end > pos else -1


def _expression_end(text: str, pos: int) -> int:
    """The offset of the ")" that closes the expression starting at ``pos`` (after its "("),
    brackets nested to any depth, comments (``"r"(/*as_b32*/ x)``) skipped as the lexer skips
    them; -1 where the expression is not plain."""
    closers = [")"]
    while True:
        pos = _PLAIN_RUN().match(text, pos).end()  # type: ignore[union-attr]  # matches ""
        c = text[pos : pos + 1]
        closer = _PLAIN_CLOSERS.get(c)
        if closer is not None:
            closers.append(closer)
        elif c and c == closers[-1]:
            closers.pop()
            if not closers:
                return pos
        elif c == "/":  # the run stops at a "/" only where a comment starts
            pos = SKIPPED().match(text, pos).end()  # type: ignore[union-attr]
            continue
        else:
            return -1
        pos += 1


def _tail(text: str, pos: int) -> re.Match[str]:
    tail = _PLAIN_TAIL().match(text, pos)
    assert tail is not None  # its every part is optional
    return tail


def read_plain(
    source: SourceFile, start: int, keyword: str, pieces: MacroPieces | None = None
) -> _RawStatement | None:
    """``StatementReader(source, code_tokens(source.text, start), pieces, False).read()`` for
    the statement whose keyword ``keyword`` is at ``start``, where the statement is plain
    (above); None where it is not. With ``pieces``, an operand's constraint may also be one
    identifier, read as the token path reads it (``macro_constraint``); without, such a
    statement is not plain. O(length of the statement), a few regex matches per operand."""
    text = source.text
    pos = start + len(keyword)
    qualifiers: list[Qualifier] = []
    while True:
        m = _PLAIN_WORD.match(text, pos)
        if m is None:
            pos = _after_comments(text, pos)
            if pos < 0:
                return None
            continue
        pos = m.end()
        word = m.group(1)
        if word is None:
            break
        if word not in QUALIFIERS:
            return None
        qualifiers.append(_qualifier(word, m.start(1), pos))
    open_paren = pos - 1
    first = pos
    run = _literal_run(text, pos)
    literals: list[tuple[str, int, int]] = []  # (spelling, start, end), where not one run
    if run is not None:
        pos = run[1]
    else:
        while True:
            m = _PLAIN_LITERAL().match(text, pos)
            if m is None:
                after = _after_comments(text, pos)
                if after < 0:
                    break
                pos = after
                continue
            pos = m.end()
            literals.append((m.group(1), m.start(1), pos))
    m = _PLAIN_SEP.match(text, pos)
    if (run is None and not literals) or m is None:
        return None
    sep = m.group(1)
    pos = m.end()
    colons: list[int] = []
    operands: list[Operand] = []
    clobbers: list[Clobber] = []
    problems: list[str] = []
    missing_commas: list[tuple[int, int]] = []
    while sep == ":":
        colons.append(pos - 1)
        if len(colons) == 1:
            read = _plain_operands(
                source, pos, "output", operands, problems, missing_commas, pieces
            )
        elif len(colons) == 2:
            read = _plain_operands(source, pos, "input", operands, problems, missing_commas, pieces)
        elif len(colons) == 3:
            read = _plain_clobbers(text, pos, clobbers)
        else:
            return None  # goto labels, or a fifth section
        if read is None:
            return None
        pos, sep = read
    if sep != ")" or pos - start >= _TOKEN_LIMIT:
        return None
    template = _plain_template(literals) if run is None else _run_template(text, first, run[0])
    if template is None:
        return None
    return _RawStatement(
        qualifiers=tuple(qualifiers),
        extended=bool(colons),
        template=template,
        operands=tuple(operands),
        clobbers=tuple(clobbers),
        goto_labels=(),
        colons=tuple(colons),
        open_paren=open_paren,
        end=pos,
        problems=tuple(problems),
        opaque_sections=False,
        missing_commas=tuple(missing_commas),
    )


def _qualifier(word: str, start: int, end: int) -> Qualifier:
    """``Qualifier(word, Span(start, end))``, filled slot by slot (the spans are in order)."""
    qualifier = new(Qualifier)
    _Q_NAME(qualifier, word)
    _Q_SPAN(qualifier, new_span(start, end))
    return qualifier


def _clobber(name: str, start: int, end: int) -> Clobber:
    """``Clobber(name, Span(start, end))``, filled slot by slot: the frozen ``__init__`` and
    ``Span``'s order check cost about as much as the rest of a clobber's reading."""
    clobber = new(Clobber)
    _CL_NAME(clobber, name)
    _CL_SPAN(clobber, new_span(start, end))
    return clobber


_Q_NAME, _Q_SPAN = slot_setters(Qualifier, ("name", "span"))
_CL_NAME, _CL_SPAN = slot_setters(Clobber, ("name", "span"))


def _literal_run(text: str, pos: int) -> tuple[int, int] | None:
    """Where the template's literals end, read from ``pos`` (after the "("), and where the
    literal loop of ``read_plain`` stops after them (past blanks and comments), where they
    are string literals with only blanks between them (``_PLAIN_STRINGS``) and that loop
    would read no more of them (no comment or raw literal follows); else None. Most
    templates are such a run: CUTLASS's ``include/`` holds 38,000 literals in 3,217
    templates, the CUDA 13 headers 6,600 in 3,746, each a Python iteration of that loop
    (a match, a tuple) and of ``_plain_template``'s (a decoding), where a run takes a few
    matches. ``read_plain`` over every asm keyword of CUTLASS's ``include/``: 8.392 -> 8.284
    G instructions for the whole bench (cachegrind), the CUDA 13 headers' 3.271 -> 3.248 G."""
    m = _PLAIN_STRINGS.match(text, pos)
    if m is None:
        return None
    end = at = m.end()
    # the usual end: blanks, then the separator that ends the template (no literal, no
    # comment, no line continuation), found in one match where the loop below takes three
    tail = _RUN_END.match(text, at)
    if tail is not None:
        return end, tail.end()
    while True:  # what the literal loop reads past the run: blanks and comments, no literal
        if _PLAIN_LITERAL().match(text, at) is not None:
            return None
        after = _after_comments(text, at)
        if after < 0:
            return end, at
        at = after


def _run_template(text: str, pos: int, end: int) -> Template | None:
    """``_plain_template`` of the run of string literals in ``text[pos:end]``
    (``_literal_run``). Where no literal holds an escape other than ``\\n`` and ``\\t`` (no
    line continuation either), its text is their bodies joined and those two escapes
    replaced, in C; the literals themselves are found when the source map or the pieces are
    first read (``LiteralMap``). Else each literal is decoded as ``_plain_template`` does."""
    if _OTHER_ESCAPE.search(text, pos, end) is not None:
        literals = [
            (m.group(), m.start(), m.end()) for m in _STRING_LITERAL.finditer(text, pos, end)
        ]
        return _plain_template(literals)
    bodies = _STRING_BODY.findall(text, pos, end)
    joined = "".join(bodies)
    if "\\" in joined:  # each backslash starts a \n or a \t: replaced in one pass each
        joined = joined.replace("\\n", "\n").replace("\\t", "\t")
    template = new(Template)
    T_TEXT(template, joined)
    source_map = new(LiteralMap)
    _LM_RUN(source_map, (text[pos:end], pos, len(bodies)))
    set_source_map(template, source_map)
    return template


def _plain_template(literals: list[tuple[str, int, int]]) -> Template | None:
    """``StatementReader._template`` of ``read_plain``'s literals (terminated, unprefixed
    but for raw ones' ``R``, at least one), without a token per literal: its text, with the
    source map and the pieces left to be made when first read (``LiteralMap``); None where
    one decodes as unterminated (the token path then reads it)."""
    chars: list[str] = []
    for literal, at, end in literals:
        if literal[0] == "R":  # decode_string_literal's reading of a raw one: its body
            body_start, body_end = _raw_body(literal)
            spelled = literal[body_start:body_end]
        elif "\\" not in literal:  # decode_string_literal's reading of it
            spelled = literal[1:-1]
        else:
            spelled, terminated = _decoded_text(literal, at, end)
            if not terminated:
                return None
        chars.append(spelled)
    template = new(Template)
    T_TEXT(template, "".join(chars))
    source_map = new(LiteralMap)
    _LM_LITERALS(source_map, literals)
    set_source_map(template, source_map)
    return template


def _decoded_text(literal: str, at: int, end: int) -> tuple[str, bool]:
    """The text of a literal with escapes, and whether it is terminated."""
    if len(literal) > DECODED_CHARS:
        decoded = decode_string_literal(Token("string", literal, at, end))
        return decoded.text, decoded.terminated
    spelled, _, terminated = _decoded("string", literal)
    return spelled, terminated


class LiteralMap(SourceMap):
    """The source map and the pieces of a template of plain string literals, ``(spelling,
    start, end)`` each (``read_plain``'s): made as ``StatementReader._template`` makes them,
    when first read (most are never read: ``model.set_source_map``). ``read_plain`` over
    CUTLASS's ``include/``: 0.34 s -> 0.26 s of CPU, its templates' part 0.097 s -> 0.027 s.
    The pieces, a ``Span`` and a ``TemplatePiece`` per literal (37,800 literals in CUTLASS's
    3,090 plain templates; 6,000 in the CUDA 13 headers' 3,465), are made for the templates
    whose pieces something reads (a fix, PTX205 where two pieces may run together, the
    language server); their count is answered from the literals (``piece_count``: PTX205 and
    the rule memo ask it of every template). A lint makes the pieces of 116 of CUTLASS's
    templates (201 pieces) and of 273 of the CUDA headers' (561 pieces), and
    ``_plain_template`` of its 3,090 plain templates (warm, repeated) takes 36-38 ms -> 17 ms
    of CPU.

    A template read as one run of string literals (``_run_template``) keeps the run's text,
    where it starts and how many literals it holds (``_run``) instead of the literals, found
    on the first read of the map or the pieces (``_read``)."""

    __slots__ = ("_literals", "_run")

    _literals: list[tuple[str, int, int]]
    _run: tuple[str, int, int]  # (the run's text, its offset, its count of literals)

    def _read(self) -> list[tuple[str, int, int]]:
        try:
            return self._literals
        except AttributeError:  # left as a run
            spelled, at, _ = self._run
            literals = [
                (m.group(), at + m.start(), at + m.end())
                for m in _STRING_LITERAL.finditer(spelled)
            ]
            self._literals = literals
            return literals

    def pieces(self) -> tuple[TemplatePiece, ...]:
        pieces: list[TemplatePiece] = []
        begin = 0
        for literal, at, end in self._read():
            kind = "string"
            if literal[0] == "R":
                kind = "raw"
                body_start, body_end = _raw_body(literal)
                text_end = begin + body_end - body_start
            elif "\\" not in literal:
                text_end = begin + len(literal) - 2
            else:
                text_end = begin + len(_decoded_text(literal, at, end)[0])
            span = new(Span)
            SPAN_START(span, at)
            SPAN_END(span, end)
            piece = new(TemplatePiece)
            PIECE_KIND(piece, kind)
            PIECE_SPAN(piece, span)
            PIECE_TEXT_START(piece, begin)
            PIECE_TEXT_END(piece, text_end)
            pieces.append(piece)
            begin = text_end
        return tuple(pieces)

    def piece_count(self, kinds: Collection[str]) -> int:
        try:
            literals = self._literals
        except AttributeError:  # a run: string literals only
            return self._run[2] if "string" in kinds else 0
        if "string" in kinds and "raw" in kinds:
            return len(literals)
        raw = sum(1 for literal, _, _ in literals if literal[0] == "R")
        return (raw if "raw" in kinds else 0) + (len(literals) - raw if "string" in kinds else 0)

    def arrays(self) -> tuple[Offsets, Offsets]:
        starts: list[int] = []
        ends: list[int] = []
        for literal, at, end in self._read():
            if literal[0] == "R":
                body_start, body_end = _raw_body(literal)
                starts.extend(range(at + body_start, at + body_end))
                ends.extend(range(at + body_start + 1, at + body_end + 1))
            elif "\\" not in literal:
                starts.extend(range(at + 1, end - 1))
                ends.extend(range(at + 2, end))
            elif len(literal) > DECODED_CHARS:
                decoded = decode_string_literal(Token("string", literal, at, end))
                starts.extend(decoded.starts)
                ends.extend(decoded.ends)
            else:
                for first_start, first_end, count in _decoded("string", literal)[1]:
                    starts.extend(range(at + first_start, at + first_start + count))
                    ends.extend(range(at + first_end, at + first_end + count))
        return Offsets("q", starts), Offsets("q", ends)


_LM_LITERALS = LiteralMap.__dict__["_literals"].__set__
_LM_RUN = LiteralMap.__dict__["_run"].__set__


def _raw_body(literal: str) -> tuple[int, int]:
    """Where the body of the raw literal ``R"delim(...)delim"`` starts and ends in it."""
    paren = literal.index("(")
    return paren + 1, len(literal) - (paren - 2) - 2


def _plain_operands(
    source: SourceFile,
    pos: int,
    role: str,
    operands: list[Operand],
    problems: list[str],
    missing_commas: list[tuple[int, int]],
    pieces: MacroPieces | None,
) -> tuple[int, str] | None:
    """Read the operands of a section from ``pos`` (after its colon) onto ``operands``, their
    missing commas onto ``problems`` and ``missing_commas``, as ``_operands`` reads them; where
    the section ends (after its ":" or ")") and that separator, or None where not plain.
    ``pieces``: as ``read_plain``'s. A section whose text was read before is made from that
    reading (``_KEPT``)."""
    text = source.text
    kept = _KEPT.find(text, pos)
    if kept is not None:
        return kept.made(pos, role, operands, problems, missing_commas)
    first, first_comma = len(operands), len(missing_commas)
    read = _read_operands(source, pos, role, operands, problems, missing_commas, pieces)
    if read is None:
        return None
    end, sep, macro = read
    # a constraint spelled as a macro's name is the file's value (``pieces``), not the text's
    if end - pos >= _KEPT_FROM and not macro:
        reading = _KeptSection.of(
            text[pos:end], operands[first:], missing_commas[first_comma:], pos, sep
        )
        _KEPT.keep(reading)
    return end, sep


# Shorter sections (about four operands) are not kept: made from a kept reading, they would
# cost about as much as reading them.
_KEPT_FROM = 80


_drain = deque[object](maxlen=0).extend  # runs an iterator of setter calls to its end, in C
# A column's calls are made by ``starmap`` over a ``zip``, not by ``map``: ``map`` hands a
# setter (a method-wrapper, called with an argument tuple) a tuple made and freed a call, where
# ``zip`` reuses its one tuple once the call let go of it; so does ``repeat`` of one argument
# tuple for ``object.__new__``. A slot set costs 336 instructions against 530, an object made
# 770 against 990 (cachegrind, a million each); ``_KeptSection.made`` over CUTLASS's
# ``include/`` (137,000 operands, eleven slots and two objects each) made with ``map``,
# ``read_plain`` over every asm keyword there took 2,023 M instructions; so, 1,824 M.
_starmap = starmap
_CONSTRAINT, _OPERAND = (Constraint,), (Operand,)


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class _KeptSection:
    """A plain operand section's reading, its offsets from where the section starts (after
    its colon): what ``_read_operands`` reads of the same text wherever it is. The reader
    looks at no character past the section's separator, so the text up to it decides the
    whole reading; one whose constraint is a macro is never kept (its value is the file's)."""

    __slots__ = (
        "text", "sep", "constraints", "modifiers", "letters", "expressions", "names", "offsets",
        "missing_commas",
    )

    def __init__(
        self, text: str, sep: str, constraints: tuple[str, ...], modifiers: tuple[str, ...],
        letters: tuple[str, ...], expressions: tuple[str, ...], names: tuple[str | None, ...],
        offsets: tuple[tuple[int, int, int, int], ...],
        missing_commas: tuple[tuple[int, int], ...],
    ) -> None:
        self.text = text  # from after the colon to after the separator
        self.sep = sep  # ":" or ")"
        self.constraints = constraints  # each operand's, by column
        self.modifiers = modifiers
        self.letters = letters
        self.expressions = expressions
        self.names = names
        # each operand's place's offsets (``model.Place``), from the section's start: shared by
        # every operand made from this reading
        self.offsets = offsets
        self.missing_commas = missing_commas

    @classmethod
    def of(
        cls,
        text: str,
        made: list[Operand],
        missing_commas: list[tuple[int, int]],
        pos: int,
        sep: str,
    ) -> _KeptSection:
        """The reading of the section ``text`` at ``pos``: the operands ``made`` of it
        (constraints literals, spans left to be made when first read) and its missing
        commas."""
        constraints = [operand.constraint for operand in made]
        return cls(
            text=text,
            sep=sep,
            constraints=tuple(c.text for c in constraints),
            modifiers=tuple(c.modifiers for c in constraints),
            letters=tuple(c.letters for c in constraints),
            expressions=tuple(operand.expression for operand in made),
            names=tuple(operand.symbolic_name for operand in made),
            offsets=tuple(_offsets_from(operand, pos) for operand in made),
            missing_commas=tuple((close - pos, at - pos) for close, at in missing_commas),
        )

    def made(
        self,
        pos: int,
        role: str,
        operands: list[Operand],
        problems: list[str],
        missing_commas: list[tuple[int, int]],
    ) -> tuple[int, str]:
        """``_read_operands``'s work for this section at ``pos``: its operands made as that
        makes them (slot by slot, spans made when first read, the type slot left empty for
        ``OperandTypes``), a column at a time, each column's slots set in one C loop, each
        operand's place this reading's offsets from ``pos`` (one pair, shared by the operand
        and its constraint); where it ends and its separator."""
        count = len(self.constraints)
        places = list(zip(self.offsets, repeat(pos)))
        constraints = list(_starmap(new, repeat(_CONSTRAINT, count)))
        _drain(_starmap(C_TEXT, zip(constraints, self.constraints, strict=True)))
        _drain(_starmap(C_MODIFIERS, zip(constraints, self.modifiers, strict=True)))
        _drain(_starmap(C_LETTERS, zip(constraints, self.letters, strict=True)))
        _drain(_starmap(C_OPAQUE, zip(constraints, repeat(False), strict=False)))
        _drain(_starmap(set_constraint_place, zip(constraints, places, strict=True)))
        made = list(_starmap(new, repeat(_OPERAND, count)))
        first = len(operands)
        _drain(_starmap(O_INDEX, zip(made, range(first, first + count), strict=True)))
        _drain(_starmap(O_ROLE, zip(made, repeat(role), strict=False)))
        _drain(_starmap(O_CONSTRAINT, zip(made, constraints, strict=True)))
        _drain(_starmap(O_EXPRESSION, zip(made, self.expressions, strict=True)))
        _drain(_starmap(O_NAME, zip(made, self.names, strict=True)))
        _drain(_starmap(set_operand_place, zip(made, places, strict=True)))
        operands.extend(made)
        for close, next_at in self.missing_commas:
            missing_comma(problems, missing_commas, pos + close, pos + next_at)
        return pos + len(self.text), self.sep


def _offsets_from(operand: Operand, pos: int) -> tuple[int, int, int, int]:
    """The offsets of ``operand``'s place (``_read_operands``'s: spans left to be made, the
    constraint a literal) from ``pos``."""
    place = operand_place(operand)
    assert place is not None  # the reader's, its spans left to be made when first read
    offsets, base = place
    start, end, expression, literal = offsets
    at = base - pos
    return start + at, end + at, expression + at, literal + at


class _KeptSections:
    """The readings of the operand sections read so far, found by the text at a section's
    start. A header spells the same sections again and again (CUTLASS's ``include/``: 6,164
    sections holding 143,024 operands, 562 distinct texts holding 6,635; the CUDA 13 headers
    6,881 and 498, flashinfer 7,213 and 1,400), and a section made from its kept reading takes
    no regex match per operand: 0.8 us an operand against 1.6 us read. ``read_plain`` over
    CUTLASS's ``include/``: 0.33-0.38 s -> 0.24-0.27 s of CPU; the CUDA 13 headers 0.071-0.078
    s -> 0.066-0.074 s; flashinfer about the same (0.10-0.12 s), most of its repeated sections
    being short. Bounded: at most ``LIMIT`` characters of section text (10-19 bytes kept a
    character: CUTLASS's 86,539 characters kept hold 1.6 MB; flashinfer's 134,866, 1.3 MB), all
    let go of when a new one would pass it."""

    LIMIT = 1 << 18
    PREFIX = 32  # the characters a look-up hashes (no kept section is shorter)

    __slots__ = ("readings", "_chars")

    def __init__(self) -> None:
        # by their first PREFIX characters; no text is the start of another (the reading of
        # the shorter would have ended the longer there), so at most one is at a place
        self.readings: dict[str, list[_KeptSection]] = {}
        self._chars = 0

    def find(self, text: str, pos: int) -> _KeptSection | None:
        """The kept reading of the section at ``pos`` of ``text``, if one is kept."""
        kept = self.readings.get(text[pos : pos + self.PREFIX])
        if kept is not None:
            for reading in kept:
                if text.startswith(reading.text, pos):
                    return reading
        return None

    def keep(self, reading: _KeptSection) -> None:
        size = len(reading.text)
        if self._chars + size > self.LIMIT:
            self.forget()
        self.readings.setdefault(reading.text[: self.PREFIX], []).append(reading)
        self._chars += size

    def forget(self) -> None:
        self.readings.clear()
        self._chars = 0


_KEPT = _KeptSections()


def _read_operands(
    source: SourceFile,
    pos: int,
    role: str,
    operands: list[Operand],
    problems: list[str],
    missing_commas: list[tuple[int, int]],
    pieces: MacroPieces | None,
) -> tuple[int, str, bool] | None:
    """``_plain_operands``'s reading, by regex matches from the text; with whether a
    constraint was a macro's name. It looks at no character past the separator that ends the
    section: the kept readings (``_KeptSection``) rest on it."""
    text = source.text
    macros = False
    # groups by number, all at once: op 1, name 2, con 3 (and in _PLAIN_OPERAND expr 4, sep 5)
    while True:
        macro = False
        m = _PLAIN_OPERAND.match(text, pos)
        if m is not None:  # the usual operand, in one match
            _, name, con, expr, sep = m.groups()
            op_at, con_at, expr_at = m.start(1), m.start(3), m.start(4)
            close = expr_at + len(expr)
            tail = m
        else:
            head = _PLAIN_HEAD().match(text, pos)
            if head is None:
                m = _PLAIN_SEP.match(text, pos)  # an empty operand, or the section's end
                if m is not None:
                    pos = m.end()
                    if m.group(1) == ",":
                        continue
                    return pos, m.group(1), macros
                # a separator and a macro's name cannot both start here: asked after it, as
                # a section ends empty far more often than a constraint is a macro
                if pieces is not None:
                    head = _MACRO_HEAD().match(text, pos)
                    macro = head is not None
                if head is None:
                    pos = _after_comments(text, pos)
                    if pos < 0:
                        return None
                    continue
            _, name, con = head.groups()
            op_at, con_at, expr_at = head.start(1), head.start(3), head.end()
            close = _expression_end(text, expr_at)
            if close < 0:
                return None
            expr = text[expr_at:close]
            tail = _tail(text, close + 1)
            sep = tail.group("sep")
        if sep is None:
            after = _after_comments(text, tail.end())
            if after < 0:
                return None
            tail = _tail(text, after)
            sep = tail.group("sep")
            if sep is None:
                return None
        if "asm" in expr or name in KEYWORD_WORDS:
            return None  # an asm keyword inside would have ended the token stream
        expression = expr.strip()
        # where nothing was stripped (most), it starts where it is spelled
        expr_start = expr_at if expression is expr else expr_at + len(expr) - len(expr.lstrip())
        if macro:
            if con in KEYWORD_WORDS:
                return None
            assert pieces is not None
            macros = True
            con_end = con_at + len(con)
            name_token = Token("ident", con, con_at, con_end)
            constraint = macro_constraint(source, pieces, (name_token,), Span(con_at, con_end))
        else:
            # Constraint(con, modifiers, letters, span), filled slot by slot, its span made
            # when first read
            modifiers, letters = constraint_parts(con)
            constraint = new(Constraint)
            C_TEXT(constraint, con)
            C_MODIFIERS(constraint, modifiers)
            C_LETTERS(constraint, letters)
            C_OPAQUE(constraint, False)
        # its place (``model.Place``), absolute: the constraint literal starts at its quote
        place = ((op_at, close + 1, expr_start, con_at - 1), 0)
        if not macro:
            set_constraint_place(constraint, place)
        # Operand(len(operands), role, constraint, expression, ...), filled slot by slot, its
        # spans made when first read, its type slot left empty (None unless extraction
        # leaves it to be worked out: ``model.OperandTypes``)
        operand = new(Operand)
        O_INDEX(operand, len(operands))
        O_ROLE(operand, role)
        O_CONSTRAINT(operand, constraint)
        O_EXPRESSION(operand, expression)
        O_NAME(operand, name)
        set_operand_place(operand, place)
        operands.append(operand)
        if sep == '"' or sep == "[":  # nvcc's missing comma (see _split_operands)
            pos = tail.start("sep")
            missing_comma(problems, missing_commas, close, pos)
            continue
        pos = tail.end()
        if sep != ",":
            return pos, sep, macros


def _plain_clobbers(text: str, pos: int, clobbers: list[Clobber]) -> tuple[int, str] | None:
    """Read the clobbers from ``pos`` (after their colon) onto ``clobbers``; where they end
    (after the ")" or a ":") and that separator, or None where not plain."""
    while True:
        m = _PLAIN_CLOBBER().match(text, pos)
        if m is None:
            m = _PLAIN_SEP.match(text, pos)  # an empty clobber, or the end
            if m is None:
                pos = _after_comments(text, pos)
                if pos < 0:
                    return None
                continue
            sep = m.group(1)
            pos = m.end()
        else:
            clobbers.append(_clobber(m.group("name"), *m.span("lit")))
            sep = m.group("sep")
            pos = m.end()
            if sep is None:  # a comment before the separator, or not plain
                after = _after_comments(text, pos)
                m = _PLAIN_SEP.match(text, after) if after >= 0 else None
                if m is None:
                    return None
                sep = m.group(1)
                pos = m.end()
        if sep != ",":
            return pos, sep
