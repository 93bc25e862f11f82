"""``ptxlint rule --all --output-format json`` (and ``ptxlint rule ID --output-format json``):
the rule catalogue as data, for editors, documentation sites and CI dashboards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ptxlint.project import is_builtin, rule_help_uri
from ptxlint.rule import Rule

if TYPE_CHECKING:
    from ptxlint.retired import RetiredRule


def rule_dict(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.id,
        "name": rule.name,
        "summary": rule.summary,
        "default_severity": rule.severity.value,
        "tags": list(rule.tags),
        "precision": rule.precision,
        "url": rule_help_uri(rule.id) if is_builtin(rule) else None,
        "explanation": rule.docs.strip(),
        "plugin": not is_builtin(rule),
        "preview": bool(getattr(rule, "preview", False)),
    }


def render_json(rules: Sequence[type[Rule]]) -> str:
    return json.dumps([rule_dict(r) for r in rules], indent=2, ensure_ascii=False) + "\n"


def render_text(rules: Sequence[type[Rule]]) -> str:
    parts = [
        f"# {r.id} {r.name}\n\nDefault severity: {r.severity.value}\n\n"
        f"{tier_line(r)}{r.docs.rstrip()}\n"
        for r in rules
    ]
    return "\n".join(parts)


PREVIEW_NOTE = (
    "This rule is in preview: it runs only with `--preview` (or `preview = true` in the "
    "configuration) while its precision on public code is reviewed."
)


def tier_line(rule: type[Rule]) -> str:
    """The paragraph that marks a preview rule (empty for a stable one), with its blank line."""
    return f"{PREVIEW_NOTE}\n\n" if getattr(rule, "preview", False) else ""


def retired_dict(rule: RetiredRule) -> dict[str, Any]:
    """A retired rule as ``rule_dict``'s keys (no severity: it never runs) and ``retired``."""
    return {
        "code": rule.id,
        "name": rule.name,
        "summary": rule.reason,
        "default_severity": None,
        "tags": [],
        "precision": None,
        "url": rule_help_uri(rule.id),
        "explanation": rule.docs.strip(),
        "plugin": False,
        "preview": False,
        "retired": {"version": rule.version, "reason": rule.reason,
                    "replaced_by": rule.replaced_by},
    }


def retired_text(rule: RetiredRule) -> str:
    """``ptxlint rule ID`` of a retired rule, and the body of its documentation page."""
    from ptxlint.retired import notice

    return (f"# {rule.id} {rule.name} (retired)\n\n{notice(rule)}.\n\n"
            "It no longer runs. Its id and name stay reserved: selecting it is a warning, and "
            "ignoring it or naming it in a suppression comment is valid and does nothing.\n\n"
            f"{rule.docs.rstrip()}\n")
