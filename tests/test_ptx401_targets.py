"""PTX401/PTX402 target reasoning: --arch, #if guards, NV_IF_TARGET, and the CLI end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.ptx.targets import Target, compiled_for, lowest_target
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

CP_ASYNC = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");'


def _kernel(body: str) -> str:
    return f"__device__ void k(unsigned s, const void* g) {{\n{body}\n}}\n"


def test_cli_arch_sm70_flags_unguarded_cp_async_only(tmp_path: Path) -> None:
    bare = tmp_path / "bare.cu"
    bare.write_text(_kernel(CP_ASYNC))
    guarded = tmp_path / "guarded.cu"
    guarded.write_text(_kernel(f"#if __CUDA_ARCH__ >= 800\n{CP_ASYNC}\n#endif"))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "ptxlint",
            "check",
            str(bare),
            str(guarded),
            "--arch",
            "sm_70",
            "--select",
            "PTX401",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    findings = json.loads(run.stdout)["findings"]
    assert [(Path(f["path"]).name, f["rule"]) for f in findings] == [("bare.cu", "PTX401")]
    assert run.returncode == 1


def test_arch_context_and_guards() -> None:
    sm70 = RuleContext(arch=70)
    assert [f.rule for f in lint_text(_kernel(CP_ASYNC), select=("PTX401",), context=sm70)] == [
        "PTX401"
    ]
    assert lint_text(_kernel(CP_ASYNC), select=("PTX401",)) == []  # no target known
    sm80 = RuleContext(arch=80)
    assert lint_text(_kernel(CP_ASYNC), select=("PTX401",), context=sm80) == []


def test_warp_sync_needs_no_volta_but_match_does() -> None:
    # bar.warp.sync (PTX ISA 6.0) targets sm_30 on; below sm_70 the mask's lanes must only
    # reach it converged. match.sync has no such fallback: sm_70 on.
    sm60 = RuleContext(arch=60)
    warp_sync = 'asm volatile("bar.warp.sync %0;" :: "r"(s));'
    assert lint_text(_kernel(warp_sync), select=("PTX401",), context=sm60) == []
    match = 'asm volatile("match.any.sync.b32 %0, %0, 0xffffffff;" : "+r"(s));'
    assert [f.rule for f in lint_text(_kernel(match), select=("PTX401",), context=sm60)] == [
        "PTX401"
    ]


def test_wgmma_needs_the_a_target_with_arch() -> None:
    text = _kernel('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=90, arch_suffix="a")) == []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=90)) != []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=100, arch_suffix="a")) != []


def test_nv_if_target_is_read() -> None:
    text = _kernel(
        "NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,\n"
        f"  ({CP_ASYNC}),\n"
        '  (asm volatile("ld.global.u32 %0, [%1];" : "=r"(s) : "l"(g));))'
    )
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=75)) == []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=80)) == []


def test_guard_evaluation() -> None:
    assert lowest_target(("__CUDA_ARCH__ >= 800",)) == Target(80)
    assert lowest_target(("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900",)) == Target(90)
    assert lowest_target(("!(__CUDA_ARCH__ >= 900)",)) is None  # an upper bound only
    assert lowest_target(("defined(__CUDA_ARCH__)",)) is None
    assert lowest_target(("defined(USE_FOO)",)) is None
    assert lowest_target(("defined(__CUDA_ARCH_FEAT_SM90_ALL)",)) == Target(90, "a")
    # An unknown macro beside the arch test (CCCL's `_CCCL_CUDA_COMPILER(NVHPC) || ...`).
    guard = ("_CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH__ >= 900",)
    assert not compiled_for(guard, Target(80))
    assert compiled_for(guard, Target(90))
    assert compiled_for(("__cccl_ptx_isa >= 800",), Target(70))


def test_ptx402_severity_follows_target() -> None:
    shfl = 'asm volatile("shfl.idx.b32 %0, %1, 0, 0x1f;" : "=r"(s) : "r"(s));'
    [warning] = lint_text(_kernel(shfl), select=("PTX402",))
    assert warning.severity.value == "warning"
    [error] = lint_text(_kernel(shfl), select=("PTX402",), context=RuleContext(arch=80))
    assert error.severity.value == "error"
    assert error.fix is not None and not error.fix.safe
    old_only = _kernel(f"#if __CUDA_ARCH__ < 700\n{shfl}\n#endif")
    assert lint_text(old_only, select=("PTX402",)) == []


# --------------------------------------------------------------------------- guards read as target sets


def test_guards_become_target_sets() -> None:
    from ptxlint.ptx.targets import TARGETS, admitted_targets

    def admitted(*guards: str) -> set[str] | None:
        found = admitted_targets(guards, guards)
        return None if found is None else {str(t) for t in found}

    below = admitted("!(__CUDA_ARCH__ >= 900)")
    assert below is not None and {"sm_75", "sm_89"} <= below and "sm_90" not in below
    hopper_up = admitted("__CUDA_ARCH__ >= 900")
    assert hopper_up is not None and {"sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120a"} <= hopper_up
    assert admitted("defined(__CUDA_ARCH_FEAT_SM90_ALL)") == {"sm_90a"}
    assert admitted("__CUDA_ARCH_SPECIFIC__ == 1000") == {"sm_100a"}
    assert admitted("defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH__ == 1000") == {
        "sm_100a",
        "sm_100f",
    }
    assert admitted("defined(__CUDA_ARCH__)") is None  # chooses nothing: target unknown
    assert admitted("defined(USE_FAST_PATH)") is None
    # A file-wide guard narrows the set its local #else leaves open.
    narrowed = admitted_targets(("__CUDA_ARCH__ >= 800", "!(__CUDA_ARCH__ >= 900)"),
                                ("!(__CUDA_ARCH__ >= 900)",))
    assert narrowed is not None and min(t.sm for t in narrowed) == 80
    assert len(TARGETS) == len(set(TARGETS))


def test_branches_no_supported_toolkit_compiles() -> None:
    from ptxlint.ptx.targets import no_toolkit_compiles

    assert no_toolkit_compiles(("__CUDACC_VER_MAJOR__ < 9",))
    assert no_toolkit_compiles(("CUDA_VERSION < 9000",))
    assert no_toolkit_compiles(("!(CUDART_VERSION >= 10000)",))
    assert not no_toolkit_compiles(("CUDA_VERSION >= 9000",))
    assert not no_toolkit_compiles(("__CUDACC_VER_MAJOR__ < 12",))  # CUDA 11.x compiles it
    assert not no_toolkit_compiles(("__CUDA_ARCH__ >= 800",))
    assert not no_toolkit_compiles(("CUDA_VERSION < 9000 || defined(FORCE)",))


def _messages(body: str, **context: object) -> list[tuple[str, str]]:
    ctx = RuleContext(**context)  # type: ignore[arg-type]
    return [
        (f.severity.value, f.message)
        for f in lint_text(_kernel(body), select=("PTX401", "PTX402"), context=ctx)
    ]


def test_else_of_a_hopper_guard_names_the_lowest_target_without_the_instruction() -> None:
    body = (
        "unsigned r;\n#if __CUDA_ARCH__ >= 900\n"
        'asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; }");\n#else\n'
        'asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(s));\n#endif'
    )
    [(severity, message)] = _messages(body)
    assert severity == "warning"
    # sm_30 and sm_32 are left out: no toolkit from CUDA 11.0, the oldest supported, compiles them
    assert "also admit sm_35" in message and "up to sm_75" in message
    # The same branch inside a file whose own guard starts at sm_80 is exact.
    wide = "\n" * 400
    text = f"#if __CUDA_ARCH__ >= 800\n{_kernel(body)}{wide}#endif\n"
    assert lint_text(text, select=("PTX401",)) == []


def test_the_message_names_what_selects_the_form() -> None:
    """The family exists on the target; the operands or a modifier select a newer form."""
    body = ("#if __CUDA_ARCH__ >= 800\n"
            'asm volatile("{ .reg .b64 t; mbarrier.arrive.shared.b64 t, [%0], %1; }" '
            ':: "r"(s), "r"(s));\n'
            'asm volatile("{ .reg .b64 t; mbarrier.arrive.shared.b64 t, [%0]; }" :: "r"(s));\n'
            'asm volatile("fence.acq_rel.cluster;" ::: "memory");\n#endif')
    assert _messages(body) == [
        ("error", "'mbarrier.arrive.shared.b64' needs sm_90 or newer (the form with 3 operands; "
                  "with 2 it needs only sm_80), but the statement is compiled for sm_80 "
                  "(its #if guards)"),
        ("error", "'fence.acq_rel.cluster' needs sm_90 or newer (the modifier .cluster), but "
                  "the statement is compiled for sm_80 (its #if guards)"),
    ]
    # a form that needs its target as a whole: the name says it all, no parenthesis
    [(_, message)] = _messages(body.replace(">= 800", ">= 900").replace("acq_rel.cluster",
                               "acq_rel.cta") + '\n#if __CUDA_ARCH__ >= 800\nasm volatile('
                               '"{ .reg .pred p; elect.sync _|p, 0xffffffff; }");\n#endif')
    assert message.startswith("'elect.sync' needs sm_90 or newer, but"), message


def test_hopper_guard_admits_targets_without_wgmma() -> None:
    body = '#if __CUDA_ARCH__ >= 900\nasm volatile("wgmma.fence.sync.aligned;" ::: "memory");\n#endif'
    [(severity, message)] = _messages(body)
    assert severity == "warning" and "also admit sm_90 (a build for sm_90, not sm_90a)" in message
    assert "__CUDA_ARCH_FEAT_SM90_ALL" in message
    exact = body.replace("__CUDA_ARCH__ >= 900", "defined(__CUDA_ARCH_FEAT_SM90_ALL)")
    assert _messages(exact) == []
    # With --arch the target is given; the guard only decides whether the statement is built.
    assert _messages(body, arch=90, arch_suffix="a") == []
    assert [s for s, _ in _messages(body, arch=100)] == ["error"]


def test_exact_guards_stay_silent() -> None:
    for guard, statement in (
        ("__CUDA_ARCH__ >= 800", CP_ASYNC),
        ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750",
         'asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(s) : "r"(s));'),
        ("__CUDA_ARCH__ >= 900",
         'asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; }"'
         ' :: "r"(s));'),
    ):
        assert _messages(f"#if {guard}\n{statement}\n#endif") == [], guard


def test_old_toolkit_branch_is_not_linted_for_targets() -> None:
    body = (
        "unsigned r;\n#if __CUDACC_VER_MAJOR__ < 9 && __CUDA_ARCH__ >= 300\n"
        'asm volatile("shfl.down.b32 %0, %1, 1, 0x1f;" : "=r"(r) : "r"(s));\n'
        'asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(s));\n'
        "#endif"
    )
    assert _messages(body) == []
    assert _messages(body, arch=80) == []
    live = body.replace("__CUDACC_VER_MAJOR__ < 9 && __CUDA_ARCH__ >= 300",
                        "__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 700")
    assert {m.split("'")[1].split(".")[0] for _, m in _messages(live)} == {"shfl", "ldmatrix"}


def test_an_arch_error_in_the_file_removes_its_targets() -> None:
    # flashinfer's generated kernels: `#error` where a three-input max.f32 cannot be built.
    from tests.conftest import lint_text

    kernel = """
__device__ float max3(float a, float b, float c) {
  float m = a;
#if __CUDA_ARCH__ >= 800
  asm volatile("max.f32 %0, %1, %2, %3;" : "=f"(m) : "f"(a), "f"(b), "f"(c));
#endif
  return m;
}
"""
    error = '#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 1000)\n#error "needs sm_100+"\n#endif\n'
    assert len(lint_text(kernel, select=("PTX401",))) == 1  # admits sm_80..sm_90a
    assert lint_text(error + kernel, select=("PTX401",)) == []
    # an #error that only some configurations reach removes nothing
    maybe = error.replace("(__CUDA_ARCH__ < 1000)", "(__CUDA_ARCH__ < 1000) && USE_MAX3")
    assert len(lint_text(maybe + kernel, select=("PTX401",))) == 1
    # the directive however it is spaced; the word alone (a comment, an identifier) is none
    for spelled in ("#  error", "  #\terror", "# error"):
        assert lint_text(error.replace("#error", spelled) + kernel, select=("PTX401",)) == []
    words = "// an error here is cudaErrorInvalidValue\nint error_count;\n"
    assert len(lint_text(words + kernel, select=("PTX401",))) == 1


# --------------------------------------------------------------------------- f targets


def test_family_features_are_refused_on_the_plain_target() -> None:
    """A family-specific form (ptxas 13.0: cvt .e2m3x2 on sm_100f/sm_100a/sm_120a, not sm_100)
    is refused on plain sm_100 and on an earlier target, accepted on the family and the
    architecture targets of its sm_ numbers."""
    from ptxlint.ptx.grammar import Need
    from ptxlint.ptx.instructions import requirement
    from ptxlint.ptx.targets import available

    f = Need.parse("100f")
    assert not f.admits(100, "") and f.admits(100, "f") and f.admits(100, "a")
    assert f.admits(103, "a") and not f.admits(90, "a")
    cvt = requirement("cvt", ("rn", "satfinite", "e2m3x2", "f32"))
    assert cvt.suffix == "f"
    assert not available(cvt, Target(100)) and not available(cvt, Target(90, "a"))
    assert all(available(cvt, t) for t in (Target(100, "f"), Target(100, "a"), Target(103, "a"),
                                           Target(120, "a"), Target(120, "f")))
    # setmaxnreg: sm_90a, or the sm_100/sm_120 families (ptxas 13.0 takes sm_100f)
    reg = requirement("setmaxnreg", ("inc", "sync", "aligned", "u32"))
    assert available(reg, Target(90, "a")) and available(reg, Target(100, "f"))
    assert not available(reg, Target(90)) and not available(reg, Target(100))
    # cvt.rs is sm_100a-only (ptxas 13.0 rejects it for sm_100f)
    rs = requirement("cvt", ("rs", "satfinite", "e4m3x4", "f32"))
    assert available(rs, Target(100, "a")) and not available(rs, Target(100, "f"))


def test_ptx401_reports_a_family_form_under_a_plain_guard() -> None:
    cvt = ('asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));')
    body = "unsigned short h; float a = 0, b = 0;\n"
    plain = _kernel(body + f"#if __CUDA_ARCH__ >= 1000\n{cvt}\n#endif")
    [finding] = lint_text(plain, select=("PTX401",))
    assert "sm_100" in finding.message
    family = _kernel(body + "#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH__ == 1000"
                     f"\n{cvt}\n#endif")
    assert lint_text(family, select=("PTX401",)) == []


def test_the_suggested_guard_for_a_feature_target_is_its_macro_and_silences_the_warning() -> None:
    # `__CUDA_ARCH__ >= 1000` cannot exclude sm_120, which the message names as lacking the
    # instruction: the suggestion is the family (f) or architecture (a) feature macro, and
    # written as the guard it leaves nothing to report
    mma = ('asm volatile("tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, 1;" :: "r"(t), '
           '"l"(d), "l"(d), "r"(t));')
    for statement, macro in (
        ('asm volatile("tcgen05.fence::after_thread_sync;");', "__CUDA_ARCH_FAMILY_SPECIFIC__"),
        (mma, "__CUDA_ARCH_FEAT_SM100_ALL"),
    ):
        body = f"unsigned t = 0; unsigned long long d = 0;\n#if __CUDA_ARCH__ >= 1000\n{statement}\n#endif"
        [(severity, message)] = _messages(body)
        assert severity == "warning" and "sm_12" in message, message
        suggested = message.rpartition("guard it with ")[2]
        assert macro in suggested and "__CUDA_ARCH__" not in suggested, suggested
        assert _messages(body.replace("__CUDA_ARCH__ >= 1000", suggested)) == []


def test_cuda_arch_has_feature_is_the_feature_macro() -> None:
    """`__CUDA_ARCH_HAS_FEATURE__(SM120_ALL)` (crt/host_defines.h pastes it into
    `__CUDA_ARCH_FEAT_SM120_ALL`) admits sm_120a. TransformerEngine guarded `redux.sync.max.abs.f32`
    with SM100/SM101/SM120 features, and the sm_120a build failed in ptxas ('redux.f32' not
    supported on .target 'sm_120a'; fixed in dbaa02d)."""
    assert compiled_for(("__CUDA_ARCH_HAS_FEATURE__(SM120_ALL)",), Target(120, "a"))
    assert not compiled_for(("__CUDA_ARCH_HAS_FEATURE__(SM120_ALL)",), Target(120))
    assert not compiled_for(("__CUDA_ARCH_HAS_FEATURE__( SM100_ALL )",), Target(120, "a"))
    redux = 'asm volatile("redux.sync.max.abs.f32 %0, %1, 0xFFFFFFFF;" : "=f"(o) : "f"(i));'
    body = "float o, i = 0;\n"
    wrong = _kernel(body + "#if __CUDA_ARCH_HAS_FEATURE__(SM100_ALL) || "
                    f"__CUDA_ARCH_HAS_FEATURE__(SM120_ALL)\n{redux}\n#endif")
    [finding] = lint_text(wrong, select=("PTX401",))
    assert "sm_120a" in finding.message
    right = _kernel(body + "#if __CUDA_ARCH_HAS_FEATURE__(SM100_ALL) || "
                    f"__CUDA_ARCH_HAS_FEATURE__(SM103_ALL)\n{redux}\n#endif")
    assert lint_text(right, select=("PTX401",)) == []


def test_an_undefined_project_arch_macro_leaves_the_target_unknown() -> None:
    # NCCL's reduce_kernel.h tests NCCL_CUDA_ARCH_SPECIFIC, which device.h (not included
    # there) sets from __CUDA_ARCH_SPECIFIC__: the sm_90 lower bound around it is not the
    # statement's target. An unknown macro that names no architecture still counts as holding.
    source = """
#if __CUDA_ARCH__ >= 900
__device__ void f(unsigned long long p, unsigned &a, unsigned &b, unsigned &c, unsigned &d) {
#if PROJ_CUDA_ARCH_SPECIFIC == 1000 || PROJ_CUDA_ARCH_FAMILY_SPECIFIC == 1000
  asm volatile("multimem.ld_reduce.relaxed.sys.global.min.v4.e4m3x4 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
#endif
#if defined(ENABLE_STUFF)
  asm volatile("multimem.ld_reduce.relaxed.sys.global.min.v4.e4m3x4 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
#endif
}
#endif
"""
    findings = lint_text(source, select=("PTX401",))
    assert [source[: f.span.start].count("\n") + 1 for f in findings] == [9]


def test_the_instructions_needs_are_not_asked_where_the_guards_are_known_to_admit_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PTX401 asks what each instruction needs, then (only where one needs some target) which
    targets the guards admit; once those are known for a chain of conditions and are none, the
    chain's other statements are asked nothing. Under an arch guard a mov is asked and needs
    no target, a cp.async is asked and found."""
    import importlib

    from ptxlint.engine import extract_statements, instantiate
    from ptxlint.model import SourceFile
    from ptxlint.registry import load_rules

    [rule] = [r for r in instantiate(load_rules().rules) if r.id == "PTX401"]
    module = importlib.import_module(type(rule).__module__)
    asked: list[str] = []
    real = module.instruction_requirement

    def counted(statement: object, instruction: object) -> object:
        asked.append(getattr(instruction, "opcode", ""))
        return real(statement, instruction)

    monkeypatch.setattr(module, "instruction_requirement", counted)
    plain = 'asm volatile("mov.u32 %0, %1;" : "=r"(s) : "r"(s));'
    cases = (
        # unguarded: the first statement is asked, the chain's targets are then known (none)
        (f"{CP_ASYNC}\n{CP_ASYNC}", [["cp"], []], [0, 0]),
        (f"#if __CUDA_ARCH__ >= 700\n{plain}\n#endif", [["mov"]], [0]),
        (f"#if __CUDA_ARCH__ >= 700\n{CP_ASYNC}\n#endif", [["cp"]], [1]),
    )
    for body, opcodes, found in cases:
        statements = extract_statements(SourceFile("t.cu", _kernel(body))).statements
        assert len(statements) == len(opcodes)
        for statement, expected, count in zip(statements, opcodes, found, strict=True):
            asked.clear()
            assert len(list(rule.check(statement, RuleContext()))) == count
            assert asked == expected


_WGMMA_WRAPPER = (
    "__device__ void f(float* d, unsigned long long a, unsigned long long b) {\n"
    '  asm volatile("wgmma.fence.sync.aligned;\\n"\n'
    '    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;\\n"\n'
    '    "wgmma.commit_group.sync.aligned;\\n wgmma.wait_group.sync.aligned 0;\\n"\n'
    '    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b) : "memory");\n}\n')


def test_one_finding_per_needed_target_of_a_statement() -> None:
    """ptxas stops at the first instruction, and one target or guard mends them all."""
    arch = lint_text(_WGMMA_WRAPPER, select=("PTX401",), context=RuleContext(arch=90))
    assert len(arch) == 1
    assert "'wgmma.fence.sync.aligned' needs" in arch[0].message
    assert arch[0].message.endswith("; 3 more instructions of the statement need it too")
    guarded = lint_text(f"#if __CUDA_ARCH__ >= 900\n{_WGMMA_WRAPPER}#endif\n",
                        select=("PTX401",))
    assert len(guarded) == 1 and "3 more instructions" in guarded[0].message
    # needs of two targets: one finding each
    two = _WGMMA_WRAPPER.replace(
        "wgmma.fence.sync.aligned;", "cp.async.ca.shared.global [%4], [%5], 16; wgmma.fence.sync.aligned;")
    by_arch = lint_text(two, select=("PTX401",), context=RuleContext(arch=75))
    assert len(by_arch) == 2


def test_a_special_register_raises_what_its_instruction_needs() -> None:
    """ptxas 13.0 for sm_80: "Feature '%cluster_ctarank' requires .target sm_90 or higher"
    (each cluster register and %aggr_smem_size); %laneid and %dynamic_smem_size exist there."""
    def read(register: str, guard: str = "") -> str:
        body = (f'  unsigned r;\n  asm volatile("mov.u32 %0, %%{register};" : "=r"(r));\n'
                "  return r;\n")
        if guard:
            body = f"#if {guard}\n{body}#else\n  return 0;\n#endif\n"
        return f"__device__ unsigned f() {{\n{body}}}\n"

    found = lint_text(read("cluster_ctarank"), select=("PTX401",), context=RuleContext(arch=80))
    assert len(found) == 1 and "(the special register %cluster_ctarank)" in found[0].message
    assert lint_text(read("cluster_ctarank"), select=("PTX401",), context=RuleContext(arch=90)) == []
    guarded = lint_text(read("aggr_smem_size", "__CUDA_ARCH__ >= 800"), select=("PTX401",))
    assert len(guarded) == 1 and "sm_90 or newer" in guarded[0].message
    assert lint_text(read("aggr_smem_size", "__CUDA_ARCH__ >= 900"), select=("PTX401",)) == []
    for register in ("laneid", "dynamic_smem_size"):
        assert lint_text(read(register), select=("PTX401",), context=RuleContext(arch=80)) == []


LDMATRIX = ('asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" '
            ': "=r"(d[0]) : "r"(s));')


def _ldmatrix_under(guard: str) -> str:
    return f"__device__ void k(unsigned* d, unsigned s) {{\n#if {guard}\n{LDMATRIX}\n#endif\n}}\n"


@pytest.mark.parametrize(("guard", "since", "expected"), [
    # the guard's lower bound sm_70 lacks ldmatrix (sm_75): CUDA 12 builds sm_70, CUDA 13 not
    ("__CUDA_ARCH__ >= 700", None, ["compiled for sm_70"]),
    ("__CUDA_ARCH__ >= 700", (12, 4), ["compiled for sm_70"]),
    ("__CUDA_ARCH__ >= 700", (13, 0), []),
    ("__CUDA_ARCH__ >= 600", (13, 1), []),
    # an upper bound only: every target below sm_80, the oldest the toolkits build named
    ("__CUDA_ARCH__ < 800", (12, 0), ["also admit sm_50"]),
    ("__CUDA_ARCH__ < 800", (11, 0), ["also admit sm_35"]),
    ("__CUDA_ARCH__ < 800", (13, 0), []),
])
def test_ptx401_leaves_out_the_targets_min_cuda_version_no_longer_builds(guard, since, expected):
    context = RuleContext(options={"min_cuda_version": since} if since else {})
    found = lint_text(_ldmatrix_under(guard), select=("PTX401",), context=context)
    assert len(found) == len(expected)
    for finding, words in zip(found, expected, strict=True):
        assert words in finding.message


def test_built_since_follows_the_toolkits_that_dropped_each_target():
    from ptxlint.ptx.targets import built_since

    assert built_since(Target(70), (12, 9)) and not built_since(Target(70), (13, 0))
    assert built_since(Target(35), (11, 8)) and not built_since(Target(37), (12, 0))
    assert not built_since(Target(101, "a"), (13, 0)) and built_since(Target(110, "a"), (13, 5))
    assert built_since(Target(75), (13, 5)) and built_since(Target(120, "f"), (13, 0))


@pytest.mark.parametrize(("target", "version", "compiles"), [
    # each as ptxas of that toolkit answers ("Value 'sm_70' is not defined for option
    # 'gpu-name'" where it does not)
    (Target(70), (12, 4), True), (Target(70), (13, 0), False), (Target(72), (13, 5), False),
    (Target(75), (13, 5), True), (Target(101, "a"), (12, 8), True),
    (Target(101, "a"), (13, 0), False), (Target(110, "a"), (12, 9), False),
    (Target(110, "a"), (13, 0), True), (Target(103), (12, 8), False), (Target(103), (12, 9), True),
    (Target(88), (12, 9), False), (Target(88), (13, 0), True), (Target(121), (12, 9), True),
    (Target(100, "f"), (12, 8), False), (Target(107), (13, 3), False), (Target(107), (13, 4), True),
])
def test_which_toolkit_compiles_which_target(target, version, compiles):
    from ptxlint.ptx.targets import toolkit_target_problem

    assert (toolkit_target_problem(target, version) is None) == compiles


def test_cli_warns_when_the_toolkit_cannot_compile_for_arch(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(_kernel(CP_ASYNC))

    def warned(*flags: str) -> list[str]:
        run = subprocess.run([sys.executable, "-m", "ptxlint", "check", str(source), "--isolated",
                              "--select", "PTX401", *flags], capture_output=True, text=True)
        return [line for line in run.stderr.splitlines() if "warning: arch" in line]

    [dropped] = warned("--arch", "sm_70")
    assert "CUDA 13.0 does not compile for sm_70" in dropped and "cuda-version is not set" in dropped
    assert warned("--arch", "sm_70", "--cuda-version", "12.4") == []
    [new] = warned("--arch", "sm_110a", "--cuda-version", "12.8")
    assert "new in CUDA 13.0" in new and "not set" not in new
    [renamed] = warned("--arch", "sm_101a")
    assert "named it sm_110a" in renamed


@pytest.mark.parametrize("version", ["12.4", "13.0", "13.1", "13.2", "13.5"])
def test_the_target_table_says_what_each_toolkits_ptxas_knows(version: str) -> None:
    """Each toolkit's ptxas, where the tests have it (the system one, or those
    ``benchmarks/toolkits.py`` fetched): it knows a target exactly where
    ``toolkit_target_problem`` finds none ("Value 'sm_70' is not defined for option
    'gpu-name'" where it does not know it)."""
    from ptxlint.ptx.targets import TARGETS, toolkit_target_problem
    from tests.benchmark_module import load
    from tests.toolchain_cache import INPUT, PTXAS, run_cached

    found = load("toolkits").found()
    ptxas = found.get(version)
    if ptxas is None and PTXAS is not None and version == "13.0" and "13.0." in subprocess.run(
            [PTXAS, "--version"], capture_output=True, text=True).stdout:
        ptxas = PTXAS
    if ptxas is None:
        pytest.skip(f"no ptxas {version} (benchmarks/toolkits.py {version} fetches it)")
    major, minor = (int(part) for part in version.split("."))
    disagree = []
    for target in TARGETS:
        if target.sm < 50:
            continue  # older than every toolkit here compiles for: no verdict to compare
        source = f".version 8.0\n.target {target}\n.address_size 64\n.entry k() {{ ret; }}\n"
        run = run_cached(ptxas, ["-arch", str(target), INPUT, "-o", "/dev/null"], source,
                         filename="case.ptx")
        knows = "is not defined for option" not in run.stderr
        if knows != (toolkit_target_problem(target, (major, minor)) is None):
            disagree.append(str(target))
    assert disagree == []


_LDMATRIX = ('asm volatile("ldmatrix.sync.aligned.x2.m8n8.shared.b16 {%0, %1}, [%2];" '
             ': "=r"(r[0]), "=r"(r[1]) : "r"(a));')
_PLAIN = 'asm volatile("mov.b32 %0, %1;" : "=r"(r[0]) : "r"(a));'


def _branches(*arms: tuple[str, str]) -> str:
    """A function whose body is one #if chain: (directive, statement) per arm."""
    body = "".join(f"#{directive}\n  {statement}\n" for directive, statement in arms)
    return f"__device__ void f(unsigned a, unsigned (&r)[2]) {{\n{body}#endif\n}}\n"


@pytest.mark.parametrize("arms", [
    (("ifdef PIPELINED", _LDMATRIX), ("else", _LDMATRIX)),
    (("if defined(A)", _LDMATRIX), ("elif B > 2", _LDMATRIX), ("else", _LDMATRIX)),
    (("ifndef A", _LDMATRIX), ("else", _LDMATRIX)),
])
def test_under_an_undecided_guard_every_branch_failing_is_each_reported(
        arms: tuple[tuple[str, str], ...]) -> None:
    """--arch: whichever branch of an #if the build leaves undecided is taken, an instruction
    the target lacks is compiled, so each branch's is reported."""
    found = lint_text(_branches(*arms), select=("PTX401",), context=RuleContext(arch=70))
    assert len(found) == len(arms)
    assert all("each branch of the #if guards" in f.message for f in found)


@pytest.mark.parametrize("arms", [
    (("ifdef PIPELINED", _LDMATRIX),),
    (("ifdef PIPELINED", _LDMATRIX), ("else", _PLAIN)),
    (("if defined(A)", _LDMATRIX), ("elif B > 2", _PLAIN), ("else", _LDMATRIX)),
])
def test_under_an_undecided_guard_a_branch_that_builds_keeps_it_silent(
        arms: tuple[tuple[str, str], ...]) -> None:
    found = lint_text(_branches(*arms), select=("PTX401",), context=RuleContext(arch=70))
    assert found == []
    # one certain statement elsewhere is its own finding, not a branch of the choice
    certain = _branches(*arms).replace("}\n", f"  {_LDMATRIX}\n}}\n")
    [own] = lint_text(certain, select=("PTX401",), context=RuleContext(arch=70))
    assert "each branch" not in own.message
