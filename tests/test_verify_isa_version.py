"""--verify judges PTX403 (an instruction newer than the PTX ISA its oldest toolkit accepts) by
assembling the statement's PTX at the .version the finding names: ptxas's own version message
("Feature 'st.async' requires PTX ISA .version 8.1 or later") on the finding's lines confirms
it, a clean assembly refutes it, and a message on another line confirms nothing. Toolchain tests
skip without ptxas."""

from __future__ import annotations

import dataclasses

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, discover, verify
from ptxlint.verify.recipes import ISA_PROBE, recipe_for
from tests.toolchain_cache import oracle_cache_root

toolchain = discover()
needs_ptxas = pytest.mark.skipif(toolchain.ptxas is None,
                                 reason="needs ptxas (CUDA Toolkit not found)")

SOURCE = """\
__device__ void f(unsigned remote, unsigned value, unsigned bar, unsigned long long src) {
#if __CUDACC_VER_MAJOR__ >= 12
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               :: "r"(remote), "r"(value), "r"(bar) : "memory");
#endif
  asm volatile("mov.u32 %0, %0;\\n\\t"
               "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
               "16, [%2];" :: "r"(remote), "l"(src), "r"(bar) : "memory");
}
"""


def test_ptx403_has_a_recipe():
    recipe = recipe_for("PTX403")
    assert recipe.probes == (ISA_PROBE,)
    assert recipe.agrees is not None
    assert recipe.agrees.search("Feature 'st.async' requires PTX ISA .version 8.1 or later")
    assert not recipe.agrees.search("Unknown modifier '.weak'")
    assert not recipe.agrees.search("PTX .version 7.0 does not support .target sm_90")


def _lint(tmp_path, *extra: str) -> tuple[RunResult, str]:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX403",
                                      *extra])
    config, selector, rules, context = _configure(args)
    return run(args.paths, config, selector, rules, context), str(path)


def _verdicts(result: RunResult, path: str) -> dict[int, object]:
    result = verify(result, VerifyOptions(files=(path,), arch="sm_90"))
    return {result.sources[f.path].line_col(f.span.start).line: result.verdict(f)
            for f in result.findings if f.rule == "PTX403"}


@needs_ptxas
def test_ptxas_version_message_confirms(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    # CUDA 11.8 accepts PTX ISA 7.8: cp.async.bulk needs 8.0; the #if admits 12.0 (PTX 8.0) for
    # st.async, which needs 8.1
    result, path = _lint(tmp_path, "--min-cuda-version", "11.8")
    verdicts = _verdicts(result, path)
    assert set(verdicts) == {3, 7}, verdicts
    for line, isa in ((3, "8.0"), (7, "7.8")):
        verdict = verdicts[line]
        assert verdict.status == "confirmed", verdict
        assert verdict.method == ISA_PROBE
        assert "requires PTX ISA .version" in verdict.evidence
        assert f"(the probe at .version {isa})" in verdict.evidence


@needs_ptxas
def test_a_clean_assembly_refutes_and_another_line_confirms_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    result, path = _lint(tmp_path, "--min-cuda-version", "11.8")
    by_line = {result.sources[f.path].line_col(f.span.start).line: f for f in result.findings}
    # the claim moved to a version that has the feature: ptxas accepts it there
    newer = dataclasses.replace(by_line[3], message=by_line[3].message.replace(
        "accepts PTX ISA 8.0 at most", "accepts PTX ISA 8.1 at most"))
    # a claim on the mov line: ptxas's version message is on the cp.async.bulk line
    mov = by_line[7].statement.source.text.index("mov.u32")
    other = dataclasses.replace(by_line[7], span=dataclasses.replace(
        by_line[7].span, start=mov, end=mov + 7))
    result.findings = [newer, other]
    verdicts = verify(result, VerifyOptions(files=(path,), arch="sm_90"))
    first, second = (verdicts.verdict(f) for f in verdicts.findings[:2])
    assert first.status == "refuted" and "at .version 8.1" in first.evidence, first
    assert second.status == "unverifiable", second
    assert "fails elsewhere" in second.evidence and "requires PTX ISA" in second.evidence


@needs_ptxas
def test_a_version_other_than_the_findings_is_said(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    result, path = _lint(tmp_path, "--min-cuda-version", "11.8")
    [st_async] = [f for f in result.findings
                  if result.sources[f.path].line_col(f.span.start).line == 3]
    assert "needs PTX ISA 8.1" in st_async.message
    # a finding that names another version than ptxas asks for: still confirmed (the build
    # breaks), and the difference is said
    wrong = dataclasses.replace(st_async, message=st_async.message.replace(
        "needs PTX ISA 8.1", "needs PTX ISA 8.0"))
    result.findings = [st_async, wrong]
    verified = verify(result, VerifyOptions(files=(path,), arch="sm_90"))
    right, other = (verified.verdict(f) for f in verified.findings[:2])
    assert right.status == other.status == "confirmed"
    assert "where the finding says" not in right.evidence
    assert other.evidence.endswith("; ptxas asks for PTX ISA 8.1, where the finding says 8.0")
