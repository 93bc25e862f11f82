"""What a run produced, in the shape every formatter reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ptxlint.model import Finding, SourceFile

if TYPE_CHECKING:
    from ptxlint.verify.verdict import Verdict


# Kept a data class, though nothing compares or prints one (``runner._Job``'s note): its 30
# fields, read by every formatter and by library callers, would each be spelled three times in a
# plain class, for 0.9 ms of CPU at start.
@dataclass
class RunResult:
    """Everything one run produced: the findings, the files they are in and the counts, notes and
    errors that the formatters and the exit code read."""

    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)  # path -> file, for snippets
    files: int = 0
    files_with_asm: int = 0
    statements: int = 0
    skipped_statements: int = 0  # found, not linted: host assembly or not surely PTX
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, reason)
    asm_labels: int = 0  # `int f(void) asm("name")`: not statements, counted apart
    expansion_statements: int = 0  # of statements, those read from a macro invocation
    branch_variants: int = 0  # of statements, extra readings of those with #if inside
    expanded_macros: set[str] = field(default_factory=set)  # "realpath:line" of #defines
    # asm macros with parameters defined in a linted file: (key, path, line, "LOAD(T, SPACE)")
    unexpanded_macros: list[tuple[str, str, int, str]] = field(default_factory=list)
    # invocations of asm macros that were not expanded: (path, line, reason)
    skipped_invocations: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: float = 0.0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason): exit code 2
    notes: list[tuple[str, str]] = field(default_factory=list)  # (path, reason): skipped files
    # (path, message) about files that *were* linted (bytes replaced, not fixed), and run-wide
    # notes with path "" (Tier-2 fallbacks): never worded as "skipped"
    file_notes: list[tuple[str, str]] = field(default_factory=list)
    operands: int = 0
    typed_operands: int = 0
    typed_tier2: int = 0  # of typed_operands, those libclang typed
    # Python sources: PTX-carrying calls found (linted or not), and of the linted ones those
    # whose template has an opaque piece (a value Python does not make knowable)
    python_calls: int = 0
    python_opaque: int = 0
    root: str = "."  # the folder paths are relative to (SARIF's %SRCROOT%)
    fixed: int = 0  # findings fixes resolved (or, with --diff, would resolve)
    fixed_rules: dict[str, dict[str, int]] = field(default_factory=dict)  # path -> rule -> n
    diffs: list[str] = field(default_factory=list)
    # --verify: the toolchain's verdict per finding, keyed by id(finding) (Finding is frozen
    # and findings may compare equal, so identity is the key); empty when not verifying
    verifications: dict[int, Verdict] = field(default_factory=dict)
    verify_seconds: float | None = None  # --verify: the verification's own time
    verify_probes: int | None = None  # --verify with progress: compiles planned
    # --verify: errors a probe showed that no compile of the file reproduced, (path, line,
    # what): never findings; --verbose notes and the summary's count
    verify_probe_failures: list[tuple[str, int, str]] = field(default_factory=list)

    def verdict(self, finding: Finding) -> Verdict | None:
        return self.verifications.get(id(finding))

    @property
    def opaque_macros(self) -> list[tuple[str, int, str]]:
        """Macros whose asm no invocation in the run expanded: (path, line, macro), once."""
        seen: set[str] = set()
        out = []
        for key, path, line, macro in self.unexpanded_macros:
            if key in self.expanded_macros or key in seen:
                continue
            seen.add(key)
            out.append((path, line, macro))
        return out

    @property
    def internal_errors(self) -> int:
        return sum(1 for f in self.findings if f.rule == "internal-error")
