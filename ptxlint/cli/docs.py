"""The commands that print ptxlint's reference: ``rules`` (one line per rule), ``rule`` (one
rule's documentation, or --all) and ``config`` (the settings, or one of them)."""

from __future__ import annotations

import sys

from ptxlint.cli.exits import EXIT_OK, UsageError


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
            raise UsageError(f"no rule {key!r} (see `ptxlint rules`)")
        chosen = [rule]
    if output_format == "json":
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_json(chosen))
    else:
        from ptxlint.report import rule_docs_format

        sys.stdout.write(rule_docs_format.render_text(chosen))
    return EXIT_OK


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
