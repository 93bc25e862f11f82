"""Errors the toolchain gives that no rule predicted: reported as ``toolchain-error`` findings
when a compile of the whole file, in the statement's configuration, gives them; an error only a
statement's PTX probe shows is a probe failure (a note), never a finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.verify import ptx_probe, whole_file
from ptxlint.verify.diagnostics import Diagnostic
from ptxlint.verify.identity import TOOLCHAIN_ERROR, StatementKey, key_of, probe_arch
from ptxlint.verify.plan import ptx_job_key
from ptxlint.verify.probe_errors import (
    ABOUT_ASM,
    ARCH_ERROR,
    ISOLATION,
    blocked,
    ptx_errors,
    quote,
)
from ptxlint.verify.recipes import WHOLE_FILE
from ptxlint.verify.runner import NotRun
from ptxlint.verify.verdict import CONFIRMED, Verdict

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier

__all__ = ["unpredicted"]


def unpredicted(verifier: Verifier, confirmed: set[StatementKey]) -> list[tuple[Finding, Verdict]]:
    """toolchain-error findings: errors no rule predicted that a compile of the whole file,
    in the statement's configuration, gives. An error only a PTX probe shows is checked that
    way first (a probe is an approximation of the code: register classes from constraint
    letters, the statement alone); one the file's compile does not give is a probe failure,
    a note, never a finding."""
    out: list[tuple[Finding, Verdict]] = []
    predicted = {key_of(f.statement) for f in verifier.result.findings
                 if f.statement is not None and f.severity is Severity.ERROR}
    candidates = _probe_only_errors(verifier, confirmed | predicted)
    for statement, arch, _ in candidates:
        verifier.plan_whole_file(statement.source.path, arch, verifier.defines(statement))
    verifier.execute()
    seen: set[StatementKey] = set()
    out = _whole_file_errors(verifier, confirmed | predicted, seen)
    for statement, arch, diagnostic in candidates:
        if key_of(statement) in seen:
            continue
        report = _report_or_none(verifier, statement.source.path, arch, verifier.defines(statement))
        if report is None:
            why = "the file could not be compiled"
        elif blocked(report):
            why = "the file does not compile for another reason"
        elif report.compiled and not report.matcher.present(statement):
            if ARCH_ERROR.search(diagnostic.message):
                continue  # code for another target, absent from this one's: as it should be
            why = "the statement is not in the file's PTX for this target"
        elif not report.compiled:
            why = (f"the file's compile stops before it, at {report.errors[0].where} "
                   f"({report.errors[0].diagnostic.message})" if report.errors
                   else "the file's compile stops before it")
        else:
            why = "the file's compile does not give it"
        verifier.probe_failures.append(
            (statement.source.path, statement.line,
             f"{verifier.toolchain.label('ptxas')} rejects this asm probed alone for {arch} "
             f"({diagnostic.message}), but {why}: not reported"))
    return out

def _report_or_none(verifier: Verifier, path: str, arch: str,
                    defines: tuple[str, ...]) -> whole_file.Report | None:
    try:
        report = verifier.report(path, arch, defines)
    except NotRun:
        return None
    return None if isinstance(report, str) else report

def _probe_only_errors(verifier: Verifier, explained: set[StatementKey]
                       ) -> list[tuple[AsmStatement, str, Diagnostic]]:
    """(statement, arch, ptxas's error) for statements no finding explains whose PTX probe,
    built from the file's own values, ptxas rejects."""
    out: list[tuple[AsmStatement, str, Diagnostic]] = []
    seen: set[StatementKey] = set()
    for statements in verifier.statements.values():
        for statement in statements:
            key = key_of(statement)
            if key in seen or key in explained:
                continue
            arch = probe_arch(statement, verifier.options.arch_for(statement),
                              verifier.toolchain.archs)
            planned = verifier.plan.ptx.get((key, arch))
            if not isinstance(planned, tuple) or not planned[0].exact:
                continue  # a stand-in value: its errors may be the stand-in's
            config = verifier.configuration(statement)
            if (config.arch is None or verifier.unbuildable(config.arch)
                    or verifier.older_than_guards(statement)):  # no build holds it
                continue
            for variant in planned:
                error = _probe_error(verifier, variant.probe, arch, key)
                if error is not None:
                    seen.add(key)
                    out.append((statement, arch, error))
                    break
    return out

def _probe_error(verifier: Verifier, probe: ptx_probe.PtxProbe, arch: str,
                 key: StatementKey) -> Diagnostic | None:
    outcome = verifier.outcomes.get(ptx_job_key(probe, arch, verifier.toolchain))
    if outcome is None:
        return None  # not run before the deadline
    for mapped in ptx_errors(probe, outcome):
        if key_of(mapped.statement) != key or ISOLATION.search(mapped.diagnostic.message):
            continue
        if ARCH_ERROR.search(mapped.diagnostic.message) and not verifier.options.explicit_arch:
            continue  # no target given: the code may be meant for a newer one
        return mapped.diagnostic
    return None

def _whole_file_errors(verifier: Verifier, explained: set[StatementKey], seen: set[StatementKey]
                       ) -> list[tuple[Finding, Verdict]]:
    out: list[tuple[Finding, Verdict]] = []
    for (path, arch, defines) in verifier.plan.whole:
        report = _report_or_none(verifier, path, arch, defines)
        if report is None or blocked(report):
            continue  # missing headers or flags: its errors on asm lines may be theirs
        for error in report.errors:
            # of the #if branches of one statement, only the one these defines select
            candidates = [s for s in error.statements
                          if not s.context.branch or verifier.defines(s) == defines]
            if not candidates or any(
                    key_of(s) in seen | explained for s in error.statements):
                continue
            if ISOLATION.search(error.diagnostic.message):
                continue
            if error.diagnostic.tool == "nvcc" and not ABOUT_ASM.search(
                    error.diagnostic.message):
                # "expected an expression" on an asm line: a macro from a header the
                # compile did not see (NV_IF_TARGET), not the asm
                continue
            if ARCH_ERROR.search(error.diagnostic.message) and not verifier.options.explicit_arch:
                continue
            statement = candidates[0]
            seen.add(key_of(statement))
            verifier.result.sources.setdefault(statement.source.path, statement.source)
            label = verifier.toolchain.label(error.diagnostic.tool)
            message = (f"{label} rejects this asm compiling {path} for {arch}: "
                       f"{error.diagnostic.message} (not predicted by any ptxlint rule)")
            finding = Finding(TOOLCHAIN_ERROR, TOOLCHAIN_ERROR, Severity.ERROR, path,
                              error.span or statement.span, message, statement=statement)
            out.append((finding, Verdict(CONFIRMED, label, arch,
                                         quote(error.diagnostic) + " (whole file)",
                                         WHOLE_FILE)))
    return out
