"""PTX405 and the ``.pragma`` strings: the names ptxas knows (ptxlint.ptx.pragmas), and the
build modes whose ptxas rejects ``enable_smem_spilling`` (``-rdc=true``, ``-G``), which a
statement's ``#if`` guards leave out through nvcc's ``__CUDACC_RDC__`` and ``__CUDACC_DEBUG__``
(ptxlint.ptx.targets.left_out_where_defined)."""

from __future__ import annotations

import pytest

from ptxlint.model import HOLE, Severity
from ptxlint.ptx.pragmas import pragmas_of
from ptxlint.ptx.targets import left_out_where_defined
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached


def _pragma_findings(text: str, path: str = "pragma.cu") -> list[tuple[int, str, Severity]]:
    return [(text.count("\n", 0, f.span.start) + 1, f.message, f.severity)
            for f in lint_text(text, path, select=("PTX405",)) if f.rule == "PTX405"]


def test_pragma_strings_are_read_with_their_name_span_and_argument() -> None:
    text = '.pragma "used_bytes_mask 0xff", "nounroll";'
    [mask, unroll] = pragmas_of(text, 10)
    assert (mask.name, mask.has_argument) == ("used_bytes_mask", True)
    assert (unroll.name, unroll.has_argument) == ("nounroll", False)
    assert text[mask.start - 10:mask.end - 10] == "used_bytes_mask"
    assert text[unroll.start - 10:unroll.end - 10] == "nounroll"


@pytest.mark.parametrize("filled", ["%0", "$0", "{name}", HOLE, "   "])
def test_a_string_something_fills_in_is_no_name(filled: str) -> None:
    assert pragmas_of(f'.pragma "{filled}";', 0) == ()


@pytest.mark.parametrize(("guard", "macro", "left_out"), [
    ("!defined(__CUDACC_RDC__)", "__CUDACC_RDC__", True),
    ("defined(__CUDA_ARCH__) && !defined(__CUDACC_DEBUG__)", "__CUDACC_DEBUG__", True),
    # the other option's macro, the target or the toolkit decide nothing about this one
    ("!defined(__CUDACC_RDC__)", "__CUDACC_DEBUG__", False),
    ("defined(__CUDA_ARCH__) && CUDART_VERSION >= 13000", "__CUDACC_RDC__", False),
    ("__CUDA_ARCH__ >= 900", "__CUDACC_RDC__", False),
    # an undecided guard (a project's macro) leaves nothing out
    ("ENABLE_SPILLING", "__CUDACC_RDC__", False),
    ("defined(__CUDACC_RDC__)", "__CUDACC_RDC__", False),
])
def test_a_guard_leaves_a_build_out_only_where_decided_false(guard: str, macro: str,
                                                             left_out: bool) -> None:
    assert left_out_where_defined((guard,), macro) is left_out


# The shape of acts-project/traccc 6c5c39392428's fix: the macro that issues the pragma in its
# kernels was guarded by the target and the toolkit only, and ptxas stopped in the project's
# debug builds (-G, which also enabled -rdc).
_SPILL_MACRO = """\
#if defined(__CUDA_ARCH__) && CUDART_VERSION >= 13000{extra}
#define SPILL_TO_SHARED_MEMORY                        \\
    do {{                                              \\
        asm(".pragma \\"enable_smem_spilling\\";");   \\
    }} while (0)
#else
#define SPILL_TO_SHARED_MEMORY do {{}} while (0)
#endif
"""


def test_spilling_pragma_under_a_target_guard_only_is_flagged_for_both_modes() -> None:
    [(line, message, severity)] = _pragma_findings(_SPILL_MACRO.format(extra=""))
    assert line == 4 and severity is Severity.WARNING
    assert "-rdc=true or -G" in message and "per-function compilation modes" in message


def test_spilling_pragma_whose_guard_leaves_out_both_modes_is_silent() -> None:
    extra = " && \\\n    !defined(__CUDACC_RDC__) && !defined(__CUDACC_DEBUG__)"
    assert _pragma_findings(_SPILL_MACRO.format(extra=extra)) == []


def test_leaving_out_one_mode_names_the_other() -> None:
    extra = " && !defined(__CUDACC_DEBUG__)"
    [(_, message, _)] = _pragma_findings(_SPILL_MACRO.format(extra=extra))
    assert "built with -rdc=true," in message and "-G" not in message.split("stops")[0]


def test_a_file_macro_standing_for_the_build_mode_is_read_through_its_definition() -> None:
    text = """\
#if !defined(__CUDACC_RDC__) && !defined(__CUDACC_DEBUG__)
#define CAN_SPILL 1
#else
#define CAN_SPILL 0
#endif
#if CAN_SPILL
__global__ void k(float* x) { asm volatile(".pragma \\"enable_smem_spilling\\";"); }
#endif
"""
    assert _pragma_findings(text) == []
    # the same kernel without the guard is flagged
    unguarded = text.replace("#if CAN_SPILL\n", "").replace("#endif\n", "", 2)
    assert [line for line, _, _ in _pragma_findings(unguarded)] == [5]


def test_misspelt_and_unknown_names_are_flagged_with_the_closest_name() -> None:
    text = """\
__global__ void k(float* x) {
  asm volatile(".pragma \\"enable_smem_spillng\\";");
  asm volatile(".pragma \\"noprefetch\\";");
  asm volatile(".pragma \\"nounroll\\";");
}
"""
    found = _pragma_findings(text)
    assert [line for line, _, _ in found] == [2, 3]
    assert "did you mean 'enable_smem_spilling'" in found[0][1]
    assert "did you mean" not in found[1][1]


def test_ptxas_matches_the_whole_string_and_the_message_quotes_it() -> None:
    text = """\
__global__ void k(float* x) {
  asm volatile(".pragma \\"unroll 4\\";");
  asm volatile(".pragma \\"nounroll 4\\";");
  asm volatile(".pragma \\" nounroll\\";");
  asm volatile(".pragma \\"enable_smem_spilling 1\\";");
  asm volatile(".pragma \\"used_bytes_mask 0x3\\";");
}
"""
    found = [(line, message) for line, message, _ in _pragma_findings(text)
             if "unsupported" in message]
    assert [line for line, _ in found] == [2, 3, 4]
    assert "\"Pragma 'unroll 4' unsupported\"" in found[0][1]
    assert "\"Pragma 'nounroll 4' unsupported\"" in found[1][1]
    assert "did you mean 'nounroll'" in found[1][1]
    assert "\"Pragma ' nounroll' unsupported\"" in found[2][1]


def test_an_argument_taking_pragma_needs_its_argument() -> None:
    text = """\
__global__ void k(float* x) {
  asm volatile(".pragma \\"used_bytes_mask\\";");
  asm volatile(".pragma \\"used_bytes_mask 0x3\\";");
}
"""
    assert [(line, severity) for line, _, severity in _pragma_findings(text)] == [
        (2, Severity.ERROR)]


def test_a_python_dsl_template_gets_the_name_check_but_no_build_mode_check() -> None:
    text = """\
import triton
import triton.language as tl


@triton.jit
def kernel(x):
    tl.inline_asm_elementwise(".pragma \\"enable_smem_spilling\\"; mov.b32 $0, $1;", "=r,r",
                              [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.inline_asm_elementwise(".pragma \\"nounrol\\"; mov.b32 $0, $1;", "=r,r",
                              [x], dtype=tl.int32, is_pure=True, pack=1)
"""
    assert [line for line, _, _ in _pragma_findings(text, "pragma.py")] == [9]


def _pragma_kernel(pragma: str, guard: str | None = None) -> str:
    line = f'  asm volatile(".pragma \\"{pragma}\\";");\n'
    if guard is not None:
        line = f"#if {guard}\n{line}#endif\n"
    return ("__global__ void k(float* x) {\n" + line
            + "  for (int i = 0; i < 8; ++i) x[i] *= 2.f;\n}\n")


_BUILD_MODES_OUT = "!defined(__CUDACC_RDC__) && !defined(__CUDACC_DEBUG__)"


@needs_nvcc
@pytest.mark.parametrize(("pragma", "guard", "flags", "ptxas_says"), [
    ("nounroll", None, (), None),
    ("no_unroll", None, (), "ptxas warning : Pragma 'no_unroll' unsupported"),
    ("unroll 4", None, (), "ptxas warning : Pragma 'unroll 4' unsupported"),
    ("nounroll 4", None, (), "ptxas warning : Pragma 'nounroll 4' unsupported"),
    (" nounroll", None, (), "ptxas warning : Pragma ' nounroll' unsupported"),
    ("used_bytes_mask 0x3", None, (), None),
    ("frequency", None, (), "Argument(s) to pragma 'frequency' cannot be empty"),
    ("enable_smem_spilling", None, (), None),  # whole-program compilation takes it
    ("enable_smem_spilling", None, ("-rdc=true",),
     "Pragma 'enable_smem_spilling' is not allowed for per-function compilation modes"),
    ("enable_smem_spilling", None, ("-G",),
     "Pragma 'enable_smem_spilling' is not allowed for per-function compilation modes"),
    ("enable_smem_spilling", _BUILD_MODES_OUT, ("-rdc=true",), None),
    ("enable_smem_spilling", _BUILD_MODES_OUT, ("-G",), None),
])
def test_ptxas_says_what_ptx405_reports(pragma: str, guard: str | None,
                                        flags: tuple[str, ...], ptxas_says: str | None) -> None:
    """The defect each finding names, as nvcc 13.0 (its ptxas) gives it, and no finding where
    ptxas takes the pragma in every build mode the guards let in."""
    source = _pragma_kernel(pragma, guard)
    assert NVCC is not None
    run = run_cached(NVCC, ["-arch=sm_90", "-c", *flags, INPUT, "-o", OUTPUT], source,
                     filename="k.cu")
    if ptxas_says is None:
        assert run.ok and "ptxas" not in run.stderr, run.stderr
    else:
        assert ptxas_says in run.stderr
    found = _pragma_findings(source)
    if ptxas_says is not None:
        [(_, message, _)] = found
        assert ptxas_says.removeprefix("ptxas warning : ") in message
    elif guard is not None or not pragma.startswith("enable_smem_spilling"):
        assert found == []
    # the unguarded spilling pragma built whole-program: its finding speaks of the other builds
