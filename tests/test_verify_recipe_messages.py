"""Which ptxas messages confirm a finding: the messages ptxas 13.0 gives for a modifier
combination it rejects agree with PTX204's claim (its target messages are PTX401's), and those
for a vector of the wrong shape with PTX207's."""

from __future__ import annotations

import pytest

from ptxlint.verify.recipes import RECIPES

_AGREES = RECIPES["PTX204"].agrees


@pytest.mark.parametrize("message", [
    # atom.shared.and.u32 (ginkgo's generated memory header)
    "Operation .and requires .b32 or .b64 type for instruction 'atom'",
    # mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f32 (wmma_extension's m8n8k4 header)
    ".dtype must be '.f32' when .ctype is '.f32' for 'mma' instruction with shape '.m8n8k4'",
    "Instruction 'vote' requires .u32 or .u64 type",
    "Instruction 'cvt' requires '.f32' type with '.relu' modifier.",
    "Unknown modifier '.multicast_cluster'",
    # st.global.sys.b32 and ld.global.sys.b32, a scope without a memory order (flash7777/
    # vllm-marlin-sm12x's bench_sys_scope_data.cu)
    "Modifier '.sys' requires memory order with 'st' instruction",
    "Modifier '.nc' requires .global space",
])
def test_a_rejected_modifier_combination_confirms_ptx204(message: str) -> None:
    assert _AGREES is not None and _AGREES.search(message)


@pytest.mark.parametrize("message", [
    "Feature '.bf16' requires .target sm_80 or higher",
    "Modifier '.multicast::cluster' requires .target sm_90 or higher",
    "Instruction 'mma' requires .target sm_80 or higher",
    "Modifier '.relu' on 'cvt' requires PTX ISA .version 7.0 or later",
    "Modifier '.sys' requires PTX ISA .version 6.0 or later",
    # tcgen05.ld.sync.aligned.16x256b.x1 without '.b32' for sm_90: ptxas gives this first, then
    # "Unexpected instruction types specified for 'tcgen05.ld'", the message that is PTX204's
    "Feature '.16x256b' not supported on .target 'sm_90'",
    "Instruction 'tcgen05.ld' not supported on .target 'sm_90'",
    "Instruction 'shfl' without '.sync' is not supported on .target sm_70 and higher from PTX ISA "
    "version 6.4",
])
def test_a_target_or_version_message_is_not_ptx204s(message: str) -> None:
    assert _AGREES is not None and not _AGREES.search(message)


@pytest.mark.parametrize("message", [
    # ld.shared.b64 {%0, %1, %2, %3}, [%4] (aerial's ldpc2.cuh): a vector the form has no room for
    "Argument vector size mismatch for instruction 'ld'",
    "Vector of size 1 is expected for argument 0 of instruction 'ldmatrix'",
    # tex.grad.3d.v4.f32.f32 ..., {%13, %14, %15, 16} (LuisaCompute's cuda_device_resource.h)
    "Vector with elements of different types are not allowed in tex.grad instruction",
])
def test_a_vector_shape_message_confirms_ptx207(message: str) -> None:
    agrees = RECIPES["PTX207"].agrees
    assert agrees is not None and agrees.search(message)


def test_an_unnamed_read_write_output_is_not_called_an_input(tmp_path):
    # jIab-b/nvfp4_gemv-kernel's kernel_thing/examples/4.py: '+r' outputs %0 and %1 the
    # template never names were 'an input the template never names'
    from ptxlint.cli import _configure, build_parser, run
    from ptxlint.verify.recipes import NONE, recipe_for

    path = tmp_path / "k.cu"
    path.write_text('__device__ unsigned f(unsigned x) {\n  unsigned r = x, s;\n'
                    '  asm("mov.u32 %1, %2;" : "+r"(r), "=r"(s) : "r"(x));\n'
                    '  return r + s;\n}\n')
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX009"])
    [found] = [f for f in run(args.paths, *_configure(args)).findings if f.rule == "PTX009"]
    recipe = recipe_for("PTX009", found)
    assert recipe.probes == (NONE,)
    assert "an input the template" not in recipe.why_none
    assert "'+' output" in recipe.why_none
