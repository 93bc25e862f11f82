"""``--format sarif``: one SARIF 2.1.0 run for GitHub code scanning and other SARIF viewers.

Built from sarif-om objects and written by our own serializer (see sarif_serialize.py). What
GitHub reads is filled in on purpose: every rule that ran with its descriptions, help and
default level; results with their real level, a 1-based region relative to ``%SRCROOT%`` and a
``partialFingerprints`` entry that survives unrelated edits above the statement. Unreadable
files and internal errors are tool execution notifications, not results.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import sarif_om as om

from ptxlint import __version__
from ptxlint.model import Finding, Severity, SourceFile, Span
from ptxlint.project import REPOSITORY_URL, is_builtin, rule_help_uri
from ptxlint.report import fingerprints
from ptxlint.report.json_format import expansion_dict
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.sarif_serialize import to_jsonable
from ptxlint.report.verdict_note import verification_summary
from ptxlint.rule import Rule
from ptxlint.value_class import value_class

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
INTERNAL_ERROR = "internal-error"
MAX_RESULTS = 25_000  # GitHub code scanning rejects runs with more results than this
MAX_TAGS = 10  # GitHub shows at most 10 tags per rule and rejects more than 20

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# GitHub's problem.severity vocabulary. No security-severity: these are correctness defects,
# and a security-severity would file them under security alerts with CVSS-like ratings.
PROBLEM_SEVERITY = {Severity.ERROR: "error", Severity.WARNING: "warning",
                    Severity.INFO: "recommendation"}


# --------------------------------------------------------------------------- locations


@value_class(slots=False)
class Locator:
    """Turns finding paths into SARIF artifact locations relative to the scanned root."""

    root: str  # absolute

    def artifact(self, path: str) -> om.ArtifactLocation:
        absolute = os.path.abspath(path)
        try:
            relative = os.path.relpath(absolute, self.root)
        except ValueError:  # another drive on Windows
            relative = os.pardir
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return om.ArtifactLocation(uri=Path(absolute).as_uri())
        # bytes: a name that is not UTF-8 is percent-encoded byte for byte, as file URIs are
        uri = quote(os.fsencode(Path(relative).as_posix()))
        return om.ArtifactLocation(uri=uri, uri_base_id=SRCROOT)

    def key(self, path: str) -> str:
        return str(self.artifact(path).uri)

    def root_uri(self) -> str:
        return Path(self.root).as_uri().rstrip("/") + "/"


def region(source: SourceFile | None, span: Span, snippet: bool = True) -> om.Region:
    r = to_range(source, span)
    text = source.text[span.start : span.end] if source is not None and snippet else None
    return om.Region(
        start_line=r.line,
        start_column=r.column,
        end_line=r.end_line,
        end_column=r.end_column,
        snippet=om.ArtifactContent(text=text) if text else None,
    )


def location(result: RunResult, locator: Locator, path: str, span: Span | None) -> om.Location:
    source = result.sources.get(path)
    return om.Location(
        physical_location=om.PhysicalLocation(
            artifact_location=locator.artifact(path),
            region=region(source, span) if span is not None and source is not None else None,
        )
    )


# --------------------------------------------------------------------------- rules


def _section(docs: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\s*\n(.*?)(?=^## |\Z)", docs, re.M | re.S)
    return match.group(1).strip() if match else ""


def _first_paragraph(text: str) -> str:
    return " ".join(text.split("\n\n", 1)[0].split())


def _information_uri() -> str:
    """The project's repository: a page every SARIF viewer can open, whatever is installed."""
    return REPOSITORY_URL


def descriptor(rule: type[Rule]) -> om.ReportingDescriptor:
    what = _section(rule.docs, "What it does")
    full = _first_paragraph(what) or rule.summary
    return om.ReportingDescriptor(
        id=rule.id,
        name=rule.name,
        # the rule's page in the repository's docs (docs/rules/ID.md), never a local file
        help_uri=rule_help_uri(rule.id) if is_builtin(rule) else None,
        short_description=om.MultiformatMessageString(text=rule.summary),
        full_description=om.MultiformatMessageString(text=full, markdown=what or None),
        help=om.MultiformatMessageString(
            text=f"{rule.id} {rule.name}: {rule.summary}\n\n{rule.docs.strip()}",
            markdown=f"# {rule.id} {rule.name}\n\n{rule.docs.strip()}",
        ),
        default_configuration=om.ReportingConfiguration(level=LEVELS[rule.severity]),
        properties={
            # the rule's own tags first: they survive GitHub's cut
            "tags": list(dict.fromkeys((*rule.tags, "ptxlint", "cuda", "inline-ptx")))[:MAX_TAGS],
            "precision": rule.precision,
            "problem.severity": PROBLEM_SEVERITY[rule.severity],
        },
    )


def _ad_hoc_descriptor(finding: Finding) -> om.ReportingDescriptor:
    """A rule that reported without being in the list handed to ``render`` (a plugin that
    registered under another id): still a valid, self-describing entry."""
    return om.ReportingDescriptor(
        id=finding.rule,
        name=finding.name,
        short_description=om.MultiformatMessageString(text=finding.name),
        full_description=om.MultiformatMessageString(text=finding.name),
        help=om.MultiformatMessageString(text=f"{finding.rule} {finding.name}"),
        default_configuration=om.ReportingConfiguration(level=LEVELS[finding.severity]),
        properties={"tags": ["ptxlint"], "precision": "medium",
                    "problem.severity": PROBLEM_SEVERITY[finding.severity]},
    )


# --------------------------------------------------------------------------- results


def keep_most_severe(findings: Sequence[Finding], limit: int) -> list[Finding]:
    """At most ``limit`` findings: the most severe first, ties in report order; the kept ones
    stay in report order."""
    if len(findings) <= limit:
        return list(findings)
    ranked = sorted(range(len(findings)), key=lambda i: (-findings[i].severity.rank, i))
    kept = sorted(ranked[:limit])
    return [findings[i] for i in kept]


def fix(finding: Finding, result: RunResult, locator: Locator) -> om.Fix | None:
    if finding.fix is None:
        return None
    source = result.sources.get(finding.path)
    replacements = [
        om.Replacement(
            deleted_region=region(source, edit.span, snippet=False),
            inserted_content=om.ArtifactContent(text=edit.new_text),
        )
        for edit in finding.fix.edits
    ]
    if not replacements:
        return None
    applicability = "safe" if finding.fix.safe else "unsafe"
    description = finding.fix.description + ("" if finding.fix.safe else " (unsafe: review it)")
    properties = {"applicability": applicability}
    if finding.fix.refused is not None:  # as the JSON's ``refused``: absent otherwise
        description += f" (not applied by --fix: {finding.fix.refused})"
        properties["refused"] = finding.fix.refused
    return om.Fix(
        description=om.Message(text=description),
        artifact_changes=[
            om.ArtifactChange(artifact_location=locator.artifact(finding.path),
                              replacements=replacements)
        ],
        properties=properties,
    )


def sarif_result(
    finding: Finding, result: RunResult, locator: Locator, rule_index: int, fingerprint: str
) -> om.Result:
    fixed = fix(finding, result, locator)
    verdict = result.verdict(finding)
    properties: dict[str, object] = {}
    if verdict is not None:
        properties["verification"] = verdict.as_dict()
    related = None
    text = finding.message
    if finding.branch:
        properties["branch"] = list(finding.branch)
    if finding.latent:  # no build of the file compiles the statement (ptxlint.analysis.latent)
        properties["latent"] = True
        properties["latentReason"] = finding.latent
    if finding.expansion is not None:
        properties["expansion"] = expansion_dict(finding, result)
        text += f" ({finding.expansion})"
        if finding.spelled_at is not None:
            spelled = location(result, locator, finding.path, finding.spelled_at)
            spelled.id = 0
            macro = finding.expansion.macro
            spelled.message = om.Message(text=f"spelled here, in the body of {macro}")
            related = [spelled]
    return om.Result(
        rule_id=finding.rule,
        rule_index=rule_index,
        kind="fail",
        level=LEVELS[finding.severity],
        message=om.Message(text=text),
        locations=[location(result, locator, finding.path, finding.span)],
        related_locations=related,
        partial_fingerprints={fingerprints.KEY: fingerprint},
        fixes=[fixed] if fixed is not None else None,
        # --verify: the toolchain's verdict, and the macro expansion a finding is in, in the
        # property bag SARIF keeps for tool data
        properties=properties or None,
    )


# --------------------------------------------------------------------------- notifications


def notification(
    level: str, kind: str, text: str, where: om.Location | None = None
) -> om.Notification:
    return om.Notification(
        level=level,
        message=om.Message(text=text),
        descriptor=om.ReportingDescriptorReference(id=kind),
        locations=[where] if where is not None else None,
    )


# --------------------------------------------------------------------------- the log


def build(
    result: RunResult,
    rules: Sequence[type[Rule]],
    max_results: int = MAX_RESULTS,
    category: str | None = None,
) -> om.SarifLog:
    locator = Locator(os.path.abspath(result.root))
    descriptors = [descriptor(r) for r in rules]
    index = {r.id: i for i, r in enumerate(rules)}

    reported = [f for f in result.findings if f.rule != INTERNAL_ERROR]
    internal = [f for f in result.findings if f.rule == INTERNAL_ERROR]
    kept = keep_most_severe(reported, max_results)

    for finding in kept:
        if finding.rule not in index:
            index[finding.rule] = len(descriptors)
            descriptors.append(_ad_hoc_descriptor(finding))

    def source_text(path: str) -> str | None:
        source = result.sources.get(path)
        return source.text if source is not None else None

    prints = fingerprints.fingerprints(kept, locator.key, source_text)
    results = [
        sarif_result(f, result, locator, index[f.rule], fp)
        for f, fp in zip(kept, prints, strict=True)
    ]

    notes: list[om.Notification] = []
    for path, reason in result.errors:
        notes.append(notification("error", "unreadable-file", f"{path}: {reason}",
                                  location(result, locator, path, None)))
    for finding in internal:
        span = finding.span if finding.statement is not None else None
        notes.append(notification("error", INTERNAL_ERROR, finding.message,
                                  location(result, locator, finding.path, span)))
    for path, reason in result.notes:
        notes.append(notification("note", "skipped-file", f"{path}: skipped: {reason}",
                                  location(result, locator, path, None)))
    for path, message in result.file_notes:
        notes.append(notification("note", "file-note", f"{path}: {message}" if path else message,
                                  location(result, locator, path, None) if path else None))
    for path, line, message in result.verify_probe_failures:
        notes.append(notification("note", "verify-probe-failure", f"{path}:{line}: {message}",
                                  location(result, locator, path, None)))
    dropped = len(reported) - len(kept)
    if dropped:
        notes.append(notification(
            "warning", "results-truncated",
            f"{dropped} of {len(reported)} results were left out: GitHub code scanning accepts "
            f"at most {max_results} results per run; the most severe ones were kept. "
            "Narrow the run with --select or paths to see the rest.",
        ))

    verification = verification_summary(result)
    invocation = om.Invocation(
        execution_successful=not result.errors and not internal,
        tool_execution_notifications=notes or None,
        working_directory=om.ArtifactLocation(uri=locator.root_uri()),
    )
    driver = om.ToolComponent(
        name="ptxlint",
        version=__version__,
        semantic_version=__version__,
        information_uri=_information_uri(),
        rules=descriptors,
    )
    run = om.Run(
        tool=om.Tool(driver=driver),
        invocations=[invocation],
        original_uri_base_ids={SRCROOT: om.ArtifactLocation(uri=locator.root_uri())},
        column_kind="unicodeCodePoints",  # our columns count characters, not UTF-16 units
        results=results,
        automation_details=_automation_details(category),
        properties={
            "files": result.files,
            "statements": result.statements,
            "skippedStatements": result.skipped_statements,
            **({"verification": verification} if verification is not None else {}),
        },
    )
    return om.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])


def _automation_details(category: str | None) -> om.RunAutomationDetails | None:
    """``--sarif-category``: GitHub reads the category from ``automationDetails.id`` (the part
    before its last '/'), so that several ptxlint runs of one commit stay apart."""
    if not category:
        return None
    return om.RunAutomationDetails(id=category if "/" in category else f"{category}/")


def render(
    result: RunResult,
    rules: Sequence[type[Rule]],
    max_results: int = MAX_RESULTS,
    category: str | None = None,
) -> str:
    """The SARIF log for ``result``; ``rules`` are the rules that ran (selected and enabled)."""
    document = to_jsonable(build(result, rules, max_results, category))
    # "$schema" and "version" first, as every SARIF producer writes them.
    ordered = {"$schema": document.pop("$schema"), "version": document.pop("version"), **document}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
