from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxlint.run.discover import (
    DEFAULT_EXTENSIONS,
    REASON_BINARY,
    Discovery,
    compile_patterns,
    decode_source,
    discover,
    is_error_reason,
    match_patterns,
    read_bytes_stat,
    read_source,
    too_large,
)


def write(root: Path, rel: str, content: str | bytes = "int x;\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def paths(result: Discovery) -> list[str]:
    return [item.path for item in result.files]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_extension_filtering_and_sorted_order(in_tmp: Path) -> None:
    for name in ("src/b.cu", "src/a.cuh", "src/c.py", "src/d.txt", "src/sub/e.cpp", "src/F.CU"):
        write(in_tmp, name)
    write(in_tmp, "src/g.Cu")  # mixed case is not an accepted spelling
    assert paths(discover(["src"])) == [
        "src/F.CU",
        "src/a.cuh",
        "src/b.cu",
        "src/c.py",
        "src/sub/e.cpp",
    ]


def test_display_paths_follow_argument_spelling(in_tmp: Path) -> None:
    write(in_tmp, "src/a.cu")
    assert paths(discover(["src/"])) == ["src/a.cu"]
    assert paths(discover(["."])) == ["src/a.cu"]
    absolute = str(in_tmp / "src")
    assert paths(discover([absolute])) == [os.path.join(absolute, "a.cu")]


def test_custom_extensions_with_or_without_dot(in_tmp: Path) -> None:
    write(in_tmp, "a.ptxinc")
    write(in_tmp, "b.cu")
    assert paths(discover(["."], extensions=["ptxinc"])) == ["a.ptxinc"]
    assert paths(discover(["."], extensions=[".ptxinc", ".cu"])) == ["a.ptxinc", "b.cu"]


def test_explicit_file_with_odd_extension_is_linted(in_tmp: Path) -> None:
    write(in_tmp, "kernel.txt")
    write(in_tmp, ".gitignore", "kernel.txt\n")
    result = discover(["kernel.txt"])
    assert paths(result) == ["kernel.txt"]
    assert not result.errors and not result.skipped


def test_duplicates_are_listed_once(in_tmp: Path) -> None:
    write(in_tmp, "src/a.cu")
    assert paths(discover(["src", "src/a.cu", "./src"])) == ["src/a.cu"]


def test_nested_gitignore(in_tmp: Path) -> None:
    write(in_tmp, ".gitignore", "*.gen.cu\nbuild/\n")
    write(in_tmp, "top.gen.cu")
    write(in_tmp, "top.cu")
    write(in_tmp, "build/out.cu")
    write(in_tmp, "sub/build/out.cu")
    write(in_tmp, "sub/.gitignore", "/local.cu\n!keep.gen.cu\n")
    write(in_tmp, "sub/local.cu")
    write(in_tmp, "sub/deeper/local.cu")  # "/local.cu" is anchored at sub/
    write(in_tmp, "sub/keep.gen.cu")
    write(in_tmp, "sub/drop.gen.cu")
    write(in_tmp, "other/local.cu")  # sub/.gitignore does not apply here
    write(in_tmp, "other/keep.gen.cu")
    assert paths(discover(["."])) == [
        "other/local.cu",
        "sub/deeper/local.cu",
        "sub/keep.gen.cu",
        "top.cu",
    ]


def test_gitignore_folder_pattern_matches_only_folders(in_tmp: Path) -> None:
    write(in_tmp, ".gitignore", "kernels.cu/\n")
    write(in_tmp, "src/kernels.cu")  # a file of that name stays
    write(in_tmp, "gen/kernels.cu/x.cu")  # a folder of that name goes
    assert paths(discover(["."])) == ["src/kernels.cu"]


def test_gitignore_ignore_all_but_folders_and_extensions(in_tmp: Path) -> None:
    # "ignore files without an extension": `*` excludes everything, `!*/` re-includes the
    # folders, `!*.*` the files with a dot; what git lists (git ls-files --others
    # --exclude-standard) is linted
    write(in_tmp, ".gitignore", "*\n!*.*\n!*/\n*.o\n")
    write(in_tmp, "top.cu")
    write(in_tmp, "ch03/reduction/kernel.cu")
    write(in_tmp, "ch03/reduction/kernel")
    write(in_tmp, "ch03/reduction/kernel.o")
    assert paths(discover(["."])) == ["ch03/reduction/kernel.cu", "top.cu"]


def test_gitignore_any_folder_pattern(in_tmp: Path) -> None:
    write(in_tmp, "top.cu")
    write(in_tmp, "sub/a.cu")
    write(in_tmp, "sub/deeper/b.cu")
    for pattern in ("*/", "**/"):  # every folder: only the files at the top stay
        write(in_tmp, ".gitignore", pattern + "\n")
        assert paths(discover(["."])) == ["top.cu"], pattern


def test_gitignore_negated_folder_does_not_re_include_its_files(in_tmp: Path) -> None:
    # git: a negation re-includes the path it matches; `!*/` and `!keep/` match folders, so
    # the files in them that an earlier pattern excludes stay excluded
    write(in_tmp, "sub/a.cu")
    write(in_tmp, "sub/b.h")
    write(in_tmp, "keep/c.cu")
    write(in_tmp, "keep/d.h")
    write(in_tmp, ".gitignore", "*\n!*/\n!*.h\n")
    assert paths(discover(["."])) == ["keep/d.h", "sub/b.h"]
    write(in_tmp, ".gitignore", "*.cu\n!keep/\n")
    assert paths(discover(["."])) == ["keep/d.h", "sub/b.h"]


def test_gitignore_negated_folder_re_includes_a_folder_an_extension_excludes(
    in_tmp: Path,
) -> None:
    # libcudacxx/test/.gitignore: `*.spec` (PyInstaller files), `!*.spec/` (test folders)
    write(in_tmp, ".gitignore", "*.spec\n!*.spec/\n")
    write(in_tmp, "format.spec/formatter.pass.cpp")
    write(in_tmp, "app.spec")
    assert paths(discover(["."])) == ["format.spec/formatter.pass.cpp"]


def test_gitignore_folder_contents_pattern_keeps_the_folder(in_tmp: Path) -> None:
    # `foo/**` matches what is in foo, not foo: a later negation can re-include a file there
    write(in_tmp, ".gitignore", "foo/**\n!foo/keep.cu\n")
    write(in_tmp, "foo/keep.cu")
    write(in_tmp, "foo/drop.cu")
    write(in_tmp, "foo/sub/drop.cu")
    assert paths(discover(["."])) == ["foo/keep.cu"]


def test_gitignore_can_be_turned_off(in_tmp: Path) -> None:
    write(in_tmp, ".gitignore", "*.cu\n")
    write(in_tmp, "a.cu")
    assert paths(discover(["."])) == []
    assert paths(discover(["."], respect_gitignore=False)) == ["a.cu"]


def test_ancestor_gitignore_applies_up_to_git_root(in_tmp: Path) -> None:
    write(in_tmp, ".gitignore", "*.cu\n")  # above the git root: git would not read it
    repo = in_tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, ".gitignore", "gen/\n")
    write(repo, "pkg/.gitignore", "/src/skip.cu\n")
    write(repo, "pkg/src/a.cu")
    write(repo, "pkg/src/skip.cu")
    write(repo, "pkg/src/gen/x.cu")
    write(repo, ".git/info/exclude", "*.tmp.cu\n")
    write(repo, "pkg/src/t.tmp.cu")
    write(repo, ".git/objects/o.cu")
    assert paths(discover(["repo/pkg/src"])) == ["repo/pkg/src/a.cu"]
    assert paths(discover(["repo"])) == ["repo/pkg/src/a.cu"]


def test_ancestor_gitignore_applies_whatever_the_spelling_of_the_walked_folder(
    in_tmp: Path,
) -> None:
    repo = in_tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, ".gitignore", "/pkg/src/skip.cu\n")
    write(repo, "pkg/.gitignore", "/src/gen/\n")
    write(repo, "pkg/src/a.cu")
    write(repo, "pkg/src/skip.cu")
    write(repo, "pkg/src/gen/x.cu")
    for spelling in ("repo/pkg/src", "./repo//pkg/./src/", "repo/pkg/../pkg/src", str(repo / "pkg")):
        found = [os.path.basename(p) for p in paths(discover([spelling]))]
        assert found == ["a.cu"], spelling


def test_gitignore_without_git_root_still_applies_inside_walk(in_tmp: Path) -> None:
    write(in_tmp, "proj/.gitignore", "x.cu\n")
    write(in_tmp, "proj/x.cu")
    write(in_tmp, "proj/y.cu")
    assert paths(discover(["proj"])) == ["proj/y.cu"]


def test_always_skipped_folders_but_other_hidden_ones_walked(in_tmp: Path) -> None:
    write(in_tmp, "node_modules/a.cu")
    write(in_tmp, "__pycache__/a.cu")
    write(in_tmp, ".git/a.cu")
    write(in_tmp, ".hidden/a.cu")
    assert paths(discover(["."])) == [".hidden/a.cu"]


def test_exclude_patterns_are_relative_to_cwd(in_tmp: Path) -> None:
    write(in_tmp, "src/a.cu")
    write(in_tmp, "src/third_party/b.cu")
    write(in_tmp, "third_party/c.cu")
    write(in_tmp, "src/d.gen.cu")
    result = discover(["."], exclude=["/third_party/", "*.gen.cu"])
    assert paths(result) == ["src/a.cu", "src/third_party/b.cu"]
    result = discover(["src"], exclude=["src/third_party"])
    assert paths(result) == ["src/a.cu", "src/d.gen.cu"]


def test_exclude_does_not_apply_to_explicit_files(in_tmp: Path) -> None:
    write(in_tmp, "a.gen.cu")
    assert paths(discover(["a.gen.cu"], exclude=["*.gen.cu"])) == ["a.gen.cu"]


def test_symlink_loop_terminates_and_lists_each_file_once(in_tmp: Path) -> None:
    write(in_tmp, "root/a.cu")
    write(in_tmp, "root/sub/b.cu")
    os.symlink("..", in_tmp / "root/sub/up")
    os.symlink(in_tmp / "root", in_tmp / "root/sub/abs_up")
    result = discover(["root"])
    assert paths(result) == ["root/a.cu", "root/sub/b.cu"]
    assert not result.errors


def test_symlinked_file_and_folder_are_followed(in_tmp: Path) -> None:
    write(in_tmp, "elsewhere/lib/k.cu")
    write(in_tmp, "elsewhere/one.cu")
    write(in_tmp, "proj/main.cu")
    os.symlink(in_tmp / "elsewhere/lib", in_tmp / "proj/lib")
    os.symlink(in_tmp / "elsewhere/one.cu", in_tmp / "proj/one.cu")
    assert paths(discover(["proj"])) == ["proj/lib/k.cu", "proj/main.cu", "proj/one.cu"]


def test_a_plain_folder_inside_a_linked_one_is_walked_once_however_it_is_reached(
    in_tmp: Path,
) -> None:
    # "a" is walked first through the link "0_link" (sorted first): its plain subfolder's
    # real path comes from the link's real path, so the walk of "a" itself meets it as seen
    write(in_tmp, "root/a/sub/deep/x.cu")
    write(in_tmp, "root/a/y.cu")
    os.symlink(in_tmp / "root/a", in_tmp / "root/0_link")
    result = discover(["root"])
    assert paths(result) == ["root/0_link/sub/deep/x.cu", "root/0_link/y.cu"]
    assert not result.errors


def test_dangling_symlink_is_a_note_when_walking_and_an_error_when_named(in_tmp: Path) -> None:
    write(in_tmp, "d/ok.cu")
    os.symlink(in_tmp / "d/missing.cu", in_tmp / "d/broken.cu")
    result = discover(["d"])
    assert paths(result) == ["d/ok.cu"]
    assert [(s.path, s.reason) for s in result.skipped] == [("d/broken.cu", "dangling symlink")]
    assert not result.errors
    named = discover(["d/broken.cu"])
    assert not named.files
    assert [s.path for s in named.errors] == ["d/broken.cu"]


def test_a_loop_of_symlinks_is_a_dangling_one_when_walking(in_tmp: Path) -> None:
    # a <-> b resolve to nothing: a stale pair of links in a tree made the whole run exit 2
    write(in_tmp, "d/ok.cu")
    os.symlink("b.cu", in_tmp / "d/a.cu")
    os.symlink("a.cu", in_tmp / "d/b.cu")
    os.symlink("y", in_tmp / "d/x")  # no source's name: not even a note
    os.symlink("x", in_tmp / "d/y")
    result = discover(["d"])
    assert paths(result) == ["d/ok.cu"]
    assert [s.path for s in result.skipped] == ["d/a.cu", "d/b.cu"]
    assert all("symlink loop" in s.reason for s in result.skipped)
    assert not result.errors


def test_binary_file_is_skipped_with_a_note(in_tmp: Path) -> None:
    write(in_tmp, "bin.cu", b"\x7fELF\x00\x01")
    write(in_tmp, "text.cu")
    result = discover(["."])
    assert paths(result) == ["text.cu"]
    assert [(s.path, s.reason) for s in result.skipped] == [("bin.cu", "binary file (NUL byte)")]
    assert not result.errors


def test_big_file_is_skipped_with_a_note(in_tmp: Path) -> None:
    write(in_tmp, "big.cu", "x" * 2049)
    write(in_tmp, "small.cu", "x" * 2048)
    result = discover(["."], max_file_size=2048)
    assert paths(result) == ["small.cu"]
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("big.cu", "larger than 2 KiB (max-file-size)")
    ]
    assert paths(discover(["."], max_file_size=0)) == ["big.cu", "small.cu"]


def test_default_limit_message(in_tmp: Path) -> None:
    big = write(in_tmp, "big.cu", b"x" * (2 * 1024 * 1024 + 1))
    text, _, reason = read_source(str(big), 2 * 1024 * 1024)
    assert text is None and reason == "larger than 2 MiB (max-file-size)"
    assert not is_error_reason(reason)


def test_nonexistent_path_is_an_error(in_tmp: Path) -> None:
    write(in_tmp, "a.cu")
    result = discover(["nope", "a.cu", "nope.cu"])
    assert paths(result) == ["a.cu"]
    assert [(s.path, s.reason) for s in result.errors] == [
        ("nope", "does not exist"),
        ("nope.cu", "does not exist"),
    ]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read anything"
)
def test_unreadable_file_is_an_error(in_tmp: Path) -> None:
    path = write(in_tmp, "locked.cu")
    path.chmod(0)
    try:
        result = discover(["."])
        assert not result.files
        assert [(s.path, s.reason) for s in result.errors] == [
            ("locked.cu", "unreadable: [Errno 13] Permission denied")
        ]
        text, _, reason = read_source(str(path), 1024)
        assert text is None and reason is not None and is_error_reason(reason)
    finally:
        path.chmod(0o644)


def test_unreadable_file_is_an_error_even_as_root(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chmod 000 proves nothing as root, so simulate the failure at open() (an os.open that
    # never blocks: a FIFO without a writer would block the built-in open forever).
    write(in_tmp, "locked.cu")
    real_open = os.open

    def fake_open(file: str, *args: int, **kwargs: object) -> int:
        if str(file).endswith("locked.cu"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("os.open", fake_open)
    result = discover(["."])
    assert [(s.path, s.reason) for s in result.errors] == [
        ("locked.cu", "unreadable: [Errno 13] Permission denied")
    ]
    assert read_source("locked.cu", 1024) == (
        None,
        False,
        "unreadable: [Errno 13] Permission denied",
    )


def test_read_source_directory_is_an_error(tmp_path: Path) -> None:
    text, _, reason = read_source(str(tmp_path), 1024)
    assert text is None and reason is not None and is_error_reason(reason)


def test_read_source_non_utf8_is_replaced_and_flagged(tmp_path: Path) -> None:
    path = write(tmp_path, "latin1.cu", '// caf\xe9\nasm("nop;");\n'.encode("latin-1"))
    text, replaced, reason = read_source(str(path), 1024)
    assert reason is None and replaced
    assert text == '// caf\ufffd\nasm("nop;");\n'


def test_read_source_keeps_crlf_and_strips_bom(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.cu", b"\xef\xbb\xbfint a;\r\nint b;\r\n")
    assert read_source(str(path), 1024) == ("int a;\r\nint b;\r\n", False, None)


def test_read_source_binary_and_size(tmp_path: Path) -> None:
    path = write(tmp_path, "late_nul.cu", b"x" * 9000 + b"\0")
    # Only the first 8 KiB are sniffed, like git and ripgrep do.
    text, _, reason = read_source(str(path), 10_000)
    assert reason is None and text is not None
    assert read_source(str(path), 100)[2] == "larger than 100 bytes (max-file-size)"
    nul = write(tmp_path, "nul.cu", b"ab\0cd")
    assert read_source(str(nul), 100) == (None, False, "binary file (NUL byte)")


def test_decode_source_reports_clean_text() -> None:
    assert decode_source("ü".encode()) == ("ü", False)


def test_match_patterns_last_match_wins() -> None:
    patterns = compile_patterns(["*.cu", "!keep.cu", "# comment", ""])
    assert match_patterns(patterns, "a/x.cu", is_dir=False) is True
    assert match_patterns(patterns, "a/keep.cu", is_dir=False) is False
    assert match_patterns(patterns, "a/x.h", is_dir=False) is None


def test_compile_patterns_strict_rejects_malformed() -> None:
    assert compile_patterns(["\\"]) == ()
    with pytest.raises(ValueError, match="invalid pattern"):
        compile_patterns(["\\"], strict=True)


def test_default_extensions() -> None:
    assert ".cu" in DEFAULT_EXTENSIONS and ".cuh" in DEFAULT_EXTENSIONS


def test_hxx_headers_are_walked(in_tmp: Path) -> None:
    # a C++ header spelling of its own (gunrock, moderngpu keep their device helpers in .hxx)
    write(in_tmp, "include/util.hxx")
    write(in_tmp, "include/notes.txt")
    assert paths(discover(["include"])) == ["include/util.hxx"]


def test_included_fragments_are_walked_and_a_cuda_ones_asm_is_device_code(in_tmp: Path) -> None:
    # ginkgo keeps CUDA/HIP device code in "memory.nvidia.hpp.inc", included mid-file
    from ptxlint.file_traits import cuda_file
    from ptxlint.model import SourceFile

    write(in_tmp, "common/memory.nvidia.hpp.inc")
    write(in_tmp, "common/atomic.inc")
    write(in_tmp, "common/atomic.inc.orig")
    assert paths(discover(["common"])) == ["common/atomic.inc", "common/memory.nvidia.hpp.inc"]
    assert cuda_file(SourceFile("k.cu.inc", ""))
    assert cuda_file(SourceFile("k.CUH.inc", ""))
    assert not cuda_file(SourceFile("k.hpp.inc", ""))
    assert not cuda_file(SourceFile("k.inc", ""))


def _count_opens(monkeypatch) -> list[str]:
    """The names of the files discovery opens from now on, in order (its ``_open`` wrapped)."""
    from ptxlint.run import discover as discover_module

    opened: list[str] = []
    original = discover_module._open

    def counting(path: str):
        opened.append(os.path.basename(path))
        return original(path)

    monkeypatch.setattr(discover_module, "_open", counting)
    return opened


def test_reading_probe_reads_each_file_once_for_discovery_and_the_runner(
    tmp_path, monkeypatch
) -> None:
    from ptxlint.run import discover as discover_module

    (tmp_path / "a.cu").write_text('__device__ void f() { asm("membar.gl;"); }\n')
    (tmp_path / "b.cu").write_bytes(b"int x;\0\n")  # binary: a note, never handed on
    opened = _count_opens(monkeypatch)
    probe = discover_module.ReadingProbe()
    limit = discover_module.DEFAULT_MAX_FILE_SIZE  # discovery's, which the probe is given
    taken: dict[str, bytes | None] = {}

    def on_file(found) -> None:
        taken[os.path.basename(found.path)] = probe.take(found.path, limit)[0]

    found = discover([str(tmp_path)], probe=probe, on_file=on_file)
    assert taken == {"a.cu": (tmp_path / "a.cu").read_bytes()}
    assert [s.reason for s in found.skipped] == [discover_module.REASON_BINARY]
    assert sorted(opened) == ["a.cu", "b.cu"]  # once each
    assert probe.take(str(tmp_path / "a.cu"), limit)[0] is not None  # not kept: read again
    assert opened.count("a.cu") == 2


def _walk_as_the_runner(root: Path, monkeypatch, limit: int):
    """Walk ``root`` with a reading probe, each file found taken and judged by the prefilter
    as ``check -j 1 --no-cache`` does (reading the headers it includes); returns the bytes
    taken per file name, what was skipped, and the names the walk opened."""
    from ptxlint.frontends.cxx import headers
    from ptxlint.run import discover as discover_module
    from ptxlint.run import prefilter

    headers.forget_headers()
    opened = _count_opens(monkeypatch)
    probe = discover_module.ReadingProbe()
    taken: dict[str, bytes | None] = {}

    def on_file(found) -> None:
        data = probe.take(found.path, limit)[0]
        taken[os.path.basename(found.path)] = data
        assert data is not None
        prefilter.may_hold_asm(found.path, data)

    result = discover([str(root)], probe=probe, on_file=on_file, max_file_size=limit)
    return taken, [(os.path.basename(s.path), s.reason) for s in result.skipped], opened


def test_a_header_read_for_an_earlier_file_is_taken_by_the_walk_not_read_again(
    tmp_path, monkeypatch
) -> None:
    from ptxlint.frontends.cxx import headers

    # a.cu, found first, has no asm keyword: the prefilter reads the headers it includes,
    # z/b.cuh and (through it) z/c.cuh, before the walk gets to them
    (tmp_path / "a.cu").write_text('#include "z/b.cuh"\nint f();\n')
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "b.cuh").write_text('#pragma once\n#include "c.cuh"\n#define B 1\n')
    (tmp_path / "z" / "c.cuh").write_text('#pragma once\n#define C() asm("trap;")\n')
    taken, skipped, opened = _walk_as_the_runner(tmp_path, monkeypatch, 1 << 20)
    assert taken == {name: (tmp_path / path).read_bytes()
                     for name, path in (("a.cu", "a.cu"), ("b.cuh", "z/b.cuh"),
                                        ("c.cuh", "z/c.cuh"))}
    assert skipped == []
    assert opened == ["a.cu"]  # the headers' bytes came from their read for a.cu
    # what the walk did not take is dropped when it ends
    assert headers.take_read_ahead(str((tmp_path / "z" / "b.cuh").resolve())) is None


def test_a_header_read_ahead_is_judged_as_one_the_walk_reads(tmp_path, monkeypatch) -> None:
    # over the size limit, or binary: skipped with the same note as when the walk reads it
    (tmp_path / "a.cu").write_text('#include "z/big.cuh"\n#include "z/bin.cuh"\nint f();\n')
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "big.cuh").write_text("#define BIG 1\n" + "// padding\n" * 200)
    (tmp_path / "z" / "bin.cuh").write_bytes(b"#define BIN 1\n\0\n")
    limit = 1000
    _, skipped, opened = _walk_as_the_runner(tmp_path, monkeypatch, limit)
    assert sorted(skipped) == [("big.cuh", too_large(limit)), ("bin.cuh", REASON_BINARY)]
    assert opened == ["a.cu"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform does not fork")
def test_a_process_forked_during_the_walk_keeps_no_header_bytes(tmp_path) -> None:
    # a pool's workers are forked while the walk goes on; they read headers but never walk
    from ptxlint.frontends.cxx import headers

    header = tmp_path / "h.cuh"
    header.write_text("#define H 1\n")
    real = str(header.resolve())
    headers.forget_headers()
    headers.keep_read_ahead(True)
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            try:
                os.close(read_end)
                headers.header_include_names(real)
                kept = headers.take_read_ahead(real) is not None
                os.write(write_end, b"kept" if kept else b"none")
            finally:
                os._exit(0)
        os.close(write_end)
        answer = os.read(read_end, 16)
        os.close(read_end)
        os.waitpid(pid, 0)
        assert answer == b"none"
        headers.header_include_names(real)  # the walking process keeps what it reads
        assert headers.take_read_ahead(real) == header.read_bytes()
    finally:
        headers.keep_read_ahead(False)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 70_000])
@pytest.mark.parametrize("limit", [0, 4096])
def test_a_regular_file_reads_as_a_buffered_read_of_it(tmp_path, size: int, limit: int) -> None:
    # read through the descriptor (``_read_regular``), up to the limit and one byte more
    path = tmp_path / "k.cu"
    body = bytes(range(1, 256)) * (size // 255 + 1)
    path.write_bytes(body[:size])
    data, reason, info = read_bytes_stat(str(path), limit)
    if limit and size > limit:
        assert (data, reason, info) == (None, too_large(limit), None)
    else:
        assert data == body[:size] and reason is None and info is not None
