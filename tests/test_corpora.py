"""Real code: the source distributions of CUDA projects, linted without a crash.

The corpora are not part of the repository. Point ``PTXLINT_CORPORA`` at a folder made by
``python scripts/fetch_corpora.py DIR`` (or set ``PTXLINT_FETCH_CORPORA=1`` to let this test
fetch them from the package index into ``~/.cache/ptxlint/corpora``); otherwise these tests skip.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ptxlint.config import Config, RuleSelector
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.runner import run
from tests.conftest import ROOT

NAMES = ("flash-attn", "vllm", "llama-cpp-python", "flashinfer-python")

# Errors reviewed by hand and shown real (ptxas rejects the form, or the value really is lost),
# in code these projects never instantiate or never read: (corpus, rule, path fragment, why).
KNOWN_DEFECTS = (
    ("flashinfer-python", "PTX204", "tensorrt_llm/common/cudaUtils.h",
     "setctarank.shared.u32 is no PTX instruction (ptxas: not a name of any known instruction)"),
    ("flashinfer-python", "PTX204", "fmha_v2/fmha/",
     "mbarrier.try_wait.parity.nosleep, mbarrier.arrive.expect_copy, atom.shared.arrive.b64, "
     "fence.proxy.async.global::cta: ptxas 13.0 rejects each"),
    ("flashinfer-python", "PTX401", "tensorrt_llm/common/cudaUtils.h",
     "mbarrier.try_wait under __CUDA_ARCH__ >= 800; ptxas: requires .target sm_90"),
    ("flashinfer-python", "PTX103", "",
     "generated 'cake' kernels: '=r'(x) after 'x = 0', written under @p1; the 0 is lost, and "
     "the C++ reads x only when the query was valid"),
)


def _corpora() -> str:
    folder = os.environ.get("PTXLINT_CORPORA")
    if folder:
        return folder
    cache = os.path.join(os.path.expanduser("~"), ".cache", "ptxlint", "corpora")
    if os.environ.get("PTXLINT_FETCH_CORPORA") == "1":
        subprocess.run(
            [sys.executable, os.path.join(ROOT, "scripts", "fetch_corpora.py"), cache, *NAMES],
            check=True,
        )
        return cache
    pytest.skip("no corpora: set PTXLINT_CORPORA=DIR (scripts/fetch_corpora.py DIR) "
                "or PTXLINT_FETCH_CORPORA=1")


@pytest.mark.parametrize("name", NAMES)
def test_corpus_is_linted_without_crash(name: str) -> None:
    folder = os.path.join(_corpora(), "src", name)
    if not os.path.isdir(folder):
        pytest.skip(f"{name} is not in the corpora folder")
    rules = list(load_rules().rules)
    config = Config()
    result = run([folder], config, RuleSelector(config, [(r.id, r.name) for r in rules]),
                 rules, RuleContext(), jobs=2)
    assert result.files > 0
    assert result.internal_errors == 0, [f.message for f in result.findings
                                         if f.rule == "internal-error"][:5]
    unexplained = [
        (f.rule, f.path, f.span)
        for f in result.findings
        if f.severity.value == "error"
        and not any(c == name and r == f.rule and frag in f.path for c, r, frag, _ in KNOWN_DEFECTS)
    ]
    assert unexplained == [], "errors in code that compiles must be shown real (KNOWN_DEFECTS)"
    if name == "llama-cpp-python":
        # The CPU back ends are x86, ARM, RISC-V and more; only the CUDA back end is PTX.
        stray = {f.path for f in result.findings if "/ggml-cuda/" not in f.path}
        assert stray == set()
