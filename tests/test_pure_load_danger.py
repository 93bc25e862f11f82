"""PTX505 ranks a pure asm by danger: a weak load of what may be read-only input is a warning;
an ordered load, a shared-memory load, and a load in a loop or after a barrier are errors, and
the message says which case it is."""

from __future__ import annotations

import pytest

from ptxlint.model import Severity
from tests.conftest import lint_text


def _ptx505(body: str) -> list[tuple[Severity, str]]:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def kernel(X, F):\n" + body
    )
    return [(f.severity, f.message) for f in lint_text(text, path="k.py", select=("PTX505",))]


def _load(template: str, pure: str = "True") -> str:
    return (f'tl.inline_asm_elementwise("{template}", "=r,l", [X], dtype=tl.int32, '
            f"is_pure={pure}, pack=1)")


def test_weak_load_of_input_is_a_warning_that_says_read_only_input_is_harmless() -> None:
    [(severity, message)] = _ptx505(f"    v = {_load('ld.global.b32 $0, [$1];')}\n")
    assert severity is Severity.WARNING
    assert "read-only input" in message


@pytest.mark.parametrize("template, says", [
    ("ld.acquire.gpu.global.b32 $0, [$1];", "infinite loop"),
    ("ld.relaxed.sys.global.b32 $0, [$1];", "ordered load"),
    ("ld.volatile.global.b32 $0, [$1];", "ordered load"),
    ("ld.shared.b32 $0, [$1];", "shared memory"),
    ("ld.shared::cta.b32 $0, [$1];", "shared memory"),
])
def test_loads_that_see_other_threads_writes_are_errors(template: str, says: str) -> None:
    [(severity, message)] = _ptx505(f"    v = {_load(template)}\n")
    assert severity is Severity.ERROR
    assert says in message


def test_weak_load_in_a_loop_is_an_error_naming_the_loop() -> None:
    body = (
        "    v = 0\n"
        "    while v == 0:\n"
        f"        v = {_load('ld.global.b32 $0, [$1];')}\n"
    )
    [(severity, message)] = _ptx505(body)
    assert severity is Severity.ERROR and "inside a loop" in message


def test_weak_load_after_a_barrier_is_an_error_naming_the_barrier() -> None:
    body = (
        "    tl.debug_barrier()\n"
        f"    v = {_load('ld.global.b32 $0, [$1];')}\n"
    )
    [(severity, message)] = _ptx505(body)
    assert severity is Severity.ERROR and "after a barrier" in message


def test_barrier_after_the_load_or_a_loop_in_another_function_does_not_count() -> None:
    body = (
        f"    v = {_load('ld.global.b32 $0, [$1];')}\n"
        "    tl.debug_barrier()\n"
        "    return v\n\n\n"
        "def other():\n"
        "    for i in range(3):\n"
        "        pass\n"
    )
    [(severity, _)] = _ptx505(body)
    assert severity is Severity.WARNING


def test_a_write_stays_an_error_and_read_only_loads_stay_silent() -> None:
    [(severity, _)] = _ptx505(
        '    tl.inline_asm_elementwise("st.global.b32 [$1], $2;", "=r,l,r", [X, X], '
        "dtype=tl.int32, is_pure=True, pack=1)\n"
    )
    assert severity is Severity.ERROR
    assert _ptx505(f"    v = {_load('ld.global.nc.b32 $0, [$1];')}\n") == []
    assert _ptx505(f"    v = {_load('ld.acquire.gpu.global.b32 $0, [$1];', 'False')}\n") == []
