"""The engine, as the language server uses it: configuration per file, lint, fix.

The same calls the CLI makes (``find_config``, ``load_config``, ``RuleSelector``,
``lint_source``, ``fix_text``); nothing here knows a rule. A configuration that cannot be
loaded does not stop linting: the file is linted with the defaults and the problem is
reported once through ``problems``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ptxlint import file_traits, rule_memo
from ptxlint.config import (
    Config,
    ConfigError,
    RuleSelector,
    arch_fields,
    find_config,
    load_config,
    selectors_by_key,
    unknown_selectors_message,
)
from ptxlint.engine import FileResult, instantiate, lint_source
from ptxlint.fix import FixOutcome, fix_text, refusals
from ptxlint.lsp.incremental import IncrementalLinter
from ptxlint.model import Finding, Fix, SourceFile
from ptxlint.ptx.versions import version_options
from ptxlint.registry import load_rules, preview_ids
from ptxlint.retired import selection_warning
from ptxlint.rule import Rule, RuleContext
from ptxlint.run.discover import DEFAULT_EXTENSIONS
from ptxlint.tier2 import build_targets
from ptxlint.tier2.build_targets import BuildTargets

# Files whose change can change any file's configuration.
# CMakeLists.txt: the oldest toolkit (min-cuda-version) and a folder's toolkit gate (PTX403);
# compile_commands.json: each translation unit's targets where no arch is configured
CONFIG_BASENAMES = frozenset({"pyproject.toml", "ptxlint.toml", ".ptxlint.toml", "CMakeLists.txt",
                              "compile_commands.json"})


class Setup(NamedTuple):
    """Everything a lint needs besides the text."""

    config: Config
    selector: RuleSelector
    context: RuleContext
    # each translation unit's targets, from the compile database found as `ptxlint check` finds it
    build: BuildTargets = {}


REFUSALS_KEPT = 8  # documents whose quick fixes' verdicts are kept


@dataclass
class Linter:
    """Lints documents by path; caches the configuration per folder until ``invalidate``."""

    report: Callable[[str], None] = lambda message: None  # told each distinct problem once
    warm_up: bool = True  # lint a sample at start-up (false where this process never lints)
    rule_classes: tuple[type[Rule], ...] = ()
    rules: list[Rule] = field(default_factory=list)
    _folder_config: dict[str, str | None] = field(default_factory=dict)
    _setups: dict[str | None, Setup] = field(default_factory=dict)
    _reported: set[str] = field(default_factory=set)
    # each document's last lint, so that an edit inside one asm template re-reads only it
    incremental: IncrementalLinter = field(default_factory=IncrementalLinter)
    # per document, the text whose quick fixes were tried and each one's verdict: an editor
    # asks for code actions at each move of the cursor, the text unchanged
    _refusals: dict[str, tuple[str, dict[Fix, str | None]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.rule_classes:
            loaded = load_rules()
            self.rule_classes = loaded.rules
            for problem in loaded.problems:
                self._tell(problem)
        self.rules = instantiate(self.rule_classes)
        # a document is linted again after each edit, every statement a repeat: each is keyed
        rule_memo.MEMO.adaptive = False
        if self.warm_up:
            self._warm_up()

    def _warm_up(self) -> None:
        """Load what the first lint would (grammars, the type index query, the rules' tables)
        now, at start-up, so that the first opened file's diagnostics come without that wait."""
        with contextlib.suppress(Exception):
            sample = '__device__ void f(unsigned* p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); }'
            lint_source(SourceFile("warm-up.cu", sample), self.rules, RuleContext())

    def _tell(self, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            self.report(message)

    def invalidate(self) -> None:
        """Forget every configuration: a config file was created, changed or deleted."""
        self._folder_config.clear()
        self._setups.clear()
        self._reported.clear()
        self.incremental.forget()
        self._refusals.clear()
        file_traits.forget_toolkit_gates()

    def config_path(self, path: str) -> str | None:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._folder_config:
            try:
                self._folder_config[folder] = find_config([folder])
            except ConfigError as exc:  # a broken pyproject.toml that mentions ptxlint
                self._tell(f"configuration error: {exc}")
                self._folder_config[folder] = None
        return self._folder_config[folder]

    def setup(self, path: str) -> Setup:
        """The settings ``path`` is linted with: its configuration's, with the targets of its
        compile command where that names no arch."""
        config_path = self.config_path(path)
        if config_path not in self._setups:
            self._setups[config_path] = self._load(config_path)
        found = self._setups[config_path]
        if not found.build:
            return found
        return found._replace(context=build_targets.applied(found.context, found.build, path))

    def _load(self, config_path: str | None) -> Setup:
        try:
            config = load_config(config_path)
        except ConfigError as exc:
            self._tell(f"configuration error, linting with the defaults: {exc}")
            config = Config()
        known = [(r.id, r.name) for r in self.rule_classes]
        selector = RuleSelector(config, known, preview_rules=preview_ids(self.rule_classes))
        # the key of each, as `ptxlint check` names it
        unknown = unknown_selectors_message(selector, selectors_by_key(config))
        if unknown is not None:
            self._tell(f"{config_path}: {unknown}" if config_path else unknown)
        for retired in selector.retired_selections():
            warning = selection_warning(retired)
            if warning is not None:
                self._tell(f"{config_path}: {warning}" if config_path else warning)
        targets: dict[str, Any] = {}
        try:
            targets = arch_fields(config.arch)
        except ValueError as exc:
            self._tell(f"configuration error: {exc}")
        options = version_options(config.cuda_version, config.min_cuda_version, config.root)
        from ptxlint.ptx.targets import arch_toolkit_warning  # the rules load it anyway

        for sm, suffix in targets.get("targets", ()):
            mismatch = arch_toolkit_warning(sm, suffix, options)
            if mismatch is not None:
                self._tell(mismatch)
        return Setup(config, selector, RuleContext(**targets, options=options),
                     self._build_targets(config))

    def _build_targets(self, config: Config) -> BuildTargets:
        if config.arch:
            return {}  # a configured arch wins: the database is not read
        from ptxlint.tier2 import locate

        try:
            found = locate.locate(None, config.root)
        except locate.CompileDbError:
            return {}
        return build_targets.load(str(found)) if found is not None else {}

    def toolkit(self, path: str) -> object:
        """The toolkit ``path`` is linted for (its ``cuda_version`` rule option, the default
        where none is configured), for what the server answers without a lint (completion).
        Its configuration's problems are not told from here: the worker that lints the file
        tells them, and the editor shows each once."""
        report = self.report
        self.report = _told_elsewhere
        try:
            return self.setup(path).context.options.get("cuda_version")
        finally:
            self.report = report

    def lint(self, path: str, text: str) -> FileResult:
        setup = self.setup(path)
        return self.incremental.lint(path, text, self.rules, setup.context, setup.selector)

    def fix_all(self, path: str, text: str, unsafe: bool = False) -> FixOutcome:
        setup = self.setup(path)

        def relint(current: str) -> list[Finding]:
            source = SourceFile(path, current)
            return lint_source(source, self.rules, setup.context, setup.selector).findings

        return fix_text(text, relint, unsafe)

    def refusals(self, path: str, text: str, fixes: Sequence[Fix]) -> list[str | None]:
        """For each quick fix offered on ``text``: why ``--fix`` would refuse it (its result,
        the fix applied alone, has a new error), or None. Asked only for the fixes of the
        findings a code action request covers, when the editor asks."""
        held = self._refusals.pop(path, None)
        known = held[1] if held is not None and held[0] == text else {}
        self._refusals[path] = (text, known)
        while len(self._refusals) > REFUSALS_KEPT:  # the documents asked about last
            del self._refusals[next(iter(self._refusals))]
        unknown = [fix for fix in dict.fromkeys(fixes) if fix not in known]
        if unknown:
            setup = self.setup(path)

            def relint(current: str) -> list[Finding]:
                source = SourceFile(path, current)
                return lint_source(source, self.rules, setup.context, setup.selector).findings

            found = refusals(text, unknown, self.lint(path, text).findings, relint)
            known.update(zip(unknown, found, strict=True))
        return [known[fix] for fix in fixes]


def _told_elsewhere(message: str) -> None:
    pass


# Editors' language ids for C, C++ and CUDA buffers; Python buffers are linted when they are
# .py files (the front end reads the path), the prefilter keeps the others cheap.
CUDA_LANGUAGE_IDS = frozenset({"cuda", "cuda-cpp", "cpp", "c", "objective-cpp"})


def lintable(path: str, language_id: str) -> bool:
    """Whether the server lints a document: not a configuration file, and a source by its
    extension or its editor's language."""
    if is_config_file(path):
        return False
    extension = os.path.splitext(path)[1].lower()
    return extension in DEFAULT_EXTENSIONS or language_id in CUDA_LANGUAGE_IDS


def is_config_file(path: str) -> bool:
    return os.path.basename(path) in CONFIG_BASENAMES
