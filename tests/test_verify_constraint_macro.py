"""The .cu probes write a constraint a macro spells as the letters it stands for: CUDA's
cuda_bf16.hpp and cuda_fp16.hpp write ``__LDG_PTR(ptr)`` with ``#define __LDG_PTR "l"`` and
``#undef __LDG_PTR`` at their end, so a unit that kept the macro's name (and included the header
for the operand's type, or nothing of the file) did not compile: "expected a ')'", and the
PTX102 findings on __ldcg/__ldca went unverifiable. Toolchain tests skip without nvcc."""

from __future__ import annotations

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import VerifyOptions, cu_probe, verify
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_nvcc_host

SOURCE = """\
#define MY_PTR "l"
template <class T>
__device__ unsigned load_cg(const T *ptr) {
  unsigned r;
  asm("ld.global.cg.b32 %0, [%1];" : "=r"(r) : MY_PTR(ptr));
  return r;
}
#undef MY_PTR
"""


def test_the_probe_writes_the_letters_the_macro_stands_for():
    [statement] = extract_statements(SourceFile("k.cu", SOURCE)).statements
    probe = cu_probe.build(statement)
    assert 'MY_PTR' not in probe
    assert ': "l"(ptxlint_v1));' in probe


@needs_nvcc_host
def test_the_function_level_probe_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX102"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),), arch="sm_90"))
    [finding] = result.findings
    verdict = result.verdict(finding)
    # a template nothing instantiates: the file's PTX lacks it, the function-level probe speaks
    assert verdict.method == "function-probe", verdict
    assert "does not compile" not in verdict.evidence, verdict
    assert "C++ memory accesses around the asm" in verdict.evidence, verdict
