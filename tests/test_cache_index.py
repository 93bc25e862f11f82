"""The result cache's file index: a warm run reads nothing of an unchanged tree, and nothing a
result read (the file, the headers its macros come from, the folders deciding which headers its
includes find) can change without the next run seeing it."""

from __future__ import annotations

import builtins
import json
import os

import pytest

from ptxlint.cli import main
from ptxlint.run import file_index, prefilter, runner

HEADER = '#pragma once\n#define ADD(d, a) asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a))\n'
USES = '#include "m.cuh"\n__device__ unsigned f(unsigned a) { unsigned d; ADD(d, a); return d; }\n'
BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'


@pytest.fixture
def no_margin(monkeypatch):
    # Files a test writes are seconds old at most: with the real margin every stat would be
    # untrusted (read and hashed again), which the racy tests below rely on and these do not.
    monkeypatch.setattr(file_index, "RACY_MARGIN_NS", 0)


def check_json(capsys, *args: str) -> dict:
    main(["check", *args, "--format", "json", "--no-compile-commands", "--fail-on", "never"])
    doc = json.loads(capsys.readouterr().out)
    doc["stats"].pop("seconds")
    return doc


def messages(doc: dict) -> list[str]:
    return [f["message"] for f in doc["findings"]]


def count_lints(monkeypatch) -> list[str]:
    linted: list[str] = []
    real = runner.lint_path

    def counting(path, *args, **kwargs):
        linted.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "lint_path", counting)
    return linted


def test_editing_a_header_invalidates_the_results_that_expand_its_macros(
    tmp_path, capsys, cache_dir, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.cuh").write_text(HEADER)
    (tmp_path / "k.cu").write_text(USES)
    assert messages(check_json(capsys, "k.cu"))[0].startswith("'%3'")
    linted = count_lints(monkeypatch)
    (tmp_path / "m.cuh").write_text(HEADER.replace("%3", "%1"))  # same size
    assert messages(check_json(capsys, "k.cu")) == []
    assert linted == ["k.cu"]
    assert messages(check_json(capsys, "k.cu")) == []
    assert linted == ["k.cu"]  # and the new result is reused
    (tmp_path / "m.cuh").write_text(HEADER.replace("%3", "%4"))
    assert messages(check_json(capsys, "k.cu"))[0].startswith("'%4'")


def test_a_header_deeper_in_the_include_chain_counts_too(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inner.cuh").write_text(HEADER)
    (tmp_path / "m.cuh").write_text('#pragma once\n#include "inner.cuh"\n')
    (tmp_path / "k.cu").write_text(USES)
    (tmp_path / "other.cu").write_text('#include "m.cuh"\nint g();\n')
    assert len(check_json(capsys, "k.cu", "other.cu")["findings"]) == 1
    (tmp_path / "inner.cuh").write_text(HEADER.replace("%3", "%1"))
    assert check_json(capsys, "k.cu", "other.cu")["findings"] == []


def test_a_header_created_where_the_include_looks_first_is_seen(
    tmp_path, capsys, cache_dir, monkeypatch
):
    # sub/k.cu's `#include "m.cuh"` finds ../m.cuh; a sub/m.cuh created later shadows it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "m.cuh").write_text(HEADER)
    (tmp_path / "sub" / "k.cu").write_text(USES)
    assert len(check_json(capsys, "sub/k.cu")["findings"]) == 1
    (tmp_path / "sub" / "m.cuh").write_text(HEADER.replace("%3", "%1"))
    assert check_json(capsys, "sub/k.cu")["findings"] == []
    (tmp_path / "sub" / "m.cuh").unlink()
    assert len(check_json(capsys, "sub/k.cu")["findings"]) == 1


def test_new_files_beside_a_missed_candidate_above_the_tree_change_nothing(
    tmp_path, capsys, cache_dir, monkeypatch, no_margin
):
    # `#include "m.cuh"` resolves nowhere, so it is looked for in every folder above the tree,
    # /tmp or a home folder among them: files created there (all the time) must not invalidate
    # the tree's results, but the header itself, created there, must be seen
    proj = tmp_path / "outer" / "proj"
    proj.mkdir(parents=True)
    (proj / "k.cu").write_text(USES)
    monkeypatch.chdir(tmp_path)
    target = "outer/proj/k.cu"
    assert check_json(capsys, target)["stats"]["statements"] == 0
    checks: list[str] = []
    real_check = prefilter.uses_included_asm_macro

    def counting(path, data, *args):
        checks.append(os.path.basename(path))
        return real_check(path, data, *args)

    monkeypatch.setattr(prefilter, "uses_included_asm_macro", counting)
    linted = count_lints(monkeypatch)
    (tmp_path / "outer" / "unrelated.txt").write_text("x")
    (tmp_path / "scratch").mkdir()
    assert check_json(capsys, target)["stats"]["statements"] == 0
    assert checks == [] and linted == []
    (tmp_path / "outer" / "m.cuh").write_text(HEADER)
    doc = check_json(capsys, target)
    assert doc["stats"]["statements"] == 1 and len(doc["findings"]) == 1
    assert checks == ["k.cu"] and linted == ["k.cu"]


def test_the_prefilter_verdict_follows_its_headers(tmp_path, capsys, cache_dir, monkeypatch):
    # a file without an asm keyword is linted once a header it includes brings an asm macro
    # it names, and not before
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.cuh").write_text("#pragma once\n#define ADD(d, a) d = a\n")
    (tmp_path / "k.cu").write_text(USES)
    assert check_json(capsys, "k.cu")["stats"]["statements"] == 0
    (tmp_path / "m.cuh").write_text(HEADER)
    doc = check_json(capsys, "k.cu")
    assert doc["stats"]["statements"] == 1 and len(doc["findings"]) == 1


def test_a_same_size_rewrite_with_the_old_mtime_is_caught(
    tmp_path, capsys, cache_dir, monkeypatch, no_margin
):
    # the classic trap: same size, modification time set back; the status-change time moves
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "k.cu"
    source.write_text(BAD)
    before = source.stat()
    assert messages(check_json(capsys, "k.cu"))[0].startswith("'%3'")
    source.write_text(BAD.replace("%3", "%4"))
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert source.stat().st_size == before.st_size
    assert messages(check_json(capsys, "k.cu"))[0].startswith("'%4'")


def test_a_file_changed_within_the_timestamp_granularity_is_read_again(
    tmp_path, capsys, cache_dir, monkeypatch
):
    # Within the margin a stat is not trusted: even a change that leaves every time, the size
    # and the inode equal (a write in the same clock tick) is found by hashing the bytes.
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "k.cu"
    source.write_text(BAD)
    check_json(capsys, "k.cu")
    [(_, record)] = _index(cache_dir).files.items()
    assert record[0] is None  # written a moment ago: no stat is trusted
    real_stat = file_index.FileIndex.stat
    frozen = source.stat()
    source.write_text(BAD.replace("%3", "%4"))

    def stale_stat(self, path):  # what a file system with coarse times would show
        return frozen if path == str(source) else real_stat(self, path)

    monkeypatch.setattr(file_index.FileIndex, "stat", stale_stat)
    assert messages(check_json(capsys, "k.cu"))[0].startswith("'%4'")


def test_a_touched_file_is_hashed_not_linted(tmp_path, capsys, cache_dir, monkeypatch, no_margin):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.cuh").write_text(HEADER)
    (tmp_path / "k.cu").write_text(USES)
    first = check_json(capsys, "k.cu")
    linted = count_lints(monkeypatch)
    os.utime(tmp_path / "k.cu", ns=(1, 2))
    os.utime(tmp_path / "m.cuh", ns=(1, 2))
    assert check_json(capsys, "k.cu") == first
    assert linted == []


def _index(cache_dir) -> file_index.FileIndex:
    [path] = (cache_dir / "index").iterdir()
    return file_index.FileIndex(path, 0)


def read_in(tree, opened: list[str]) -> list[str]:
    """The files of ``tree`` opened (discovery's look for .gitignore files aside)."""
    return [p for p in opened if p.startswith(str(tree)) and not p.endswith(".gitignore")]


def test_a_warm_run_reads_no_file_of_the_tree(tmp_path, capsys, cache_dir, monkeypatch, no_margin):
    tree = tmp_path / "tree"
    (tree / "inc").mkdir(parents=True)
    (tree / "inc" / "m.cuh").write_text(HEADER)
    (tree / "k.cu").write_text('#include "inc/m.cuh"\n' + USES.split("\n", 1)[1])
    (tree / "bad.cu").write_text(BAD)
    (tree / "plain.cu").write_text("__device__ int g() { return 1; }\n")
    (tree / "inc.cu").write_text('#include "inc/m.cuh"\n__device__ int h() { return 2; }\n')
    monkeypatch.chdir(tmp_path)
    first = check_json(capsys, "tree")
    assert first["stats"]["statements"] >= 2 and len(first["findings"]) >= 2

    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def spy_open(file, *args, **kwargs):
        opened.append(os.path.abspath(str(file)))
        return real_open(file, *args, **kwargs)

    def spy_os_open(path, *args, **kwargs):
        opened.append(os.path.abspath(str(path)))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    assert check_json(capsys, "tree") == first
    assert read_in(tree, opened) == []
    opened.clear()
    # the same with the statements kept (a SARIF report fingerprints them)
    main(["check", "tree", "--format", "sarif", "--no-compile-commands", "--fail-on", "never"])
    with_cache = json.loads(capsys.readouterr().out)
    assert read_in(tree, opened) == []
    monkeypatch.setattr(builtins, "open", real_open)
    monkeypatch.setattr(os, "open", real_os_open)
    main(["check", "tree", "--format", "sarif", "--no-compile-commands", "--fail-on", "never",
          "--no-cache"])
    assert json.loads(capsys.readouterr().out) == with_cache


def test_no_cache_writes_no_index_and_clean_removes_it(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    check_json(capsys, "k.cu", "--no-cache")
    assert not (cache_dir / "index").exists()
    check_json(capsys, "k.cu")
    assert len(list((cache_dir / "index").iterdir())) == 1
    assert main(["clean"]) == 0
    capsys.readouterr()
    assert not (cache_dir / "index").exists()


def test_a_corrupt_index_is_an_empty_one(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    first = check_json(capsys, "k.cu")
    [path] = (cache_dir / "index").iterdir()
    path.write_bytes(b"\x80\x05not a pickle")
    assert check_json(capsys, "k.cu") == first
    assert check_json(capsys, "k.cu") == first


def test_the_include_graph_is_recorded_per_header_not_per_file(
    tmp_path, capsys, cache_dir, monkeypatch
):
    # twenty files including one chain of three headers: three header records, one each
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.cuh").write_text('#pragma once\n#include "b.cuh"\n')
    (tmp_path / "b.cuh").write_text('#pragma once\n#include "c.cuh"\n')
    (tmp_path / "c.cuh").write_text(HEADER)
    for i in range(20):
        (tmp_path / f"k{i}.cu").write_text('#include "a.cuh"\n' + USES.split("\n", 1)[1])
    check_json(capsys, ".")
    index = _index(cache_dir)
    assert sorted(os.path.basename(h) for h in index.nodes) == ["a.cuh", "b.cuh", "c.cuh"]
    fingerprints = {r[6] for p, r in index.files.items() if p.endswith(".cu")}
    assert len(fingerprints) == 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_warm_run_does_not_load_the_engine(tmp_path, cache_dir, jobs):
    # a run that finds every result in the cache needs no extraction, typing or fixing code
    import subprocess
    import sys

    (tmp_path / "k.cu").write_text(BAD)
    (tmp_path / "plain.cu").write_text("int g();\n")
    probe = (
        "import sys; from ptxlint.cli import main\n"
        "code = main(['check', sys.argv[1], '--quiet', '--fail-on', 'never', '--jobs',"
        f" '{jobs}'])\n"
        "print(sorted(m for m in ('ptxlint.engine', 'ptxlint.frontends.cxx.extract', 'ptxlint.fix')"
        " if m in sys.modules))\n"
    )
    env = dict(os.environ, PTXLINT_CACHE_DIR=str(cache_dir))
    runs = [
        subprocess.run([sys.executable, "-c", probe, str(tmp_path)], env=env, cwd=tmp_path,
                       capture_output=True, text=True, check=True).stdout.splitlines()[-1]
        for _ in range(2)
    ]
    assert runs == ["['ptxlint.engine', 'ptxlint.fix', 'ptxlint.frontends.cxx.extract']", "[]"]
