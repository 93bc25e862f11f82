"""The commands that print ptxlint's reference: ``rules`` (one line per rule), ``rule`` (one
rule's documentation, or --all) and ``config`` (the settings, or one of them)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxlint.cli.exits import EXIT_OK, UsageError

if TYPE_CHECKING:
    from ptxlint.rule import Rule


def cmd_rules() -> int:
    from ptxlint.registry import describe_entry_points, load_rules

    loaded = load_rules()
    if not loaded.rules:
        raise UsageError(f"no rules loaded (looked at entry points: {describe_entry_points()})")
    # a preview rule says so where its severity is, so a listing read by eye shows the tier
    rows = [
        (r.id, r.name, r.severity.value + (" (preview)" if r.preview else ""), r.summary)
        for r in loaded.rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)] if rows else [0, 0, 0]
    for row in rows:
        print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")
    return EXIT_OK


def cmd_rule(key: str | None, show_all: bool = False, output_format: str = "text") -> int:
    from ptxlint.registry import find_rule, load_rules

    loaded = load_rules()
    if show_all == (key is not None):
        raise UsageError("give one rule id or name, or --all")
    if show_all:
        chosen = list(loaded.rules)
    else:
        rule = find_rule(loaded.rules, key or "")
        if rule is None:
            from ptxlint.retired import find_retired

            retired = find_retired(key or "")
            if retired is not None:
                from ptxlint.report import rule_docs_format

                if output_format == "json":
                    import json

                    sys.stdout.write(json.dumps([rule_docs_format.retired_dict(retired)],
                                                indent=2, ensure_ascii=False) + "\n")
                else:
                    sys.stdout.write(rule_docs_format.retired_text(retired))
                return EXIT_OK
            raise UsageError(f"no rule {key!r}{_nearest(loaded.rules, key or '')} "
                             "(see `ptxlint rules`)")
        chosen = [rule]
    if output_format == "json":
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_json(chosen))
    else:
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_text(chosen))
    return EXIT_OK


def _nearest(rules: Sequence[type[Rule]], key: str) -> str:
    """What a key that names no rule was likely meant as: the rules a prefix selects, or the
    closest id or name (the selector's own guess, as for --select)."""
    from ptxlint.config import Config, RuleSelector, selector_specificity

    prefixed = [r.id for r in rules if selector_specificity(key.upper(), r.id, r.name)]
    if prefixed and key.upper() not in {r.id for r in rules}:
        shown = ", ".join(prefixed[:6]) + (", ..." if len(prefixed) > 6 else "")
        return f": a prefix of {len(prefixed)} rules ({shown}); name one"
    guess = RuleSelector(Config(), [(r.id, r.name) for r in rules]).suggestion(key)
    return f" (did you mean {guess!r}?)" if guess else ""


def cmd_config(key: str | None, output_format: str = "text") -> int:
    from ptxlint import config_docs
    from ptxlint.config import SETTINGS

    try:
        chosen = [config_docs.find(key)] if key is not None else list(SETTINGS)
    except config_docs.UnknownSetting as exc:
        raise UsageError(str(exc)) from exc
    if output_format == "json":
        sys.stdout.write(config_docs.render_json(chosen))
    elif key is None:
        sys.stdout.write(config_docs.listing())
    else:
        sys.stdout.write(config_docs.text(chosen[0]))
    return EXIT_OK
