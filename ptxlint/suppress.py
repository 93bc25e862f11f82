"""Inline suppressions and the check that keeps them honest (PTX901).

Grammar: ``// ptxlint: ignore[PTX101, missing-volatile]``, ``// ptxlint: ignore`` (every rule),
``// ptxlint: ignore-file[PTX102]`` and ``// ptxlint: ignore-file`` (the whole file), and a range,
clang-tidy's NOLINTBEGIN/NOLINTEND: ``// ptxlint: ignore-begin[PTX201]`` ... ``// ptxlint:
ignore-end[PTX201]`` (or a bare ``ignore-end``); ``/* */`` comments work too (inside a ``#define``
body), and ``# ptxlint: ignore[PTX505]`` in Python.

Decisions:

* A directive that ends a line of code (a *trailing* comment) applies to the asm statement that
  line belongs to, and only to it: not to the statement on the next line. A directive alone on
  its line applies to the next line that is not itself a directive, i.e. to the statement that
  starts (or continues) there. A finding is suppressed when that line lies within its statement
  (first to last line), or, for a finding without a statement, is its line.
* Codes are exact rule ids or names. A prefix (``PTX1``) or an unknown code never suppresses
  anything, so it is reported rather than silently ignored; so is a code of a rule that ran on
  the file and found nothing there, and a bare ``ignore`` that suppressed nothing. Codes of rules
  that did not run (deselected, per-file-ignored) are not judged: their use cannot be known.
* The report is PTX901 (``unused-suppression``, like ruff's RUF100) with a safe fix that deletes
  the offending codes, or the whole comment when nothing is left of it.
* A directive inside a string literal is not one (an odd number of ``"`` before it on its line).
* A range covers the findings that start on the lines from its ``ignore-begin`` to its
  ``ignore-end``, both included. An ``ignore-end[CODES]`` closes the innermost open
  ``ignore-begin`` with the same codes (in any order); a bare ``ignore-end`` closes the innermost
  open one whatever its codes. Ranges nest. A begin that nothing closes, or an end that closes
  nothing, suppresses nothing and is reported by PTX901 (clang-tidy reports an unmatched
  NOLINTBEGIN the same way), without a fix: only the author knows where the range should end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import Edit, Finding, Fix, Severity, SourceFile, Span

if TYPE_CHECKING:
    from ptxlint.suppress_directives import Code, Directive, Region

SUPPRESSION_RULE = "PTX901"
SUPPRESSION_NAME = "unused-suppression"
DIRECTIVE = on_first_use(
    r"(?://|/\*|#)\s*ptxlint:\s*(?P<kind>ignore-begin|ignore-end|ignore-file|ignore)\b"
    r"(?:\[(?P<codes>[^\]\n]*)\])?",
    re.I,
)
_NOT_RULES = frozenset({"internal-error", "toolchain-error"})


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Suppressions:
    """The directives of one file, which findings they cover, and which of them did work."""

    __slots__ = ("directives", "by_target", "file_level", "regions", "unmatched")

    def __init__(self) -> None:
        self.directives: list[Directive] = []
        self.by_target: dict[int, list[Directive]] = {}
        self.file_level: list[Directive] = []
        self.regions: list[Region] = []
        self.unmatched: list[Directive] = []  # begins or ends without a partner

    def __bool__(self) -> bool:
        return bool(self.directives)

    def suppresses(self, finding: Finding, source: SourceFile) -> bool:
        """Whether a directive covers ``finding``; marks the directives and codes that do."""
        if not self.directives:
            return False
        hit = False
        for directive in self.covering(finding, source):
            if directive.codes is None:
                directive.used = hit = True
                continue
            for code in directive.codes:
                if code.text in (finding.rule, finding.name):
                    code.used = directive.used = hit = True
        return hit

    def covering(self, finding: Finding, source: SourceFile) -> Iterator[Directive]:
        yield from self.file_level
        if finding.statement is not None:
            first = finding.statement.line
            last = source.line_col(finding.statement.span.end).line
        else:
            first = last = source.line_col(finding.span.start).line
        if last - first < len(self.by_target):
            for line in range(first, last + 1):
                yield from self.by_target.get(line, ())
        else:
            for line, directives in self.by_target.items():
                if first <= line <= last:
                    yield from directives
        if self.regions:
            line = source.line_col(finding.span.start).line
            for region in self.regions:
                if region.first <= line <= region.last:
                    yield region.begin


def parse(source: SourceFile) -> Suppressions:
    table = Suppressions()
    text = source.text
    if "ptxlint" not in text:
        return table
    from ptxlint.suppress_directives import Region

    for match in DIRECTIVE().finditer(text):
        directive = _directive(source, match)
        if directive is not None:
            table.directives.append(directive)
    directive_only_lines = {d.line for d in table.directives if not d.trailing}
    opened: list[Directive] = []
    for directive in table.directives:
        if directive.kind == "ignore-begin":
            opened.append(directive)
            continue
        if directive.kind == "ignore-end":
            begin = _opener(opened, directive)
            if begin is None:
                table.unmatched.append(directive)
            else:
                opened.remove(begin)
                table.regions.append(Region(begin, directive))
            continue
        if directive.file_level:
            table.file_level.append(directive)
            continue
        target = directive.line
        if not directive.trailing:
            target += 1
            while target in directive_only_lines:
                target += 1
        directive.target = target
        table.by_target.setdefault(target, []).append(directive)
    table.unmatched.extend(opened)
    table.unmatched.sort(key=lambda d: d.span.start)
    return table


def _code_set(directive: Directive) -> frozenset[str] | None:
    return None if directive.codes is None else frozenset(c.text for c in directive.codes)


def _opener(opened: list[Directive], end: Directive) -> Directive | None:
    """The innermost open ``ignore-begin`` that ``end`` closes, or None."""
    if not opened:
        return None
    if end.codes is None:
        return opened[-1]
    wanted = _code_set(end)
    return next((b for b in reversed(opened) if _code_set(b) == wanted), None)


def _directive(source: SourceFile, match: re.Match[str]) -> Directive | None:
    from ptxlint.suppress_directives import Code, Directive

    text = source.text
    where = source.line_col(match.start())
    line_start = source.line_starts[where.line - 1]
    before = text[line_start : match.start()]
    if before.count('"') - before.count('\\"') & 1:
        return None  # inside a string literal
    line_end = text.find("\n", match.end())
    line_end = len(text) if line_end == -1 else line_end
    after = text[match.end() : line_end].rstrip("\r")
    trailing = bool(before.strip())
    comment_end = match.end()
    block = match.group(0).startswith("/*")
    if block:
        close = text.find("*/", match.end())
        if close != -1 and not text[match.end() : close].strip():
            comment_end = close + 2
    elif not after.strip():
        comment_end = match.end() + len(after)
    whole_comment = comment_end != match.end() or (not block and not after.strip())
    if whole_comment and not trailing and not after[comment_end - match.end() :].strip():
        # Alone on its line: deleting it deletes the line.
        start, end = line_start, min(line_end + 1, len(text))
    elif whole_comment:
        start = match.start() - (len(before) - len(before.rstrip()))
        end = comment_end
    else:
        # Other words share the comment (a reason, a note): keep the comment and them.
        start, end = match.start() + match.group(0).lower().index("ptxlint"), match.end()
        end += len(after) - len(after.lstrip(" \t")) if after.strip() else 0
    codes: list[Code] | None = None
    codes_span = None
    if match.group("codes") is not None:
        codes = []
        base = match.start("codes")
        codes_span = Span(base, match.end("codes"))
        for piece in re.finditer(r"[^,\s]+", match.group("codes")):
            codes.append(Code(piece.group(0), Span(base + piece.start(), base + piece.end())))
    kind = match.group("kind").lower()
    return Directive(
        line=where.line,
        file_level=kind == "ignore-file",
        kind=kind,
        trailing=trailing,
        span=Span(match.start(), match.end()),
        comment_span=Span(start, end),
        codes=codes,
        codes_span=codes_span,
    )


# --------------------------------------------------------------------------- PTX901


@lru_cache(maxsize=1)
def _registered() -> tuple[frozenset[str], tuple[str, ...]]:
    from ptxlint.registry import load_rules
    from ptxlint.retired import retired_codes

    rules = load_rules().rules
    # a retired rule's codes stay valid: they never run, so they are never judged unused
    names = frozenset({r.id for r in rules} | {r.name for r in rules} | _NOT_RULES
                      | retired_codes())
    return names, tuple(r.id for r in rules)


def known_codes() -> frozenset[str]:
    return _registered()[0]


def _judge(code: str, active: frozenset[str]) -> str | None:
    """Why ``code`` is reported, or None when it is fine (or cannot be judged)."""
    known, ids = _registered()
    if code in known:
        if code in active and code not in _NOT_RULES:
            return f"unused suppression: no {code} finding here to suppress"
        return None
    if any(rule_id.startswith(code) for rule_id in ids) and code[:1].isalpha():
        return (
            f"'{code}' is a prefix: a suppression needs a full rule id or name, so it "
            "suppresses nothing"
        )
    import difflib  # only for a suppression that names no rule

    cased = [c for c in (code.upper(), code.lower()) if c in known and c not in _NOT_RULES]
    guess = cased or difflib.get_close_matches(code, sorted(known - _NOT_RULES), n=1, cutoff=0.75)
    hint = (
        f" (did you mean '{guess[0]}'? codes are case-sensitive)"
        if cased
        else (f" (did you mean '{guess[0]}'?)" if guess else "")
    )
    return f"unknown rule code '{code}' in a suppression: it suppresses nothing{hint}"


def check(
    table: Suppressions, source: SourceFile, active: Iterable[str], severity: Severity
) -> list[Finding]:
    """PTX901 findings for ``table`` once every finding of the file has been offered to it.

    ``active`` holds the ids and names of the rules that ran on this file.
    """
    findings: list[Finding] = []
    active_codes = frozenset(active)
    unmatched = {id(d) for d in table.unmatched}
    ends = {id(region.begin): region.end for region in table.regions}
    for directive in table.directives:
        what = directive.kind
        if id(directive) in unmatched:
            findings.append(_finding(source, directive.span, severity, _unmatched(directive)))
            continue
        if directive.kind == "ignore-end":
            continue  # judged with its ignore-begin
        end = ends.get(id(directive))
        if directive.codes is None:
            if not directive.used:
                findings.append(
                    _finding(
                        source,
                        directive.span,
                        severity,
                        f"unused suppression: this '{what}' suppresses no finding",
                        _delete(directive, None, end),
                    )
                )
            continue
        judged = [(c, _judge(c.text, active_codes)) for c in directive.codes if not c.used]
        bad = [(code, why) for code, why in judged if why is not None]
        for code, why in bad:
            findings.append(
                _finding(source, code.span, severity, why,
                         _delete(directive, [c for c, _ in bad], end))
            )
    return findings


def _unmatched(directive: Directive) -> str:
    codes = f"[{', '.join(c.text for c in directive.codes)}]" if directive.codes else ""
    if directive.kind == "ignore-begin":
        return (
            f"unmatched suppression: 'ignore-begin{codes}' has no 'ignore-end' after it, so it "
            "suppresses nothing"
        )
    return (
        f"unmatched suppression: 'ignore-end{codes}' closes no open 'ignore-begin'"
        + (" with the same codes" if codes else "")
    )


def _finding(
    source: SourceFile, span: Span, severity: Severity, message: str, fix: Fix | None = None
) -> Finding:
    return Finding(
        rule=SUPPRESSION_RULE,
        name=SUPPRESSION_NAME,
        severity=severity,
        path=source.path,
        span=span,
        message=message,
        fix=fix,
    )


def _delete(directive: Directive, codes: list[Code] | None, end: Directive | None = None) -> Fix:
    """Remove ``codes`` from the directive, or the whole directive when none would be left; for
    an ``ignore-begin``, its ``ignore-end`` goes (or loses the codes) with it, so that the pair
    stays matched."""
    assert directive.codes is not None or codes is None
    keep = [c.text for c in directive.codes or () if codes is not None and c not in codes]
    if not keep or directive.codes_span is None:
        edits = [Edit(directive.comment_span, "")]
        if end is not None:
            edits.append(Edit(end.comment_span, ""))
        noun = "comments" if end is not None else "comment"
        return Fix(f"Remove the suppression {noun}", tuple(edits), safe=True)
    edits = [Edit(directive.codes_span, ", ".join(keep))]
    if end is not None and end.codes_span is not None:
        edits.append(Edit(end.codes_span, ", ".join(keep)))
    return Fix(
        f"Remove {', '.join(c.text for c in codes or ())} from the suppression",
        tuple(edits),
        safe=True,
    )


def __getattr__(name: str) -> object:
    """``Code``, ``Directive`` and ``Region``, from ptxlint.suppress_directives on first use."""
    if name in ("Code", "Directive", "Region"):
        from ptxlint import suppress_directives

        return getattr(suppress_directives, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
