"""JSON for sarif-om objects.

sarif-om ships attrs classes and no serializer. ``jschema-to-python``'s ``to_json`` drops every
field equal to its attrs default, and sarif-om's default ``level`` is ``"warning"``: a warning
result under a rule whose default level is ``error`` would lose its level and so *become* an
error. This serializer drops only ``None`` and the "not set" sentinels (``-1`` indexes, the
default ``language``...), and always writes the fields whose default changes meaning.
"""

from __future__ import annotations

from typing import Any

import attr

# Fields written even when they equal their attrs default: their absence means something else
# to a SARIF consumer (a result's level falls back to the rule's defaultConfiguration.level).
ALWAYS_WRITTEN = frozenset({"level", "kind"})


def _default(field: Any) -> Any:
    default = field.default
    factory = getattr(default, "factory", None)
    if callable(factory) and hasattr(default, "takes_self"):  # an attr.Factory
        return factory()
    return default


def to_jsonable(obj: Any) -> Any:
    """Plain JSON data (dicts, lists, strings, numbers) for a sarif-om object tree.

    Property names come from the attrs metadata ``schema_property_name``. Dicts (property bags
    with arbitrary keys, ``originalUriBaseIds``) and lists are converted element by element.
    """
    if attr.has(type(obj)):
        out: dict[str, Any] = {}
        for field in attr.fields(type(obj)):
            value = getattr(obj, field.name)
            if value is None:
                continue
            if field.name not in ALWAYS_WRITTEN and value == _default(field):
                continue
            name = field.metadata.get("schema_property_name", field.name)
            out[name] = to_jsonable(value)
        return out
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj
