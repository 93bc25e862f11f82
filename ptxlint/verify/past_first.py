"""Verification past the first error: an error that stops the compiler hides the ones behind it.

When the front end (nvcc) confirms an error finding that has a fix (PTX004's 64-bit pointer with
``"r"``), nothing after it in the file is ever assembled: the blog pipeline's ``cp.async.cg``
copy of 4 bytes is only rejected by ptxas once the constraint is right. So every such fix is
applied to a scratch copy of the file (never to the user's file), the copy is compiled whole
(nvcc -ptx, then ptxas) and each error of that compile is given to the finding that predicted
it (confirmed, "after applying the fix of PTX004") or, when no rule predicted it, reported as a
``toolchain-error`` finding.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ptxlint.engine import extract_statements
from ptxlint.fix import apply_edits
from ptxlint.model import AsmStatement, Finding, Severity, SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.verify import whole_file
from ptxlint.verify.configuration import in_default_build
from ptxlint.verify.flags import from_database
from ptxlint.verify.identity import (
    TOOLCHAIN_ERROR,
    StatementKey,
    key_of,
    probe_arch,
    ptxas_target,
    tool_id,
)
from ptxlint.verify.recipes import CU, WHOLE_FILE, recipe_for
from ptxlint.verify.runner import Compile, parallel_map, run
from ptxlint.verify.toolchain import Toolchain
from ptxlint.verify.verdict import CONFIRMED, Verdict

__all__ = ["past_first_error"]


def _stops_compiler(finding: Finding, verdict: Verdict | None) -> bool:
    return (
        verdict is not None
        and verdict.status == CONFIRMED
        and verdict.method in (CU, WHOLE_FILE)
        and verdict.tool.startswith("nvcc")
        and finding.severity is Severity.ERROR
        and finding.fix is not None
        and bool(finding.fix.edits)
    )


def _statements(path: str, text: str) -> list[AsmStatement]:
    try:
        found = extract_statements(SourceFile(path, text)).statements
    except Exception:  # the first pass already reported it
        return []
    return [s for s in found if in_default_build(s)]


class Verifying(Protocol):
    """What this pass reads of the run's ``verifier.Verifier``."""

    @property
    def result(self) -> RunResult: ...
    @property
    def options(self) -> Any: ...  # VerifyOptions: use_cache, jobs, arch, build_dir, cuda_flags
    @property
    def toolchain(self) -> Toolchain: ...
    @property
    def sources(self) -> Mapping[str, SourceFile]: ...
    @property
    def statements(self) -> Mapping[str, list[AsmStatement]]: ...
    @property
    def deadline(self) -> float | None: ...


def past_first_error(verifier: Verifying, confirmed: set[StatementKey]) -> list[Finding]:
    """Compile every file whose confirmed front-end errors have fixes once more with those
    fixes applied; confirm the findings its errors prove and return ``toolchain-error``
    findings for the errors no rule predicted."""
    v = verifier
    result = v.result
    options = v.options
    toolchain = v.toolchain
    if toolchain.nvcc is None or toolchain.host_compiler is None:
        return []
    stoppers: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        if _stops_compiler(finding, result.verifications.get(id(finding))):
            stoppers[finding.path].append(finding)
    jobs: list[tuple[str, str, str, Compile, list[Finding]]] = []
    for path, findings in stoppers.items():
        source = v.sources.get(path)
        if source is None or findings[0].statement is None:
            continue
        fixed, applied = apply_edits(source.text, [f.fix for f in findings if f.fix])
        if not applied:
            continue
        arch = probe_arch(findings[0].statement, options.arch_for(findings[0].statement),
                          toolchain.archs)
        ptxas = toolchain.ptxas
        flags = (*from_database(options.build_dir, path), *options.cuda_flags)
        job = whole_file.compile_job(toolchain.nvcc.path, ptxas.path if ptxas else None,
                                     ptxas_target(arch, toolchain), path, fixed, arch, flags)
        jobs.append((path, fixed, arch, job, findings))
    if not jobs:
        return []
    tool = tool_id(toolchain, "nvcc") + "+" + tool_id(toolchain, "ptxas")
    deadline = v.deadline
    outcomes = parallel_map(lambda j: run(j[3], tool, options.use_cache, deadline=deadline), jobs,
                            options.jobs)
    added: list[Finding] = []
    for (path, fixed, arch, _job, findings), outcome in zip(jobs, outcomes, strict=True):
        if outcome is None:
            continue  # the --verify-timeout passed first
        originals: Sequence[AsmStatement] = v.statements.get(path, [])
        scratch = _statements(path, fixed)
        if len(scratch) != len(originals):
            continue  # the fixes changed the statement list: cannot map back
        to_original = {key_of(s): o for s, o in zip(scratch, originals, strict=True)}
        report = whole_file.read(outcome, path, scratch)
        if report.failure or any(not e.statements for e in report.errors):
            continue  # it fails on something else (a header, a define): its words prove nothing
        rules = ", ".join(sorted({f.rule for f in findings}))
        applied_ids = {id(f) for f in findings}
        fixed_keys = {key_of(f.statement) for f in findings if f.statement is not None}
        for error in report.errors:
            statements = [to_original[key_of(s)] for s in error.statements
                          if key_of(s) in to_original]
            if not statements:
                continue
            statement = statements[0]
            message = error.diagnostic.message
            if key_of(statement) in fixed_keys and any(
                recipe_for(f.rule, f).agrees is not None
                and recipe_for(f.rule, f).agrees.search(message)  # type: ignore[union-attr]
                for f in findings
            ):
                continue  # the fix did not remove the first error
            label = toolchain.label(error.diagnostic.tool)
            evidence = f"{error.diagnostic.tool}: {message} (whole file, after applying the fix "
            evidence += f"of {rules})"
            explained = False
            for finding in result.findings:
                if finding.statement is None or key_of(finding.statement) != key_of(statement):
                    continue
                recipe = recipe_for(finding.rule, finding)
                if recipe.agrees is None or not recipe.agrees.search(message):
                    continue
                explained = True
                current = result.verifications.get(id(finding))
                if current is None or current.status != CONFIRMED:
                    result.verifications[id(finding)] = Verdict(
                        CONFIRMED, label, arch, evidence, WHOLE_FILE)
                    confirmed.add(key_of(statement))
            # a statement with an error finding whose fix was not applied already has its
            # report: nvcc's next complaint about it is no new defect
            if explained or any(
                (f.rule == TOOLCHAIN_ERROR
                 or (f.severity is Severity.ERROR and id(f) not in applied_ids))
                and f.statement is not None and key_of(f.statement) == key_of(statement)
                for f in result.findings + added
            ):
                continue
            result.sources.setdefault(path, statement.source)
            span = statement.span
            text = (f"{label} rejects this asm compiling {path} for {arch} once the fix of "
                    f"{rules} is applied: {message} (not predicted by any ptxlint rule)")
            finding = Finding(TOOLCHAIN_ERROR, TOOLCHAIN_ERROR, Severity.ERROR, path, span, text,
                              statement=statement)
            result.verifications[id(finding)] = Verdict(CONFIRMED, label, arch, evidence,
                                                        WHOLE_FILE)
            added.append(finding)
    return added

