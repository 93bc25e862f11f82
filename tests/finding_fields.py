"""Findings compared field by field, for tests that lint one text two ways (whole tree against
a tree with functions left out) and expect the same findings."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ptxlint.engine import instantiate
from ptxlint.model import Finding
from ptxlint.registry import load_rules
from ptxlint.rule import Rule


def default_rules() -> list[Rule]:
    """Every rule a default run has (the preview ones left out)."""
    return instantiate([r for r in load_rules().rules if not r.preview])


def finding_fields(findings: Iterable[Finding]) -> list[object]:
    """Each finding's fields, its objects' lazily kept caches (names starting with ``_``)
    left out."""
    return [_public(dataclasses.asdict(f)) for f in findings]


def _public(value: object) -> object:
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, (list, tuple)):
        return [_public(v) for v in value]
    return value
