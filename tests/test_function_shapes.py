"""What a header's tree says of its functions is read once, whichever linted file reaches it,
and the flows read from the kept shapes are those read afresh."""

from __future__ import annotations

import re

import pytest

from ptxlint.analysis import function_flow, included_helpers
from ptxlint.analysis.function_flow import FileFlows
from ptxlint.analysis.function_shapes import ShapeIndex, names_matcher, shapes_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile

HEADER = r"""
#pragma once
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}
__device__ inline void both() { cp_async_commit(); cp_async_wait<0>(); }
struct Guard { __device__ ~Guard() { cp_async_wait<0>(); } };
__device__ inline int unrelated(int x) { for (int i = 0; i < 4; ++i) { x += i; } return x; }
"""

KERNEL = r"""
#include "helpers.cuh"
__global__ void k%d(float* out) {
  __shared__ float tile[128];
  if (threadIdx.x == 0) { cp_async_commit(); } else { both(); }
  cp_async_wait<1>();
  asm volatile("bar.sync 0;" ::: "memory");
  out[0] = tile[threadIdx.x];
}
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "helpers.cuh").write_text(HEADER)
    for k in range(2):
        (tmp_path / f"k{k}.cu").write_text(KERNEL % k)
    return tmp_path


def _flows(path) -> FileFlows:
    text = path.read_text()
    extracted = extract_statements(SourceFile(str(path), text))
    assert extracted.parsed is not None
    return FileFlows(extracted.parsed, tuple(extracted.statements), str(path))


def _summary(flows: FileFlows) -> list[tuple[str, list[tuple[int, str]], list[tuple[int, int]]]]:
    return [(flow.name, [(s.start, s.kind) for s in flow.steps], flow.loops)
            for flow in flows.flows()]


def test_header_shapes_are_read_once_for_every_file(project, monkeypatch):
    read: list[int] = []
    original = ShapeIndex.body

    def counted(self, node, recovered):
        if (node.start_byte, recovered) not in self._bodies:
            read.append(node.start_byte)
        return original(self, node, recovered)

    monkeypatch.setattr(ShapeIndex, "body", counted)
    first = _flows(project / "k0.cu")
    first_summary = _summary(first)
    header = included_helpers.included_headers(str(project / "k0.cu"), KERNEL % 0)[0]
    after_first = len(read)
    function_flow._let_go()
    second = _flows(project / "k1.cu")
    second_summary = _summary(second)
    # the second file reads its own kernel's body, none of the header's again
    assert len(read) == after_first + 1
    assert [name for name, _, _ in first_summary] == ["k0"]
    assert [(steps, loops) for _, steps, loops in first_summary] == \
        [(steps, loops) for _, steps, loops in second_summary]
    assert shapes_of(header) is shapes_of(header)
    # the flows are the file's own: a header's function is made again for each file
    assert second.included()[0]._index.shapes is shapes_of(header)


def test_kept_shapes_give_the_flows_a_fresh_read_gives(project):
    kept = _summary(_flows(project / "k0.cu"))
    function_flow._let_go()
    included_helpers._MEMO.clear()
    assert _summary(_flows(project / "k0.cu")) == kept
    # the helpers' steps, placed at the calls that reach them (both() takes two)
    assert [kind for _, kind in kept[0][1]] == [
        "cp.async.commit_group", "cp.async.commit_group", "cp.async.wait", "cp.async.wait"]


@pytest.mark.parametrize("names", [
    {"cp_async_wait"}, {"both", "missing"}, {"~Guard"}, {"operator()"}, {"x"}, {"cp_async"},
])
def test_spells_finds_what_a_whole_word_pattern_finds(project, names):
    text = HEADER + "struct F { __device__ void operator()() { both(); } };\n"
    extracted = extract_statements(SourceFile(str(project / "h.cuh"), text))
    assert extracted.parsed is not None
    shapes = ShapeIndex(extracted.parsed, [])
    words, odd = names_matcher(names)
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names))
                         + rb")\b")
    data = extracted.parsed.data
    answers = [(s.name, shapes.spells(s, words, odd)) for s in shapes.all]
    assert answers == [(s.name, pattern.search(data, s.start, s.end) is not None)
                       for s in shapes.all]
    # a prefix of a name is no call of it; a pattern finds no name that begins or ends with
    # a character outside a word (``~Guard``), and neither do the words
    assert any(found for _, found in answers) == (
        names not in ({"cp_async"}, {"~Guard"}, {"operator()"}))
