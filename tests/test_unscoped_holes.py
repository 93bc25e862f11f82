"""PTX201/PTX202 on templates with a hole: what precedes the first hole stands at the depth its
own braces give, and an LLVM-syntax declaration whose one name is built at run time is the same
name in every copy of the statement unless the module spells ``${:uid}``."""

from __future__ import annotations

from tests.conftest import lint_text

_NUMBA = '''\
from llvmlite import ir


def temp_register(builder):
    return builder.function.scope.register("__$$temp1", deduplicate=False)


def lower_compare(context, builder, sig, args):
    temp_reg = temp_register(builder)
    fnty = ir.FunctionType(ir.VoidType(), [])
    _ = builder.call(ir.InlineAsm(fnty, {declaration}, ""), [])
    setp = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [ir.IntType(16), ir.IntType(16)]),
                        f"setp.lt.f16 {{temp_reg}}, $0, $1;", "h,h")
    _ = builder.call(setp, args)
    selp = ir.InlineAsm(ir.FunctionType(ir.IntType(16), []),
                        f"selp.u16 $0, 1, 0, {{temp_reg}};{closing}", "=h")
    return builder.call(selp, [])
'''


def _numba(declaration: str, closing: str = "") -> str:
    return _NUMBA.format(declaration=declaration, closing=closing)


def test_run_time_register_name_outside_braces() -> None:
    # Numba's fp16 comparisons before 3216f8383b0b: the predicate's name comes from a helper
    # at run time, unique per LLVM function, not per copy of the inlined function
    (found,) = lint_text(_numba('f".reg .pred {temp_reg};"'), "cudaimpl.py", select=("PTX201",))
    assert "'temp_register(builder)'" in found.message
    assert "LLVM inlines the function around the asm" in found.message
    assert found.fix is None  # the name is for the next statements: braces would hide it


def test_run_time_register_name_inside_a_split_scope_is_silent() -> None:
    # the fix: the first statement opens '{', the last closes it
    text = _numba('f"{{ .reg .pred {temp_reg};"', closing="}}")
    assert not lint_text(text, "cudaimpl.py", select=("PTX201",))


def test_run_time_name_in_a_module_that_spells_uid_is_silent() -> None:
    # the helper may hand back a name unique per copy: LLVM's ${:uid}
    text = _numba('f".reg .pred {temp_reg};"').replace(
        '"__$$temp1"', '"__$$temp${:uid}"')
    assert not lint_text(text, "cudaimpl.py", select=("PTX201",))


def test_run_time_part_of_a_name_is_silent() -> None:
    # p{n}: the hole ends the name, and nothing says what it adds
    text = _numba('f".reg .pred p{temp_reg};"')
    assert not lint_text(text, "cudaimpl.py", select=("PTX201",))


_CXX = """\
__device__ unsigned f(unsigned x) {{
  unsigned r;
  asm({template} : "=r"(r) : "r"(x));
  return r;
}}
"""


def test_declaration_before_a_macro_hole() -> None:
    # `SUFFIX` is no macro the file defines: a hole; '.reg .b32 t;' precedes it at depth 0
    text = _CXX.format(template='".reg .b32 t; add.u32 t, %1, 1; mov.u32 %0, t;" SUFFIX')
    (found,) = lint_text(text, select=("PTX201",))
    assert "'.reg' declares 't'" in found.message
    assert found.fix is None  # the hole may hold a brace: wrapping is not known to balance


def test_declaration_after_a_macro_hole_is_silent() -> None:
    # the hole may open the scope the declaration stands in
    text = _CXX.format(template='PREFIX ".reg .b32 t; add.u32 t, %1, 1; mov.u32 %0, t;"')
    assert not lint_text(text, select=("PTX201",))


def test_cxx_macro_name_is_silent() -> None:
    # a C++ macro ptxlint cannot read may expand to a name with %= (unique per copy)
    text = _CXX.format(template='".reg .pred " NAME "; setp.ne.u32 " NAME ", %1, 0; '
                                'selp.u32 %0, 1, 0, " NAME ";"')
    assert not lint_text(text, select=("PTX201",))


def test_label_before_a_macro_hole() -> None:
    text = _CXX.format(template='"mov.u32 %0, %1; DONE: " TAIL')
    (found,) = lint_text(text, select=("PTX202",))
    assert "'DONE'" in found.message


def test_cute_dsl_name_from_the_caller_is_silent() -> None:
    # a CuTe DSL helper is traced again at each call, its template built anew: each call
    # declares the name its caller gives (flash-attention's declare_ptx_idesc(op, var_name=...))
    text = '''\
import cutlass.cute as cute
from cutlass._mlir.dialects import llvm


@cute.jit
def declare_idesc(value: int, var_name: str = "idesc") -> None:
    llvm.inline_asm(None, [], f".reg .b32 {var_name};\\n\\tmov.b32 {var_name}, {hex(value)};",
                    constraints="", has_side_effects=True)
'''
    assert not lint_text(text, "helpers.py", select=("PTX201",))
    # the same helper with a name of its own is a duplicate at its second call
    fixed = text.replace("{var_name}", "idesc")
    (found,) = lint_text(fixed, "helpers.py", select=("PTX201",))
    assert "'idesc'" in found.message
    # why a second copy exists is the trace's, not Triton's packs
    assert "each time the kernel's trace reaches it" in found.message
    assert "pack" not in found.message
