#!/usr/bin/env python3
"""How precise is ptxlint on real code? Lint a fixed list of public CUDA code bases and compare
every finding with the reviewed verdicts in ``tests/data/reviewed_findings.toml``.

Usage::

    python scripts/corpus_precision.py CACHE [NAME ...] [--fetch] [--jobs N]
        [--reviewed FILE] [--dump FILE] [--from-dump FILE] [--list]

``CACHE`` holds the trees: ``CACHE/src/<name>/`` for source distributions (the layout of
``scripts/fetch_corpora.py``), ``CACHE/git/<name>/`` for repositories checked out at the pinned
commit; the CUDA headers are read where the installed toolkit keeps them. Nothing is fetched
unless ``--fetch`` is given: then a missing sdist comes through ``scripts/fetch_corpora.py``
(``pip download``, or the package index's simple page) and a missing repository through
``git fetch --depth 1 URL COMMIT``. Trees that are not in the cache are listed as not run.

Per tree it prints: asm statements linted, statements skipped (host assembly, other dialects),
findings per rule and severity, findings nobody has reviewed (errors and warnings), and findings
reviewed as false. The goals: no error judged false, at most 5% false among reviewed
warnings. The exit status is 1 when a goal is missed or an error is unreviewed, else 0.

A reviewed finding (``[[finding]]``) is keyed by tree, rule, path (relative to the tree) and
line, with an optional ``match`` (a piece of the message) where one line holds several findings
of a rule; ``verdict`` is ``true`` (a real defect), ``defensible`` (worth saying, though the code
works where it is built) or ``false`` (ptxlint is wrong), and ``why`` says why in one line.
A ``[[pattern]]`` judges many findings of one cause at once (880 PTX103 in generated kernels):
tree, rule, ``path`` as a glob (``csrc/cake_*/**``), ``match``, and ``count``, the number of
findings it covered when it was reviewed; a run that finds another number says so, because the
new ones were not looked at. A per-line review wins over a pattern.
tests/test_corpora.py reads the same list and the same file.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ptxlint.config import Config, RuleSelector  # noqa: E402
from ptxlint.model import Finding, SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402
from ptxlint.run.runner import run  # noqa: E402

REVIEWED = ROOT / "tests" / "data" / "reviewed_findings.toml"
VERDICTS = ("true", "defensible", "false")
MAX_FALSE_WARNINGS = 0.05


@dataclass(frozen=True)
class Tree:
    """One code base, pinned: an sdist version, or a git commit of a public repository."""

    name: str
    kind: str  # "sdist" | "git" | "cuda"
    ref: str = ""  # sdist: NAME==VERSION; git: clone URL
    commit: str = ""  # git only
    note: str = ""


_GH = "https://github.com/"
TREES: tuple[Tree, ...] = (
    # Source distributions on PyPI (fetched with scripts/fetch_corpora.py).
    Tree("flash-attn", "sdist", "flash-attn==2.8.3.post2"),
    Tree("vllm", "sdist", "vllm==0.33.0"),
    Tree("llama-cpp-python", "sdist", "llama-cpp-python==0.3.36", note="llama.cpp's ggml-cuda"),
    Tree("flashinfer-python", "sdist", "flashinfer-python==0.7.2.post1"),
    Tree("mamba-ssm", "sdist", "mamba-ssm==2.3.2.post1"),
    Tree("causal-conv1d", "sdist", "causal-conv1d==1.7.0"),
    Tree("xformers", "sdist", "xformers==0.0.35"),
    Tree("deepspeed", "sdist", "deepspeed==0.19.8"),
    # Public repositories at a fixed commit (no sdist, or the sdist leaves the kernels out).
    Tree("cutlass", "git", _GH + "NVIDIA/cutlass", "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"),
    Tree("cccl", "git", _GH + "NVIDIA/cccl", "571f2fc3bc53cd710e306ad43d58995c1fe4219f"),
    Tree("ThunderKittens", "git", _GH + "HazyResearch/ThunderKittens",
         "0b55588d2769dde0c7a9a606ffc015b0ca7a9551"),
    Tree("DeepGEMM", "git", _GH + "deepseek-ai/DeepGEMM",
         "54e22612409371d6364144b69086735beb54e98b"),
    Tree("DeepEP", "git", _GH + "deepseek-ai/DeepEP", "dd758caf451848bd150e1046af3d0a73e5fff38d"),
    Tree("nccl", "git", _GH + "NVIDIA/nccl", "5067397c2676d5aed50042fc39e5c8ee96eb0027"),
    Tree("TransformerEngine", "git", _GH + "NVIDIA/TransformerEngine",
         "d0067d0da6cb01811b8072a7d304f0e00344ce2b"),
    Tree("tilelang", "git", _GH + "tile-ai/tilelang", "a35008a42531c62b976ae4cec3855d4383db0f3c"),
    Tree("cuda-samples", "git", _GH + "NVIDIA/cuda-samples",
         "c94ff366aed18c797b8a85dfaac7817b0228b420"),
    Tree("FasterTransformer", "git", _GH + "NVIDIA/FasterTransformer",
         "df4a7534860137e060e18d2ebf019906120ea204"),
    Tree("Fuser", "git", _GH + "NVIDIA/Fuser", "81c4b22fd750d377d69e24928c32233162f6b2bd"),
    Tree("flash-attention", "git", _GH + "Dao-AILab/flash-attention",
         "0251105a2fb19d2957484b7f023cd8c115286ced", note="main, with the Hopper kernels"),
    Tree("apex", "git", _GH + "NVIDIA/apex", "6424da3b4faa6c8f062da4a48c424fff3f02d42d"),
    Tree("ao", "git", _GH + "pytorch/ao", "36027d82d1ad9949597ea16002ff4940374b1b94",
         note="torchao: CUDA kernels and Triton inline asm"),
    # The installed toolkit's own headers (cuda_fp16.hpp, sm_*_intrinsics.hpp, cccl/...).
    Tree("cuda-headers", "cuda", note="the CUDA toolkit's include/ folder"),
)


def cuda_include() -> Path | None:
    """The include folder of the toolkit in use ($CUDA_HOME, $CUDA_PATH, nvcc's on PATH)."""
    from scripts.locations import cuda_include as find

    return find()


def tree_path(tree: Tree, cache: Path) -> Path | None:
    if tree.kind == "cuda":
        return cuda_include()
    path = cache / ("src" if tree.kind == "sdist" else "git") / tree.name
    return path if path.is_dir() and any(path.iterdir()) else None


def fetch(tree: Tree, cache: Path) -> None:
    """Bring a missing tree into the cache (network); a failure is printed, never raised."""
    if tree.kind == "cuda" or tree_path(tree, cache) is not None:
        return
    if tree.kind == "sdist":
        command = [sys.executable, str(ROOT / "scripts" / "fetch_corpora.py"), str(cache), tree.ref]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"[{tree.name}] fetch failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return
    dest = cache / "git" / tree.name
    dest.mkdir(parents=True, exist_ok=True)
    steps = (
        ["git", "init", "-q"],
        ["git", "fetch", "-q", "--depth", "1", tree.ref, tree.commit],
        ["git", "-c", "advice.detachedHead=false", "checkout", "-q", "FETCH_HEAD"],
    )
    for step in steps:
        done = subprocess.run(step, cwd=dest, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"[{tree.name}] {' '.join(step[:2])} failed: {done.stderr.strip()[-300:]}",
                  file=sys.stderr)
            shutil.rmtree(dest, ignore_errors=True)
            return


# --------------------------------------------------------------------------- reviews


@dataclass(frozen=True)
class Review:
    tree: str
    rule: str
    path: str  # a glob for a pattern
    line: int  # 0 for a pattern
    verdict: str
    why: str
    match: str = ""
    count: int = 0  # a pattern: the findings it covered when reviewed

    @property
    def pattern(self) -> bool:
        return self.line == 0

    def covers(self, tree: str, rule: str, path: str, line: int, message: str) -> bool:
        if (self.tree, self.rule) != (tree, rule) or self.match not in message:
            return False
        if self.pattern:
            return fnmatch.fnmatchcase(path, self.path)
        return (self.path, self.line) == (path, line)


def load_reviews(path: Path = REVIEWED) -> list[Review]:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    reviews = []
    for kind in ("finding", "pattern"):
        for entry in data.get(kind, []):
            review = Review(
                tree=entry["tree"],
                rule=entry["rule"],
                path=entry["path"],
                line=int(entry["line"]) if kind == "finding" else 0,
                verdict=entry["verdict"],
                why=entry["why"],
                match=entry.get("match", ""),
                count=int(entry.get("count", 0)) if kind == "pattern" else 0,
            )
            bad = review.verdict not in VERDICTS or not review.why.strip()
            if bad or (kind == "finding" and review.line <= 0):
                raise ValueError(f"{path}: bad review {entry}")
            if kind == "pattern" and review.count <= 0:
                raise ValueError(f"{path}: a pattern needs the count it was reviewed at: {entry}")
            reviews.append(review)
    return reviews


@dataclass
class TreeReport:
    tree: Tree
    ran: bool = False
    files: int = 0
    statements: int = 0
    skipped: int = 0
    seconds: float = 0.0
    internal_errors: int = 0
    by_rule: Counter[tuple[str, str]] = field(default_factory=Counter)  # (rule, severity)
    unreviewed: Counter[str] = field(default_factory=Counter)  # severity -> count
    judged: Counter[tuple[str, str]] = field(default_factory=Counter)  # (severity, verdict)
    false_findings: list[str] = field(default_factory=list)
    unreviewed_errors: list[str] = field(default_factory=list)
    pattern_hits: Counter[Review] = field(default_factory=Counter)
    findings: list[dict[str, object]] = field(default_factory=list)


def relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def review_of(
    reviews: Sequence[Review], tree: str, rule: str, path: str, line: int, message: str
) -> Review | None:
    """The per-line review of a finding, else the first pattern that covers it."""
    found = [r for r in reviews if r.covers(tree, rule, path, line, message)]
    return next((r for r in found if not r.pattern), found[0] if found else None)


def lint_tree(tree: Tree, root: Path, reviews: Sequence[Review], jobs: int) -> TreeReport:
    report = TreeReport(tree, ran=True)
    rules = list(load_rules().rules)
    config = Config()
    result = run([str(root)], config, RuleSelector(config, [(r.id, r.name) for r in rules]),
                 rules, RuleContext(), jobs=jobs)
    report.files, report.statements = result.files, result.statements
    report.skipped, report.seconds = result.skipped_statements, result.seconds
    report.internal_errors = result.internal_errors
    mine = [r for r in reviews if r.tree == tree.name]
    report.pattern_hits.update({r: 0 for r in mine if r.pattern})  # a pattern that matches none
    for finding in result.findings:
        add_finding(report, finding, root, mine, result.sources)
    return report


def add_finding(
    report: TreeReport, finding: Finding, root: Path, reviews: Sequence[Review],
    sources: Mapping[str, SourceFile],
) -> None:
    source = sources.get(finding.path)
    line = source.line_col(finding.span.start).line if source is not None else 0
    add_record(report, finding.rule, finding.severity.value, relative(finding.path, root), line,
               finding.message, reviews)


def add_record(
    report: TreeReport, rule: str, severity: str, path: str, line: int, message: str,
    reviews: Sequence[Review],
) -> None:
    """Count one finding (path relative to the tree) and judge it by ``reviews``."""
    report.by_rule[(rule, severity)] += 1
    review = review_of(reviews, report.tree.name, rule, path, line, message)
    where = f"{path}:{line}: {rule} [{severity}] {message}"
    report.findings.append(
        {"tree": report.tree.name, "rule": rule, "severity": severity, "path": path,
         "line": line, "message": message, "verdict": review.verdict if review else None}
    )
    if review is None:
        if severity != "info":
            report.unreviewed[severity] += 1
        if severity == "error":
            report.unreviewed_errors.append(where)
        return
    report.judged[(severity, review.verdict)] += 1
    if review.pattern:
        report.pattern_hits[review] += 1
    if review.verdict == "false":
        report.false_findings.append(where)


_STATS = ("files", "statements", "skipped", "seconds", "internal_errors")


def write_dump(path: Path, reports: Sequence[TreeReport]) -> None:
    """Every finding with its verdict (``path``), and each tree's counts beside it
    (``path`` with ``.trees.json``), so that ``--from-dump`` can judge them again."""
    path.write_text(json.dumps([f for r in reports for f in r.findings], indent=1))
    trees = [{"tree": r.tree.name, **{k: getattr(r, k) for k in _STATS}} for r in reports if r.ran]
    path.with_suffix(".trees.json").write_text(json.dumps(trees, indent=1))


def from_dump(path: Path, trees: Sequence[Tree], reviews: Sequence[Review]) -> list[TreeReport]:
    """The reports of a dumped run, judged again by ``reviews`` (reviews added after a run
    need no second run of a 30-minute corpus)."""
    findings = json.loads(path.read_text())
    stats = {t["tree"]: t for t in json.loads(path.with_suffix(".trees.json").read_text())}
    reports = []
    for tree in trees:
        report = TreeReport(tree, ran=tree.name in stats)
        if report.ran:
            for key in _STATS:
                setattr(report, key, stats[tree.name][key])
            mine = [r for r in reviews if r.tree == tree.name]
            report.pattern_hits.update({r: 0 for r in mine if r.pattern})
            for f in findings:
                if f["tree"] == tree.name:
                    add_record(report, f["rule"], f["severity"], f["path"], f["line"],
                               f["message"], mine)
        reports.append(report)
    return reports


# --------------------------------------------------------------------------- report


def render_tree(rep: TreeReport) -> list[str]:
    """The lines of one tree's report."""
    if not rep.ran:
        return [f"{rep.tree.name}: not run (not in the cache; --fetch brings it)"]
    severities = Counter[str]()
    for (_, severity), n in rep.by_rule.items():
        severities[severity] += n
    rules = ", ".join(
        f"{rule} {severity[0]}:{n}" for (rule, severity), n in sorted(rep.by_rule.items())
    )
    warn_reviewed = sum(n for (s, _), n in rep.judged.items() if s == "warning")
    lines = [
        f"{rep.tree.name}: {rep.files} files, {rep.statements} statements, {rep.skipped} "
        f"skipped, {rep.seconds:.1f}s; findings: {severities['error']} errors, "
        f"{severities['warning']} warnings, {severities['info']} info; unreviewed: "
        f"{rep.unreviewed['error']} errors, {rep.unreviewed['warning']} warnings; judged "
        f"false: {rep.judged[('error', 'false')]} errors, {rep.judged[('warning', 'false')]} of "
        f"{warn_reviewed} reviewed warnings"
        + (f"; INTERNAL ERRORS: {rep.internal_errors}" if rep.internal_errors else "")
    ]
    if rules:
        lines.append(f"    per rule: {rules}")
    lines += [
        f"    pattern {p.rule} {p.path} {p.match!r} covered {n} findings, reviewed at {p.count}: "
        "look at the difference"
        for p, n in rep.pattern_hits.items()
        if n != p.count
    ]
    lines += [f"    false: {where}" for where in rep.false_findings]
    lines += [f"    unreviewed error: {where}" for where in rep.unreviewed_errors[:20]]
    return lines


def summary(reports: Sequence[TreeReport]) -> tuple[str, bool]:
    """The closing line over all trees, and whether the goals are met."""
    ran = [r for r in reports if r.ran]
    false_errors = sum(r.judged[("error", "false")] for r in ran)
    reviewed_warnings = sum(n for r in ran for (s, _), n in r.judged.items() if s == "warning")
    false_warnings = sum(r.judged[("warning", "false")] for r in ran)
    unreviewed_errors = sum(r.unreviewed["error"] + r.internal_errors for r in ran)
    statements = sum(r.statements for r in ran)
    totals = Counter[str]()
    for r in ran:
        for (_, severity), n in r.by_rule.items():
            totals[severity] += n
    rate = false_warnings / reviewed_warnings if reviewed_warnings else 0.0
    ok = false_errors == 0 and rate <= MAX_FALSE_WARNINGS and unreviewed_errors == 0
    text = (
        f"Ran {len(ran)} of {len(reports)} trees ({', '.join(r.tree.name for r in ran)}): "
        f"{statements} statements; {totals['error']} errors, {totals['warning']} warnings, "
        f"{totals['info']} info. Errors judged false: {false_errors} (goal 0); unreviewed "
        f"errors: {unreviewed_errors} (goal 0); warnings judged false: {false_warnings} of "
        f"{reviewed_warnings} reviewed ({rate:.1%}, goal <= {MAX_FALSE_WARNINGS:.0%}). "
        f"{'Goals met.' if ok else 'GOALS MISSED.'}"
    )
    return text, ok


def render(reports: Sequence[TreeReport]) -> tuple[str, bool]:
    lines = [line for rep in reports for line in render_tree(rep)]
    text, ok = summary(reports)
    return "\n".join([*lines, "", text]) + "\n", ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cache", type=Path, help="folder with src/<name>/ and git/<name>/")
    parser.add_argument("names", nargs="*", help="trees to run (default: all)")
    parser.add_argument("--fetch", action="store_true", help="fetch trees missing from the cache")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--reviewed", type=Path, default=REVIEWED)
    parser.add_argument("--dump", type=Path, help="write every finding, with its verdict, as JSON")
    parser.add_argument("--list", action="store_true", help="print the trees and their pins")
    parser.add_argument("--from-dump", type=Path, metavar="FILE",
                        help="judge the findings of an earlier --dump again; lint nothing")
    args = parser.parse_args(argv)
    known = {t.name: t for t in TREES}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"unknown tree(s): {', '.join(unknown)}; known: {', '.join(known)}")
    trees = [known[n] for n in args.names] if args.names else list(TREES)
    if args.list:
        for t in trees:
            pin = t.ref + (f" @ {t.commit}" if t.commit else "")
            print(f"{t.name:20} {t.kind:6} {pin or '(installed toolkit)'} {t.note}".rstrip())
        return 0
    reviews = load_reviews(args.reviewed)
    if args.from_dump:
        text, ok = render(from_dump(args.from_dump, trees, reviews))
        print(text, end="")
        return 0 if ok else 1
    reports = []
    for tree in trees:  # each tree's lines as soon as it is done: a full run takes a while
        if args.fetch:
            fetch(tree, args.cache)
        root = tree_path(tree, args.cache)
        if root is None:
            reports.append(TreeReport(tree))
        else:
            print(f"[{tree.name}] linting {root}", file=sys.stderr, flush=True)
            reports.append(lint_tree(tree, root, reviews, args.jobs))
        print("\n".join(render_tree(reports[-1])), flush=True)
        if args.dump:
            write_dump(args.dump, reports)
    text, ok = summary(reports)
    print(f"\n{text}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
