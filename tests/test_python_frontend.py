"""The Python front end: calls found through imports, strings resolved with an exact source
map, holes where Python does not make a value knowable, Triton's packing rule."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python, mentions_api
from ptxlint.model import HOLE, AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text


def statements(text: str, path: str = "k.py") -> list[AsmStatement]:
    return extract_python(SourceFile(path, text), parse_template).statements


def source_of(statement: AsmStatement, start: int, end: int) -> str:
    span = statement.template.source_span(start, end)
    return statement.source.text[span.start : span.end]


HEADER = "import triton\nimport triton.language as tl\n\n"


def test_prefilter_skips_files_without_an_api() -> None:
    assert not mentions_api(b"import torch\nx = 1\n")
    assert mentions_api(b"y = tl.inline_asm_elementwise(")
    assert statements("import triton\nx = 'mov.u32 $0, 1;'\n") == []


def test_aliases_keyword_and_positional_arguments() -> None:
    text = (
        "from triton.language import core as C\n"
        "import triton.language as L\n"
        "def f(x):\n"
        "    a = C.inline_asm_elementwise('neg.f32 $0, $1;', '=r,r', [x], C.float32, True, 1)\n"
        "    b = L.inline_asm_elementwise(asm='neg.f32 $0, $1;', constraints='=r,r', args=[x],\n"
        "                                 dtype=L.float32, is_pure=False, pack=1)\n"
    )
    a, b = statements(text)
    assert a.llvm is not None and b.llvm is not None
    assert a.llvm.side_effects is False and b.llvm.side_effects is True
    assert [o.constraint.text for o in a.operands] == ["=r", "r"]
    assert a.llvm.output_registers == (1, 1) and a.llvm.input_registers == (1, 1)


def test_unrelated_functions_of_the_same_name_are_ignored() -> None:
    text = (
        "def inline_asm(a, b): pass\n"
        "def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack): pass\n"
        "y = inline_asm_elementwise('neg.f32 $0, $1;', '=r,r', [x], None, True, 1)\n"
        "z = obj.inline_asm('mov.u32 $0, 1;', '=r')\n"
        "w = ops.inline_asm_elementwise(x, asm='neg.f32 $0, $1;')\n"
    )
    assert statements(text) == []


def test_pytorch_hop_takes_inputs_positionally_and_defaults_to_pure() -> None:
    text = (
        "import torch\n"
        "from torch._higher_order_ops.inline_asm_elementwise import inline_asm_elementwise\n"
        "y = inline_asm_elementwise(a.to(torch.float32), b, asm_str='add.f32 $0, $1, $2;',\n"
        "                           constraints='=r,r,r', dtype=torch.float32)\n"
    )
    (s,) = statements(text)
    assert s.llvm is not None and s.llvm.api == "torch"
    assert s.llvm.side_effects is False and s.llvm.pack == 1
    assert s.llvm.args is not None and [a.text for a in s.llvm.args] == ["a.to(torch.float32)", "b"]
    assert s.llvm.input_registers == (2, 2)


def test_escapes_map_to_their_source_characters() -> None:
    text = HEADER + "y = tl.inline_asm_elementwise('{\\n\\tneg.f32 $0, $1;\\n}', '=r,r', [x], tl.float32, True, 1)\n"
    (s,) = statements(text)
    assert s.template.text == "{\n\tneg.f32 $0, $1;\n}"
    assert source_of(s, 1, 2) == "\\n"
    assert source_of(s, 3, 10) == "neg.f32"


def test_implicit_concatenation_and_triple_quotes() -> None:
    text = HEADER + (
        "y = tl.inline_asm_elementwise(\n"
        '    """{\n    .reg .b32 t;"""\n'
        "    ' mov.b32 t, $1;'  # a comment between pieces\n"
        "    r' mov.b32 $0, t; }',\n"
        "    '=r,r', [x], tl.int32, True, 1)\n"
    )
    (s,) = statements(text)
    assert s.template.text == "{\n    .reg .b32 t; mov.b32 t, $1; mov.b32 $0, t; }"
    k = s.template.text.index("mov.b32 $0")
    assert source_of(s, k, k + 7) == "mov.b32"
    assert [p.kind for p in s.template.pieces] == ["pystring", "pystring", "pystring"]


def test_module_constant_constexpr_and_augmented_chain() -> None:
    text = HEADER + (
        "PACK = tl.constexpr(2)\n"
        "ASM: tl.constexpr = tl.constexpr('neg.f32 $0, $2;')\n"
        "def f(x, flag):\n"
        "    asm = ASM\n"
        "    asm += ' neg.f32 $1, $3;'\n"
        "    if flag:\n"
        "        asm += ' // maybe'\n"
        "    asm += ' // end'\n"
        "    return tl.inline_asm_elementwise(asm, '=r,=r,r,r', [x], tl.float32, True, PACK)\n"
    )
    (s,) = statements(text)
    assert s.template.text == f"neg.f32 $0, $2; neg.f32 $1, $3;{HOLE} // end"
    assert s.llvm is not None and s.llvm.pack == 2
    # the first characters come from the module constant's literal
    assert source_of(s, 0, 7) == "neg.f32"
    hole = s.template.text.index(HOLE)
    assert source_of(s, hole, hole + 1).startswith("if flag:")


def test_constexpr_value_is_the_string_it_wraps() -> None:
    """``C.value`` of ``C = tl.constexpr("...")`` is the wrapped string (an AMD template read
    that way is seen to be no PTX); ``.value`` of anything else stays unknown."""
    text = HEADER + (
        "CVT = tl.constexpr('cvt.rn.f16x2.f32 $0, $2, $1;')\n"
        "AMD = tl.constexpr('v_cvt_scalef32_pk_fp4_f32 $0, $1, $2, 1.0')\n"
        "def f(lo, hi, other):\n"
        "    a = tl.inline_asm_elementwise(CVT.value, '=r,r,r', [lo, hi], tl.int32, True, 1)\n"
        "    b = tl.inline_asm_elementwise(other.value, '=r,r,r', [lo, hi], tl.int32, True, 1)\n"
        "    c = tl.inline_asm_elementwise(AMD.value, '=v,v,v', [lo, hi], tl.int32, True, 1)\n"
    )
    a, b = statements(text)
    assert a.template.text == "cvt.rn.f16x2.f32 $0, $2, $1;"
    assert source_of(a, 0, 3) == "cvt"
    assert b.template.text == HOLE
    assert [f.rule for f in lint_text(text, path="k.py", select=("PTX002",))] == []


def test_template_chosen_per_branch_among_other_isas_is_no_ptx() -> None:
    """``if``/``elif`` arms that all bind AMD assembly (Triton's hip helpers) make a call no
    PTX statement, as a literal AMD template is not; an arm that binds PTX is still read, and
    an arm with PTX text around a hole keeps the call a hole."""
    amd = HEADER + (
        "def smid(arch):\n"
        "    if 'gfx9' in arch:\n"
        "        asm = 's_getreg_b32 $0, hwreg(4, 8, 8)'\n"
        "    elif 'gfx11' in arch:\n"
        "        asm = 's_getreg_b32 $0, hwreg(23, 10, 4)'\n"
        "    else:\n"
        "        raise ValueError(arch)\n"
        "    return tl.inline_asm_elementwise(asm, '=r', [], dtype=tl.int64, is_pure=True, pack=1)\n"
    )
    assert statements(amd) == []
    assert lint_text(amd, path="k.py") == []
    mixed = amd.replace("'s_getreg_b32 $0, hwreg(4, 8, 8)'", "'mov.u32 $0, %smid;'")
    (ptx,) = statements(mixed)
    assert ptx.template.text == "mov.u32 $0, %smid;"
    partial = amd.replace("'s_getreg_b32 $0, hwreg(4, 8, 8)'", "'mov.u32 $0, ' + arch")
    (hole,) = statements(partial)
    assert hole.template.has_holes


def test_fstrings_and_format_with_literal_fields() -> None:
    text = HEADER + (
        "REG = 'r'\n"
        "def f(x, kind):\n"
        "    a = tl.inline_asm_elementwise(f'{{ mov.b32 $0, ${{1}}; }} // {REG}', '=r,r', [x], tl.int32, True, 1)\n"
        "    b = tl.inline_asm_elementwise('vote.sync.{}.pred $0;'.format(kind), '=r', [], tl.int32, False, 1)\n"
        "    c = tl.inline_asm_elementwise('mov.b32 $0, ${in_reg};'.format(in_reg=1), '=r,r', [x], tl.int32, True, 1)\n"
    )
    a, b, c = statements(text)
    assert a.template.text == "{ mov.b32 $0, ${1}; } // r"
    assert source_of(a, 0, 1) == "{{"
    assert b.template.text == f"vote.sync.{HOLE}.pred $0;"
    assert c.template.text == "mov.b32 $0, $1;"


def test_parameters_and_conditional_values_are_holes() -> None:
    text = HEADER + (
        "def f(x, asm, cons):\n"
        "    t = 'a' if x else 'b'\n"
        "    return tl.inline_asm_elementwise(asm, cons, [x], tl.int32, True, 1)\n"
        "def g(x, c):\n"
        "    if c:\n"
        "        s = 'mov.b32 $0, $1;'\n"
        "    else:\n"
        "        s = 'neg.s32 $0, $1;'\n"
        "    return tl.inline_asm_elementwise(s, '=r,r', [x], tl.int32, True, 1)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template)
    f, *g = found.statements
    # `asm` is a parameter: the template is one hole, not PTX we could judge
    assert HOLE in f.template.text and (f.opaque_sections or f.template.has_holes)
    # `s` bound on both branches of an `if`: never one guessed value, but one reading per
    # branch, each saying which branch it is
    assert [(s.template.text, s.context.branch) for s in g] == [
        ("mov.b32 $0, $1;", ("if c",)), ("neg.s32 $0, $1;", ("else",))]


def test_a_branch_that_leaves_before_the_call_gives_no_reading() -> None:
    """A branch that returns or raises never reaches a call after its ``if``, so the value
    bound before the ``if`` (cuDNN frontend's ``cvt_instruction = ""`` then ``else: return``)
    is read for no statement, and nothing is reported on it; a ``try`` around the ``if`` (whose
    ``except`` may hold the call) or a ``raise`` inside a ``with`` (whose context manager may
    swallow it) keeps the branch's reading."""
    def body(leave: str, indent: str = "    ") -> str:
        return (
            f"{indent}asm = 'mov.u32 $0, $2;'\n"
            f"{indent}if k == 1:\n"
            f"{indent}    asm = 'add.u32 $0, $1, $1;'\n"
            f"{indent}elif k == 2:\n"
            f"{indent}    asm = 'sub.u32 $0, $1, $1;'\n"
            f"{indent}else:\n"
            f"{indent}    if x:\n"
            f"{indent}        return x\n"
            f"{indent}    else:\n"
            f"{indent}        {leave}\n"
        )
    call = "    return tl.inline_asm_elementwise(asm, '=r,r', [x], tl.uint32, True, 1)\n"
    for leave in ("return x", "raise ValueError(k)"):
        text = HEADER + "def f(x, k):\n" + body(leave) + call
        assert [s.template.text for s in statements(text)] == [
            "add.u32 $0, $1, $1;", "sub.u32 $0, $1, $1;"]
        assert lint_text(text, path="k.py") == []
    # an `if` without `else` may run on: the `else` branch reaches the call with the value
    # bound before the `if`, whose '$2' names no operand
    runs_on = HEADER + "def f(x, k):\n" + body("return x").replace(
        "        if x:\n            return x\n        else:\n", "        if x:\n") + call
    assert "mov.u32 $0, $2;" in [s.template.text for s in statements(runs_on)]
    assert [f.rule for f in lint_text(runs_on, path="k.py")] == ["PTX001"]
    in_try = HEADER + "def f(x, k):\n    try:\n" + body("raise ValueError(k)", "        ") + (
        "    except ValueError:\n    " + call)
    assert "mov.u32 $0, $2;" in [s.template.text for s in statements(in_try)]
    in_with = HEADER + "def f(x, k):\n    with ctx():\n" + body("raise ValueError(k)",
                                                           "        ") + call
    assert "mov.u32 $0, $2;" in [s.template.text for s in statements(in_with)]
    assert [f.rule for f in lint_text(in_with, path="k.py")] == ["PTX001"]


def test_amdgpu_asm_in_the_same_api_is_not_ptx() -> None:
    text = HEADER + (
        "def f():\n"
        "    return tl.inline_asm_elementwise('s_memrealtime $0\\ns_waitcnt lgkmcnt(0)', '=r', [], tl.int64, False, 1)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template)
    assert found.statements == []
    assert found.skipped and "AMD" in found.skipped[0][1]


def test_amdgpu_asm_with_semicolon_comments_is_not_ptx() -> None:
    # GCN's ';' starts a comment: the words after it ('$1 = ...') are no opcode of any
    # assembler, so they must not outvote the AMD instruction words
    text = HEADER + (
        "def f(a, b, c, d):\n"
        "    return tl.inline_asm_elementwise('''\n"
        "        v_pk_add_f16 $1, $1, $2    ; $1 = [hi1, lo1]\n"
        "        v_pk_add_f16 $3, $3, $4    ; $3 = [hi2, lo2]\n"
        "        v_pk_add_f16 $1, $1, $3    ; $1 = [hi1+hi2, lo1+lo2]\n"
        "        v_cvt_f32_f16_e32 $0, $1\n"
        "    ''', '=v,v,v,v,v', [a, b, c, d], tl.float32, False, 1)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template)
    assert found.statements == []
    assert found.skipped and "AMD" in found.skipped[0][1]
    assert lint_text(text, path="k.py") == []


def test_another_gpus_constraint_letters_mark_its_assembly_and_nvptx_llvm_letters_do_not() -> None:
    # no word is PTX nor known GCN: a letter NVPTX has not in LLVM syntax ('v', 'R') says the
    # template is another GPU's (Kunlun's, MUSA's Triton), not a misspelt PTX instruction
    foreign = HEADER + (
        "def f(x):\n"
        "    a = tl.inline_asm_elementwise('vfloat2fix.rz $0, $1;', '=v,v', [x], tl.int32, True, 1)\n"
        "    b = tl.inline_asm_elementwise('LSU.ATOM_32.XCHG $0, $1;', '=R,R', [x], tl.int32, True, 1)\n"
    )
    found = extract_python(SourceFile("k.py", foreign), parse_template)
    assert found.statements == [] and len(found.skipped) == 2
    assert all("another GPU" in why for _, why in found.skipped)
    assert lint_text(foreign, path="k.py") == []
    # NVPTX's own LLVM letters, 'b' (a predicate), 'c' (a byte), 'i' (an immediate), which
    # GCC syntax would read as x86's, leave a misspelt opcode a PTX finding
    for cons in ("=b,r", "=c,c", "=r,i", "=r,0"):
        typo = HEADER + "def f(x):\n" + (
            f"    return tl.inline_asm_elementwise('mvo.b32 $0, $1;', '{cons}', [x], tl.int32, True, 1)\n")
        assert [f.rule for f in lint_text(typo, path="k.py") if f.rule == "PTX204"] == ["PTX204"]


def test_packing_rule_counts_registers() -> None:
    text = HEADER + (
        "def f(x):\n"
        "    h = x.to(tl.float16)\n"
        "    u = x.to(tl.uint8)\n"
        "    a = tl.inline_asm_elementwise('', '=r,r', [h], tl.float16, True, 2)\n"
        "    b = tl.inline_asm_elementwise('', '=r,=r,r', [u], tl.float16, True, 4)\n"
        "    c = tl.inline_asm_elementwise('', '=r,r', [x], tl.float32, True, 4)\n"
        "    d = tl.inline_asm_elementwise('', '=l,l', [x.to(tl.int64)], (tl.int64,), True, 2)\n"
    )
    tree = extract_python(SourceFile("k.py", text.replace("''", "'mov.b32 $0, 0;'")), parse_template)
    a, b, c, d = (s.llvm for s in tree.statements)
    assert a is not None and a.output_registers == (1, 1) and a.input_registers == (1, 1)
    assert b is not None and b.output_registers == (2, 2) and b.input_registers == (1, 1)
    # x's element type is unknown: 1 (8-bit) .. 4 (32/64-bit) registers at pack=4
    assert c is not None and c.output_registers == (4, 4) and c.input_registers == (1, 4)
    assert d is not None and d.output_registers == (2, 2) and d.input_registers == (2, 2)


def test_cute_and_llvmlite_forms() -> None:
    text = (
        "from cutlass._mlir.dialects import llvm\n"
        "from llvmlite import ir\n"
        "def a(v):\n"
        "    return llvm.inline_asm(T.i32(), [v], 'mov.b32 $0, $1;', '=r,r', has_side_effects=True)\n"
        "def b():\n"
        "    llvm.inline_asm(res=None, operands_=[], asm_string='griddepcontrol.wait;', constraints='')\n"
        "def c(fnty):\n"
        "    return ir.InlineAsm(fnty, 'activemask.b32 $0;', '=r', side_effect=True)\n"
    )
    a, b, c = statements(text)
    assert a.llvm is not None and a.llvm.api == "cute" and a.llvm.side_effects is True
    assert b.llvm is not None and b.llvm.side_effects is False and b.llvm.side_effects_span is None
    assert c.llvm is not None and c.llvm.api == "llvmlite" and c.llvm.side_effects is True


def test_cupy_cxx_is_linted_with_positions_in_the_py_file() -> None:
    text = (
        "import cupy as cp\n"
        "kernel = cp.RawKernel(r'''\n"
        "extern \"C\" __global__ void k(unsigned *out) {\n"
        "    unsigned lane;\n"
        "    asm(\"mov.u32 %0, %laneid;\" : \"=r\"(lane));\n"
        "    out[threadIdx.x] = lane;\n"
        "}\n"
        "''', 'k')\n"
    )
    (s,) = statements(text)
    assert s.syntax == "gnu" and s.context.embedded_in == "python"
    k = s.template.text.index("%laneid")
    span = s.template.source_span(k, k + 7)
    assert text[span.start : span.end] == "%laneid"
    assert s.source.path == "k.py"


def test_a_binding_sees_the_value_before_it() -> None:
    text = HEADER + (
        "def f(x):\n"
        "    asm = 'neg.f32 $0, $1;'\n"
        "    asm = asm + ' // once'\n"
        "    offs = tl.arange(0, 32)\n"
        "    offs = offs + offs\n"
        "    return tl.inline_asm_elementwise(asm, '=r,r', [offs], tl.float32, True, 1)\n"
    )
    (s,) = statements(text)
    assert s.template.text == "neg.f32 $0, $1; // once"
    assert s.llvm is not None and s.llvm.result_elements == 32


def test_an_fstring_field_after_dollar_is_an_unknown_operand_number() -> None:
    # CuTe DSL code: f"${desc_idx}" writes '$' followed by the operand's number.
    from tests.conftest import lint_text

    text = HEADER + (
        "def f(x, idx):\n"
        "    return tl.inline_asm_elementwise(f'mov.b32 $0, ${idx};', '=r,r', [x], tl.int32, True, 1)\n"
        "def g(x):\n"
        "    return tl.inline_asm_elementwise('mov.b32 $0, $x;', '=r,r', [x], tl.int32, True, 1)\n"
    )
    findings = lint_text(text, "k.py", select=("PTX008",))
    assert [f.span.start > text.index("def g") for f in findings] == [True]


def test_an_operand_list_changed_in_place_has_no_known_length() -> None:
    # flashinfer's kda kernels: `operands = [addr]; operands.extend(...)` before the call.
    from tests.conftest import lint_text

    text = (
        "from cutlass._mlir.dialects import llvm\n"
        "def store(addr, values):\n"
        "    operands = [addr]\n"
        "    operands.extend(v for v in values)\n"
        "    llvm.inline_asm(None, operands, 'st.global.v2.f32 [$0], {$1, $2};', 'l,f,f',\n"
        "                    has_side_effects=True)\n"
        "def short(addr):\n"
        "    operands = [addr]\n"
        "    llvm.inline_asm(None, operands, 'st.global.v2.f32 [$0], {$1, $2};', 'l,f,f',\n"
        "                    has_side_effects=True)\n"
    )
    findings = lint_text(text, "k.py", select=("PTX501",))
    assert [f.span.start > text.index("def short") for f in findings] == [True]


def test_a_positional_argument_after_a_list_splat_binds_no_known_parameter() -> None:
    # ``'=r,r'`` is the template only where ``head`` is empty: nothing says it is
    text = HEADER + (
        "def k(x, head):\n"
        "    return tl.inline_asm_elementwise(*head, '=r,r', [x], dtype=tl.int32, is_pure=True,"
        " pack=1)\n"
    )
    found = extract_python(SourceFile("k.py", text), parse_template)
    assert found.statements == []
    assert [reason for _, reason in found.skipped] == [
        "triton: asm passed through *args/**kwargs"
    ]
    # before the splat, positions are sure
    sure = HEADER + (
        "def k(x, rest):\n"
        "    return tl.inline_asm_elementwise('neg.s32 $0, $1;', '=r,r', *rest)\n"
    )
    (s,) = statements(sure)
    assert s.template.text == "neg.s32 $0, $1;" and s.llvm is not None
    assert s.llvm.constraints is not None and s.llvm.constraints.text == "=r,r"
    assert s.llvm.args_kind == "unknown"


def test_an_annotated_star_parameter_is_the_callers_value_not_a_module_constant() -> None:
    # ``asm`` in ``k`` is its ``*asm`` parameter (a tuple the caller gives), not the module's
    for parameters in ("x, *asm: str", "x, *asm", "x, **asm: str"):
        text = HEADER + (
            "asm = 'neg.s32 $0, $1;'\n"
            f"def k({parameters}):\n"
            "    return tl.inline_asm_elementwise(asm, '=r,r', [x], dtype=tl.int32, is_pure=True,"
            " pack=1)\n"
        )
        (s,) = statements(text)
        assert s.template.text == HOLE, parameters


def test_a_dtype_after_a_list_splat_is_not_known() -> None:
    # ``tl.zeros(*shape, tl.float16)``: float16 is ``dtype`` only where ``shape`` holds one item
    text = HEADER + (
        "def k(x, shape, n):\n"
        "    a = tl.zeros(shape, tl.float16)\n"
        "    b = tl.zeros(*shape, tl.float16)\n"
        "    c = x.to(dtype=tl.float16)\n"
        "    d = tl.full(shape, 0, dtype=tl.float16)\n"
        "    return tl.inline_asm_elementwise('add.f16x2 $0, $1, $2;', '=r,r,r', [a, b, c, d],"
        " dtype=tl.float16, is_pure=True, pack=2)\n"
    )
    (s,) = statements(text)
    assert s.llvm is not None and s.llvm.args is not None
    assert [a.dtype for a in s.llvm.args] == ["float16", None, "float16", "float16"]


def test_format_arguments_bind_as_str_format_binds_them() -> None:
    def template(call: str) -> str:
        text = HEADER + "def k(x, parts):\n" + (
            f"    return tl.inline_asm_elementwise({call}, '=r,r', [x], dtype=tl.int32,"
            " is_pure=True, pack=1)\n"
        )
        (s,) = statements(text)
        return s.template.text

    assert template("'{}.s32 $0, {reg};'.format('neg', reg='$1')") == "neg.s32 $0, $1;"
    assert template("'{1}.s32 $0, {0};'.format('$1', 'abs')") == "abs.s32 $0, $1;"
    assert template("'{}.s32 $0, $1;'.format(*parts)") == HOLE  # what ``parts`` holds is unknown
