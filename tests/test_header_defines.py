"""A header's definitions as ``headers._header`` reads them: the same definitions a file read
with its text gets, made per name when looked up; and a header too large to read is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ptxlint.frontends.cxx import defines, headers

_TEXT = (
    "#ifndef H\n#define H\n"
    "#define TRAP() asm volatile(\"trap;\")\n"
    "#define CHECK(c, ...) do { if (!(c)) TRAP(); } while (0)\n"
    "#define LIMIT 4 \\\n  + 1\n"
    "#undef LIMIT\n"
    "#define LIMIT 8\n"
    "#include \"other.h\"\n"
    "#endif\n"
)


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    headers.forget_headers()
    yield
    headers.forget_headers()


def _fields(d: defines.MacroDef) -> tuple[object, ...]:
    return (d.name, d.params, d.variadic, d.spelling, d.offset, d.path, d.start, d.end,
            d.line, d.guards, [t.text for t in d.body])


def test_a_headers_definitions_are_those_of_the_same_text_read_with_it(tmp_path: Path) -> None:
    header = tmp_path / "h.h"
    header.write_text(_TEXT, encoding="utf-8")
    read = headers._header(str(header))
    assert read is not None
    eager = defines.collect(str(header), _TEXT)
    assert list(read.defines) == list(eager.defines) == ["H", "TRAP", "CHECK", "LIMIT"]
    assert len(read.defines) == 4 and "CHECK" in read.defines and "MISSING" not in read.defines
    assert read.defines.get("MISSING") is None and read.defines.get("MISSING", []) == []
    for name in eager.defines:
        assert [_fields(d) for d in read.defines[name]] == [_fields(d) for d in eager.defines[name]]
    assert read.includes == eager.includes == ["other.h"]
    assert read.undefs == eager.undefs


def test_a_headers_definitions_of_a_name_are_made_once(tmp_path: Path) -> None:
    header = tmp_path / "h.h"
    header.write_text(_TEXT, encoding="utf-8")
    read = headers._header(str(header))
    assert read is not None
    first = read.defines["LIMIT"]
    assert read.defines["LIMIT"] is first and read.defines.get("LIMIT") is first
    assert [d.spelling.strip() for d in first] == ["4 \\\n  + 1", "8"]


def test_names_and_bodies_give_every_definition_in_text_order(tmp_path: Path) -> None:
    header = tmp_path / "h.h"
    header.write_text(_TEXT, encoding="utf-8")
    read = headers._header(str(header))
    assert read is not None
    eager = defines.collect(str(header), _TEXT)
    expected = [(d.name, d.spelling) for defs in eager.defines.values() for d in defs]
    assert list(read.names_and_bodies()) == list(eager.names_and_bodies()) == expected
    assert headers._asm_facts(read) == headers._asm_facts(eager)
    assert headers._asm_facts(read)[0] == {"TRAP"}


def test_a_header_over_the_size_limit_is_read_as_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = tmp_path / "h.h"
    header.write_text(_TEXT, encoding="utf-8")
    monkeypatch.setattr(headers, "MAX_HEADER_BYTES", len(_TEXT) - 1)
    assert headers._header(str(header)) is None
    headers.forget_headers()
    monkeypatch.setattr(headers, "MAX_HEADER_BYTES", len(_TEXT))
    assert headers._header(str(header)) is not None
    assert headers._header(str(tmp_path / "missing.h")) is None


def test_a_headers_bytes_are_read_whole_as_written_whatever_its_stat_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # read through its descriptor by the size its stat gives: a file that grew since (or a
    # read that came back short) is read on to its end, and line ends stay as written
    header = tmp_path / "h.h"
    data = _TEXT.replace("\n", "\r\n").encode() * 3000  # past one read of the rest's chunks
    header.write_bytes(data)
    assert defines.read_header_bytes(str(header)) == data
    real_fstat = defines.os.fstat
    for said in (0, 1, len(data) // 2, len(data) - 1, len(data) + 5):
        def fstat(fd: int, said: int = said) -> object:
            class Shrunk:
                st_size = said
            real_fstat(fd)
            return Shrunk()

        monkeypatch.setattr(defines.os, "fstat", fstat)
        assert defines.read_header_bytes(str(header)) == data, said
        monkeypatch.setattr(defines.os, "fstat", real_fstat)
    assert defines.read_header_bytes(str(tmp_path)) is None  # a folder
    assert defines.read_header_bytes(str(tmp_path / "missing.h")) is None
    assert defines.read_header_bytes(str(header), limit=len(data) - 1) is None
