"""Extraction fixtures (fixtures/extract/): each bad file is flagged on exactly the lines it
marks, by the rules it names; its clean twin has no finding at all."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import pytest

from ptxlint.model import SourceFile
from tests.conftest import FIXTURES, lint_text

EXTRACT_DIR = os.path.join(FIXTURES, "extract")
_EXPECT = re.compile(r"expect:\s*((?:PTX\d{3}[ ,]*)+)")


def _pairs() -> list[str]:
    return sorted(
        os.path.basename(p)[: -len("_bad.cu")] for p in glob.glob(f"{EXTRACT_DIR}/*_bad.cu")
    )


def _expected(text: str) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            out |= {(number, rule) for rule in re.findall(r"PTX\d{3}", m.group(1))}
    return out


@pytest.mark.parametrize("name", _pairs())
def test_bad_extraction_fixture_is_flagged_on_marked_lines(name: str) -> None:
    path = os.path.join(EXTRACT_DIR, f"{name}_bad.cu")
    text = Path(path).read_text(encoding="utf-8")
    source = SourceFile(path, text)
    findings = lint_text(text, path)
    got = {(source.line_col(f.span.start).line, f.rule) for f in findings}
    assert got == _expected(text), [(f.rule, f.message) for f in findings]


@pytest.mark.parametrize("name", _pairs())
def test_clean_extraction_fixture_is_silent(name: str) -> None:
    path = os.path.join(EXTRACT_DIR, f"{name}_clean.cu")
    text = Path(path).read_text(encoding="utf-8")
    findings = lint_text(text, path)
    assert findings == [], [(f.rule, f.message) for f in findings]
