"""The run's settings, worked out from the arguments: the rules loaded, the configuration that
applies (the paths' common folder's, and each file's through ``args.resolver``), the compile
database for Tier 2; and what the arguments ask of those settings before any lint:
``--show-settings``/``--show-files``, force-exclude."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxlint.cli.exits import EXIT_OK, UsageError

if TYPE_CHECKING:
    from ptxlint.config import Config, RuleSelector
    from ptxlint.config_discovery import FileSettings
    from ptxlint.rule import Rule, RuleContext
    from ptxlint.run.runner import Tier2Settings


def comma_list(values: Sequence[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for value in values or ():
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return tuple(out)


# the options that take rule selectors, and their argparse names
_SELECTOR_OPTIONS = (
    ("--select", "select"), ("--extend-select", "extend_select"), ("--ignore", "ignore"),
    ("--fixable", "fixable"), ("--extend-fixable", "extend_fixable"),
    ("--unfixable", "unfixable"),
)


def configure(
    args: argparse.Namespace,
) -> tuple[Config, RuleSelector, list[type[Rule]], RuleContext]:
    found = settings(args)
    return found.config, found.selector, args.rule_classes, found.context


def settings(args: argparse.Namespace) -> FileSettings:
    """The run's settings (those of the paths' common folder); ``args.resolver`` then gives
    each file's own, ``args.rule_classes`` the loaded rules."""
    from ptxlint import stdin_input
    from ptxlint.config import (
        PYPROJECT,
        _has_ptxlint_table,
        parse_per_file_ignore_arg,
        unknown_selectors_message,
    )
    from ptxlint.config_discovery import ConfigResolver, split_config_args
    from ptxlint.registry import describe_entry_points, load_rules, preview_ids

    extensions = None
    if args.extensions:
        extensions = tuple(
            e if e.startswith(".") else f".{e}" for e in comma_list([args.extensions])
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
    if explicit is not None and os.path.basename(explicit) == PYPROJECT \
            and not _has_ptxlint_table(explicit):
        # named on purpose, and nothing in it applies: the run would look configured
        print(f"ptxlint: warning: --config {explicit}: no [tool.ptxlint] table in it; the "
              "defaults apply", file=sys.stderr)
    resolver = ConfigResolver(
        rules=tuple((r.id, r.name) for r in rule_classes),
        cli=dict(
            select=comma_list(args.select) or None,
            extend_select=comma_list(args.extend_select),
            ignore=comma_list(args.ignore),
            arch=args.arch,
            cuda_version=getattr(args, "cuda_version", None),
            min_cuda_version=getattr(args, "min_cuda_version", None),
            extensions=extensions,
            exclude=tuple(args.exclude or ()),
            respect_gitignore=False if args.no_gitignore else None,
            fail_on=getattr(args, "fail_on", None),
            fixable=comma_list(getattr(args, "fixable", None)) or None,
            unfixable=comma_list(getattr(args, "unfixable", None)),
            extend_fixable=comma_list(getattr(args, "extend_fixable", None)),
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
        fallback_cuda_version=verify_cuda_version(args),
    )
    stdin_name = args.stdin_filename if stdin_input.STDIN in args.paths else None
    settings = resolver.for_paths([stdin_name] if stdin_name else args.paths)
    # the configuration files' own selectors were checked as each was loaded: what is left
    # came from an option or --config KEY=VALUE
    options: list[tuple[str, tuple[str, ...]]] = [
        *((option, comma_list(getattr(args, dest, None))) for option, dest in _SELECTOR_OPTIONS),
        ("--per-file-ignores", tuple(
            s for value in args.per_file_ignores or () for s in parse_per_file_ignore_arg(value)[1]
        )),
    ]
    given = {s for _, selectors in options for s in selectors}
    options.append(
        ("--config", tuple(s for s in settings.selector.all_selectors() if s not in given))
    )
    unknown = unknown_selectors_message(settings.selector, options)
    if unknown is not None:
        raise UsageError(unknown)
    for selector in settings.selector.preview_selections():
        # ruff's wording: the selection stands, and says why it does nothing
        print(
            f"ptxlint: warning: selection {selector!r} has no effect because preview is not "
            "enabled (add --preview, or preview = true in the configuration)",
            file=sys.stderr,
        )
    for selector in settings.selector.retired_selections():
        # reserved, so no error: a configuration written for an older ptxlint keeps working
        from ptxlint.retired import selection_warning

        print(f"ptxlint: warning: {selection_warning(selector)}", file=sys.stderr)
    from ptxlint.ptx.targets import arch_toolkit_warning

    for sm, suffix in settings.context.listed_targets:
        mismatch = arch_toolkit_warning(sm, suffix, settings.context.options)
        if mismatch is not None:
            print(f"ptxlint: warning: {mismatch}", file=sys.stderr)
    args.resolver, args.rule_classes = resolver, rule_classes
    return settings


def tier2(args: argparse.Namespace, config: Config) -> Tier2Settings:
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




def verify_cuda_version(args: argparse.Namespace) -> str | None:
    """With --verify, the toolkit of the ptxas it will run: the cuda-version the verdicts are
    for unless the configuration names one."""
    if not getattr(args, "verify", False):
        return None
    from ptxlint.verify.toolchain import discover

    found = discover(getattr(args, "nvcc", None), getattr(args, "ptxas", None),
                     tuple(getattr(args, "paths", None) or ()))
    version = found.ptxas.version if found.ptxas and found.ptxas.version else found.version
    return version or None



def show(args: argparse.Namespace) -> int | None:
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
        found = args.resolver.for_path(path)
        database = tier2(args, found.config).compile_commands
        from ptxlint.tier2 import build_targets

        targets = build_targets.targets_of(build_targets.load(database), path)
        sys.stdout.write(show.settings_text(path, found, args.rule_classes,
                                            (targets, database or "")))
        return EXIT_OK
    if args.show_files:
        root = args.resolver.for_paths(args.paths)
        sys.stdout.write(show.files_text(args.paths, args.resolver, root))
        return EXIT_OK
    return None


def apply_force_exclude(args: argparse.Namespace) -> None:
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
