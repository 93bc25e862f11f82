"""Configuration per file: the nearest configuration file applies to each linted file.

Decisions (ruff's hierarchical model):

* For each file, ptxlint walks up from the file's folder; the first folder holding
  ``.ptxlint.toml``, ``ptxlint.toml`` or a ``pyproject.toml`` with ``[tool.ptxlint]`` (in that
  order) gives its configuration. Nothing is merged from further up unless that file says
  ``extend = "../ptxlint.toml"`` (a path relative to the file; chains allowed, cycles are an
  error). In an extending file, keys replace the extended file's keys, except ``extend-select``
  (added to) and the ``per-file-ignores``/``severity`` tables (merged; the extending file wins
  an entry both name). Patterns and globs are anchored at the folder of the file that applies.
* ``--config FILE`` names one file for every linted file (no lookup); ``--isolated`` ignores all
  configuration files; ``--config KEY=VALUE`` (a TOML assignment, e.g. ``--config
  'fail-on = "error"'`` or ``--config arch=sm_90a``) overrides one key in whatever configuration
  applies, and the other command-line flags are applied on top of that.
* Settings that belong to the run rather than to a file (``fail-on``, discovery from the paths
  given) come from the configuration that applies to the common folder of the paths.
* ``exclude`` of a nested configuration removes the files under its folder that it matches;
  with ``force-exclude`` (flag or key) files named on the command line are excluded too, which
  is what pre-commit needs (it names every file).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ptxlint.config import (
    _MERGED_TABLES,
    CONFIG_FILENAMES,
    PYPROJECT,
    Config,
    ConfigError,
    RuleSelector,
    _has_ptxlint_table,
    _toml,
    arch_fields,
    load_chain,
    merge_cli,
    parse_table,
    selectors_by_key,
    unknown_selectors_message,
)
from ptxlint.ptx.versions import version_options
from ptxlint.rule import RuleContext
from ptxlint.run.discover import compile_patterns, match_patterns


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class FileSettings:
    """Everything that applies to one file."""

    __slots__ = ("config", "selector", "context", "sources", "force_exclude")

    def __init__(
        self, config: Config, selector: RuleSelector, context: RuleContext,
        sources: tuple[str, ...], force_exclude: bool = False,
    ) -> None:
        self.config = config
        self.selector = selector
        self.context = context
        self.sources = sources  # the configuration files, nearest first (extend chain), or ()
        self.force_exclude = force_exclude


# --------------------------------------------------------------------------- loading


def parse_key_value(text: str) -> dict[str, Any]:
    """``--config KEY=VALUE`` as a one-key table; a bare word value is taken as a string."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        raise ConfigError(f"--config {text!r}: expected a file or KEY=VALUE")
    try:
        parsed = _toml().loads(f"{key} = {value}")
    except _toml().TOMLDecodeError:
        try:  # arch=sm_90a: an unquoted word means the string
            parsed = _toml().loads(f"{key} = {_quote(value)}")
        except _toml().TOMLDecodeError as exc:
            raise ConfigError(f"--config {text!r}: not a TOML assignment: {exc}") from exc
    return parsed


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_config_args(values: Sequence[str] | None) -> tuple[str | None, dict[str, Any]]:
    """``--config`` values: at most one file, any number of KEY=VALUE overrides."""
    path: str | None = None
    overrides: dict[str, Any] = {}
    for value in values or ():
        if os.path.isfile(value) or "=" not in value:
            if path is not None:
                raise ConfigError(f"--config: two configuration files given ({path}, {value})")
            if not os.path.isfile(value):
                raise ConfigError(f"--config {value}: no such file (or use KEY=VALUE)")
            path = value
        else:
            for key, item in parse_key_value(value).items():
                if isinstance(item, Mapping) and isinstance(overrides.get(key), Mapping):
                    overrides[key] = {**overrides[key], **item}
                else:
                    overrides[key] = item
    return path, overrides


# --------------------------------------------------------------------------- lookup


def nearest_config(folder: str, cache: dict[str, str | None] | None = None) -> str | None:
    """The configuration file that applies in ``folder`` (walking up), or None."""
    cache = {} if cache is None else cache
    visited: list[str] = []
    current = os.path.abspath(folder)
    found: str | None = None
    while True:
        if current in cache:
            found = cache[current]
            break
        visited.append(current)
        hit = next(
            (os.path.join(current, n) for n in CONFIG_FILENAMES
             if os.path.isfile(os.path.join(current, n))),
            None,
        )
        if hit is None:
            pyproject = os.path.join(current, PYPROJECT)
            if os.path.isfile(pyproject) and _has_ptxlint_table(pyproject):
                hit = pyproject
        if hit is not None:
            found = hit
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for path in visited:
        cache[path] = found
    return found


# A plain class, not a data class (as FileSettings).
class ConfigResolver:
    """Resolves the settings of each file once per configuration file (cached)."""

    __slots__ = (
        "rules", "cli", "key_values", "explicit", "isolated", "force_exclude_flag",
        "preview_rules", "fallback_cuda_version", "_folders", "_settings",
    )

    def __init__(
        self, rules: tuple[tuple[str, str], ...], cli: Mapping[str, object] | None = None,
        key_values: Mapping[str, Any] | None = None, explicit: str | None = None,
        isolated: bool = False, force_exclude_flag: bool = False,
        preview_rules: frozenset[str] = frozenset(), fallback_cuda_version: str | None = None,
    ) -> None:
        self.rules = rules  # (id, name) of every loaded rule
        self.cli: Mapping[str, object] = {} if cli is None else cli  # merge_cli keyword arguments
        # --config KEY=VALUE
        self.key_values: Mapping[str, Any] = {} if key_values is None else key_values
        self.explicit = explicit  # --config FILE
        self.isolated = isolated
        self.force_exclude_flag = force_exclude_flag
        self.preview_rules = preview_rules  # ids of the rules that run only in preview
        # the toolkit --verify runs: cuda-version where neither the file nor the command line says
        self.fallback_cuda_version = fallback_cuda_version
        self._folders: dict[str, str | None] = {}
        self._settings: dict[str | None, FileSettings] = {}

    def config_path_for(self, path: str) -> str | None:
        if self.isolated:
            return None
        if self.explicit is not None:
            return self.explicit
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        return nearest_config(folder, self._folders)

    def for_path(self, path: str) -> FileSettings:
        """The settings for a file (or, given a folder, for files directly in it)."""
        return self._load(self.config_path_for(path))

    def for_paths(self, paths: Sequence[str]) -> FileSettings:
        """The settings of the run: those of the paths' common folder."""
        folders = [
            os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
            for p in paths
        ] or [os.getcwd()]
        try:
            common = os.path.commonpath(folders)
        except ValueError:
            common = os.getcwd()
        return self.for_path(common)

    def _load(self, source: str | None) -> FileSettings:
        if source in self._settings:
            return self._settings[source]
        table: dict[str, Any] = {}
        chain: tuple[str, ...] = ()
        is_pyproject = source is not None and os.path.basename(source) == PYPROJECT
        if source is not None:
            table, chain = load_chain(source)
            if self.rules:
                # before --config KEY=VALUE is merged in, so that the error names the file only
                # for what the file says (a typo in a nested file's select would otherwise
                # select nothing there: a silent pass)
                own = RuleSelector(parse_table(table, source, is_pyproject=is_pyproject),
                                   self.rules)
                problem = unknown_selectors_message(own, selectors_by_key(own.config))
                if problem is not None:
                    raise ConfigError(f"{source}: {problem}")
        for key, value in self.key_values.items():
            if key in _MERGED_TABLES and isinstance(value, Mapping):
                base = table.get(key)
                table[key] = {**(base if isinstance(base, Mapping) else {}), **value}
            else:
                table[key] = value
        where = source or ("--config" if self.key_values else None)
        config = parse_table(table, where, is_pyproject=is_pyproject)
        if source is None:
            config = replace(config, source=None)  # anchored at the working directory
        config = merge_cli(config, **self.cli)
        if config.cuda_version is None and self.fallback_cuda_version:
            config = merge_cli(config, cuda_version=self.fallback_cuda_version)
        try:
            targets = arch_fields(config.arch)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        settings = FileSettings(
            config=config,
            selector=RuleSelector(config, self.rules, preview_rules=self.preview_rules),
            context=RuleContext(**targets, options=version_options(
                config.cuda_version, config.min_cuda_version, config.root)),
            sources=chain,
            force_exclude=config.force_exclude or self.force_exclude_flag,
        )
        self._settings[source] = settings
        return settings

    def loaded(self) -> Iterable[FileSettings]:
        return self._settings.values()

    # ------------------------------------------------------------------ exclusion

    def excluded(self, path: str, settings: FileSettings | None = None) -> bool:
        """Whether ``exclude`` of the configuration that applies to ``path`` matches it (the
        file or one of its folders), patterns anchored at that configuration's folder."""
        config = (settings or self.for_path(path)).config
        # no patterns, no anchor: ``root`` of a configuration without a file is the working
        # folder, one ``getcwd`` per file asked (every file of a run without configuration)
        return bool(config.exclude) and is_excluded(path, config.exclude, config.root)


@lru_cache(maxsize=64)
def _compiled(exclude: tuple[str, ...]) -> tuple[Any, ...]:
    return compile_patterns(exclude)


def is_excluded(path: str, exclude: Sequence[str], root: str) -> bool:
    if not exclude:
        return False
    patterns = _compiled(tuple(exclude))
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        rel = absolute.lstrip("/" + os.sep)
    parts = rel.replace(os.sep, "/").split("/")
    for i in range(1, len(parts) + 1):
        is_dir = i < len(parts)
        verdict = match_patterns(patterns, "/".join(parts[:i]), is_dir)
        if verdict:
            return True
        if verdict is False and not is_dir:
            return False
    return False
