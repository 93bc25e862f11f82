"""Real code: the trees of scripts/corpus_precision.py, linted without a crash and without an
error that a person has not reviewed as real (tests/data/reviewed_findings.toml).

The corpora are not part of the repository. Point ``PTXLINT_CORPORA`` at a folder with
``src/<name>/`` (``python scripts/fetch_corpora.py DIR``) and ``git/<name>/`` checkouts
(``python scripts/corpus_precision.py DIR --fetch``), or put them in ``corpora/`` of ptxlint's
cache folder (``scripts/locations.py``), or set ``PTXLINT_FETCH_CORPORA=1`` to let this test
fetch the four default sdists there; otherwise these tests skip. The CUDA headers run whenever a toolkit is installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from scripts.locations import CORPORA_ENV, corpora_root
from tests.conftest import ROOT

SDISTS = ("flash-attn", "vllm", "llama-cpp-python", "flashinfer-python")


def _precision() -> ModuleType:
    path = Path(ROOT) / "scripts" / "corpus_precision.py"
    spec = importlib.util.spec_from_file_location("corpus_precision", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_precision"] = module
    spec.loader.exec_module(module)
    return module


precision = _precision()


def _cache() -> Path | None:
    cache = corpora_root()
    if os.environ.get(CORPORA_ENV) or cache.is_dir():
        return cache
    if os.environ.get("PTXLINT_FETCH_CORPORA") == "1":
        subprocess.run(
            [sys.executable, os.path.join(ROOT, "scripts", "fetch_corpora.py"), str(cache),
             *SDISTS],
            check=True,
        )
        return cache
    return None


def test_the_list_is_pinned_and_long_enough() -> None:
    trees = precision.TREES
    assert len(trees) >= 20 and len({t.name for t in trees}) == len(trees)
    for tree in trees:
        if tree.kind == "sdist":
            assert "==" in tree.ref, tree
        elif tree.kind == "git":
            assert tree.ref.startswith("https://") and len(tree.commit) == 40, tree


def test_every_review_is_well_formed_and_names_a_listed_tree() -> None:
    names = {t.name for t in precision.TREES}
    reviews = precision.load_reviews()
    assert all(r.tree in names for r in reviews)
    keys = [(r.tree, r.rule, r.path, r.line, r.match) for r in reviews]
    assert len(keys) == len(set(keys)), "a finding reviewed twice"


@pytest.mark.parametrize("name", [t.name for t in precision.TREES])
def test_corpus_has_no_unreviewed_or_false_error(name: str) -> None:
    tree = next(t for t in precision.TREES if t.name == name)
    if tree.kind == "cuda":
        root = precision.cuda_include()
        if root is None:
            pytest.skip("no CUDA toolkit installed")
    else:
        cache = _cache()
        if cache is None:
            pytest.skip("no corpora: set PTXLINT_CORPORA=DIR (scripts/fetch_corpora.py DIR, "
                        "scripts/corpus_precision.py DIR --fetch) or PTXLINT_FETCH_CORPORA=1")
        root = precision.tree_path(tree, cache)
        if root is None:
            pytest.skip(f"{name} is not in {cache}")
    report = precision.lint_tree(tree, root, precision.load_reviews(), jobs=2)
    assert report.files > 0
    assert report.internal_errors == 0
    assert report.unreviewed_errors == [], "review them in tests/data/reviewed_findings.toml"
    assert [w for w in report.false_findings if "[error]" in w] == []
    if name == "llama-cpp-python":
        # The CPU back ends are x86, ARM, RISC-V and more; only the CUDA back end is PTX.
        stray = {f["path"] for f in report.findings if "/ggml-cuda/" not in str(f["path"])}
        assert stray == set()


def test_a_pattern_judges_many_findings_and_a_line_review_wins(tmp_path: Path) -> None:
    reviewed = tmp_path / "r.toml"
    reviewed.write_text(
        '[[pattern]]\ntree = "t"\nrule = "PTX103"\npath = "csrc/cake_*/**"\nmatch = "lost"\n'
        'count = 2\nverdict = "true"\nwhy = "generated kernels"\n'
        '[[finding]]\ntree = "t"\nrule = "PTX103"\npath = "csrc/cake_a/k.cu"\nline = 7\n'
        'verdict = "false"\nwhy = "one exception"\n',
        encoding="utf-8",
    )
    reviews = precision.load_reviews(reviewed)
    hit = precision.review_of(reviews, "t", "PTX103", "csrc/cake_b/x/k.cu", 3, "value lost")
    assert hit is not None and hit.pattern and hit.verdict == "true"
    line = precision.review_of(reviews, "t", "PTX103", "csrc/cake_a/k.cu", 7, "value lost")
    assert line is not None and line.verdict == "false"
    assert precision.review_of(reviews, "t", "PTX103", "csrc/other/k.cu", 3, "lost") is None
    reviewed.write_text(reviewed.read_text().replace("count = 2\n", ""), encoding="utf-8")
    with pytest.raises(ValueError, match="count"):
        precision.load_reviews(reviewed)


def test_a_dump_is_judged_again_with_the_reviews_of_now(tmp_path: Path) -> None:
    dump = tmp_path / "run.json"
    finding = {"tree": "cutlass", "rule": "PTX204", "severity": "error", "path": "a.h",
               "line": 3, "message": "m", "verdict": None}
    dump.write_text(json.dumps([finding]), encoding="utf-8")
    stats = {"tree": "cutlass", "files": 1, "statements": 2, "skipped": 0, "seconds": 1.0,
             "internal_errors": 0}
    dump.with_suffix(".trees.json").write_text(json.dumps([stats]), encoding="utf-8")
    trees = [t for t in precision.TREES if t.name in ("cutlass", "cccl")]
    (before, not_run) = precision.from_dump(dump, trees, [])
    assert before.unreviewed["error"] == 1 and before.statements == 2 and not not_run.ran
    review = precision.Review("cutlass", "PTX204", "a.h", 3, "false", "why")
    (after, _) = precision.from_dump(dump, trees, [review])
    assert after.judged[("error", "false")] == 1 and after.unreviewed["error"] == 0
