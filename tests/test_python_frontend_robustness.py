"""Bad Python never crashes the Python front end or a rule: sampled mutations of the Python
fixtures (cut, duplicated and inserted characters that matter to it: quotes, braces, `$`, `%`,
commas, backslashes) are linted with every rule, and no internal error may come out. A small,
seeded sample for the test suite; a fuzz harness can run the same loop for longer."""

from __future__ import annotations

import glob
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.engine import INTERNAL_ERROR, instantiate, lint_source
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from tests.conftest import FIXTURES

_PIECES = ['"', "'", '"""', "{", "}", "$", "${", "%", ",", "\\", "(", ")", "[", "]", "f'", "\n", "+="]


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        kind = rng.randrange(3)
        if kind == 0 and text:
            end = min(len(text), at + rng.randint(1, 12))
            text = text[:at] + text[end:]
        elif kind == 1 and text:
            end = min(len(text), at + rng.randint(1, 40))
            text = text[:at] + text[at:end] + text[at:]
        else:
            text = text[:at] + rng.choice(_PIECES) + text[at:]
    return text


def test_mutated_python_sources_never_raise_or_report_internal_errors() -> None:
    rules = instantiate(load_rules().rules)
    paths = sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.py")))
    paths.append(os.path.join(FIXTURES, "example-triton", "triton_kernels.py"))
    sources = [Path(path).read_text(encoding="utf-8") for path in paths]
    rng = random.Random(19)
    for n in range(240):
        text = mutate(rng.choice(sources), rng)
        result = lint_source(SourceFile(f"m{n}.py", text), rules, RuleContext())
        internal = [f.message for f in result.findings if f.rule == INTERNAL_ERROR]
        assert not internal, (internal, text)


# A mutation (seed 11, draw 191) on which name resolution once looped forever: the module scope
# was recognised by its node type, which a broken file does not always give.
_LOOPED = '# PTX505: pure asm with a side effect, a memory access or a time-varying register mport triton\nimport triton.language as tl\nfrom cutlass._mlir.dialects import llvm\nfrom llvmlite import ir\n\n\n@triton.jit\ndef kernel(C, P, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n    tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [C + offs],  # expect: PTX505\n                              dtype=tl.uint32, is_pure=True, pack=1)\n    tl.inline_asm_elementwise("st.global.b32 [$1], $2;", "=r,l,r", [P + offs, offs],  # expect: PTX505\n                              dtype=tl.int32, is_pure=True, pack=1)\n    t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [],  # expect: PTX505\n                       05\n                                   dtype=tl.int64, is_pure=True, pack=1)\n    v = tl.inline_asm_elementwise("ld.global.b32 $0, [$1];", "=r,l",,l", [P + offs],  # expect: PTX505\n                                  dtype=tl.int32, is_pure=True, pack=1)\n    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dt[ype=tl.int32, is_pure=True, pack=1)  # expect: PTX505\n\n\ndef cute_fence():\n    llvm.inline_asm(None, [], "fence.acq_rel.gpu;", "", has_side_effects=False)  # expect: PTX505\n    llvm.inline_asm(None, [], "fence.acq_rel.gpu;", "")  # expect: PTX505\n\n\ndef numba_clock(builder, fnty):\n    asm = ir.InlineAsm(fnty, "mov.u32 $0, %clock;", "=r")  # expect: PTX505\n    return builder.call(asm, [])\n'


# The same hang as the fuzz harness found it (a mutated PTX505 clean fixture).
_LOOPED_FUZZ = '# PTX505 clean twin: impure where it matters; fixed special registers and math are pure (7h).\nimport triton\nimport triton.language as tl\nfrom cutlass._mlir.dialects import llvm\nfrom llvmlite import ir\n\n\n@triton.jit\ndef kernel(C, P, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n    tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [C + offs],\n                     %1         dtype=tl.uint32, is_pure=False, pack=1)\n    t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;";, "=l", [],\n                                   dtype=tl.int64, is_pure=False, pack=1)\n    lane = tl.inline_asm_elementwise("mov.u32 $0, %laneid;",// "=r", [],\n                                     dtype=tl.int32, is_pure=True, pack=1)\n    tid = tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [],\n                         complete_tx::bytes "\n               "[%0], [%1], 16, [%2];"  // expect: PTX301\n               :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(sp))), "l"(g), "l"(&bar));\n  // A shared-window offset            dtype=tl.int32, is_pure=True, pack=1)\n    r = tl.inline_asm_)elementwise("rcp.approx.ftz.f32 $0, $1;", "=r,r", [t0.to(tl.float32)],\n                                  dtype=tl.float32, is_pure=True, pack=1)\n    nc = tl.inline_asm_elementwise("ld.global.nc.b32 $0, [$1];", "=r,l", [P + offs],\n                       ed-window offset where a global or generic address is expected.\n  asm volatile("ld.globa            dtype=tl.int32, is_pure=True, pabal__ void bad(float* out, const float* g, int i) {\n  __shared__ float tile[256];\n  __shared__ uint64_t bar;\n  float v;\n  float* sp = ck=1)\n    tl.i"n"nline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)\n\n\ndef cute_fence():\n    llvm.inline_asm(None, [], "fence.acq_rel.gpu;", "", has_side_effects=True)\n\n\ndef numba_clock(builder, fnty):\n    asm = ir.InlineAsm(fnty, "mov.u32 $0, %clock;", "=r", side_effect=True)\n    return builder.call(asm, ['


@pytest.mark.parametrize("text", [_LOOPED, _LOOPED_FUZZ], ids=["seed-11", "fuzz"])
def test_name_resolution_ends_on_a_broken_file(tmp_path, text: str) -> None:
    path = tmp_path / "looped.py"
    path.write_text(text, encoding="utf-8")
    program = (
        "import sys; from ptxlint.model import SourceFile; "
        "from ptxlint.frontends.python import extract_python; "
        "from ptxlint.ptx.parser import parse_template; "
        "extract_python(SourceFile('m.py', open(sys.argv[1]).read()), parse_template)"
    )
    done = subprocess.run([sys.executable, "-c", program, str(path)], timeout=120, check=False)
    assert done.returncode == 0
