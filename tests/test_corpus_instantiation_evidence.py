"""Proof from ptxas, on instantiations of the real code, for the grammar errors that
tests/data/reviewed_findings.toml lists as real defects in code that no build of its package
compiles (flashinfer's sdist, the instruction-grammar block; TransformerEngine's ``_LOOSE_PRECISION``
cvt.rs, the "cvt" block; fmha_v2's ``Hgmma_rfa_fp16<8, TB>``): such an error stays only once a
compile of an instantiation shows ptxas rejecting that very statement.

Each probe includes the corpus header (or, where the header cannot compile on its own, takes the
header's device code from the corpus file at test time under a ``#line`` directive), with no
more than a build could add: a macro the header tests (``-D``), an empty stand-in for a library
header that only host code uses, a declaration of a name the statement uses but never declares.
It calls the
functions and templates that hold the statements, compiles with nvcc 13.0 to PTX with line
information for the target the code's guard admits, and assembles that PTX with ptxas. Each
ptxas error is traced back to its source line: the error's PTX line lies in an inline-asm block,
the ``.loc`` in front of the block names the file and a line of the ``asm`` statement, and the
block's lines are the statement's template split at its newlines, so each error names one
instruction (its source lines, from its first to its ';'). The test asserts that the rejected
instructions are exactly those holding a predicted finding line and that each carries the
predicted message; the probes call clean neighbours too (the same template with the right
operands, the other branch, the same helper on a target that has the form), which must
assemble. A last test asserts that ptxlint's errors in the probed files are exactly these.

Needs nvcc/ptxas and the corpus trees (``$PTXLINT_CORPORA/src/flashinfer-python``,
``$PTXLINT_CORPORA/git/TransformerEngine``, default ``corpora/`` in ptxlint's cache folder:
``scripts/locations.py``); skipped otherwise. The toolchain cache keys each compile on the
probe's include folders too, so an updated corpus is compiled again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from ptxlint.config import Config, RuleSelector
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.run.runner import run
from scripts.locations import corpora_root
from tests.test_corpora import precision
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, PTXAS, needs_nvcc, needs_ptxas, run_cached

CORPORA = str(corpora_root())
TREE = "flashinfer-python"
TE = "TransformerEngine"
EVIDENCE = "tests/test_corpus_instantiation_evidence.py"


def tree_root(name: str) -> str:
    tree = next(t for t in precision.TREES if t.name == name)
    path = precision.tree_path(tree, Path(CORPORA))
    if path is None:
        pytest.skip(f"{name} not under {CORPORA}")
    return str(path)


def corpus_file(root: str, path: str) -> str:
    full = os.path.join(root, path)
    if not os.path.exists(full):
        pytest.skip(f"{path} not in {root}")
    with open(full, encoding="utf-8", errors="replace") as handle:
        return handle.read()


# --- the source side: asm statements, their templates and the line of each template line ----

_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|inline|goto))*\s*\(")
_NOT_AN_INSTRUCTION = re.compile(r"^\s*(?:[{}]\s*)*$|^\s*[\w$.]+:\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r", "0": "\0"}


@dataclass(frozen=True)
class Piece:
    """One line of a template (ptxas numbers the lines of an inline-asm block so), with the
    source lines of the instruction that starts on it: from its first non-blank character to
    the ';' that ends it (0, 0 for a blank line)."""

    text: str
    first: int
    last: int


@dataclass(frozen=True)
class Statement:
    first: int  # 1-based line of the asm keyword
    last: int  # 1-based line of its closing parenthesis
    pieces: tuple[Piece, ...]


def _decode_template(text: str, at: int, line: int) -> list[tuple[str, int]]:
    """The template's (char, source line) pairs: its string literals from ``at`` (on source
    line ``line``) up to the first ':' or ')'. A preprocessor line inside the template is
    passed over, so both branches of an ``#if`` count: an instruction after the branch not
    taken is numbered too far, and then fails the opcode cross-check (an untraced error, never
    a wrong trace)."""
    chars: list[tuple[str, int]] = []
    i = at
    line_start = False
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
            line_start = True
        elif c == "#" and line_start:
            i = text.index("\n", i) - 1
        elif c.isspace():
            pass
        elif c == '"':
            i += 1
            while text[i] != '"':
                c = text[i]
                if c == "\\":
                    nxt = text[i + 1]
                    if nxt == "\n":  # a spliced line inside the literal
                        line += 1
                    else:
                        chars.append((_ESCAPES.get(nxt, nxt), line))
                    i += 2
                    continue
                if c == "\n":
                    line += 1
                chars.append((c, line))
                i += 1
        elif c in ":)":
            return chars
        elif text.startswith("//", i):
            i = text.index("\n", i) - 1
        if not c.isspace():
            line_start = False
        i += 1
    return chars


def _close(text: str, at: int) -> int:
    """The index of the ')' that closes the '(' before ``at``."""
    depth, i = 1, at
    while depth:
        c = text[i]
        if c == '"' or c == "'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i - 1


def statements(text: str) -> list[Statement]:
    found = []
    for match in _ASM.finditer(text):
        first = text.count("\n", 0, match.start()) + 1
        try:
            chars = _decode_template(text, match.end(), first)
            end = _close(text, match.end())
        except (IndexError, ValueError):  # 'asm (' in a comment or a macro: not a statement
            continue
        starts = [0] + [i + 1 for i, (c, _) in enumerate(chars) if c == "\n"]
        bounds = [*starts[1:], len(chars) + 1]
        pieces = []
        for start, stop in zip(starts, bounds, strict=True):
            piece = chars[start:stop - 1]
            body = "".join(c for c, _ in piece)
            lines = [n for c, n in piece if not c.isspace()]
            if not lines:
                pieces.append(Piece(body, 0, 0))
                continue
            last = lines[-1]
            if ";" not in body and not _NOT_AN_INSTRUCTION.match(body):
                last = next((n for c, n in chars[stop:] if c == ";"), last)
            pieces.append(Piece(body, lines[0], last))
        found.append(Statement(first, text.count("\n", 0, end) + 1, tuple(pieces)))
    return found


# --- the PTX side: which source line each ptxas error comes from ----------------------------

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_ERROR = re.compile(r"line (\d+); error\s*:\s*(.*)")


def _opcode(instruction: str) -> str:
    words = instruction.replace("{", " ").replace("}", " ").split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


Where = tuple[str, int, int]  # corpus path, first and last source line of an instruction


def rejected(ptx: str, stderr: str, root: str) -> dict[Where, list[str]]:
    """Each instruction that ptxas rejects in ``ptx`` (its errors in ``stderr``), with its
    messages; an error that cannot be traced to an instruction of a corpus template, or whose
    PTX opcode is not the template's, is keyed by its PTX line."""
    lines = ptx.splitlines()
    files = {m.group(1): m.group(2) for m in map(_FILE.match, lines) if m}
    # per PTX line: (file number, line) of the .loc before its block and its index in the block
    origin: dict[int, tuple[str, int, int]] = {}
    loc: tuple[str, int] = ("", 0)
    block = -1
    for number, text in enumerate(lines, 1):
        m = _LOC.match(text)
        if m and block < 0:
            loc = (m.group(1), int(m.group(2)))
        elif "// begin inline asm" in text:
            block = 0
        elif "// end inline asm" in text:
            block = -1
        elif block >= 0:
            origin[number] = (loc[0], loc[1], block)
            block += 1
    found: dict[Where, list[str]] = {}
    for m in _ERROR.finditer(stderr):
        number, message = int(m.group(1)), m.group(2).strip()
        text = lines[number - 1] if 0 < number <= len(lines) else ""
        key: Where = (f"PTX line {number}: {text.strip()}", 0, 0)
        if number in origin:
            file_id, line, index = origin[number]
            path = os.path.relpath(os.path.realpath(files.get(file_id, "")), os.path.realpath(root))
            piece = _piece(root, path, line, index)
            if piece is not None and piece.first and _opcode(piece.text) == _opcode(text):
                key = (path, piece.first, piece.last)
        found.setdefault(key, []).append(message)
    return found


@cache
def _statements_of(full: str) -> list[Statement]:
    with open(full, encoding="utf-8", errors="replace") as handle:
        return statements(handle.read())


def _piece(root: str, path: str, line: int, index: int) -> Piece | None:
    full = os.path.join(root, path)
    if path.startswith("..") or not os.path.exists(full):
        return None
    for statement in _statements_of(full):
        if statement.first <= line <= statement.last and index < len(statement.pieces):
            return statement.pieces[index]
    return None


# --- the probes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    name: str
    arch: str  # the target its guard admits, e.g. "80" for sm_80
    includes: tuple[str, ...]  # folders under the tree
    body: Callable[[str], str]  # tree root -> the probe's source
    expected: dict[tuple[str, int], str]  # (path, line) -> a regex for ptxas's message
    defines: tuple[str, ...] = ()
    extra: dict[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)  # other
    # messages ptxas gives on a predicted line (one instruction, two complaints)
    tree: str = TREE
    stand_ins: tuple[str, ...] = ()  # library headers given as empty files (host code only)
    borrowed: tuple[tuple[str, str], ...] = ()  # (tree, folder): a submodule the checkout lacks


def region(root: str, path: str, start: str, stop: str) -> str:
    """The lines of ``path`` from the first matching ``start`` up to the first ``stop`` after
    it, under a #line directive so that nvcc's line information names the corpus file."""
    text = corpus_file(root, path)
    begin = re.search(start, text, re.M)
    end = re.search(stop, text[begin.end():], re.M) if begin else None
    if begin is None or end is None:
        pytest.skip(f"{path} no longer has the code this probe takes ({start!r}..{stop!r})")
    first = text.count("\n", 0, begin.start()) + 1
    return (f'#line {first} "{os.path.join(root, path)}"\n'
            + text[begin.start():begin.end() + end.start()])


SM61_HPP = "3rdparty/cutlass/include/cute/arch/mma_sm61.hpp"
SM61_H = "3rdparty/cutlass/include/cutlass/arch/mma_sm61.h"


def cutlass_dp2a(root: str) -> str:
    return """#include <cute/arch/mma_sm61.hpp>
#include <cutlass/arch/mma.h>  // includes mma_sm61.h after the primary template
using namespace cutlass;
__global__ void k(int32_t* d, uint32_t const* a, uint32_t const* b) {
  cute::SM61_DP2A::fma(d[0], a[0], b[0], d[1]);
  cute::SM61_DP4A::fma(d[2], a[1], b[1], d[3]);  // dp4a: the clean neighbour
  arch::Mma<gemm::GemmShape<1, 1, 2>, 1, int16_t, layout::RowMajor, int16_t,
            layout::ColumnMajor, int, layout::RowMajor, arch::OpMultiplyAdd> dp2a;
  Array<int, 1> acc, out;
  acc[0] = d[4];
  dp2a(out, *reinterpret_cast<Array<int16_t, 2> const*>(a + 2),
       *reinterpret_cast<Array<int16_t, 2> const*>(b + 2), acc);
  d[5] = out[0];
}
"""


FRAGMENT = "csrc/fmha_v2/fmha/fragment.h"


def fmha_fragment(root: str) -> str:
    return """#include <cstdint>
#include <fmha/fragment.h>
template <class Tr>
__device__ void run(fmha::Fragment_accumulator<Tr>* acc, void const* a, void const* b) {
  acc->mma(*static_cast<fmha::Fragment_a<Tr, fmha::Row> const*>(a),
           *static_cast<fmha::Fragment_b<Tr, fmha::Col> const*>(b));
}
__global__ void k(void* acc, void const* a, void const* b) {
  using Bf16 = fmha::Ampere_hmma_bf16_bf16_traits;
  using Fp16 = fmha::Ampere_hmma_fp16_traits;  // the clean neighbour (f16 accumulators)
  run(static_cast<fmha::Fragment_accumulator<Bf16>*>(acc), a, b);
  run(static_cast<fmha::Fragment_accumulator<Fp16>*>(acc), a, b);
}
"""


ARRIVE_WAIT = "csrc/fmha_v2/fmha/hopper/arrive_wait.h"


def fmha_arrive_wait(root: str) -> str:
    return """#include <cstdint>
#include <fmha/utils.h>
#include <fmha/hopper/arrive_wait.h>
__global__ void k(uint64_t* bars, int* out, unsigned phase, int pred, unsigned bytes) {
  fmha::Arrive_wait aw(bars);
  out[0] = aw.bar_peek(0, phase);
  out[1] = aw.bar_peek(1, phase, pred);
  aw.bar_arrive_normal(2);
  aw.bar_arrive_ldgsts(3);
  fmha::bar_arrive_set_transactioncnt(static_cast<unsigned>(phase), bytes);
}
"""


UTILS = "csrc/fmha_v2/fmha/utils.h"


def fmha_utils(root: str) -> str:
    return """#include <cstdint>
#include <fmha/utils.h>
__global__ void k(uint32_t* out) {
  out[0] = fmha::elect_one_sync();
  fmha::fence_view_async_global();
  fmha::fence_view_async_shared();  // the clean neighbour
}
"""


CUDA_UTILS = "csrc/nv_internal/include/tensorrt_llm/common/cudaUtils.h"


def trtllm_cuda_utils(root: str) -> str:
    # cudaUtils.h needs cuBLAS and TensorRT-LLM's logger, which the sdist does not ship: its
    # device helpers (from the __nvvm_get_smem_pointer declaration to the last stas overload)
    # are taken as they are, in their namespace
    code = region(root, CUDA_UTILS, r'^extern "C" \{', r"^struct OrderedMutex")
    return ("#include <cstdint>\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n"
            "#include <cuda_bf16.h>\nnamespace tensorrt_llm::common {\n" + code + """}
using namespace tensorrt_llm::common;
struct Six { uint32_t x[6]; };
__global__ void k(uint64_t* b, uint32_t* d, uint64_t* d64, int* out, uint32_t c, uint32_t w) {
  Arrive_wait aw(b);
  out[0] = aw.bar_peek(0, c);
  out[1] = aw.bar_peek(0, c, 1);
  aw.bar_wait(0, c);
  aw.bar_arrive_normal(0);
  aw.bar_arrive_set_transactioncnt(0, 16);
  aw.bar_arrive_set_transactioncnt(0, 16, c);
  aw.bar_arrive_dsmem(0);
  cga_sync();
  cga_arrive();
  cga_wait();
  arrive_barrier(b, 2);
  arrive_DSMEM_barrier(b, c);
  stas(d, b, c, w);
  stas(d64, b, c, d64[1]);
  stas(d64, b, c, w, w, w, w);
  Six s{};
  stas<true, true, Six>(reinterpret_cast<Six*>(d), b, c, s);
}
""")


XQA_UTILS = "csrc/xqa/utils.cuh"


def xqa_ldmatrix(root: str) -> str:
    return """#include "utils.cuh"
__global__ void k(LdGrain const* row, uint32_t* out) {
  out[0] = ldmatrix<true, 1>(row)[0];
  out[1] = ldmatrix<false, 1>(row)[0];
  out[2] = ldmatrix<true, 2>(row)[1];  // the clean neighbours: {a, b} and {a, b, c, d}
  out[3] = ldmatrix<false, 4>(row)[3];
}
"""


UTILS_HGMMA = "csrc/fmha_v2/fmha/hopper/utils_hgmma.h"


def fmha_hgmma_rfa(root: str) -> str:
    # Hgmma_rfa_fp16<8, TB>::mma names `desc_a`, which neither it nor the header declares, so
    # the front end stops there. Declared here (any 64-bit value gives the statement the same
    # operands: %6 desc_a, %7 desc_b, %8 trans_b), the statement reaches ptxas as written.
    return """#include <cstdint>
__device__ uint64_t desc_a;  // the name the statement uses and nothing declares
#include <fmha/hopper/utils_hgmma.h>
__global__ void k(uint64_t b, uint32_t* acc, uint32_t const* r) {
  uint32_t (&c2)[2] = *reinterpret_cast<uint32_t (*)[2]>(acc);
  uint32_t (&c4)[4] = *reinterpret_cast<uint32_t (*)[4]>(acc);
  uint32_t const (&a)[4] = *reinterpret_cast<uint32_t const (*)[4]>(r);
  fmha::Hgmma_rfa_fp16<8, true>::mma(a, b, c2);
  fmha::Hgmma_rfa_fp16<8, false>::mma(a, b, c2);
  fmha::Hgmma_rfa_fp16<16, true>::mma(a, b, c4);  // the clean neighbour: no desc_a
}
"""


TE_PTX = "transformer_engine/common/util/ptx.cuh"
# common.h includes these for its host-side error macros; CUDA 13.0 here ships none of them
TE_STAND_INS = ("cublas_v2.h", "cudnn.h", "nvrtc.h", "nccl.h")


def te_mul_cvt_4x(root: str) -> str:
    # every mul_cvt_4x overload with a _LOOSE_PRECISION branch: those with a floatx4 scale pass
    # scale2[1] ("l") as %4; those with a floatx2 scale pass the 0x80008000 bits ("r")
    return """#include "common/util/ptx.cuh"
using namespace transformer_engine::ptx;
__global__ void k(fp8e4m3x4* o4, fp8e5m2x4* o5, bf16x4 const* b, fp16x4 const* h,
                  floatx4 const* f, floatx2 const* s2, floatx4 const* s4) {
  mul_cvt_4x(o4[0], b[0], s2[0]);
  mul_cvt_4x(o4[1], b[0], s4[0]);
  mul_cvt_4x(o5[0], b[0], s2[0]);
  mul_cvt_4x(o5[1], b[0], s4[0]);
  mul_cvt_4x(o4[2], h[0], s2[0]);
  mul_cvt_4x(o4[3], h[0], s4[0]);
  mul_cvt_4x(o5[2], h[0], s2[0]);
  mul_cvt_4x(o5[3], h[0], s4[0]);
  mul_cvt_4x(o5[4], f[0], s2[0]);
  mul_cvt_4x(o5[5], f[0], s4[0]);
  mul_cvt_4x(o4[4], f[0], s2[0]);
  mul_cvt_4x(o4[5], f[0], s4[0]);
}
"""


def deepspeed_to_double(root: str) -> str:
    # PTX_AVAILABLE: ds_kernel_utils.h defines it for __CUDA_ARCH__ >= 530
    return """#include "conversion_utils.h"
__global__ void k(double* d, const float* f, const __half* h) {
  d[0] = conversion::to<double>(f[0]);
  d[1] = conversion::to<double>(h[0]);  // converts through to<double>(float)
}
"""


FUSER_MEMORY = "runtime/memory.cu"
# the runtime files nvFuser's kernel preamble (csrc/runtime/compiled_kernel.cpp) puts before
# memory.cu that it needs, in the preamble's order
_FUSER_PRELUDE = ("basic_type_traits", "bit", "fp16_support", "bf16_support", "fp8_support",
                  "fp4_support", "type_traits", "array")


def fuser_multicast(root: str) -> str:
    includes = "".join(f'#include "{name}.cu"\n' for name in _FUSER_PRELUDE)
    return ("#include <cstdint>\n// the preamble declares it (compiled_kernel.cpp, from cuda.h)\n"
            "struct TensorMap { alignas(64) uint64_t opaque[16]; };\n" + includes + """\
#include "memory.cu"
template <int N>
__device__ void load(const TensorMap* m, uint32_t s, uint16_t mask, int c) {
  Hopper::CpAsyncBulkTensorTileG2SIndex<N> index{m, {}, s};
  for (int i = 0; i < N; i++) index.crds[i] = c + i;
  Hopper::cpAsyncBulkTensorTileG2SMulticast(index, s, mask);
}
__global__ void k(const TensorMap* m, uint32_t s, uint16_t mask, int c) {
  load<1>(m, s, mask, c);  // the clean neighbours: .multicast::cluster
  load<2>(m, s, mask, c);
  load<3>(m, s, mask, c);
  load<4>(m, s, mask, c);
  load<5>(m, s, mask, c);
}
""")


TL_ATOMIC = "src/tl_templates/cuda/atomic.h"


def tilelang_atomic_or(root: str) -> str:
    # the memory order is a run-time value: every branch is compiled
    return """#include "tl_templates/cuda/atomic.h"
__global__ void k(int* i, unsigned long long* u, int v, int order) {
  AtomicOr(i, v, order);
  AtomicOr(u, (unsigned long long)v, order);
}
"""


# deepspeed's three copies of its kernel includes
_DEEPSPEED_INCLUDES = ("csrc/includes", "deepspeed/inference/v2/kernels/includes",
                       "deepspeed/ops/csrc/includes")
_CVT_MISMATCH = r"Arguments mismatch for instruction 'cvt'"
_EXPECT_COPY = r"Not a name of any known instruction: 'mbarrier\.arrive\.expect_copy'"
_DP2A = r"'\.hi/\.lo' modifier required for instruction 'dp2a'"
_UNKNOWN_INSTRUCTION = r"Not a name of any known instruction: '{}'"
_TRY_WAIT_90 = r"Feature 'mbarrier\.try_wait(\.parity)?' requires \.target sm_90 or higher"
_EXPECT_TX_90 = r"Feature 'mbarrier\.arrive\.expect_tx' requires \.target sm_90 or higher"
_SETCTARANK = {(CUDA_UTILS, n): _UNKNOWN_INSTRUCTION.format("setctarank")
               for n in (1042, 1043, 1062, 1063, 1083, 1084, 1105, 1106)}

# CUTLASS itself and the copies other packages vendor (the same two statements)
_CUTLASS_COPIES = (("cutlass", "include"), ("flash-attn", "csrc/cutlass/include"),
                   ("xformers", "third_party/cutlass/include"))

PROBES = [
    Probe("cutlass-sm61-dp2a", "75", ("3rdparty/cutlass/include",), cutlass_dp2a,
          {(SM61_HPP, 78): _DP2A, (SM61_H, 125): _DP2A}),
    *[Probe(f"cutlass-sm61-dp2a-{tree}", "75", (include,), cutlass_dp2a,
            {(f"{include}/cute/arch/mma_sm61.hpp", 78): _DP2A,
             (f"{include}/cutlass/arch/mma_sm61.h", 125): _DP2A}, tree=tree)
      for tree, include in _CUTLASS_COPIES],
    Probe("fmha-v2-ampere-bf16-fragment", "80", ("csrc/fmha_v2",), fmha_fragment,
          {(FRAGMENT, 794): r"Argument vector size mismatch for instruction 'mma'",
           (FRAGMENT, 802): r"Argument vector size mismatch for instruction 'mma'"}),
    Probe("fmha-v2-arrive-wait-default", "90", ("csrc/fmha_v2",), fmha_arrive_wait,
          {(ARRIVE_WAIT, 387): _EXPECT_COPY}),
    # the header's own switches: the "internal" .nosleep try_wait, and the pre-mbarrier
    # arrive path that runs when CUDA_CP_ASYNC_MBARRIER_ARRIVE_ENABLED is 0
    Probe("fmha-v2-arrive-wait-configured", "90", ("csrc/fmha_v2",), fmha_arrive_wait,
          {(ARRIVE_WAIT, 128): r"Unknown modifier '\.nosleep'",
           (ARRIVE_WAIT, 164): r"Unknown modifier '\.nosleep'",
           (ARRIVE_WAIT, 352): r"Unknown modifier '\.arrive'",
           (ARRIVE_WAIT, 367): r"Unknown modifier '\.arrive'",
           (ARRIVE_WAIT, 387): _EXPECT_COPY},
          defines=("FMHA_PTX_MBARRIER_TRYWAIT_NOSLEEP_INTERNAL_SUPPORT_ENABLED=1",
                   "CUDA_CP_ASYNC_MBARRIER_ARRIVE_ENABLED=0"),
          extra={(ARRIVE_WAIT, 352): (r"Arguments mismatch for instruction 'atom'",),
                 (ARRIVE_WAIT, 367): (r"Unexpected instruction types specified for "
                                      r"'cp\.async'",)}),
    Probe("fmha-v2-utils", "90", ("csrc/fmha_v2",), fmha_utils,
          {(UTILS, 2100): _UNKNOWN_INSTRUCTION.format(r"elect\.one"),
           (UTILS, 2286): r"Unknown modifier '\.global::cta'"}),
    # the lowest target the `__CUDA_ARCH__ >= 800` guards admit
    Probe("trtllm-cuda-utils-sm80", "80", (), trtllm_cuda_utils,
          {(CUDA_UTILS, 829): _TRY_WAIT_90, (CUDA_UTILS, 848): _TRY_WAIT_90,
           (CUDA_UTILS, 865): _TRY_WAIT_90, (CUDA_UTILS, 932): _EXPECT_TX_90,
           (CUDA_UTILS, 948): _EXPECT_TX_90,
           (CUDA_UTILS, 1007): r"Feature 'mbarrier\.arrive with count argument and without "
                               r"'\.noComplete' modifier' requires \.target sm_90 or higher",
           (CUDA_UTILS, 1026): _EXPECT_TX_90, **_SETCTARANK},
          extra={(CUDA_UTILS, 1007): (r"\.noComplete modifier required for instruction "
                                      r"'mbarrier\.arrive with count argument'",)}),
    # sm_90: the mbarrier forms assemble; barrier.cluster.sync and setctarank do not
    Probe("trtllm-cuda-utils-sm90", "90", (), trtllm_cuda_utils,
          {(CUDA_UTILS, 968): _UNKNOWN_INSTRUCTION.format(r"barrier\.cluster"), **_SETCTARANK}),
    Probe("xqa-ldmatrix-one-matrix", "80", ("csrc/xqa",), xqa_ldmatrix,
          {(XQA_UTILS, 514): r"Vector of size 2 is expected for argument 0 of instruction "
                             r"'ldmatrix'",
           (XQA_UTILS, 519): r"Vector of size 2 is expected for argument 0 of instruction "
                             r"'ldmatrix'"}),
    # the __CUDA_ARCH_FEAT_SM90_ALL guard: sm_90a
    Probe("fmha-v2-hgmma-rfa-64x8", "90a", ("csrc/fmha_v2",), fmha_hgmma_rfa,
          {(UTILS_HGMMA, 447): r"Arguments mismatch for instruction 'wgmma\.mma_async'"}),
    # the branch a build takes with -D_LOOSE_PRECISION, for sm_100a (the cvt.rs target)
    Probe("te-mul-cvt-4x-loose-precision", "100a",
          ("transformer_engine", "transformer_engine/common/include"), te_mul_cvt_4x,
          {(TE_PTX, line): _CVT_MISMATCH for line in (989, 1076, 1175, 1274, 1350, 1426)},
          defines=("_LOOSE_PRECISION",), tree=TE, stand_ins=TE_STAND_INS),
    *[Probe(f"deepspeed-to-double-{n}", "80", (include,), deepspeed_to_double,
            {(f"{include}/conversion_utils.h", 125): _UNKNOWN_INSTRUCTION.format("ctv")},
            tree="deepspeed")
      for n, include in enumerate(_DEEPSPEED_INCLUDES, 1)],
    # tilelang's cutlass submodule is not in the checkout: CUTLASS's own tree gives
    # cutlass/numeric_types.h (half_t, bfloat16_t)
    Probe("tilelang-atomic-or", "90", ("src",), tilelang_atomic_or,
          {(TL_ATOMIC, 986): r"Illegal modifier '\.acq_rel' for instruction 'red'",
           (TL_ATOMIC, 989): r"Illegal modifier '\.acquire' for instruction 'red'",
           (TL_ATOMIC, 1005): r"Illegal modifier '\.acq_rel' for instruction 'red'",
           (TL_ATOMIC, 1008): r"Illegal modifier '\.acquire' for instruction 'red'"},
          tree="tilelang", borrowed=(("cutlass", "include"),)),
    # an NVRTC runtime helper: the preamble's files are included as nvFuser concatenates them
    Probe("fuser-tma-multicast", "90", ("runtime",), fuser_multicast,
          {(FUSER_MEMORY, line): r"Unknown modifier '\.multicast_cluster'"
           for line in (233, 272, 313)}, tree="Fuser",
          extra={(FUSER_MEMORY, line): (r"Arguments mismatch for instruction "
                                        r"'cp\.async\.bulk\.tensor'",)
                 for line in (233, 272, 313)}),
]


def include_folders(probe: Probe, root: str) -> list[str]:
    return ([os.path.join(root, folder) for folder in probe.includes]
            + [os.path.join(tree_root(tree), folder) for tree, folder in probe.borrowed])


def probe_command(probe: Probe, root: str) -> list[str]:
    flags = [f"-I{folder}" for folder in include_folders(probe, root)]
    flags += ["-I."] if probe.stand_ins else []  # the run's folder, where they are written
    flags += [f"-D{define}" for define in probe.defines]
    # --expt-relaxed-constexpr: flashinfer's JIT build passes it to every CUDA compile
    return ["-std=c++17", "--expt-relaxed-constexpr", f"-arch=sm_{probe.arch}", "-lineinfo",
            "-ptx", *flags, INPUT, "-o", OUTPUT]


def assemble(probe: Probe, root: str) -> dict[Where, list[str]]:
    assert NVCC is not None and PTXAS is not None
    # nvcc 13 checks the PTX it writes with ptxas for the virtual target and fails when that
    # does; the PTX is written all the same, and the verdict is ptxas's on the real target
    compiled = run_cached(NVCC, probe_command(probe, root), probe.body(root),
                          filename="probe.cu", read_output=True,
                          inputs=include_folders(probe, root),
                          files=dict.fromkeys(probe.stand_ins, ""))
    assert compiled.output and " error: " not in compiled.stderr, compiled.stderr
    assembled = run_cached(PTXAS, [f"-arch=sm_{probe.arch}", INPUT, "-o", OUTPUT],
                           compiled.output, filename="probe.ptx")
    assert not assembled.ok, "ptxas assembled the probe: the reviewed defects are gone"
    return rejected(compiled.output, assembled.stderr, root)


@needs_nvcc
@needs_ptxas
@pytest.mark.parametrize("probe", PROBES, ids=[p.name for p in PROBES])
def test_ptxas_rejects_exactly_the_predicted_statements(probe: Probe) -> None:
    root = tree_root(probe.tree)
    messages: dict[tuple[str, int], list[str]] = {}
    for (path, first, last), said in assemble(probe, root).items():
        # the finding's line is the instruction's or, for an operand, a later line of it
        inside = [w for w in probe.expected if w[0] == path and first <= w[1] <= last]
        assert len(inside) == 1, f"ptxas rejects {path}:{first}-{last} ({said}), predicted {inside}"
        messages.setdefault(inside[0], []).extend(said)
    assert sorted(messages) == sorted(probe.expected), "predicted but accepted by ptxas"
    for where, said in messages.items():
        allowed = (probe.expected[where], *probe.extra.get(where, ()))
        assert all(any(re.search(a, m) for a in allowed) for m in said), (where, said)
        assert all(any(re.search(a, m) for m in said) for a in allowed), (where, said)


def test_every_reviewed_grammar_defect_cited_here_has_its_probe() -> None:
    """The reviews that cite this module and the probes' predictions are the same findings."""
    cited = {(r.tree, r.path, r.line) for r in precision.load_reviews() if EVIDENCE in r.why}
    predicted = {(probe.tree, *where) for probe in PROBES for where in probe.expected}
    assert cited == predicted
    for r in precision.load_reviews():
        if EVIDENCE in r.why:
            assert r.verdict == "true" and r.rule in ("PTX204", "PTX206", "PTX207", "PTX401"), r


@pytest.mark.parametrize("tree", sorted({probe.tree for probe in PROBES}))
def test_ptxlint_errors_in_the_probed_files_are_exactly_the_proven_ones(tree: str) -> None:
    """What ptxlint reports as an error in these files is what ptxas rejected above, no more."""
    root = tree_root(tree)
    proven = {(r.path, r.line, r.rule) for r in precision.load_reviews()
              if EVIDENCE in r.why and r.tree == tree}
    files = sorted({path for path, _, _ in proven})
    for path in files:
        corpus_file(root, path)
    rules = list(load_rules().rules)
    config = Config()
    result = run([os.path.join(root, path) for path in files], config,
                 RuleSelector(config, [(r.id, r.name) for r in rules]), rules, RuleContext(),
                 jobs=1)
    errors = set()
    for finding in result.findings:
        if finding.severity.value == "error":
            source = result.sources[finding.path]
            errors.add((precision.relative(finding.path, Path(root)),
                        source.line_col(finding.span.start).line, finding.rule))
    assert errors == proven


def test_template_lines_are_traced_to_their_source_lines() -> None:
    text = ('void f() {\n  asm volatile(\n      "{\\n\\t"\n      "a.b %0;\\n\\t"  // x\n'
            '      "c.d %1,"\n      "%2;\\n" "}"\n      : "=r"(x) : "r"(y));\n'
            '  asm("\\n\\\n    e.f %0;\\n\\\n  L: }" :: "r"(z));\n}\n')
    first, second = statements(text)
    assert (first.first, first.last) == (2, 7)
    assert first.pieces == (Piece("{", 3, 3), Piece("\ta.b %0;", 4, 4),
                            Piece("\tc.d %1,%2;", 5, 6), Piece("}", 6, 6))
    assert (second.first, second.last) == (8, 10)
    assert second.pieces == (Piece("", 0, 0), Piece("    e.f %0;", 9, 9),
                             Piece("  L: }", 10, 10))


def test_a_preprocessor_branch_inside_a_template_is_passed_over() -> None:
    text = ('  asm("{\\n"\n#if (defined X)\n      "a.b %0;\\n"\n#else\n      "c.d %0;\\n"\n'
            '#endif\n      "}" : "=r"(x));\n')
    (only,) = statements(text)
    assert only.pieces == (Piece("{", 1, 1), Piece("a.b %0;", 3, 3), Piece("c.d %0;", 5, 5),
                           Piece("}", 7, 7))
