"""``sep.join(NAME)`` reads the list or tuple the name is bound to once (a module constant or a
local), as ``sep.join([...])`` reads a list written in the call; a list the module uses
otherwise (a method called on the name, an item assigned, a call it is passed to) stays
unknown: PTX902's note, no guess."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

HEAD = "import triton\nimport triton.language as tl\n\n"
BODY = ('\n\n@triton.jit\ndef k(x):\n{local}    return tl.inline_asm_elementwise('
        '"\\n".join(LINES), "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)\n')
TYPO = '"mov.b32 $0, $1;", "add.f33 $0, $0, $1;"'

READ = {
    "module-list": (f"LINES = [{TYPO}]", ""),
    "module-tuple": (f"LINES = ({TYPO})", ""),
    "local-list": ("", f"    LINES = [{TYPO}]\n"),
}
UNKNOWN = {
    "appended": ('LINES = ["mov.b32 $0, $1;"]\nLINES.append("add.f33 $0, $0, $1;")', ""),
    "item-assigned": ('LINES = ["mov.b32 $0, $1;", "nop;"]\nLINES[1] = "add.f33 $0, $0, $1;"',
                      ""),
    "extended-in-function": (f"LINES = [{TYPO}]", '    LINES.extend(["nop;"])\n'),
    # filled by a call: the list it is passed to is the same object
    "passed-to-a-call": ("LINES = []\nfill(LINES)", ""),
}


@pytest.mark.parametrize("name", sorted(READ))
def test_a_bound_sequence_is_read(name: str) -> None:
    module, local = READ[name]
    found = lint_text(HEAD + module + BODY.format(local=local), path="k.py")
    assert [f.rule for f in found] == ["PTX204"]
    assert "'.f33'" in found[0].message


@pytest.mark.parametrize("name", sorted(UNKNOWN))
def test_a_changed_list_is_not_known(name: str) -> None:
    module, local = UNKNOWN[name]
    found = lint_text(HEAD + module + BODY.format(local=local), path="k.py")
    assert [f.rule for f in found] == ["PTX902"]
