"""Built-in rules whose modules load on first use.

A run reads a rule's metadata long before, and far more often than, it calls the rule: rule
selection, the configuration's checks, ``ptxlint rules``, the result cache's key and the
engine's plan (``needs``, ``pure``) read only the class attributes. Importing every rule module
to read them cost a small file's ``ptxlint check`` the import of all 59, of which a small
``.cu`` file calls 15 or 16 (not the Python-DSL and protocol rules, nor any rule whose ``needs``
it does not meet), with the analysis modules only the others import. Loaded on first use, a
small ``.cu`` file's check (2-core machine, best of 10, three rounds) ends with 256 modules
imported instead of 312 and takes 122-134 ms of CPU instead of 139-147 ms (``python -c pass``:
17-18.5 ms); the language server's first lint of it (imports, ``Linter()``, the lint) 92-99 ms
instead of 105-109 ms. Linting a whole tree costs the same (CUDA 13 headers, ``-j 1`` and
``-j 2``, within the machine's noise).

So the built-in rules are listed in a manifest (``ptxlint_rules.manifest``, generated from the
classes by ``scripts/gen_rule_manifest.py``; tests/test_rule_manifest.py fails while it is
stale), and ``ptxlint_rules.BUILTIN_RULES`` holds one *stand-in* class per entry: a ``Rule``
subclass with the entry's attributes, its real class's ``__module__`` and ``__qualname__``.
What the manifest does not hold is the real class's, imported when first asked for:

* ``StandIn.docs`` (or any other class attribute the entry lacks) imports the module;
* an instance (``engine.instantiate`` makes them) makes one instance of the real class the
  first time its ``check``, or any attribute the entry lacks, is read, and answers from it from
  then on: ``check`` is that instance's bound method, kept on the stand-in, so a call costs
  what a real rule's does.

The stand-in keeps its own class for life: the engine keys the pure rules' memo on each rule's
class and its class's ``check`` (ptxlint.rule_memo), and a key that changed when a rule loaded
would lose every outcome stored before. ``StandIn.check`` is the same object before and after
the load, unless the real class's ``check`` is not the one its class body defines (a test
patched it): then it is that function, so that outcomes of the genuine one are not replayed.

The real class is held to its entry when it loads: a difference (a rule's ``needs`` edited, the
manifest not regenerated) raises ``StaleManifest`` rather than run the rule with needs it no
longer declares.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from typing import Any, ClassVar, cast

from ptxlint.model import Severity
from ptxlint.rule import Rule

# The class attributes the manifest holds, in the order of an entry's fields after the module
# and class names.
FIELDS = ("id", "name", "severity", "summary", "tags", "precision", "scope", "needs", "pure",
          "preview")

Entry = tuple[Any, ...]  # (module, class name, *FIELDS); severity as its value


class StaleManifest(RuntimeError):
    """A rule class that no longer says what its manifest entry says."""


class _LoadedOnRead:
    """``check`` of a stand-in. On an instance: the real instance's bound ``check``, kept in
    the stand-in's ``__dict__`` (which this non-data descriptor yields to from then on). On the
    class: this object, or the real class's ``check`` where a test replaced it (see above);
    reading it never imports."""

    def __get__(self, instance: object, owner: type) -> Any:
        if instance is None:
            patched = owner._patched_check()  # type: ignore[attr-defined]
            return self if patched is None else patched
        bound = instance._real_rule().check  # type: ignore[attr-defined]
        instance.__dict__["check"] = bound
        return bound


class _StandInType(type):
    def __getattr__(cls, attr: str) -> Any:
        # only for what the class does not hold: the entry's fields are in its namespace
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # pickle, copy and inspect probe these: no import
        return getattr(cls._real(), attr)


class StandIn(Rule, metaclass=_StandInType):
    """The base of the stand-in classes (``stand_in`` makes one per manifest entry)."""

    _home: ClassVar[Entry]
    _loaded: ClassVar[type[Rule] | None] = None

    check = _LoadedOnRead()

    @classmethod
    def _real(cls) -> type[Rule]:
        """The real class, its module imported on the first call and held to the entry."""
        real = cls._loaded
        if real is None:
            found: Any = importlib.import_module(cls.__module__)
            for part in cls.__qualname__.split("."):
                found = getattr(found, part, None)
            if not (isinstance(found, type) and issubclass(found, Rule)):
                raise StaleManifest(
                    f"{cls.__module__} has no rule class {cls.__qualname__}; regenerate the "
                    "rule manifest: python scripts/gen_rule_manifest.py"
                )
            _hold_to_entry(found, cls._home)
            real = cls._loaded = found
        return real

    @classmethod
    def _patched_check(cls) -> Any:
        """The real class's ``check`` where it is not the one a class body of its defines (a
        test replaced it), else None; None too while its module is not imported."""
        if "_home" not in cls.__dict__ or (
            cls._loaded is None and cls.__module__ not in sys.modules
        ):
            return None
        real = cls._real()
        check = real.check
        owner = next((k for k in real.__mro__ if "check" in vars(k)), Rule)
        genuine = vars(owner).get("check")
        if check is genuine and getattr(genuine, "__qualname__", None) == (
            f"{owner.__qualname__}.check"
        ) and getattr(genuine, "__module__", None) == owner.__module__:
            return None
        return check

    def _real_rule(self) -> Rule:
        """The real class's instance this stand-in answers from, made on the first call."""
        made = self.__dict__.get("_rule")
        if made is None:
            made = self.__dict__["_rule"] = type(self)._real()()
        return cast(Rule, made)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(self._real_rule(), attr)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # pickled and copied as the real instance: the stand-in class is not its module's
        rule = self._real_rule()
        return (type(rule), (), rule.__dict__ or None)


def entry_of(rule: type[Rule]) -> Entry:
    """A rule class's manifest entry."""
    values = [getattr(rule, f) for f in FIELDS]
    values[FIELDS.index("severity")] = rule.severity.value
    module = rule.__module__.rsplit(".", 1)[-1]
    return (module, rule.__qualname__, *values)


def _hold_to_entry(real: type[Rule], entry: Entry) -> None:
    found = entry_of(real)
    if found[1:] != entry[1:]:
        differ = [
            f"{field}: manifest {said!r}, class {has!r}"
            for field, said, has in zip(("class", *FIELDS), entry[1:], found[1:], strict=True)
            if said != has
        ]
        raise StaleManifest(
            f"{real.__module__}: the rule manifest no longer matches the class "
            f"({'; '.join(differ)}); regenerate it: python scripts/gen_rule_manifest.py"
        )


def stand_in(package: str, entry: Entry) -> type[Rule]:
    """The stand-in class of one manifest entry, for a rule of ``package``."""
    module, qualname, *values = entry
    namespace: dict[str, Any] = dict(zip(FIELDS, values, strict=True))
    namespace["severity"] = Severity(namespace["severity"])
    namespace.update(__module__=f"{package}.{module}", __qualname__=qualname, _home=entry)
    return cast("type[Rule]", _StandInType(qualname, (StandIn,), namespace))


def is_stand_in(rule: type) -> bool:
    """Whether ``rule`` is a stand-in class (whose real class may have loaded since)."""
    return isinstance(rule, _StandInType)


def render_manifest(rules: Iterable[type[Rule]]) -> str:
    """The text of ``ptxlint_rules.manifest`` for the real rule classes ``rules``."""
    lines = [
        '"""The built-in rules\' metadata, read without importing them (ptxlint.lazy_rule).',
        "",
        "Generated from the rule classes by scripts/gen_rule_manifest.py: do not edit.",
        "tests/test_rule_manifest.py fails while it differs from them.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        f"# (module, class, {', '.join(FIELDS)})",
        "RULES = (",
    ]
    for rule in sorted(rules, key=lambda r: r.id):
        lines.append(f"    {entry_of(rule)!r},")
    lines.append(")")
    return "\n".join(lines) + "\n"
