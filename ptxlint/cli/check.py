"""``ptxlint check``: settings, the lint run (or standard input's), then --add-noqa, --verify,
the report and the exit code."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ptxlint.cli import settings
from ptxlint.cli.exits import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError, exit_code
from ptxlint.verify import cli as verify_cli

if TYPE_CHECKING:
    from ptxlint.report.run_result import RunResult

# Reports that read the statement a finding is in (fingerprints hash its text); the others,
# and runs without --verify or --add-noqa, let the runner drop statements as files finish.
FORMATS_READING_STATEMENTS = ("sarif", "gitlab")


def cmd_check(args: argparse.Namespace, whole_process: bool = False) -> int:
    """``whole_process``: the process ends with this command (``main`` called as the program)."""
    from ptxlint import collector

    # The command's modules and the rules import most of ptxlint: objects that live as long as
    # the process. The collections they set off found a few hundred objects to free. With the
    # pause beginning only after this command's imports, and its objects set aside after it
    # ended, a small file's check spent 4.0 ms of CPU in 31 collections; 1.8 ms in 18 now.
    with collector.paused():
        from ptxlint import stdin_input
        from ptxlint.cli import output
        from ptxlint.run.runner import default_jobs, run

        verify_cli.resolve_native_arch(args)  # --arch native -> sm_XY before the config reads it
        config, selector, rule_classes, context = settings.configure(args)
        if whole_process:  # before the pause ends: else its first collection walks them all
            collector.keep_for_good()
            collector.settle_after_each_file()
    shown = settings.show(args)
    if shown is not None:
        return shown
    settings.apply_force_exclude(args)
    output.refuse_source_as_output(args, config)
    progress = None
    if not args.no_progress and not args.quiet:
        from ptxlint.run.progress import Progress

        progress = Progress(sys.stderr, terminal=sys.stderr.isatty())
    fix_mode = "diff" if args.diff else "fix" if args.fix or args.fix_only else None
    if args.add_noqa and fix_mode:
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    stdin_fixed: bytes | None = None
    if stdin_input.STDIN in args.paths:
        result, stdin_fixed = _check_stdin(args, fix_mode)
    else:
        result = run(
            args.paths,
            config,
            selector,
            rule_classes,
            context,
            progress,
            fix_mode=fix_mode,
            unsafe_fixes=args.unsafe_fixes,
            jobs=args.jobs or default_jobs(),
            tier2=settings.tier2(args, config),
            resolver=args.resolver,
            use_cache=not args.no_cache and not os.environ.get("PTXLINT_NO_CACHE"),
            keep_statements=bool(getattr(args, "verify", False) or args.add_noqa)
            or args.format in FORMATS_READING_STATEMENTS,
            count_types=args.format == "json",  # the one report of check that shows them
        )
    if args.add_noqa:
        return _add_noqa(args, result)
    if fix_mode != "diff":
        verify_cli.run_verification(args, result, config)
    report = output.render(args, result, config, selector, rule_classes, fix_mode)
    output.write(report, args, fix_mode, stdin_fixed)
    output.notes(args, result)
    if stdin_fixed is None:
        output.nothing_found(args, result, config)
    output.fixes(args, result, fix_mode)
    if fix_mode == "diff":
        return EXIT_ERROR if result.errors else (EXIT_FINDINGS if result.diffs else EXIT_OK)
    if args.fix_only:
        code = EXIT_ERROR if result.errors or result.internal_errors else EXIT_OK
    else:
        code = exit_code(result, config.fail_on)
    if code == EXIT_OK and args.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    return code


def _check_stdin(args: argparse.Namespace, fix_mode: str | None) -> tuple[RunResult, bytes]:
    """The run's result for standard input, and what ``--fix -`` writes to standard output."""
    from ptxlint import stdin_input
    from ptxlint.report.run_result import RunResult
    from ptxlint.run.discover import decode_source

    if args.paths != [stdin_input.STDIN]:
        raise UsageError("'-' (standard input) cannot be combined with other paths")
    name = args.stdin_filename or stdin_input.DEFAULT_NAME
    settings = args.resolver.for_path(name)
    try:
        data = stdin_input.read_stdin_bytes(max_size=settings.config.max_file_size)
    except stdin_input.TooLarge as exc:  # refused as a file over the limit: one line, exit 2
        return RunResult(errors=[(args.stdin_filename or "standard input", str(exc))]), b""
    except stdin_input.Binary as exc:  # skipped with a note, as a binary file is; a filter
        # gives its bytes back, never an empty buffer
        return RunResult(notes=[(args.stdin_filename or "standard input", str(exc))]), exc.data
    if settings.force_exclude and args.resolver.excluded(name, settings):
        return RunResult(), data  # excluded: nothing to report, the input passes through
    text, decode_errors = decode_source(data)
    result, fixed_text = stdin_input.lint_stdin(
        text, decode_errors, name, settings.selector, args.rule_classes, settings.context,
        fix_mode, args.unsafe_fixes,
    )
    return result, stdin_input.filter_output(data, text, fixed_text)


def _add_noqa(args: argparse.Namespace, result: RunResult) -> int:
    from ptxlint import add_noqa, stdin_input
    from ptxlint.report.names import printable_name

    if stdin_input.STDIN in args.paths:
        raise UsageError("--add-noqa writes files: it cannot read standard input")
    added, changed, errors, notes = add_noqa.apply(result)
    for path, reason in [*result.errors, *errors]:
        print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
    for path, note in notes:
        print(f"ptxlint: note: {printable_name(path)}: {note}", file=sys.stderr)
    print(
        f"Added {added} suppression{'s' if added != 1 else ''} "
        f"in {changed} file{'s' if changed != 1 else ''}.",
        file=sys.stderr,
    )
    return EXIT_ERROR if result.errors or errors else EXIT_OK
