"""Suppressions that cannot fail silently: PTX901, ignore-file, trailing scope, --add-noqa."""

from __future__ import annotations

import json

from ptxlint.cli import main
from tests.conftest import lint_text

CLOCK = 'asm("mov.u32 %0, %%clock;" : "=r"(t));'


def _rules(text: str) -> list[tuple[str, int]]:
    from ptxlint.model import SourceFile

    source = SourceFile("t.cu", text)
    return [(f.rule, source.line_col(f.span.start).line) for f in lint_text(text, "t.cu")]


def test_unused_and_misspelled_suppressions_are_reported() -> None:
    text = (
        "__device__ unsigned f() {\n"
        "  unsigned t;\n"
        f"  {CLOCK}  // ptxlint: ignore[PTX101]\n"  # used
        '  asm volatile("membar.gl;" ::: "memory");  // ptxlint: ignore[PTX102]\n'  # unused
        f"  {CLOCK}  // ptxlint: ignore[missing-volatle]\n"  # misspelt
        f"  {CLOCK}  // ptxlint: ignore[PTX1]\n"  # a prefix
        "  return t;\n}\n"
    )
    got = _rules(text)
    assert ("PTX901", 3) not in got
    assert ("PTX901", 4) in got
    assert ("PTX901", 5) in got and ("PTX101", 5) in got  # the misspelt one suppressed nothing
    assert ("PTX901", 6) in got and ("PTX101", 6) in got
    messages = [f.message for f in lint_text(text, "t.cu") if f.rule == "PTX901"]
    assert any("did you mean 'missing-volatile'" in m for m in messages)
    assert any("prefix" in m for m in messages)


def test_trailing_comment_covers_its_own_statement_only() -> None:
    text = (
        "__device__ unsigned f() {\n"
        "  unsigned t, u;\n"
        '  asm volatile("membar.gl;" ::: "memory");  // ptxlint: ignore[PTX101]\n'
        '  asm("mov.u32 %0, %%clock;" : "=r"(u));\n'
        "  return t + u;\n}\n"
    )
    got = _rules(text)
    assert ("PTX101", 4) in got  # not hidden by the comment ending the line above
    assert ("PTX901", 3) in got  # and that comment is reported as unused


def test_own_line_comment_covers_a_multi_line_statement() -> None:
    text = (
        "__device__ unsigned f(unsigned a) {\n"
        "  unsigned t;\n"
        "  // ptxlint: ignore[PTX101]\n"
        "  // ptxlint: ignore[PTX008]\n"
        '  asm("mov.u32 %0, %clock;"\n'
        '      : "=r"(t));\n'
        "  return t;\n}\n"
    )
    assert _rules(text) == []


def test_ignore_file() -> None:
    body = (
        "__device__ unsigned f() {\n  unsigned t;\n"
        f"  {CLOCK}\n  {CLOCK}\n  return t;\n}}\n"
    )
    assert [r for r, _ in _rules(body)] == ["PTX101", "PTX101"]
    assert _rules("// ptxlint: ignore-file[PTX101]\n" + body) == []
    assert _rules(body + "/* ptxlint: ignore-file */\n") == []
    unused = _rules("// ptxlint: ignore-file[PTX102]\n" + body)
    assert ("PTX901", 1) in unused


def test_directive_in_a_string_is_text() -> None:
    text = 'const char *s = "// ptxlint: ignore[PTX999]";\n'
    assert _rules(text) == []


def test_ptx901_fix_removes_only_what_is_dead(tmp_path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(
        "__device__ unsigned f() {\n  unsigned t;\n"
        f"  {CLOCK}  // ptxlint: ignore[PTX101, PTX999]\n"
        "  // ptxlint: ignore[PTX102]\n"
        '  asm volatile("membar.gl;" ::: "memory");\n'
        "  return t;\n}\n"
    )
    assert main(["check", str(path), "--fix", "--select", "PTX101,PTX102,PTX901"]) == 0
    capsys.readouterr()
    assert path.read_text() == (
        "__device__ unsigned f() {\n  unsigned t;\n"
        f"  {CLOCK}  // ptxlint: ignore[PTX101]\n"
        '  asm volatile("membar.gl;" ::: "memory");\n'
        "  return t;\n}\n"
    )


def test_deselected_rules_are_not_judged(tmp_path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text('__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }'
                    "  // ptxlint: ignore[PTX102]\n")
    assert main(["check", str(path), "--select", "PTX0,PTX901", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_add_noqa_then_clean(tmp_path, capsys) -> None:
    import shutil

    from tests.conftest import FIXTURES

    target = tmp_path / "tile_copy.cu"
    shutil.copy(f"{FIXTURES}/example/tile_copy.cu", target)
    assert main(["check", str(target), "--format", "json"]) == 1
    n = len(json.loads(capsys.readouterr().out)["findings"])
    assert main(["check", str(target), "--add-noqa"]) == 0
    assert f"Added {n} suppressions in 1 file" in capsys.readouterr().err
    assert main(["check", str(target), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    before = target.read_text()
    assert main(["check", str(target), "--add-noqa"]) == 0  # idempotent
    assert target.read_text() == before
    assert "// ptxlint: ignore[PTX004]" in before  # PTX301's generic pointer is its finding
    assert "// ptxlint: ignore[PTX301]" in before
    assert "// ptxlint: ignore[PTX008, PTX101]" in before


def test_add_noqa_writes_a_rule_once_per_statement(tmp_path, capsys) -> None:
    """Two findings of one rule on a statement are one suppression: the second finding is
    already covered by the comment the first one wrote (a second comment, on a new line above
    or after the first, was reported as an unused suppression by the next run)."""
    target = tmp_path / "two.cu"
    target.write_text(
        "__device__ unsigned f(unsigned a) {\n  unsigned d;\n"
        '  asm volatile("add.u32 %0, %1, %3;\\n\\t"\n'
        '               "add.u32 %0, %1, %4;" : "=r"(d) : "r"(a));\n  return d;\n}\n'
    )
    assert main(["check", str(target), "--add-noqa"]) == 0
    assert "Added 1 suppression in 1 file" in capsys.readouterr().err
    text = target.read_text()
    assert text.count("ptxlint: ignore[PTX001]") == 1, text
    assert main(["check", str(target), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def _one_source_per_edit(text: str, findings: list) -> str:
    """The reference: each finding's edit worked out on the whole text as edited so far."""
    from ptxlint.suppress_edits import suppress_edit

    ordered = sorted(findings, key=lambda f: f.rule)
    ordered.sort(key=lambda f: f.statement.span.start if f.statement else f.span.start,
                 reverse=True)
    for finding in ordered:
        edit = suppress_edit(text, finding)
        if edit is not None:
            text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def test_add_noqa_text_is_what_one_source_per_edit_gives() -> None:
    """The suppressions written edit by edit on windows of the text are those written with the
    whole text read anew for each finding, on every rule fixture."""
    import glob

    from ptxlint.add_noqa import _NEVER, add_suppressions
    from tests.conftest import FIXTURES

    changed = 0
    for path in sorted(glob.glob(f"{FIXTURES}/rules/PTX*_bad.*")):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        findings = [
            f for f in lint_text(text, path)
            if f.rule not in _NEVER and f.statement is not None
        ]
        got, _ = add_suppressions(text, findings)
        assert got == _one_source_per_edit(text, findings), path
        changed += got != text
    assert changed > 20


# Pieces of a file whose findings meet at a line: two statements on one line, a directive
# before or after a statement, a #define's continued lines, a literal running over lines, a
# raw string, a statement on the first or the last line with no line break after it.
_PIECES = (
    'asm("mov.u32 %0, %5;" : "=r"(d));',
    'asm("st.shared.u32 [%0], %1;" :: "l"(p), "r"(v)); asm("trap;" ::: "memory");',
    '/* ptxlint: ignore[PTX101] */ asm("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(p));',
    'asm("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(p));  // ptxlint: ignore[PTX102]',
    '// ptxlint: ignore[PTX001]\n  asm("add.u32 %0, %1, %7;" : "=r"(d) : "r"(v));',
    '#define LD(d, p) \\\n  asm("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(p))',
    'asm("add.u32 %0, %1, 1;\\n\\t"\n      "st.global.u32 [%2], %0;" : "=r"(d) : "r"(v), "l"(p));',
    'asm(R"(mov.u32 %0, %9;\n)" : "=r"(d));',
    'asm volatile("bar.sync 0;");',
)


def test_add_noqa_windows_agree_with_the_whole_text_on_crowded_lines() -> None:
    """Random files of those pieces, line breaks "\n", "\r\n" or a lone "\r": the window
    per edit writes what the whole text per edit writes."""
    import random

    from ptxlint.add_noqa import _NEVER, add_suppressions

    rng = random.Random(11)
    changed = 0
    for trial in range(120):
        lines = [rng.choice(_PIECES) for _ in range(rng.randint(1, 7))]
        body = "\n".join(
            ("  " + line if rng.random() < 0.7 else line) for line in lines
        )
        text = (
            "__device__ void f(unsigned v, unsigned d, unsigned* p) {\n" + body + "\n}"
            if rng.random() < 0.7 else body
        )
        if rng.random() < 0.3:
            text += "\n"
        newline = rng.choice(["\n", "\n", "\r\n", "\r"])
        text = text.replace("\n", newline)
        findings = [
            f for f in lint_text(text, f"t{trial}.cu")
            if f.rule not in _NEVER and f.statement is not None
        ]
        got, added = add_suppressions(text, findings)
        assert got == _one_source_per_edit(text, findings), (trial, text)
        # a comment line put above a statement ends as the file's lines end
        if newline != "\n":
            assert got.count("\n") - got.count("\r\n") == text.count("\n") - text.count("\r\n")
        if newline != "\r":
            assert got.count("\r") - got.count("\r\n") == 0
        changed += got != text
    assert changed > 60
