"""What several --verify tests do: lint one file as ``ptxlint check --isolated --select RULE``
would, then verify its findings for one target."""

from __future__ import annotations

from pathlib import Path

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, verify


def check_and_verify(path: Path, select: str, arch: str = "sm_90") -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", select])
    config, selector, rules, context = _configure(args)
    return verify(run(args.paths, config, selector, rules, context),
                  VerifyOptions(files=(str(path),), arch=arch))
