"""A verdict: what the toolchain said about one finding."""

from __future__ import annotations

from dataclasses import dataclass

CONFIRMED, REFUTED, UNVERIFIABLE = "confirmed", "refuted", "unverifiable"
STATUSES = (CONFIRMED, REFUTED, UNVERIFIABLE)


@dataclass(frozen=True)
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
