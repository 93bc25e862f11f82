"""PTX606/PTX607's --verify evidence (verify/wgmma_info.py): ptxas's C7517/C7519 info lines for
the sm_90a compile, matched to the function around the finding. The compile test skips without
nvcc; compiles are cached by content hash in the test cache (tests/toolchain_cache.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, discover, verify, wgmma_info
from ptxlint.verify.verdict import CONFIRMED, UNVERIFIABLE
from tests.conftest import FIXTURES
from tests.toolchain_cache import oracle_cache_root

toolchain = discover()
needs_nvcc = pytest.mark.skipif(toolchain.nvcc is None, reason="nvcc not found")

C7517 = ("ptxas info    : (C7517) warpgroup.wait is injected in around line 43 by compiler to "
         "allow use of registers defined by GMMA in function '_Z16read_before_waitPfmm'")


def test_the_info_line_must_name_the_function_and_the_rules_code() -> None:
    assert wgmma_info.judge(C7517, "PTX606", "read_before_wait") is not None
    assert wgmma_info.judge(C7517, "PTX607", "read_before_wait") is None  # C7519's
    assert wgmma_info.judge(C7517, "PTX606", "read_before") is None  # another function
    assert wgmma_info.judge(C7517, "PTX606", "before_wait") is None


def test_the_function_around_an_offset() -> None:
    text = "template <int N> __global__ void k(float* x) {\n  x[0] = 1;\n}\n"
    assert wgmma_info.function_around(text, "k.cu", text.index("x[0]")) == "k"
    assert wgmma_info.function_around(text, "k.cu", 0) is None


@pytest.mark.parametrize("result", [
    "float& read_before_wait(float* x, unsigned long a, unsigned long b)",
    "void (*read_before_wait(float* x, unsigned long a, unsigned long b))(float)",
])
def test_the_function_around_is_named_inside_its_results_declarator(result: str) -> None:
    # the Itanium name of a function that is no template leaves its result out: the info
    # line names it as it names one returning void
    text = f"__device__ {result} {{\n  x[0] = 1;\n  return 0;\n}}\n"
    function = wgmma_info.function_around(text, "k.cu", text.index("x[0]"))
    assert function == "read_before_wait"
    assert wgmma_info.judge(C7517, "PTX606", function) is not None


@pytest.fixture
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def _lint(path: Path, rule: str) -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--preview", "--select", rule])
    config, selector, rules, context = _configure(args)
    return run(args.paths, config, selector, rules, context)


@needs_nvcc
@pytest.mark.usefixtures("cache_dir")
@pytest.mark.parametrize("rule", ["PTX606", "PTX607"])
def test_ptxas_confirms_the_bad_fixtures_where_it_patches_them(rule: str) -> None:
    path = Path(FIXTURES) / "rules" / f"{rule}_bad.cu"
    result = verify(_lint(path, rule), VerifyOptions(files=(str(path),)))
    statuses = sorted(result.verifications[id(f)].status for f in result.findings
                      if f.rule == rule)
    # PTX606's wait with no commit before it gets no C7517: undefined, but not patched (its
    # element read through a moved pointer does)
    expected = [CONFIRMED, CONFIRMED, UNVERIFIABLE] if rule == "PTX606" \
        else [CONFIRMED] * 4
    assert statuses == expected


@needs_nvcc
@pytest.mark.usefixtures("cache_dir")
def test_a_finding_at_a_helper_call_of_a_file_without_asm_is_judged_on_the_file(
    tmp_path: Path,
) -> None:
    # the bad fixture's helpers moved to a header: its kernels, now without asm, call them
    lines = (Path(FIXTURES) / "rules" / "PTX606_bad.cu").read_text().splitlines(keepends=True)
    (tmp_path / "gmma.cuh").write_text("#pragma once\n" + "".join(lines[1:11]))
    kernels = tmp_path / "k.cu"
    kernels.write_text('#include "gmma.cuh"\n' + "".join(lines[11:]))
    assert "asm" not in kernels.read_text()
    result = verify(_lint(kernels, "PTX606"), VerifyOptions(files=(str(kernels),)))
    found = [f for f in result.findings if f.rule == "PTX606"]
    assert [f.statement for f in found] == [None, None, None]
    assert sorted(result.verifications[id(f)].status for f in found) == [
        CONFIRMED, CONFIRMED, UNVERIFIABLE]


@needs_nvcc
@pytest.mark.usefixtures("cache_dir")
def test_a_file_that_does_not_compile_is_quoted(tmp_path: Path) -> None:
    # csullivan/wgmma-intrin's wgmma.cuh: a host function's printf without <cstdio>; the verdict
    # says why the sm_90a compile failed, as the other verdicts that compile the file do
    source = (Path(FIXTURES) / "rules" / "PTX607_bad.cu").read_text()
    path = tmp_path / "k.cu"
    path.write_text(source + '\nvoid ptxlint_host() { printf("x\\n"); }\n')
    result = verify(_lint(path, "PTX607"), VerifyOptions(files=(str(path),)))
    verdicts = [result.verifications[id(f)] for f in result.findings if f.rule == "PTX607"]
    assert verdicts and all(v.status == UNVERIFIABLE for v in verdicts)
    assert all("does not compile for sm_90a on its own (" in v.evidence
               and '"printf" is undefined' in v.evidence for v in verdicts), verdicts
