"""Where ``#include "name"`` is found: ``headers.find_header`` gives the first of
``headers.candidates`` that is a file, whatever folders the probes skip."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ptxlint.frontends.cxx import headers, include_lookup


@pytest.fixture(autouse=True)
def _fresh_lookups() -> Iterator[None]:
    headers.forget_headers()
    yield
    headers.forget_headers()


def _first_file(base: str, name: str) -> str | None:
    return next((c for c in headers.candidates(base, name) if os.path.isfile(c)), None)


def _tree(root: Path) -> Path:
    """A project whose headers lie next to the file, above it, in ``include/`` folders, behind
    a linked folder, and where a folder part of a name is a file."""
    deep = root / "proj" / "src" / "kernels" / "sm90"
    deep.mkdir(parents=True)
    (root / "proj" / "include" / "proj" / "detail").mkdir(parents=True)
    (root / "proj" / "include" / "proj" / "detail" / "ops.h").write_text("")
    (root / "proj" / "include" / "proj" / "api.h").write_text("")
    (root / "proj" / "src" / "common.h").write_text("")
    (root / "proj" / "src" / "kernels" / "local.h").write_text("")
    (deep / "local.h").write_text("")
    (root / "proj" / "src" / "notafolder").write_text("")  # a file where a name wants a folder
    (root / "proj" / "src" / "detail").mkdir()  # a folder where a name wants a file
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "linked.h").write_text("")
    (root / "proj" / "src" / "link").symlink_to(root / "elsewhere", target_is_directory=True)
    return deep


_NAMES = [
    "local.h",  # next to the file, not the one above
    "common.h",  # two folders up
    "proj/api.h",  # in include/ above
    "proj/detail/ops.h",
    "proj/missing.h",  # its folder exists, the file does not
    "nowhere/at/all.h",  # no such folder anywhere
    "notafolder/x.h",  # the folder part is a file
    "detail",  # a folder, not a header
    "link/linked.h",  # through a linked folder
    "../common.h",
    "../../include/proj/api.h",
    "./local.h",
    "proj/./detail/../api.h",
    "proj/",
    "..",
    ".",
    # a folder part is asked only where its parent part is a folder: these must still agree
    "nowhere/../common.h",  # the parent is missing, but ".." takes it away as written
    "notafolder/sub/x.h",  # the parent part is a file
    "link/sub/../linked.h",
    "proj/detail/deeper/ops.h",  # the parent is a folder, the part is not
]


@pytest.mark.parametrize("name", _NAMES)
def test_an_include_is_found_where_the_first_candidate_that_is_a_file_lies(
    tmp_path: Path, name: str
) -> None:
    deep = _tree(tmp_path)
    expected = _first_file(str(deep), name)
    assert headers.find_header(str(deep), name) == expected


def test_the_same_names_from_several_folders_agree_with_a_probe_of_every_candidate(
    tmp_path: Path,
) -> None:
    # the folders' answers are kept across look-ups: later ones from other folders share them
    deep = _tree(tmp_path)
    folders = [deep, deep.parent, deep.parent.parent, tmp_path / "proj", tmp_path / "elsewhere"]
    expected = {(f, n): _first_file(str(f), n) for f in folders for n in _NAMES}
    for (folder, name), found in expected.items():
        assert headers.find_header(str(folder), name) == found, (folder, name)
    assert any(found is not None for found in expected.values())
    assert any(found is None for found in expected.values())


def test_a_header_added_after_a_run_is_found_once_lookups_are_forgotten(tmp_path: Path) -> None:
    deep = _tree(tmp_path)
    assert headers.find_header(str(deep), "late/new.h") is None
    (deep / "late").mkdir()
    (deep / "late" / "new.h").write_text("")
    headers.forget_headers()  # what a new run in the same process does
    assert headers.find_header(str(deep), "late/new.h") == str(deep / "late" / "new.h")


def test_asm_macros_come_only_from_the_headers_an_include_reaches(tmp_path: Path) -> None:
    # leaf.h holds the asm; mid.h wraps it; side.h wraps it too but nothing below top.h
    # includes side.h, so its wrapper is not one top.h brings; other.h reaches nothing
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "leaf.h").write_text('#define LEAF_TRAP() asm volatile("trap;")\n')
    (proj / "mid.h").write_text('#include "leaf.h"\n#define MID_STOP() LEAF_TRAP()\n')
    (proj / "side.h").write_text('#include "leaf.h"\n#define SIDE_STOP() LEAF_TRAP()\n')
    (proj / "top.h").write_text('#include "mid.h"\n#include "missing.h"\n#define TOP_OK 1\n')
    (proj / "other.h").write_text("#define OTHER_STOP() LEAF_TRAP()\n")
    assert headers.asm_names_through(str(proj / "side.h")) == {"LEAF_TRAP", "SIDE_STOP"}
    assert headers.asm_names_through(str(proj / "top.h")) == {"LEAF_TRAP", "MID_STOP"}
    assert headers.asm_names_through(str(proj / "other.h")) == frozenset()


def test_a_header_read_for_a_macro_table_first_is_judged_by_the_prefilter_too(
    tmp_path: Path,
) -> None:
    # extraction reads (and indexes) asm.h through its own include walk before the prefilter
    # asks about any header: a header the prefilter's closures never reached is in none of them
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "asm.h").write_text('#define TRAP() asm volatile("trap;")\n')
    (proj / "plain.h").write_text("#define PLAIN 1\n")
    (proj / "uses.h").write_text('#include "asm.h"\n#define STOP() TRAP()\n')
    kernel = proj / "k.cu"
    text = '#include "asm.h"\n__device__ void f() { TRAP(); }\n'
    kernel.write_text(text)
    (statement,) = extract_statements(SourceFile(str(kernel), text)).statements
    assert statement.context.expansion is not None
    assert headers.asm_names_through(str(proj / "plain.h")) == frozenset()
    assert headers.asm_names_through(str(proj / "uses.h")) == {"TRAP", "STOP"}


def test_the_climb_stops_as_many_folders_above_each_file_as_candidates_does(
    tmp_path: Path,
) -> None:
    # headers at every height of a chain of folders deeper than the climb's bound, some in an
    # include/ folder: each folder of the chain finds what a probe of its candidates finds,
    # asked deepest first and then shallowest first (the folders above are shared)
    from ptxlint.frontends.cxx.defines import MAX_ANCESTORS

    chain = [tmp_path]
    for level in range(MAX_ANCESTORS + 6):
        chain.append(chain[-1] / f"d{level}")
    chain[-1].mkdir(parents=True)
    for level, folder in enumerate(chain):
        if level % 3 == 0:
            (folder / "include" / "lib").mkdir(parents=True)
            (folder / "include" / "lib" / f"at{level}.h").write_text("")
            (folder / "include" / "lib" / "any.h").write_text("")
        (folder / f"at{level}.h").write_text("")
    names = [f"at{level}.h" for level in range(len(chain))]
    names += [f"lib/at{level}.h" for level in range(0, len(chain), 3)] + ["lib/any.h", "lib/no.h"]
    for order in (list(reversed(chain)), chain):
        headers.forget_headers()
        for folder in order:
            for name in names:
                expected = _first_file(str(folder), name)
                assert headers.find_header(str(folder), name) == expected, (folder, name)
    deepest = str(chain[-1])
    assert headers.find_header(deepest, f"at{len(chain) - 1 - MAX_ANCESTORS}.h") is not None
    assert headers.find_header(deepest, f"at{len(chain) - 2 - MAX_ANCESTORS}.h") is None


def test_a_name_spelled_only_in_a_comment_or_literal_of_a_body_does_not_spread_asm(
    tmp_path: Path,
) -> None:
    # words.h's bodies spell LEAF_TRAP only inside a comment, a string, a character literal
    # and a number's suffix: none of its macros uses it; real.h's does, with no asm of its own
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "leaf.h").write_text('#define LEAF_TRAP() asm volatile("trap;")\n')
    (proj / "words.h").write_text(
        '#include "leaf.h"\n'
        "#define NOTE() /* LEAF_TRAP() */ 0\n"
        '#define MSG() "LEAF_TRAP()"\n'
        "#define CH 'LEAF_TRAP'\n"
        "#define NUM 0xLEAF_TRAP\n"
        "#define LINE() 1 // LEAF_TRAP()\n"
    )
    (proj / "real.h").write_text('#include "words.h"\n#define REAL_STOP() (NOTE(), LEAF_TRAP())\n')
    assert headers.asm_names_through(str(proj / "words.h")) == {"LEAF_TRAP"}
    assert headers.asm_names_through(str(proj / "real.h")) == {"LEAF_TRAP", "REAL_STOP"}
    read = [headers._header(str(proj / name)) for name in ("leaf.h", "words.h", "real.h")]
    assert headers.spread_over([h for h in read if h is not None]) == {"LEAF_TRAP", "REAL_STOP"}


@pytest.fixture
def listing() -> Iterator[None]:
    """Look-ups answered from folder listings, as while a run's walk goes on."""
    include_lookup.list_folders(True)
    yield
    include_lookup.list_folders(False)


def test_look_ups_from_folder_listings_agree_with_a_probe_of_every_candidate(
    tmp_path: Path, listing: None
) -> None:
    deep = _tree(tmp_path)
    (deep / "to_file.h").symlink_to(tmp_path / "proj" / "src" / "common.h")
    (deep / "dangling.h").symlink_to(tmp_path / "gone.h")
    names = [*_NAMES, "to_file.h", "dangling.h", "Local.h", "LOCAL.H"]
    folders = [deep, deep.parent, deep.parent.parent, tmp_path / "proj", tmp_path / "elsewhere"]
    expected = {(f, n): _first_file(str(f), n) for f in folders for n in names}
    for (folder, name), found in expected.items():
        assert headers.find_header(str(folder), name) == found, (folder, name)
        if found is not None:  # a link on the way resolved as realpath resolves it
            assert headers.real_path(found) == os.path.realpath(found)
    assert expected[deep, "to_file.h"] is not None and expected[deep, "dangling.h"] is None


def test_a_folder_that_finds_a_name_in_another_case_is_probed_not_listed(
    tmp_path: Path, listing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = _tree(tmp_path)
    # as a case-insensitive file system answers: Local.h is local.h
    monkeypatch.setattr(os.path, "lexists", lambda path: True)
    probed: list[str] = []
    isfile = os.path.isfile

    def counted(path: str) -> bool:
        probed.append(path)
        return isfile(path)

    monkeypatch.setattr(os.path, "isfile", counted)
    assert headers.find_header(str(deep), "local.h") == str(deep / "local.h")
    assert probed == [str(deep / "local.h")]


def test_a_header_created_after_a_walk_is_found_by_a_look_up_that_lists_no_more(
    tmp_path: Path,
) -> None:
    deep = _tree(tmp_path)
    include_lookup.list_folders(True)
    try:
        assert headers.find_header(str(deep), "missing.h") is None  # deep/ listed
    finally:
        include_lookup.list_folders(False)
    (deep / "fresh.h").write_text("")
    # the language server lints on in the same process: the walk's listing is gone, and a
    # path never asked is probed
    assert headers.find_header(str(deep), "fresh.h") == str(deep / "fresh.h")
