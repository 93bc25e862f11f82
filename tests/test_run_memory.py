"""What a run keeps in memory: per-file memos let go once a file is done, the texts the report
needs kept packed, the statements of findings dropped when no report reads them, and the JSON
report joined as it is encoded. Each change must leave the output exactly as it was."""

from __future__ import annotations

import dataclasses
import gc
import json
import pickle
import re
import shutil
from pathlib import Path

import pytest

from ptxlint import file_memos
from ptxlint.cli import main
from ptxlint.config import Config, RuleSelector
from ptxlint.engine import INTERNAL_ERROR, instantiate
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, SourceFile, Span
from ptxlint.registry import load_rules
from ptxlint.report.json_format import dumps
from ptxlint.rule import RuleContext
from ptxlint.run import runner
from ptxlint.run.packed_source import PackedSource, pack

FIXTURES = Path(__file__).parent.parent / "fixtures" / "rules"


def _lint(path: str) -> runner.FileOutcome:
    classes = load_rules().rules
    selector = RuleSelector(Config(), [(r.id, r.name) for r in classes])
    return runner.lint_path(path, instantiate(classes), RuleContext(), selector, 1 << 24)


def _alive(kind: type, path: str) -> int:
    gc.collect()
    return sum(
        1 for o in gc.get_objects()
        if type(o) is kind and getattr(getattr(o, "source", o), "path", None) == path
    )


def test_nothing_of_a_linted_file_outlives_its_outcome(tmp_path):
    # PTX301 follows values through the file's tree (value_flow), the target rules read its
    # #error lines (targets), PTX204/206/207 share verdicts (judge): each remembers the file.
    path = tmp_path / "k.cu"
    shutil.copy(FIXTURES / "PTX301_bad.cu", path)
    outcome = _lint(str(path))
    assert outcome.findings and _alive(AsmStatement, str(path))
    del outcome
    assert _alive(AsmStatement, str(path)) == 0
    assert _alive(SourceFile, str(path)) == 0
    gc.collect()
    assert not _trees_of(path)


def _trees_of(path) -> list[ParsedSource]:
    """The syntax trees of the file at ``path`` still alive. (Headers the protocol rules read
    for their helpers are kept, a bounded few, for the next file that includes them:
    ptxlint.analysis.included_helpers.)"""
    text = path.read_text()
    return [o for o in gc.get_objects() if type(o) is ParsedSource and o.text == text]


def test_a_linted_file_s_cycles_go_before_the_next_file(tmp_path):
    """The collector is paused for a file until its objects are let go, then collects once:
    without that collection the extractor's cycles, holding the file's tree, lived on until
    allocations started one (flashinfer's workers tripled their memory)."""
    path = tmp_path / "k.cu"
    shutil.copy(FIXTURES / "PTX301_bad.cu", path)
    gc.collect()
    assert gc.isenabled()
    outcome = _lint(str(path))
    assert gc.isenabled()
    assert outcome.findings
    assert not _trees_of(path)  # no collect() first
    gc.disable()
    try:
        _lint(str(path))
        assert not gc.isenabled()  # a caller's pause is left as it was
    finally:
        gc.enable()


def test_file_memos_release_calls_every_registered_clear():
    forgotten: dict[str, int] = {"x": 1}
    file_memos.register(forgotten.clear)
    try:
        file_memos.release()
        assert forgotten == {}
    finally:
        file_memos._CLEARS.remove(forgotten.clear)
    file_memos.trim()  # harmless anywhere


TEXT = "first line\r\nsecond é line\n\nüber \\u00e9 \ufffd end"


def test_a_packed_source_reads_as_the_source_it_was_made_from():
    source = SourceFile("k.cu", TEXT, decode_errors=True)
    packed = pack(source)
    assert isinstance(packed, PackedSource) and pack(packed) is packed
    assert packed.text == TEXT and packed.path == "k.cu" and packed.decode_errors
    assert packed.line_starts == source.line_starts
    for offset in range(len(TEXT) + 2):
        assert packed.line_col(offset) == source.line_col(offset)
    for line in range(6):
        assert packed.line_text(line) == source.line_text(line)
    assert packed.offset_of(2, 3) == source.offset_of(2, 3)
    assert packed == source
    again = pickle.loads(pickle.dumps(packed))
    assert again.text == TEXT and again.line_col(15) == source.line_col(15)
    assert len(pickle.dumps(packed)) < len(pickle.dumps(SourceFile("k.cu", TEXT * 100))) / 10
    replaced = dataclasses.replace(packed, text="other")
    assert replaced.text == "other" and replaced.path == "k.cu"


def test_many_packed_sources_each_keep_their_own_text():
    sources = [SourceFile(f"k{i}.cu", f"file {i}\n" * (i + 1)) for i in range(12)]
    packed = [pack(s) for s in sources]
    for _ in range(2):
        for original, kept in zip(sources, packed, strict=True):
            assert kept.text == original.text and kept.line_starts == original.line_starts


def test_dropping_statements_keeps_findings_and_internal_errors():
    source = SourceFile("k.cu", "x")
    outcome = _lint(str(FIXTURES / "PTX301_bad.cu"))
    assert all(f.statement is not None for f in outcome.findings)
    internal = dataclasses.replace(outcome.findings[0], rule=INTERNAL_ERROR)
    outcome.findings.append(internal)
    findings = list(outcome.findings)
    kept = runner.collected(outcome, keep_statements=False)
    assert kept.findings == findings  # statements do not take part in comparisons
    assert [f.statement is None for f in kept.findings] == [True] * (len(findings) - 1) + [False]
    assert isinstance(kept.source, PackedSource)
    assert runner.collected(runner.FileOutcome("k.cu", source=source)).source == source
    assert Span(0, 0) == Span(0, 0)


def _timeless(fmt: str, out: str) -> str:
    if fmt == "json":
        doc = json.loads(out)
        doc["stats"].pop("seconds")
        return json.dumps(doc)
    return re.sub(r"\d+\.\d+s\b", "N s", out)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_reports_are_the_same_with_or_without_statements(tmp_path, capsys, monkeypatch, jobs):
    for name in ("PTX301_bad.cu", "PTX103_bad.cu", "PTX207_bad.cu", "PTX001_bad.cu"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 1)
    kept: list[bool] = []
    real_run = runner.run

    def spy(*args, **kwargs):
        kept.append(kwargs.get("keep_statements", True))
        return real_run(*args, **kwargs)

    monkeypatch.setattr(runner, "run", spy)
    outputs = {}
    for fmt in ("json", "text", "sarif", "concise"):
        main(["check", str(tmp_path), "--format", fmt, "--no-cache", "--jobs", jobs,
              "--fail-on", "never", "--no-compile-commands"])
        out = capsys.readouterr().out
        outputs[fmt] = _timeless(fmt, out)
    assert kept == [False, False, True, False]
    # the same reports from a run that keeps every statement
    monkeypatch.setattr(runner, "run", lambda *a, **k: real_run(*a, **{**k, "keep_statements": True}))
    for fmt, expected in outputs.items():
        main(["check", str(tmp_path), "--format", fmt, "--no-cache", "--jobs", jobs,
              "--fail-on", "never", "--no-compile-commands"])
        assert _timeless(fmt, capsys.readouterr().out) == expected, fmt
    assert json.loads(outputs["json"])["findings"]


def test_the_json_report_is_what_json_dumps_writes():
    document = {
        "findings": [{"rule": f"PTX{i:03}", "message": "é \u2028 \"q\"", "fix": None, "n": i,
                      "edits": [{"line": i, "content": ""}] * (i % 3)} for i in range(70000)],
        "empty": {}, "none": [], "float": 1.5,
    }
    assert dumps(document) == json.dumps(document, indent=2, ensure_ascii=False)


_SETTLING = """
import gc, weakref
from ptxlint import collector
collector._COUNT_EVERY = 1
collector._FULL_AFTER_AT_LEAST = {at_least}
collector.keep_for_good()  # as the command line does first
collector.settle_after_each_file()

class Node:
    pass

def a_file():
    with collector.paused(collect_young=True):
        first, second = Node(), Node()
        first.other, second.other = second, first  # a cycle that outlives the file
        kept = [first]
    return kept, weakref.ref(first)

kept, ref = a_file()
del kept  # garbage now, but set aside: no collection may free it
gc.collect()
print(ref() is not None, end=" ")
alive = []
for _ in range(3):  # later files leave memo entries: the set-aside objects double
    with collector.paused(collect_young=True):
        alive.append([Node() for _ in range(gc.get_freeze_count())])
print(ref() is not None)
"""


@pytest.mark.parametrize(("at_least", "expected"), [(10**9, "True True"), (100, "True False")])
def test_a_batch_process_sets_aside_what_survives_a_file(at_least, expected):
    """Survivors of a file's young collection are frozen, so no collection traverses them
    again; a full collection frees garbage among them once they have grown enough. Run in a
    process of its own: freezing is for processes that end with the run, not a test runner."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _SETTLING.format(at_least=at_least)],
        capture_output=True, text=True, check=True,
    )
    assert done.stdout.strip() == expected


def test_a_host_process_does_not_set_aside():
    from ptxlint import collector

    assert not collector._Settling.enabled  # main(argv) and the tests never enable it
