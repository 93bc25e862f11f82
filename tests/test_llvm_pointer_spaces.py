"""A Python DSL's operand of type ``!llvm.ptr<N>`` holds an address of NVPTX's space N (1
global, 3 shared, 5 local; 0 generic), not a generic pointer: a ``ptr<3>`` is a shared-window
address, right for a ``.shared`` access and wrong for a generic one (jax 27a568a3de2f gave
``mbarrier.complete_tx.b64``, whose state space defaults to generic, a ``ptr<3>``), as
PTX301 reads ``__cvta_generic_to_shared``'s result in C++."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

CALL = '''from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import llvm
def f(x, nbytes):
    ptr = llvm.inttoptr(ir.Type.parse("!llvm.ptr{space}"), x)
    llvm.inline_asm(ir.Type.parse("!llvm.void"), [ptr, nbytes],
                    "mbarrier.complete_tx{state}.b64 [$0], $1;", "l,r", has_side_effects=True)
'''


def _found(space: str, state: str) -> list[tuple[str, str]]:
    text = CALL.format(space=space, state=state)
    return [(f.severity.value, f.message) for f in lint_text(text, "k.py", select=("PTX301",))]


def test_a_shared_window_pointer_to_a_generic_access_is_an_offset_where_an_address_goes() -> None:
    [(severity, message)] = _found("<3>", "")
    assert severity == "error" and "is a shared-memory offset" in message


@pytest.mark.parametrize("state", [".shared", ".shared::cta"])
def test_a_shared_window_pointer_to_a_shared_access_is_right(state: str) -> None:
    assert _found("<3>", state) == []


def test_a_generic_pointer_to_a_shared_access_stays_a_generic_pointer() -> None:
    [(_, message)] = _found("", ".shared::cta")
    assert "is a generic pointer" in message
    assert _found("", "") == []
    assert _found("<1>", ".shared::cta") == []  # another space's: not a generic pointer either
