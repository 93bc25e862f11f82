"""Parsing a file as an edit of a near-duplicate (``ptxlint.frontends.tree_reuse``) must give the tree a
fresh parse gives, node by node with every position, whatever the two texts are; and the
runner must hand a worker a folder's files one after another (``runner.family_order``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import tree_sitter

from ptxlint.frontends import tree_reuse
from ptxlint.frontends.line_diff import equal_runs
from ptxlint.frontends.syntax_tree import _parser
from ptxlint.run import pool, runner

_KERNEL = r"""
template <int N>
__device__ __forceinline__ void load_{k}(float* out, const float* p, int i) {{
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p + i * {k}));
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(out[{k}]) : "r"(addr) : "memory");
  for (int j = 0; j < N; ++j) {{ out[j] += {k}.0f; }}
}}
"""

_VARIATIONS = [
    "int x{k} = {k};",
    "// note {k}",
    "#if __CUDA_ARCH__ >= 900\nint y{k};\n#endif",
    'const char* s{k} = "a\\nb {k}";',
    "struct S{k} {{ int a; }};",
    "}}",  # unbalanced: error recovery on both sides
    "R\"(raw {k})\";",
    "\r",
    "",
]


def _source(rng: random.Random, size: int) -> list[str]:
    lines: list[str] = ["#include <cuda.h>", "namespace gen {"]
    k = total = 0
    while total < size:
        k += 1
        more = _KERNEL.format(k=k).splitlines()
        if rng.random() < 0.3:
            more += rng.choice(_VARIATIONS).format(k=k).split("\n")
        lines += more
        total += sum(len(x) + 1 for x in more)
    lines.append("}  // namespace gen")
    return lines


def _variant(rng: random.Random, lines: list[str]) -> list[str]:
    """``lines`` with a few lines changed, inserted or removed."""
    out = list(lines)
    for _ in range(rng.randint(1, 12)):
        at = rng.randrange(len(out) + 1)
        what = rng.random()
        if what < 0.4 and at < len(out):
            out[at] = out[at].replace("1", "7").replace("ld.", "st.") + " "
        elif what < 0.7:
            out[at:at] = rng.choice(_VARIATIONS).format(k=rng.randint(0, 99)).split("\n")
        elif at < len(out):
            del out[at : at + rng.randint(1, 5)]
    return out


def _text(lines: list[str], rng: random.Random) -> bytes:
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    text = newline.join(lines)
    if rng.random() < 0.7:
        text += newline
    return text.encode()


def _nodes(tree: tree_sitter.Tree) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        out.append((node.kind_id, node.start_byte, node.end_byte, node.start_point,
                    node.end_point, node.is_missing, node.has_error, cursor.field_id))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


@pytest.fixture(autouse=True)
def _nothing_kept() -> None:
    tree_reuse.forget()


def test_runs_are_equal_lines_in_order() -> None:
    rng = random.Random(3)
    for _ in range(300):
        old = [rng.choice("abcdefgh") * rng.randint(1, 3) for _ in range(rng.randint(0, 60))]
        new = _variant(rng, old) if old else ["x"]
        runs = equal_runs(old, new)
        old_at = new_at = 0
        for i, j, n in runs:
            assert n > 0 and i >= old_at and j >= new_at
            assert old[i : i + n] == new[j : j + n]
            old_at, new_at = i + n, j + n


@pytest.mark.parametrize("grammar", ["cuda", "cpp"])
def test_a_reused_tree_is_the_fresh_tree(grammar: str, tmp_path: Path) -> None:
    rng = random.Random(14)
    parser = _parser(grammar)
    path = str(tmp_path / "kernel.cu")
    reused = 0
    for _ in range(15):
        base = _source(rng, tree_reuse.MIN_BYTES + rng.randint(0, 20_000))
        tree_reuse.parse(parser, path, _text(base, rng), grammar)
        for _ in range(3):
            data = _text(_variant(rng, base), rng)
            before = tree_reuse.reused
            tree = tree_reuse.parse(parser, path, data, grammar)
            reused += tree_reuse.reused - before
            fresh = parser.parse(data)
            assert _nodes(tree) == _nodes(fresh)
            assert str(tree.root_node) == str(fresh.root_node)
    assert reused >= 30  # the variants (but those with other line ends) were parsed as edits, not afresh


def test_only_a_near_duplicate_of_the_same_folder_is_reused(tmp_path: Path) -> None:
    rng = random.Random(5)
    lines = _source(rng, 3 * tree_reuse.MIN_BYTES)
    data = _text(lines, rng)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    def reuses(path: str, text: bytes, grammar: str = "cuda") -> bool:
        before = tree_reuse.reused
        tree = tree_reuse.parse(_parser(grammar), path, text, grammar)
        assert _nodes(tree) == _nodes(_parser(grammar).parse(text))
        return tree_reuse.reused > before

    assert not reuses(str(tmp_path / "a/one.cu"), data)
    assert reuses(str(tmp_path / "a/two.cu"), _text(_variant(rng, lines), rng))
    assert not reuses(str(tmp_path / "b/three.cu"), data)  # another folder
    assert not reuses(str(tmp_path / "b/four.cpp"), data, "cpp")  # another grammar
    unrelated = [f"int v{k} = {k} * {k};" for k in range(6000)]
    assert not reuses(str(tmp_path / "b/five.cpp"), "\n".join(unrelated).encode(), "cpp")
    # a small file is neither reused nor kept: the one before it still is
    assert not reuses(str(tmp_path / "b/six.cpp"), data[: tree_reuse.MIN_BYTES // 2], "cpp")
    near = _variant(rng, unrelated)
    assert reuses(str(tmp_path / "b/seven.cpp"), "\n".join(near).encode(), "cpp")
    assert not reuses(str(tmp_path / "b/eight.cpp"), "\n".join(near * 3).encode(), "cpp")


def _job(path: str, size: int) -> runner._Job:
    return runner._Job(0, path, size, None)


def test_family_order_keeps_a_python_folder_together_and_takes_the_rest_by_cost() -> None:
    rng = random.Random(2)
    jobs = [
        _job(f"/t/d{rng.randint(0, 9)}/f{k}.{rng.choice(['py', 'cu'])}", rng.randint(1, 10_000))
        for k in range(300)
    ]
    ordered = runner.family_order(jobs)
    assert sorted(map(id, ordered)) == sorted(map(id, jobs))
    python = [j for j in ordered if j.path.endswith(".py")]
    folders = [j.path.rsplit("/", 1)[0] for j in python]
    runs = [f for k, f in enumerate(folders) if k == 0 or folders[k - 1] != f]
    assert len(runs) == len(set(folders))  # each folder's Python files in one stretch
    firsts = [python[folders.index(f)].cost for f in runs]
    assert firsts == sorted(firsts, reverse=True)
    for f in runs:
        costs = [j.cost for j in python if j.path.startswith(f + "/")]
        assert costs == sorted(costs, reverse=True)
    # a C++ file ranks by its own cost, wherever its folder-mates go: what starts after it
    # (a C++ file, a Python folder's costliest) costs no more
    heads = [j for j in ordered if j.path.endswith(".cu") or j in [python[0], *(
        python[k] for k in range(1, len(python)) if folders[k] != folders[k - 1])]]
    assert [j.cost for j in heads] == sorted((j.cost for j in heads), reverse=True)


def test_batches_cover_the_jobs_in_order_with_the_biggest_alone() -> None:
    rng = random.Random(4)
    jobs = [_job(f"/t/f{k}.cu", rng.randint(1, 10_000)) for k in range(500)]
    cut = pool.batches(jobs, 2)
    assert [j for b in cut for j in b] == jobs
    assert all(len(b) == 1 for b in cut[:8])
    budget = sum(j.size for j in jobs[8:]) // 32
    assert all(sum(j.size for j in b[:-1]) < budget for b in cut[8:])
    sizes = [sum(j.size for j in b) for b in cut[8:-1]]
    assert min(sizes) >= budget // 4
    assert sizes[-1] < sizes[0] / 2  # smaller batches as the work runs out
    assert 30 <= len(cut) - 8 <= 80
    assert all(len(b) == 1 for b in pool.batches(jobs, 2, head=len(jobs)))


def _findings(folder: Path, jobs: int = 1) -> list[str]:
    from ptxlint.config import Config, RuleSelector
    from ptxlint.registry import load_rules
    from ptxlint.rule import RuleContext

    rules = list(load_rules().rules)
    config = Config()
    result = runner.run([str(folder)], config,
                        RuleSelector(config, [(r.id, r.name) for r in rules]), rules,
                        RuleContext(), jobs=jobs)
    return sorted(repr(f) for f in result.findings)  # every field but the statement


def test_a_run_over_variants_finds_the_same_serially_and_in_the_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule fixtures' bad kernels, as generated variants of one file (a constant changed,
    lines added and removed), handed to the pool's workers in family order: the findings are
    those of a run in this process. (C++ files are parsed from nothing: ``syntax_tree.parse``.)"""
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
    body = "\n".join(p.read_text() for p in sorted(fixtures.glob("PTX*_bad.cu")) * 2)
    rng = random.Random(11)
    lines = body.splitlines()
    for k in range(5):
        (tmp_path / f"kernel_h{k}.cu").write_text("\n".join(_variant(rng, lines)) + "\n")
    before = tree_reuse.reused
    serial = _findings(tmp_path)
    assert tree_reuse.reused == before
    assert len(serial) > 100
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 1)
    assert _findings(tmp_path, jobs=2) == serial


def test_python_variants_are_reused_and_find_what_fresh_parses_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generated CuTe DSL and Triton kernels come in families of variants too: the Python
    frontend parses through ``tree_reuse`` with its own grammar, and its trees and findings are
    those of fresh parses."""
    from ptxlint.frontends.python.frontend import _parser as python_parser

    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
    body = "\n".join(p.read_text() for p in sorted(fixtures.glob("PTX*_bad.py")) * 4)
    assert len(body) > tree_reuse.MIN_BYTES
    rng = random.Random(12)
    lines = body.splitlines()
    parser = python_parser()
    path = str(tmp_path / "kernel.py")
    tree_reuse.parse(parser, path, body.encode(), "python")
    before = tree_reuse.reused
    for _ in range(12):
        data = _text(_variant(rng, lines), rng)
        tree = tree_reuse.parse(parser, path, data, "python")
        fresh = parser.parse(data)
        assert _nodes(tree) == _nodes(fresh)
    assert tree_reuse.reused - before >= 6  # those with CRLF line ends are not
    # a C++ file's kept tree is not a Python file's base, nor the other way round
    cxx = "\n".join(_source(rng, tree_reuse.MIN_BYTES)).encode()
    tree_reuse.parse(_parser("cuda"), str(tmp_path / "kernel.cu"), cxx, "cuda")
    before = tree_reuse.reused
    tree_reuse.parse(parser, path, body.encode(), "python")
    assert tree_reuse.reused == before

    tree_reuse.forget()
    for k in range(4):
        (tmp_path / f"kernel_h{k}.py").write_text("\n".join(_variant(rng, lines)) + "\n")
    (tmp_path / "kernel.py").unlink(missing_ok=True)
    before = tree_reuse.reused
    reusing = _findings(tmp_path)
    assert tree_reuse.reused - before >= 2
    assert len(reusing) > 40
    monkeypatch.setattr(tree_reuse, "MIN_BYTES", 1 << 40)
    assert _findings(tmp_path) == reusing
