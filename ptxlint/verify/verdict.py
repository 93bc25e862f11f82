"""A verdict: what the toolchain said about one finding."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace

from ptxlint.model import Finding
from ptxlint.value_class import value_class

CONFIRMED, REFUTED, UNVERIFIABLE = "confirmed", "refuted", "unverifiable"
STATUSES = (CONFIRMED, REFUTED, UNVERIFIABLE)
# how a verdict begins where the toolchain's error on the statement is not the finding's
ANOTHER_REASON = "the toolchain rejects the statement for another reason: "


@value_class(slots=False)
class Verdict:
    """What the toolchain said about one finding: confirmed, refuted or unverifiable, and its
    evidence."""

    status: str  # confirmed | refuted | unverifiable
    tool: str  # "ptxas 13.0.88", "nvcc 13.0.88", "" when nothing ran
    arch: str  # "sm_90"
    evidence: str  # the compiler's own words, or why nothing could be said
    method: str = ""  # "ptx-probe" | "cu-probe" | "whole-file" | "differential" | ""

    def as_dict(self) -> dict[str, str]:
        out = {"status": self.status, "tool": self.tool, "arch": self.arch,
               "evidence": self.evidence}
        if self.method:
            out["method"] = self.method
        return out


def unverifiable(why: str, arch: str = "", tool: str = "", method: str = "") -> Verdict:
    return Verdict(UNVERIFIABLE, tool, arch, why, method)


def naming_the_other_finding(verdict: Verdict, confirmed: Iterable[tuple[str, Verdict]]
                             ) -> Verdict:
    """``verdict``, where the toolchain's error that keeps it unverifiable (``ANOTHER_REASON``,
    or a probe that does not compile) is the one another finding of the same statement has
    confirmed (``confirmed``: each such finding's rule and verdict), saying which:
    TransformerEngine's ``cvt.rs.satfinite.e4m3x4.f32`` with a 64-bit operand, whose PTX401
    ptxas cannot judge past the operand mismatch PTX206 reports, is then known to need that
    fix first."""
    if verdict.status != UNVERIFIABLE:
        return verdict
    for rule, other in confirmed:
        # the other finding's evidence is the toolchain's words, quoted in this one
        words = _toolchain_words(other.evidence)
        if words and words in verdict.evidence:
            return replace(verdict, evidence=f"{verdict.evidence}: the error {rule} reports "
                                             "on this statement, which comes first")
    return verdict


def _toolchain_words(evidence: str) -> str:
    """The tool's message a confirmed verdict quotes (``ptxas: ...``), without what ptxlint
    says after it (the values probed, "(whole file)"); "" for evidence of another kind."""
    if not evidence.startswith(("ptxas: ", "nvcc: ")):
        return ""
    for said_after in (" (whole file)", " (the same with ", " with "):
        at = evidence.find(said_after)
        if at > 0:
            evidence = evidence[:at]
    return evidence


def name_the_other_findings(findings: Iterable[Finding], verifications: dict[int, Verdict],
                            statement_of: Callable[[Finding], Hashable | None]) -> None:
    """Each verdict (``verifications``, by the finding's id) that the toolchain's error on its
    statement keeps unverifiable says which other finding of that statement (``statement_of``:
    its identity, None for none) the error confirmed: ``naming_the_other_finding``."""
    findings = list(findings)
    confirmed: dict[Hashable, list[tuple[str, Verdict]]] = {}
    for finding in findings:
        verdict = verifications.get(id(finding))
        key = statement_of(finding)
        if verdict is not None and verdict.status == CONFIRMED and key is not None:
            confirmed.setdefault(key, []).append((finding.rule, verdict))
    for finding in findings:
        verdict = verifications.get(id(finding))
        key = statement_of(finding)
        if verdict is not None and key in confirmed:
            verifications[id(finding)] = naming_the_other_finding(verdict, confirmed[key])
