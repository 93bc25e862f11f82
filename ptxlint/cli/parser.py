"""The command line's parser: every command, its arguments and their help.

Building it loads argparse and these definitions only; what a command runs is imported by the
command (``ptxlint.cli``'s dispatch), so ``--help`` and ``--version`` never load the engine.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from ptxlint import __version__
from ptxlint.cli import help_text
from ptxlint.verify import cli as verify_cli

# check's and stats' paths when none is given (``parse`` tells it apart by identity)
DEFAULT_PATHS = ["."]

# Every command build_parser adds, in its order (tests/test_help.py holds the two together).
COMMANDS = ("check", "stats", "rules", "rule", "config", "doctor", "clean", "new", "lsp")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, given the width argparse would work out: the terminal's columns as
    ``shutil.get_terminal_size`` reads them (``COLUMNS``, else the terminal, else 80), less 2.
    Left to itself, argparse imports shutil (and with it zlib, bz2 and lzma) to ask, at a
    parser's first argument: 1.6 ms of CPU at every start, where only help and usage errors
    print anything."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
        except (ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose "unrecognized arguments" error names the closest option of any
    command (``--unsafe-fix``: did you mean '--unsafe-fixes'?), as ruff and clang-tidy do."""

    def error(self, message: str) -> NoReturn:
        head = "unrecognized arguments:"
        if message.startswith(head):
            words = message[len(head):].split()
            named = [
                f"{word} (did you mean {close!r}?)"
                if word.startswith("--") and (close := _closest_option(self, word)) else word
                for word in words
            ]
            message = f"{head} {' '.join(named)}"
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n"
                     f"For more information, try '{self.prog} --help'.\n")


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args``, where paths may also follow options (``ptxlint check a.cu --fix
    b.cu``, as ruff takes them): argparse takes only the first run of positional words for an
    ``nargs="*"`` argument and calls the rest unrecognized."""
    args, extra = parser.parse_known_args(argv)
    paths = getattr(args, "paths", None)
    if extra and paths is not None and not any(w.startswith("-") and w != "-" for w in extra):
        args.paths = [*([] if paths is DEFAULT_PATHS else paths), *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _jobs(text: str) -> int:
    """``--jobs``: 0 or more (0: all cores); ``-j -3`` was taken as 1, in silence."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of worker processes, 0 (all cores) or more, got {text!r}")
    return value


def _closest_option(parser: argparse.ArgumentParser, word: str) -> str | None:
    import difflib  # only on this error

    options = {o for a in parser._actions for o in a.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                options.update(o for a in sub._actions for o in a.option_strings)
    name = word.split("=", 1)[0]
    close = difflib.get_close_matches(name.replace("_", "-"), sorted(options), n=1, cutoff=0.7)
    # the same option, of another command (`ptxlint rules --fix`), is no typo to correct
    return close[0] if close and close[0] != name else None


def build_parser(only_check: bool = False) -> argparse.ArgumentParser:
    """The command line's parser; with ``only_check``, without the other commands' parsers (for
    a run that is known to be ``check``: 0.6 ms of CPU to build instead of 1.5)."""
    parser = _Parser(
        prog="ptxlint",
        description="Static analyzer for inline PTX assembly in CUDA sources.",
        epilog=help_text.MAIN,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"ptxlint {__version__}",
                        help="print the version and exit")
    parser.add_argument("--verbose", "-v", action="store_true", dest="verbose_global",
                        help="on an internal error, print its traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        # argparse's usage lists all ~50 options: 22 lines above a usage error's one line
        usage="%(prog)s [OPTIONS] [PATH ...]",
        help="lint files and folders (default: .)",
        description="Lint the asm statements of CUDA/C++ (and Python) sources.",
        epilog=help_text.CHECK,
        formatter_class=_Formatter,
    )
    _add_lint_arguments(check)
    check.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=("text", "json", "sarif", "github", *extra_formats()),
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
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print the count of findings per rule in place of the findings (with text, "
        "concise, grouped, full or pylint)",
    )
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
        type=_jobs,
        metavar="N",
        help="worker processes for large trees (default, or 0: all cores)",
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
        usage="%(prog)s [OPTIONS] [PATH ...]",
        help="count asm statements and typed operands",
        epilog=help_text.STATS,
        formatter_class=_Formatter,
    )
    _add_lint_arguments(stats)
    stats.add_argument(
        "--list-skipped",
        action="store_true",
        help="list statements that were found but not linted, with the reason",
    )

    rules = sub.add_parser(
        "rules",
        help="list all rules",
        epilog=help_text.RULES,
        formatter_class=_Formatter,
    )
    rules.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (one line per rule, default) or json (every rule's documentation, as "
        "`ptxlint rule --all --output-format json`)",
    )
    rule = sub.add_parser(
        "rule",
        help="show one rule's documentation (or --all)",
        epilog=help_text.RULE,
        formatter_class=_Formatter,
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
        epilog=help_text.CONFIG,
        formatter_class=_Formatter,
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
        epilog=help_text.NEW,
        formatter_class=_Formatter,
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
        default=DEFAULT_PATHS,
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
    p.add_argument("--arch", metavar="sm_XX",
                   help="target architecture, e.g. sm_90a; comma-separated for a build that "
                   "compiles for several (sm_80,sm_90a)")
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


def extra_formats() -> tuple[str, ...]:
    """The report formats of ``ptxlint.report.formats`` (beyond text, json, sarif, github)."""
    from ptxlint.report import formats

    return tuple(formats.EXTRA_FORMATS)
