"""Rule plugins, loaded through the ``ptxlint.rules`` entry-point group.

The built-in rules come through the same door as a third-party rule pack: an entry point that
names a rule class or a sequence of rule classes.

The group is read afresh at every run, straight from the distributions' metadata folders on
``sys.path`` (``ptxlint.entry_point_files``: about 1 ms for 100 distributions, the same as
checking a stored index against them): a plugin installed, removed or edited between two runs
is seen by the second. ``importlib.metadata`` reads it where that module says it must.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable

from ptxlint.entry_point_files import read_group
from ptxlint.lazy_rule import is_stand_in
from ptxlint.retired import find_retired
from ptxlint.rule import Rule, validate_rule_class

ENTRY_POINT_GROUP = "ptxlint.rules"


class RegistryError(Exception):
    pass


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class LoadedRules:
    """The rule classes the ``ptxlint.rules`` entry points provide, and the plugins that failed to
    load."""

    __slots__ = ("rules", "problems")

    def __init__(self, rules: tuple[type[Rule], ...], problems: tuple[str, ...]) -> None:
        self.rules = rules
        self.problems = problems  # plugins that failed to load: reported, never fatal


def _as_rule_classes(obj: object) -> list[type[Rule]]:
    if isinstance(obj, type) and issubclass(obj, Rule):
        return [obj]
    if isinstance(obj, Iterable):
        found: list[type[Rule]] = []
        for item in obj:
            found.extend(_as_rule_classes(item))
        return found
    return []


def _builtin_from_source_tree() -> object | None:
    """The repository's ``rules/`` folder imported as ``ptxlint_rules`` (never as ``rules``:
    that name belongs to other projects on PyPI)."""
    import importlib.util
    from pathlib import Path

    if "ptxlint_rules" in sys.modules:
        return getattr(sys.modules["ptxlint_rules"], "BUILTIN_RULES", None)
    folder = Path(__file__).resolve().parent.parent / "rules"
    init = folder / "__init__.py"
    # Only ptxlint's own source tree: installed, the parent is site-packages, whose `rules`
    # may well be django-rules.
    if not (init.is_file() and (folder.parent / "pyproject.toml").is_file()
            and any(folder.glob("ptx0*_*.py"))):
        return None
    spec = importlib.util.spec_from_file_location(
        "ptxlint_rules", init, submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ptxlint_rules"] = module
    spec.loader.exec_module(module)
    return getattr(module, "BUILTIN_RULES", None)


def describe_entry_points() -> str:
    """The entry points ptxlint looked at, for the 'no rules loaded' error."""
    eps = entry_points()
    if not eps:
        return f"no entry points in group {ENTRY_POINT_GROUP!r}"
    return ", ".join(f"{name} = {value}" for name, value in eps)


def entry_points() -> list[tuple[str, str]]:
    """``(name, value)`` of every entry point in the group, in ``importlib.metadata``'s order."""
    found = read_group(ENTRY_POINT_GROUP)
    if found is not None:
        return found
    from importlib import metadata  # a layout only it reads exactly

    return [(ep.name, ep.value) for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)]


_VALUE = re.compile(r"^\s*(?P<module>[\w.]+)\s*(?::\s*(?P<attr>[\w.]+))?\s*(?:\[.*\])?\s*$")


def _load(value: str) -> object:
    """What an entry point's ``module:attr`` names (as ``EntryPoint.load`` does)."""
    match = _VALUE.match(value)
    if match is None:
        raise ValueError(f"malformed entry point {value!r}")
    obj: object = importlib.import_module(match.group("module"))
    for name in (match.group("attr") or "").split("."):
        if name:
            obj = getattr(obj, name)
    return obj


def load_rules() -> LoadedRules:
    classes: list[type[Rule]] = []
    problems: list[str] = []
    found = entry_points()
    if not any(name == "builtin" for name, _ in found):
        # Running from a source tree that was never installed: the built-ins are still there.
        builtin = _builtin_from_source_tree()
        if builtin is not None:
            classes.extend(_as_rule_classes(builtin))
    for name, value in found:
        try:
            loaded = _as_rule_classes(_load(value))
        except Exception as exc:  # a broken plugin must not take the run down
            problems.append(f"rule plugin {name!r} ({value}) failed to load: {exc}")
            continue
        if not loaded:
            problems.append(f"rule plugin {name!r} ({value}) provides no Rule classes")
        classes.extend(loaded)
    seen: dict[str, type[Rule]] = {}
    unique: list[type[Rule]] = []
    for cls in classes:
        issues = validate_rule_class(cls, docs=not is_stand_in(cls))
        if issues:
            problems.extend(issues)
            continue
        reserved = find_retired(cls.id) or find_retired(cls.name)
        if reserved is not None:
            # a retired id or name keeps its old meaning in users' suppressions and configs
            problems.append(
                f"rule {cls.id} ({cls.name}) of {cls.__module__} takes the id or name of "
                f"retired rule {reserved.id} ({reserved.name}), which stay reserved; not loaded"
            )
            continue
        if cls.id in seen and seen[cls.id] is not cls:
            problems.append(
                f"rule id {cls.id} is registered twice; keeping {seen[cls.id].__module__}"
            )
            continue
        if cls.id not in seen:
            seen[cls.id] = cls
            unique.append(cls)
    unique.sort(key=lambda c: c.id)
    return LoadedRules(tuple(unique), tuple(problems))


def preview_ids(rules: Iterable[type[Rule]]) -> frozenset[str]:
    """The ids of the rules that declare themselves preview (run only under --preview)."""
    return frozenset(r.id for r in rules if getattr(r, "preview", False))


def find_rule(rules: Iterable[type[Rule]], key: str) -> type[Rule] | None:
    key_upper = key.upper()
    for cls in rules:
        if cls.id == key_upper or cls.name == key.lower():
            return cls
    return None
