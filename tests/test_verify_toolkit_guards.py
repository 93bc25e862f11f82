"""A statement whose guards test the toolkit's version beside a project's macro (flashinfer's
csrc/xqa/utils.cuh: ``#if ENABLE_4BIT_KV_CACHE`` around ``__CUDACC_VER_MINOR__ >= 2`` for
CUDA 13.2's cvt.rn.bf16x2.e2m1x2) is in no build of an older toolkit: the project's macro is the
same for every toolkit. Undecided, it used to leave the toolkit unknown, and ptxas 13.0's
rejection of the 13.2 form was quoted as "another reason"."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify.configuration import older_than_guards, oldest_toolkit

SOURCE = """\
#if ENABLE_4BIT_KV_CACHE
__device__ unsigned f(unsigned src) {
  unsigned d;
#if (defined __CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)
#if (defined __CUDACC_VER_MAJOR__) && (defined __CUDACC_VER_MINOR__) && \\
    ((__CUDACC_VER_MAJOR__ > 13) || ((__CUDACC_VER_MAJOR__ == 13) && (__CUDACC_VER_MINOR__ >= 2)))
  asm("{\\n.reg .b8 b0;\\nmov.b32 {b0, _, _, _}, %1;\\ncvt.rn.bf16x2.e2m1x2 %0, b0;\\n}"
      : "=r"(d) : "r"(src));
#endif
#endif
  return d;
}
#endif
"""


def test_a_project_macro_beside_the_toolkit_test_does_not_hide_it():
    [statement] = extract_statements(SourceFile("k.cu", SOURCE)).statements
    assert oldest_toolkit(statement) == (13, 2)
    said = older_than_guards(statement, [("nvcc", "13.0.88"), ("ptxas", "13.0.88")])
    assert said.startswith("the statement's guards compile it only with CUDA 13.2 or newer")
    assert older_than_guards(statement, [("nvcc", "13.2.51"), ("ptxas", "13.2.51")]) == ""


# flashinfer's include/flashinfer/vec_dtypes.cuh: the project's macro and a toolkit test joined
# by && in one guard, around the same CUDA 13.2 test
JOINED = SOURCE.replace("#if ENABLE_4BIT_KV_CACHE",
                        "#if defined(FLASHINFER_ENABLE_FP4_E2M1) && CUDA_VERSION >= 12080")


def test_a_project_macro_joined_to_a_toolkit_test_does_not_hide_it():
    [statement] = extract_statements(SourceFile("k.cu", JOINED)).statements
    assert oldest_toolkit(statement) == (13, 2)
    said = older_than_guards(statement, [("nvcc", "13.0.88"), ("ptxas", "13.0.88")])
    assert said.startswith("the statement's guards compile it only with CUDA 13.2 or newer")

