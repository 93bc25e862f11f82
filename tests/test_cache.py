"""The result cache, its location and `ptxlint clean`; the byte prefilter; the worker pool;
progress on stderr."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.run import cache, prefilter, progress, runner

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'
NO_ASM = "__device__ unsigned g(unsigned a) { return a + 1; }\n"


def check_json(capsys, *args: str) -> dict:
    main(["check", *args, "--format", "json", "--no-compile-commands"])
    doc = json.loads(capsys.readouterr().out)
    doc["stats"].pop("seconds")
    return doc


def entries(folder) -> list[str]:
    results = folder / "results"
    return sorted(p.name for p in results.rglob("*") if p.is_file()) if results.is_dir() else []


def forbid_linting(monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise AssertionError("linted although the cache holds the result")

    monkeypatch.setattr(runner, "lint_path", boom)


def test_second_run_reads_results_from_the_cache(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    first = check_json(capsys, "k.cu")
    assert len(entries(cache_dir)) == 1 and len(first["findings"]) == 1
    forbid_linting(monkeypatch)
    assert check_json(capsys, "k.cu") == first


def test_a_changed_file_rule_selection_or_arch_misses(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "k.cu"
    source.write_text(BAD)
    check_json(capsys, "k.cu")
    source.write_text(BAD.replace("%3", "%2"))
    assert check_json(capsys, "k.cu")["findings"][0]["message"].startswith("'%2'")
    assert check_json(capsys, "k.cu", "--ignore", "PTX001")["findings"] == []
    check_json(capsys, "k.cu", "--arch", "sm_90a")
    assert len(entries(cache_dir)) == 4


def test_no_cache_neither_reads_nor_writes(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    check_json(capsys, "k.cu", "--no-cache")
    assert entries(cache_dir) == []
    monkeypatch.setenv("PTXLINT_NO_CACHE", "1")
    check_json(capsys, "k.cu")
    assert entries(cache_dir) == []


def test_clean_removes_every_cache_but_the_test_oracle(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    check_json(capsys, "k.cu")
    for kind in ("tier2", "verify", "tests"):
        (cache_dir / kind).mkdir(parents=True, exist_ok=True)
        (cache_dir / kind / "entry").write_text("x")
    assert main(["clean"]) == 0
    assert "Removed" in capsys.readouterr().out
    assert sorted(p.name for p in cache_dir.iterdir()) == ["tests"]


def test_clean_keeps_the_benchmark_corpora_and_mirrors(tmp_path, capsys, cache_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for kind in ("corpora", "mirrors", "verify"):
        (cache_dir / kind).mkdir(parents=True, exist_ok=True)
        (cache_dir / kind / "entry").write_text("x")
    assert main(["clean"]) == 0
    assert sorted(p.name for p in cache_dir.iterdir()) == ["corpora", "mirrors"]


def test_one_location_setting_for_every_cache(tmp_path, monkeypatch):
    from ptxlint.tier2.cache import default_root
    from ptxlint.verify.runner import cache_dir as verify_dir

    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path))
    assert default_root() == tmp_path / "tier2"
    assert verify_dir() == tmp_path / "verify"
    assert cache.location("results") == tmp_path / "results"
    monkeypatch.delenv("PTXLINT_CACHE_DIR")
    assert cache.root().name == "ptxlint"  # the user cache folder, by platformdirs


def test_the_cache_is_bounded_least_recently_used_first(tmp_path):
    store = cache.ResultCache(tmp_path, "salt")
    keys = [store.key(f"f{i}.cu", b"x" * 10, "rules") for i in range(10)]
    for age, key in enumerate(keys):
        store.put(key, b"y" * 1000)
        entry = tmp_path / key[:2] / key
        os.utime(entry, (1000 + age, 1000 + age))
    assert store.prune(limit=5000) > 0
    left = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert keys[-1] in left and keys[0] not in left
    assert sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file()) <= 5000


def test_a_corrupt_entry_is_a_miss(tmp_path):
    store = cache.ResultCache(tmp_path, "salt")
    key = store.key("k.cu", b"data", "rules")
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / key).write_bytes(b"not a pickle")
    assert store.get(key) is None


def test_files_without_an_asm_keyword_are_never_parsed(tmp_path, capsys, monkeypatch):
    (tmp_path / "plain.cu").write_text(NO_ASM)
    (tmp_path / "latin1.h").write_bytes(b"// caf\xe9\nint x;\n")
    parsed: list[str] = []

    import ptxlint.frontends.cxx.extract as extract

    real_parse = extract.parse

    def spy(path, text, *rest):
        parsed.append(path)
        return real_parse(path, text, *rest)

    monkeypatch.setattr(extract, "parse", spy)
    (tmp_path / "k.cu").write_text(BAD)
    doc = check_json(capsys, str(tmp_path))
    assert [os.path.basename(p) for p in parsed] == ["k.cu"]
    assert doc["stats"]["files"] == 3
    # a file that is not UTF-8 still gets its note, asm or not
    assert any(n["path"].endswith("latin1.h") for n in doc["notes"])


def test_prefilter_keywords_are_per_extension():
    assert prefilter.may_hold_asm("k.cu", b"__asm__ volatile")
    assert not prefilter.may_hold_asm("k.cu", b"int main() {}")
    prefilter.register([".pyx"], [b"inline_asm"])
    try:
        assert prefilter.may_hold_asm("k.pyx", b"x.inline_asm_elementwise(")
        assert not prefilter.may_hold_asm("k.pyx", b"asm")
        assert prefilter.may_hold_asm("k.unknown", b"asm")  # unregistered: the C++ words
    finally:
        prefilter._BY_EXTENSION.pop(".pyx")


def test_the_worker_pool_reports_what_one_process_does(tmp_path, capsys, monkeypatch):
    for i in range(12):
        (tmp_path / f"k{i:02}.cu").write_text(BAD if i % 3 else NO_ASM)
    one = check_json(capsys, str(tmp_path), "--jobs", "1", "--no-cache")
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 1)
    two = check_json(capsys, str(tmp_path), "--jobs", "2", "--no-cache")
    assert two == one and len(one["findings"]) == 8


def test_progress_is_a_line_now_and_then_when_not_a_terminal(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    stream = io.StringIO()
    bar = progress.Progress(stream, terminal=False)
    bar.update(1, 100)
    assert stream.getvalue() == ""  # short runs stay silent
    now[0] = progress.QUIET_SECONDS + 1
    bar.update(40, 100)
    bar.update(41, 100)  # not again before EVERY_SECONDS
    now[0] += progress.EVERY_SECONDS
    bar.update(60, 100)
    bar.finish()
    lines = stream.getvalue().splitlines()
    assert lines == ["ptxlint: 40/100 files (40%), 11 s", "ptxlint: 60/100 files (60%), 21 s"]


def test_progress_never_reaches_machine_readable_output(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(progress, "QUIET_SECONDS", -1.0)
    for i in range(3):
        (tmp_path / f"k{i}.cu").write_text(BAD)
    main(["check", str(tmp_path), "--format", "json", "--no-cache", "--jobs", "1"])
    out, err = capsys.readouterr()
    json.loads(out)
    assert "ptxlint: 1/1+ files" in err  # linted while discovery walks: more may come


def test_python_files_pass_the_prefilter_by_the_front_ends_words():
    from ptxlint.frontends.python import PREFILTER

    assert prefilter.keywords_for("kernel.py") == tuple(PREFILTER)
    assert prefilter.may_hold_asm("k.py", b"tl.inline_asm_elementwise(")
    assert not prefilter.may_hold_asm("k.py", b"import numpy  # asm")


def test_the_include_prefilter_answer_is_cached(tmp_path, capsys, cache_dir, monkeypatch):
    # a file without an asm keyword whose <proj/...> include brings an asm macro it uses, and
    # one whose include brings none: the header closures are read on the first run only
    monkeypatch.chdir(tmp_path)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "trap.cuh").write_text(
        '#pragma once\n#define PROJ_TRAP() asm volatile("trap;")\n')
    (tmp_path / "proj" / "plain.cuh").write_text("#pragma once\n#define PROJ_ONE 1\n")
    (tmp_path / "uses.cu").write_text(
        "#include <proj/trap.cuh>\n__device__ void f() { PROJ_TRAP(); }\n")
    (tmp_path / "plain.cu").write_text(
        "#include <proj/plain.cuh>\n__device__ int g() { return PROJ_ONE; }\n")
    first = check_json(capsys, "uses.cu", "plain.cu")
    assert first["stats"]["statements"] == 1

    asked: list[str] = []
    original = prefilter.uses_included_asm_macro

    def counting(path, data, included=None):
        asked.append(os.path.basename(path))
        return original(path, data, included)

    monkeypatch.setattr(prefilter, "uses_included_asm_macro", counting)
    forbid_linting(monkeypatch)
    assert check_json(capsys, "uses.cu", "plain.cu") == first
    assert asked == []
    # a changed file is asked again (and, holding no statement, still not linted)
    (tmp_path / "plain.cu").write_text(
        "#include <proj/plain.cuh>\n__device__ int g() { return PROJ_ONE + 1; }\n")
    assert check_json(capsys, "uses.cu", "plain.cu") == first
    assert asked == ["plain.cu"]


def test_a_cached_entry_keeps_the_text_packed(tmp_path, capsys, cache_dir, monkeypatch):
    from ptxlint.run.packed_source import PackedSource

    monkeypatch.chdir(tmp_path)
    # generated kernels repeat themselves: the entry must not hold the text as it is
    text = BAD + "".join(f"// generated line {i % 10}\n" for i in range(20000))
    (tmp_path / "k.cu").write_text(text)
    first = check_json(capsys, "k.cu")
    [entry] = (cache_dir / "results").rglob("*/*")
    assert entry.stat().st_size < len(text) // 10
    loaded = runner._load(cache.ResultCache(cache_dir / "results", ""), entry.name, True)
    assert loaded is not None and isinstance(loaded.source, PackedSource)
    assert loaded.source.text == text
    # the finding's statement is read back with that text
    [finding] = loaded.findings
    assert finding.statement is not None and finding.statement.source is loaded.source
    forbid_linting(monkeypatch)
    assert check_json(capsys, "k.cu") == first


def test_pruning_removes_the_runs_own_entries_last(tmp_path):
    store = cache.ResultCache(tmp_path, "salt")
    keys = [store.key(f"f{i}.cu", b"x" * 10, "rules") for i in range(10)]
    for age, key in enumerate(keys):
        store.put(key, b"y" * 1000)
        os.utime(tmp_path / key[:2] / key, (1000 + age, 1000 + age))
    size = (tmp_path / keys[0][:2] / keys[0]).stat().st_size
    # the run read the four oldest (a hit refreshes an entry's time only once an hour)
    assert store.prune(limit=6 * size, used=keys[:4]) == 6
    left = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert left == set(keys[:4])
    # a run whose own entries are over the limit loses the oldest of them, down to it
    for key in keys[4:]:
        store.put(key, b"y" * 1000)
    assert store.prune(limit=5 * size, used=keys) == 5
    assert {p.name for p in tmp_path.rglob("*") if p.is_file()} == set(keys[5:])


def test_a_run_near_the_limit_keeps_what_it_read(tmp_path, capsys, cache_dir, monkeypatch):
    """Another tree's newer entries go before the entries a run has just read."""
    for tree in ("a", "b"):
        (tmp_path / tree).mkdir()
        for name in ("k1.cu", "k2.cu"):
            (tmp_path / tree / name).write_text(BAD + f"// {tree}/{name}\n")
    check_json(capsys, str(tmp_path / "a"), "--jobs", "1")
    earlier = time.time() - 600  # within the hour: a hit does not touch it
    for entry in (cache_dir / "results").rglob("*/*"):
        os.utime(entry, (earlier, earlier))
    check_json(capsys, str(tmp_path / "b"), "--jobs", "1")
    size = max(p.stat().st_size for p in (cache_dir / "results").rglob("*/*"))
    monkeypatch.setattr(cache, "MAX_RESULTS_BYTES", 4 * size + size // 2)
    (tmp_path / "a" / "k2.cu").write_text(BAD + "// changed\n")
    check_json(capsys, str(tmp_path / "a"), "--jobs", "1")  # one new entry: five, over the limit
    forbid_linting(monkeypatch)  # in this process: --jobs 1
    assert len(check_json(capsys, str(tmp_path / "a"), "--jobs", "1")["findings"]) == 2


def test_tier2_cache_is_bounded_and_keeps_its_prelude(tmp_path, monkeypatch):
    from ptxlint.tier2 import cache as tier2_cache

    prelude = tmp_path / "prelude-0123" / "ptxlint_prelude.h"
    prelude.parent.mkdir()
    prelude.write_text("#define X 1\n" * 1000)
    source = tmp_path / "k.cu"
    source.write_text(BAD)
    first = tier2_cache.Tier2Cache(tmp_path)
    keys = [first.key(str(source), [f"-DV={i}"]) for i in range(5)]
    for age, key in enumerate(keys[:3]):
        first.put(key, "a TU that does not parse " * 40, [str(source)])
        then = time.time() - 900 + age  # within the hour: a hit does not touch it
        os.utime(tmp_path / key[:2] / f"{key}.json", (then, then))
    size = (tmp_path / keys[0][:2] / f"{keys[0]}.json").stat().st_size
    monkeypatch.setattr(tier2_cache, "MAX_BYTES", 3 * size)
    later = tier2_cache.Tier2Cache(tmp_path)  # the next run reads the oldest, writes two more
    assert later.get(keys[0]) is not None
    for key in keys[3:]:
        later.put(key, "a TU that does not parse " * 40, [str(source)])
    names = {p.name for p in tmp_path.glob("??/*.json")}
    assert names == {f"{keys[i]}.json" for i in (0, 3, 4)}
    assert prelude.exists()


def test_verify_outcomes_are_bounded_after_a_run(tmp_path, monkeypatch):
    from ptxlint.verify import runner as verify_runner

    monkeypatch.setattr(verify_runner, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(verify_runner, "_used", set())
    outcomes = tmp_path / "outcomes"
    outcomes.mkdir()
    job = verify_runner.Compile(("ptxas", "k.ptx"), (("k.ptx", ".version 8.0"),))
    key = verify_runner._key(job, "ptxas 13.0")
    (outcomes / f"{key}.json").write_text(
        json.dumps({"returncode": 0, "stdout": "", "stderr": "", "outputs": []}) + " " * 900
    )
    earlier = time.time() - 600
    os.utime(outcomes / f"{key}.json", (earlier, earlier))
    for i in range(5):
        (outcomes / f"other{i}.json").write_text("x" * 1000)
    assert verify_runner.run(job, "ptxas 13.0").cached  # a hit: this run's, pruned last
    monkeypatch.setattr(verify_runner, "MAX_CACHE_BYTES", 3000)
    assert verify_runner.prune_cache() == 0  # nothing written: nothing to do
    verify_runner._wrote.set()
    assert verify_runner.prune_cache() == 4
    assert sorted(p.name for p in outcomes.iterdir()) == [f"{key}.json", "other4.json"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is Linux's")
@pytest.mark.parametrize("xdg", [None, "", "  ", "relative/cache", "ABS"])
def test_the_cache_folder_is_where_platformdirs_puts_it(tmp_path, monkeypatch, xdg):
    # worked out without importing platformdirs (6 ms of every run's start-up), and the same
    import platformdirs

    monkeypatch.delenv("PTXLINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg") if xdg == "ABS" else xdg)
    assert cache.root() == Path(platformdirs.user_cache_dir("ptxlint", appauthor=False))
