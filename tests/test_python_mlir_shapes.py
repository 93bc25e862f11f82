"""The MLIR-built shapes of the Python front end: CuTe DSL's ``inline_ptx`` placeholders lowered
as MLIR's NVVM lowering does (operand order, ``$K`` numbering, ``n`` for constants, ties), and
``llvm.inline_asm`` calls whose MLIR ``ir`` types and ``asm_dialect`` the model records (JAX
Mosaic GPU, CuTe DSL)."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import HOLE, AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template

CUTE = "import cutlass.cute as cute\nfrom cutlass import Int32, Float32\n\n"
MLIR = "from jax._src.lib.mlir import ir\nfrom jax._src.lib.mlir.dialects import llvm, arith\n\n"


def statements(text: str) -> list[AsmStatement]:
    return extract_python(SourceFile("k.py", text), parse_template).statements


def spelled(statement: AsmStatement, start: int, end: int) -> str:
    span = statement.template.source_span(start, end)
    return statement.source.text[span.start : span.end]


def test_inline_ptx_placeholders_become_the_operands_llvm_sees() -> None:
    text = CUTE + (
        "def f(a, b, c):\n"
        "    cute.arch.inline_ptx('selp.s32 {$rw0}, {$r1}, {$r0}, p;\\nmov.b32 {$w0}, {$r1};',\n"
        "        write_only_types=[Int32], read_only_args=[Int32(a), 7], read_write_args=[c])\n"
    )
    (s,) = statements(text)
    assert s.llvm is not None and s.llvm.api == "cute-ptx"
    # read-write, then write-only, then read-only; the read-write value tied at the end
    assert [o.constraint.text for o in s.operands] == ["=" + HOLE, "=r", "r", "n", "0"]
    assert [o.role for o in s.operands] == ["output", "output", "input", "input", "input"]
    assert s.template.text == "selp.s32 $0, $3, $2, p;\nmov.b32 $1, $3;"
    at = s.template.text.index("$3")
    assert spelled(s, at, at + 2) == "{$r1}"  # each $K maps to the placeholder it replaced
    # LLVM pairs the values (read-write first) with the inputs (read-only first, ties last):
    # measured with nvidia-cutlass-dsl 4.8.1, {$r0} reads read_write_args[0]
    assert [o.expression for o in s.operands[2:]] == ["c", "Int32(a)", "7"]
    assert s.is_volatile  # the lowering always sets has_side_effects


def test_inline_ptx_unused_numbers_shift_the_binding() -> None:
    text = CUTE + (
        "def f(a, b):\n"
        "    cute.arch.inline_ptx('add.s32 {$w0}, {$r1}, 1;', write_only_types=[Int32],\n"
        "                         read_only_args=[a, b])\n"
    )
    (s,) = statements(text)
    assert s.llvm is not None
    (w, r) = s.llvm.placeholders
    assert (r.kind, r.number, r.operand, r.bound_kind, r.bound_index) == ("r", 1, 1, "r", 0)
    assert (w.bound_kind, w.bound_index) == ("w", 0)


def test_inline_ptx_constants_are_immediates_and_floats_registers() -> None:
    text = CUTE + (
        "ZERO = 0\n"
        "def f(a):\n"
        "    z = Int32(0)\n"
        "    cute.arch.inline_ptx('add.s32 {$w0}, {$r0}, {$r1};\\nadd.f32 {$w1}, {$r2}, {$r3};',\n"
        "        write_only_types=[Int32, Float32], read_only_args=[z, ZERO, 1.5, Float32(a)])\n"
    )
    (s,) = statements(text)
    assert [o.constraint.letters for o in s.inputs] == ["n", "n", "f", "f"]


def test_inline_ptx_with_an_unknown_list_is_opaque() -> None:
    text = CUTE + "def f(args):\n    cute.arch.inline_ptx('mov.b32 {$w0}, 1;', read_only_args=args)\n"
    (s,) = statements(text)
    assert s.opaque_sections


def test_nvvm_inline_ptx_builder_binds_positionally() -> None:
    text = (
        "from cutlass._mlir.dialects import nvvm\nfrom cutlass.cutlass_dsl import T\n"
        "def f(x):\n    nvvm.inline_ptx([T.f32()], [x], [], 'ex2.approx.f32 {$w0}, {$r0};')\n"
    )
    (s,) = statements(text)
    assert [o.constraint.text for o in s.operands] == ["=f", HOLE]
    assert s.template.text == "ex2.approx.f32 $0, $1;"


def test_llvm_inline_asm_reads_mlir_result_and_argument_types() -> None:
    text = MLIR + (
        "def f():\n"
        "    i32 = ir.IntegerType.get_signless(32)\n"
        "    x = arith.constant(ir.IntegerType.get_signless(64), 1)\n"
        "    return llvm.inline_asm(i32, [x], 'mov.b32 $0, $1;', '=r,r')\n"
    )
    (s,) = statements(text)
    out, arg = s.operands
    assert out.ctype is not None and out.ctype.size == 4
    assert arg.ctype is not None and arg.ctype.size == 8 and arg.expression.startswith("x")


def test_llvm_inline_asm_struct_results_and_vectors() -> None:
    text = MLIR + (
        "def f(a):\n"
        "    h2 = ir.VectorType.get([2], ir.F16Type.get())\n"
        "    t = ir.Type.parse('!llvm.struct<(i32, i64)>')\n"
        "    llvm.inline_asm(t, [a], 'mov.b32 $0, $2; mov.b64 $1, 0;', '=r,=r,r')\n"
        "    llvm.inline_asm(h2, [a], 'mov.b32 $0, $1;', '=r,r')\n"
    )
    first, second = statements(text)
    assert [o.ctype.size if o.ctype else None for o in first.outputs] == [4, 8]
    assert second.outputs[0].ctype is not None and second.outputs[0].ctype.size == 4


def test_asm_dialect_is_recorded_with_its_span() -> None:
    text = MLIR + (
        "def f(a):\n"
        "    llvm.inline_asm(ir.F32Type.get(), [a], 'tanh.approx.f32 $0, $1;', '=f,f',\n"
        "                    asm_dialect=llvm.AsmDialect.AD_ATT)\n"
    )
    (s,) = statements(text)
    assert s.llvm is not None and s.llvm.asm_dialect == "AD_ATT"
    assert s.llvm.asm_dialect_span is not None
    span = s.llvm.asm_dialect_span
    assert text[span.start : span.end] == "llvm.AsmDialect.AD_ATT"


def test_mlir_operand_count_mismatch_is_graded_by_what_the_compile_does() -> None:
    from tests.conftest import lint_text

    text = MLIR + (
        "def f(a, b, c):\n"
        "    llvm.inline_asm(None, [a, b], 'add.s32 $0, $1, $2;', 'r,r,r', has_side_effects=True)\n"
        "    llvm.inline_asm(None, [a, b, c], 'add.s32 $0, $0, $1;', 'r,r', has_side_effects=True)\n"
    )
    found = sorted(
        (f.severity.value, "SIGILL" in f.message)
        for f in lint_text(text, "k.py", select=("PTX501",))
    )
    assert found == [("error", True), ("warning", False)]


def test_a_constraint_that_does_not_fit_the_mlir_type_is_flagged() -> None:
    from tests.conftest import lint_text

    text = MLIR + (
        "def f(x):\n"
        "    i32 = ir.IntegerType.get_signless(32)\n"
        "    y = arith.constant(ir.IntegerType.get_signless(64), 1)\n"
        "    a = llvm.inline_asm(i32, [x], 'mov.b64 $0, $1;', '=l,l')\n"  # i32 result in 'l'
        "    b = llvm.inline_asm(i32, [y], 'cvt.u32.u64 $0, $1;', '=r,l')\n"  # fits
    )
    found = [f for f in lint_text(text, "k.py", select=("PTX004",))]
    assert len(found) == 1 and "i32" in found[0].message
    assert text[found[0].span.start : found[0].span.end] == "=l"


CUTE = (
    "from cutlass import Int32, Int64\nfrom cutlass._mlir.dialects import llvm\n"
    "from cutlass.cutlass_dsl import T\n\n"
)


def test_a_cute_number_s_ir_value_has_its_class_s_type() -> None:
    """``Int64(p).ir_value(loc=loc, ip=ip)`` is an i64 (CuTe DSL converts the argument to the
    class's type): under ``"r"`` LLVM keeps its low 32 bits, PTX004's root, and PTX206's
    "32-bit register as a .global address" is that defect's echo."""
    from tests.conftest import lint_text

    text = CUTE + (
        "def f(p, a, loc=None, ip=None):\n"
        "    q = Int64(p).ir_value(loc=loc, ip=ip)\n"
        "    x = llvm.inline_asm(T.i32(), [q], 'ld.global.u32 $0, [$1];', '=r,r',\n"
        "                        has_side_effects=True)\n"
        "    y = llvm.inline_asm(T.i32(), [Int32(a).ir_value()], 'add.u32 $0, $1, 1;', '=r,r')\n"
        "    return x, y\n"
    )
    (load, add) = statements(text)
    assert load.operands[1].ctype is not None and load.operands[1].ctype.size == 8
    assert add.operands[1].ctype is not None and add.operands[1].ctype.size == 4
    found = lint_text(text, "k.py", select=("PTX004", "PTX206"))
    assert [f.rule for f in found] == ["PTX004"] and "i64" in found[0].message
    # a value of no known type: the template's 32-bit address is what ptxas reports
    unknown = text.replace("Int64(p).ir_value(loc=loc, ip=ip)", "p.ir_value()")
    assert [f.rule for f in lint_text(unknown, "k.py", select=("PTX004", "PTX206"))] == [
        "PTX206"]


def test_an_llvm_output_the_template_never_names_is_undefined() -> None:
    """An LLVM-syntax output no ``$N`` names is an undefined result (PTX009), as in C++,
    where the template computes something; a template for a side effect that names no output
    gives the result the API requires and the caller ignores (Triton's ``bar.sync``)."""
    from tests.conftest import lint_text

    text = CUTE + (
        "def f(a):\n"
        "    x = Int32(a).ir_value()\n"
        "    u = llvm.inline_asm(T.i32(), [x], '{ .reg .b32 t; add.u32 t, $1, 1; }', '=r,r')\n"
        "    v = llvm.inline_asm(llvm.StructType.get_literal([T.i32(), T.i32()]), [x],\n"
        "                        'mov.b32 $0, $2;', '=r,=r,r')\n"
        "    w = llvm.inline_asm(T.i32(), [], 'bar.sync 1, 64;', '=r', has_side_effects=True)\n"
        "    return u, v, w\n"
    )
    found = lint_text(text, "k.py", select=("PTX009",))
    assert [(f.rule, text.count("\n", 0, f.span.start) + 1) for f in found] == [
        ("PTX009", 7), ("PTX009", 9)]
    # Triton: the dummy result of a barrier, and a packed result's registers each its own
    triton = (
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\n"
        "def k(x):\n"
        "    tl.inline_asm_elementwise('bar.sync 0;', '=r', [], dtype=tl.int32, is_pure=False,\n"
        "                              pack=1)\n"
        "    return tl.inline_asm_elementwise('mov.b32 $0, $2; mov.b32 $1, $3;', '=r,=r,r,r',\n"
        "                                     [x], dtype=tl.int32, is_pure=True, pack=2)\n"
    )
    assert lint_text(triton, "k.py", select=("PTX009",)) == []
    lost = triton.replace(" mov.b32 $1, $3;", "")
    found = lint_text(lost, "k.py", select=("PTX009",))
    assert [f.message.split(" is ")[0] for f in found] == ["output operand 1"]


def test_an_operand_list_built_by_list_arithmetic_is_counted() -> None:
    """``[zero] * 16 + [a0, a1]`` is a list of 18 operands (Python's ``*`` and ``+`` of
    lists): a constraint string one entry short of it is PTX501's; a tensor sum is no list."""
    from tests.conftest import lint_text

    text = CUTE + (
        "def f(z, a, b):\n"
        "    zero = Int32(z).ir_value()\n"
        "    x = llvm.inline_asm(T.i32(), [zero] * 2 + [a, b],\n"
        "                        'add.u32 $0, $1, $2; add.u32 $0, $0, $3;', '=&r,r,r,r')\n"
        "    y = llvm.inline_asm(T.i32(), 2 * [zero], 'add.u32 $0, $1, $2;', '=r,r,r')\n"
        "    return x, y\n"
    )
    (short, whole) = statements(text)
    assert short.llvm is not None and short.llvm.args is not None
    assert [a.text for a in short.llvm.args] == ["zero", "zero", "a", "b"]
    assert whole.llvm is not None and whole.llvm.args is not None and len(whole.llvm.args) == 2
    found = lint_text(text, "k.py", select=("PTX501",))
    assert [text.count("\n", 0, f.span.start) + 1 for f in found] == [8]


def test_inline_ptx_placeholder_with_a_computed_number_is_a_hole() -> None:
    # f"@{{$r{n}}} ..." (CUTLASS's predicated inline_ptx): the lowering rewrites it to an
    # operand this file cannot name, and the ids of the read-only placeholders shift with its
    # unknown rank; the write-only one keeps its $0
    text = CUTE + (
        "def f(a, b, n):\n"
        "    cute.arch.inline_ptx(f'@{{$r{n}}} add.s32 {{$w0}}, {{$r0}}, 1;',\n"
        "        write_only_types=[Int32], read_only_args=[Int32(a), b])\n"
    )
    (s,) = statements(text)
    assert s.template.text == f"@{HOLE} add.s32 $0, {HOLE}, 1;"
    assert "$r" not in s.template.text


MMA = (
    "from cutlass import Float32, Uint32\nfrom cutlass._mlir.dialects import llvm\n"
    "from cutlass.cutlass_dsl import T\n\n"
    "def mma(d0, d1, a0, a1, loc=None, ip=None):\n"
    "    return llvm.inline_asm(\n"
    "        llvm.StructType.get_literal([T.f32(), T.f32()]),\n"
    "        [{values}],\n"
    "        'fma.rn.f32 $0, $2, $3, $0; fma.rn.f32 $1, $2, $3, $1;',\n"
    "        '=f,=f,r,r,0,1', has_side_effects=False)\n"
)
IN_ORDER = "Uint32(a0).ir_value(), Uint32(a1).ir_value(), Float32(d0).ir_value(), " \
    "Float32(d1).ir_value()"
SHIFTED = "Float32(d0).ir_value(), Float32(d1).ir_value(), Uint32(a0).ir_value(), " \
    "Uint32(a1).ir_value()"


def test_tied_inputs_are_typed_in_the_operand_list_s_order() -> None:
    # LLVM's operand list holds every input, the tied ones ("0", "1") among them in the
    # constraints' order: pairing only the untied ones left every type out
    (s,) = statements(MMA.format(values=IN_ORDER))
    assert [o.ctype.spelling if o.ctype else None for o in s.operands] == [
        "f32", "f32", "i32", "i32", "f32", "f32"]


def test_a_tied_input_of_another_type_than_its_output_is_one_finding() -> None:
    from tests.conftest import lint_text

    assert lint_text(MMA.format(values=IN_ORDER), "k.py") == []
    found = lint_text(MMA.format(values=SHIFTED), "k.py")
    assert [f.rule for f in found] == ["PTX004"]
    assert "$4 (i32) to $0 (f32), $5 (i32) to $1 (f32)" in found[0].message
    text = MMA.format(values=SHIFTED)
    assert text[found[0].span.start : found[0].span.end] == "0"


def test_a_tie_of_one_kind_and_width_or_of_unknown_type_is_silent() -> None:
    from tests.conftest import lint_text

    same = MMA.format(values=IN_ORDER).replace("Uint32(a0)", "Float32(a0)")
    unknown = MMA.format(values=SHIFTED).replace("Uint32(a0).ir_value()", "a0").replace(
        "Uint32(a1).ir_value()", "a1")
    for text in (same, unknown):
        assert [f.rule for f in lint_text(text, "k.py", select=("PTX004",))] == []
