"""``sourced.join``: a Python string value built from many parts (concatenated literals,
``"".join``, f-string fields, ``$N`` references) is made at once, with the text, source map
and pieces that adding the parts one by one gives, and without re-copying what was made
before each part (that was quadratic in the parts)."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.sourced import Sourced, join
from ptxlint.model import SourceFile, Span


def _parts() -> list[Sourced]:
    return [
        Sourced.literal("string", Span(0, 7), "mov.b32", [1, 2, 3, 4, 5, 6, 7], [2, 3, 4, 5, 6, 7, 8]),
        Sourced(),
        Sourced.hole(Span(10, 14)),
        Sourced(" ", [15], [16], []),
        Sourced.literal("raw", Span(20, 26), "r1;", [22, 23, 24], [23, 24, 25]),
    ]


def test_join_is_the_sum_of_its_parts() -> None:
    parts = _parts()
    for n in range(len(parts) + 1):
        folded = Sourced()
        for part in parts[:n]:
            folded = folded + part
        assert join(parts[:n]) == folded


def test_join_leaves_its_parts_as_they_were() -> None:
    parts = _parts()
    before = [Sourced(p.text, list(p.starts), list(p.ends), list(p.pieces)) for p in parts]
    joined = join(parts)
    joined.starts.append(99)
    joined.pieces.clear()
    assert parts == before


@pytest.mark.parametrize(
    "spelling",
    [
        "({})",  # concatenated literals
        '"".join([{}])',
    ],
)
def test_a_template_of_many_parts_is_joined_once(
    spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 300
    literals = [f'"mov.b32 $0, {k};\\n"' for k in range(n)]
    glue = "\n        " if spelling.startswith("(") else ",\n        "
    code = (
        "import triton.language as tl\n"
        "def f(x):\n"
        "    return tl.inline_asm_elementwise(\n"
        f"        {spelling.format(glue.join(literals))},\n"
        '        "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)\n'
    )
    expected = "".join(f"mov.b32 $0, {k};\n" for k in range(n))
    added = 0
    add = Sourced.__add__

    def counted(self: Sourced, other: Sourced) -> Sourced:
        nonlocal added
        added += 1
        return add(self, other)

    monkeypatch.setattr(Sourced, "__add__", counted)
    (statement,) = extract_statements(SourceFile("k.py", code)).statements
    assert statement.template.text.replace("$0", "%0") == expected.replace("$0", "%0")
    assert added < 10  # no addition per part
    first = code.index('"mov.b32')
    assert statement.template.source_span(0, 1).start == first + 1
