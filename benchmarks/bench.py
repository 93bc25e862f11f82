"""Time ``ptxlint check`` on a tree against a bare tree-sitter parse of the same files.

    python benchmarks/bench.py [PATH ...] [--repeat N] [--jobs N]

Both are measured in this process over the same file list (discovered once), best of
``--repeat`` runs each, so the ratio says what ptxlint costs on top of merely parsing.
The CLI's wall time (process start-up included) is printed too. Nothing here is asserted:
speed is tracked by reading these numbers, not by tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ptxlint.cli import run  # noqa: E402
from ptxlint.config import Config, RuleSelector  # noqa: E402
from ptxlint.discover import discover, read_source  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402
from ptxlint.syntax_tree import parse  # noqa: E402


def default_path() -> str:
    try:
        out = subprocess.run(
            ["nvcc", "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"],
            capture_output=True, text=True, check=False,
        ).stderr
        for line in out.splitlines():
            if line.startswith("#$ TOP="):
                return os.path.join(line.split("=", 1)[1].strip(), "include")
    except OSError:
        pass
    return os.path.join(ROOT, "fixtures")


def bare_parse(files: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    nbytes = 0
    for path in files:
        text, _, _ = read_source(path, 2 * 1024 * 1024)
        if text is None:
            continue
        nbytes += len(text)
        parse(path, text)
    return time.perf_counter() - started, nbytes


def ptxlint_check(paths: list[str]) -> tuple[float, int, int]:
    config = Config()
    rules = list(load_rules().rules)
    selector = RuleSelector(config, [(r.id, r.name) for r in rules])
    started = time.perf_counter()
    result = run(paths, config, selector, rules, RuleContext())
    return time.perf_counter() - started, result.statements, len(result.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = args.paths or [default_path()]
    files = [f.path for f in discover(paths).files]
    print(f"tree: {', '.join(paths)}  ({len(files)} files)")

    bare = min(bare_parse(files)[0] for _ in range(args.repeat))
    _, nbytes = bare_parse(files)
    runs = [ptxlint_check(paths) for _ in range(args.repeat)]
    lint = min(r[0] for r in runs)
    statements, findings = runs[0][1], runs[0][2]

    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "ptxlint", "check", *paths, "--quiet", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    cli = time.perf_counter() - started

    print(f"bare tree-sitter parse : {bare:8.2f} s  ({nbytes / 1e6:.1f} MB, every file)")
    print(
        f"ptxlint check (engine) : {lint:8.2f} s  "
        f"({statements} asm statements, {findings} findings)"
    )
    print(f"ratio check/parse      : {lint / bare:8.2f}x")
    print(f"ptxlint check (CLI)    : {cli:8.2f} s  wall, process start-up included")
    return 0


if __name__ == "__main__":
    sys.exit(main())
