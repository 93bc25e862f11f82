"""The plain reader's kept section readings (``plain_reader._KEPT``).

An operand section whose text was read before is made from that reading, shifted to where the
section is now, without reading it again. Wherever that happens the statement must read as
the token path reads it, in every field (spans, expressions, names, missing commas and their
problems), whatever comes before or after the section; a constraint spelled as a macro's name
is the file's value, never a kept one; and what is kept stays within its bound.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from ptxlint.frontends.cxx import plain_reader
from ptxlint.model import SourceFile, Span, constraint_start, operand_offsets, operand_place
from tests.test_plain_reader import _compare, _operand


@pytest.fixture(autouse=True)
def _nothing_kept() -> Iterator[None]:
    plain_reader._KEPT.forget()
    yield
    plain_reader._KEPT.forget()


def _long_section(rng: random.Random) -> str:
    """Operands enough to be kept, with the generator's blanks, comments, names, missing
    commas and unusual expressions among them."""
    parts = []
    for _ in range(rng.choice([5, 6, 8, 12])):
        parts.append(_operand(rng))
        parts.append(rng.choice([",", ", ", ",\n  ", " ", ""]))  # "" or " ": a missing comma
    return "".join(parts[:-1])


def _kept_texts() -> list[str]:
    return [kept.text for same in plain_reader._KEPT.readings.values() for kept in same]


def _kept(text: str) -> bool:
    return any(kept in text for kept in _kept_texts())


def _counting_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many sections are made from a kept reading from now on, in a list of one."""
    made = plain_reader._KeptSection.made
    count = [0]

    def counted(kept: plain_reader._KeptSection, *args: object) -> tuple[int, str]:
        count[0] += 1
        return made(kept, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(plain_reader._KeptSection, "made", counted)
    return count


def test_a_section_read_again_elsewhere_reads_as_the_tokens_read_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each section is read where it is first spelled, then again in other statements: at
    another offset, as the other role, with other sections and text after it."""
    rng = random.Random(36)
    made = _counting_made(monkeypatch)
    for k in range(1000):
        section = _long_section(rng)
        first = f'void f{k}() {{ asm("op;" : {section} : "r"(y)); }}\n'
        if _compare(first, 0) is None:
            continue
        others = [
            f'// {k}\nint x;\nvoid g() {{ asm volatile("a;\\n" "b;" : {section} :: "memory"); }}',
            f'void h() {{\n  asm("op;" : "=r"(o), "=l"(p) : {section} : "cc");\n}}',
            f'void h() {{ asm("op;" :  : {section}); }} /* ) : */',
            f'void h() {{ asm("op;" : {section}); }}',
            f'void h() {{ asm("op;" : "=r"(o) "=l"(p) : {section}  ) + 1; }}',
        ]
        for other in others:
            assert _compare(other, 0) is not None, other
    # read again from what was kept, under both separators (the test is not vacuous)
    assert made[0] > 300, made[0]


def test_section_text_decides_its_reading_not_what_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same text up to a separator, followed by what reads as more operands in one
    statement and as the end in another, is kept once and made right in both."""
    outputs = ", ".join(f'"+f"(d{i:03d})' for i in range(32))
    texts = [
        f'void f() {{ asm("wgmma;" : {outputs} : "l"(desc_a), "l"(desc_b)); }}',
        f'void g() {{ asm("wgmma;" : {outputs} : "l"(desc_a), "l"(desc_b) : "memory"); }}',
        f'void h() {{ asm("wgmma;" : {outputs} : "n"(int32_t(scaleA))); }}',
        f'void k() {{ asm("wgmma;" : {outputs}); }}',
    ]
    made = _counting_made(monkeypatch)
    readings = [_compare(text, 0) for text in texts]
    assert all(reading is not None for reading in readings)
    assert [len(reading.operands) for reading in readings if reading] == [34, 34, 33, 32]
    assert made[0] >= 2  # the first's outputs made again for the next two


def test_sections_sharing_their_start_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sections alike for their first hundreds of characters (accumulators of wgmma shapes
    of several sizes) are kept side by side, each found only where it is spelled whole."""
    made = _counting_made(monkeypatch)
    sizes = [8, 16, 32, 64, 16, 8, 64, 32]
    for n in sizes:
        outputs = ", ".join(f'"+f"(d{i:03d})' for i in range(n))
        for text in (
            f'void f() {{ asm("wgmma;" : {outputs} : "l"(desc_a)); }}',
            f'void f() {{ asm("wgmma;" : {outputs}, "+f"(e) : "l"(desc_a)); }}',
        ):
            reading = _compare(text, 0)
            assert reading is not None
            assert len(reading.operands) == n + 1 + text.count('"+f"(e)')
    # 16 statements, each read twice (``_read``): 8 distinct sections, read once each
    assert made[0] == 2 * 16 - 8
    assert len(_kept_texts()) == 8


def test_a_kept_section_with_a_macro_constraint_is_read_in_each_file() -> None:
    """A constraint spelled as a macro's name is that file's value: the section is never kept,
    so another file, defining the macro otherwise, reads its own."""
    section = ", ".join(f'"r"(a{i})' for i in range(8)) + ", P (ptr)"
    first = f'#define P "l"\nvoid f() {{ asm("op;" :: {section}); }}\n'
    second = f'#define P "r"\nvoid f() {{ asm("op;" :: {section}); }}\n'
    one, two = _compare(first, 0), _compare(second, 0)
    assert one is not None and two is not None
    assert one.operands[-1].constraint.text == "l"
    assert two.operands[-1].constraint.text == "r"
    assert not _kept(first)


def test_kept_sections_stay_within_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plain_reader._KeptSections, "LIMIT", 2_000)
    for k in range(60):
        section = ", ".join(f'"r"(x{k}_{i})' for i in range(10))
        assert _compare(f'void f() {{ asm("op;" :: {section}); }}', 0) is not None
        assert sum(map(len, _kept_texts())) <= 2_000
    assert _kept_texts()  # still keeping the latest


def test_operands_made_from_a_kept_reading_share_its_offsets() -> None:
    """A section made from its kept reading gives each operand, and that operand's constraint,
    one place: the reading's own offsets from where the section now starts (no offset made
    anew an operand), and the spans made from it are where the text spells them."""
    section = ", ".join(f'[n{i}] "=r"(d{i:03d})' for i in range(12))
    text = "".join(f'void f{k}() {{ asm("op;" : {section} : "r"(x)); }}\n' for k in range(3))
    source = SourceFile("t.cu", text)
    starts = [m.start() for m in re.finditer(r"\basm\b", text)]
    readings = [plain_reader.read_plain(source, start, "asm") for start in starts]
    (kept,) = [reading for same in plain_reader._KEPT.readings.values() for reading in same]
    for reading, start in zip(readings, starts, strict=True):
        assert reading is not None
        at = text.index(":", start) + 1
        for i, operand in enumerate(reading.operands[:12]):
            place = operand_place(operand)
            assert place is not None
            if start != starts[0]:  # made from the reading kept at the first
                assert place == (kept.offsets[i], at) and place[0] is kept.offsets[i]
                assert operand.constraint.span == Span(
                    at + kept.offsets[i][3], at + kept.offsets[i][3] + 4
                )
            spelled = text[operand.span.start : operand.span.end]
            assert spelled == f'[n{i}] "=r"(d{i:03d})'
            assert text[operand.constraint.span.start : operand.constraint.span.end] == '"=r"'
            expression = operand.expression_span
            assert text[expression.start : expression.end] == f"d{i:03d}"
            assert operand_offsets(operand) == (
                operand.span.start,
                operand.span.end,
                expression.start,
            )
            assert constraint_start(operand.constraint) == operand.constraint.span.start
