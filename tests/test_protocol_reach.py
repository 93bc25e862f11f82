"""benchmarks/protocol_reach.py: the sites it deletes, and that a deletion the rules can see is
counted as noticed, and one in a file without asm of its own counted apart, noticed only where
the product lints that file."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.benchmark_module import load

reach = load("protocol_reach")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def test_sites_are_protocol_steps_written_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(
        "void f() {\n"
        "  cute::tma_store_fence();\n"  # a call that fences
        "  cp_async_wait<kStages - 2>();\n"  # one that waits
        '  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");\n'
        '  asm volatile("membar.gl;" ::: "memory");\n'  # not a step the rules guard
        "  waiter.count();\n"  # the word is not the callee's
        "  __syncthreads();\n"
        "  warpgroup_fence_operand(acc);\n"  # an asm with no instruction: no step
        "  __threadfence();\n"  # a fence no protocol rule guards
        "  kittens::warpgroup::mma_async_wait();\n"
        "}\n")
    assert [s.line for s in reach.sites([str(tmp_path)])] == [1, 2, 3, 9]


def test_a_deleted_wait_in_a_real_pipeline_is_noticed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(FIXTURES / "PTX603_clean.cu", tmp_path / "pipeline.cu")
    # no asm of its own: linted as --preview lints it, for it calls pipeline.cu's helpers
    (tmp_path / "calls.cu").write_text(
        '#include "pipeline.cu"\n'
        "__global__ void g(const float4* src, float4* out) {\n"
        "  __shared__ float4 tile[128];\n"
        "  cp_async16(&tile[threadIdx.x], &src[threadIdx.x]);\n"
        "  cp_async_commit();\n"
        "  cp_async_wait<0>();\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = tile[127 - threadIdx.x];\n"
        "}\n")
    # nor one that includes no header defining them: the prefilter drops it, mutant or not
    (tmp_path / "alone.cu").write_text(
        "__global__ void h(const float4* src, float4* out) {\n"
        "  __shared__ float4 tile[128];\n"
        "  cp_async_commit();\n"
        "  cp_async_wait<0>();\n"
        "  out[threadIdx.x] = tile[threadIdx.x];\n"
        "}\n")
    rows = tmp_path / "rows.jsonl"
    argv = sys.argv
    sys.argv = ["protocol_reach", str(tmp_path), "--jsonl", str(rows)]
    try:
        assert reach.main() == 0
    finally:
        sys.argv = argv
    found = [json.loads(line) for line in rows.read_text().splitlines()]
    noticed = {(Path(r["path"]).name, r["statement"]) for r in found if r["new"]}
    assert ("pipeline.cu", "cp_async_wait<0>();") in noticed
    assert ("pipeline.cu", "cp_async_commit();") in noticed
    calls = [(r["statement"], r["new"], r["own_asm"]) for r in found
             if Path(r["path"]).name == "calls.cu"]
    assert calls == [("cp_async_commit();", ["PTX602"], False),
                     ("cp_async_wait<0>();", ["PTX603"], False)]
    assert not any(r["new"] for r in found if Path(r["path"]).name == "alone.cu")
    assert "files without: 4 sites, 2 noticed" in capsys.readouterr().out
