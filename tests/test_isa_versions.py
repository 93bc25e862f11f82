"""Toolkit versions: the CUDA -> PTX ISA table, cuda-version and min-cuda-version, PTX403, and
the verdicts that change between ptxas versions, proven against two toolkits' ptxas.

The other toolkits' ptxas come from ``benchmarks/toolkits.py`` (``python benchmarks/toolkits.py
12.4 13.1`` downloads them into the tests' cache folder); without them those tests skip."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.model import GuardMacro
from ptxlint.ptx import grammar
from ptxlint.ptx.instructions import ptx_requirement
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.targets import holds_for_no_target, toolkit_compiles
from ptxlint.ptx.versions import (
    NEWEST_KNOWN,
    cmake_min_cuda,
    cuda_for_ptx,
    format_cuda,
    format_ptx,
    parse_cuda_version,
    ptx_for_cuda,
    version_options,
)
from ptxlint.rule import RuleContext
from tests.benchmark_module import load
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, parallel_map, run_cached

ROOT = Path(__file__).resolve().parent.parent


toolkits = load("toolkits")
agreement = load("ptxas_agreement")


def test_cuda_releases_map_to_their_ptx_isa() -> None:
    assert ptx_for_cuda((11, 8)) == 78 and ptx_for_cuda((12, 4)) == 84
    assert ptx_for_cuda((12, 6)) == 85  # 12.6 kept PTX ISA 8.5
    assert ptx_for_cuda((12, 8)) == 87 and ptx_for_cuda((13, 0)) == 90
    assert ptx_for_cuda((99, 0)) is None  # newer than the table: accepts what it knows
    assert cuda_for_ptx(86) == (12, 7) and cuda_for_ptx(80) == (12, 0)
    assert parse_cuda_version("12.4.1") == (12, 4) == parse_cuda_version(12040)
    assert parse_cuda_version("13") == (13, 0)
    with pytest.raises(ValueError):
        parse_cuda_version("sm_90")
    # before CUDA 9 the numbers do not line up
    assert ptx_for_cuda((8, 0)) == 50 and ptx_for_cuda((7, 5)) == 43 and ptx_for_cuda((6, 5)) == 41
    assert cuda_for_ptx(43) == (7, 5) and cuda_for_ptx(50) == (8, 0) and cuda_for_ptx(60) == (9, 0)
    assert parse_cuda_version("8.0") == (8, 0) == parse_cuda_version(8000)
    with pytest.raises(ValueError):
        parse_cuda_version("4.2")  # older than the table


def test_cmake_names_the_oldest_toolkit_only_when_unambiguous(tmp_path) -> None:
    assert cmake_min_cuda("find_package(CUDAToolkit 12.4 REQUIRED)") == (12, 4)
    assert cmake_min_cuda("find_package(CUDAToolkit 11.8...12.9)") == (11, 8)
    assert cmake_min_cuda("find_package(CUDAToolkit REQUIRED)") is None
    assert cmake_min_cuda("find_package(CUDAToolkit 12.0)\nfind_package(CUDAToolkit 12.4)") is None
    assert cmake_min_cuda("# find_package(CUDAToolkit 11.0)\nfind_package(CUDAToolkit 12.2)") \
        == (12, 2)
    assert cmake_min_cuda("find_package(CUDA 10.2 REQUIRED)") == (10, 2)  # FindCUDA's spelling
    assert cmake_min_cuda("find_package(CUDA 7.5 REQUIRED)") == (7, 5)
    assert cmake_min_cuda("find_package(CUDA 4.2 REQUIRED)") is None  # older than the table
    assert cmake_min_cuda("find_package(CUDNN 8.0 REQUIRED)") is None
    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDAToolkit 12.1 REQUIRED)\n")
    options = version_options(None, None, str(tmp_path))
    assert options["min_cuda_version"] == (12, 1) and options["cuda_version"] == (13, 0)
    assert version_options("12.8", "12.4", str(tmp_path))["min_cuda_version"] == (12, 4)


def test_ptx_requirement_takes_every_matching_note() -> None:
    assert ptx_requirement("clusterlaunchcontrol", ("try_cancel", "async"))[0] == 86
    needed, feature = ptx_requirement("mbarrier", ("try_wait", "relaxed", "cta", "b64"))
    assert needed == 86 and "relaxed" in feature
    assert ptx_requirement("add", ("s32",)) == (0, "")


def test_toolkit_guards_decide_whether_the_oldest_toolkit_compiles() -> None:
    assert toolkit_compiles((), (12, 4), 84)
    assert not toolkit_compiles(("CUDA_VERSION >= 12080",), (12, 4), 84)
    assert toolkit_compiles(("__CUDACC_VER_MAJOR__ >= 12",), (12, 4), 84)
    assert not toolkit_compiles(("__cccl_ptx_isa >= 860",), (12, 4), 84)
    assert not toolkit_compiles(("__CUDA_ARCH__ >= 1000",), (12, 4), 84)  # no sm_100 in 12.4
    assert toolkit_compiles(("__CUDA_ARCH__ >= 1000",), (12, 8), 87)
    assert not toolkit_compiles(("defined(PROJECT_FEATURE)",), (12, 4), 84)


def test_toolkit_guards_that_read_alike_for_every_target_with_ones_that_do_not() -> None:
    # the version test reads the same for every target, the arch test does not
    both = ("CUDA_VERSION >= 12000", "__CUDA_ARCH__ >= 1000")
    assert not toolkit_compiles(both, (12, 4), 84)  # no sm_100 in 12.4
    assert toolkit_compiles(both, (12, 8), 87)
    assert not toolkit_compiles(("CUDA_VERSION >= 12090", "__CUDA_ARCH__ >= 1000"), (12, 8), 87)
    # a guard naming the file's macro reads what the macro's definition reads: the target
    late = (GuardMacro("HAS_SM100", "1", ("__CUDA_ARCH__ >= 1000",)),)
    assert not toolkit_compiles(("HAS_SM100",), (12, 4), 84, late)
    assert toolkit_compiles(("HAS_SM100",), (12, 8), 87, late)
    arch = (GuardMacro("ARCH", "__CUDA_ARCH__"),)
    assert not toolkit_compiles(("CUDA_VERSION >= 12000", "ARCH >= 1000"), (12, 4), 84, arch)
    assert toolkit_compiles(("CUDA_VERSION >= 12000", "ARCH >= 1000"), (12, 8), 87, arch)


def test_no_target_compiles_guards_that_read_alike_for_every_target_with_ones_that_do_not(
) -> None:
    # some target compiles each of them with some supported toolkit...
    assert not holds_for_no_target(("CUDA_VERSION >= 12000", "__CUDA_ARCH__ >= 900"))
    assert not holds_for_no_target(("__CUDACC_VER_MAJOR__ < 12", "__CUDA_ARCH__ < 800"))
    # ...but none of these: no toolkit, no target, or no target of a toolkit that compiles
    assert holds_for_no_target(("CUDA_VERSION < 9000", "__CUDA_ARCH__ >= 900"))
    assert holds_for_no_target(("__CUDA_ARCH__ >= 900", "!(__CUDA_ARCH__ >= 800)"))
    # a guard naming the file's macro reads what the macro's definition reads: the target
    arch = (GuardMacro("ARCH", "__CUDA_ARCH__"),)
    assert holds_for_no_target(("ARCH >= 900", "__CUDA_ARCH__ < 900"), arch)
    assert not holds_for_no_target(("ARCH >= 900", "CUDA_VERSION >= 12000"), arch)
    late = (GuardMacro("HAS_SM90", "1", ("__CUDA_ARCH__ >= 900",)),)
    assert holds_for_no_target(("!defined(HAS_SM90)", "__CUDA_ARCH__ >= 900"), late)


SOURCE = """\
__device__ void f(unsigned r, unsigned b) {
  asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" :: "r"(r), "r"(b) : "memory");
}
"""


def test_ptx403_needs_min_cuda_version_and_names_both_versions() -> None:
    assert lint_text(SOURCE, select=("PTX403",)) == []
    context = RuleContext(options=version_options(None, "12.4", "."))
    [finding] = lint_text(SOURCE, select=("PTX403",), context=context)
    assert "PTX ISA 8.6" in finding.message and "12.4" in finding.message
    assert "PTX ISA 8.4" in finding.message and "CUDA 12.7" in finding.message
    newer = RuleContext(options=version_options(None, "12.8", "."))
    assert lint_text(SOURCE, select=("PTX403",), context=newer) == []


def test_ptx403_reads_the_oldest_toolkit_from_cmake(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(SOURCE)
    (tmp_path / ".ptxlint.toml").write_text("")  # the folder whose CMakeLists.txt is read
    main(["check", str(tmp_path / "k.cu"), "--no-cache", "--select", "PTX403"])
    assert "PTX403" not in capsys.readouterr().out  # no oldest toolkit: nothing to hold it to
    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDAToolkit 12.4 REQUIRED)\n")
    main(["check", str(tmp_path / "k.cu"), "--no-cache", "--select", "PTX403"])
    out = capsys.readouterr().out
    assert "PTX403" in out and "find_package in CMakeLists.txt" in out


ASYNC_STORE = ('asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 '
               '[%0], %1, [%2];" :: "r"(a), "r"(v), "r"(b) : "memory");')  # PTX ISA 8.1


def _guarded(condition: str, body: str = ASYNC_STORE) -> str:
    return (f"__device__ void f(unsigned a, unsigned v, unsigned b) {{\n#if {condition}\n"
            f"  {body}\n#endif\n}}\n")


def test_ptx403_holds_a_version_guard_to_the_oldest_toolkit_it_admits() -> None:
    # no setting needed: the guard says CUDA 12.0 builds the branch, and 12.0 has PTX ISA 8.0
    for condition in ("__CUDACC_VER_MAJOR__ >= 12", "__cccl_ptx_isa >= 800",
                      "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && CUDA_VERSION >= 12000"):
        [finding] = lint_text(_guarded(condition), select=("PTX403",))
        assert "guards around it admit CUDA 12.0" in finding.message, condition
        assert "PTX ISA 8.1" in finding.message and "asks for CUDA 12.1" in finding.message
    for condition in ("CUDA_VERSION >= 12010", "__cccl_ptx_isa >= 810",
                      "__CUDACC_VER_MAJOR__ > 12 || __CUDACC_VER_MINOR__ >= 1 && "
                      "__CUDACC_VER_MAJOR__ == 12",
                      "!(CUDA_VERSION >= 12090)",  # bounded from above only: the project's call
                      "CUDA_VERSION < 13000 && __CUDA_ARCH__ >= 900",  # a lower bound by arch only
                      "__CUDA_ARCH__ >= 900",  # no version test
                      # CUDA 10 predates sm_80: the bound below 11.0 is the project's to say
                      "CUDA_VERSION >= 10000 && __CUDA_ARCH__ >= 800",
                      "defined(PROJECT_FEATURE) && CUDA_VERSION >= 12000"):  # undecided
        assert lint_text(_guarded(condition), select=("PTX403",)) == [], condition
    # with min-cuda-version, a guard that raises the oldest toolkit, but not far enough
    clc = SOURCE.splitlines()[1].strip()
    context = RuleContext(options=version_options(None, "12.4", "."))
    [finding] = lint_text(_guarded("CUDA_VERSION >= 12050", clc), select=("PTX403",),
                          context=context)
    assert "admit CUDA 12.5" in finding.message and "PTX ISA 8.6" in finding.message
    assert lint_text(_guarded("CUDA_VERSION >= 12070", clc), select=("PTX403",),
                     context=context) == []


WARP_SYNC = 'asm volatile("bar.warp.sync %0;" :: "r"(a));'  # PTX ISA 6.0 (CUDA 9.0)
DP4A = 'asm("dp4a.u32.u32 %0, %1, %2, %0;" : "+r"(a) : "r"(v), "r"(b));'  # 5.0 (CUDA 8.0)
CP_ASYNC = ('asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(a), '
            '"l"((void*)0) : "memory");')  # PTX ISA 7.0 (CUDA 11.0)


def test_ptx403_holds_a_toolkit_older_than_cuda_9_to_its_ptx_isa() -> None:
    def found(min_cuda: str, condition: str, body: str) -> list[str]:
        context = RuleContext(options=version_options(None, min_cuda, "."))
        return [f.message for f in lint_text(_guarded(condition, body), select=("PTX403",),
                                             context=context)]

    # CUDA 8.0 compiles for sm_30 and knows PTX ISA 5.0: bar.warp.sync breaks its build
    [message] = found("8.0", "__CUDA_ARCH__ >= 300", WARP_SYNC)
    assert "PTX ISA 6.0" in message and "CUDA 9.0" in message
    assert "min-cuda-version is 8.0" in message and "PTX ISA 5.0" in message
    assert found("8.0", "__CUDA_ARCH__ >= 300 && __CUDACC_VER_MAJOR__ >= 9", WARP_SYNC) == []
    assert len(found("7.5", "1", DP4A)) == 1
    # a target the oldest toolkit does not know keeps it out: CUDA 8.0 has no sm_70, 7.5 no
    # sm_61, 9.0 no sm_80; the first toolkit that compiles the branch has the instruction
    assert found("8.0", "__CUDA_ARCH__ >= 700", WARP_SYNC) == []
    assert found("7.5", "__CUDA_ARCH__ >= 610", DP4A) == []
    assert found("9.0", "__CUDA_ARCH__ >= 800", CP_ASYNC) == []
    assert len(found("9.0", "__CUDA_ARCH__ >= 700", CP_ASYNC)) == 1


def test_the_guard_bound_agrees_with_ptxas_versions() -> None:
    """What the guard case says of st.async, ptxas says of the PTX ISA version each admitted
    toolkit writes: 8.0 (CUDA 12.0) is rejected, 8.1 (CUDA 12.1) assembles."""
    if PTXAS is None:
        pytest.skip("no ptxas on PATH")
    line = "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3]"
    assert _needed(line) == 81

    def run(isa: str) -> tuple[bool, str]:  # (_assembles declares .b128 registers: PTX ISA 8.3)
        source = (f".version {isa}\n.target sm_90\n.address_size 64\n.entry k() {{\n"
                  f".reg .b32 %r<4>;\n{line};\nret;\n}}\n")
        done = run_cached(PTXAS, ["-arch", "sm_90", INPUT, "-o", "/dev/null"], source,
                          filename="case.ptx")
        return done.ok, done.stderr

    rejected, said = run("8.0")
    assert not rejected and "requires PTX ISA .version 8.1" in said
    assert run("8.1")[0]


STORE = '__device__ void z(void* p, unsigned n) {\n  asm volatile("st.bulk.weak.shared::cta ' \
    '[%0], %1, 0;" :: "l"(p), "r"(n) : "memory");\n}\n'


def test_a_verdict_that_changed_between_toolkits_follows_cuda_version() -> None:
    default = lint_text(STORE, select=("PTX206",))
    [finding] = default
    assert "before 13.1" in finding.message  # the message names the version it is about
    newer = RuleContext(options=version_options("13.1", None, "."))
    assert lint_text(STORE, select=("PTX206",), context=newer) == []
    older = RuleContext(options=version_options("12.8", None, "."))
    assert len(lint_text(STORE, select=("PTX206",), context=older)) == 1


# ----------------------------------------------------------------------------- two toolkits


def _assembles(ptxas: str, isa: str, target: str, line: str) -> bool:
    source = (f".version {isa}\n.target {target}\n.address_size 64\n.entry k() {{\n"
              ".reg .b16 %h<16>; .reg .b32 %r<64>; .reg .b64 %rd<16>; .reg .f32 %f<64>;\n"
              ".reg .f64 %fd<16>; .reg .pred %p<8>; .reg .b128 %q<4>; .reg .b8 %c<16>;\n"
              f"{line};\nL1:\nret;\n}}\n")
    return run_cached(ptxas, ["-arch", target, INPUT, "-o", "/dev/null"], source,
                      filename="case.ptx").ok


def _cases() -> list[str]:
    """One valid instance of every form ptxas 12.4 can target (sm_90a and below), whatever its
    PTX ISA version: the ones past 8.4 must be exactly those ptxas 12.4 rejects."""
    out: list[str] = []
    seen: set[str] = set()
    for form in grammar.forms():
        if not form.need.admits(90, "a") or form.toolkit is not None:
            continue
        made = agreement.instances(form)
        if made and made[0].form.opcode not in seen | {"wmma"}:
            out.append(made[0].text())
            seen.add(form.spec)
    return out


def _toolkit(version: str) -> str:
    """That toolkit's ptxas: found in the tests' cache, else fetched from the package index once
    (``benchmarks/toolkits.py``); skips with the reason where neither works, so the version
    verdicts are proven against a second ptxas wherever the index can be reached."""
    if PTXAS is None:
        pytest.skip("no ptxas on PATH to compare with")
    have = toolkits.found()
    if version not in have:
        try:
            toolkits.fetch(version)
        except (OSError, subprocess.SubprocessError, ValueError, KeyError) as exc:
            pytest.skip(f"CUDA {version}'s ptxas is not cached and could not be fetched ({exc})")
        have = toolkits.found()
    if version not in have:
        pytest.skip(f"CUDA {version}'s ptxas could not be fetched")
    return have[version]


def _needed(text: str) -> int:
    [instruction] = parse_template(text + ";", extended=False).instructions
    return ptx_requirement(instruction.opcode, instruction.modifiers)[0]


def test_ptx_isa_requirements_agree_with_two_toolkits() -> None:
    old = _toolkit("12.4")
    explicit = ["mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [%rd2]",  # PTX ISA 8.6
                "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 %p1, [%rd1], %r2",
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%rd1], %r2",  # 8.0
                "fence.acquire.sync_restrict::shared::cluster.cluster"]  # 8.6
    candidates = _cases() + explicit
    new_ok = parallel_map(lambda c: _assembles(PTXAS, "9.0", "sm_90a", c), candidates)
    cases = [c for c, ok in zip(candidates, new_ok, strict=True) if ok]
    assert len(cases) > 150
    old_ok = parallel_map(lambda c: _assembles(old, "8.4", "sm_90a", c), cases)
    false_alarms, caught, missed = [], [], []
    for text, accepted in zip(cases, old_ok, strict=True):
        too_new = _needed(text) > 84
        if too_new and accepted:
            false_alarms.append(text)
        elif too_new:
            caught.append(text)
        elif not accepted:
            missed.append(text)
    assert false_alarms == []  # PTX403 never calls too new what CUDA 12.4 assembles
    assert {explicit[0], explicit[1], explicit[3]} <= set(caught)
    assert any(c.startswith("cp.async.bulk.shared::cta") for c in caught)  # PTX ISA 8.6
    assert any(c.startswith("st.v8.") for c in caught)  # .v8 of bytes: 8.8
    # what 12.4 rejects and the notes do not explain stays a miss, counted, never a finding
    assert len(missed) < len(cases) // 5, missed[:20]


def test_st_bulk_size_register_verdict_is_each_toolkits() -> None:
    line = "st.bulk.weak.shared::cta [%rd1], %r1, 0"
    newest = _toolkit("13.1")
    assert _assembles(newest, "9.0", "sm_100a", line)
    if "release 13.0" in agreement._ptxas_version():
        assert not _assembles(PTXAS, "9.0", "sm_100a", line)
    assert agreement.predict(line).status == "reject"  # the default cuda-version, 13.0


MXF4 = """\
__device__ void m(float* d, unsigned a0, unsigned b0, unsigned sfa, unsigned sfb) {{
{open}  asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 "
    "{{%0, %1, %2, %3}}, {{%4, %4, %4, %4}}, {{%5, %5}}, {{%0, %1, %2, %3}}, {{%6}}, {{%7, %7}}, {{%8}}, {{%7, %7}};"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(b0), "r"(sfa), "h"((unsigned short)0), "r"(sfb));
{close}}}
"""


def test_a_form_only_a_newer_ptxas_knows_is_reported_where_the_older_one_compiles_it() -> None:
    bare = MXF4.format(open="", close="")
    [finding] = lint_text(bare, select=("PTX204",))
    assert "new in ptxas 13.1" in finding.message
    newer = RuleContext(options=version_options("13.1", None, "."))
    assert lint_text(bare, select=("PTX204",), context=newer) == []
    # CUTLASS's guard, set from CUDA 13.1 on in a header: undecided here, so silent
    guarded = MXF4.format(open="#if defined(CUTE_ARCH_MXF4NVF4_4X_UE8M0_MMA_ENABLED)\n",
                          close="#endif\n")
    assert lint_text(guarded, select=("PTX204",)) == []
    versioned = MXF4.format(open="#if CUDA_VERSION >= 13010\n", close="#endif\n")
    assert lint_text(versioned, select=("PTX204",)) == []


E4M3X2 = """\
__global__ void k(unsigned short* o, unsigned x) {
  unsigned short r;
  asm volatile("cvt.rn.satfinite.e4m3x2.bf16x2 %0, %1;" : "=h"(r) : "r"(x));
  *o = r;
}
"""


def test_a_form_of_a_newer_toolkit_and_a_newer_target_is_one_finding() -> None:
    """ptxas 13.0 says "Unexpected instruction types specified for 'cvt'" on sm_90a and on
    sm_100f alike: it stops at the form, before the target. PTX204 reports it and names the
    targets the form needs; PTX401 (sm_100f) speaks once the toolkit knows the form."""
    both = ("PTX204", "PTX401")
    [finding] = lint_text(E4M3X2, select=both, context=RuleContext(arch=90, arch_suffix="a"))
    assert finding.rule == "PTX204"
    assert "new in ptxas 13.1" in finding.message and "and it needs sm_100f or" in finding.message
    newer = RuleContext(arch=90, arch_suffix="a", options=version_options("13.1", None, "."))
    [finding] = lint_text(E4M3X2, select=both, context=newer)
    assert finding.rule == "PTX401" and "needs sm_100f" in finding.message
    family = RuleContext(arch=100, arch_suffix="f", options=version_options("13.1", None, "."))
    assert lint_text(E4M3X2, select=both, context=family) == []


def test_a_form_the_runs_toolkit_rejects_is_one_finding_not_two() -> None:
    """A form new in 13.1 with min-cuda-version 12.4: while cuda-version (13.0) rejects it too,
    PTX204 reports it and PTX403 says nothing; with cuda-version 13.1 only PTX403 speaks."""
    bare = MXF4.format(open="", close="")
    both = ("PTX204", "PTX403")
    older = RuleContext(options=version_options(None, "12.4", "."))
    assert [f.rule for f in lint_text(bare, select=both, context=older)] == ["PTX204"]
    newer = RuleContext(options=version_options("13.1", "12.4", "."))
    [finding] = lint_text(bare, select=both, context=newer)
    assert finding.rule == "PTX403" and "min-cuda-version is 12.4" in finding.message
    # a form ptxas takes but the ISA does not document is PTX204's warning, not an error of
    # spelling: its ISA version still counts (setmaxnreg is PTX ISA 8.0, CUDA 12.0)
    signed = ('__global__ void k() { asm volatile("setmaxnreg.inc.sync.aligned.s32 240;"); }\n')
    oldest = RuleContext(options=version_options(None, "11.8", "."))
    rules = sorted(f.rule for f in lint_text(signed, select=both, context=oldest))
    assert rules == ["PTX204", "PTX403"]


def _newer_forms() -> list[tuple[grammar.Form, str, str]]:
    """Each toolkit-gated form's first instance, with a target its need admits."""
    out = []
    for form in grammar.forms():
        if form.toolkit is None:
            continue
        target = next((f"sm_{sm}{suffix}" for sm, suffix in agreement.TARGETS
                       if form.need.admits(sm, suffix)), None)
        if target is not None:
            out.append((form, target, agreement.instances(form)[0].text()))
    return out


def test_forms_of_newer_toolkits_are_theirs_and_not_ptxas_13_0s() -> None:
    """Every ``toolkit=X.Y`` form: the ptxas of X.Y assembles it (when fetched), and the ptxas
    on PATH, if older, rejects it; the rules name X.Y."""
    forms = _newer_forms()
    found = {v: _toolkit(v) for v in sorted({f"{f.toolkit[0]}.{f.toolkit[1]}"
                                             for f, _, _ in forms if f.toolkit is not None})}
    checked = 0
    for form, target, text in forms:
        assert form.toolkit is not None
        version = f"{form.toolkit[0]}.{form.toolkit[1]}"
        isa = ptx_for_cuda(form.toolkit)
        assert isa is not None
        if version in found:
            assert _assembles(found[version], f"{isa // 10}.{isa % 10}", target, text), text
            checked += 1
        if PTXAS is not None and "release 13.0" in agreement._ptxas_version():
            assert not _assembles(PTXAS, "9.0", target, text), text
    if not checked:
        pytest.skip("no newer toolkit's ptxas (benchmarks/toolkits.py 13.1 13.2)")


TRITON_E4M3X2 = (
    "import triton.language as tl\n\ndef kernel(x):\n"
    '    return tl.inline_asm_elementwise("cvt.rn.satfinite.e4m3x2.bf16x2 $0, $1;", "=h,r",\n'
    "                                     [x], dtype=tl.int16, is_pure=True, pack=1)\n")


def test_a_newer_toolkits_form_in_dsl_code_is_a_warning_until_cuda_version_is_set() -> None:
    """A DSL's PTX is assembled by its own bundled toolchain, not the project's nvcc: the
    default cuda-version says nothing of it, so a form new in ptxas 13.1 is a warning there.
    The same form in C++, or with cuda-version configured, keeps the verdict's severity."""
    default = RuleContext(options=version_options(None, None, "."))
    [finding] = lint_text(TRITON_E4M3X2, "k.py", select=("PTX204",), context=default)
    assert finding.severity.value == "warning"
    assert "new in ptxas 13.1" in finding.message and "cannot see" in finding.message
    configured = RuleContext(options=version_options("13.0", None, "."))
    [finding] = lint_text(TRITON_E4M3X2, "k.py", select=("PTX204",), context=configured)
    assert finding.severity.value == "error" and "cannot see" not in finding.message
    [finding] = lint_text(E4M3X2, select=("PTX204",), context=default)
    assert finding.severity.value == "error" and "cannot see" not in finding.message


# words no toolkit the grammar covers has: to ptxlint a later toolkit's word and a typo look alike
UNKNOWN_WORDS = """\
__global__ void k(float* x) {
  asm volatile("fabric.submit.op_restrict::storing;" ::: "memory");
  float y;
  asm("sin.approx.ftz.4pi.f32 %0, %1;" : "=f"(y) : "f"(x[0]));
  asm("ld.globl.f32 %0, [%1];" : "=f"(y) : "l"(x));
  x[1] = y;
}
"""


def test_unknown_words_are_warnings_past_the_newest_toolkit_the_grammar_knows() -> None:
    """cuda-version 13.4 is newer than the grammar's PTX ISA: a word it does not know may be
    one that toolkit added, so ptxlint says what it knows instead of calling it an error."""
    known = format_cuda(NEWEST_KNOWN)
    findings = lint_text(UNKNOWN_WORDS, select=("PTX204",),
                         context=RuleContext(options=version_options(known, None, ".")))
    assert [f.severity.value for f in findings] == ["error"] * 3
    past = (NEWEST_KNOWN[0], NEWEST_KNOWN[1] + 2)
    findings = lint_text(UNKNOWN_WORDS, select=("PTX204",), context=RuleContext(
        options=version_options(format_cuda(past), None, ".")))
    assert [f.severity.value for f in findings] == ["warning"] * 3
    assert all(f"(CUDA {known}) and older, and CUDA {format_cuda(past)}" in f.message
               for f in findings)


def test_the_docs_name_the_newest_toolkit_the_grammar_knows() -> None:
    from ptxlint.config import SETTINGS
    from rules.ptx204_unknown_instruction import UnknownInstruction

    known = format_cuda(NEWEST_KNOWN)
    setting = next(s for s in SETTINGS if s.key == "cuda-version")
    assert f"({known})" in setting.doc
    assert f"CUDA {known}, PTX ISA {format_ptx(ptx_for_cuda(NEWEST_KNOWN) or 0)}" in " ".join(
        UnknownInstruction.docs.split())


def test_forms_of_one_newer_toolkit_in_one_statement_are_one_finding() -> None:
    """ptxas 13.0 rejects each line, and ptxas 13.1 takes them all: one defect (the toolkit),
    one finding at the first form, counting the others. A misspelled modifier beside them is
    a second defect, with its own finding."""
    two = E4M3X2.replace(
        '"cvt.rn.satfinite.e4m3x2.bf16x2 %0, %1;"',
        '"{.reg .b16 t;\\n cvt.rn.satfinite.e4m3x2.bf16x2 %0, %1;\\n"\n'
        '               " cvt.rn.satfinite.e4m3x2.bf16x2 t, %1;}"')
    [finding] = lint_text(two, select=("PTX204",))
    assert "new in ptxas 13.1" in finding.message
    assert finding.message.endswith("; 1 more instruction of the statement needs that toolkit too")
    assert two[finding.span.start:].startswith("cvt.rn.satfinite.e4m3x2.bf16x2 %0")
    typo = two.replace("t, %1;}", "t, %1;\\n mov.b16.u16 t, t;}")
    found = lint_text(typo, select=("PTX204",))
    assert [f.message.split(":")[0] for f in found] == [
        "'cvt.rn.satfinite.e4m3x2.bf16x2' is new in ptxas 13.1",
        "'.u16' does not apply in this combination"]
