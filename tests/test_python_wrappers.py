"""A same-module wrapper that passes its own parameter on as the asm template: each use of it
in the module is read as one statement, with the arguments that use gives."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import HOLE, AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

CUTE = "from cutlass._mlir.dialects import llvm\nfrom cutlass.cutlass_dsl import T\n\n"
WRAPPER = (
    "def _asm(res_type, ptx, constraints, args):\n"
    "    return llvm.inline_asm(res_type, args, ptx, constraints, has_side_effects=False)\n"
)


def statements(text: str) -> list[AsmStatement]:
    return extract_python(SourceFile("k.py", text), parse_template).statements


def test_each_use_is_a_statement_at_the_use_with_its_arguments() -> None:
    text = CUTE + WRAPPER + (
        "def k(a, b):\n"
        "    x = _asm(T.i32(), 'add.u32 $0, $1, $2;', '=r,r,r', [a, b])\n"
        "    return _asm(T.f32(), 'rcp.approx.ftz.f32 $0, $1;', '=f,f', [x])\n"
    )
    found = statements(text)
    assert [s.template.text for s in found] == ["add.u32 $0, $1, $2;", "rcp.approx.ftz.f32 $0, $1;"]
    first = found[0]
    assert text[first.span.start : first.span.end].startswith("_asm(T.i32()")
    at = first.template.text.index("$2")
    span = first.template.source_span(at, at + 2)
    assert text[span.start : span.end] == "$2" and span.start > text.index("def k")
    assert first.llvm is not None and first.llvm.constraints is not None
    assert first.llvm.constraints.text == "=r,r,r"
    assert first.llvm.side_effects is False  # the wrapper's own keyword
    assert [o.expression for o in first.operands] == ["", "a", "b"]
    assert first.context.function == "k"


def test_a_defect_is_reported_at_the_use_that_passes_it() -> None:
    text = CUTE + WRAPPER + (
        "def k(a):\n"
        "    x = _asm(T.i32(), 'shl.b32 $0, $1, 3;', '=r,r', [a])\n"
        "    return _asm(T.i32(), 'mov.u32 $0, %clock;', '=r', [])\n"
    )
    found = [f for f in lint_text(text, "k.py") if f.severity != "info"]
    assert [f.rule for f in found] == ["PTX505"]
    assert text[found[0].span.start : found[0].span.end] == "%clock"


def test_keyword_only_parameters_and_defaults_are_bound() -> None:
    text = CUTE + (
        "def asm_i32(operands, asm='neg.s32 $0, $1;', constraints='=r,r', *, loc=None):\n"
        "    return llvm.inline_asm(T.i32(), operands, asm, constraints, loc=loc)\n"
        "def k(a, loc):\n"
        "    x = asm_i32([a], loc=loc)\n"
        "    return asm_i32([a, x], 'add.u32 $0, $1, $2;', constraints='=r,r,r')\n"
    )
    assert [s.template.text for s in statements(text)] == [
        "neg.s32 $0, $1;", "add.u32 $0, $1, $2;"]


def test_a_triton_wrapper_is_followed_too() -> None:
    text = (
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\n"
        "def _unary(x, asm: tl.constexpr):\n"
        "    return tl.inline_asm_elementwise(asm, '=r,r', [x], dtype=tl.float32, is_pure=True,"
        " pack=1)\n"
        "@triton.jit\n"
        "def k(x):\n"
        "    return _unary(x, 'tanh.approx.f32 $0, $1;') + _unary(x, asm='ex2.approx.f32 $0, $1;')\n"
    )
    assert [s.template.text for s in statements(text)] == [
        "tanh.approx.f32 $0, $1;", "ex2.approx.f32 $0, $1;"]


def test_what_is_not_surely_the_callers_value_stays_one_unknown_call() -> None:
    rebound = CUTE + (
        "def _asm(ptx, args):\n"
        "    ptx = ptx.strip()\n"
        "    return llvm.inline_asm(T.i32(), args, ptx, '=r,r')\n"
        "def k(a):\n"
        "    return _asm('neg.s32 $0, $1;', [a])\n"
    )
    method = CUTE + (
        "class Ops:\n"
        "    def _asm(self, ptx, args):\n"
        "        return llvm.inline_asm(T.i32(), args, ptx, '=r,r')\n"
        "    def k(self, a):\n"
        "        return self._asm('neg.s32 $0, $1;', [a])\n"
    )
    splat = CUTE + WRAPPER + "def k(a, spec):\n    return _asm(*spec)\n"
    unused = CUTE + WRAPPER
    for text in (rebound, method, splat, unused):
        (only,) = statements(text)
        assert only.template.text == HOLE
        assert text[only.span.start : only.span.end].startswith("llvm.inline_asm(")


def test_a_use_passing_an_unknown_template_is_a_hole_at_that_use() -> None:
    text = CUTE + WRAPPER + (
        "def k(a, template):\n"
        "    x = _asm(T.i32(), 'neg.s32 $0, $1;', '=r,r', [a])\n"
        "    return _asm(T.i32(), template, '=r,r', [x])\n"
    )
    found = statements(text)
    assert [s.template.text for s in found] == ["neg.s32 $0, $1;", HOLE]
    notes = [f for f in lint_text(text, "k.py") if f.rule == "PTX902"]
    assert len(notes) == 1 and notes[0].span.start > text.index("def k")


def test_a_partial_application_binding_the_template_is_a_use() -> None:
    text = CUTE + (
        "from functools import partial\n"
        "def _ld_reduce(mc_ptr, *, ptx_string=''):\n"
        "    return llvm.inline_asm(T.i32(), [mc_ptr], ptx_string, '=r,l', has_side_effects=True)\n"
        "ld_reduce_f32 = partial(_ld_reduce, ptx_string='multimem.ld_reduce.weak.global.add.f32 "
        "{$0}, [$1];')\n"
        "ld_reduce_typo = partial(_ld_reduce, ptx_string='multimem.ld_reduce.weak.global.add.f33 "
        "{$0}, [$1];')\n"
        "ld_reduce_later = partial(_ld_reduce)\n"
    )
    found = statements(text)
    assert [s.template.text.split(" ")[0] for s in found] == [
        "multimem.ld_reduce.weak.global.add.f32", "multimem.ld_reduce.weak.global.add.f33"]
    typo = [f for f in lint_text(text, "k.py") if f.rule == "PTX204"]
    assert len(typo) == 1 and text[typo[0].span.start : typo[0].span.end] == ".f33"


def test_a_call_on_one_arm_of_the_wrapper_is_not_read_per_use() -> None:
    # the use passing the timer read takes the impure call: reading the pure one for it would
    # report a PTX505 that is not there
    text = CUTE + (
        "def _asm(ptx, args, pure=True):\n"
        "    if pure:\n"
        "        return llvm.inline_asm(T.i32(), args, ptx, '=r', has_side_effects=False)\n"
        "    return llvm.inline_asm(T.i32(), args, ptx, '=r', has_side_effects=True)\n"
        "def k():\n"
        "    return _asm('mov.u32 $0, %clock;', [], pure=False)\n"
    )
    assert not [f for f in lint_text(text, "k.py") if f.rule == "PTX505"]
    assert [s.template.text for s in statements(text)] == [HOLE, HOLE]


def test_a_call_after_an_early_return_is_not_read_per_use() -> None:
    text = CUTE + (
        "def _asm(ptx, args, pure=True):\n"
        "    if not pure:\n"
        "        return llvm.inline_asm(T.i32(), args, ptx, '=r', has_side_effects=True)\n"
        "    return llvm.inline_asm(T.i32(), args, ptx, '=r', has_side_effects=False)\n"
        "def k():\n"
        "    return _asm('mov.u32 $0, %clock;', [], pure=False)\n"
    )
    assert not [f for f in lint_text(text, "k.py") if f.rule == "PTX505"]
    assert [s.template.text for s in statements(text)] == [HOLE, HOLE]


def test_a_positional_only_template_is_not_given_by_keyword() -> None:
    # ``ptx='not.b32 ...'`` goes to ``**attrs``: the template is the first positional argument
    text = CUTE + (
        "def _asm(ptx, args, /, **attrs):\n"
        "    return llvm.inline_asm(T.i32(), args, ptx, '=r,r')\n"
        "def k(a):\n"
        "    return _asm('neg.s32 $0, $1;', [a], ptx='not.b32 $0, $1;')\n"
    )
    assert [s.template.text for s in statements(text)] == ["neg.s32 $0, $1;"]


def test_operands_given_to_a_wrappers_star_args_leave_its_template_bound() -> None:
    text = CUTE + (
        "def _asm(ptx, constraints, *operands):\n"
        "    return llvm.inline_asm(T.i32(), list(operands), ptx, constraints)\n"
        "def k(a, b):\n"
        "    return _asm('add.s32 $0, $1, $2;', '=r,r,r', a, b)\n"
    )
    (s,) = statements(text)
    assert s.template.text == "add.s32 $0, $1, $2;"
    assert s.llvm is not None and s.llvm.constraints is not None
    assert s.llvm.constraints.text == "=r,r,r"


def test_a_use_python_rejects_is_not_read() -> None:
    # a keyword no parameter takes, and a parameter given twice: the call raises TypeError
    text = CUTE + WRAPPER + (
        "def k(a):\n"
        "    x = _asm(T.i32(), 'neg.s32 $0, $1;', '=r,r', [a], pure=True)\n"
        "    return _asm(T.i32(), 'neg.s32 $0, $1;', '=r,r', [a], ptx='abs.s32 $0, $1;')\n"
    )
    (only,) = statements(text)
    assert only.template.text == HOLE


def test_a_template_built_from_the_wrappers_parameters_is_read_per_use() -> None:
    # CuTe DSL helpers spell the opcode at the use: f"{asm}.bf16x2 $0, $1;", _LDQ + suffix
    text = CUTE + (
        "_LDQ = 'ld.global.nc'\n"
        "def _unary(asm, a):\n"
        "    return llvm.inline_asm(T.i32(), [a], f'{asm}.bf16x2 $0, $1;', '=r,r',"
        " has_side_effects=False)\n"
        "def _load(p, suffix=''):\n"
        "    return llvm.inline_asm(T.i32(), [p], _LDQ + suffix + '.b32 $0, [$1];', '=r,l',"
        " has_side_effects=False)\n"
        "def k(a, p, unknown):\n"
        "    x = _unary('abs', a) + _unary('neg', a) + _unary('nug', a)\n"
        "    return _load(p) + _load(p, suffix='.L1::no_allocate') + _load(p, unknown)\n"
    )
    found = statements(text)
    assert [s.template.text for s in found] == [
        "abs.bf16x2 $0, $1;", "neg.bf16x2 $0, $1;", "nug.bf16x2 $0, $1;",
        "ld.global.nc.b32 $0, [$1];", "ld.global.nc.L1::no_allocate.b32 $0, [$1];",
        f"ld.global.nc{HOLE}.b32 $0, [$1];"]
    # the literal stays where the wrapper spells it, the argument where the use gives it
    opcode = found[2].template.source_span(0, 3)
    assert text[opcode.start : opcode.end] == "nug" and opcode.start > text.index("def k")
    suffix = found[0].template.text.index(".bf16x2")
    spelled = found[0].template.source_span(suffix, suffix + 7)
    assert spelled.start < text.index("def _load")
    errors = [f for f in lint_text(text, "k.py") if f.severity == "error"]
    assert [(f.rule, text[f.span.start : f.span.end]) for f in errors] == [("PTX204", "nug")]


def test_a_template_a_local_of_the_wrapper_builds_from_its_parameters_is_read_per_use() -> None:
    text = CUTE + (
        "def _unary(op, a):\n"
        "    ptx = f'{op}.f32 $0, $1;'\n"
        "    return llvm.inline_asm(T.f32(), [a], ptx, '=f,f', has_side_effects=False)\n"
        "def _fixed(a):\n"
        "    ptx = 'rcp.approx.f32 $0, $1;'\n"
        "    return llvm.inline_asm(T.f32(), [a], ptx, '=f,f', has_side_effects=False)\n"
        "def k(a):\n"
        "    return _unary('neg', a) + _unary('nug', a) + _fixed(a) + _fixed(a)\n"
    )
    # a template no parameter builds is the wrapper's own: one statement, however many uses
    assert [s.template.text for s in statements(text)] == [
        "rcp.approx.f32 $0, $1;", "neg.f32 $0, $1;", "nug.f32 $0, $1;"]
    errors = [f for f in lint_text(text, "k.py") if f.severity == "error"]
    assert [text[f.span.start : f.span.end] for f in errors] == ["nug"]


def test_a_wrapper_of_a_wrapper_is_read_per_use_of_the_outer_one() -> None:
    # vLLM's decode kernels: `_asm` takes the template, `ld(p, pf="")` builds it, kernels
    # call `ld`; `fence(before=...)` picks its side
    text = CUTE + (
        "_LDQ = 'ld.global.nc'\n"
        "def _asm(res, operands, text, constraints):\n"
        "    return llvm.inline_asm(res, operands, text, constraints, has_side_effects=True)\n"
        "def ld(p, pf=''):\n"
        "    return _asm(T.i32(), [p], _LDQ + pf + '.b32 $0, [$1];', '=r,l')\n"
        "def fence(*, before=False):\n"
        "    side = 'before' if before else 'after'\n"
        "    _asm(None, [], f'tcgen05.fence::{side}_thread_sync;', '')\n"
        "def k(p):\n"
        "    fence(before=True)\n"
        "    return ld(p) + ld(p, '.L3::bad')\n"
    )
    assert sorted(s.template.text for s in statements(text)) == [
        "ld.global.nc.L3::bad.b32 $0, [$1];", "ld.global.nc.b32 $0, [$1];",
        "tcgen05.fence::before_thread_sync;"]
    errors = [f for f in lint_text(text, "k.py") if f.severity == "error"]
    assert [text[f.span.start : f.span.end] for f in errors] == [".L3::bad"]


def test_a_flag_of_the_wrapper_chooses_its_side_of_a_conditional_template() -> None:
    # `A if subtract else B` with the flag each use gives (or its default): as Python runs it
    text = CUTE + (
        "def _fma(a, b, *, subtract=False):\n"
        "    return llvm.inline_asm(T.f32(), [a, b], '{ .reg .f32 p; ' + ("
        "'neg.f32 p, $1; fma.rn.f32 $0, $1, $2, p; }' if subtract else"
        " 'fma.rn.f32 $0, $1, $2, $1; }'), '=f,f,f', has_side_effects=False)\n"
        "def k(a, b, flag):\n"
        "    return _fma(a, b) + _fma(a, b, subtract=True) + _fma(a, b, subtract=flag)\n"
    )
    found = statements(text)
    assert [s.template.text for s in found] == [
        "{ .reg .f32 p; fma.rn.f32 $0, $1, $2, $1; }",
        "{ .reg .f32 p; neg.f32 p, $1; fma.rn.f32 $0, $1, $2, p; }",
        # a flag the use does not make knowable: one reading per side
        "{ .reg .f32 p; neg.f32 p, $1; fma.rn.f32 $0, $1, $2, p; }",
        "{ .reg .f32 p; fma.rn.f32 $0, $1, $2, $1; }"]


def test_constraints_a_wrapper_builds_from_its_parameter_are_read_as_the_use_gives_it() -> None:
    # vLLM's `_asm_void`: a dummy '=r' result put before the use's constraints, and the
    # template after a 'mov' of it; `... if constraints else "=r"` takes the side the use's
    # string picks (non-empty: the joined one), not both
    text = CUTE + (
        "def _asm(res, operands, asm, constraints, *, loc, ip):\n"
        "    return llvm.inline_asm(res, operands, asm, constraints, has_side_effects=True,\n"
        "                           loc=loc, ip=ip)\n"
        "def _asm_void(operands, asm, constraints, *, loc, ip):\n"
        "    _asm(T.i32(), operands, 'mov.u32 $0, 0;\\n\\t' + asm,\n"
        "         ','.join(('=r', constraints)) if constraints else '=r', loc=loc, ip=ip)\n"
        "def st(a, v, *, loc=None, ip=None):\n"
        "    _asm_void([a, v], 'st.global.u32 [$1], $2;', 'l,r', loc=loc, ip=ip)\n"
        "def bad(a, v, *, loc=None, ip=None):\n"
        "    _asm_void([a, v], 'st.global.u32 [$1], $2;', '', loc=loc, ip=ip)\n"
    )
    found = statements(text)
    assert [(s.template.text, s.llvm.constraints.text if s.llvm and s.llvm.constraints else None)
            for s in found] == [
        ("mov.u32 $0, 0;\n\tst.global.u32 [$1], $2;", "=r,l,r"),
        ("mov.u32 $0, 0;\n\tst.global.u32 [$1], $2;", "=r")]
    # only the use that passes no constraints has operands the constraints leave out, one
    # defect (PTX501, whose operands the template then names past the end, PTX001, too)
    found = [f.rule for f in lint_text(text, "k.py") if f.rule in ("PTX001", "PTX501")]
    assert found == ["PTX501"]


def test_an_if_on_a_parameter_the_use_gives_takes_the_branch_python_takes() -> None:
    # the same wrapper with an `if` statement: the use's non-empty string takes the first
    # branch only, an empty one the `else` (whose '=r' leaves the operands out: PTX501)
    text = CUTE + (
        "def _asm(res, operands, asm, constraints):\n"
        "    return llvm.inline_asm(res, operands, asm, constraints, has_side_effects=True)\n"
        "def _asm_void(operands, asm, constraints=''):\n"
        "    if constraints:\n"
        "        c = '=r,' + constraints\n"
        "    elif constraints is None:\n"
        "        c = None\n"
        "    else:\n"
        "        c = '=r'\n"
        "    _asm(T.i32(), operands, 'mov.u32 $0, 0; ' + asm, c)\n"
        "def st(a, v):\n"
        "    _asm_void([a, v], 'st.global.u32 [$1], $2;', 'l,r')\n"
        "def fence():\n"
        "    _asm_void([], 'fence.acq_rel.gpu;')\n"
    )
    found = statements(text)
    assert [(s.template.text, s.llvm.constraints.text if s.llvm and s.llvm.constraints else None,
             s.context.branch) for s in found] == [
        ("mov.u32 $0, 0; st.global.u32 [$1], $2;", "=r,l,r", ()),
        ("mov.u32 $0, 0; fence.acq_rel.gpu;", "=r", ())]
    assert [f.rule for f in lint_text(text, "k.py") if f.rule in ("PTX001", "PTX501")] == []


def test_a_triton_suffix_given_as_a_constexpr_is_read_per_use() -> None:
    # Triton-distributed's multimem helpers: `{suffix.value}` of the core.constexpr each use
    # passes; ptxas 13.0 refuses .acc::f32 on .f32 data ("Illegal modifier")
    text = (
        "import triton.language as tl\nfrom triton.language import core\n\n"
        "def _ld_reduce(ptr, suffix: core.constexpr, acc: core.constexpr):\n"
        "    return tl.inline_asm_elementwise(\n"
        "        asm=f'multimem.ld_reduce.global.add{acc.value}.v4.{suffix.value} "
        "{{$0,$1,$2,$3}}, [$4];',\n"
        "        constraints='=r,=r,=r,=r,l', args=[ptr], dtype=[tl.uint32] * 4,"
        " is_pure=False, pack=1)\n"
        "def k(p):\n"
        "    a = _ld_reduce(p, core.constexpr('bf16x2'), core.constexpr('.acc::f32'))\n"
        "    return _ld_reduce(p, core.constexpr('f32'), core.constexpr('.acc::f32'))\n"
    )
    assert [s.template.text.split(" ")[0] for s in statements(text)] == [
        "multimem.ld_reduce.global.add.acc::f32.v4.bf16x2",
        "multimem.ld_reduce.global.add.acc::f32.v4.f32"]
    errors = [f for f in lint_text(text, "k.py") if f.severity == "error"]
    assert [f.rule for f in errors] == ["PTX204"]
    assert errors[0].span.start > text.index("def k") + text[text.index("def k"):].index("'f32'")


def test_a_pure_table_wrapper_used_many_times_is_one_defect_per_fix() -> None:
    # every entry is declared pure by the same keyword: one edit mends them all, at each use
    text = CUTE + (
        "def redux(x, op):\n"
        "    table = {'max': 'redux.sync.max.s32 $0, $1, 0xffffffff;',"
        " 'min': 'redux.sync.min.s32 $0, $1, 0xffffffff;'}\n"
        "    return llvm.inline_asm(T.i32(), [x], table[op], '=r,r', has_side_effects=False)\n"
        "def k(x, y, op):\n"
        "    return redux(x, op) + redux(y, op) + redux(x, 'min')\n"
    )
    assert len(statements(text)) == 5  # two readings per use with an unknown key, one known
    pure = [f for f in lint_text(text, "k.py") if f.rule == "PTX505"]
    assert [text[f.span.start : f.span.end] for f in pure] == ["redux.sync.max.s32", "redux.sync.min.s32"]
