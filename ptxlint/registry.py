"""Rule plugins, loaded through the ``ptxlint.rules`` entry-point group.

The built-in rules come through the same door as a third-party rule pack: an entry point that
names a rule class or a sequence of rule classes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata

from ptxlint.rule import Rule, validate_rule_class

ENTRY_POINT_GROUP = "ptxlint.rules"


class RegistryError(Exception):
    pass


@dataclass(frozen=True)
class LoadedRules:
    rules: tuple[type[Rule], ...]
    problems: tuple[str, ...]  # plugins that failed to load: reported, never fatal


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
    import sys
    from pathlib import Path

    if "ptxlint_rules" in sys.modules:
        return getattr(sys.modules["ptxlint_rules"], "BUILTIN_RULES", None)
    folder = Path(__file__).resolve().parent.parent / "rules"
    init = folder / "__init__.py"
    if not init.is_file():
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
    eps = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    if not eps:
        return f"no entry points in group {ENTRY_POINT_GROUP!r}"
    return ", ".join(f"{ep.name} = {ep.value}" for ep in eps)


def load_rules() -> LoadedRules:
    classes: list[type[Rule]] = []
    problems: list[str] = []
    entry_points = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    if not any(ep.name == "builtin" for ep in entry_points):
        # Running from a source tree that was never installed: the built-ins are still there.
        builtin = _builtin_from_source_tree()
        if builtin is not None:
            classes.extend(_as_rule_classes(builtin))
    for ep in entry_points:
        try:
            loaded = _as_rule_classes(ep.load())
        except Exception as exc:  # a broken plugin must not take the run down
            problems.append(f"rule plugin {ep.name!r} ({ep.value}) failed to load: {exc}")
            continue
        if not loaded:
            problems.append(f"rule plugin {ep.name!r} ({ep.value}) provides no Rule classes")
        classes.extend(loaded)
    seen: dict[str, type[Rule]] = {}
    unique: list[type[Rule]] = []
    for cls in classes:
        issues = validate_rule_class(cls)
        if issues:
            problems.extend(issues)
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


def find_rule(rules: Iterable[type[Rule]], key: str) -> type[Rule] | None:
    key_upper = key.upper()
    for cls in rules:
        if cls.id == key_upper or cls.name == key.lower():
            return cls
    return None
