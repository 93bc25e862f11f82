"""A big C++ file linted in parts (ptxlint.engine_parts, ptxlint.run.file_parts) says exactly
what its whole-file lint says: the same statements, the same findings in the same order, the
same report in every format, the same cached result."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator

import pytest

from ptxlint import file_memos
from ptxlint.cli import main
from ptxlint.engine import (
    SelectAll,
    instantiate,
    lint_source,
    parse_template,
    type_lookup,
    unified_source,
)
from ptxlint.engine_parts import FileStatements, finish_parts, lint_part, shares
from ptxlint.frontends.cxx.extract import extract
from ptxlint.frontends.extraction import Share
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import Rule, RuleContext
from ptxlint.run import file_parts, runner, statement_pickle
from tests.conftest import FIXTURES

# Several functions; suppressions used, unused (PTX901) and file-wide; a carry chain and a
# split { } scope whose halves may fall into two parts (PTX107 and PTX203 read neighbours); an
# asm macro with invocations (expanded by the last part) and a defect its body shows on its
# own; a statement with #if inside (two branch readings); an asm label; a statement in an
# unused static helper (latent).
CRAFTED = r"""
#define LOAD(dst, src) asm("ld.global.u32 %0, [%1];" : "=r"(dst) : "l"(src))
#define CLOCK(t) asm("mov.u32 %0, %clock;" : "=r"(t))
// ptxlint: ignore-file[PTX20]
int counter asm("my_counter");

__device__ unsigned add_carry(unsigned &a, unsigned b) {
  unsigned carry;
  asm("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b));
  asm("addc.u32 %0, 0, 0;" : "=r"(carry));
  return carry;
}

__device__ unsigned scopes(unsigned x) {
  unsigned r;
  asm("{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %1, 0;\n\t"
      "selp.u32 %0, 1, 0, p;\n"
      : "=r"(r) : "r"(x));
  asm("mov.u32 %0, %1; }" : "=r"(r) : "r"(x));
  return r;
}

__device__ unsigned clocks() {
  unsigned t, u;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));  // ptxlint: ignore[PTX999]
  asm("mov.u32 %0, %clock;" : "=r"(u));  // ptxlint: ignore[PTX101]
  CLOCK(t);
  CLOCK(u);
  return t + u;
}

__device__ unsigned loads(const unsigned *p) {
  unsigned v, w;
  double wide;
  LOAD(v, p);
  LOAD(w, p + 1);
  LOAD(wide, p + 2);
  asm("add.u32 %0, %1, %2;" : "=r"(v) : "r"(v));
  return v + w + (unsigned)wide;
}

__device__ float branches(float x) {
  float y;
  asm("mul.f32 %0, %1, "
#if __CUDA_ARCH__ >= 800
      "%1;"
#else
      "%2;"
#endif
      : "=f"(y) : "f"(x));
  return y;
}

static __device__ unsigned never_called(unsigned a) {
  unsigned d;
  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));
  asm("mov.u32 %0, %%clock;" : "=r"(d));
  return d;
}

__device__ void fences() {
  // ptxlint: ignore
  asm volatile("membar.gl;" ::: "memory");
  asm("st.global.u32 [%0], %1;" :: "l"(0), "r"(1));
}
"""


def _sources() -> Iterator[SourceFile]:
    yield SourceFile("crafted.cu", CRAFTED)
    yield SourceFile("crafted_cr.cu", CRAFTED.replace("\n", "\r"))  # CR-only line breaks
    for name in ("PTX107_bad.cu", "PTX203_bad.cu", "PTX901_bad.cu", "PTX102_bad.cu"):
        path = os.path.join(FIXTURES, "rules", name)
        with open(path, encoding="utf-8") as handle:
            yield SourceFile(path, handle.read())
    # kernels that take their steps through a project header's helpers, beside asm of the
    # file's own: the protocol rules' findings at the helper calls (preview) are no
    # statement's, and one part asks about them
    folder = os.path.join(FIXTURES, "helper_calls")
    with open(os.path.join(folder, "bad.cu"), encoding="utf-8") as handle:
        kernels = handle.read()
    own = "".join(f'__device__ unsigned {name}() {{\n  unsigned r;\n'
                  f'  asm volatile("mov.u32 %0, %%{name};" : "=r"(r));\n  return r;\n}}\n'
                  for name in ("laneid", "warpid", "smid"))
    yield SourceFile(os.path.join(folder, "with_asm.cu"), kernels + own)


def _rules(preview: bool = False) -> list[Rule]:
    return instantiate([r for r in load_rules().rules if preview or not r.preview])


def _keywords(text: str) -> int:
    return len(shares(text, 10_000))


def test_crafted_file_holds_what_the_parts_must_keep() -> None:
    findings = lint_source(SourceFile("crafted.cu", CRAFTED), _rules(), RuleContext()).findings
    rules = {f.rule for f in findings}
    assert {"PTX107", "PTX203", "PTX901", "PTX101", "PTX001"} <= rules
    assert any(f.expansion is not None for f in findings)
    assert any(f.latent for f in findings)
    assert _keywords(CRAFTED) >= 12


@pytest.mark.parametrize("source", list(_sources()), ids=lambda s: os.path.basename(s.path))
def test_shares_extract_what_the_whole_file_extracts(source: SourceFile) -> None:
    read = unified_source(source)
    whole = extract(read, parse_template, type_lookup)
    for count in range(2, _keywords(read.text) + 2):
        parts = [extract(read, parse_template, type_lookup, share, whole.parsed)
                 for share in shares(read.text, count)]
        assert [s for p in parts for s in p.statements] == whole.statements
        assert [s for p in parts for s in p.skipped] == whole.skipped
        assert [s for p in parts for s in p.skipped_invocations] == whole.skipped_invocations
        assert [s for p in parts for s in p.unexpanded_macros] == whole.unexpanded_macros
        assert sum(p.branch_variants for p in parts) == whole.branch_variants


def test_shares_cut_at_keywords_and_cover_the_file() -> None:
    cut = shares(CRAFTED, 4)
    assert len(cut) == 4
    assert cut[0].start == 0 and cut[-1].end is None
    assert all(a.end == b.start for a, b in zip(cut, cut[1:], strict=False))
    assert all(CRAFTED.startswith(("asm", "__asm"), s.start) for s in cut[1:])
    assert shares(CRAFTED, 1) == [Share()]
    assert len(shares("int x;", 3)) == 1


def _in_parts(source: SourceFile, rules: list[Rule], count: int) -> list:
    # each part as a worker lints it: a source object of its own, and the memos that remember
    # a file by its object forgotten before (a part's tree leaves other functions out)
    file_memos.release()
    parts = []
    for share in shares(source.text, count):
        parts.append(lint_part(dataclasses.replace(source), rules, RuleContext(), SelectAll(),
                               share))
        file_memos.release()
    read = unified_source(source)
    for part in parts:  # as between processes: the rows pickled without the file's text
        part.rows = statement_pickle.loads_value(statement_pickle.dumps(part.rows, read), read)
        part.loose = statement_pickle.loads_value(statement_pickle.dumps(part.loose, read), read)
    return finish_parts(source, parts, rules, SelectAll())


@pytest.mark.parametrize("preview", [False, True])
@pytest.mark.parametrize("source", list(_sources()), ids=lambda s: os.path.basename(s.path))
def test_a_file_linted_in_parts_has_the_findings_of_its_whole_lint(
    source: SourceFile, preview: bool
) -> None:
    rules = _rules(preview)
    whole = lint_source(source, rules, RuleContext()).findings
    for count in range(2, _keywords(source.text) + 2):
        assert _in_parts(source, rules, count) == whole, count


def test_a_rule_that_raises_in_a_part_is_reported_as_in_a_whole_lint() -> None:
    class Raises(Rule):
        id, name = "PTX998", "raises-on-addc"

        def check(self, statement, context):
            if "addc" in statement.template.text:
                raise RuntimeError("boom")
            return ()

    rules = [*_rules(), Raises()]
    source = SourceFile("crafted.cu", CRAFTED)
    whole = lint_source(source, rules, RuleContext()).findings
    assert any(f.rule == "internal-error" for f in whole)
    for count in (2, 5, 9):
        assert _in_parts(source, rules, count) == whole


def test_other_statements_are_extracted_only_when_a_rule_reads_them() -> None:
    source = unified_source(SourceFile("crafted.cu", CRAFTED))
    whole = extract(source, parse_template, type_lookup)
    cut = shares(source.text, 3)
    own = extract(source, parse_template, type_lookup, cut[1], whole.parsed).statements
    assert whole.parsed is not None
    everything = FileStatements(source, cut[1], own, whole.parsed)
    assert everything._all is None  # nothing read yet: nothing extracted
    assert list(everything) == whole.statements
    assert len(everything) == len(whole.statements)
    start = next(i for i, s in enumerate(whole.statements) if s == own[0])
    assert all(everything[start + i] is s for i, s in enumerate(own))  # the part's own objects


def test_part_count_follows_statements_bytes_and_pool_width() -> None:
    statement = b'asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 ...;");\n'
    # big statements (a GMMA header's are about 3.8 KB), many of them
    big = (statement + b"// operands\n" * 400) * (5 * file_parts.PART_STATEMENTS)
    assert len(big) > 4 * file_parts.PART_BYTES
    assert file_parts.parts("gmma.hpp", big, 16) == 4
    assert file_parts.parts("gmma.hpp", big, 64) == 4  # one per PART_BYTES at most
    assert file_parts.parts("gmma.hpp", big, 8) == 2
    assert file_parts.parts("gmma.hpp", big, 4) == 1  # a narrow pool: whole
    small = statement * (5 * file_parts.PART_STATEMENTS)  # many statements, small ones
    assert file_parts.parts("generated.h", small, 16) == 1
    few = b"int x;\n" * (file_parts.PART_BYTES // 2) + statement * 10  # big, few statements
    assert file_parts.parts("big.h", few, 16) == 1
    assert file_parts.parts("kernels.py", big, 16) == 1  # only the C++ front end cuts
    assert file_parts.part_size(4000, 4) < 4000


def _check(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    main(["check", *args, "--no-compile-commands", "--fail-on", "never", "--no-progress"])
    out = capsys.readouterr().out
    # the run's duration is the one thing two runs differ in
    lines = [line for line in out.splitlines() if '"seconds"' not in line]
    return "\n".join(line.split(" asm statements, ")[0] for line in lines)


@pytest.fixture
def cut_everywhere(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every C++ file with a few statements cut into parts, even in a pool of two."""
    monkeypatch.setattr(file_parts, "WORKERS_PER_PART", 1)
    monkeypatch.setattr(file_parts, "PART_STATEMENTS", 2)
    monkeypatch.setattr(file_parts, "PART_BYTES", 1)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(runner, "default_jobs", lambda: 4)
    merged: list[str] = []
    original = file_parts.Split.merged

    def spy(self: file_parts.Split, *args: object) -> object:
        merged.append(self.path)
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(file_parts.Split, "merged", spy)
    return merged


def _tree(tmp_path) -> str:
    (tmp_path / "crafted.cu").write_text(CRAFTED)
    (tmp_path / "crafted_copy.cuh").write_text(CRAFTED.replace("loads", "loads2"))
    (tmp_path / "small.cu").write_text('__device__ void f() { asm("membar.gl;"); }\n')
    return str(tmp_path)


@pytest.mark.parametrize("form", ["text", "json", "sarif", "full"])
def test_check_in_parts_prints_what_check_prints_whole(
    tmp_path, capsys, cut_everywhere: list[str], form: str
) -> None:
    tree = _tree(tmp_path)
    whole = _check([tree, "--no-cache", "-j", "1", "--output-format", form], capsys)
    assert cut_everywhere == []
    parted = _check([tree, "--no-cache", "-j", "4", "--output-format", form], capsys)
    # the crafted files in parts; the small one whole, as one part started early
    assert sorted(os.path.basename(p) for p in cut_everywhere) == ["crafted.cu",
                                                                     "crafted_copy.cuh",
                                                                     "small.cu"]
    assert parted == whole
    if form == "json":
        assert json.loads(parted)["findings"]


def test_a_result_merged_from_parts_is_cached_as_the_whole_file_result(
    tmp_path, capsys, cache_dir, cut_everywhere: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path)
    whole = _check([tree, "--no-cache", "-j", "1", "--output-format", "json"], capsys)
    cold = _check([tree, "-j", "4", "--output-format", "json"], capsys)
    assert len(cut_everywhere) == 3

    def linted(*args: object, **kwargs: object) -> None:
        raise AssertionError("linted again: the result was not cached")

    monkeypatch.setattr(runner, "lint_path", linted)
    monkeypatch.setattr(file_parts, "lint_part_job", linted)
    monkeypatch.setattr(file_parts, "WORKERS_PER_PART", 1000)  # nothing started before
    warm = _check([tree, "-j", "4", "--output-format", "json"], capsys)
    assert cold == whole and warm == whole


def test_a_big_file_is_handed_to_the_pool_before_discovery_meets_it(
    tmp_path, capsys, cut_everywhere: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path)
    (tmp_path / "skipped.cu").write_text(CRAFTED)
    (tmp_path / ".ptxlint.toml").write_text('exclude = ["skipped.cu"]\n')
    whole = _check([tree, "--no-cache", "-j", "1", "--output-format", "json"], capsys)
    early: list[str] = []
    original = runner._Run.start_early

    def spy(self: runner._Run, *args: object) -> None:
        original(self, *args)  # type: ignore[arg-type]
        early.extend(os.path.basename(p) for p in self.early)

    monkeypatch.setattr(runner._Run, "start_early", spy)
    parted = _check([tree, "--no-cache", "-j", "4", "--output-format", "json"], capsys)
    assert sorted(early) == ["crafted.cu", "crafted_copy.cuh", "small.cu"]  # not skipped.cu
    assert parted == whole
    assert "skipped.cu" not in parted


def test_a_file_started_early_and_left_to_this_process_is_linted_whole_once(
    tmp_path, capsys, cut_everywhere: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # one file, started early as one part: too little work for the pool to start, so this
    # process lints the job it holds, whole
    monkeypatch.setattr(file_parts, "PART_STATEMENTS", 10**6)
    (tmp_path / "alone.cu").write_text(CRAFTED)
    tree = str(tmp_path)
    whole = _check([tree, "--no-cache", "-j", "1", "--output-format", "json"], capsys)
    early: list[int] = []
    original = runner._Run.start_early

    def spy(self: runner._Run, *args: object) -> None:
        original(self, *args)  # type: ignore[arg-type]
        early.extend(len(split.outcomes) for split in self.early.values())

    monkeypatch.setattr(runner._Run, "start_early", spy)
    alone = _check([tree, "--no-cache", "-j", "4", "--output-format", "json"], capsys)
    assert early == [1] and cut_everywhere == []  # started as one part, never merged
    assert alone == whole
    assert json.loads(alone)["findings"]
