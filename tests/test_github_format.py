"""--format github: workflow-command annotations, escaped the way the runner unescapes them."""

from __future__ import annotations

import os

from ptxlint.model import Edit, Finding, Fix, Severity, SourceFile, Span
from ptxlint.report import github_format
from ptxlint.report.github_format import escape_data, escape_property
from ptxlint.report.run_result import RunResult

TEXT = 'asm("mov.u32 %0, %%clock;" : "=r"(t));\nasm("x");\n'


def finding(severity: Severity, start: int, end: int, message: str = "m",
            fix: Fix | None = None, rule: str = "PTX101",
            name: str = "missing-volatile") -> Finding:
    return Finding(rule, name, severity, "src/k.cu", Span(start, end), message, fix=fix)


def run_result(*findings: Finding, **kwargs: object) -> RunResult:
    return RunResult(findings=list(findings), sources={"src/k.cu": SourceFile("src/k.cu", TEXT)},
                     **kwargs)  # type: ignore[arg-type]


def test_data_escapes_percent_and_newlines():
    assert escape_data("50% of\r\nlines") == "50%25 of%0D%0Alines"
    assert escape_data("a: b, c") == "a: b, c"


def test_property_escapes_also_colon_and_comma():
    assert escape_property("C:\\src\\a,b.cu") == "C%3A\\src\\a%2Cb.cu"
    assert escape_property("100%\n") == "100%25%0A"


def test_annotation_has_file_range_and_title():
    out = github_format.render(run_result(finding(Severity.WARNING, 13, 15, "'%0' is odd")))
    first = out.splitlines()[0]
    assert first == (
        "::warning file=src/k.cu,line=1,col=14,endLine=1,endColumn=16,"
        "title=PTX101 missing-volatile::'%250' is odd"
    )


def test_severities_map_to_commands_and_errors_come_first():
    out = github_format.render(run_result(
        finding(Severity.INFO, 0, 3, "i"),
        finding(Severity.WARNING, 0, 3, "w"),
        finding(Severity.ERROR, 0, 3, "e"),
    ))
    commands = [line.split(" ", 1)[0] for line in out.splitlines() if line.startswith("::")]
    assert commands == ["::error", "::warning", "::notice"]
    assert out.rstrip().splitlines()[-1].startswith("Found 3 findings")


def test_multiline_message_stays_one_command():
    out = github_format.render(run_result(finding(Severity.ERROR, 0, 3, "line one\nline two")))
    assert out.splitlines()[0].endswith("::line one%0Aline two")


def test_fix_is_mentioned_in_the_message():
    fix = Fix("Add 'volatile'", (Edit(Span(3, 3), " volatile"),), safe=False)
    out = github_format.render(run_result(finding(Severity.WARNING, 0, 3, "m", fix=fix)))
    assert "::m (fix, unsafe%3A" not in out  # the message is data: ':' stays
    assert "::m (fix, unsafe: Add 'volatile')" in out


def test_unreadable_files_and_internal_errors_are_error_annotations():
    crash = finding(Severity.ERROR, 0, 0, "extract raised ValueError", rule="internal-error",
                    name="internal-error")
    out = github_format.render(run_result(crash, errors=[("gone.cu", "no such file")]))
    lines = out.splitlines()
    assert lines[0] == "::error file=gone.cu,title=ptxlint::could not read the file: no such file"
    assert lines[1] == ("::error file=src/k.cu,title=ptxlint internal error::"
                        "extract raised ValueError")


def test_paths_are_relative_to_the_root(tmp_path):
    path = str(tmp_path / "a" / "k.cu")
    item = Finding("PTX101", "missing-volatile", Severity.ERROR, path, Span(0, 3), "m")
    result = RunResult(findings=[item], sources={path: SourceFile(path, TEXT)},
                       root=str(tmp_path))
    assert "file=a/k.cu," in github_format.render(result)
    outside = RunResult(findings=[item], sources={path: SourceFile(path, TEXT)},
                        root=str(tmp_path / "b"))
    assert f"file={escape_property(os.path.abspath(path))}," in github_format.render(outside)
