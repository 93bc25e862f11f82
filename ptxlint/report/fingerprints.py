"""Fingerprints that follow a finding when unrelated lines move it up or down.

A finding is identified by its rule, its file, the whitespace-collapsed text of its asm
statement and its position inside that text, never by a line number. Identical statements in
one file (the same macro expanded twice, a copy-pasted block) are told apart by an occurrence
index in file order, the way CodeQL's ``primaryLocationLineHash`` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from ptxlint.model import Finding

KEY = "ptxlintFindingHash/v1"  # the partialFingerprints key; bump the suffix if the recipe changes


def normalize(text: str) -> str:
    return " ".join(text.split())


def _statement_text_and_offset(finding: Finding, source_text: str | None) -> tuple[str, int]:
    """The normalized text the finding sits in and its offset there."""
    statement = finding.statement
    if statement is not None:
        text = statement.source.text
        begin, end = statement.span.start, statement.span.end
    elif source_text is not None:
        # No statement (a file-level finding): fall back to the finding's own lines.
        text = source_text
        begin = text.rfind("\n", 0, finding.span.start) + 1
        newline = text.find("\n", finding.span.end)
        end = len(text) if newline == -1 else newline
    else:
        return "", 0
    raw = text[begin:end]
    # Offset in the collapsed text, so re-indenting the statement does not move it.
    prefix = text[begin : max(begin, min(finding.span.start, end))]
    return normalize(raw), len(normalize(prefix))


def fingerprints(
    findings: Sequence[Finding],
    path_key: Callable[[str], str],
    source_text: Callable[[str], str | None],
) -> list[str]:
    """One fingerprint per finding, in the order given.

    ``path_key`` maps a finding's path to the name that goes into the hash (the SARIF URI, so
    the value does not depend on where the repository is checked out).
    """
    order = sorted(
        range(len(findings)),
        key=lambda i: (findings[i].path, findings[i].span.start, findings[i].span.end,
                       findings[i].rule, i),
    )
    seen: dict[str, int] = {}
    out = [""] * len(findings)
    for i in order:
        finding = findings[i]
        text, offset = _statement_text_and_offset(finding, source_text(finding.path))
        identity = "\0".join((finding.rule, path_key(finding.path), text, str(offset)))
        digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        occurrence = seen.get(digest, 0)
        seen[digest] = occurrence + 1
        out[i] = f"{digest}:{occurrence + 1}"
    return out
