"""A plain template's source map and pieces made when first read (``plain_reader.LiteralMap``,
``model.set_source_map``): the arrays and pieces the token path makes, at the statement's place
(moved readings too), and every way of reading a template sees them; ``model.piece_count``
counts the pieces without making them."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from ptxlint.frontends.cxx import extract as ex
from ptxlint.frontends.cxx.plain_reader import LiteralMap
from ptxlint.frontends.cxx.statement_reader import DECODED_CHARS
from ptxlint.model import Offsets, SourceFile, Template, piece_count, source_map

_LONG = "mov.b32 %0, %1;\\n\\t" * (DECODED_CHARS // 8)  # decoded where it is, not memoised
_TEMPLATES = [
    '"nop;"',
    '""',
    '"add.u32 %0, %1, 1;\\n\\t" "nop;"',
    '"a\\x41\\101\\"b" "" "\\\\"',
    f'"{_LONG}" "ret;"',
    '"\\\n  bar.sync 0;"',  # a line continuation inside the literal
    'R"YYY(\n  mov.b32 %0, %1;\n)YYY" "nop;" R"()"',  # raw literals (CCCL's templates)
    f'R"({_LONG})"',
    # one run of string literals (read_plain's _literal_run), and where the run is not all
    '"{\\n\\t"\n  "mov.u32 %0, %1;\\n\\t"\n\t"}"',
    '"a;\\n" "b;\\\\n"',  # an escaped backslash before an n
    '"a;\\n" /* c */ "b;"',  # a comment between literals
    '"a;\\t" // c\n "b;"',
    '"a;" R"(b;)"',  # a raw literal after the run
    '"nop;" /* c */',
    '"a;\\r\\n"',
]


def _made(template: Template, name: str = "char_starts") -> bool:
    try:
        Template.__dict__[name].__get__(template, Template)
    except AttributeError:
        return False
    return True


def _both(template: str, pad: str = "") -> tuple[Template, Template]:
    text = f'{pad}void f(int a) {{ asm volatile({template} : "=r"(a)); }}\n'
    source = SourceFile("t.cu", text)
    start = text.index("asm")
    plain = ex.read_plain(source, start, "asm")
    tokens = ex.StatementReader(source, ex.code_tokens(text, start), ex.NoPieces(), False).read()
    assert plain is not None and tokens is not None
    return plain.template, tokens.template


def test_the_map_is_made_only_when_read_and_is_the_token_paths() -> None:
    for literals in _TEMPLATES:
        plain, tokens = _both(literals, pad="int x;\n")
        assert not _made(plain) and source_map(plain) is not None
        assert source_map(tokens) is None  # made with its arrays
        assert type(plain.char_ends) is Offsets and _made(plain)
        assert list(plain.char_starts) == list(tokens.char_starts), literals
        assert list(plain.char_ends) == list(tokens.char_ends), literals
        n = len(plain.text)
        for a in range(0, n + 1, max(1, n // 7)):
            assert plain.source_span(a, a + 3) == tokens.source_span(a, a + 3)


def test_every_way_of_reading_an_unmade_map_sees_the_arrays() -> None:
    for literals in _TEMPLATES:
        tokens = _both(literals)[1]
        for read in (
            lambda t: t,
            copy.copy,
            copy.deepcopy,
            lambda t: pickle.loads(pickle.dumps(t)),
            lambda t: dataclasses.replace(t),
        ):
            assert read(_both(literals)[0]) == tokens, literals
        assert hash(_both(literals)[0]) == hash(tokens)
        assert repr(_both(literals)[0]) == repr(tokens)


def test_the_pieces_are_made_only_when_read_and_are_the_token_paths() -> None:
    for literals in _TEMPLATES:
        plain, tokens = _both(literals, pad="int x;\n")
        assert not _made(plain, "pieces")
        assert plain.pieces == tokens.pieces, literals
        assert _made(plain, "pieces") and not _made(plain)  # the arrays are still to be made
        assert plain.pieces[0].span.start == tokens.pieces[0].span.start > 0


def test_piece_count_counts_the_pieces_without_making_them() -> None:
    kinds_asked = (("string", "raw"), ("string",), ("raw",), ("macro",), ())
    for literals in _TEMPLATES:
        plain, tokens = _both(literals)
        for kinds in kinds_asked:
            expected = sum(1 for p in tokens.pieces if p.kind in kinds)
            assert piece_count(plain, kinds) == expected, (literals, kinds)
            assert piece_count(tokens, kinds) == expected
        assert not _made(plain, "pieces")
        _ = plain.pieces
        assert piece_count(plain, ("raw",)) == sum(1 for p in plain.pieces if p.kind == "raw")


def _literals_made(template: Template) -> bool:
    made = source_map(template)
    assert isinstance(made, LiteralMap)
    try:
        LiteralMap.__dict__["_literals"].__get__(made, LiteralMap)
    except AttributeError:
        return False
    return True


def test_a_run_of_string_literals_leaves_its_literals_to_the_first_read() -> None:
    plain, tokens = _both('"{\\n\\t" "mov.u32 %0, %1;\\n\\t"\n  "}"')
    assert plain.text == tokens.text == "{\n\tmov.u32 %0, %1;\n\t}"
    assert not _literals_made(plain)
    assert piece_count(plain, ("string",)) == 3 and piece_count(plain, ("raw",)) == 0
    assert not _literals_made(plain)  # counted without them
    assert plain.pieces == tokens.pieces
    assert _literals_made(plain)
    assert list(plain.char_starts) == list(tokens.char_starts)


def test_literals_not_one_run_are_read_one_at_a_time() -> None:
    for literals in ('"a;\\n" /* c */ "b;"', '"a;" R"(b;)"', '"a;\\\\n"', '"a;\\r"'):
        plain, tokens = _both(literals)
        assert _literals_made(plain), literals
        assert plain.text == tokens.text, literals
