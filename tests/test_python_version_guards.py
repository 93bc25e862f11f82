"""The Python front end's toolkit-version guards: a CuTe DSL call under a test of the DSL's CUDA
version (``cutlass.CUDA_VERSION``'s ``major``/``minor``, ``cutlass.target_version``) carries
that test in ``Context.guards`` in the C spelling the shared guard model reads, so PTX204 and
PTX403 judge it as they judge C++ under ``#if CUDA_VERSION >= 13020``. A condition the front
end cannot read exactly adds nothing."""

from __future__ import annotations

import pytest

from ptxlint.frontends.python import extract_python
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.toolkit import oldest_compiling
from ptxlint.ptx.versions import version_options
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

_HEAD = (
    "import cutlass\n"
    "from cutlass._mlir.dialects import llvm\n"
    "from cutlass.cutlass_dsl import T\n\n"
)
# a form new in ptxas 13.2, and the older toolkits' spelling of the same conversion
_NEW = "cvt.rn.bf16x2.e4m3x2 $0, $1;"
_OLD = "cvt.rn.f16x2.e4m3x2 $0, $1;"
_CALL = ('    return llvm.inline_asm(T.i32(), [x], asm, "=r,h", has_side_effects=False,\n'
         "                           asm_dialect=llvm.AsmDialect.AD_ATT)\n")
# flashinfer's spelling (fused_moe/cute_dsl/blackwell/moe_w4a16_utils.py)
_HAS_132 = ("_HAS_DIRECT_CVT = cutlass.CUDA_VERSION.major > 13 or (\n"
            "    cutlass.CUDA_VERSION.major == 13 and cutlass.CUDA_VERSION.minor >= 2\n)\n\n")
_AT_LEAST_132 = ("(__CUDACC_VER_MAJOR__ > 13) || ((__CUDACC_VER_MAJOR__ == 13) && "
                 "(__CUDACC_VER_MINOR__ >= 2))")


def _chosen(condition: str, prelude: str = "") -> str:
    return (_HEAD + prelude + "def widen(x, flag):\n"
            f"    if {condition}:\n        asm = {_NEW!r}\n    else:\n        asm = {_OLD!r}\n"
            + _CALL)


def _statements(text: str) -> list[AsmStatement]:
    return extract_python(SourceFile("k.py", text), parse_template).statements


def _ptx204(text: str, cuda_version: str | None = None) -> list[str]:
    context = RuleContext(options=version_options(cuda_version, None, "."))
    return [f.severity.value for f in lint_text(text, "k.py", select=("PTX204",),
                                                context=context)]


def test_the_flashinfer_pattern_is_read_and_goes_silent() -> None:
    text = _chosen("_HAS_DIRECT_CVT", _HAS_132)
    taken, other = _statements(text)
    assert taken.context.guards == (_AT_LEAST_132,)
    assert other.context.guards == (f"!({_AT_LEAST_132})",)  # the `else` reading
    assert _ptx204(text) == []
    assert _ptx204(text, "12.9") == []  # the guard keeps 12.9 out, as `#if` would
    # the shared guard model reads it: CUDA 13.2 is the oldest toolkit compiling the branch
    assert oldest_compiling(taken.context.guards) == ((13, 2), 92)


def test_the_same_form_ungated_still_warns() -> None:
    text = _HEAD + f"def widen(x):\n    asm = {_NEW!r}\n" + _CALL
    assert [s.context.guards for s in _statements(text)] == [()]
    assert _ptx204(text) == ["warning"]


def test_an_else_branch_holds_the_negation() -> None:
    # the new form in the `else` of a test that the toolkit is older than 13.2: still flagged
    text = (_HEAD + "from cutlass import CUDA_VERSION\n\ndef widen(x):\n"
            "    if CUDA_VERSION.major < 13:\n        return x\n"
            "    elif CUDA_VERSION.minor >= 2:\n        pass\n    else:\n"
            f"        asm = {_NEW!r}\n" + _CALL.replace("    return", "        return"))
    [statement] = _statements(text)
    assert statement.context.guards == ("!(__CUDACC_VER_MAJOR__ < 13)",
                                        "!(__CUDACC_VER_MINOR__ >= 2)")
    assert _ptx204(text) == ["warning"]


def test_a_call_past_an_early_raise_holds_its_negation() -> None:
    # CUTLASS's own wrappers (cute/arch/nvvm_wrappers.py)
    body = ('    if not cutlass.target_version(min_version="13.2"):\n'
            '        raise NotImplementedError("needs CUDA 13.2")\n'
            f"    asm = {_NEW!r}\n")
    text = _HEAD + "def widen(x):\n" + body + _CALL
    [statement] = _statements(text)
    assert statement.context.guards == ("CUDA_VERSION >= 13020",)
    assert _ptx204(text) == []
    # inside `try`, an `except` may run on past the raise: nothing holds
    guarded = _HEAD + "def widen(x):\n    try:\n" + body.replace("\n    ", "\n        ").replace(
        "    if", "        if", 1) + "    except Exception:\n        pass\n" + _CALL
    assert [s.context.guards for s in _statements(guarded)] == [()]


def test_an_and_keeps_its_readable_side_only_where_it_holds() -> None:
    text = _chosen("flag and cutlass.CUDA_VERSION.major >= 14")
    taken, other = _statements(text)
    assert taken.context.guards == ("__CUDACC_VER_MAJOR__ >= 14",)
    assert other.context.guards == ()  # `not (flag and ...)` says nothing of the toolkit


@pytest.mark.parametrize("condition", [
    "flag",  # a parameter
    'torch.version.cuda >= "13.2"',  # PyTorch's CUDA, not the DSL's ptxas
    "cutlass.CUDA_VERSION >= 13.2",  # a DSLCudaVersion does not compare with a float
    "12 < cutlass.CUDA_VERSION.major < 14",  # a chain: not read
    "cutlass.CUDA_VERSION.patch >= 1",
    'cutlass.target_version(min_version="13")',  # DSLCudaVersion needs major.minor
    "cutlass.CUDA_VERSION.major > 13 or flag",
])
def test_a_condition_it_cannot_read_changes_nothing(condition: str) -> None:
    text = _chosen(condition, "import torch\n")
    assert [s.context.guards for s in _statements(text)] == [(), ()]
    assert _ptx204(text) == ["warning"]


def test_a_rebound_version_name_is_not_the_dsls() -> None:
    text = _chosen("CUDA_VERSION.major > 13", "from cutlass import CUDA_VERSION\n"
                   "CUDA_VERSION = object()\n")
    assert [s.context.guards for s in _statements(text)] == [(), ()]


def test_const_expr_and_an_enclosing_if_are_read() -> None:
    text = (_HEAD + "def widen(x):\n"
            "    if cutlass.const_expr(cutlass.target_version(min_version='13.2')):\n"
            f"        asm = {_NEW!r}\n" + _CALL.replace("    return", "        return")
            + "    return x\n")
    [statement] = _statements(text)
    assert statement.context.guards == ("CUDA_VERSION >= 13020",)
    assert _ptx204(text) == []


@pytest.mark.parametrize(("since", "found"), [("12.0", True), ("12.9", False)])
def test_ptx403_holds_the_version_test_against_the_isa(since: str, found: bool) -> None:
    # tcgen05 came with PTX ISA 8.6 (CUDA 12.7): a branch for CUDA 12.0 breaks there
    text = (_HEAD + "def fence(x):\n"
            f"    if cutlass.target_version(min_version={since!r}):\n"
            "        llvm.inline_asm(None, [], 'tcgen05.fence::before_thread_sync;', '',\n"
            "                        has_side_effects=True)\n")
    findings = lint_text(text, "k.py", select=("PTX403",))
    assert [f.rule for f in findings] == (["PTX403"] if found else [])
    if found:
        assert "the version tests around it admit CUDA 12.0" in findings[0].message


def test_a_call_in_an_elif_condition_is_not_under_it() -> None:
    text = (_HEAD + "def widen(x):\n"
            "    if cutlass.CUDA_VERSION.major < 13:\n        return x\n"
            "    elif llvm.inline_asm(T.i32(), [x], 'cvt.rn.bf16x2.e4m3x2 $0, $1;', '=r,h',\n"
            "                         has_side_effects=False) and cutlass.CUDA_VERSION.minor > 1:\n"
            "        return x\n")
    [statement] = _statements(text)
    assert statement.context.guards == ()  # the `elif` tests, it is not under it


def test_a_call_under_a_flag_bound_to_false_is_latent_and_says_which() -> None:
    # vLLM's fmha utils: `use_native_fp4_mul = False` keeps a form ptxas rejects off every run
    text = _HEAD + (
        "def mul(x, y):\n"
        "    use_native = False\n"
        "    if use_native and cutlass.CUDA_VERSION.major >= 13:\n"
        "        return llvm.inline_asm(T.i32(), [x], 'bogus.b32 $0, $1;', '=r,r')\n"
        "    if not use_native:\n"
        "        llvm.inline_asm(T.i32(), [x], 'bogus.b32 $0, $1;', '=r,r')\n"
        "    return llvm.inline_asm(T.i32(), [x, y], 'bogus.b32 $0, $1;', '=r,r,r')\n"
    )
    dead, live, after = _statements(text)
    assert dead.context.guards[0] == "0 /* use_native = False */"
    found = [f for f in lint_text(text, "k.py") if f.rule == "PTX204"]
    assert [(text.count("\n", 0, f.span.start) + 1, f.latent) for f in found] == [
        (8, "in an if branch that no run takes (use_native = False)"), (10, ""), (11, "")]
    # `not use_native` holds, and so does the negation of the dead arm's test after it
    assert live.context.guards[-1] == "!(0 /* use_native = False */)"
    assert after.context.guards[-1].startswith("!((0 /* use_native = False */) && ")
