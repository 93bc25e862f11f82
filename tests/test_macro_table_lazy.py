"""A macro table walks its include closure through the headers' sketches and reads a header
whole (``collect``) only when a name asked of it may be defined there: its answers are those of
a table that reads every header whole, and each header's includes as the sketch decides them are
the ones ``collect`` reads, or the header is read whole to learn them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxlint.frontends.cxx import headers, macro_uses
from ptxlint.frontends.cxx.defines import FileDefines, collect, include_names
from ptxlint.frontends.cxx.macros import MacroTable


@pytest.fixture(autouse=True)
def _fresh_headers() -> object:
    headers.forget_headers()
    yield
    headers.forget_headers()


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_bytes(text.encode("utf-8"))


def _collected(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The headers ``collect`` reads whole from now on, by file name."""
    read: list[str] = []

    def counting(path: str, text: str, keep_text: bool = True) -> FileDefines:
        read.append(os.path.basename(path))
        return collect(path, text, keep_text)

    monkeypatch.setattr(headers, "collect", counting)
    return read


def test_a_header_is_read_whole_only_when_a_name_asked_may_be_defined_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, {
        "top.h": '#include "a.h"\n#include "b.h"\n#define TOP_ONLY 0\n',
        "a.h": '#include "c.h"\n#define FROM_A 1\n',
        "b.h": "#define FROM_B 2\n",
        "c.h": "#define FROM_C 3\n",
    })
    read = _collected(monkeypatch)
    table = MacroTable(str(tmp_path / "k.cu"), '#include "top.h"\n')
    assert read == []
    found = table.lookup("FROM_C")
    assert found is not None and found.spelling.strip() == "3"
    assert read == ["c.h"]
    assert table.lookup("NOWHERE") is None and read == ["c.h"]
    # every header, read whole, in the order the walk reads them (breadth first)
    assert [Path(h.path).name for h in table.headers] == ["top.h", "a.h", "b.h", "c.h"]


def test_of_headers_defining_a_name_the_first_in_include_order_comes_first(
    tmp_path: Path,
) -> None:
    _write(tmp_path, {
        "first.h": '#include "deep.h"\n',
        "deep.h": "#define M 1\n",
        "second.h": "#define M 2\n#define OTHER 3\n",
    })
    # second.h is read whole first (another table asks it), deep.h only later
    other = MacroTable(str(tmp_path / "o.cu"), '#include "second.h"\n')
    assert other.lookup("OTHER") is not None
    table = MacroTable(str(tmp_path / "k.cu"), '#include "first.h"\n#include "second.h"\n')
    assert [d.spelling.strip() for d in table.definitions("M")] == ["2", "1"]
    assert table.lookup("M") is None  # two live definitions that differ


def test_an_asm_macro_and_its_users_are_asm_bearing_though_other_headers_stay_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, {
        "all.h": '#include "op.h"\n#include "use.h"\n#include "plain.h"\n',
        "op.h": '#define OP() asm volatile("trap;")\n',
        "use.h": "#define USE() OP()\n",  # no include of op.h: the file's closure joins them
        "plain.h": "#define PLAIN 1\n#define ALSO PLAIN\n",
    })
    read = _collected(monkeypatch)
    table = MacroTable(str(tmp_path / "k.cu"), '#include "all.h"\n#define MINE() USE()\n')
    assert macro_uses.asm_macros(table) == ["MINE", "OP", "USE"]
    assert "plain.h" not in read and "all.h" not in read


@pytest.mark.parametrize(
    "text",
    [
        '#include "a.h"\n#include <b.h>\n',
        '  #  include "a.h"\n\t#include "b.h"\r\n',
        'int x; #include "a.h"\n// #include "b.h"\n',  # not first on their lines
        '/* a comment\n#include "a.h"\n*/\n#include "b.h"\n',  # the first is hidden
        '/* closed */\n#include "a.h"\n/*/ still open\n#include "b.h"\n*/\n',
        '#define SPLICED \\\n#include "a.h"\n#include "b.h"\n',  # the define runs on
        '#define SPLICED_CR \\\r\n#include "a.h"\n',
        '#include \\\n"a.h"\n#include\n"b.h"\n',  # line splices and line ends in it
        '#include\x1c"a.h"\n#include\u00a0"b.h"\n#include \u00e9"a.h"\n',  # odd blanks
        'char s[] = "/*";\n#include "a.h"\n',
    ],
)
def test_a_headers_includes_from_its_sketch_are_the_ones_collect_reads(
    tmp_path: Path, text: str
) -> None:
    _write(tmp_path, {"a.h": "#define A 1\n", "b.h": "#define B 1\n", "h.h": text})
    real = headers.real_path(str(tmp_path / "h.h"))
    headers.asm_names_in_reach(str(tmp_path), ["h.h"])
    decided = headers._SKETCH_KIDS.get(real)
    exact = tuple(
        headers.real_path(str(tmp_path / name)) for name in include_names(text)
        if (tmp_path / name).is_file()
    )
    assert decided is None or decided == exact
    # the table follows exactly those, whether decided from the sketch or read whole
    table = MacroTable(str(tmp_path / "k.cu"), '#include "h.h"\n')
    assert [Path(p).name for p in table._closure] == ["h.h", *(Path(p).name for p in exact)]
    for name, header in (("A", "a.h"), ("B", "b.h")):
        reached = headers.real_path(str(tmp_path / header)) in exact
        assert (table.lookup(name) is not None) == reached


def test_common_include_lines_are_decided_from_the_sketch(tmp_path: Path) -> None:
    text = '/* licence */\n#pragma once\n#include "a.h"\n  # include <b.h>\n// #include "c.h"\n'
    _write(tmp_path, {"a.h": "", "b.h": "", "c.h": "", "h.h": text})
    headers.asm_names_in_reach(str(tmp_path), ["h.h"])
    decided = headers._SKETCH_KIDS.get(headers.real_path(str(tmp_path / "h.h")))
    assert decided is not None
    assert [Path(p).name for p in decided] == ["a.h", "b.h"]


def test_a_name_defined_beyond_ascii_is_found_in_a_header_left_unread(tmp_path: Path) -> None:
    # the sketch's byte pattern cannot tell where such a name ends: the header is read whole
    _write(tmp_path, {"h.h": "#define caf\u00e9 1\n#define PLAIN 2\n"})
    table = MacroTable(str(tmp_path / "k.cu"), '#include "h.h"\n')
    assert table.lookup("caf\u00e9") is not None and table.lookup("caf") is None
