"""A ``call`` of an OptiX intrinsic that reads the running program's state (the OptiX SDK's
own spelling: non-volatile, no clobber) has no effect PTX101 or PTX102 asks for; one that reads
or writes the ray's payload needs volatile but no clobber; any other call, and the OptiX
intrinsics that run other programs, still need both."""

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
    "_optix_hitobject_get_ray_tmax",  # a hit object _optix_hitobject_trace_* replaces
    "_optix_trace_typed_32",  # launches a ray: runs other programs
    "_optix_report_intersection_0",  # runs the any-hit program, which may read memory
    "_optix_get_payload_types",  # not a payload intrinsic's name
])
def test_any_other_call_is_still_judged(name: str) -> None:
    text = _cu(f'asm("call (%0), {name}, (%1);" : "=r"(u0) : "r"(x));')
    assert sorted(f.rule for f in lint_text(text, select=_SELECT)) == ["PTX101", "PTX102"]


@pytest.mark.parametrize("asm", [
    'asm("call (%0), _optix_get_payload, (%1);" : "=r"(u0) : "r"(x));',
    'asm("call (%0), _optix_get_payload_3, ();" : "=r"(u0) :);',
    'asm("call _optix_set_payload, (%0, %1);" : : "r"(0), "r"(x) :); u0 = 0;',
    'asm("call _optix_set_payload_0, (%0);" : : "r"(x)); u0 = 0;',
    'asm("call _optix_set_payload_types, (%0);" : : "r"(x)); u0 = 0;',
])
def test_an_optix_payload_intrinsic_needs_volatile_but_no_memory_clobber(asm: str) -> None:
    # The payload is values in registers (copy-in, copy-out around optixTrace): a get must stay
    # after the set it reads, which volatile gives; no memory is read or written.
    with_outputs = "=r" in asm.split(":")[1]
    found = sorted(f.rule for f in lint_text(_cu(asm), select=_SELECT))
    assert found == (["PTX101"] if with_outputs else [])
    assert lint_text(_cu(asm.replace("asm(", "asm volatile(")), select=_SELECT) == []


def test_the_callee_is_the_name_after_the_return_list() -> None:
    (direct,) = parse_template("call (%0), _optix_get_ray_tmax, ();", True).instructions
    (no_return,) = parse_template("call _optix_get_ray_tmax, ();", True).instructions
    (indirect,) = parse_template("call (%0), %1, (%2), proto;", True).instructions
    (other,) = parse_template("mov.u32 %0, _optix_get_ray_tmax;", True).instructions
    assert callee(direct) == callee(no_return) == "_optix_get_ray_tmax"
    assert callee(indirect) is None and not reads_program_state(indirect)
    assert callee(other) is None and not reads_program_state(other)
