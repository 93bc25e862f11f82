"""Command-line glue for ``check --verify`` and ``ptxlint doctor`` (wired in ptxlint/cli/).

Kept here so the CLI module only gains a few calls: the arguments, ``--arch native``, running
the verifier on a RunResult, the text report with verdicts, and the doctor command.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the verifier, the toolchain and the report load when used
    from ptxlint.config import Config
    from ptxlint.report import text_format
    from ptxlint.report.run_result import RunResult
    from ptxlint.verify.verifier import VerifyOptions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("verification (nvcc/ptxas)")
    group.add_argument("--verify", action="store_true",
                       help="confirm each finding with the CUDA toolchain (confirmed / refuted / "
                            "unverifiable) and report statements it rejects")
    group.add_argument("--nvcc", metavar="PATH",
                       help="nvcc to use (default: $CUDA_HOME, PATH, the nvidia-cuda-nvcc wheel)")
    group.add_argument("--ptxas", metavar="PATH", help="ptxas to use (default: beside nvcc)")
    group.add_argument("--cuda-flags", metavar="FLAGS", default=None,
                       help="extra nvcc flags for whole-file compiles, e.g. \"-I include -DX=1\"")
    group.add_argument("-p", "--build-dir", metavar="DIR", default=None,
                       help="the build folder, with compile_commands.json (as clang-tidy's -p): "
                            "per-file flags for libclang's operand types and for --verify's "
                            "compiles")
    group.add_argument("--no-tree-includes", action="store_true",
                       help="do not add -I for the include/ folders of the linted tree around "
                            "each file (the folder itself when it is called include, and any "
                            "include/ beside it, up to the linted folder)")
    group.add_argument("--verify-jobs", type=int, metavar="N", default=None,
                       help="parallel compiles (default: CPU count)")
    group.add_argument("--verify-timeout", type=_seconds, metavar="SECONDS", default=None,
                       help="a deadline for the whole verification: the findings whose compiles "
                            "have not finished by then are reported unverifiable, with a note "
                            "(the exit code is the lint's; default: no deadline)")
    group.add_argument("--no-verify-cache", action="store_true",
                       help="do not read or write the verdict cache (~/.cache/ptxlint/verify, "
                            "$PTXLINT_CACHE_DIR)")


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {value!r}")
    return seconds


def resolve_native_arch(args: argparse.Namespace) -> None:
    """``--arch native`` -> the GPU's ``sm_XY`` (ToolchainError, exit 2, where there is none).
    Call before the configuration parses ``args.arch``."""
    if getattr(args, "arch", None):
        from ptxlint.verify.toolchain import resolve_arch

        args.arch = resolve_arch(args.arch)


def options_from_args(args: argparse.Namespace, arch: str | tuple[str, ...] | None,
                      files: tuple[str, ...] = ()) -> VerifyOptions:
    from ptxlint.verify.flags import split
    from ptxlint.verify.verifier import VerifyOptions

    # one target stays ``arch``; several go to ``archs``, chosen among per statement
    archs = (arch,) if isinstance(arch, str) else tuple(arch or ())
    return VerifyOptions(
        files=files,
        arch=archs[0] if len(archs) == 1 else None,
        archs=archs if len(archs) > 1 else (),
        nvcc=args.nvcc,
        ptxas=args.ptxas,
        jobs=args.verify_jobs,
        use_cache=not args.no_verify_cache,
        cuda_flags=split(args.cuda_flags),
        # -p, else --compile-commands: the same database for the types and the compiles
        build_dir=args.build_dir or getattr(args, "compile_commands", None),
        timeout=getattr(args, "verify_timeout", None),
        linted=tuple(getattr(args, "paths", None) or ()),
        tree_includes=not getattr(args, "no_tree_includes", False),
    )


def run_verification(args: argparse.Namespace, result: RunResult, config: Config) -> None:
    """Verify ``result`` in place when ``--verify`` was given, at the configured target
    (``config.arch``, e.g. "sm_90a", the lowest of several each statement is compiled for, or
    each statement's guard). Files linted without findings
    are found again so that their statements are assembled too. Raises ToolchainError (the CLI
    prints it and exits 2) when neither nvcc nor ptxas can be found."""
    if not getattr(args, "verify", False):
        return
    from ptxlint.run.discover import DEFAULT_EXTENSIONS
    from ptxlint.run.discover import discover as discover_files
    from ptxlint.verify.progress import VerifyProgress
    from ptxlint.verify.stopping import stop_on_signals
    from ptxlint.verify.verifier import verify

    found = discover_files(
        args.paths,
        extensions=config.extensions or DEFAULT_EXTENSIONS,
        exclude=config.exclude,
        respect_gitignore=config.respect_gitignore,
        max_file_size=config.max_file_size,
    )
    files = tuple(f.path for f in found.files)
    options = options_from_args(args, config.arch, files)
    stream = sys.stderr
    progress = None
    if stream.isatty() and not getattr(args, "no_progress", False) and not getattr(
        args, "quiet", False
    ):
        progress = VerifyProgress(stream)
        options = dataclasses.replace(options, progress=progress)
    started = time.perf_counter()
    try:
        with stop_on_signals():  # Ctrl-C and SIGTERM stop the compiles and clean up
            verify(result, options)
    finally:
        if progress is not None:
            progress.close()
        result.verify_seconds = time.perf_counter() - started
        result.verify_probes = progress.probes_total if progress is not None else None


# --------------------------------------------------------------------------- text output


def render_text(result: RunResult, style: text_format.Style | None = None,
                quiet: bool = False, statistics: bool = False, show_info: bool = True) -> str:
    """The text report with a verdict line under each finding and a verification summary."""
    # the wording lives with the report formats, which all show it; imported here: every run
    # (--version and --help too) imports this module for its options, and this one the model
    from ptxlint.report import text_format, verdict_note

    style = style or text_format.Style()
    if statistics or not result.verifications:
        return text_format.render(
            result, style=style, quiet=quiet, statistics=statistics, show_info=show_info
        )
    parts: list[str] = []
    for finding in text_format.shown(result, show_info):
        parts.append(text_format.render_finding(finding, result, style))
        line = verdict_note.verdict_line(result, finding)
        if line:
            parts.append(line)
        parts.append("")
    if not quiet:
        parts.append(text_format.summary(result, show_info))
        parts.extend(verdict_note.summary_lines(result))
    return "\n".join(parts).rstrip("\n") + "\n" if parts else ""


# --------------------------------------------------------------------------- doctor


def add_doctor(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser("doctor", help="show the CUDA toolchain --verify would use",
                            epilog="exit codes:\n  0  nvcc or ptxas found; 2  neither",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    doctor.add_argument("--nvcc", metavar="PATH", help="the nvcc to describe")
    doctor.add_argument("--ptxas", metavar="PATH", help="the ptxas to describe")


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print what was found; exit 0 when verification can run, 2 when nothing was found."""
    from ptxlint.verify.toolchain import discover, doctor_report

    toolchain = discover(getattr(args, "nvcc", None), getattr(args, "ptxas", None))
    print(doctor_report(toolchain), end="")
    return 0 if (toolchain.ptxas or toolchain.nvcc) else 2
