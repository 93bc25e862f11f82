"""PTX509's finding says what LLVM does with asm_dialect=AD_ATT: nothing for a PTX template.

LLVM's asm printer copies '{', '}' and '|' into the output as written; its dialect alternatives
are spelled '$(', '$|', '$)' (the form clang rewrites GCC's '{a|b}' into), and AD_ATT is
llvm::InlineAsm's default dialect. The finding must not claim that the braces of a PTX scope
block are read as dialect alternatives.
"""

from __future__ import annotations

from tests.conftest import lint_text

_SOURCE = '''\
from cutlass._mlir.dialects import llvm
from cutlass.cutlass_dsl import T


def widen(a, b):
    return llvm.inline_asm(
        T.i32(),
        [a, b],
        "{\\n.reg .u64 p;\\nmul.wide.u32 p, $1, $2;\\ncvt.u32.u64 $0, p;\\n}",
        "=r,r,r",
        asm_dialect=llvm.AsmDialect.AD_ATT,
    )
'''


def test_the_finding_calls_the_argument_a_no_op() -> None:
    findings = lint_text(_SOURCE, path="widen.py", select=("PTX509",))
    assert len(findings) == 1
    message = findings[0].message
    assert "changes nothing" in message
    assert "'$(', '$|', '$)'" in message
    assert "mark dialect alternatives" not in message
    assert findings[0].fix is not None  # the argument can still be removed
