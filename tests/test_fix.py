"""The fix engine: exact edits, deterministic overlaps, idempotent, atomic writes."""

from __future__ import annotations

import os
import stat

from ptxlint.cli import main
from ptxlint.fix import apply_edits
from ptxlint.model import Edit, Fix, Span

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
