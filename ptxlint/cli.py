"""The ``ptxlint`` command line.

Start-up matters (pre-commit and editors start ptxlint once per file or commit): this module
imports only argparse and the parser's own pieces at load time. Each command imports what it
uses when it runs, so ``--version`` and ``--help`` never load the engine, and ``check`` never
loads verification, Tier 2 or the language server unless asked to.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ptxlint import __version__, cli_help
from ptxlint.verify import cli as verify_cli

if TYPE_CHECKING:
    from ptxlint.config import Config, RuleSelector
    from ptxlint.config_discovery import FileSettings
    from ptxlint.report.run_result import RunResult
    from ptxlint.rule import Rule, RuleContext
    from ptxlint.run.runner import Tier2Settings

__all__ = ["main", "run"]

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


def run(*args: Any, **kwargs: Any) -> RunResult:
    """:func:`~ptxlint.run.runner.run`, loaded on first use (a name here, so tests can patch it)."""
    from ptxlint.run.runner import run as run_files

    return run_files(*args, **kwargs)


def _user_errors() -> tuple[type[Exception], ...]:
    """The errors that mean "bad input or set-up" (exit 2 with one line), not a crash."""
    from ptxlint.config import ConfigError
    from ptxlint.tier2.compile_db import CompileDbError
    from ptxlint.verify.toolchain import ToolchainError

    return (UsageError, ConfigError, ToolchainError, CompileDbError)


def _comma_list(values: Sequence[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for value in values or ():
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return tuple(out)


# Every command build_parser adds, in its order (tests/test_help.py holds the two together).
COMMANDS = ("check", "stats", "rules", "rule", "config", "doctor", "clean", "new", "lsp")


def build_parser(only_check: bool = False) -> argparse.ArgumentParser:
    """The command line's parser; with ``only_check``, without the other commands' parsers (for
    a run that is known to be ``check``: 0.6 ms of CPU to build instead of 1.5)."""
    parser = argparse.ArgumentParser(
        prog="ptxlint",
        description="Static analyzer for inline PTX assembly in CUDA sources.",
        epilog=cli_help.MAIN,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ptxlint {__version__}",
                        help="print the version and exit")
    parser.add_argument("--verbose", "-v", action="store_true", dest="verbose_global",
                        help="on an internal error, print its traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="lint files and folders (default: .)",
        description="Lint the asm statements of CUDA/C++ (and Python) sources.",
        epilog=cli_help.CHECK,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_lint_arguments(check)
    check.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=("text", "json", "sarif", "github", *_extra_formats()),
        default="text",
        help="report format: text (default), concise (one line per finding), grouped (by "
        "file), full (source context and the fix's lines), json, json-lines, sarif (GitHub "
        "code scanning), github (workflow annotations), azure (Azure Pipelines logging "
        "commands), junit (test reports), gitlab (code quality), rdjson (reviewdog), pylint "
        "(pylint's parseable lines)",
    )
    check.add_argument(
        "--sarif-category",
        metavar="NAME",
        help="with sarif: the code scanning category, written to automationDetails.id",
    )
    check.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--quiet", "-q", action="store_true", help="findings only, no summary")
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "info", "never"),
        help="lowest severity that makes the exit code 1 (default: warning)",
    )
    check.add_argument(
        "--show-info",
        action="store_true",
        help="print info findings one by one in the text output (default: a one-line count)",
    )
    check.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress on stderr (a bar on a terminal, a line every 10 s in a long CI run)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write the result cache (also: PTXLINT_NO_CACHE=1; "
        "`ptxlint clean` empties it)",
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="worker processes for large trees (default: all cores)",
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument(
        "--fix-only",
        action="store_true",
        help="apply safe fixes and report only how many were applied, not the findings left",
    )
    check.add_argument(
        "--show-fixes",
        action="store_true",
        help="with --fix, --fix-only or --diff: list the fixed findings per file and rule",
    )
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when --fix or --fix-only changed a file, even if nothing is left",
    )
    check.add_argument(
        "--fixable",
        action="append",
        metavar="RULES",
        help="only these rules' fixes may be applied (default: ALL; ids, names, prefixes)",
    )
    check.add_argument(
        "--extend-fixable", action="append", metavar="RULES",
        help="add to the fixable rules",
    )
    check.add_argument(
        "--unfixable", action="append", metavar="RULES",
        help="never apply these rules' fixes (they are reported without a fix)",
    )
    check.add_argument(
        "--add-noqa",
        action="store_true",
        help="add a // ptxlint: ignore[ID] for every current finding (adopting ptxlint on "
        "an existing code base), then exit",
    )
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also apply fixes that may change meaning",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff instead of writing them",
    )
    verify_cli.add_arguments(check)
    if only_check:
        return parser

    stats = sub.add_parser(
        "stats",
        help="count asm statements and typed operands",
        epilog=cli_help.STATS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_lint_arguments(stats)
    stats.add_argument(
        "--list-skipped",
        action="store_true",
        help="list statements that were found but not linted, with the reason",
    )

    sub.add_parser(
        "rules",
        help="list all rules",
        epilog=cli_help.RULES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rule = sub.add_parser(
        "rule",
        help="show one rule's documentation (or --all)",
        epilog=cli_help.RULE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rule.add_argument("rule", metavar="ID|NAME", nargs="?", help="a rule id or name")
    rule.add_argument("--all", action="store_true", help="every rule's documentation")
    rule.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (Markdown, default) or json (a list of rule objects)",
    )
    config = sub.add_parser(
        "config",
        help="document the configuration settings (or one of them)",
        epilog=cli_help.CONFIG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    config.add_argument("setting", metavar="SETTING", nargs="?",
                        help="a key, e.g. per-file-ignores")
    config.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json (a list of setting objects)",
    )
    verify_cli.add_doctor(sub)
    sub.add_parser("clean", help="remove the caches ptxlint keeps (results, Tier 2, verify)")
    new = sub.add_parser(
        "new",
        help="print a correct inline-asm wrapper for one PTX instruction form",
        epilog=cli_help.NEW,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    new.add_argument("opcode", metavar="OPCODE",
                     help="the full opcode with its modifiers, e.g. cp.async.ca.shared.global")
    new.add_argument("--dialect", choices=("cuda", "triton"), default="cuda",
                     help="cuda (a __device__ function, default) or triton "
                          "(an inline_asm_elementwise call)")
    new.add_argument("--name", help="the function's name (default: from the opcode)")
    new.add_argument("--kernel", action="store_true",
                     help="also a __global__ kernel calling the wrapper (cuda only)")
    from ptxlint.lsp import build_parser as build_lsp_parser

    build_lsp_parser(
        sub.add_parser("lsp", help="run the language server on stdio (editor integration)")
    )
    return parser


def _add_lint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        default=["."],
        metavar="PATH",
        help="files and folders to lint (default: .); '-' reads standard input",
    )
    p.add_argument("--verbose", "-v", action="store_true",
                   help="on an internal error, print its traceback")
    p.add_argument(
        "--select",
        action="append",
        metavar="RULES",
        help="only these rules: ids, names or id prefixes, comma-separated",
    )
    p.add_argument(
        "--extend-select",
        action="append",
        metavar="RULES",
        help="add rules to those selected (by the configuration or --select)",
    )
    p.add_argument(
        "--ignore",
        action="append",
        metavar="RULES",
        help="leave these rules out: ids, names or id prefixes, comma-separated",
    )
    p.add_argument(
        "--per-file-ignores",
        action="append",
        metavar="GLOB:RULES",
        help="leave RULES out in the files matching GLOB (repeatable; adds to the configured "
        "per-file-ignores), e.g. 'tests/**:PTX101,PTX2'",
    )
    p.add_argument(
        "--preview",
        action="store_true",
        default=None,
        help="also run the preview rules (new rules whose precision is still being reviewed; "
        "config: preview = true)",
    )
    p.add_argument(
        "--no-preview",
        action="store_false",
        dest="preview",
        help="run no preview rules, whatever the configuration says",
    )
    p.add_argument("--arch", metavar="sm_XX", help="target architecture, e.g. sm_90a")
    p.add_argument("--cuda-version", metavar="X.Y",
                   help="the CUDA toolkit the instruction verdicts are for (default 13.0, or "
                   "the one --verify finds)")
    p.add_argument("--min-cuda-version", metavar="X.Y",
                   help="the oldest CUDA toolkit the project supports (PTX403)")
    p.add_argument(
        "--config",
        action="append",
        metavar="FILE|KEY=VALUE",
        help="a configuration file for every linted file (default: the nearest .ptxlint.toml, "
        "ptxlint.toml or pyproject.toml above each file), or one setting as a TOML "
        "assignment, e.g. --config 'fail-on=\"error\"' (repeatable)",
    )
    p.add_argument(
        "--isolated", action="store_true", help="ignore every configuration file"
    )
    p.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply exclude to files named on the command line too (for pre-commit)",
    )
    p.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with the path '-': the name of the file read from standard input (for the "
        "configuration that applies and the reported path)",
    )
    p.add_argument(
        "--show-settings",
        action="store_true",
        help="print the settings that apply to the (single) path given, and exit",
    )
    p.add_argument(
        "--show-files",
        action="store_true",
        help="print the files that would be linted, with their configuration file, and exit",
    )
    p.add_argument("--extensions", metavar="EXTS", help="comma-separated, e.g. .cu,.cuh")
    p.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="skip paths matching this gitignore-style pattern while walking folders "
        "(repeatable; replaces the configured exclude)",
    )
    p.add_argument("--no-gitignore", action="store_true", help="do not honour .gitignore")
    p.add_argument(
        "--compile-commands",
        metavar="PATH",
        help="compile_commands.json (or its folder) for exact operand types via "
        "libclang (default: found in build/ or the project root)",
    )
    p.add_argument("--clang-args", metavar="ARGS", help='extra flags for libclang, e.g. "-DX=1"')
    p.add_argument(
        "--no-compile-commands",
        action="store_true",
        help="do not look for a compile database (Tier-1 types only)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The exit code: 0 clean, 1 findings, 2 anything else (never 1 for a crash)."""
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:
        print(f"ptxlint {__version__}")  # the common probe; argparse would say the same
        return EXIT_OK
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        implicit = _implicit_check(given, COMMANDS)
    except UsageError as exc:
        build_parser().print_usage(sys.stderr)
        print(f"ptxlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    parser = build_parser(only_check=_command_of(implicit) == "check")
    args = parser.parse_args(implicit)
    if argv is None:
        from ptxlint import start_path

        start_path.isolate()  # child interpreters never import from the working folder
    try:
        code = _dispatch(parser, args, argv)
    except _user_errors() as exc:  # evaluated only when something was raised
        print(f"ptxlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`ptxlint check | head`): stay quiet, also at interpreter exit
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


def _command_of(argv: list[str]) -> str | None:
    """The command word of ``argv`` (after the global flags), or None (none, or --help first)."""
    start = 0
    while start < len(argv) and argv[start] in _GLOBAL_FLAGS:
        start += 1
    return argv[start] if start < len(argv) and argv[start] in COMMANDS else None


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
        if args.command is None:
            args = parser.parse_args(["check", *(argv or sys.argv[1:])])
        return cmd_check(args, whole_process=argv is None)
    if args.command == "stats":
        return cmd_stats(args)
    if args.command == "rules":
        return cmd_rules()
    if args.command == "rule":
        return cmd_rule(args.rule, show_all=args.all, output_format=args.output_format)
    if args.command == "config":
        return cmd_config(args.setting, output_format=args.output_format)
    if args.command == "doctor":
        return verify_cli.cmd_doctor(args)
    if args.command == "clean":
        return cmd_clean()
    if args.command == "new":
        return cmd_new(args.opcode, args.dialect, args.name, args.kernel)
    if args.command == "lsp":
        from ptxlint.lsp import run_from_args

        return run_from_args(args, whole_process=argv is None)
    parser.print_help()
    return EXIT_ERROR


# --------------------------------------------------------------------------- shared set-up


def _configure(
    args: argparse.Namespace,
) -> tuple[Config, RuleSelector, list[type[Rule]], RuleContext]:
    settings = _settings(args)
    return settings.config, settings.selector, args.rule_classes, settings.context


def _settings(args: argparse.Namespace) -> FileSettings:
    """The run's settings (those of the paths' common folder); ``args.resolver`` then gives
    each file's own, ``args.rule_classes`` the loaded rules."""
    from ptxlint import stdin_input
    from ptxlint.config import parse_per_file_ignore_arg
    from ptxlint.config_discovery import ConfigResolver, split_config_args
    from ptxlint.registry import describe_entry_points, load_rules, preview_ids

    extensions = None
    if args.extensions:
        extensions = tuple(
            e if e.startswith(".") else f".{e}" for e in _comma_list([args.extensions])
        )
    loaded = load_rules()
    for problem in loaded.problems:
        print(f"ptxlint: warning: {problem}", file=sys.stderr)
    if not loaded.rules:
        # A linter with no rules passes everything: a silent green CI. Never let that look like
        # success.
        raise UsageError(
            f"no rules loaded (looked at entry points: {describe_entry_points()}); "
            "reinstall ptxlint"
        )
    rule_classes = list(loaded.rules)
    explicit, key_values = split_config_args(args.config)
    resolver = ConfigResolver(
        rules=tuple((r.id, r.name) for r in rule_classes),
        cli=dict(
            select=_comma_list(args.select) or None,
            extend_select=_comma_list(args.extend_select),
            ignore=_comma_list(args.ignore),
            arch=args.arch,
            cuda_version=getattr(args, "cuda_version", None),
            min_cuda_version=getattr(args, "min_cuda_version", None),
            extensions=extensions,
            exclude=tuple(args.exclude or ()),
            respect_gitignore=False if args.no_gitignore else None,
            fail_on=getattr(args, "fail_on", None),
            fixable=_comma_list(getattr(args, "fixable", None)) or None,
            unfixable=_comma_list(getattr(args, "unfixable", None)),
            extend_fixable=_comma_list(getattr(args, "extend_fixable", None)),
            preview=args.preview,
            extend_per_file_ignores=tuple(
                parse_per_file_ignore_arg(value) for value in args.per_file_ignores or ()
            ),
        ),
        key_values=key_values,
        explicit=explicit,
        isolated=args.isolated,
        force_exclude_flag=bool(args.force_exclude),
        preview_rules=preview_ids(rule_classes),
        fallback_cuda_version=_verify_cuda_version(args),
    )
    stdin_name = args.stdin_filename if stdin_input.STDIN in args.paths else None
    settings = resolver.for_paths([stdin_name] if stdin_name else args.paths)
    unknown = settings.selector.unknown_selectors()
    if unknown:
        named = []
        for selector in unknown:
            guess = settings.selector.suggestion(selector)
            named.append(f"{selector} (did you mean {guess!r}?)" if guess else selector)
        raise UsageError(
            f"unknown rule selector(s): {', '.join(named)} (see `ptxlint rules` for the list)"
        )
    for selector in settings.selector.preview_selections():
        # ruff's wording: the selection stands, and says why it does nothing
        print(
            f"ptxlint: warning: selection {selector!r} has no effect because preview is not "
            "enabled (add --preview, or preview = true in the configuration)",
            file=sys.stderr,
        )
    args.resolver, args.rule_classes = resolver, rule_classes
    return settings


def _tier2(args: argparse.Namespace, config: Config) -> Tier2Settings:
    from ptxlint.run.runner import Tier2Settings

    if args.no_compile_commands:
        return Tier2Settings()
    from ptxlint.tier2 import locate as compile_db  # the finder: no reader, classes or shlex

    # -p BUILD_DIR (clang-tidy's spelling) names the build folder for everything that reads
    # compile flags: libclang's types here, --verify's compiles (verify/cli.py)
    build_dir = getattr(args, "build_dir", None)
    try:
        found = compile_db.locate(args.compile_commands or build_dir, config.root)
        if args.compile_commands and build_dir:
            other = compile_db.locate(build_dir)
            if other is not None and found is not None and other.resolve() != found.resolve():
                raise UsageError(f"-p {build_dir} and --compile-commands "
                                 f"{args.compile_commands} name different compile databases")
    except compile_db.CompileDbError as exc:
        raise UsageError(f"-p/--compile-commands: {exc}") from exc
    clang_args: tuple[str, ...] = ()
    if args.clang_args:
        from ptxlint.tier2 import flags  # with its tables: only when asked for

        clang_args = flags.parse_extra(args.clang_args)
    return Tier2Settings(str(found) if found else None, clang_args)


# --------------------------------------------------------------------------- commands


# Reports that read the statement a finding is in (fingerprints hash its text); the others,
# and runs without --verify or --add-noqa, let the runner drop statements as files finish.
_FORMATS_READING_STATEMENTS = ("sarif", "gitlab")
# Formats read by people: read errors and skip notes go to stderr beside them.
_HUMAN_FORMATS = ("text", "concise", "grouped", "full", "pylint")


def cmd_check(args: argparse.Namespace, whole_process: bool = False) -> int:
    """``whole_process``: the process ends with this command (``main`` called as the program)."""
    from ptxlint import collector

    # The command's modules and the rules import most of ptxlint: objects that live as long as
    # the process. The collections they set off found a few hundred objects to free. With the
    # pause beginning only after this command's imports, and its objects set aside after it
    # ended, a small file's check spent 4.0 ms of CPU in 31 collections; 1.8 ms in 18 now.
    with collector.paused():
        from ptxlint import stdin_input
        from ptxlint.report import emit, text_format
        from ptxlint.report.names import printable_name
        from ptxlint.run.runner import default_jobs

        verify_cli.resolve_native_arch(args)  # --arch native -> sm_XY before the config reads it
        config, selector, rule_classes, context = _configure(args)
        if whole_process:  # before the pause ends: else its first collection walks them all
            collector.keep_for_good()
            collector.settle_after_each_file()
    shown = _show(args)
    if shown is not None:
        return shown
    _apply_force_exclude(args)
    progress = None
    if not args.no_progress and not args.quiet:
        from ptxlint.run.progress import Progress

        progress = Progress(sys.stderr, terminal=sys.stderr.isatty())
    fix_mode = "diff" if args.diff else "fix" if args.fix or args.fix_only else None
    if args.add_noqa and fix_mode:
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    stdin_fixed: str | None = None
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
            tier2=_tier2(args, config),
            resolver=args.resolver,
            use_cache=not args.no_cache and not os.environ.get("PTXLINT_NO_CACHE"),
            keep_statements=bool(getattr(args, "verify", False) or args.add_noqa)
            or args.format in _FORMATS_READING_STATEMENTS,
            count_types=args.format == "json",  # the one report of check that shows them
        )
    if args.add_noqa:
        return _add_noqa(args, result)
    if fix_mode != "diff":
        verify_cli.run_verification(args, result, config)
    if fix_mode == "diff":
        report = "".join(result.diffs)
        if not args.quiet:
            n = result.fixed
            print(f"Would fix {n} finding{'s' if n != 1 else ''}.", file=sys.stderr)
    elif args.fix_only:
        report = ""  # the findings left are not the point of --fix-only
    elif args.format == "json":
        from ptxlint.report import json_format

        report = json_format.render(result)
    elif args.format == "sarif":
        from ptxlint.report import sarif_format  # sarif-om and attrs: only for SARIF

        ran = [r for r in rule_classes if selector.enabled(r.id, r.name)]
        report = sarif_format.render(result, ran, category=args.sarif_category)
    elif args.format == "github":
        from ptxlint.report import github_format

        report = github_format.render(result)
    elif args.format in _extra_formats():
        from ptxlint.report import formats

        report = formats.render(args.format, result, quiet=args.quiet,
                                show_info=args.show_info or config.fail_on == "info")
    else:
        color = (
            args.output is None
            and sys.stdout.isatty()
            and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb"
        )
        report = verify_cli.render_text(
            result,
            style=text_format.Style(color=color),
            quiet=args.quiet,
            statistics=args.statistics,
            show_info=args.show_info or config.fail_on == "info",
        )
    kind = "diff" if fix_mode == "diff" else args.format
    if args.output:
        try:
            emit.to_file(report, kind, args.output)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    elif stdin_fixed is not None and fix_mode == "fix":
        # a filter: the fixed text on stdout, the report on stderr
        sys.stdout.write(stdin_fixed)
        sys.stderr.write(report)
    else:
        emit.to_stdout(report, kind)
    if args.format in _HUMAN_FORMATS or args.output:
        for path, reason in result.errors:
            print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
        if not args.quiet:
            for path, reason in result.notes:
                print(f"ptxlint: note: {printable_name(path)}: skipped: {reason}", file=sys.stderr)
            for path, message in result.file_notes:
                where = f"{printable_name(path)}: " if path else ""
                print(f"ptxlint: note: {where}{message}", file=sys.stderr)
            if getattr(args, "verbose", False) or getattr(args, "verbose_global", False):
                for path, line, message in result.verify_probe_failures:
                    print(f"ptxlint: note: {printable_name(path)}:{line}: {message}",
                          file=sys.stderr)
    if fix_mode == "fix" and not args.quiet and (result.fixed or args.fix_only):
        print(f"Fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}.", file=sys.stderr)
    if args.show_fixes and fix_mode:
        sys.stderr.write(text_format.fixes_listing(result, would=fix_mode == "diff"))
    if fix_mode == "diff":
        return EXIT_ERROR if result.errors else (EXIT_FINDINGS if result.diffs else EXIT_OK)
    if args.fix_only:
        code = EXIT_ERROR if result.errors or result.internal_errors else EXIT_OK
    else:
        code = exit_code(result, config.fail_on)
    if code == EXIT_OK and args.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    return code


def _show(args: argparse.Namespace) -> int | None:
    """--show-settings / --show-files, when given: print and return the exit code."""
    if not (args.show_settings or args.show_files):
        return None
    from ptxlint import show, stdin_input

    if args.show_settings:
        if len(args.paths) != 1:
            raise UsageError("--show-settings takes exactly one path")
        path = args.stdin_filename if args.paths == [stdin_input.STDIN] else args.paths[0]
        if not path:
            raise UsageError("--show-settings with '-' needs --stdin-filename")
        sys.stdout.write(show.settings_text(path, args.resolver.for_path(path), args.rule_classes))
        return EXIT_OK
    if args.show_files:
        root = args.resolver.for_paths(args.paths)
        sys.stdout.write(show.files_text(args.paths, args.resolver, root))
        return EXIT_OK
    return None


def _apply_force_exclude(args: argparse.Namespace) -> None:
    """With force-exclude, files named on the command line go through exclude too."""
    from ptxlint import stdin_input
    from ptxlint.config_discovery import ConfigResolver

    resolver: ConfigResolver = args.resolver
    kept = []
    for path in args.paths:
        if path != stdin_input.STDIN and os.path.isfile(path):
            settings = resolver.for_path(path)
            if settings.force_exclude and resolver.excluded(path, settings):
                continue
        kept.append(path)
    args.paths = kept


def _check_stdin(args: argparse.Namespace, fix_mode: str | None) -> tuple[RunResult, str]:
    from ptxlint import stdin_input
    from ptxlint.report.run_result import RunResult

    if args.paths != [stdin_input.STDIN]:
        raise UsageError("'-' (standard input) cannot be combined with other paths")
    name = args.stdin_filename or stdin_input.DEFAULT_NAME
    settings = args.resolver.for_path(name)
    try:
        text, decode_errors = stdin_input.read_stdin(max_size=settings.config.max_file_size)
    except stdin_input.TooLarge as exc:  # refused as a file over the limit: one line, exit 2
        return RunResult(errors=[(args.stdin_filename or "standard input", str(exc))]), ""
    except stdin_input.Binary as exc:  # skipped with a note, as a binary file is
        return RunResult(notes=[(args.stdin_filename or "standard input", str(exc))]), ""
    if settings.force_exclude and args.resolver.excluded(name, settings):
        return RunResult(), text  # excluded: nothing to report, the text passes through
    return stdin_input.lint_stdin(
        text, decode_errors, name, settings.selector, args.rule_classes, settings.context,
        fix_mode, args.unsafe_fixes,
    )


def _add_noqa(args: argparse.Namespace, result: RunResult) -> int:
    from ptxlint import add_noqa, stdin_input
    from ptxlint.report.names import printable_name

    if stdin_input.STDIN in args.paths:
        raise UsageError("--add-noqa writes files: it cannot read standard input")
    added, changed, errors = add_noqa.apply(result)
    for path, reason in [*result.errors, *errors]:
        print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
    print(
        f"Added {added} suppression{'s' if added != 1 else ''} "
        f"in {changed} file{'s' if changed != 1 else ''}.",
        file=sys.stderr,
    )
    return EXIT_ERROR if result.errors or errors else EXIT_OK


def exit_code(result: RunResult, fail_on: str) -> int:
    from ptxlint.model import Severity

    if result.errors or result.internal_errors:
        return EXIT_ERROR
    if fail_on == "never":
        return EXIT_OK
    threshold = Severity(fail_on).rank
    if any(f.severity.rank >= threshold for f in result.findings):
        return EXIT_FINDINGS
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    from ptxlint.frontends.python import PYTHON_EXTENSIONS
    from ptxlint.report.names import printable_name
    from ptxlint.run.runner import default_jobs

    config, selector, rule_classes, context = _configure(args)
    shown = _show(args)
    if shown is not None:
        return shown
    _apply_force_exclude(args)
    result = run(
        args.paths, config, selector, [], context, jobs=default_jobs(), tier2=_tier2(args, config),
        resolver=args.resolver,
    )
    typed = result.typed_operands
    share = f" ({100 * typed / result.operands:.1f}%)" if result.operands else ""
    found = result.statements + result.skipped_statements
    print(f"files read:                 {result.files}")
    print(f"files with asm:             {result.files_with_asm}")
    print(f"asm statements found:       {found}")
    opaque = result.opaque_macros
    print(f"  linted as PTX:            {result.statements}")
    print(f"    from macro invocations: {result.expansion_statements}")
    print(f"    extra #if branches:     {result.branch_variants}")
    print(f"  not linted (host/unsure): {result.skipped_statements}")
    print(f"asm macros never expanded:  {len(opaque)} (their templates stay opaque)")
    print(f"asm macro invocations not expanded: {len(result.skipped_invocations)}")
    print(f"asm labels (not statements): {result.asm_labels}")
    print(f"operands:                   {result.operands}")
    print(f"  with a known type:        {typed}{share}")
    print(f"    from this file (tier 1): {typed - result.typed_tier2}")
    print(f"    from libclang (tier 2):  {result.typed_tier2}")
    if result.python_calls:
        linted = result.python_calls - sum(
            1 for path, _, _ in result.skipped if path.endswith(PYTHON_EXTENSIONS)
        )
        print(f"Python calls found:         {result.python_calls}")
        print(f"  templates resolved:       {linted - result.python_opaque}")
        print(f"  with opaque pieces:       {result.python_opaque}")
        print(f"  not linted (not PTX):     {result.python_calls - linted}")
    _print_undescribed()
    if args.list_skipped:
        for path, line, reason in result.skipped:
            print(f"{printable_name(path)}:{line}: not linted: {reason}")
        for path, line, reason in result.skipped_invocations:
            print(f"{printable_name(path)}:{line}: not expanded: {reason}")
        for path, line, macro in opaque:
            print(f"{printable_name(path)}:{line}: opaque: macro {macro} is never expanded in "
                  "these files")
    for path, reason in result.errors:
        print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
    return EXIT_ERROR if result.errors or result.internal_errors else EXIT_OK


def _verify_cuda_version(args: argparse.Namespace) -> str | None:
    """With --verify, the toolkit of the ptxas it will run: the cuda-version the verdicts are
    for unless the configuration names one."""
    if not getattr(args, "verify", False):
        return None
    from ptxlint.verify.toolchain import discover

    found = discover(getattr(args, "nvcc", None), getattr(args, "ptxas", None),
                     tuple(getattr(args, "paths", None) or ()))
    version = found.ptxas.version if found.ptxas and found.ptxas.version else found.version
    return version or None


def _print_undescribed() -> None:
    """The instruction families the grammar abstains on (PTX204/206/207 stay silent there)."""
    from ptxlint.ptx.grammar import undescribed

    missing, partial = undescribed()
    print(f"PTX families without a form grammar (not judged): {len(missing)}")
    if missing:
        print("  " + " ".join(missing))
    print(f"PTX families with parts not described (not judged): {len(partial)}")
    for opcode, words in partial.items():
        print(f"  {opcode}: " + " ".join(f".{w}" if "+" not in w else w for w in words))


def cmd_rules() -> int:
    from ptxlint.registry import describe_entry_points, load_rules

    loaded = load_rules()
    if not loaded.rules:
        raise UsageError(f"no rules loaded (looked at entry points: {describe_entry_points()})")
    # a preview rule says so where its severity is, so a listing read by eye shows the tier
    rows = [
        (r.id, r.name, r.severity.value + (" (preview)" if r.preview else ""), r.summary)
        for r in loaded.rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)] if rows else [0, 0, 0]
    for row in rows:
        print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")
    return EXIT_OK


def cmd_rule(key: str | None, show_all: bool = False, output_format: str = "text") -> int:
    from ptxlint.registry import find_rule, load_rules

    loaded = load_rules()
    if show_all == (key is not None):
        raise UsageError("give one rule id or name, or --all")
    if show_all:
        chosen = list(loaded.rules)
    else:
        rule = find_rule(loaded.rules, key or "")
        if rule is None:
            raise UsageError(f"no rule {key!r} (see `ptxlint rules`)")
        chosen = [rule]
    if output_format == "json":
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_json(chosen))
    else:
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_text(chosen))
    return EXIT_OK


def cmd_config(key: str | None, output_format: str = "text") -> int:
    from ptxlint import config_docs
    from ptxlint.config import SETTINGS

    try:
        chosen = [config_docs.find(key)] if key is not None else list(SETTINGS)
    except config_docs.UnknownSetting as exc:
        raise UsageError(str(exc)) from exc
    if output_format == "json":
        sys.stdout.write(config_docs.render_json(chosen))
    elif key is None:
        sys.stdout.write(config_docs.listing())
    else:
        sys.stdout.write(config_docs.text(chosen[0]))
    return EXIT_OK


def cmd_new(opcode: str, dialect: str, name: str | None, kernel: bool) -> int:
    """``ptxlint new``: the wrapper on stdout; what the grammar cannot write is a usage error."""
    if kernel and dialect != "cuda":
        raise UsageError("--kernel writes a CUDA __global__ kernel: it goes with --dialect cuda")
    if name is not None and not name.isidentifier():
        raise UsageError(f"--name {name!r} is not an identifier")
    from ptxlint.generate import generate

    try:
        text = generate(opcode, dialect, name, kernel)
    except ValueError as error:  # SelectionError, NotExpressible
        raise UsageError(f"ptxlint new {opcode}: {error}") from None
    sys.stdout.write(text)
    return EXIT_OK


def cmd_clean() -> int:
    from ptxlint.run import cache

    where, freed = cache.clean()
    print(f"Removed the caches in {where} ({freed / 1e6:.1f} MB).")
    return EXIT_OK


def _extra_formats() -> tuple[str, ...]:
    from ptxlint.report import formats

    return tuple(formats.EXTRA_FORMATS)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
