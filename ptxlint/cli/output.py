"""``check``'s output: the report in the chosen format, where it goes (stdout, ``--output``, or
stderr when standard input's fixed text takes stdout), and the lines beside it on stderr (read
errors, skip notes, the fix counts and listing).

``ptxlint.cli.check`` imports this module inside its collector pause, with the report modules
below: their imports then set off no collection.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxlint.cli.exits import UsageError
from ptxlint.cli.parser import extra_formats
from ptxlint.report import emit, text_format
from ptxlint.report.names import printable_name
from ptxlint.verify import cli as verify_cli

if TYPE_CHECKING:
    from ptxlint.config import Config, RuleSelector
    from ptxlint.report.run_result import RunResult
    from ptxlint.rule import Rule

# Formats read by people: read errors and skip notes go to stderr beside them.
HUMAN_FORMATS = ("text", "concise", "grouped", "full", "pylint")


def render(args: argparse.Namespace, result: RunResult, config: Config, selector: RuleSelector,
           rule_classes: Sequence[type[Rule]], fix_mode: str | None) -> str:
    """The report's text; with ``--diff``, the diff (and the count of fixes on stderr)."""
    if fix_mode == "diff":
        if not args.quiet:
            n = result.fixed
            print(f"Would fix {n} finding{'s' if n != 1 else ''}.", file=sys.stderr)
        return "".join(result.diffs)
    if args.fix_only:
        return ""  # the findings left are not the point of --fix-only
    # --statistics: the table in place of the findings, for any format read by people (concise,
    # grouped... printed their findings and no table); a machine's format has no place for it
    statistics = args.statistics and args.format in HUMAN_FORMATS
    if args.statistics and not statistics:
        print(f"ptxlint: warning: --statistics is ignored with --output-format {args.format}: "
              f"it prints a table for people ({', '.join(HUMAN_FORMATS)})", file=sys.stderr)
    if args.format == "json":
        from ptxlint.report import json_format

        return json_format.render(result)
    if args.format == "sarif":
        from ptxlint.report import sarif_format  # sarif-om and attrs: only for SARIF

        ran = [r for r in rule_classes if selector.enabled(r.id, r.name)]
        return sarif_format.render(result, ran, category=args.sarif_category)
    if args.format == "github":
        from ptxlint.report import github_format

        return github_format.render(result)
    if args.format in extra_formats() and not statistics:
        from ptxlint.report import formats

        return formats.render(args.format, result, quiet=args.quiet,
                              show_info=args.show_info or config.fail_on == "info")
    color = (
        args.output is None
        and sys.stdout.isatty()
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM") != "dumb"
    )
    return verify_cli.render_text(
        result,
        style=text_format.Style(color=color),
        quiet=args.quiet,
        statistics=statistics,
        show_info=args.show_info or config.fail_on == "info",
    )


def refuse_source_as_output(args: argparse.Namespace, config: Config) -> None:
    """``--output`` naming an existing source file (``-o k.cu`` for ``-o k.sarif``, or one of
    the paths being linted) would replace the user's code with the report: refused before the
    run, as nothing but --fix writes a source file."""
    target = args.output
    if not target or not os.path.isfile(target):
        return
    from ptxlint.run.discover import DEFAULT_EXTENSIONS

    extensions = config.extensions or DEFAULT_EXTENSIONS
    named = any(os.path.isfile(p) and os.path.samefile(p, target) for p in args.paths)
    extension = os.path.splitext(target)[1]
    if named or extension in extensions:
        what = "a file this run lints" if named else f"an existing {extension} source file"
        raise UsageError(f"--output {target} is {what}: the report would replace it; name a "
                         "report file (e.g. ptxlint.sarif)")


def write(report: str, args: argparse.Namespace, fix_mode: str | None,
          stdin_fixed: bytes | None) -> None:
    """The report to ``--output``, or to stdout; fixing standard input, the fixed text takes
    stdout and the report stderr (a filter)."""
    kind = "diff" if fix_mode == "diff" else args.format
    if args.output:
        try:
            emit.to_file(report, kind, args.output)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    elif stdin_fixed is not None and fix_mode == "fix":
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text-only stream put in its place (tests, embedding)
            sys.stdout.write(stdin_fixed.decode("utf-8", "replace"))
        else:  # bytes: a filter must give back what it did not fix as it came
            sys.stdout.flush()
            buffer.write(stdin_fixed)
            buffer.flush()
        sys.stderr.write(report)
    else:
        emit.to_stdout(report, kind)


def notes(args: argparse.Namespace, result: RunResult) -> None:
    """Beside a report read by people (or one written to a file): read errors, skip notes and,
    under --verbose, the probes --verify could not run."""
    if not (args.format in HUMAN_FORMATS or args.output):
        return
    for path, reason in result.errors:
        print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
    if args.quiet:
        return
    for path, reason in result.notes:
        print(f"ptxlint: note: {printable_name(path)}: skipped: {reason}", file=sys.stderr)
    for path, message in result.file_notes:
        where = f"{printable_name(path)}: " if path else ""
        print(f"ptxlint: note: {where}{message}", file=sys.stderr)
    if getattr(args, "verbose", False) or getattr(args, "verbose_global", False):
        for path, line, message in result.verify_probe_failures:
            print(f"ptxlint: note: {printable_name(path)}:{line}: {message}", file=sys.stderr)


def nothing_found(args: argparse.Namespace, result: RunResult, config: Config) -> None:
    """A run that found no file to lint, and no reason why (an error, a skip note), passes: a
    warning says so, as ruff's "No Python files found" does (a typo in --extensions, or an
    exclude that matches everything, would otherwise pass CI in silence)."""
    if result.files or result.errors or result.notes:
        return
    from ptxlint.run.discover import DEFAULT_EXTENSIONS

    extensions = " ".join(config.extensions or DEFAULT_EXTENSIONS)
    print(f"ptxlint: warning: no file to lint under {' '.join(args.paths)} (extensions: "
          f"{extensions}; exclude and .gitignore apply)", file=sys.stderr)


def fixes(args: argparse.Namespace, result: RunResult, fix_mode: str | None) -> None:
    """The count of fixes applied, and with --show-fixes the fixed findings per file and rule."""
    if fix_mode == "fix" and not args.quiet and (result.fixed or args.fix_only):
        print(f"Fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}.", file=sys.stderr)
    if args.show_fixes and fix_mode:
        sys.stderr.write(text_format.fixes_listing(result, would=fix_mode == "diff"))
