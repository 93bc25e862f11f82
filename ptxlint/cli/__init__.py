"""The ``ptxlint`` command line: ``main`` reads the arguments, runs one command and turns what
happened into the exit code.

Start-up matters (pre-commit and editors start ptxlint once per file or commit): loading this
package loads the exit codes only. ``main`` loads the parser when it parses (``--version``
alone never does: nor argparse, nor the dataclasses that --verify's arguments bring), and each
command's module is imported when that command runs, and imports what it uses then, so
``--help`` never loads the engine, and ``check`` never loads verification, Tier 2, the
language server or the other commands unless asked to.

The modules, one job each: ``parser`` (every command's arguments) with ``help_text`` (the
``--help`` epilogs); ``exits`` (exit codes, the usage error); ``settings`` (the run's
configuration from the arguments); ``check`` with ``output`` (the report: format, destination,
the notes beside it); ``stats``; ``docs`` (``rules``, ``rule``, ``config``); ``new``;
``clean``. ``doctor`` and ``--verify`` are ``ptxlint.verify.cli``'s, ``lsp`` is
``ptxlint.lsp``'s.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from ptxlint import __version__
from ptxlint.cli.exits import EXIT_ERROR, EXIT_OK, UsageError, user_errors

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from ptxlint.cli.parser import COMMANDS, build_parser
    from ptxlint.cli.parser import extra_formats as _extra_formats  # noqa: F401
    from ptxlint.cli.settings import configure as _configure  # noqa: F401
    from ptxlint.report.run_result import RunResult

__all__ = ["COMMANDS", "build_parser", "main", "run"]


def __getattr__(name: str) -> Any:
    """The parser's names and ``_configure`` (tests and scripts read them here), loaded on
    first use."""
    if name in ("COMMANDS", "build_parser", "_extra_formats"):
        from ptxlint.cli import parser

        return getattr(parser, name.removeprefix("_"))
    if name == "_configure":
        from ptxlint.cli.settings import configure

        return configure
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(*args: Any, **kwargs: Any) -> RunResult:
    """:func:`~ptxlint.run.runner.run`, loaded on first use (tests and scripts that set up a
    run with ``_configure`` call it from here)."""
    from ptxlint.run.runner import run as run_files

    return run_files(*args, **kwargs)


def main(argv: Sequence[str] | None = None) -> int:
    """The exit code: 0 clean, 1 findings, 2 anything else (never 1 for a crash)."""
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:
        print(f"ptxlint {__version__}")  # the common probe; argparse would say the same
        return EXIT_OK
    from ptxlint import collector

    # The parser's imports (argparse, the dataclasses --verify's arguments bring) and check's
    # make objects that live as long as the process: the collections they set off freed
    # nothing, and took 20 of the 24 a small file's check ran (3.5 ms). ``cmd_check`` pauses
    # for its own imports in turn; the lint itself runs with the collector on.
    with collector.paused():
        from ptxlint.cli.parser import COMMANDS, build_parser, parse

        given = list(sys.argv[1:] if argv is None else argv)
        try:
            implicit = _implicit_check(given, COMMANDS)
        except UsageError as exc:
            build_parser().print_usage(sys.stderr)
            print(f"ptxlint: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        parser = build_parser(only_check=_command_of(implicit, COMMANDS) == "check")
        args = parse(parser, implicit)
        if args.command in (None, "check"):
            from ptxlint.cli import check  # noqa: F401  (``_dispatch`` runs it)
    if argv is None:
        from ptxlint import start_path

        start_path.isolate()  # child interpreters never import from the working folder
    try:
        code = _dispatch(parser, args, argv)
    except user_errors() as exc:  # evaluated only when something was raised
        print(f"ptxlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`ptxlint check | head`): stay quiet, also at interpreter exit
        import contextlib

        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a crash must read as "error", never "findings"
        print(f"ptxlint: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if getattr(args, "verbose", False) or getattr(args, "verbose_global", False):
            import traceback  # with textwrap and linecache: only for a crash

            traceback.print_exc()
        else:
            print("ptxlint: run again with --verbose for the traceback, and please report it",
                  file=sys.stderr)
        return EXIT_ERROR
    if argv is None and args.command in (None, "check"):  # the process ends with the report
        from ptxlint.run.leave import leave

        return leave(code)
    return code


# The main parser's own options; anything else before the command belongs to `check`.
_GLOBAL_FLAGS = ("--verbose", "-v")
_GLOBAL_EXITS = ("--help", "-h", "--version")


def _command_of(argv: list[str], commands: Sequence[str]) -> str | None:
    """The command word of ``argv`` (after the global flags), or None (none, or --help first)."""
    start = 0
    while start < len(argv) and argv[start] in _GLOBAL_FLAGS:
        start += 1
    return argv[start] if start < len(argv) and argv[start] in commands else None


def _implicit_check(argv: list[str], commands: Sequence[str]) -> list[str]:
    """``ptxlint src --fix`` is ``ptxlint check src --fix`` (ruff's old shorthand, and what the
    help promises): a first argument that is an option of check or a path runs check. A word
    that is a command stays the command (``ptxlint check rules`` lints a folder named rules); a
    word that is neither a command nor an existing path is an error, with the nearest command."""
    start = 0
    while start < len(argv) and argv[start] in _GLOBAL_FLAGS:
        start += 1
    if start == len(argv):
        return argv
    first = argv[start]
    if first in commands or first in _GLOBAL_EXITS:
        return argv
    if first.startswith("-") or os.path.lexists(first):
        return [*argv[:start], "check", *argv[start:]]
    import difflib  # only on this error

    close = difflib.get_close_matches(first, commands, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UsageError(
        f"{first!r} is neither a command ({', '.join(commands)}) nor an existing path{hint}"
    )


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace,
              argv: Sequence[str] | None) -> int:
    if args.command in (None, "check"):
        from ptxlint.cli.check import cmd_check

        if args.command is None:
            from ptxlint.cli.parser import parse

            args = parse(parser, ["check", *(argv or sys.argv[1:])])
        return cmd_check(args, whole_process=argv is None)
    if args.command == "stats":
        from ptxlint.cli.stats import cmd_stats

        return cmd_stats(args)
    if args.command == "rules":
        from ptxlint.cli.docs import cmd_rules

        if args.output_format == "json":  # every rule's data, as `rule --all` gives it
            from ptxlint.cli.docs import cmd_rule

            return cmd_rule(None, show_all=True, output_format="json")
        return cmd_rules()
    if args.command == "rule":
        from ptxlint.cli.docs import cmd_rule

        return cmd_rule(args.rule, show_all=args.all, output_format=args.output_format)
    if args.command == "config":
        from ptxlint.cli.docs import cmd_config

        return cmd_config(args.setting, output_format=args.output_format)
    if args.command == "doctor":
        from ptxlint.verify import cli as verify_cli

        return verify_cli.cmd_doctor(args)
    if args.command == "clean":
        from ptxlint.cli.clean import cmd_clean

        return cmd_clean()
    if args.command == "new":
        from ptxlint.cli.new import cmd_new

        return cmd_new(args.opcode, args.dialect, args.name, args.kernel)
    if args.command == "lsp":
        from ptxlint.lsp import run_from_args

        return run_from_args(args, whole_process=argv is None)
    parser.print_help()
    return EXIT_ERROR

