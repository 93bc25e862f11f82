"""Without --arch, --verify probes a statement at a target that has every instruction it spells
(``verify/target_choice.py``), read from the PTX knowledge the rules judge with: wgmma at
sm_90a, tcgen05 at sm_100a, never a target the guards exclude or the installed ptxas does not
build; where none fits, the finding is unverifiable with the reason. An explicit --arch stays
authoritative. The unit tests need no toolchain; the end-to-end one skips without nvcc."""

from __future__ import annotations

from pathlib import Path

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, Finding, Severity, SourceFile, Span
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, verify
from ptxlint.verify.configuration import configuration
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.identity import probe_arch
from ptxlint.verify.plan import Plan, plan_ptx
from ptxlint.verify.probe_errors import most_specific
from ptxlint.verify.runner import _key as runner_key
from ptxlint.verify.target_choice import Choice, chosen_target
from ptxlint.verify.toolchain import Tool, Toolchain
from tests.toolchain_marks import needs_cuda


def only(text: str) -> AsmStatement:
    [statement] = list(extract_statements(SourceFile("t.cu", text)).statements)
    return statement


def body(asm: str, guard: str = "") -> str:
    inner = f'  asm volatile({asm});\n'
    if guard:
        inner = f"#if {guard}\n{inner}#endif\n"
    return f"__device__ void f(unsigned a, unsigned long long d) {{\n{inner}}}\n"


WGMMA_FENCE = '"wgmma.fence.sync.aligned;" ::: "memory"'
TCGEN05_FENCE = '"tcgen05.fence::before_thread_sync;" ::: "memory"'
SETMAXNREG = '"setmaxnreg.inc.sync.aligned.u32 240;"'
PLAIN = '"add.u32 %0, %0, 1;" : "+r"(a)'
ELECT = '"{ .reg .pred p; elect.sync _|p, 0xffffffff; }"'  # sm_90, no suffix


def test_a_statement_every_target_has_keeps_the_default():
    statement = only(body(PLAIN))
    assert chosen_target(statement) == Choice()
    assert probe_arch(statement, None) == "sm_90"


def test_a_plain_sm90_instruction_keeps_the_default():
    assert chosen_target(only(body(ELECT))) == Choice()


def test_an_architecture_specific_form_gets_its_a_target():
    assert probe_arch(only(body(WGMMA_FENCE)), None) == "sm_90a"
    assert probe_arch(only(body(SETMAXNREG)), None) == "sm_90a"


def test_tcgen05_gets_a_blackwell_target():
    assert probe_arch(only(body(TCGEN05_FENCE)), None) == "sm_100a"


def test_an_explicit_arch_is_authoritative():
    statement = only(body(WGMMA_FENCE))
    assert probe_arch(statement, "sm_90") == "sm_90"
    assert configuration(statement, "sm_100a").arch == "sm_100a"


def test_a_target_ptxas_does_not_build_is_never_chosen():
    statement = only(body(TCGEN05_FENCE))
    # a ptxas that knows sm_100f but not sm_100a
    assert probe_arch(statement, None, ("sm_90", "sm_90a", "sm_100", "sm_100f")) == "sm_100f"
    choice = chosen_target(statement, ("sm_75", "sm_80", "sm_90", "sm_90a"), "ptxas 12.4")
    assert choice.arch is None
    assert choice.why.startswith("ptxas 12.4 builds none of the targets its instructions need")
    assert "'tcgen05.fence::before_thread_sync' needs" in choice.why


def test_no_target_with_every_instruction_says_so():
    statement = only(body('"wgmma.fence.sync.aligned;\\n\\t'
                          'tcgen05.fence::before_thread_sync;" ::: "memory"'))
    choice = chosen_target(statement)
    assert choice.arch is None
    assert choice.why.startswith("no target has every instruction of the statement")
    assert "'wgmma.fence.sync.aligned' needs sm_90a" in choice.why
    config = configuration(statement, None)
    assert config.arch is None and config.why == choice.why


def test_the_guards_narrow_the_choice():
    guarded = only(body(TCGEN05_FENCE, "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1030"))
    assert probe_arch(guarded, None) == "sm_103a"
    excluded = only(body(WGMMA_FENCE, "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000"))
    choice = chosen_target(excluded)
    assert choice.arch is None
    assert choice.why.startswith("its #if guards admit none of the targets")


def test_the_compile_and_its_cache_key_carry_the_chosen_target():
    """The outcome cache is keyed by the compile's arguments and files: the ptxas run for the
    chosen sm_90a is another entry than the one for sm_90 (the target is in -arch and in the
    probe's .target)."""
    statement = only(body(WGMMA_FENCE))
    tools = Toolchain(None, Tool("ptxas", "/opt/cuda/bin/ptxas", "PATH", "13.0.88"),
                      ("sm_90", "sm_90a"))
    keys = {}
    for arch in (probe_arch(statement, None, tools.archs), "sm_90"):
        plan = Plan()
        plan_ptx(plan, [statement], arch, tools)
        [(job, tool)] = plan.jobs.values()
        assert f"-arch={arch}" in job.args
        assert f".target {arch}" in job.files[0][1]
        keys[arch] = runner_key(job, tool)
    assert set(keys) == {"sm_90a", "sm_90"}
    assert keys["sm_90a"] != keys["sm_90"]


# --------------------------------------------------------------------------- PTX401's words

PTXAS_SM90 = """\
ptxas t.ptx, line 6; error   : Feature '.16x256b' not supported on .target 'sm_90'
ptxas t.ptx, line 6; error   : Instruction 'tcgen05.ld' not supported on .target 'sm_90'
ptxas t.ptx, line 6; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'
"""


def _finding(message: str) -> Finding:
    return Finding("PTX401", "arch-unsupported", Severity.ERROR, "t.cu", Span(0, 1), message)


def test_the_message_about_the_flagged_instruction_is_quoted():
    said = parse(PTXAS_SM90)
    tcgen05 = _finding("'tcgen05.ld.sync.aligned.16x256b.x1.b32' needs sm_100a or sm_103a, but "
                       "the statement is compiled for sm_90 (--arch)")
    assert most_specific(said, tcgen05).message == (
        "Instruction 'tcgen05.ld' not supported on .target 'sm_90'")
    wgmma = _finding("'wgmma.fence.sync.aligned' needs an architecture-specific target such as "
                     "sm_90a, but the statement is compiled for sm_90 (--arch)")
    assert most_specific(said, wgmma).message == (
        "Instruction 'wgmma.fence' not supported on .target 'sm_90'")


def test_a_part_of_the_instruction_comes_before_an_unrelated_message():
    said = parse(PTXAS_SM90)
    feature_only = _finding("'ld.16x256b' needs sm_100a")
    assert most_specific([said[2], said[0]], feature_only) is said[0]
    unrelated = _finding("'mov.u32' needs sm_90")
    assert most_specific(said, unrelated) is said[0]  # none names it: ptxas's first


TCGEN05_LD = """
__device__ void f(unsigned taddr, unsigned &r0) {
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r0), "=r"(r0), "=r"(r0) : "r"(taddr));
}
"""


def verified(path: Path, *extra: str, arch: str | None) -> RunResult:
    args = build_parser().parse_args(["check", "--isolated", str(path), *extra])
    config, selector, rules, context = _configure(args)
    result = run(args.paths, config, selector, rules, context)
    return verify(result, VerifyOptions(arch=arch, files=(str(path),), use_cache=False,
                                        jobs=1))


@needs_cuda
def test_ptx401_quotes_ptxas_on_the_instruction(tmp_path: Path) -> None:
    """ptxas 13.0 names the shape first ("Feature '.16x256b' not supported on .target
    'sm_90'") and the instruction second: the verdict quotes the second, as ptxas wrote it."""
    path = tmp_path / "k.cu"
    path.write_text(TCGEN05_LD)
    result = verified(path, "--select", "PTX401", "--arch", "sm_90", arch="sm_90")
    [finding] = result.findings
    verdict = result.verdict(finding)
    assert verdict is not None
    assert verdict.status == "confirmed", verdict
    assert verdict.evidence == (
        "ptxas: Instruction 'tcgen05.ld' not supported on .target 'sm_90'"), verdict


TCGEN05_WAIT = """
__device__ void f() {
  asm volatile("tcgen05.wait::ld.sync.aligned;");
}
"""


@needs_cuda
def test_a_tcgen05_statement_is_probed_where_it_compiles(tmp_path: Path) -> None:
    """Without --arch the missing clobber (PTX102) is probed at sm_100a, where the statement
    compiles and the file as written and with the clobber can be compared; at sm_90 ptxas
    refused the instruction ("Instruction 'tcgen05.wait' not supported on .target 'sm_90'")
    and no compile said anything of the clobber."""
    path = tmp_path / "k.cu"
    path.write_text(TCGEN05_WAIT)
    result = verified(path, "--select", "PTX102", arch=None)
    [finding] = result.findings
    verdict = result.verdict(finding)
    assert verdict is not None
    assert verdict.arch == "sm_100a", verdict
    assert "not supported on .target" not in verdict.evidence, verdict
    # the file as written and with the clobber both compile: the differential speaks
    assert "compile to the same code" in verdict.evidence, verdict


WGMMA_ABOVE_HOPPER = """
__device__ void f() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
"""


@needs_cuda
def test_ptx401_is_still_judged_where_no_target_has_the_statement(tmp_path: Path) -> None:
    """No target both the guards admit and wgmma exists on: that is PTX401's claim, and its
    probe compiles at the targets the finding names, so the choice does not make it
    unverifiable."""
    path = tmp_path / "k.cu"
    path.write_text(WGMMA_ABOVE_HOPPER)
    result = verified(path, "--select", "PTX401", arch=None)
    [finding] = result.findings
    verdict = result.verdict(finding)
    assert verdict is not None
    assert verdict.status == "confirmed", verdict
    assert "Instruction 'wgmma.fence' not supported on .target" in verdict.evidence, verdict
