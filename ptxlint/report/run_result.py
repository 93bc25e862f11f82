"""What a run produced, in the shape every formatter reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.model import Finding, SourceFile

if TYPE_CHECKING:
    from ptxlint.verify.verdict import Verdict


# A plain class, not a data class: a data class costs about 0.3 ms of CPU at every start (its
# methods are compiled at import), and nothing compares, hashes or prints one.
class RunResult:
    """Everything one run produced: the findings, the files they are in and the counts, notes and
    errors that the formatters and the exit code read."""

    __slots__ = (
        "findings", "sources", "files", "files_with_asm", "statements", "skipped_statements",
        "skipped", "asm_labels", "expansion_statements", "branch_variants", "expanded_macros",
        "unexpanded_macros", "skipped_invocations", "seconds", "errors", "notes", "file_notes",
        "operands", "typed_operands", "typed_tier2", "python_calls", "python_opaque", "root",
        "fixed", "fixed_rules", "diffs", "verifications", "verify_seconds", "verify_probes",
        "verify_probe_failures",
    )

    def __init__(
        self, findings: list[Finding] | None = None, sources: dict[str, SourceFile] | None = None,
        files: int = 0, files_with_asm: int = 0, statements: int = 0, skipped_statements: int = 0,
        skipped: list[tuple[str, int, str]] | None = None, asm_labels: int = 0,
        expansion_statements: int = 0, branch_variants: int = 0,
        expanded_macros: set[str] | None = None,
        unexpanded_macros: list[tuple[str, str, int, str]] | None = None,
        skipped_invocations: list[tuple[str, int, str]] | None = None, seconds: float = 0.0,
        errors: list[tuple[str, str]] | None = None, notes: list[tuple[str, str]] | None = None,
        file_notes: list[tuple[str, str]] | None = None, operands: int = 0,
        typed_operands: int = 0, typed_tier2: int = 0, python_calls: int = 0,
        python_opaque: int = 0, root: str = ".", fixed: int = 0,
        fixed_rules: dict[str, dict[str, int]] | None = None, diffs: list[str] | None = None,
        verifications: dict[int, Verdict] | None = None, verify_seconds: float | None = None,
        verify_probes: int | None = None,
        verify_probe_failures: list[tuple[str, int, str]] | None = None,
    ) -> None:
        self.findings: list[Finding] = [] if findings is None else findings
        # path -> file, for snippets
        self.sources: dict[str, SourceFile] = {} if sources is None else sources
        self.files = files
        self.files_with_asm = files_with_asm
        self.statements = statements
        # found, not linted: host assembly or not surely PTX
        self.skipped_statements = skipped_statements
        # (path, line, reason)
        self.skipped: list[tuple[str, int, str]] = [] if skipped is None else skipped
        self.asm_labels = asm_labels  # `int f(void) asm("name")`: not statements, counted apart
        # of statements, those read from a macro invocation
        self.expansion_statements = expansion_statements
        # of statements, extra readings of those with #if inside
        self.branch_variants = branch_variants
        # "realpath:line" of #defines
        self.expanded_macros: set[str] = set() if expanded_macros is None else expanded_macros
        # asm macros with parameters defined in a linted file: (key, path, line, "LOAD(T, SPACE)")
        self.unexpanded_macros: list[tuple[str, str, int, str]] = (
            [] if unexpanded_macros is None else unexpanded_macros)
        # invocations of asm macros that were not expanded: (path, line, reason)
        self.skipped_invocations: list[tuple[str, int, str]] = (
            [] if skipped_invocations is None else skipped_invocations)
        self.seconds = seconds
        # (path, reason): exit code 2
        self.errors: list[tuple[str, str]] = [] if errors is None else errors
        # (path, reason): skipped files
        self.notes: list[tuple[str, str]] = [] if notes is None else notes
        # (path, message) about files that *were* linted (bytes replaced, not fixed), and run-wide
        # notes with path "" (Tier-2 fallbacks): never worded as "skipped"
        self.file_notes: list[tuple[str, str]] = [] if file_notes is None else file_notes
        self.operands = operands
        self.typed_operands = typed_operands
        self.typed_tier2 = typed_tier2  # of typed_operands, those libclang typed
        # Python sources: PTX-carrying calls found (linted or not), and of the linted ones those
        # whose template has an opaque piece (a value Python does not make knowable)
        self.python_calls = python_calls
        self.python_opaque = python_opaque
        self.root = root  # the folder paths are relative to (SARIF's %SRCROOT%)
        self.fixed = fixed  # findings fixes resolved (or, with --diff, would resolve)
        # path -> rule -> n
        self.fixed_rules: dict[str, dict[str, int]] = {} if fixed_rules is None else fixed_rules
        self.diffs: list[str] = [] if diffs is None else diffs
        # --verify: the toolchain's verdict per finding, keyed by id(finding) (Finding is frozen
        # and findings may compare equal, so identity is the key); empty when not verifying
        self.verifications: dict[int, Verdict] = {} if verifications is None else verifications
        self.verify_seconds = verify_seconds  # --verify: the verification's own time
        self.verify_probes = verify_probes  # --verify with progress: compiles planned
        # --verify: errors a probe showed that no compile of the file reproduced, (path, line,
        # what): never findings; --verbose notes and the summary's count
        self.verify_probe_failures: list[tuple[str, int, str]] = (
            [] if verify_probe_failures is None else verify_probe_failures)

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
