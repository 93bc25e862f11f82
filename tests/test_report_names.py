"""A file name holding a newline, a carriage return, an ESC or a Unicode line separator never
splits a report line, drives the terminal or forges a finding: line-oriented reports C-quote it
(as git does), machine formats escape it their own way."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptxlint import cli
from ptxlint.report.formats import EXTRA_FORMATS
from ptxlint.report.names import printable_name

BAD = (b'__global__ void k(unsigned *o) { unsigned t; asm("mov.u32 %0, %%clock;" : "=r"(t));'
       b" o[0] = t; }\n")
FORMATS = ("text", "json", "sarif", "github", *EXTRA_FORMATS)
LINE_FORMATS = ("text", "concise", "grouped", "full", "pylint")
# a name that would forge a second concise finding if printed raw
FORGED = "a.cu\nforged.cu:1:1: PTX001 [error] fake\x1b[2K\r\u2028x.cu"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")


@pytest.mark.parametrize(("name", "printed"), [
    ("k.cu", "k.cu"),
    ("with space.cu", "with space.cu"),
    ('quote"d\\.cu', 'quote"d\\.cu'),  # nothing to break: as is
    ("new\nline.cu", '"new\\nline.cu"'),
    ("cr\r.cu", '"cr\\r.cu"'),
    ('both"\n\\.cu', '"both\\"\\n\\\\.cu"'),
    ("esc\x1b[31m.cu", '"esc\\x1b[31m.cu"'),
    ("c1\x9b.cu", '"c1\\x9b.cu"'),
    ("sep\u2028.cu", '"sep\\u2028.cu"'),
    ("bidi\u202egpj.cu", '"bidi\\u202egpj.cu"'),
])
def test_printable_name_quotes_only_names_that_would_break_a_line(name, printed):
    assert printable_name(name) == printed


def _run(tmp_path: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--isolated", "--no-cache", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_prints_a_control_character_of_a_file_name(tmp_path, capsys, monkeypatch, fmt):
    (tmp_path / FORGED).write_bytes(BAD)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(tmp_path, capsys, "--output-format", fmt, ".")
    assert code == 1, err
    # workflow commands escape only what their runners unescape (CR, LF, '%', ':' and ',')
    breakers = "\r" if fmt in ("github", "azure") else "\x1b\r\x85\u2028"
    for char in breakers:
        assert char not in out and char not in err
    if fmt in LINE_FORMATS:
        assert not any(line.startswith("forged.cu:") for line in out.splitlines())
        assert printable_name(FORGED) in out
    elif fmt == "json":
        assert [f["path"] for f in json.loads(out)["findings"]] == [FORGED]
    elif fmt in ("sarif", "gitlab", "rdjson"):
        json.loads(out)
    elif fmt == "json-lines":
        assert all(json.loads(line)["path"] == FORGED for line in out.splitlines())
    elif fmt == "junit":
        ET.fromstring(out)  # well-formed, though the name had an ESC
        assert "\n" not in re.sub(r"\s+<", "<", out).split("<testsuite ", 1)[1].split(">")[0]
    else:  # github, azure: workflow commands, one per line
        assert len([line for line in out.splitlines() if line.startswith(("::", "##vso"))]) == 1


def test_error_note_and_listing_lines_quote_the_name(tmp_path, capsys, monkeypatch):
    name = "gone\n.cu"
    (tmp_path / "k.cu").write_bytes(BAD)
    (tmp_path / name).symlink_to(tmp_path / "missing.cu")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(tmp_path, capsys, name, "k.cu")
    assert code == 2
    assert f"ptxlint: error: {printable_name(name)}: " in err
    (tmp_path / "big\n.cu").write_bytes(BAD + b"//" + b"x" * 2000 + b"\n")
    code, out, err = _run(tmp_path, capsys, "--config", "max-file-size=1000", ".")
    assert f"ptxlint: note: {printable_name('big' + chr(10) + '.cu')}: skipped: " in err
    code, out, err = _run(tmp_path, capsys, "--show-files", ".")
    assert out.splitlines()[0] == f"{printable_name('big' + chr(10) + '.cu')}  (no configuration)"
