"""Configuration: ``[tool.ptxlint]`` in ``pyproject.toml``, or top-level keys in ``ptxlint.toml``.

Decisions:

* Lookup walks upward from the common folder of the linted paths. In each folder,
  ``.ptxlint.toml`` beats ``ptxlint.toml`` beats a ``pyproject.toml`` that has a
  ``[tool.ptxlint]`` table (ruff's order); the first folder with any of them wins and nothing is
  merged from further up. A ``pyproject.toml`` without the table is passed over.
* Keys are kebab-case like ruff's; an unknown key is an error that names it, suggests the closest
  valid key and lists all of them, because a misspelt ``ignore`` silently doing nothing is worse
  than a failed run.
* Selectors are an exact rule id (``PTX101``), an exact rule name (``missing-clobber``), an id
  prefix (``PTX1``, ``PTX``) or ``ALL``. Ruff's precedence: the most specific matching selector
  decides (exact > longer prefix > shorter prefix > ``ALL``), and ``ignore`` wins a tie. Empty
  ``select`` means every default-enabled rule, at a specificity below every selector.
* ``per-file-ignores`` keys are gitignore-style globs matched against the path relative to the
  config file's folder and against the path as given; a key starting with ``!`` applies to files
  that do *not* match (ruff's convention). They remove rules whatever ``select`` says.
* ``severity`` maps selectors to ``error``/``warning``/``info``/``off`` with the same specificity
  rule (a later entry wins a tie); ``off`` disables the rule, which saves a separate ``ignore``
  line when re-levelling a whole prefix but silencing one member.
* CLI flags are applied on top by ``merge_cli``: ``select``/``exclude`` and scalars replace,
  ``extend-select``/``ignore``/``extend-exclude`` add. CLI ignores are merged into the same
  specificity contest, so ``--ignore PTX1`` does not beat a configured ``select = ["PTX101"]``.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.run.discover import (
    DEFAULT_EXTENSIONS,
    DEFAULT_MAX_FILE_SIZE,
    compile_patterns,
    match_patterns,
)
from ptxlint.value_class import value_class

if TYPE_CHECKING:
    import pathspec


def _import_toml() -> ModuleType:
    # tomllib is in the standard library from 3.11; tomli is the same parser for 3.10.
    try:
        import tomllib
    except ImportError:
        import tomli

        return tomli
    return tomllib


# imported when a configuration is first read: a run without one never parses TOML
_toml = functools.cache(_import_toml)


CONFIG_FILENAMES = (".ptxlint.toml", "ptxlint.toml")
PYPROJECT = "pyproject.toml"
SEVERITY_LEVELS = ("error", "warning", "info", "off")
FAIL_ON_LEVELS = ("error", "warning", "info", "never")
ALL_SELECTOR = "ALL"
_SELECTOR = on_first_use(r"[A-Za-z][A-Za-z0-9-]*")
_ARCH = on_first_use(r"(?:(?:sm|compute)_?)?([1-9][0-9]{1,2})([af]?)", re.IGNORECASE)


class ConfigError(Exception):
    """A configuration problem, with the file and the offending key in the message."""


@value_class(slots=False)
class Config:
    """The settings of a run: its configuration file's (the defaults without one), with the
    command line's on top (``merge_cli``)."""

    select: tuple[str, ...] = ()  # empty: all default-enabled rules
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, selectors)
    severity: tuple[tuple[str, str], ...] = ()  # (selector, level)
    # the targets the build compiles for, normalized, in ascending target order: ("sm_80",
    # "sm_90a"); empty: none named, each statement's guards say
    arch: tuple[str, ...] = ()
    extensions: tuple[str, ...] | None = None  # None: discover's defaults
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    fail_on: str = "warning"
    force_exclude: bool = False  # apply exclude to files named on the command line too
    fixable: tuple[str, ...] = ("ALL",)  # whose fixes --fix may apply (selectors)
    unfixable: tuple[str, ...] = ()
    extend_fixable: tuple[str, ...] = ()
    preview: bool = False  # run the rules that declare themselves preview
    cuda_version: str | None = None  # the toolkit whose ptxas the verdicts are for, "13.0"
    min_cuda_version: str | None = None  # the oldest toolkit the project builds with, "12.4"
    source: str | None = None  # the file this came from

    @property
    def root(self) -> str:
        """The folder that relative patterns in this configuration are anchored at."""
        return os.path.dirname(os.path.abspath(self.source)) if self.source else os.getcwd()


# --------------------------------------------------------------------------- arch


def parse_arch(text: str) -> tuple[int, str]:
    """``"sm_90a"`` -> ``(90, "a")``; accepts ``sm_``/``compute_`` prefixes or a bare number."""
    match = _ARCH().fullmatch(text.strip())
    if match is None:
        raise ValueError(
            f"invalid arch {text!r}: expected a target like sm_90, sm_90a, sm_100f, "
            "compute_80 or 90"
        )
    number, suffix = int(match[1]), match[2].lower()
    # Reject suffixes PTX has no target for, so that "sm_80a" is not silently taken as sm_80.
    if suffix == "a" and number < 90:
        raise ValueError(f"invalid arch {text!r}: 'a' targets exist from sm_90a on")
    if suffix == "f" and number < 100:
        raise ValueError(f"invalid arch {text!r}: 'f' targets exist from sm_100f on")
    # Only a target the instruction tables know: for any other (sm_999, a typo of sm_90) every
    # architecture rule would silently judge against a GPU that has every instruction.
    from ptxlint.ptx.targets import TARGETS

    if not any(t.sm == number and t.suffix == suffix for t in TARGETS):
        raise ValueError(
            f"unknown arch {text!r}: the targets ptxlint's instruction tables know are "
            + ", ".join(str(t) for t in TARGETS)
        )
    return number, suffix


def normalize_arch(value: str | int) -> str:
    number, suffix = parse_arch(str(value))
    return f"sm_{number}{suffix}"


def normalize_arch_list(value: str | int | Iterable[str | int]) -> tuple[str, ...]:
    """``"sm_90a,80"`` or ``["sm_90a", 80]`` -> ``("sm_80", "sm_90a")``: each entry
    normalized, duplicates folded, in ascending target order (``TARGETS``'). A string may
    list several targets, comma-separated (``--arch sm_80,sm_90a``)."""
    entries = [str(value)] if isinstance(value, (str, int)) else [str(v) for v in value]
    words = [word for entry in entries for word in entry.split(",")]
    if not any(word.strip() for word in words):
        raise ValueError("names no target: leave arch out to check each statement against "
                         "the targets its #if guards allow")
    found = {parse_arch(word) for word in words if word.strip()}
    from ptxlint.ptx.targets import TARGETS

    return tuple(f"sm_{t.sm}{t.suffix}" for t in TARGETS if (t.sm, t.suffix) in found)


def arch_fields(targets: Iterable[str]) -> dict[str, Any]:
    """``RuleContext``'s target fields for normalized targets (``Config.arch``): ``arch`` and
    ``arch_suffix`` the one target (None and "" for none or several), ``targets`` them all."""
    pairs = tuple(parse_arch(target) for target in targets)
    arch, suffix = pairs[0] if len(pairs) == 1 else (None, "")
    return {"arch": arch, "arch_suffix": suffix, "targets": pairs}


# --------------------------------------------------------------------------- validators
# Each validator returns the normalized value or raises ValueError with a message that reads
# well after "KEY: ". They serve both TOML and CLI values, hence tuples as well as lists.


def _type_name(value: object) -> str:
    return {str: "string", bool: "boolean", int: "integer", dict: "table", list: "array"}.get(
        type(value), type(value).__name__
    )


def _string_list(value: object, what: str = "strings") -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected an array of {what}, got {_type_name(value)} {value!r}")
    return tuple(value)


def _selectors(value: object) -> tuple[str, ...]:
    selectors = _string_list(value, "rule selectors")
    for selector in selectors:
        if not _SELECTOR().fullmatch(selector):
            raise ValueError(
                f"invalid rule selector {selector!r}: expected a rule id (PTX101), "
                "an id prefix (PTX1), a rule name or ALL"
            )
    return selectors


def _table(value: object) -> Iterable[tuple[str, object]]:
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple)) and all(
        isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)
        for item in value
    ):
        return [(item[0], item[1]) for item in value]
    raise ValueError(f"expected a table, got {_type_name(value)} {value!r}")


def _pattern(pattern: str) -> str:
    compile_patterns([pattern.removeprefix("!")], strict=True)
    return pattern


def _per_file_ignores(value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    result = []
    for glob, selectors in _table(value):
        try:
            result.append((_pattern(glob), _selectors(selectors)))
        except ValueError as exc:
            raise ValueError(f"{glob!r}: {exc}") from exc
    return tuple(result)


def _severity(value: object) -> tuple[tuple[str, str], ...]:
    result = []
    for selector, level in _table(value):
        _selectors([selector])
        if level not in SEVERITY_LEVELS:
            raise ValueError(
                f"{selector!r}: invalid level {level!r}; expected one of "
                + ", ".join(SEVERITY_LEVELS)
            )
        result.append((selector, str(level)))
    return tuple(result)


def _arch(value: object) -> tuple[str, ...]:
    entries: list[str | int] = []
    for entry in value if isinstance(value, (list, tuple)) else [value]:
        if isinstance(entry, bool) or not isinstance(entry, (str, int)):
            raise ValueError('expected a string like "sm_90a" or an array of them, got '
                             f"{_type_name(entry)} {entry!r}")
        entries.append(entry)
    return normalize_arch_list(entries)


def _cuda_version(value: object) -> str:
    from ptxlint.ptx.versions import format_cuda, parse_cuda_version

    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f'expected a CUDA version like "12.4", got {_type_name(value)} '
                         f"{value!r}")
    return format_cuda(parse_cuda_version(value if not isinstance(value, float) else str(value)))


def _extensions(value: object) -> tuple[str, ...]:
    extensions = _string_list(value)
    for ext in extensions:
        if not ext.strip(".") or "/" in ext or os.sep in ext:
            raise ValueError(f"invalid extension {ext!r}")
    return tuple(ext if ext.startswith(".") else "." + ext for ext in extensions)


def _patterns(value: object) -> tuple[str, ...]:
    return tuple(_pattern(p) for p in _string_list(value, "gitignore-style patterns"))


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {_type_name(value)} {value!r}")
    return value


def _size(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"expected a non-negative integer number of bytes (0: no limit), got {value!r}"
        )
    return value


def _fail_on(value: object) -> str:
    if value not in FAIL_ON_LEVELS:
        raise ValueError(f"expected one of {', '.join(FAIL_ON_LEVELS)}, got {value!r}")
    return str(value)


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Setting:
    """One configuration key: how it is read and how ``ptxlint config KEY`` documents it. This
    table is the one place a setting is defined; parsing, ``--config KEY=VALUE`` and the
    documentation all read it."""

    __slots__ = (
        "key", "field", "validate", "type", "default", "summary", "doc", "example", "flags",
    )

    def __init__(
        self, key: str, field: str | None, validate: Callable[[object], object] | None, type: str,
        default: str, summary: str, doc: str, example: str, flags: tuple[str, ...] = (),
    ) -> None:
        self.key = key  # the TOML key, kebab-case
        self.field = field  # the Config field it sets (None: read before parsing, like `extend`)
        self.validate = validate
        self.type = type  # as TOML writes it
        self.default = default  # as TOML writes it, or a phrase
        self.summary = summary  # one line
        self.doc = doc  # what it does, how it combines; Markdown
        self.example = example  # a TOML line or table
        self.flags = flags  # the command-line options that set it


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "select", "select", _selectors, "array of rule selectors", "[] (every default rule)",
        "The rules to run: ids (PTX101), names (missing-volatile), id prefixes (PTX1) or ALL.",
        "Empty means every rule that is on by default. The most specific selector decides "
        "between select and ignore (an exact id or name beats a longer prefix, which beats a "
        "shorter one, which beats ALL), and ignore wins a tie. --select replaces it.",
        'select = ["PTX0", "PTX1", "missing-clobber"]', ("--select",),
    ),
    Setting(
        "extend-select", "extend_select", _selectors, "array of rule selectors", "[]",
        "Rules to run in addition to select.",
        "Added to select (and to the default rules when select is empty), e.g. to turn on a "
        "rule that is off by default. In a file that extends another, the two lists are "
        "joined. --extend-select adds to it.",
        'extend-select = ["PTX208"]', ("--extend-select",),
    ),
    Setting(
        "ignore", "ignore", _selectors, "array of rule selectors", "[]",
        "Rules to leave out.",
        "Takes part in the same specificity contest as select, so ignore = [\"PTX1\"] does "
        "not beat select = [\"PTX101\"]. --ignore adds to it.",
        'ignore = ["PTX009", "unused-predicate"]', ("--ignore",),
    ),
    Setting(
        "per-file-ignores", "per_file_ignores", _per_file_ignores,
        "table of glob = array of rule selectors", "{}",
        "Rules to leave out in the files a glob matches.",
        "Globs are gitignore-style, matched against the path relative to the configuration "
        "file's folder and against the path as given; a glob starting with ! applies to the "
        "files it does not match. They remove rules whatever select says. In a file that "
        "extends another, the tables are merged. --per-file-ignores GLOB:RULES adds entries.",
        '[per-file-ignores]\n"tests/**" = ["PTX009"]\n"!src/kernels/**" = ["PTX4"]',
        ("--per-file-ignores",),
    ),
    Setting(
        "severity", "severity", _severity, "table of selector = level", "{}",
        "Change rules' severity: error, warning, info or off.",
        "The most specific selector wins; a later entry wins a tie. off disables the rule. "
        "Severity decides the exit code together with fail-on.",
        '[severity]\nPTX1 = "error"\nPTX102 = "info"', (),
    ),
    Setting(
        "arch", "arch", _arch, "string or array of strings", "none (every target)",
        "The GPUs the code is compiled for, for the architecture rules (PTX4xx).",
        "Each entry: sm_90, sm_90a, sm_100f, compute_80 or a bare number; a string names one "
        "target, an array every target the build compiles for (nvcc's -gencode list, CMake's "
        "CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST). A statement is judged for each listed "
        "target its #if __CUDA_ARCH__ guards compile it for, as nvcc compiles it once per "
        "target; a finding names the lowest target it fails for. The list is every file's: a "
        "folder whose files are built for fewer targets (sm_90a kernels) names them in its own "
        "configuration (extend = \"../ptxlint.toml\" and its arch), which applies to the "
        "files under it. Without it, a file the compile database compiles (Tier 2) is judged "
        "for the targets of its command (one per -gencode arch=, or -arch), and any other "
        "statement against the targets its guards allow. --arch replaces it, comma-separated "
        "for several (--arch sm_80,sm_90a; --arch native asks nvidia-smi). A target "
        "cuda-version's nvcc does not compile for (sm_70 from CUDA 13.0 on, sm_110 before it) "
        "is still judged, with a warning.",
        'arch = ["sm_80", "sm_90a"]', ("--arch",),
    ),
    Setting(
        "cuda-version", "cuda_version", _cuda_version, "string",
        '"13.0", or the toolkit --verify finds',
        "The CUDA toolkit whose ptxas the instruction verdicts are for.",
        "Verdicts that changed between toolkits follow it, and their messages name the "
        "version (ptxas 13.1 takes a 32-bit st.bulk size, 13.0 does not). --verify sets it to "
        "the toolkit it runs, unless it is configured. Without it, a form new in a later "
        "toolkit is an error in C++ (nvcc 13.0 rejects it) but a warning in Python DSL code "
        "(Triton, CuTe DSL), whose PTX the DSL's own bundled toolchain assembles. Set newer "
        "than the newest toolkit ptxlint knows (13.5), unknown words are warnings: that "
        "toolkit may have added them. Read together with min-cuda-version. --cuda-version "
        "replaces it.",
        'cuda-version = "12.8"', ("--cuda-version",),
    ),
    Setting(
        "min-cuda-version", "min_cuda_version", _cuda_version, "string",
        "none, or find_package(CUDAToolkit X) (or CUDA X) in the project's CMakeLists.txt",
        "The oldest CUDA toolkit the project supports, for PTX403 (isa-version-unsupported).",
        "An instruction form introduced in a newer PTX ISA than that toolkit accepts (each "
        "instruction's PTX ISA Notes) breaks the build there; PTX403 reports it unless the "
        "statement's #if guards keep that toolkit out (CUDA_VERSION, __CUDACC_VER_MAJOR__), "
        "and then holds it to the oldest toolkit the guards admit. "
        "Without the setting, a top-level CMakeLists.txt next to the configuration (or in "
        "the working directory) naming exactly one version in find_package(CUDAToolkit X) "
        "(or the older find_package(CUDA X)) supplies it. A folder whose CMakeLists.txt "
        "builds nothing unless if(CUDA_VERSION VERSION_GREATER_EQUAL X) holds is held to X "
        "where this is older. "
        "cuda-version is the toolkit the verdicts are for; this is the oldest one they must "
        "also hold for. --min-cuda-version replaces it.",
        'min-cuda-version = "12.4"', ("--min-cuda-version",),
    ),
    Setting(
        "extensions", "extensions", _extensions, "array of strings",
        "[" + ", ".join(f'"{e}"' for e in DEFAULT_EXTENSIONS) + "]",
        "The file extensions linted when walking folders.",
        "A file named on the command line is linted whatever its extension. --extensions "
        "replaces it.",
        'extensions = [".cu", ".cuh"]', ("--extensions",),
    ),
    Setting(
        "exclude", "exclude", _patterns, "array of gitignore-style patterns", "[]",
        "Paths to skip while walking folders.",
        "Patterns are anchored at the configuration file's folder. A file named on the "
        "command line is still linted unless force-exclude is set. --exclude replaces it.",
        'exclude = ["third_party/", "build/"]', ("--exclude",),
    ),
    Setting(
        "respect-gitignore", "respect_gitignore", _boolean, "boolean", "true",
        "Skip the files .gitignore (and .git/info/exclude) excludes while walking folders.",
        "--no-gitignore turns it off.",
        "respect-gitignore = false", ("--no-gitignore",),
    ),
    Setting(
        "max-file-size", "max_file_size", _size, "integer (bytes)", str(DEFAULT_MAX_FILE_SIZE),
        "Files larger than this are skipped with a note; 0 means no limit.",
        "Generated sources of hundreds of megabytes are rarely worth a lint run. A file named "
        "on the command line, and standard input (`ptxlint check -`), larger than this are "
        "refused with a one-line error and exit code 2, after reading at most one byte past "
        "the limit (`ptxlint check - < /dev/zero` stops at once).",
        "max-file-size = 4194304", (),
    ),
    Setting(
        "fail-on", "fail_on", _fail_on, "string", '"warning"',
        "The lowest severity that makes the exit code 1: error, warning, info or never.",
        "Every finding is reported whatever this says; it decides only the exit code. "
        "--fail-on replaces it.",
        'fail-on = "error"', ("--fail-on",),
    ),
    Setting(
        "force-exclude", "force_exclude", _boolean, "boolean", "false",
        "Apply exclude to files named on the command line too.",
        "pre-commit names every changed file; this keeps excluded ones out. --force-exclude "
        "sets it.",
        "force-exclude = true", ("--force-exclude",),
    ),
    Setting(
        "fixable", "fixable", _selectors, "array of rule selectors", '["ALL"]',
        "The rules whose fixes --fix may apply.",
        "The most specific selector among fixable, extend-fixable and unfixable decides; "
        "unfixable wins a tie. --fixable replaces it.",
        'fixable = ["PTX0", "PTX101"]', ("--fixable",),
    ),
    Setting(
        "unfixable", "unfixable", _selectors, "array of rule selectors", "[]",
        "Rules whose fixes are never applied (they are still reported).",
        "--unfixable adds to it.",
        'unfixable = ["PTX102"]', ("--unfixable",),
    ),
    Setting(
        "extend-fixable", "extend_fixable", _selectors, "array of rule selectors", "[]",
        "Rules added to fixable.",
        "--extend-fixable adds to it.",
        'extend-fixable = ["PTX201"]', ("--extend-fixable",),
    ),
    Setting(
        "preview", "preview", _boolean, "boolean", "false",
        "Also run the preview rules: new rules whose precision on public code is still "
        "being reviewed.",
        "A preview rule runs only in preview, whatever select says; selecting one by id or "
        "name without preview prints a warning. `ptxlint rules` marks them. --preview and "
        "--no-preview override it.",
        "preview = true", ("--preview", "--no-preview"),
    ),
    Setting(
        "extend", None, None, "string (a path)", "none",
        "Another configuration file this one builds on, relative to this file.",
        "The extended file's keys apply unless this file sets them; extend-select is joined "
        "and the per-file-ignores and severity tables are merged. Chains are allowed, "
        "cycles are an error.",
        'extend = "../ptxlint.toml"', (),
    ),
)

# TOML key -> (Config field, validator), for the keys parse_table reads
_KEYS: dict[str, tuple[str, Callable[[object], object]]] = {
    s.key: (s.field, s.validate) for s in SETTINGS if s.field is not None and s.validate
}
VALID_KEYS = tuple(sorted(_KEYS))


# --------------------------------------------------------------------------- loading


def _unknown_key_message(key: str, where: str, is_pyproject: bool) -> str:
    import difflib  # only for a configuration error; most runs never ask it

    message = f"unknown key {key!r}{where}"
    guesses = difflib.get_close_matches(key.replace("_", "-"), VALID_KEYS, n=1, cutoff=0.6)
    if guesses:
        message += f" (did you mean {guesses[0]!r}?)"
    elif key == "tool" and not is_pyproject:
        message += " (ptxlint.toml takes its keys at top level, without [tool.ptxlint])"
    return message + "; valid keys: " + ", ".join(VALID_KEYS)


def parse_table(table: Mapping[str, Any], source: str | None, *, is_pyproject: bool) -> Config:
    """Validate a configuration table (already extracted from its file) into a ``Config``."""
    where = " in [tool.ptxlint]" if is_pyproject else ""
    prefix = f"{source}: " if source else ""
    values: dict[str, object] = {}
    for key, raw in table.items():
        if key not in _KEYS:
            raise ConfigError(prefix + _unknown_key_message(key, where, is_pyproject))
        field_name, validate = _KEYS[key]
        try:
            values[field_name] = validate(raw)
        except ValueError as exc:
            raise ConfigError(f"{prefix}{key}: {exc}") from exc
    return Config(**values, source=source)  # type: ignore[arg-type]


def _read_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data: dict[str, Any] = _toml().load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from exc
    except _toml().TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8; the parser does not say so itself
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 (byte {exc.start})") from exc
    return data


def _pyproject_table(data: Mapping[str, Any], path: str) -> Mapping[str, Any] | None:
    tool = data.get("tool")
    if not isinstance(tool, Mapping) or "ptxlint" not in tool:
        return None
    table = tool["ptxlint"]
    if not isinstance(table, Mapping):
        raise ConfigError(f"{path}: [tool.ptxlint] must be a table")
    return table


# `extend = "../ptxlint.toml"`: a configuration file names the one it builds on.
EXTEND_KEY = "extend"
_MERGED_TABLES = ("per-file-ignores", "severity")
_EXTENDED_LISTS = ("extend-select",)
_MAX_EXTEND_DEPTH = 16


def _raw_table(path: str) -> Mapping[str, Any]:
    data = _read_toml(path)
    if os.path.basename(path) == PYPROJECT:
        return _pyproject_table(data, path) or {}
    return data


def load_chain(path: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The merged raw table of ``path`` and the files it extends, and those files in order."""
    chain: list[str] = []
    tables: list[Mapping[str, Any]] = []
    current: str | None = os.path.abspath(path)
    while current is not None:
        if current in chain:
            raise ConfigError(f"{path}: 'extend' cycle: {' -> '.join([*chain, current])}")
        if len(chain) >= _MAX_EXTEND_DEPTH:
            raise ConfigError(f"{path}: 'extend' chain longer than {_MAX_EXTEND_DEPTH} files")
        chain.append(current)
        table = _raw_table(current)
        tables.append(table)
        target = table.get(EXTEND_KEY)
        if target is None:
            current = None
        elif not isinstance(target, str) or not target:
            raise ConfigError(f"{current}: extend: expected a path to a configuration file")
        else:
            current = os.path.normpath(os.path.join(os.path.dirname(current), target))
            if not os.path.isfile(current):
                raise ConfigError(f"{chain[-1]}: extend: no such file {current}")
    merged: dict[str, Any] = {}
    for table in reversed(tables):  # the farthest first, so nearer files win
        for key, value in table.items():
            if key == EXTEND_KEY:
                continue
            if key in _MERGED_TABLES and isinstance(value, Mapping):
                base = merged.get(key)
                merged[key] = {**(base if isinstance(base, Mapping) else {}), **value}
            elif key in _EXTENDED_LISTS and isinstance(value, list):
                base = merged.get(key)
                merged[key] = [*(base if isinstance(base, list) else []), *value]
            else:
                merged[key] = value
    return merged, tuple(chain)


def load_config(path: str | None) -> Config:
    """Load and validate ``path``; ``None`` gives the defaults."""
    if path is None:
        return Config()
    # the editor's per-folder configuration reads files through here too
    table, _ = load_chain(path)
    return parse_table(table, path, is_pyproject=os.path.basename(path) == PYPROJECT)


def _has_ptxlint_table(pyproject: str) -> bool:
    try:
        with open(pyproject, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return False
    # Skip parsing pyprojects that cannot mention us, so a broken unrelated one is harmless.
    if "ptxlint" not in text:
        return False
    return _pyproject_table(_read_toml(pyproject), pyproject) is not None


def _common_folder(paths: Sequence[str]) -> str:
    if not paths:
        return os.getcwd()
    folders = [
        os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
        for p in paths
    ]
    try:
        return os.path.commonpath(folders)
    except ValueError:  # different drives on Windows
        return os.getcwd()


def find_config(paths: Sequence[str]) -> str | None:
    """The configuration file for ``paths``: the nearest one above their common folder."""
    folder = _common_folder(paths)
    while True:
        for name in CONFIG_FILENAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
        pyproject = os.path.join(folder, PYPROJECT)
        if os.path.isfile(pyproject) and _has_ptxlint_table(pyproject):
            return pyproject
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


# --------------------------------------------------------------------------- CLI overrides

_CLI_REPLACE = {
    "cuda_version",
    "min_cuda_version",
    "select",
    "per_file_ignores",
    "arch",
    "extensions",
    "exclude",
    "respect_gitignore",
    "max_file_size",
    "fail_on",
    "fixable",
    "preview",
}
_CLI_EXTEND = {
    "extend_select": "extend_select",
    "ignore": "ignore",
    "extend_exclude": "exclude",
    "extend_per_file_ignores": "per_file_ignores",
    "severity": "severity",
    "unfixable": "unfixable",
    "extend_fixable": "extend_fixable",
}
_VALIDATORS = {field_name: validate for field_name, validate in _KEYS.values()}


def merge_cli(config: Config, **overrides: object) -> Config:
    """Apply command-line values (``None`` or empty = flag not given) on top of ``config``.

    Replacing: select, per_file_ignores, arch, extensions, exclude, respect_gitignore,
    max_file_size, fail_on. Adding: extend_select, ignore, extend_exclude (to exclude),
    extend_per_file_ignores (to per_file_ignores), severity (appended, so it wins ties).
    Values are validated like the TOML ones; a bad one raises ConfigError naming the flag.
    """
    changes: dict[str, Any] = {}
    for name, value in overrides.items():
        # argparse's append actions give [] for an absent flag; treating an empty list as
        # "not given" keeps such a flag from wiping the configured select/exclude.
        if value is None or (isinstance(value, (list, tuple, dict)) and not value):
            continue
        if name in _CLI_REPLACE:
            target, extend = name, False
        elif name in _CLI_EXTEND:
            target, extend = _CLI_EXTEND[name], True
        else:
            raise TypeError(f"merge_cli() got an unexpected override {name!r}")
        try:
            validated = _VALIDATORS[target](value)
        except ValueError as exc:
            raise ConfigError(f"--{name.replace('_', '-')}: {exc}") from exc
        if extend:
            validated = (*changes.get(target, getattr(config, target)), *validated)  # type: ignore[misc]
        changes[target] = validated
    return replace(config, **changes)


# --------------------------------------------------------------------------- selection

_EXACT = 1_000_000  # beats any prefix length


def parse_per_file_ignore_arg(text: str) -> tuple[str, tuple[str, ...]]:
    """``--per-file-ignores 'GLOB:RULES'`` (ruff's form): the glob of a ``per-file-ignores``
    key and its comma-separated selectors. The last ``:`` splits them, so a glob may hold one."""
    glob, sep, selectors = text.rpartition(":")
    rules = tuple(s.strip() for s in selectors.split(",") if s.strip())
    if not sep or not glob.strip() or not rules:
        raise ConfigError(
            f"--per-file-ignores {text!r}: expected GLOB:RULES, e.g. 'tests/**:PTX101,PTX2'"
        )
    return glob.strip(), rules


def selector_specificity(selector: str, rule_id: str, rule_name: str) -> int | None:
    """How specifically ``selector`` names the rule, or None if it does not match it."""
    if selector in (rule_id, rule_name):
        return _EXACT
    if selector == ALL_SELECTOR:
        return 0
    if rule_id.startswith(selector):
        return len(selector)
    return None


def _best(selectors: Iterable[str], rule_id: str, rule_name: str) -> int | None:
    scores = [selector_specificity(s, rule_id, rule_name) for s in selectors]
    matched = [score for score in scores if score is not None]
    return max(matched) if matched else None


def _path_candidates(path: str, root: str) -> list[str]:
    given = path.replace(os.sep, "/")
    while given.startswith("./"):
        given = given[2:]
    candidates = [given.lstrip("/")]
    relative = os.path.relpath(os.path.abspath(path), root)
    if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
        candidates.append(relative.replace(os.sep, "/"))
    return candidates


class _PerFileIgnore(NamedTuple):
    """One ``per-file-ignores`` entry, compiled: the files its glob matches (or, negated, does not),
    and the rule selectors it turns off there."""

    patterns: tuple[pathspec.Pattern, ...]
    negated: bool
    selectors: tuple[str, ...]

    def applies_to(self, candidates: Sequence[str]) -> bool:
        hit = any(match_patterns(self.patterns, c, is_dir=False) for c in candidates)
        return hit != self.negated


class RuleSelector:
    """Which rules run on which file, at which severity, per a ``Config``."""

    def __init__(
        self,
        config: Config,
        rules: Iterable[tuple[str, str]] = (),
        *,
        default_disabled: Collection[str] = (),
        preview_rules: Collection[str] = (),
    ) -> None:
        self.config = config
        self.rules = tuple(rules)
        self._default_disabled = frozenset(default_disabled)
        # ids of the preview rules: off unless config.preview, whatever the selectors say
        self._preview_rules = frozenset(preview_rules)
        self._root = config.root
        self._per_file = tuple(
            _PerFileIgnore(
                compile_patterns([glob.removeprefix("!")]), glob.startswith("!"), selectors
            )
            for glob, selectors in config.per_file_ignores
        )
        self._selected: dict[tuple[str, str], bool] = {}
        self._file_ignores: dict[str, tuple[str, ...]] = {}

    def _is_selected(self, rule_id: str, rule_name: str) -> bool:
        key = (rule_id, rule_name)
        if key not in self._selected:
            if rule_id in self._preview_rules and not self.config.preview:
                self._selected[key] = False
                return False
            chosen = _best((*self.config.select, *self.config.extend_select), rule_id, rule_name)
            if chosen is None and not self.config.select:
                default_on = not ({rule_id, rule_name} & self._default_disabled)
                chosen = -1 if default_on else None
            ignored = _best(self.config.ignore, rule_id, rule_name)
            self._selected[key] = chosen is not None and (ignored is None or chosen > ignored)
        return self._selected[key]

    def ignores_for_path(self, path: str) -> tuple[str, ...]:
        """The per-file-ignores selectors that apply to ``path``."""
        if path not in self._file_ignores:
            candidates = _path_candidates(path, self._root)
            selectors: list[str] = []
            for entry in self._per_file:
                if entry.applies_to(candidates):
                    selectors.extend(entry.selectors)
            self._file_ignores[path] = tuple(selectors)
        return self._file_ignores[path]

    def enabled(self, rule_id: str, rule_name: str, path: str | None = None) -> bool:
        if not self._is_selected(rule_id, rule_name):
            return False
        if self.severity_for(rule_id, rule_name, "") == "off":
            return False
        return path is None or _best(self.ignores_for_path(path), rule_id, rule_name) is None

    def fixable(self, rule_id: str, rule_name: str) -> bool:
        """Whether --fix may apply the rule's fixes (ruff's fixable/unfixable/extend-fixable:
        the most specific selector decides, unfixable wins a tie)."""
        config = self.config
        chosen = _best((*config.fixable, *config.extend_fixable), rule_id, rule_name)
        refused = _best(config.unfixable, rule_id, rule_name)
        return chosen is not None and (refused is None or chosen > refused)

    def severity_for(self, rule_id: str, rule_name: str, default: str) -> str:
        """The configured level (possibly ``"off"``) or ``default``; later entries win ties."""
        best_score, level = -1, default
        for selector, configured in self.config.severity:
            score = selector_specificity(selector, rule_id, rule_name)
            if score is not None and score >= best_score:
                best_score, level = score, configured
        return level

    def all_selectors(self) -> list[str]:
        config = self.config
        selectors = [*config.select, *config.extend_select, *config.ignore]
        for _, group in config.per_file_ignores:
            selectors.extend(group)
        selectors.extend(selector for selector, _ in config.severity)
        selectors.extend((*config.unfixable, *config.extend_fixable))
        selectors.extend(s for s in config.fixable if s != ALL_SELECTOR)
        return list(dict.fromkeys(selectors))

    def preview_selections(self) -> list[str]:
        """Selectors in select/extend-select that name a preview rule exactly (by id or name)
        while preview is off: they have no effect, which the user should hear (ruff warns)."""
        if self.config.preview or not self._preview_rules:
            return []
        names = {i: n for i, n in self.rules}
        return [
            selector
            for selector in dict.fromkeys((*self.config.select, *self.config.extend_select))
            if any(selector in (i, names.get(i)) for i in self._preview_rules)
        ]

    def suggestion(self, selector: str) -> str | None:
        """The rule id or name closest to a selector that matches none (a typo), if any is
        close enough to be worth saying."""
        import difflib  # only for an error message

        from ptxlint.retired import retired_selector

        upper = selector.upper()
        if any(selector_specificity(upper, i, n) is not None for i, n in self.rules):
            return upper  # `ptx1`: ids and prefixes are upper case
        for spelled in (upper, selector.lower()):
            if retired_selector(spelled) is not None:
                return spelled  # a retired rule's id or name in the wrong case
        # ids compare in upper case, names in lower case; of equally close ones, the one that
        # shares the longest start wins (PTX0O1 is PTX001, not PTX901)
        scored = [
            (
                round(difflib.SequenceMatcher(None, key, candidate).ratio(), 6),
                len(os.path.commonprefix([key, candidate])),
                candidate,
            )
            for key, candidates in (
                (upper, [i for i, _ in self.rules]),
                (selector.lower(), [n for _, n in self.rules]),
            )
            for candidate in candidates
        ]
        best = max(scored, default=(0.0, 0, ""), key=lambda item: item[:2])
        return best[2] if best[0] >= 0.6 else None

    def unknown_selectors(self, known: Iterable[tuple[str, str]] | None = None) -> list[str]:
        """Selectors that match no known rule (typos, ``PTX999``), in configuration order."""
        from ptxlint.retired import retired_selector

        rules = tuple(known) if known is not None else self.rules
        return [
            selector
            for selector in self.all_selectors()
            if selector != ALL_SELECTOR
            and not any(selector_specificity(selector, i, n) is not None for i, n in rules)
            and retired_selector(selector) is None  # reserved: a warning, not an error
        ]

    def retired_selections(self) -> list[str]:
        """Selectors in select/extend-select that name a retired rule exactly: they select
        nothing, which the user should hear (ptxlint.retired); ignoring one is silent."""
        from ptxlint.retired import retired_selector

        return [
            selector
            for selector in dict.fromkeys((*self.config.select, *self.config.extend_select))
            if retired_selector(selector) is not None
        ]


def selectors_by_key(config: Config) -> list[tuple[str, tuple[str, ...]]]:
    """The rule selectors of a configuration under the TOML key that holds each, in the order
    ``RuleSelector.all_selectors`` reads them (for errors that name the key)."""
    return [
        ("select", config.select),
        ("extend-select", config.extend_select),
        ("ignore", config.ignore),
        *((f'per-file-ignores."{glob}"', group) for glob, group in config.per_file_ignores),
        ("severity", tuple(selector for selector, _ in config.severity)),
        ("fixable", tuple(s for s in config.fixable if s != ALL_SELECTOR)),
        ("extend-fixable", config.extend_fixable),
        ("unfixable", config.unfixable),
    ]


def unknown_selectors_message(
    selector: RuleSelector, labelled: Iterable[tuple[str, Sequence[str]]]
) -> str | None:
    """``LABEL: unknown rule selector(s): X (did you mean 'Y'?)`` for each label (a key, an
    option) that holds selectors matching no rule, with what a selector may be; None if all
    match."""
    unknown = set(selector.unknown_selectors())
    parts = []
    for label, selectors in labelled:
        named = [
            f"{s} (did you mean {guess!r}?)" if (guess := selector.suggestion(s)) else s
            for s in dict.fromkeys(selectors)
            if s in unknown
        ]
        if named:
            parts.append(f"{label}: unknown rule selector(s): {', '.join(named)}")
    if not parts:
        return None
    return ("; ".join(parts) + " (a selector is a rule id, a rule name, an id prefix such as "
            "PTX1, or ALL; see `ptxlint rules`)")
