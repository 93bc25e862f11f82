#!/usr/bin/env python3
"""How much of real code the protocol rules (PTX602-PTX610, PTX615, PTX616) can see: delete one
protocol step from a real kernel, and ask whether a rule notices.

The fixtures show that each PTX6xx rule flags its defect; they do not show how often a real
pipeline is written in a way the function flows (``ptxlint.analysis.function_flow``) can
follow. This script measures that on public trees, by mutation: in each C++ file it finds the
one-line statements that take a protocol step, deletes one at a time, lints the mutated text
in this process (under the file's own path, so that its includes resolve; nothing is written)
and counts the mutants on which some PTX6xx finding appears that the unmutated file does not
have.

A *site* is a one-line statement that is

* a call whose callee's name says it is one of those steps: a cp.async commit or wait
  (``cp_async_fence()``, ``cp_async_wait<2>()``, ``__pipeline_commit()``), a wgmma fence,
  commit or wait (``warpgroup_arrive()``, ``warpgroup_wait<0>()``, ThunderKittens'
  ``warpgroup::mma_async_wait()``; not ``warpgroup_fence_operand``, which is no instruction),
  a proxy fence (``cute::tma_store_fence()``, ``fence_view_async_shared()``), an mbarrier
  init fence (``fence_barrier_init()``) or a bulk (TMA store) commit or wait
  (``tma_store_wait<0>()``, ``tma::store_async_read_wait()``, ``cp_async_bulk_wait_group()``):
  how CUTLASS, CuTe, DeepGEMM, DeepEP, ThunderKittens and flashinfer spell these steps; or
* an asm statement whose template names one of the steps the rules guard
  (``cp.async.commit_group``, ``cp.async.wait_group``/``wait_all``, ``wgmma.fence``,
  ``wgmma.commit_group``, ``wgmma.wait_group``, ``fence.proxy.async``,
  ``fence.mbarrier_init``, ``cp.async.bulk.commit_group``, ``cp.async.bulk.wait_group``).

Not every deletion is a defect (a wait may be repeated further on), so the rate is a ceiling's
complement: the share of sites where the rules are *able* to speak at all. The report splits
the sites by whether their file holds an asm statement of its own. A file without one is
linted as ``ptxlint check --preview`` lints it: only where the prefilter lets it through
(``ptxlint.run.prefilter.may_hold_asm`` with the protocol rules enabled: it names an asm macro
or an asm helper of a project header it includes), each text, the file's and the mutant's,
asked on its own; a file it drops has no finding.

Usage: ``python benchmarks/protocol_reach.py TREE... [--limit N] [--seed S] [--jsonl FILE]
[--match REGEX]`` (``--limit``: at most N sites, sampled with ``random.Random(S)``;
``--match``: only the sites whose statement the pattern searches). Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.model import SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import Rule, RuleContext  # noqa: E402
from ptxlint.run.prefilter import may_hold_asm  # noqa: E402

SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hxx", ".inl", ".cc", ".cpp")
PROTOCOL_RULES = frozenset({*(f"PTX6{n:02d}" for n in range(2, 11)), "PTX615", "PTX616"})
_STEP_NAME = (
    r"\w*cp_?async_?(?:fence|commit|wait)\w*|__pipeline_(?:commit|wait_prior)|"
    r"\w*(?:wgmma|warpgroup)_?(?:arrive|commit\w*|wait\w*|fence(?!_operand)\w*)|"
    r"warpgroup::mma_(?:async_wait|commit_group|fence)\w*|"
    r"\w*(?:tma_store_fence|fence_proxy_async|fence_view_async_shared|fence_async_shared)\w*|"
    r"\w*fence_m?barrier_init\w*|"
    r"\w*(?:tma_store_wait|tma_store_arrive|store_async(?:_read)?_wait|"
    r"cp_async_bulk_(?:commit|wait)|bulk_(?:commit|wait)_group)\w*")
_CALL = re.compile(rf"^\s*(?:[A-Za-z_]\w*::)*(?i:{_STEP_NAME})\s*(?:<[^;]*>)?\s*\([^;]*\)"
                   r"\s*;\s*$")
_ASM = re.compile(
    r"^\s*(?:asm|__asm__)\b.*\"[^\"]*\b(?:cp\.async\.(?:commit_group|wait_group|wait_all)|"
    r"cp\.async\.bulk\.(?:commit_group|wait_group)|"
    r"wgmma\.(?:fence|commit_group|wait_group)|fence\.proxy\.async|fence\.mbarrier_init)"
    r"[^\"]*\".*;\s*$")
_HAS_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b")


def _statement(site: Site) -> str:
    with open(site.path, encoding="utf-8", errors="replace") as handle:
        return handle.read().split("\n")[site.line]


@dataclass(frozen=True)
class Site:
    path: str
    line: int  # 0-based


def sites(trees: Sequence[str]) -> Iterator[Site]:
    for tree in trees:
        for folder, dirs, files in os.walk(tree):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(folder, name)
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        lines = handle.read().split("\n")
                except OSError:
                    continue
                for number, line in enumerate(lines):
                    if _ASM.match(line) or _CALL.match(line):
                        yield Site(path, number)


def protocol_findings(path: str, text: str, rules: list[Rule]) -> Counter[tuple[str, str]]:
    if not may_hold_asm(path, text.encode(), helpers=True):
        return Counter()  # the product does not lint it
    result = lint_source(SourceFile(path, text), rules, RuleContext())
    return Counter((f.rule, f.message) for f in result.findings if f.rule in PROTOCOL_RULES)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jsonl", help="one JSON line per site")
    parser.add_argument("--match", help="only the sites whose statement this regex searches "
                        "(such as 'tma_store|bulk' for the bulk-group steps)")
    args = parser.parse_args()
    rules = [r for r in instantiate(load_rules().rules) if r.id in PROTOCOL_RULES]
    found = list(sites(args.trees))
    if args.match:
        wanted = re.compile(args.match)
        found = [s for s in found if wanted.search(_statement(s))]
    if args.limit and len(found) > args.limit:
        found = sorted(random.Random(args.seed).sample(found, args.limit),
                       key=lambda s: (s.path, s.line))
    rows: list[str] = []
    tally: Counter[tuple[bool, bool]] = Counter()
    by_rule: Counter[str] = Counter()
    baseline: dict[str, tuple[str, Counter[tuple[str, str]]]] = {}
    for site in found:
        if site.path not in baseline:
            with open(site.path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            baseline = {site.path: (text, protocol_findings(site.path, text, rules))}
        text, before = baseline[site.path]
        lines = text.split("\n")
        mutant = "\n".join(lines[:site.line] + [""] + lines[site.line + 1:])
        after = protocol_findings(site.path, mutant, rules)
        new = sorted({rule for rule, _ in after - before})
        own_asm = _HAS_ASM.search(mutant) is not None
        tally[(own_asm, bool(new))] += 1
        by_rule.update(new)
        rows.append(json.dumps({"path": site.path, "line": site.line + 1,
                                "statement": lines[site.line].strip()[:120],
                                "own_asm": own_asm, "new": new}))
    if args.jsonl:
        with open(args.jsonl, "w") as handle:
            handle.write("".join(row + "\n" for row in rows))
    total = sum(tally.values())
    seen = tally[(True, True)] + tally[(False, True)]
    print(f"sites: {total}; a PTX6xx finding appears on {seen} "
          f"({100 * seen / max(total, 1):.1f}%)")
    for own in (True, False):
        n = tally[(own, True)] + tally[(own, False)]
        label = "files with asm of their own" if own else "files without"
        print(f"  {label}: {n} sites, {tally[(own, True)]} noticed")
    print("  by rule: " + (", ".join(f"{k} {v}" for k, v in sorted(by_rule.items())) or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
