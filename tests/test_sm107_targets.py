"""sm_107, sm_107a and sm_107f as targets: ptxas 13.4 is the first to know them (from PTX ISA
9.4); sm_107 is of the sm_100 family (`.target sm_100f` and `.target sm_103f` assemble for it)
and has its features, and a few of its own; nvcc 13.5 defines ``__CUDA_ARCH__`` 1070 and, for
sm_107a, ``__CUDA_ARCH_FEAT_SM107_ALL`` and ``__CUDA_ARCH_SPECIFIC__`` 1070, and
``__CUDA_ARCH_FAMILY_SPECIFIC__`` 1070 for sm_107a and sm_107f (its ``--dryrun`` command lines).

The unit tests need no ptxas; the agreement test runs where ``benchmarks/toolkits.py 13.5`` has
fetched ptxas 13.5 and skips otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint import cli
from ptxlint.config import parse_arch
from ptxlint.ptx import grammar
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.targets import Target, arch_targets, compiled_for, toolkit_compiles
from ptxlint.ptx.versions import version_options
from ptxlint.rule import RuleContext
from tests.benchmark_module import load
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, run_cached

toolkits = load("toolkits")
agreement = load("ptxas_agreement")
# a different register for each element: ptxas refuses a load that writes one twice
from tests.test_ptx_isa_9_3_to_9_5 import _distinct, _found  # noqa: E402


@pytest.mark.parametrize("text", ["sm_107", "sm_107a", "sm_107f", "compute_107f"])
def test_sm_107_targets_are_accepted_by_arch(text: str) -> None:
    assert parse_arch(text) == (107, text[-1] if text[-1] in "af" else "")


def test_arch_sm_107a_on_the_command_line_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text('__global__ void k() { asm volatile("membar.gl;"); }\n')
    assert cli.main(["check", "--isolated", "--no-cache", "--arch", "sm_107a",
                     str(tmp_path)]) == 0


def test_toolkits_from_13_4_compile_for_sm_107_and_older_ones_do_not() -> None:
    # ptxas 13.3 does not know sm_107 though it knows sm_110 and sm_121
    guard = ("__CUDA_ARCH__ == 1070",)
    assert not toolkit_compiles(guard, (13, 3), 93)
    assert toolkit_compiles(guard, (13, 4), 94)
    assert toolkit_compiles(("__CUDA_ARCH__ == 1100",), (13, 3), 93)


@pytest.mark.parametrize(
    ("guard", "admitted"),
    [
        ("__CUDA_ARCH__ == 1070", {"sm_107", "sm_107a", "sm_107f"}),
        ("defined(__CUDA_ARCH_FEAT_SM107_ALL)", {"sm_107a"}),
        ("__CUDA_ARCH_HAS_FEATURE__(SM107_ALL)", {"sm_107a"}),
        ("__CUDA_ARCH_SPECIFIC__ == 1070", {"sm_107a"}),
        ("__CUDA_ARCH_FAMILY_SPECIFIC__ == 1070", {"sm_107a", "sm_107f"}),
    ],
)
def test_the_sm_107_macros_are_nvcc_13_5s(guard: str, admitted: set[str]) -> None:
    chosen = arch_targets((guard,))
    assert chosen is not None and {str(t) for t in chosen} == admitted


def test_cuda_arch_1070_sits_between_sm_103_and_sm_110() -> None:
    at_least = ("__CUDA_ARCH__ >= 1070",)
    assert compiled_for(at_least, Target(107, "f"))
    assert compiled_for(at_least, Target(110))
    assert not compiled_for(at_least, Target(103, "a"))
    assert not compiled_for(("__CUDA_ARCH__ >= 1100",), Target(107, "a"))
    from_sm_100 = arch_targets(("__CUDA_ARCH__ >= 1000",))
    assert from_sm_100 is not None and Target(107) in from_sm_100


# ----------------------------------------------------------------------------- PTX401 by target

_CVT_UE5M3 = "{ .reg .b16 u; cvt.rn.satfinite.ue5m3x2.f32 u, %1, %2; }"  # PTX ISA 9.4, sm_107f
_SPCOMPRESS = ("tcgen05.ld.red.spcompress.sync.aligned.32x32b.x4.min.sp::2:4.f32.b2 "
               "{%0}, {%1, %2}, %0, [%3];")  # sm_107a only
_ALLOC = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%3], 32;"  # sm_100f family
_LD_RED = "tcgen05.ld.red.sync.aligned.32x32b.x2.f32.min {%1, %2}, %0, [%3];"  # sm_103f family
_MMA_I8 = "tcgen05.mma.cta_group::1.kind::i8 [%3], %5, %5, %0, p, 1;"
_ADD_U8X4 = "add.u8x4 %0, %3, %3;"  # PTX ISA 9.2: the sm_120 family and sm_107a/f
# PTX ISA 9.4, the sm_107 family: B decompressed through a lookup table in tensor memory (its
# address after the B descriptor; vLLM's Rubin MoE GEMM), and B kept in a collector
_MMA_LUT = ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.decompress::lut::b.block32."
            "collector::b::fill [%3], %5, %5, [%3], %0, [%3], [%3], p;")
_MMA_COLLECT_B = "tcgen05.mma.cta_group::1.kind::f16.collector::b::lastuse [%3], %5, %5, %0, p;"


def _kernel(asm: str, guard: str = "") -> str:
    body = (f'asm volatile("{{ .reg .pred p; {asm} }}" : "+r"(r), "+f"(f), "+f"(g) '
            ': "r"(t), "f"(h), "l"(d));')
    if guard:
        body = f"#if {guard}\n{body}\n#endif"
    return ("__device__ void k(unsigned r, float f, float g, unsigned t, float h, "
            f"unsigned long long d) {{\n{body}\n}}\n")


def _ptx401(asm: str, target: str = "", guard: str = "") -> list[str]:
    sm, suffix = parse_arch(target) if target else (None, "")
    context = RuleContext(arch=sm, arch_suffix=suffix,
                          options=version_options("13.5", None, "."))
    return [f.message for f in lint_text(_kernel(asm, guard), select=("PTX401",),
                                         context=context)]


@pytest.mark.parametrize(
    ("asm", "having", "lacking"),
    [
        (_CVT_UE5M3, ("sm_107a", "sm_107f"), ("sm_107", "sm_100a", "sm_103f", "sm_110a")),
        (_SPCOMPRESS, ("sm_107a",), ("sm_107f", "sm_100a", "sm_103a", "sm_110a")),
        (_ALLOC, ("sm_107a", "sm_107f", "sm_100f", "sm_110f"), ("sm_107", "sm_120a")),
        (_LD_RED, ("sm_107a", "sm_107f", "sm_103f"), ("sm_100a", "sm_107")),
        (_MMA_I8, ("sm_100a", "sm_110a"), ("sm_107a", "sm_107f", "sm_103a")),
        (_ADD_U8X4, ("sm_107a", "sm_107f", "sm_120f"), ("sm_107", "sm_103a", "sm_110f")),
        (_MMA_LUT, ("sm_107a", "sm_107f"), ("sm_107", "sm_100a", "sm_103a", "sm_110a")),
        (_MMA_COLLECT_B, ("sm_107a", "sm_107f"), ("sm_100a", "sm_100f", "sm_110a")),
    ],
)
def test_ptx401_judges_sm_107_forms_and_family_forms_as_ptxas_13_5_does(
    asm: str, having: tuple[str, ...], lacking: tuple[str, ...]
) -> None:
    for target in having:
        assert _ptx401(asm, target) == [], (asm, target)
    for target in lacking:
        assert _ptx401(asm, target) != [], (asm, target)


@pytest.mark.parametrize(
    ("asm", "clean"),
    [
        (_MMA_LUT, True),
        # the modifiers in another order, A from tensor memory, both collectors, two CTAs
        ("tcgen05.mma.cta_group::2.kind::f8f6f4.collector::a::use.decompress::lut::b."
         "collector::b::discard [%3], [%3], %5, [%3], %0, p;", True),
        ("tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::b [%3], %5, %5, [%3], %0, "
         "{%0, %0, %0, %0}, p;", True),
        # ptxas 13.5: "Modifier '.decompress::lut::b' cannot be combined with modifier ..."
        ("tcgen05.mma.cta_group::1.kind::f16.decompress::lut::b [%3], %5, %5, [%3], %0, p;",
         False),
        ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.decompress::lut::b "
         "[%3], %5, %5, [%3], %0, [%3], [%3], p;", False),
        ("tcgen05.mma.sp.cta_group::1.kind::f8f6f4.decompress::lut::b [%3], %5, %5, [%3], "
         "[%3], %0, p;", False),
        ("tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::b.ashift [%3], [%3], %5, "
         "[%3], %0, p;", False),
        # "Unknown modifier '.decompress::lut::a'"; without the table: "Arguments mismatch"
        ("tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::a [%3], %5, %5, [%3], %0, p;",
         False),
        ("tcgen05.mma.cta_group::1.kind::f8f6f4.decompress::lut::b [%3], %5, %5, %0, p;", False),
        # .kind::i8 is not on sm_107 ("Feature '.kind::i8' not supported"), the plain B
        # collector only there: no target takes both
        ("tcgen05.mma.cta_group::1.kind::i8.collector::b::fill [%3], %5, %5, %0, p;", False),
        # the numbered B collectors are .ws's, the plain ones not ("Illegal modifier")
        ("tcgen05.mma.ws.cta_group::1.kind::f16.collector::b::fill [%3], %5, %5, %0, p;", False),
    ],
)
def test_the_sm_107_lookup_table_mma_is_read_as_ptxas_13_5_reads_it(asm: str, clean: bool
                                                                    ) -> None:
    sm, suffix = parse_arch("sm_107a")
    context = RuleContext(arch=sm, arch_suffix=suffix,
                          options=version_options("13.5", None, "."))
    found = [f for f in lint_text(_kernel(asm), select=("PTX204", "PTX206", "PTX207", "PTX401"),
                                  context=context) if f.severity == "error"]
    assert (found == []) == clean, [f.message for f in found]


@pytest.mark.parametrize("target", ["sm_100a", "sm_107a", "sm_110a", ""])
def test_words_whose_targets_never_meet_are_no_form(target: str) -> None:
    """.kind::i8 exists on sm_100a/101a/110a, the plain B collector on sm_107a/f: no target
    has both, so no form spells them together (ptxas 13.5 rejects the pair on sm_107a, "Feature
    '.kind::i8' not supported", and on sm_110a, "Illegal modifier"), whatever the target asked
    for. Joined, their needs once fell back to .kind::i8's targets and sm_110a took the pair."""
    sm, suffix = parse_arch(target) if target else (None, "")
    context = RuleContext(arch=sm, arch_suffix=suffix,
                          options=version_options("13.5", None, "."))
    asm = "tcgen05.mma.cta_group::1.kind::i8.collector::b::fill [%3], %5, %5, %0, p;"
    found = [f for f in lint_text(_kernel(asm), select=("PTX204",), context=context)]
    assert [f.rule for f in found] == ["PTX204"], [f.message for f in found]


def test_the_lookup_table_and_the_b_collector_need_ptx_isa_9_4() -> None:
    # ptxas 13.5 under .version 9.3: "Feature '.decompress::lut::b' requires PTX ISA .version
    # 9.4 or later" (and "Feature 'tcgen05.mma' requires ..." for .collector::b::fill)
    from ptxlint.ptx.instructions import ptx_requirement
    lut = ("mma", "cta_group::1", "kind::f8f6f4", "decompress::lut::b")
    collect = ("mma", "cta_group::2", "kind::f16", "collector::b::use")
    assert ptx_requirement("tcgen05", lut)[0] == 94
    assert ptx_requirement("tcgen05", collect)[0] == 94
    assert ptx_requirement("tcgen05", ("mma", "cta_group::1", "kind::f16"))[0] == 86


def test_an_sm_107_only_form_names_its_targets_not_newer_ones() -> None:
    [message] = _ptx401(_SPCOMPRESS, "sm_100a")
    assert "needs sm_107a (it exists on no other target)" in message, message
    [message] = _ptx401(_ADD_U8X4, "sm_103a")
    assert "sm_107f, sm_120f, sm_121f (it exists on no other target)" in message, message
    [message] = _ptx401(_ALLOC, "sm_107")
    assert "sm_107f (or sm_107a)" in message, message


def test_cuda_arch_1070_guards_judge_the_sm_107_targets() -> None:
    # >= 1070 admits plain sm_107 and the sm_110/sm_120 families, which lack the form
    [message] = _ptx401(_CVT_UE5M3, guard="__CUDA_ARCH__ >= 1070")
    assert "also admit sm_107 (a build for sm_107, not sm_107f)" in message, message
    assert "__CUDA_ARCH_FAMILY_SPECIFIC__ == 1070" in message, message
    assert _ptx401(_CVT_UE5M3, guard="__CUDA_ARCH_FAMILY_SPECIFIC__ == 1070") == []
    assert _ptx401(_SPCOMPRESS, guard="defined(__CUDA_ARCH_FEAT_SM107_ALL)") == []
    # sm_107f is under the family macro too, and lacks the sm_107a form
    [message] = _ptx401(_SPCOMPRESS, guard="__CUDA_ARCH_FAMILY_SPECIFIC__ == 1070")
    assert "sm_107f" in message, message
    # the sm_100 family's form holds on every family-specific target from sm_100 to sm_110
    family = "__CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 && __CUDA_ARCH__ <= 1100"
    assert _ptx401(_ALLOC, guard=family) == []


# ----------------------------------------------------------------------------- ptxas 13.5

_TARGETS = ("sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107", "sm_107a", "sm_107f",
            "sm_110a", "sm_110f", "sm_120a")


def _assembles(ptxas: str, target: str, line: str) -> bool:
    source = (f".version 9.5\n.target {target}\n.address_size 64\n.entry k() {{\n"
              ".reg .b16 %h<16>; .reg .b32 %r<64>; .reg .b64 %rd<16>; .reg .f32 %f<64>;\n"
              ".reg .f64 %fd<16>; .reg .pred %p<8>; .reg .b128 %q<4>; .reg .b8 %c<16>;\n"
              f"{line};\nL1:\nret;\n}}\n")
    return run_cached(ptxas, ["-arch", target, INPUT, "-o", "/dev/null"], source,
                      filename="case.ptx").ok


def _need_up_to_13_5(text: str) -> grammar.Need | None:
    """The grammar's need for ``text`` where it takes it (a form ptxas 13.5 or older takes)."""
    [instruction] = parse_template(text + ";", extended=False).instructions
    verdict = grammar.check(instruction, agreement.resolve)
    errors = [i for i in verdict.issues if i.severity == "error"]
    if verdict.status == "abstain" or any(i.toolkit is None or i.toolkit > (13, 5)
                                         for i in errors):
        return None
    return verdict.need


def _specific_to_sm_10x_or_107(need: grammar.Need) -> bool:
    return bool(need.suffix) and any(100 <= sm < 120 for sm in need.only)


def test_the_grammar_says_what_ptxas_13_5_says_on_sm_107_and_its_family() -> None:
    """One instance of each form whose need is specific to the sm_10x targets or sm_107
    (tcgen05, the sm_100f family's, sm_107's own, the sm_120 family's that sm_107 has too),
    two per distinct need: the grammar's need admits a target exactly where ptxas assembles."""
    ptxas = _found("13.5")
    if ptxas is None:
        pytest.skip("ptxas 13.5 not cached (python benchmarks/toolkits.py 13.5)")
    per_need: dict[grammar.Need, int] = {}
    disagreements, checked = [], 0
    for form in grammar.forms():
        for instance in agreement.instances(form)[:1]:
            text = _distinct(instance.text())
            need = _need_up_to_13_5(text)
            if need is None or not (_specific_to_sm_10x_or_107(need) or 107 in need.only):
                continue
            if per_need.get(need, 0) >= 2:
                continue
            verdicts = {t: _assembles(ptxas, t, text) for t in _TARGETS}
            if not any(verdicts.values()):
                continue  # the generator's operands, not the need, are what ptxas refuses
            per_need[need] = per_need.get(need, 0) + 1
            for target, assembled in verdicts.items():
                sm, suffix = parse_arch(target)
                checked += 1
                if need.admits(sm, suffix) != assembled:
                    disagreements.append(f"{target} {text}: ptxas {assembled}, need {need}")
    assert len(per_need) >= 10 and checked >= 200
    assert not disagreements, "\n".join(disagreements)
