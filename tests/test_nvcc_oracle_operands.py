"""nvcc is the oracle: ptxlint's operand-contract verdicts equal nvcc 13's accept/reject.

One tiny kernel per case (an error can hide others, so cases are never batched into one file),
compiled with ``nvcc -arch=sm_90 -ptx`` (the same front-end and NVVM checks as ``-c`` at a
quarter of the time: ptxas is not needed, the templates are PTX comments). Compiles run in
parallel and nvcc's verdicts are cached by content hash (source + flags + ``nvcc --version``)
in the test cache (tests/toolchain_cache.py), so a rerun costs nothing.

The default run checks the whole matrix: 34 C++/CUDA types x 6 letters x 2 directions, every
ASCII letter and digit as an input constraint and every letter as an output one, clobbers,
modifiers and immediates (about 520 compiles, ~100 s cold on 2 cores, ~1 s warm).
``PTXLINT_NVCC_QUICK=1`` keeps a representative subset (18 types, input letters: ~330 compiles,
~50 s cold). Skipped where nvcc is absent.
"""

from __future__ import annotations

import os
import string
from dataclasses import dataclass

from ptxlint.constraints import REGISTER_LETTERS, operand_verdict
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, parallel_map, run_cached

# The whole matrix costs about 100 s cold on 2 cores (0.5 s per compile), nothing warm;
# PTXLINT_NVCC_QUICK=1 keeps a representative subset for a quicker cold run.
FULL = os.environ.get("PTXLINT_NVCC_QUICK", "") in ("", "0")
FLAGS = ("-std=c++17", "-arch=sm_90", "-ptx")
# A real PTX word keeps ptxlint's dialect check from setting the statement aside (a template of
# comments only with a "d" operand reads as x86 to it); -ptx never assembles the template.
TEMPLATE = '"membar.cta; // %0"'

pytestmark = needs_nvcc

PRELUDE = """\
enum E { EA, EB };
enum class EC16 : short { A };
enum class EC64 : unsigned long long { A };
struct S { int a; };
union U { int a; float b; };
struct Conv { unsigned v; __device__ operator unsigned() const { return v; } };
"""
HALF_HEADERS = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"

# (declaration of x, needs the fp16/bf16 headers)
_DEFAULT_TYPES = {
    "bool": "bool x{};",
    "char": "char x{};",
    "unsigned char": "unsigned char x{};",
    "short": "short x{};",
    "unsigned short": "unsigned short x{};",
    "int": "int x{};",
    "unsigned": "unsigned x{};",
    "long": "long x{};",
    "unsigned long long": "unsigned long long x{};",
    "__int128": "__int128 x{};",
    "float": "float x{};",
    "double": "double x{};",
    "pointer": "int* x{};",
    "enum": "E x{};",
    "enum class : short": "EC16 x{};",
    "__half": "__half x{};",
    "int4": "int4 x{};",
    "struct": "S x{};",
}
_MORE_TYPES = {
    "signed char": "signed char x{};",
    "long long": "long long x{};",
    "unsigned long": "unsigned long x{};",
    "unsigned __int128": "unsigned __int128 x{};",
    "size_t": "size_t x{};",
    "uint8_t": "uint8_t x{};",
    "char16_t": "char16_t x{};",
    "wchar_t": "wchar_t x{};",
    "enum class : u64": "EC64 x{};",
    "__nv_bfloat16": "__nv_bfloat16 x{};",
    "float2": "float2 x{};",
    "__half2": "__half2 x{};",
    "union": "U x{};",
    "array": "int x[4]{};",
    "typedef chain": "typedef unsigned long long u64; using tick = u64; tick x{};",
    "const pointer": "const float* const x{};",
}
TYPES = {**_DEFAULT_TYPES, **(_MORE_TYPES if FULL else {})}


# --------------------------------------------------------------------------- nvcc and its cache


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    error: str  # nvcc's first error line, "" when accepted


def _compile(source: str) -> Verdict:
    assert NVCC is not None
    run = run_cached(NVCC, [*FLAGS, INPUT, "-o", OUTPUT], source)
    errors = [line for line in (run.stdout + run.stderr).splitlines() if "error" in line]
    return Verdict(run.ok, errors[0].split("error:")[-1].strip() if errors else "")


def _compile_all(sources: list[str]) -> list[Verdict]:
    return parallel_map(_compile, sources, workers=max(1, os.cpu_count() or 1))


def _flagged(source: str, rules: tuple[str, ...]) -> set[str]:
    return {f.rule for f in lint_text(source, "oracle.cu", select=rules)}


# --------------------------------------------------------------------------- PTX004 / PTX005


@dataclass(frozen=True)
class OperandCase:
    type_name: str
    letter: str
    output: bool

    @property
    def source(self) -> str:
        decl = TYPES[self.type_name]
        headers = HALF_HEADERS if ("half" in self.type_name or "bfloat" in self.type_name) else ""
        if self.output:
            asm = f'asm volatile({TEMPLATE} : "={self.letter}"(x));'
        else:
            asm = f'asm volatile({TEMPLATE} : : "{self.letter}"(x));'
        return f"{headers}#include <cstdint>\n{PRELUDE}__device__ void k() {{ {decl} {asm} }}\n"


def _operand_cases() -> list[OperandCase]:
    return [
        OperandCase(t, letter, output)
        for t in TYPES
        for letter in REGISTER_LETTERS
        for output in (False, True)
    ]


def test_ptx004_ptx005_agree_with_nvcc_on_every_type_letter_direction() -> None:
    cases = _operand_cases()
    verdicts = _compile_all([c.source for c in cases])
    problems = []
    for case, nvcc in zip(cases, verdicts, strict=True):
        statement = extract_statements(SourceFile("oracle.cu", case.source)).statements[-1]
        ctype = statement.operands[0].ctype
        if operand_verdict(ctype, case.letter) is None:
            problems.append(f"{case}: ptxlint abstains (type {ctype})")
            continue
        flagged = _flagged(case.source, ("PTX004", "PTX005"))
        if bool(flagged) == nvcc.accepted:
            problems.append(f"{case}: nvcc {nvcc.accepted} ({nvcc.error}), ptxlint {flagged}")
        elif flagged:
            # the rule that speaks is the one whose nvcc message this is
            scalar = "scalar type" in nvcc.error
            if flagged != ({"PTX005"} if scalar else {"PTX004"}):
                problems.append(f"{case}: nvcc says '{nvcc.error}', ptxlint {flagged}")
    assert not problems, "\n".join(problems)


def test_ptx004_abstains_where_nvcc_is_quirky() -> None:
    # long double: nvcc 13 accepts it with every letter; a class with a conversion operator is
    # converted. ptxlint says nothing about either (and must not flag them).
    for decl in ("long double x{};", "Conv x{};"):
        for letter in REGISTER_LETTERS:
            asm = f'asm volatile({TEMPLATE} :: "{letter}"(x));'
            source = f"{PRELUDE}__device__ void k() {{ {decl} {asm} }}\n"
            assert _flagged(source, ("PTX004", "PTX005")) == set(), (decl, letter)


# --------------------------------------------------------------------------- PTX002

# For each valid letter, an operand it accepts, so that only the letter itself is judged.
_FITTING = {
    "h": "short x{};",
    "r": "int x{};",
    "l": "long x{};",
    "q": "__int128 x{};",
    "f": "float x{};",
    "d": "double x{};",
}
_CONSTRAINT_STRING = '__device__ static constexpr char kOp[] = "// splice";\n'


def _letter_source(letter: str, output: bool) -> str:
    if letter == "n":
        return f'__device__ void k() {{ asm volatile({TEMPLATE} : : "n"(4)); }}\n'
    if letter == "C":
        return (
            _CONSTRAINT_STRING
            + '__device__ void k() { asm volatile("%0 membar.cta;" : : "C"(kOp)); }\n'
        )
    decl = _FITTING.get(letter, "int x{};")
    section = f': "={letter}"(x)' if output else f': : "{letter}"(x)'
    return f"__device__ void k() {{ {decl} asm volatile({TEMPLATE} {section}); }}\n"


_CLOBBERS = ("memory", "cc", "r1", "%r1", "rax", "x")


def test_ptx002_agrees_with_nvcc_on_every_ascii_letter_and_clobber() -> None:
    letters = string.ascii_letters + string.digits
    cases = [(c, False) for c in letters]
    if FULL:
        cases += [(c, True) for c in string.ascii_letters if c not in "nC"]
    sources = [_letter_source(c, out) for c, out in cases]
    clobber_sources = [
        f'__device__ void k() {{ asm volatile("membar.gl;" : : : "{c}"); }}\n' for c in _CLOBBERS
    ]
    verdicts = _compile_all(sources + clobber_sources)
    problems = []
    for label, source, nvcc in zip(
        [f"letter {c!r} {'out' if o else 'in'}" for c, o in cases]
        + [f"clobber {c!r}" for c in _CLOBBERS],
        sources + clobber_sources,
        verdicts,
        strict=True,
    ):
        flagged = "PTX002" in _flagged(source, ("PTX002",))
        if flagged == nvcc.accepted:
            problems.append(f"{label}: nvcc {nvcc.accepted} ({nvcc.error}), PTX002 {flagged}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- PTX006

_MODIFIER_CASES = [
    ('"r"(x)', ""),  # output without = or +
    ('"=r"(x)', ""),
    ('"+r"(x)', ""),
    ('"=&r"(x)', ""),
    ('"+&r"(x)', ""),
    ('"=r"(x)', '"=r"(y)'),  # input with =
    ('"=r"(x)', '"+r"(y)'),  # input with +
    ('"=r"(x)', '"&r"(y)'),
    ('"=r"(x)', '"r"(y)'),
    ('"=r"(x)', '"=n"(4)'),
    ('"=r"(x)', '"n"(4)'),
    ('"=r"(x)', '"=C"(kOp)'),
    ('"=C"(x)', ""),
]


def test_ptx006_agrees_with_nvcc() -> None:
    sources = []
    for out, inp in _MODIFIER_CASES:
        sections = f": {out}" + (f" : {inp}" if inp else "")
        sources.append(
            _CONSTRAINT_STRING
            + f"__device__ void k() {{ int x = 0, y = 1; asm volatile({TEMPLATE} {sections}); }}\n"
        )
    verdicts = _compile_all(sources)
    problems = []
    for case, source, nvcc in zip(_MODIFIER_CASES, sources, verdicts, strict=True):
        flagged = "PTX006" in _flagged(source, ("PTX006",))
        if flagged == nvcc.accepted:
            problems.append(f"{case}: nvcc {nvcc.accepted} ({nvcc.error}), PTX006 {flagged}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- PTX010

_IMMEDIATE_PRELUDE = """\
enum E { EA = 3 };
enum G : unsigned { GA = 1 };
enum class F : int { A = 2 };
struct Cfg { static const int k = 5; static constexpr int c = 6; };
constexpr int kConst = 7;
__device__ int g_var;
"""
# expressions where ptxlint must give nvcc's verdict
_IMMEDIATES = [
    "4",
    "N",
    "4 + N",
    "sizeof(int)",
    "sizeof(T)",
    "alignof(double)",
    "sizeof(threadIdx.x)",
    "(int)F::A",
    "+EA",
    "Cfg::k",
    "Cfg::c * Cfg::k",
    "kConst",
    "local_const",
    "local_constexpr",
    "(int)1.5",
    "true",
    "'a'",
    "4ull",
    "-1",
    "1u << 31",
    "EA",
    "GA",
    "F::A",
    "1.5",
    "1.5f",
    "fl",
    "&g_var",
    "threadIdx.x",
    "threadIdx.x / 32",
    "blockDim.x",
    "warpSize",
    # function parameters and non-constexpr locals (ptxlint/analysis/cxx_facts.py)
    "runtime",
    "runtime * 2 + N",
    "sizeof(runtime)",
    "local_var",
    "from_param",
]
# nvcc rejects these, but ptxlint cannot prove it from the model yet: it must stay silent
_IMMEDIATE_ABSTAINS = ["g_var"]


def _immediate_source(expression: str) -> str:
    return (
        _IMMEDIATE_PRELUDE
        + "template <int N, typename T> __device__ void k(int runtime) {\n"
        + "  const int local_const = 4; constexpr int local_constexpr = 5; float fl = 1;\n"
        + "  int local_var = 4; const int from_param = runtime;\n"
        + "  (void)fl; (void)local_const; (void)local_constexpr; (void)local_var;\n"
        + "  (void)from_param;\n"
        + f'  asm volatile({TEMPLATE} : : "n"({expression}));\n'
        + "}\ntemplate __device__ void k<3, int>(int);\n"
    )


def test_ptx010_agrees_with_nvcc() -> None:
    expressions = _IMMEDIATES + _IMMEDIATE_ABSTAINS
    sources = [_immediate_source(e) for e in expressions]
    verdicts = _compile_all(sources)
    problems = []
    for expression, source, nvcc in zip(expressions, sources, verdicts, strict=True):
        flagged = "PTX010" in _flagged(source, ("PTX010",))
        if expression in _IMMEDIATE_ABSTAINS:
            assert not nvcc.accepted, f"{expression}: nvcc now accepts it"
            if flagged:
                problems.append(f"{expression}: expected ptxlint to abstain")
        elif flagged == nvcc.accepted:
            problems.append(f"{expression}: nvcc {nvcc.accepted} ({nvcc.error}), PTX010 {flagged}")
    assert not problems, "\n".join(problems)
