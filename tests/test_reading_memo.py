"""The plain reader's memo (``ptxlint.frontends.cxx.reading_memo``): a reading kept at one place and moved to
another must be exactly what ``plain_reader.read_plain`` reads there, field by field."""

from __future__ import annotations

import dataclasses
import random

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import extract as ex
from ptxlint.frontends.cxx import reading_memo, statement_tokens
from ptxlint.model import CType, Offsets, SourceFile, Template
from tests.test_plain_reader import _statement

# What may follow a statement's ")" or precede its keyword: none of it is read.
_AROUND = ["", ";", ")", "(", '"', "'", "/*", "*/", "//", ",", ":", " : \"r\"(x))", "\\\n",
           "#endif\n", "asm", "\u00e9", "\n", "x", "[0]", '"a")']  # fmt: skip


@pytest.fixture(autouse=True)
def _empty_memo() -> None:
    reading_memo.MEMO.clear()


def _same(moved: ex._RawStatement, direct: ex._RawStatement) -> None:
    """Field by field, with the objects' types (a source map is an Offsets)."""
    for name in ("char_starts", "char_ends"):
        a, b = getattr(moved.template, name), getattr(direct.template, name)
        assert type(a) is Offsets and type(b) is Offsets
        assert len(a) == len(b) and list(a) == list(b), name
    for f in dataclasses.fields(ex._RawStatement):
        a, b = getattr(moved, f.name), getattr(direct, f.name)
        assert a == b, f.name
        assert b == a, f.name
        assert repr(a) == repr(b), f.name
    assert hash(moved.template) == hash(direct.template)
    for name in ("char_starts", "char_ends"):
        assert getattr(moved.template, name).typecode == "q"
    for made, read in zip(moved.operands, direct.operands, strict=True):
        assert made is not read
        assert type(made.span) is type(read.span)
    assert hash(moved.operands) == hash(direct.operands)


def _map_made(template: Template) -> bool:
    try:
        Template.__dict__["char_starts"].__get__(template, Template)
    except AttributeError:
        return False
    return True


def _first_keyword(text: str, after: int = 0) -> tuple[int, str]:
    m = statement_tokens.ASM_KEYWORD.search(text, after)
    return (m.start(), m.group()) if m is not None else (-1, "")


def test_a_moved_reading_is_a_direct_read_at_its_new_place() -> None:
    """Generated statements (tests/test_plain_reader.py's pieces), read at one place, then
    recalled at another with other text before and after: each equals a direct read there."""
    rng = random.Random(6)
    moved = 0
    for _ in range(4000):
        statement = _statement(rng)
        text_a = f"void f() {{\n  {rng.choice(_AROUND)}{statement}{rng.choice(_AROUND)}\n}}\n"
        start_a, keyword = _first_keyword(text_a, text_a.index("{") + 1)
        raw = ex.read_plain(SourceFile("a.cu", text_a), start_a, keyword) if keyword else None
        if raw is None:
            continue
        reading_memo.remember(text_a, start_a, keyword, raw)
        spelled = text_a[start_a : raw.end]
        if reading_memo.MEMO.get(spelled) is None:
            assert raw.problems  # only a reading whose messages hold offsets is not kept
            continue
        prefix = rng.choice(["", "\u00e9\u00e9 ", "x\n" * rng.randrange(1, 300), "int y; "])
        text_b = (
            f"{prefix}{rng.choice(_AROUND)} {spelled}{rng.choice(_AROUND)}{rng.choice(_AROUND)}"
        )
        start_b = text_b.index(spelled, len(prefix))
        recalled = reading_memo.recall(text_b, start_b, start_b + len(spelled), keyword)
        assert recalled is not None
        direct = ex.read_plain(SourceFile("b.cu", text_b), start_b, keyword)
        assert direct is not None, spelled
        _same(recalled, direct)
        moved += 1
    assert moved > 800, moved  # not vacuous


def test_the_kept_reading_stays_untyped_and_its_own() -> None:
    """``_finish`` types a reading's operands in place: the memo's copy is never the one it
    types, and a later recall still reads untyped operands."""
    text = 'void f(int a) { asm("mov.u32 %0, %1;" : "=r"(a) : "r"(a + 1)); }\n'
    start, keyword = _first_keyword(text)
    first = ex.read_plain(SourceFile("a.cu", text), start, keyword)
    assert first is not None
    reading_memo.remember(text, start, keyword, first)
    ex._with_ctype(first.operands[0], CType("int", "integer", 4))
    again = reading_memo.recall("  " + text, start + 2, first.end + 2, keyword)
    assert again is not None and again.operands[0].ctype is None
    direct = ex.read_plain(SourceFile("b.cu", "  " + text), start + 2, keyword)
    assert direct is not None
    _same(again, direct)


def test_readings_with_offsets_in_messages_are_not_kept() -> None:
    """A missing comma's problem names its offset: read again at each place."""
    text = 'void f() { asm("op;" : "=r"(a) "=r"(b)); }'
    start, keyword = _first_keyword(text)
    raw = ex.read_plain(SourceFile("a.cu", text), start, keyword)
    assert raw is not None and raw.problems and raw.missing_commas
    reading_memo.remember(text, start, keyword, raw)
    assert not reading_memo.MEMO.entries
    assert reading_memo.recall(text, start, raw.end, keyword) is None


def test_only_the_exact_text_finds_a_reading() -> None:
    """The caller's guess of the end only picks the key: too short, too long or another
    spelling finds nothing; another keyword with the same text after it finds nothing."""
    text = 'void f() { asm volatile("bar.sync 0;" ::: "memory"); }'
    start, keyword = _first_keyword(text)
    raw = ex.read_plain(SourceFile("a.cu", text), start, keyword)
    assert raw is not None
    reading_memo.remember(text, start, keyword, raw)
    assert reading_memo.recall(text, start, raw.end - 1, keyword) is None
    assert reading_memo.recall(text, start, raw.end + 1, keyword) is None
    assert reading_memo.recall(text.replace("memory", "memorY"), start, raw.end, keyword) is None
    assert reading_memo.recall(text, start, raw.end, "__asm") is None
    assert reading_memo.recall(text, start, raw.end, keyword) is not None


def test_the_memo_keeps_at_most_its_size() -> None:
    memo = reading_memo.Memo(size=2)
    raw = ex.read_plain(SourceFile("a.cu", 'asm("nop;")'), 0, "asm")
    assert raw is not None
    for key in ("a", "b", "c"):
        memo.put(key, ("asm", 0, raw))
    assert list(memo.entries) == ["b", "c"]
    assert memo.get("b") is not None and list(memo.entries) == ["c", "b"]
    memo.put("d", ("asm", 0, raw))
    assert list(memo.entries) == ["b", "d"]


def _generated_file(rng: random.Random, functions: int) -> str:
    out = []
    for k in range(functions):
        body = "\n  ".join(_statement(rng) + ";" for _ in range(rng.choice([1, 2, 3])))
        out.append(f"__device__ void f{k}(int d0, int* p, unsigned x) {{\n  {body}\n}}\n")
    return "".join(out)


def test_files_extract_alike_with_and_without_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole extractions, statements repeated within and across files (ASCII and not, where
    tree-sitter's byte offsets differ from characters): the same with the memo as without."""
    rng = random.Random(5)
    pool = _generated_file(rng, 40).split("}\n")
    sources = []
    for k in range(6):
        picked = rng.sample(pool[:-1], 30)
        wide = k % 2 == 1
        text = "".join(
            ("// \u00e9\n" if wide and i % 2 else "") + p + "}\n" for i, p in enumerate(picked)
        )
        sources.append(SourceFile(f"g{k}.cu", text))
    with_memo = [extract_statements(s) for s in sources]
    hits = reading_memo.MEMO.hits
    monkeypatch.setattr(reading_memo, "recall", lambda *args: None)
    without = [extract_statements(s) for s in sources]
    # not vacuous: many statements were moved readings
    assert hits > 0.3 * sum(len(r.statements) for r in with_memo), hits
    for a, b in zip(with_memo, without, strict=True):
        assert len(a.statements) > 20
        assert repr(a.statements) == repr(b.statements)
        assert a.statements == b.statements
        assert a.skipped == b.skipped


def test_a_moved_template_reads_its_source_spans_as_a_direct_read() -> None:
    """``Template.source_span`` and the template's equality over a recalled reading."""
    text = 'void f(int a) { asm("add.u32 %0, %1, 1;\\n\\t" "nop;" : "=r"(a) : "r"(a)); }\n'
    start, keyword = _first_keyword(text)
    first = ex.read_plain(SourceFile("a.cu", text), start, keyword)
    assert first is not None
    reading_memo.remember(text, start, keyword, first)
    pad = "// moved\n" * 3
    there, at = pad + text, start + len(pad)
    again = reading_memo.recall(there, at, first.end + len(pad), keyword)
    direct = ex.read_plain(SourceFile("b.cu", there), at, keyword)
    assert again is not None and direct is not None
    # its source map is made when read, from the kept literals moved (the kept one unmade)
    assert not _map_made(again.template) and not _map_made(first.template)
    n = len(direct.template.text)
    for a in range(-1, n + 2):
        for b in range(a, n + 2):
            assert again.template.source_span(a, b) == direct.template.source_span(a, b)
    assert again.template == direct.template and hash(again.template) == hash(direct.template)
