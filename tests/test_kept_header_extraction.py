"""A header the batch run read for an earlier file's flows (``analysis.included_helpers``) is not
extracted again when the run lints it: the engine takes the kept extraction
(``included_helpers.extraction_of``) only where it was read from exactly the linted text, and
the findings are those of a process that never read it as a header."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest

from ptxlint import engine
from ptxlint.analysis import included_helpers
from ptxlint.analysis.included_helpers import extraction_of, included_headers
from ptxlint.cli import main
from ptxlint.engine import extract_statements, instantiate
from ptxlint.lsp.incremental import IncrementalLinter
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from tests.conftest import FIXTURES

# the helpers a kernel calls, and one whose operand only its type shows too wide (PTX004)
HEADER = """#pragma once

__device__ __forceinline__ void copy_4_bytes(float* dst, const float* src) {
  unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(address), "l"(src) : "memory");
}

__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

__device__ __forceinline__ unsigned narrowed(const float* pointer) {
  unsigned out;
  asm("mov.b32 %0, %1;" : "=r"(out) : "r"(pointer));
  return out;
}
"""
# linted first (by its name): its flows read the header
KERNEL = """#include "z_helpers.cuh"

__global__ void kernel(float* out, const float* in) {
  __shared__ float tile[128];
  copy_4_bytes(tile + threadIdx.x, in + threadIdx.x);
  wait_copies();
  out[threadIdx.x] = tile[threadIdx.x];
}
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "z_helpers.cuh").write_text(HEADER)
    (tmp_path / "a_kernel.cu").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    included_helpers._MEMO.clear()
    yield tmp_path
    included_helpers._MEMO.clear()


@pytest.fixture
def taken(monkeypatch) -> list[bool]:
    """Whether each of the engine's asks found a kept extraction."""
    found: list[bool] = []

    def counting(source: SourceFile):  # type: ignore[no-untyped-def]
        kept = extraction_of(source)
        found.append(kept is not None)
        return kept

    monkeypatch.setattr(engine, "extraction_of", counting)
    return found


def check_json(capsys, *paths: str) -> list[dict]:
    main(["check", *paths, "--isolated", "--format", "json", "--no-compile-commands", "--no-cache",
          "--preview", "--show-info", "-j", "1", "--fail-on", "never"])
    return json.loads(capsys.readouterr().out)["findings"]


def test_a_header_linted_after_another_files_flows_read_it_finds_what_a_fresh_run_finds(
        tree, capsys, taken):
    # spelled as the includes find it: a path spelled otherwise is never taken
    header, kernel = str(tree / "z_helpers.cuh"), str(tree / "a_kernel.cu")
    alone = check_json(capsys, header)
    assert [f["rule"] for f in alone] == ["PTX004"]  # the operand's type is read
    assert taken == [False]
    included_helpers._MEMO.clear()
    both = check_json(capsys, kernel, header)
    assert taken[1:] == [False, True]  # the kernel's own, then the header's
    assert [f for f in both if f["path"] == header] == alone
    included_helpers._MEMO.clear()
    check_json(capsys, "a_kernel.cu", "z_helpers.cuh")
    assert taken[3:] == [False, False]


def test_the_kept_extraction_is_the_engines_own(tree):
    path = os.path.join(str(tree), "z_helpers.cuh")
    assert included_headers(os.path.join(str(tree), "a_kernel.cu"), KERNEL)
    kept = extraction_of(SourceFile(path, HEADER))
    assert kept is not None
    fresh = extract_statements(SourceFile(path, HEADER))
    assert kept[0].statements == fresh.statements  # operands typed as the engine types them
    assert kept[0].expanded_macros == fresh.expanded_macros
    # the caller's lists: what a file's result does to them leaves the header's alone
    kept[0].statements.clear()
    again = extraction_of(SourceFile(path, HEADER))
    assert again is not None and again[0].statements == fresh.statements


def test_only_the_text_read_from_disk_is_taken(tree):
    path = os.path.join(str(tree), "z_helpers.cuh")
    included_headers(os.path.join(str(tree), "a_kernel.cu"), KERNEL)
    assert extraction_of(SourceFile(path, HEADER)) is not None
    assert extraction_of(SourceFile(path, HEADER + "\n")) is None  # an unsaved buffer
    assert extraction_of(SourceFile(path, HEADER, decode_errors=True)) is None
    assert extraction_of(SourceFile("z_helpers.cuh", HEADER)) is None  # spelled otherwise
    (tree / "z_helpers.cuh").write_text(HEADER.replace("wait_all", "wait_group 0"))
    assert extraction_of(SourceFile(path, HEADER)) is None  # changed on disk since


def test_the_language_server_never_takes_a_kept_extraction(tree, taken):
    path = os.path.join(str(tree), "z_helpers.cuh")
    included_headers(os.path.join(str(tree), "a_kernel.cu"), KERNEL)
    assert extraction_of(SourceFile(path, HEADER)) is not None
    rules = instantiate(load_rules().rules)
    linter = IncrementalLinter()
    edited = HEADER.replace("unsigned out;", "unsigned out = 0;")
    for text in (HEADER, edited, HEADER):
        found = linter.lint(path, text, rules, RuleContext(), _All()).findings
        assert [f.rule for f in found] == ["PTX004"]
    assert taken == []  # its trees are edited in place: not even asked
    kept = extraction_of(SourceFile(path, HEADER))
    assert kept is not None and kept[0].statements == extract_statements(
        SourceFile(path, HEADER)).statements


def test_a_header_linted_before_a_file_that_includes_it_changes_nothing_of_that_file(
        tree, capsys):
    """The walk lints the header first (its name sorts first), then the kernel whose flows
    read it: the kernel's findings are those of a run that lints it alone."""
    shutil.copy(os.path.join(FIXTURES, "helper_calls", "pipeline.cuh"), tree / "a_pipeline.cuh")
    bad = pathlib.Path(FIXTURES, "helper_calls", "bad.cu").read_text()
    (tree / "b_bad.cu").write_text(bad.replace('"pipeline.cuh"', '"a_pipeline.cuh"'))
    header, kernel = str(tree / "a_pipeline.cuh"), str(tree / "b_bad.cu")
    alone = check_json(capsys, kernel)
    assert [f["rule"] for f in alone] == ["PTX602", "PTX603"]  # the header's steps are read
    included_helpers._MEMO.clear()
    both = check_json(capsys, header, kernel)
    assert [f for f in both if f["path"] == kernel] == alone


class _All:
    def enabled(self, rule_id: str, rule_name: str, path: str | None = None) -> bool:
        return True

    def severity_for(self, rule_id: str, rule_name: str, default: str) -> str:
        return default
