"""A ``call`` of an OptiX intrinsic that reads the running program's state (the OptiX SDK's
own spelling: non-volatile, no clobber) has no effect PTX101 or PTX102 asks for; any other
call, and the OptiX intrinsics that change state or read what the program changes, still do."""

from __future__ import annotations

import pytest

from ptxlint.ptx.call_targets import callee, reads_program_state
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

_SELECT = ("PTX101", "PTX102")


def _cu(asm: str) -> str:
    return f"__device__ unsigned f(unsigned x) {{\n  unsigned u0;\n  {asm}\n  return u0;\n}}\n"


@pytest.mark.parametrize("name", [
    "_optix_get_world_ray_origin_x",
    "_optix_get_launch_index_y",
    "_optix_read_primitive_idx",
    "_optix_undef_value",
    "_optix_get_sbt_data_ptr_64",
    "_optix_call_direct_callable",  # the callable's address: optixDirectCall calls it from C++
])
def test_an_optix_state_read_needs_neither_volatile_nor_a_clobber(name: str) -> None:
    text = _cu(f'asm("call (%0), {name}, ();" : "=r"(u0) : );')
    assert lint_text(text, select=_SELECT) == []


@pytest.mark.parametrize("name", [
    "my_device_function",  # a function ptxlint cannot read
    "_optix_get_payload_0",  # a value the program changes with _optix_set_payload_0
    "_optix_hitobject_get_ray_tmax",  # a hit object _optix_hitobject_trace_* replaces
    "_optix_trace_typed_32",  # launches a ray: runs other programs
])
def test_any_other_call_is_still_judged(name: str) -> None:
    text = _cu(f'asm("call (%0), {name}, (%1);" : "=r"(u0) : "r"(x));')
    assert sorted(f.rule for f in lint_text(text, select=_SELECT)) == ["PTX101", "PTX102"]


def test_the_callee_is_the_name_after_the_return_list() -> None:
    (direct,) = parse_template("call (%0), _optix_get_ray_tmax, ();", True).instructions
    (no_return,) = parse_template("call _optix_get_ray_tmax, ();", True).instructions
    (indirect,) = parse_template("call (%0), %1, (%2), proto;", True).instructions
    (other,) = parse_template("mov.u32 %0, _optix_get_ray_tmax;", True).instructions
    assert callee(direct) == callee(no_return) == "_optix_get_ray_tmax"
    assert callee(indirect) is None and not reads_program_state(indirect)
    assert callee(other) is None and not reads_program_state(other)
