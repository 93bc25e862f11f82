"""PTX103 on LLVM-syntax asm: an output written only under a guard that the call itself
returns is documented as meaningless on the other path, and the measured Triton behaviour is
named only for Triton's family."""

from __future__ import annotations

from conftest import lint_text

_QUERY = (
    "from cutlass._mlir.dialects import llvm\n"
    "\n"
    "\n"
    "def query(ptr, struct_ty):\n"
    "    return llvm.inline_asm(\n"
    "        struct_ty,\n"
    "        [ptr],\n"
    "        '{ .reg .b128 h; {pred_decl}ld.shared.b128 h, [${addr}]; '\n"
    "        'clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 {guard}, h; '\n"
    "        '@{guard} clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 '\n"
    "        '{{$0, $1, $2, _}}, h; }',\n"
    "        '{constraints}',\n"
    "        has_side_effects=True,\n"
    "    )\n"
)


def _query(guard_is_output: bool) -> str:
    if guard_is_output:  # "=b" output $3 is the guard: the caller reads which path ran
        fields = {"pred_decl": "", "addr": "4", "guard": "$3", "constraints": "=r,=r,=r,=b,r"}
    else:  # the guard stays inside the template
        fields = {"pred_decl": ".reg .pred p; ", "addr": "3", "guard": "p",
                  "constraints": "=r,=r,=r,r"}
    text = _QUERY
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    return text.replace("{{", "{").replace("}}", "}")


def test_guard_returned_as_an_output_is_silent() -> None:
    assert lint_text(_query(True), path="q.py", select=("PTX103",)) == []


def test_guard_kept_inside_the_template_still_flags() -> None:
    found = lint_text(_query(False), path="q.py", select=("PTX103",))
    assert [f.rule for f in found] == ["PTX103"]
    # CuTe DSL / MLIR: no claim about what Triton leaves in the register
    assert "Triton" not in found[0].message


def test_triton_message_names_what_triton_leaves() -> None:
    text = (
        "import triton.language as tl\n"
        "\n"
        "\n"
        "def kernel(x):\n"
        "    return tl.inline_asm_elementwise(\n"
        "        '{ .reg .pred p; setp.gt.f32 p, $1, 0f00000000; @p mov.b32 $0, $1; }',\n"
        "        '=r,r', [x], dtype=tl.float32, is_pure=True, pack=1)\n"
    )
    found = lint_text(text, path="k.py", select=("PTX103",))
    assert [f.rule for f in found] == ["PTX103"]
    assert "Triton 3.6.0" in found[0].message


def _masked_load(body: str, constraints: str) -> str:
    return (
        "import triton.language as tl\n"
        "\n"
        "\n"
        "def load_pair(addrs, mask):\n"
        "    return tl.inline_asm_elementwise(\n"
        f"        '{body}',\n"
        f"        '{constraints}', args=[addrs, mask], dtype=(tl.uint64, tl.uint64),\n"
        "        is_pure=False, pack=1)\n"
    )


def test_a_guard_set_from_a_mask_the_caller_passes_is_silent() -> None:
    predicated = _masked_load(
        "{ .reg .pred p; setp.eq.s32 p, $3, 1; @p ld.global.v2.u64 {$0, $1}, [$2]; }",
        "=l,=l,l,r")
    branched = _masked_load(
        "{ .reg .pred p; setp.ne.s32 p, $3, 1; @p bra skip; "
        "ld.global.v2.u64 {$0, $1}, [$2]; skip: }",
        "=l,=l,l,r")
    assert lint_text(predicated, path="k.py", select=("PTX103",)) == []
    assert lint_text(branched, path="k.py", select=("PTX103",)) == []


def test_a_guard_the_caller_cannot_know_still_flags() -> None:
    # the condition is read from memory inside the template
    loaded = _masked_load(
        "{ .reg .pred p; .reg .b32 f; ld.global.u32 f, [$2]; setp.ne.u32 p, f, 0; "
        "@p ld.global.v2.u64 {$0, $1}, [$2]; }",
        "=l,=l,l,r")
    # the tested input is also what the template loads from: not a mask the caller holds
    data = _masked_load(
        "{ .reg .pred p; setp.ne.s64 p, $2, 0; @p ld.global.v2.u64 {$0, $1}, [$2]; }",
        "=l,=l,l,r")
    for text in (loaded, data):
        found = lint_text(text, path="k.py", select=("PTX103",))
        assert [f.rule for f in found] == ["PTX103"]
