"""Asm strings built by a helper function of the same module (followed one call deep), f-strings
with unknown fields (their literal text linted around holes), and the note for a template that
is not knowable at all (PTX902)."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import HOLE, AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

HEADER = "import triton\nimport triton.language as tl\n\n"
CALL = "    tl.inline_asm_elementwise({}, '=r,r', [x], dtype=tl.int32, is_pure=True, pack=1)\n"


def statement(text: str) -> AsmStatement:
    (s,) = extract_python(SourceFile("k.py", text), parse_template).statements
    return s


def spelled(s: AsmStatement, start: int, end: int) -> str:
    span = s.template.source_span(start, end)
    return s.source.text[span.start : span.end]


LOOP_HELPER = (
    "N = 2\n"
    "def _asm(n, op='neg'):\n"
    "    lines = []\n"
    "    for i in range(n):\n"
    "        lines.append(f'{op}.s32 ${i}, ${i + n};')\n"
    "    return '\\n'.join(lines)\n"
)


def test_helper_with_literal_arguments_is_evaluated_with_a_source_map() -> None:
    s = statement(HEADER + LOOP_HELPER + "def k(x):\n" + CALL.format("_asm(N)"))
    assert s.template.text == "neg.s32 $0, $2;\nneg.s32 $1, $3;"
    assert not s.template.has_holes
    at = s.template.text.index("$3")
    assert spelled(s, at, at + 1) == "$"  # the helper's literal
    assert spelled(s, at + 1, at + 2) == "i + n"  # the expression that computed the 3
    assert s.template.source_span(0, 3).start == s.source.text.index("'neg'") + 1  # the default


def test_keyword_argument_of_the_call_reaches_the_helper() -> None:
    s = statement(HEADER + LOOP_HELPER + "def k(x):\n" + CALL.format("_asm(1, op='abs')"))
    assert s.template.text == "abs.s32 $0, $1;"


def test_unknown_argument_leaves_holes_around_the_literal_text() -> None:
    s = statement(HEADER + LOOP_HELPER + "def k(x, m):\n" + CALL.format("_asm(m)"))
    assert s.template.has_holes
    assert "neg.s32 $" in s.template.text  # one iteration read, between holes
    assert s.template.text.startswith(HOLE) and s.template.text.endswith(HOLE)


def test_helpers_are_followed_one_call_deep_only() -> None:
    text = HEADER + (
        "def _inner(n):\n    return f'neg.s32 $0, ${n};'\n"
        "def _outer():\n    return _inner(1)\n"
        "def k(x):\n" + CALL.format("_outer()")
    )
    assert statement(text).template.text == HOLE


def test_unknown_forms_make_the_call_a_hole() -> None:
    text = HEADER + (
        "def _asm(n):\n    s = ''\n    while n:\n        s += 'nop;'\n        n -= 1\n"
        "    return s\n"
        "def k(x):\n" + CALL.format("_asm(2)")
    )
    assert statement(text).template.text == HOLE


def test_helper_built_defects_are_found_in_the_helper() -> None:
    text = HEADER + (
        "def _asm(n):\n"
        "    return '\\n'.join([f'cvt.rn.f16x2.f23 ${i}, ${i + n};' for i in range(n)])\n"
        "def k(x):\n" + CALL.format("_asm(1)")
    )
    findings = [f for f in lint_text(text, "k.py") if f.rule == "PTX204"]
    assert len(findings) == 1
    assert text[findings[0].span.start : findings[0].span.end] == ".f23"


def test_fstring_literal_text_is_linted_around_unknown_fields() -> None:
    text = HEADER + "def k(x, y):\n" + CALL.format("f'add.u32 $0, $3, {y};'")
    assert [f.rule for f in lint_text(text, "k.py") if f.rule == "PTX001"] == ["PTX001"]


def test_a_wholly_opaque_template_gets_a_note_and_a_partial_one_does_not() -> None:
    opaque = HEADER + "from lib import make\ndef k(x):\n" + CALL.format("make(4)")
    partial = HEADER + "def k(x, y):\n" + CALL.format("f'neg.{y} $0, $1;'")
    notes = [f for f in lint_text(opaque, "k.py") if f.rule == "PTX902"]
    assert len(notes) == 1 and "make(...)" in notes[0].message
    assert not [f for f in lint_text(partial, "k.py") if f.rule == "PTX902"]


def test_a_misspelt_mnemonic_is_found_when_only_its_operands_are_holes() -> None:
    known = HEADER + "def k(x, y):\n" + CALL.format("f'mul.lo.u23 $0, $1, {y};'")
    unknown = HEADER + "def k(x, y):\n" + CALL.format("f'mul.lo.{y} $0, $1, 3;'")
    found = [f for f in lint_text(known, "k.py") if f.rule == "PTX204"]
    assert len(found) == 1 and known[found[0].span.start : found[0].span.end] == ".u23"
    assert not [f for f in lint_text(unknown, "k.py") if f.rule == "PTX204"]


def test_a_platform_choice_is_read_for_the_cuda_build() -> None:
    text = HEADER + "import torch\ndef k(x):\n" + CALL.format(
        "'v_mov_b32 $0, $1' if torch.version.hip else 'mov.b32 $0, $1;'"
    )
    assert statement(text).template.text == "mov.b32 $0, $1;"
    # a runtime choice is one reading per side, as the branches of an `if` statement
    other = HEADER + "def k(x, fast):\n" + CALL.format("'neg.s32 $0, $1;' if fast else 'abs.s32 $0, $1;'")
    found = extract_python(SourceFile("k.py", other), parse_template).statements
    assert [(s.template.text, s.context.branch) for s in found] == [
        ("neg.s32 $0, $1;", ("if fast",)), ("abs.s32 $0, $1;", ("if not (fast)",))]


def test_a_template_bound_on_if_branches_is_read_once_per_branch() -> None:
    text = (
        "from cutlass._mlir.dialects import llvm\n"
        "def clz(value, wide):\n"
        "    if wide:\n"
        "        asm, cons = 'clz.b64 $0, $1;', '=r,l'\n"
        "        asm = 'clz.b64 $0, $1;'\n"
        "        cons = '=r,l'\n"
        "    elif value:\n"
        "        asm = 'clz.b23 $0, $1;'\n"
        "        cons = '=r,r'\n"
        "    else:\n"
        "        raise TypeError(value)\n"
        "    return llvm.inline_asm(None, [value], asm, cons)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [s.template.text for s in found] == ["clz.b64 $0, $1;", "clz.b23 $0, $1;"]
    assert [s.llvm.constraints.text for s in found if s.llvm and s.llvm.constraints] == [
        "=r,l", "=r,r"]
    assert [s.context.branch for s in found] == [("if wide",), ("elif value",)]
    typo = [f for f in lint_text(text, "k.py") if f.rule == "PTX204"]
    assert len(typo) == 1 and typo[0].branch == ("elif value",)


def test_a_helper_with_positional_only_and_keyword_only_parameters_is_bound() -> None:
    helper = "def _asm(n, /, *, op='neg'):\n    return f'{op}.s32 $0, ${n};'\n"
    s = statement(HEADER + helper + "def k(x):\n" + CALL.format("_asm(1, op='abs')"))
    assert s.template.text == "abs.s32 $0, $1;"
    s = statement(HEADER + helper + "def k(x):\n" + CALL.format("_asm(1)"))
    assert s.template.text == "neg.s32 $0, $1;"
    # Python rejects these calls (``n`` by keyword, ``op`` by position): no value is read
    for call in ("_asm(n=1)", "_asm(1, 'abs')", "_asm(1, opp='abs')"):
        text = HEADER + helper + "def k(x):\n" + CALL.format(call)
        assert statement(text).template.text == HOLE


def test_each_side_of_a_runtime_choice_is_judged_and_named() -> None:
    clean = HEADER + "def k(x, wide):\n" + CALL.format(
        "'abs.s32 $0, $1;' if wide else 'neg.s32 $0, $1;'")
    assert [f for f in lint_text(clean, "k.py") if f.severity != "info"] == []
    typo = HEADER + "def k(x, wide):\n" + CALL.format(
        "'abs.s32 $0, $1;' if wide else 'neg.s33 $0, $1;'")
    (found,) = [f for f in lint_text(typo, "k.py") if f.severity != "info"]
    assert found.rule == "PTX204" and typo[found.span.start : found.span.end] == ".s33"
    assert found.branch == ("if not (wide)",)


def test_a_choice_inside_a_side_taken_is_read_once_per_way() -> None:
    # the `else` side is itself a conditional expression: three readings, not one
    text = HEADER + "def k(x, z):\n    pred = 'p' if isinstance(z, bool) else '0' if z else '1'\n" + (
        CALL.format("f'selp.b32 $0, $1, 0, {pred};'"))
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [(s.template.text, s.context.branch) for s in found] == [
        ("selp.b32 $0, $1, 0, p;", ("if isinstance(z, bool)",)),
        ("selp.b32 $0, $1, 0, 0;", ("if not (isinstance(z, bool))", "if z")),
        ("selp.b32 $0, $1, 0, 1;", ("if not (isinstance(z, bool))", "if not (z)")),
    ]
    typo = HEADER + "def k(x, z):\n    t = 'b32' if isinstance(z, bool) else 'u32' if z else 'u33'\n" + (
        CALL.format("f'mov.{t} $0, $1;'"))
    (found_typo,) = [f for f in lint_text(typo, "k.py") if f.rule == "PTX204"]
    assert found_typo.branch == ("if not (isinstance(z, bool))", "if not (z)")


def test_an_if_inside_a_branch_taken_is_read_with_its_outer_branch() -> None:
    text = (
        "from cutlass._mlir.dialects import llvm\n"
        "def bfe(value, narrow, signed):\n"
        "    if narrow:\n"
        "        cons = '=r,r,r,r'\n"
        "        if signed:\n"
        "            asm = 'bfe.s32 $0, $1, $2, $3;'\n"
        "        else:\n"
        "            asm = 'bfe.u32 $0, $1, $2, $3;'\n"
        "    else:\n"
        "        cons = '=l,l,r,r'\n"
        "        if signed:\n"
        "            asm = 'bfe.s64 $0, $1, $2, $3;'\n"
        "        else:\n"
        "            asm = 'bfe.u64 $0, $1, $2, $3;'\n"
        "    return llvm.inline_asm(None, [value], asm, cons)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [(s.template.text.split()[0], s.llvm.constraints.text if s.llvm and s.llvm.constraints
             else None, s.context.branch) for s in found] == [
        ("bfe.s32", "=r,r,r,r", ("if narrow", "if signed")),
        ("bfe.u32", "=r,r,r,r", ("if narrow", "else")),
        ("bfe.s64", "=l,l,r,r", ("else", "if signed")),
        ("bfe.u64", "=l,l,r,r", ("else", "else")),
    ]


def test_conditionals_on_one_name_take_the_same_side() -> None:
    # Python reads `hi` once: {h, h2} or {l, l2}, never {h, l2}
    text = HEADER + "def k(x, hi):\n    lane = 'h' if hi else 'l'\n" + CALL.format(
        "'{.reg .b16 l, h, l2, h2; mov.b32 {l, h}, $1; mov.b32 {l2, h2}, $1; '"
        " f'mov.b32 $0, {{{lane}, {\"h2\" if hi else \"l2\"}}};}}'")
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [s.template.text.rsplit("mov.b32 $0, ", 1)[1] for s in found] == [
        "{h, h2};}", "{l, l2};}"]
    assert [s.context.branch for s in found] == [("if hi",), ("if not (hi)",)]


def test_tied_choices_of_different_tests_stay_open() -> None:
    # `dtype` chosen by one test, the table keyed by it: no reading per combination
    text = HEADER + (
        "def k(x, v):\n    dtype = F32 if isinstance(v, F32) else I32\n"
        "    suffix = {F32: 'f32', I32: 's32'}[dtype]\n"
    ) + CALL.format("f'mov.{suffix} $0, $1;'")
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert found and all(s.template.text == f"mov.{HOLE} $0, $1;" for s in found)
    # the same name in two functions is two variables: a wrapper's `hi` is not its caller's
    two = HEADER + "def pick(hi):\n    return 'h' if hi else 'l'\n" + (
        "def k(x, hi):\n") + CALL.format("f'mov.b32 $0, {pick(hi)}{\"2\" if hi else \"\"};'")
    assert all(HOLE in s.template.text or s.template.text.count("2") <= 1
               for s in extract_python(SourceFile("k.py", two), parse_template).statements)


def test_a_rebound_name_is_tested_afresh() -> None:
    # `hi` changes between the two tests: each keeps its own choice (left open)
    text = HEADER + "def k(x, hi):\n    lane = 'h' if hi else 'l'\n    hi = not hi\n" + CALL.format(
        "f'mov.b32 $0, {{{lane}, {\"h2\" if hi else \"l2\"}}};'")
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [s.template.text for s in found] == [
        f"mov.b32 $0, {{h, {HOLE}}};", f"mov.b32 $0, {{l, {HOLE}}};"]


def test_each_way_of_the_first_choice_is_read_whatever_the_nested_ones_cost() -> None:
    table = "{" + ", ".join(f"{i}: 'b{8 << (i % 4)}'" for i in range(8)) + "}[b]"
    text = HEADER + (
        "def k(x, a, b):\n"
        "    if a == 0:\n"
        f"        t = {table}\n"
        "    elif a == 1:\n"
        f"        t = {table}\n"
        "    else:\n"
        "        t = 'u33'\n"
    ) + CALL.format("f'mov.{t} $0, $1;'")
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert found[-1].template.text == "mov.u33 $0, $1;" and found[-1].context.branch == ("else",)
    assert len(found) == 17


def test_each_side_is_linted_around_the_fields_it_leaves_unknown() -> None:
    # `kind` is the caller's: each side is PTX text around a hole, linted as such, where the
    # call was a hole altogether (PTX902) and nothing of either side was read
    text = HEADER + "def k(x, kind, unscale):\n    body = (\n" + (
        "        '{.reg .b32 c, u; mov.b32 c, 0x5C005C00; mul.rn.f16x3 u, $1, c; '\n"
        "        f'cvt.rn.satfinite.{kind}x2.f16x2 $0, u;}}'\n"
        "        if unscale\n"
        "        else f'cvt.rn.satfinite.{kind}x2.f16x2 $0, $1;'\n    )\n"
    ) + CALL.format("body")
    found = extract_python(SourceFile("k.py", text), parse_template).statements
    assert [s.context.branch for s in found] == [("if unscale",), ("if not (unscale)",)]
    assert all(HOLE in s.template.text for s in found)
    findings = [f for f in lint_text(text, "k.py") if f.severity != "info"]
    assert [(f.rule, f.branch) for f in findings] == [("PTX204", ("if unscale",))]
    assert not [f for f in lint_text(text, "k.py") if f.rule == "PTX902"]


FORMAT_HELPER = (
    "def _softplus(n):\n"
    "    template = '''\n"
    "        .reg .pred p;\n"
    "        setp.gt.f32 p, ${in_reg}, 20.;\n"
    "        selp.f32 ${out_reg}, ${in_reg}, 0f00000000, p;\n"
    "    '''\n"
    "    out = ''\n"
    "    for i in range(n):\n"
    "        out += '{' + template.format(out_reg=i, in_reg=i + n) + '}\\n'\n"
    "    return ' '.join(out.split('\\n'))\n"
)


def test_str_format_and_split_are_followed_with_their_source_map() -> None:
    # flash-linear-attention's softplus helper (after stickbreaking-attention) builds its
    # template so: '{name}' fields filled by keyword, then the lines joined by spaces
    s = statement(HEADER + FORMAT_HELPER + "def k(x):\n" + CALL.format("_softplus(1)"))
    assert not s.template.has_holes
    assert " ".join(s.template.text.split()) == (
        "{ .reg .pred p; setp.gt.f32 p, $1, 20.; selp.f32 $0, $1, 0f00000000, p; }")
    at = s.template.text.index("$1")
    assert spelled(s, at + 1, at + 2) == "i + n"  # the argument that filled {in_reg}
    assert spelled(s, at, at + 1) == "$"  # the template's literal


def test_a_defect_in_a_formatted_template_is_found_and_its_fix_not_repeated() -> None:
    helper = FORMAT_HELPER.replace("'{' + ", "").replace(" + '}\\n'", " + '\\n'")
    found = lint_text(HEADER + helper + "def k(x):\n" + CALL.format("_softplus(1)"), "k.py")
    assert [f.rule for f in found] == ["PTX201"], found
    # the template begins with the join's separator, which the helper places once per line:
    # braces there would be repeated with it, so no fix is offered
    assert found[0].fix is None
    # a format field with a spec is a form not followed: the call is a hole, not a guess
    spec = FORMAT_HELPER.replace("${in_reg}, 20.", "${in_reg:>2}, 20.")
    assert [f.rule for f in lint_text(HEADER + spec + "def k(x):\n"
                                      + CALL.format("_softplus(1)"), "k.py")] == ["PTX902"]


def test_format_fields_are_numbered_as_python_numbers_them() -> None:
    def template(body: str) -> str:
        helper = f"def _h(n):\n    return {body}\n"
        return statement(HEADER + helper + "def k(x):\n" + CALL.format("_h(1)")).template.text

    assert template("'add.s32 ${}, ${}, 1;'.format(0, n)") == "add.s32 $0, $1, 1;"
    assert template("'add.s32 ${1}, ${0}; // {{}}'.format(n, 0)") == "add.s32 $0, $1; // {}"
    # Python refuses to mix '{}' with '{1}' (ValueError), and a missing name is a KeyError
    assert template("'add.s32 ${}, ${1}, 1;'.format(0, n)") == HOLE
    assert template("'add.s32 ${a}, ${b}, 1;'.format(a=0)") == HOLE
