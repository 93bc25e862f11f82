"""Which ptxas messages confirm a PTX204 finding: the messages ptxas 13.0 gives for a modifier
combination it rejects agree with the finding's claim; its target messages are PTX401's."""

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
])
def test_a_rejected_modifier_combination_confirms_ptx204(message: str) -> None:
    assert _AGREES is not None and _AGREES.search(message)


@pytest.mark.parametrize("message", [
    "Feature '.bf16' requires .target sm_80 or higher",
    "Modifier '.multicast::cluster' requires .target sm_90 or higher",
    "Instruction 'mma' requires .target sm_80 or higher",
    "Modifier '.relu' on 'cvt' requires PTX ISA .version 7.0 or later",
])
def test_a_target_or_version_message_is_not_ptx204s(message: str) -> None:
    assert _AGREES is not None and not _AGREES.search(message)
