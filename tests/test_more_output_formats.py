"""grouped, full, pylint and azure, each read back the way its consumer reads it.

* pylint: pylint's ``parseable`` template ``{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}``,
  Jenkins warnings-ng's PyLintParser regex, and the category letter Vim's and Emacs' error
  formats take from the msg_id.
* azure: a Python port of the Azure Pipelines agent's logging-command parser
  (azure-pipelines-agent's ``Command.TryParse`` and ``CommandStringConvertor.Unescape``): the
  properties and message it would see are exactly ours, whatever the path and message hold.
"""

from __future__ import annotations

import re

import pytest

from ptxlint.cli import main
from ptxlint.model import Edit, Finding, Fix, Severity, SourceFile, Span
from ptxlint.report import azure_format, full_format, grouped_format, pylint_format
from ptxlint.report.run_result import RunResult
from ptxlint.verify.verdict import Verdict

TEXT = (
    "__device__ unsigned f() {\n"
    "  unsigned start;\n"
    "  // read the clock\n"
    '  asm("mov.u32 %0, %clock;" : "=r"(start));\n'
    "  return start;\n"
    "}\n"
)
PATH = "k;er]nel%3B.cu"  # a name with every character Azure's grammar reserves


def _result(path: str = "k.cu", message: str = "'%clock' changes; the asm is not volatile",
            severity: Severity = Severity.WARNING) -> tuple[RunResult, Finding]:
    source = SourceFile(path, TEXT)
    start = TEXT.index("%clock")
    asm = TEXT.index("asm(")
    fix = Fix("Add 'volatile' after 'asm'", (Edit(Span(asm + 3, asm + 3), " volatile"),))
    finding = Finding("PTX101", "missing-volatile", severity, path,
                      Span(start, start + len("%clock")), message, fix=fix)
    other = Finding("PTX001", "operand-index-out-of-range", Severity.ERROR, path,
                    Span(start - 4, start - 2), "'%0' is fine here", fix=None)
    return RunResult(findings=[finding, other], sources={path: source}, files=1,
                     statements=1), finding


# --------------------------------------------------------------------------- pylint

PYLINT_TEMPLATE = "{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}"
WARNINGS_NG = re.compile(r"(.*):(\d+): \[(\D\d*).*\] (.*)")  # hudson PyLintParser
PARSEABLE = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): \[(?P<msg_id>[^(\]]+)\((?P<symbol>[^)]*)\), (?P<obj>[^\]]*)\]"
    r" (?P<msg>.*)$"
)


def test_pylint_lines_follow_pylints_parseable_template() -> None:
    result, finding = _result()
    lines = pylint_format.render(result).splitlines()
    assert len(lines) == 2
    fields = PARSEABLE.match(lines[0])
    assert fields is not None, lines[0]
    assert PYLINT_TEMPLATE.format(**fields.groupdict()) == lines[0]
    assert fields["path"] == "k.cu" and fields["line"] == "4"
    assert fields["msg_id"] == "W-PTX101" and fields["symbol"] == "missing-volatile"
    assert fields["obj"] == ""
    assert fields["msg"].startswith(finding.message)
    assert "(fix: Add 'volatile' after 'asm')" in fields["msg"]


@pytest.mark.parametrize("severity,letter", [(Severity.ERROR, "E"), (Severity.WARNING, "W"),
                                             (Severity.INFO, "I")])
def test_pylint_category_letter_reads_as_the_severity(severity: Severity, letter: str) -> None:
    result, _ = _result(severity=severity)
    line = pylint_format.render(result).splitlines()[0]
    match = WARNINGS_NG.match(line)
    assert match is not None and match[1] == "k.cu" and match[2] == "4"
    assert match[3] == letter  # warnings-ng's category: E/F high, W normal, others low
    assert re.match(r"^[^:]+:\d+: \[([EWI])", line)[1] == letter  # Vim's %t, Emacs


def test_pylint_message_stays_on_one_line_and_carries_the_verdict() -> None:
    result, finding = _result(message="two\nlines\r")
    result.verifications[id(finding)] = Verdict("confirmed", "ptxas 13.0", "sm_90", "deleted")
    lines = pylint_format.render(result).splitlines()
    assert len(lines) == 2
    assert "two lines" in lines[0]
    assert lines[0].endswith("(verify: confirmed by ptxas 13.0 for sm_90: deleted)")


# --------------------------------------------------------------------------- azure

_SPECIAL = ((";", "%3B"), ("\r", "%0D"), ("\n", "%0A"), ("]", "%5D"))


def _unescape(escaped: str, unescape_percents: bool = True) -> str:
    for token, replacement in _SPECIAL:  # the agent's order
        escaped = escaped.replace(replacement, token)
    return escaped.replace("%AZP25", "%") if unescape_percents else escaped


def agent_parse(line: str) -> tuple[str, dict[str, str], str] | None:
    """What the agent's Command.TryParse makes of one line: (area.event, properties, data)."""
    prefix = line.find("##vso[")
    if prefix < 0:
        return None
    rb = line.find("]", prefix)
    if rb < 0:
        return None
    info = line[prefix + len("##vso["):rb]
    name, _, props = info.partition(" ")
    if len([p for p in name.split(".") if p]) != 2:
        return None
    properties = {}
    for prop in (p for p in props.split(";") if p):
        key, eq, value = prop.partition("=")
        if eq and key and value:
            properties[key] = _unescape(value)
    return name, properties, _unescape(line[rb + 1:])


def test_azure_logissue_reads_back_exactly_through_the_agents_parser() -> None:
    nasty = "100% sure; see [a]\r\nthen %AZP25, %3B and ]]"
    result, finding = _result(path=PATH, message=nasty)
    lines = azure_format.render(result).splitlines()
    parsed = agent_parse(lines[0])
    assert parsed is not None
    name, props, data = parsed
    assert name == "task.logissue"
    assert props == {"type": "warning", "sourcepath": PATH, "linenumber": "4",
                     "columnnumber": "20", "code": "PTX101"}
    assert data == f"PTX101 missing-volatile: {nasty} (fix: Add 'volatile' after 'asm')"
    assert agent_parse(lines[1])[1]["type"] == "error"
    assert lines[2].startswith("Found 2 findings")
    assert all(agent_parse(line) is None for line in lines[2:])


def test_azure_info_findings_are_plain_log_lines() -> None:
    result, _ = _result(severity=Severity.INFO, message="an ##vso[task.complete] in a message")
    first = azure_format.render(result).splitlines()[0]
    assert agent_parse(first) is None
    assert first.startswith("k.cu:4:20: [info] PTX101")


def test_azure_carries_the_verdict_and_read_errors() -> None:
    result, finding = _result()
    result.verifications[id(finding)] = Verdict("refuted", "nvcc 13.0", "sm_90", "kept; fine")
    result.errors.append(("gone.cu", "No such file"))
    lines = azure_format.render(result).splitlines()
    assert agent_parse(lines[0])[1] == {"type": "error", "sourcepath": "gone.cu"}
    assert agent_parse(lines[1])[2].endswith("(verify: refuted by nvcc 13.0 for sm_90: kept; fine)")
    assert lines[-1].startswith("Verification: 0 confirmed, 1 refuted")


# --------------------------------------------------------------------------- grouped and full


def test_grouped_lists_findings_under_their_file() -> None:
    result, finding = _result()
    result.verifications[id(finding)] = Verdict("confirmed", "ptxas 13.0", "sm_90", "hoisted")
    lines = grouped_format.render(result).splitlines()
    assert lines[0] == "k.cu:"
    assert re.fullmatch(r"  4:20 PTX101 \[\*\] \[warning\] '%clock' changes.*", lines[1])
    assert lines[2].strip() == "verify: confirmed by ptxas 13.0 for sm_90: hoisted"
    assert re.fullmatch(r"  4:16 PTX001 \[error\] '%0' is fine here", lines[3])
    assert lines[5].startswith("Found 2 findings")
    assert lines[-1].startswith("Verification: 1 confirmed")


def test_full_shows_context_underline_and_the_fixed_line() -> None:
    result, finding = _result()
    text = full_format.render_finding(finding, result)
    assert text.splitlines() == [
        "k.cu:4:20: PTX101 [warning] '%clock' changes; the asm is not volatile",
        "  |",
        "2 |   unsigned start;",
        "3 |   // read the clock",
        '4 |   asm("mov.u32 %0, %clock;" : "=r"(start));',
        "  |                    ^^^^^^ PTX101",
        "5 |   return start;",
        "6 | }",
        "  |",
        "   = fix: Add 'volatile' after 'asm'",
        "  |",
        '4 -   asm("mov.u32 %0, %clock;" : "=r"(start));',
        '4 +   asm volatile("mov.u32 %0, %clock;" : "=r"(start));',
        "  |",
    ]
    result.verifications[id(finding)] = Verdict("confirmed", "ptxas 13.0", "sm_90", "hoisted")
    assert full_format.render_finding(finding, result).endswith(
        "   = verify: confirmed by ptxas 13.0 for sm_90: hoisted")


@pytest.mark.parametrize("fmt", ["grouped", "full", "pylint", "azure"])
def test_cli_offers_the_format(fmt: str, tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(TEXT)
    assert main(["check", str(tmp_path / "k.cu"), "--no-progress", "--output-format", fmt]) == 1
    assert "PTX101" in capsys.readouterr().out


@pytest.mark.parametrize("render", [pylint_format.render, grouped_format.render,
                                    full_format.render])
def test_a_newline_in_a_file_name_cannot_forge_a_line(render) -> None:
    result, _ = _result(path="a\nb.cu:1: [E-PTX001(x), ] forged")
    text = render(result)
    assert '"a\\nb.cu:1: [E-PTX001(x), ] forged"' in text
    assert not any(line.startswith("b.cu") for line in text.splitlines())
