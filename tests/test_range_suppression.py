"""Range suppression, clang-tidy's NOLINTBEGIN/NOLINTEND in ptxlint's grammar:
``// ptxlint: ignore-begin[CODES]`` ... ``// ptxlint: ignore-end[CODES]`` (or a bare end)."""

from __future__ import annotations

from ptxlint.fix import apply_edits
from ptxlint.model import SourceFile
from tests.conftest import lint_text

CLOCK = 'asm("mov.u32 %0, %%clock;" : "=r"(t));'  # PTX101: not volatile


def _kernel(*body: str) -> str:
    return "__device__ unsigned f() {\n  unsigned t;\n" + "".join(f"  {b}\n" for b in body) + (
        "  return t;\n}\n")


def _found(text: str, path: str = "t.cu") -> list[tuple[str, int]]:
    source = SourceFile(path, text)
    return [(f.rule, source.line_col(f.span.start).line) for f in lint_text(text, path)]


def test_range_suppresses_every_line_inside_and_nothing_outside() -> None:
    text = _kernel(
        CLOCK,                                   # 3: outside
        "// ptxlint: ignore-begin[PTX101]",      # 4
        CLOCK,                                   # 5
        CLOCK,                                   # 6
        "// ptxlint: ignore-end[PTX101]",        # 7
        CLOCK,                                   # 8: outside
    )
    found = _found(text)
    assert [line for rule, line in found if rule == "PTX101"] == [3, 8]
    assert not [f for f in found if f[0] == "PTX901"]


def test_range_only_suppresses_its_codes() -> None:
    text = _kernel("// ptxlint: ignore-begin[PTX102]", CLOCK, "// ptxlint: ignore-end[PTX102]")
    found = _found(text)
    assert ("PTX101", 4) in found
    assert ("PTX901", 3) in found  # PTX102 ran and found nothing to suppress


def test_bare_range_and_bare_end_close_any_begin() -> None:
    text = _kernel("// ptxlint: ignore-begin", CLOCK, "// ptxlint: ignore-end")
    assert _found(text) == []
    text = _kernel("// ptxlint: ignore-begin[PTX101, PTX008]", CLOCK, "// ptxlint: ignore-end")
    assert not [f for f in _found(text) if f[0] == "PTX101"]


def test_end_codes_must_match_the_begin_in_any_order() -> None:
    text = _kernel("/* ptxlint: ignore-begin[PTX101, PTX102] */", CLOCK,
                   "/* ptxlint: ignore-end[PTX102, PTX101] */")
    assert not [f for f in _found(text) if f[0] == "PTX101"]
    mismatched = _kernel("// ptxlint: ignore-begin[PTX101]", CLOCK,
                         "// ptxlint: ignore-end[PTX102]")
    found = _found(mismatched)
    assert ("PTX101", 4) in found  # an unclosed range suppresses nothing
    messages = {f.message for f in lint_text(mismatched, "t.cu") if f.rule == "PTX901"}
    assert ("unmatched suppression: 'ignore-begin[PTX101]' has no 'ignore-end' after it, so it "
            "suppresses nothing") in messages
    assert ("unmatched suppression: 'ignore-end[PTX102]' closes no open 'ignore-begin' with the "
            "same codes") in messages


def test_unmatched_begin_and_end_are_reported_without_a_fix() -> None:
    text = _kernel("// ptxlint: ignore-end", CLOCK, "// ptxlint: ignore-begin[PTX101]", CLOCK)
    findings = [f for f in lint_text(text, "t.cu") if f.rule == "PTX901"]
    assert len(findings) == 2 and all(f.fix is None for f in findings)
    assert [line for rule, line in _found(text) if rule == "PTX101"] == [4, 6]


def test_ranges_nest() -> None:
    text = _kernel(
        "// ptxlint: ignore-begin[PTX101]",
        "// ptxlint: ignore-begin[PTX008]",
        'asm("mov.u32 %0, %clock;" : "=r"(t));',  # PTX101 and PTX008
        "// ptxlint: ignore-end[PTX008]",
        CLOCK,
        "// ptxlint: ignore-end[PTX101]",
    )
    assert _found(text) == []


def test_unused_range_fix_removes_both_comments() -> None:
    text = _kernel("// ptxlint: ignore-begin[PTX102]", CLOCK, "// ptxlint: ignore-end[PTX102]")
    (finding,) = [f for f in lint_text(text, "t.cu") if f.rule == "PTX901"]
    assert finding.fix is not None and finding.fix.safe
    fixed, _ = apply_edits(text, [finding.fix])
    assert fixed == _kernel(CLOCK)


def test_unused_code_in_a_range_is_removed_from_begin_and_end() -> None:
    text = _kernel("// ptxlint: ignore-begin[PTX101, PTX102]", CLOCK,
                   "// ptxlint: ignore-end[PTX101, PTX102]")
    (finding,) = [f for f in lint_text(text, "t.cu") if f.rule == "PTX901"]
    fixed, _ = apply_edits(text, [finding.fix])
    assert fixed == _kernel("// ptxlint: ignore-begin[PTX101]", CLOCK,
                            "// ptxlint: ignore-end[PTX101]")
    assert _found(fixed) == []


def test_python_range() -> None:
    text = (
        "import triton.language as tl\n"
        "def k(x):\n"
        "    # ptxlint: ignore-begin[PTX505]\n"
        '    t = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], '
        "dtype=tl.uint64, is_pure=True, pack=1)\n"
        "    # ptxlint: ignore-end[PTX505]\n"
        '    u = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], '
        "dtype=tl.uint64, is_pure=True, pack=1)\n"
        "    return t + u\n"
    )
    assert [line for rule, line in _found(text, "k.py") if rule == "PTX505"] == [6]


def test_ignore_begin_is_not_read_as_a_bare_ignore() -> None:
    # `ignore\b` matched the start of `ignore-begin`: the comment was taken for a bare ignore of
    # the next line only
    text = _kernel("// ptxlint: ignore-begin[PTX101]", CLOCK, CLOCK, CLOCK,
                   "// ptxlint: ignore-end[PTX101]")
    assert [f for f in _found(text) if f[0] == "PTX101"] == []
