"""One finding per defect: where two rules report the same span for the same cause, keep the
more specific one.

The pairs are explicit, so that a rule author sees which of their findings another rule may
replace and why; two findings of a listed pair on the same statement and the same source range
are the same defect seen from two sides. Applied after suppressions and severities, so that
suppressing or disabling the specific rule brings the general finding back.
"""

from __future__ import annotations

from collections.abc import Sequence

from ptxlint.model import Finding

__all__ = ["PRECEDENCE", "dedupe"]

# (kept, dropped, why the kept one is the more specific)
PRECEDENCE: tuple[tuple[str, str, str], ...] = (
    ("PTX106", "PTX104",
     "an '=' output the template reads and never writes: PTX106 names the read that gets an "
     "undefined value, PTX104's 'never written' is the same fact without the read"),
)
_DROPPED_BY: dict[str, frozenset[str]] = {}
for _kept, _dropped, _ in PRECEDENCE:
    _DROPPED_BY[_dropped] = _DROPPED_BY.get(_dropped, frozenset()) | {_kept}


def dedupe(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` without those a more specific finding on the same span replaces."""
    present: dict[tuple[int, int, int], set[str]] = {}
    for f in findings:
        present.setdefault(_key(f), set()).add(f.rule)
    return [
        f for f in findings
        if not (_DROPPED_BY.get(f.rule, frozenset()) & present.get(_key(f), set()))
    ]


def _key(finding: Finding) -> tuple[int, int, int]:
    statement = id(finding.statement) if finding.statement is not None else 0
    return (statement, finding.span.start, finding.span.end)
