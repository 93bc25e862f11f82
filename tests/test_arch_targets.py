"""--arch and the `arch` key take only the targets the instruction tables know."""

from __future__ import annotations

import pytest

from ptxlint import cli
from ptxlint.config import ConfigError, load_config, parse_arch
from ptxlint.ptx.targets import TARGETS


@pytest.mark.parametrize("text", ["sm_999", "sm_91", "compute_999", "sm_85", "sm_102f"])
def test_an_arch_the_tables_do_not_know_is_refused_with_the_known_list(text: str) -> None:
    with pytest.raises(ValueError, match="unknown arch") as caught:
        parse_arch(text)
    for target in TARGETS:
        assert str(target) in str(caught.value)


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_every_known_target_is_accepted_in_every_spelling(target) -> None:
    expected = (target.sm, target.suffix)
    assert parse_arch(str(target)) == expected
    assert parse_arch(str(target).upper()) == expected
    assert parse_arch(f"compute_{target.sm}{target.suffix}") == expected
    assert parse_arch(f"{target.sm}{target.suffix}") == expected


def test_unknown_arch_on_the_command_line_exits_2_naming_the_targets(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text('__global__ void k() { asm volatile("membar.gl;"); }\n')
    code = cli.main(["check", "--isolated", "--arch", "sm_999", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "sm_999" in err and "sm_90a" in err and "sm_121f" in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_arch_in_a_configuration_file_is_an_error(tmp_path) -> None:
    config = tmp_path / "ptxlint.toml"
    config.write_text('arch = "sm_999"\n')
    with pytest.raises(ConfigError, match="unknown arch 'sm_999'.*sm_90a"):
        load_config(str(config))


@pytest.mark.parametrize(
    "guard",
    [
        "__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_FP8_TYPES_EXIST__)",
        "!defined(__CUDACC_RTC__)",
        "__CUDA_ARCH__ >= 900",
        "defined(__CUDA_ARCH_FEAT_SM90_ALL) || __CUDA_ARCH_SPECIFIC__ == 1000",
        "__CUDA_ARCH_HAS_FEATURE__(SM100_ALL) && __CUDACC_VER_MINOR__ > 8",
    ],
)
def test_a_guards_value_for_each_target_is_its_evaluation_there(guard: str) -> None:
    """The guard values kept per target (a guard naming no architecture define is evaluated
    once for all targets) are what evaluating it under each target's defines gives."""
    from ptxlint.ptx import targets

    for toolkit in (targets._NO_TOOLKIT, 0, len(targets._TOOLKIT_SAMPLE) - 1):
        for target in TARGETS:
            defines = dict(targets._defines(target))
            if toolkit != targets._NO_TOOLKIT:
                defines.update(targets._TOOLKIT_SAMPLE[toolkit])
            assert targets._value(guard, target, toolkit) == targets._evaluate(guard, defines)
