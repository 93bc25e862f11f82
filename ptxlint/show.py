"""``ptxlint check --show-settings FILE`` and ``--show-files``: what applies, without linting."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ptxlint.config_discovery import ConfigResolver, FileSettings
from ptxlint.report.names import printable_name
from ptxlint.rule import Rule
from ptxlint.run.discover import DEFAULT_EXTENSIONS, discover


def _toml_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def settings_text(path: str, settings: FileSettings, rules: Sequence[type[Rule]],
                  build: tuple[tuple[str, ...], str] = ((), "")) -> str:
    """``build``: the file's targets from the compile database, and the database's path (the
    targets apply where the configuration names no arch)."""
    config = settings.config
    arch_line = _arch_line(config.arch)
    if not config.arch and build[0]:
        arch_line = f"{_arch_line(build[0])}  # from {printable_name(build[1])}"
    if settings.sources:
        where = printable_name(settings.sources[0]) + "".join(
            f"\n#   extends {printable_name(s)}" for s in settings.sources[1:])
    else:
        where = "none (defaults and command-line options)"
    enabled = [r for r in rules if settings.selector.enabled(r.id, r.name, path)]
    lines = [
        f"# settings for {printable_name(path)}",
        f"# configuration: {where}",
        f"select = {_toml_list(config.select)}" + ("  # empty: every rule" if not config.select
                                                   else ""),
        f"extend-select = {_toml_list(config.extend_select)}",
        f"ignore = {_toml_list(config.ignore)}",
        arch_line,
        f"extensions = {_toml_list(config.extensions) if config.extensions else '(default)'}",
        f"exclude = {_toml_list(config.exclude)}",
        f"force-exclude = {'true' if settings.force_exclude else 'false'}",
        f"respect-gitignore = {'true' if config.respect_gitignore else 'false'}",
        f"max-file-size = {config.max_file_size}",
        f'fail-on = "{config.fail_on}"',
        f"preview = {'true' if config.preview else 'false'}",
        "[per-file-ignores]",
        *(f'"{glob}" = {_toml_list(sel)}' for glob, sel in config.per_file_ignores),
        "[severity]",
        *(f'{sel} = "{level}"' for sel, level in config.severity),
        f"# per-file-ignores that apply to this file: "
        f"{', '.join(settings.selector.ignores_for_path(path)) or 'none'}",
        f"# excluded by this configuration: "
        f"{'yes' if _excluded(path, settings) else 'no'}",
        f"# rules enabled for this file ({len(enabled)}):",
        *(
            f"#   {r.id} {r.name} "
            f"({settings.selector.severity_for(r.id, r.name, r.severity.value)})"
            for r in enabled
        ),
    ]
    return "\n".join(lines) + "\n"


def _excluded(path: str, settings: FileSettings) -> bool:
    from ptxlint.config_discovery import is_excluded

    return is_excluded(path, settings.config.exclude, settings.config.root)


def files_text(paths: Sequence[str], resolver: ConfigResolver, root: FileSettings) -> str:
    """The files a run would lint, each with the configuration that applies to it."""
    config = root.config
    found = discover(
        paths,
        extensions=config.extensions or DEFAULT_EXTENSIONS,
        exclude=config.exclude,
        respect_gitignore=config.respect_gitignore,
        max_file_size=config.max_file_size,
    )
    named = {os.path.abspath(p) for p in paths}
    lines = []
    for item in found.files:
        if os.path.abspath(item.path) not in named and resolver.excluded(item.path):
            continue
        sources = resolver.for_path(item.path).sources
        source = printable_name(sources[0]) if sources else "no configuration"
        lines.append(f"{printable_name(item.path)}  ({source})")
    return "\n".join(lines) + ("\n" if lines else "")


def _arch_line(targets: tuple[str, ...]) -> str:
    if not targets:
        return "arch = (none: every target)"
    # one target as the string it is usually written as; several as the array
    return f"arch = {targets[0]!r}" if len(targets) == 1 else f"arch = {_toml_list(targets)}"
