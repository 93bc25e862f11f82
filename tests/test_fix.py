"""The fix engine: exact edits, deterministic overlaps, idempotent, atomic writes."""

from __future__ import annotations

import os
import stat

from ptxlint.cli import main
from ptxlint.fix import apply_edits, fix_text
from ptxlint.model import Edit, Finding, Fix, Severity, Span

BAD = (
    "__device__ unsigned f(unsigned a) {\n"
    "  unsigned t;\n"
    '  asm volatile("membar.gl; mov.u32 %%r1, %%clock;");\n'
    '  asm volatile("mov.u32 %0, %clock;" : "=r"(t));\n'
    '  asm("add.u32 %0, %1, %n1;" : "=r"(t) : "r"(a));\n'
    "  return t;\n"
    "}\n"
)


def test_overlapping_fixes_first_one_wins_then_the_rest() -> None:
    a = Fix("a", (Edit(Span(0, 3), "X"),))
    b = Fix("b", (Edit(Span(2, 4), "Y"),))
    c = Fix("c", (Edit(Span(5, 5), "Z"),))
    text, applied = apply_edits("0123456", [b, c, a])
    assert (text, applied) == ("X34Z56", 2)


def test_fix_writes_atomically_keeps_mode_and_is_idempotent(tmp_path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(BAD)
    os.chmod(path, 0o640)
    assert main(["check", str(path), "--fix", "--select", "PTX008"]) == 0
    fixed = path.read_text()
    assert 'asm volatile("membar.gl; mov.u32 %r1, %clock;");' in fixed
    assert 'asm volatile("mov.u32 %0, %%clock;" : "=r"(t));' in fixed
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["k.cu"]  # no temp file left behind
    assert main(["check", str(path), "--fix", "--select", "PTX008"]) == 0
    assert path.read_text() == fixed


def test_unsafe_fixes_need_the_flag(tmp_path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(BAD)
    main(["check", str(path), "--fix", "--select", "PTX007"])
    assert "%n1" in path.read_text()
    main(["check", str(path), "--fix", "--unsafe-fixes", "--select", "PTX007"])
    assert "%n1" not in path.read_text() and "%1;" in path.read_text()


def test_diff_prints_and_writes_nothing(tmp_path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(BAD)
    code = main(["check", str(path), "--diff", "--select", "PTX008"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("--- a/") and '+  asm volatile("mov.u32 %0, %%clock;"' in out
    assert path.read_text() == BAD


def test_non_utf8_file_is_never_rewritten(tmp_path) -> None:
    path = tmp_path / "k.cu"
    data = b"// caf\xe9\n" + BAD.encode()
    path.write_bytes(data)
    main(["check", str(path), "--fix", "--select", "PTX008"])
    assert path.read_bytes() == data


def _finding(rule: str, severity: Severity, at: int, fix: Fix | None = None) -> Finding:
    return Finding(rule, rule.lower(), severity, "t.cu", Span(at, at + 1), rule, fix)


def _replace(at: int, old: str, new: str) -> Fix:
    return Fix(f"{old}->{new}", (Edit(Span(at, at + len(old)), new),), safe=False)


def _toy_lint(text: str) -> list[Finding]:
    """A toy language: 'A' may become 'a', 'B' becomes 'C', 'C' becomes 'D'; an 'a' without a
    'D' anywhere is an error (so 'A'->'a' is right only once the 'C'->'D' fix has run)."""
    out = []
    for at, char in enumerate(text):
        if char == "A":
            out.append(_finding("T1", Severity.WARNING, at, _replace(at, "A", "a")))
        elif char == "B":
            out.append(_finding("T2", Severity.WARNING, at, _replace(at, "B", "C")))
        elif char == "C":
            out.append(_finding("T3", Severity.WARNING, at, _replace(at, "C", "D")))
        elif char == "a" and "D" not in text:
            out.append(_finding("E1", Severity.ERROR, at))
    return out


def test_a_fix_rejected_in_one_context_is_tried_again_once_the_context_changed() -> None:
    # pass 1 rejects 'A'->'a' (no 'D' yet); 'C'->'D' comes in pass 2. A rejection that stuck
    # for the rest of the run left the 'A', and the next run then fixed it: not idempotent.
    first = fix_text("A..B", _toy_lint, unsafe=True)
    assert first.converged and first.text == "a..D"
    assert fix_text(first.text, _toy_lint, unsafe=True).text == first.text


def _insert_lint(text: str) -> list[Finding]:
    """Each 'r' wants an '=' before it (unsafe); an '=r' right after another '=r' is an error,
    so the fixes must be tried one at a time and every other one is kept."""
    out = []
    for at, char in enumerate(text):
        if char == "r" and (at == 0 or text[at - 1] != "="):
            fix = Fix("add =", (Edit(Span(at, at), "="),), safe=False)
            out.append(_finding("T1", Severity.WARNING, at, fix))
        if text.startswith("=r,=r", at):
            out.append(_finding("E1", Severity.ERROR, at + 3))
    return out


def test_fixes_tried_one_at_a_time_land_where_their_finding_is() -> None:
    # once the first fix is kept, the later fixes' offsets are those of the text before it:
    # applied to the grown text they landed one character early (',=r' became '=,r')
    first = fix_text("r,r,r,r", _insert_lint, unsafe=True)
    assert first.converged and first.text == "=r,r,=r,r"
    assert fix_text(first.text, _insert_lint, unsafe=True).text == first.text


def _apply_by_definition(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """``apply_edits`` as first written: every taken edit tested, the text rebuilt per edit."""
    from ptxlint.fix import _order, _overlap, _self_overlap

    taken: list[Edit] = []
    applied = 0
    for fix in sorted(fixes, key=_order):
        edits = sorted(fix.edits, key=lambda e: (e.span.start, e.span.end))
        if any(_overlap(e, t) for e in edits for t in taken) or _self_overlap(edits):
            continue
        if any(e.span.end > len(text) for e in edits):
            continue
        taken.extend(edits)
        applied += 1
    for edit in sorted(taken, key=lambda e: (e.span.start, e.span.end), reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text, applied


def test_apply_edits_is_its_definition_on_random_fixes() -> None:
    """Overlaps found by a bisect over the taken edits, and the text joined once, give what
    testing every taken edit and rebuilding per edit gives: insertions at one point, edits
    that touch, nest or cross, fixes of several edits, edits past the end."""
    import random

    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice("abc;\n") for _ in range(rng.randint(0, 20)))
        fixes = []
        for k in range(rng.randint(0, 8)):
            edits = []
            for _ in range(rng.randint(1, 3)):
                a = rng.randint(0, len(text) + 1)
                b = a if rng.random() < 0.4 else rng.randint(a, len(text) + 2)
                edits.append(Edit(Span(a, b), rng.choice(["", "x", "yz"])))
            fixes.append(Fix(f"fix {k}", tuple(edits)))
        assert apply_edits(text, fixes) == _apply_by_definition(text, fixes), (text, fixes)


def test_fix_lints_the_file_once_before_and_once_after_its_fixes(tmp_path, capsys,
                                                                 monkeypatch) -> None:
    """One pass of fixes that settles: the file's own lint is the first pass's, and the lint of
    the fixed text is the one reported (a lint of a large file costs far more than its fixes:
    two more lints doubled a --fix run)."""
    import ptxlint.engine

    real = ptxlint.engine.lint_source
    texts: list[str] = []

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        texts.append(source.text)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ptxlint.engine, "lint_source", counting)
    path = tmp_path / "k.cu"
    path.write_text(BAD)
    assert main(["check", str(path), "--fix", "--select", "PTX008", "--no-cache"]) == 0
    fixed = path.read_text()
    assert fixed != BAD
    # before, after the fixes, and the second pass's check that nothing is left to apply reads
    # the same findings: two lints in all
    assert texts == [BAD, fixed]


def test_apply_edits_marks_what_is_taken_at_each_character() -> None:
    # an insertion inside a taken replacement waits; one at its either end does not
    replace = Fix("r", (Edit(Span(2, 5), "R"),))
    inside = Fix("i", (Edit(Span(3, 3), "I"),))
    at_start = Fix("s", (Edit(Span(2, 2), "S"),))
    at_end = Fix("e", (Edit(Span(5, 5), "E"),))
    assert apply_edits("0123456", [replace, inside, at_start, at_end]) == ("01SRE56", 3)
    # a replacement over a taken insertion waits; two replacements that touch both apply
    point = Fix("p", (Edit(Span(1, 1), "P"),))
    over = Fix("o", (Edit(Span(0, 2), "O"),))
    touching = Fix("t", (Edit(Span(2, 4), "T"),))
    assert apply_edits("0123456", [point, over]) == ("O23456", 1)  # ``over`` starts first
    assert apply_edits("0123456", [point, Fix("o", (Edit(Span(1, 3), "O"),))]) == ("0PO3456", 2)
    assert apply_edits("0123456", [Fix("o", (Edit(Span(0, 3), "O"),)), point]) == ("O3456", 1)
    assert apply_edits("0123456", [over, touching]) == ("OT456", 2)
