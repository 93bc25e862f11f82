"""The command line: formats, exit codes, bad input, suppression, configuration."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ptxlint.cli import main
from tests.conftest import ROOT

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'
CLEAN = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a));\n  return d;\n}\n'


def run_json(args, capsys):
    code = main(["check", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_output_follows_the_contract(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    code, doc = run_json(["k.cu"], capsys)
    assert code == 1
    assert set(doc) >= {"version", "findings", "stats"}
    (f,) = doc["findings"]
    assert f["rule"] == "PTX001" and f["name"] == "operand-index-out-of-range"
    assert f["severity"] == "error" and f["path"] == "k.cu"
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (3, 24, 3, 26)
    assert set(doc["stats"]) >= {"files", "statements", "seconds"}
    assert doc["stats"]["files"] == 1 and doc["stats"]["statements"] == 1


def test_text_output_has_location_source_line_and_caret(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(BAD)
    assert main(["check", "k.cu"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("k.cu:3:24: PTX001 [error] '%3' refers to operand 3")
    assert out[1] == '    asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));'
    assert out[2] == "  " + " " * 23 + "^~"


def test_exit_codes(tmp_path, capsys) -> None:
    (tmp_path / "clean.cu").write_text(CLEAN)
    assert main(["check", str(tmp_path / "clean.cu")]) == 0
    (tmp_path / "bad.cu").write_text(BAD)
    assert main(["check", str(tmp_path)]) == 1
    assert main(["check", str(tmp_path), "--fail-on", "never"]) == 0
    assert main(["check", str(tmp_path / "missing.cu")]) == 2
    assert main(["check", str(tmp_path), "--select", "PTX999"]) == 2
    assert "unknown rule selector" in capsys.readouterr().err


def test_unreadable_path_is_reported_and_the_rest_is_linted(tmp_path, capsys) -> None:
    (tmp_path / "bad.cu").write_text(BAD)
    code, doc = run_json([str(tmp_path / "nope.cu"), str(tmp_path / "bad.cu")], capsys)
    assert code == 2
    assert [f["rule"] for f in doc["findings"]] == ["PTX001"]
    assert doc["errors"][0]["path"].endswith("nope.cu")


def test_binary_and_non_utf8_files(tmp_path, capsys) -> None:
    (tmp_path / "blob.cu").write_bytes(b"\x00\x01\x02asm(")
    (tmp_path / "latin1.cu").write_bytes(b"// \xe9\xe8\n" + BAD.encode())
    code, doc = run_json([str(tmp_path)], capsys)
    assert code == 1
    assert any("binary" in n["message"] for n in doc["notes"])
    (f,) = doc["findings"]
    assert f["path"].endswith("latin1.cu") and f["line"] == 4 and f["column"] == 24


def test_rule_that_raises_becomes_internal_error(tmp_path, capsys, monkeypatch) -> None:
    # a rule with no needs (``Rule.needs``): the engine asks it about every statement
    from ptxlint_rules.ptx102_missing_memory_clobber import MissingMemoryClobber

    assert not MissingMemoryClobber.needs

    def boom(self, statement, context):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(MissingMemoryClobber, "check", boom)
    (tmp_path / "bad.cu").write_text(BAD)
    code, doc = run_json([str(tmp_path)], capsys)
    assert code == 2
    rules = sorted(f["rule"] for f in doc["findings"])
    assert rules == ["PTX001", "internal-error"]
    err = next(f for f in doc["findings"] if f["rule"] == "internal-error")
    assert "PTX102" in err["message"] and "kaboom" in err["message"] and "line 3" in err["message"]


def test_an_internal_error_quotes_the_start_of_a_long_exception_text(
        tmp_path, capsys, monkeypatch) -> None:
    """``list.index`` names the missing object in full: one model object is 30 KB of text."""
    from ptxlint_rules.ptx102_missing_memory_clobber import MissingMemoryClobber

    def boom(self, statement, context):
        raise ValueError("Step(" + "x" * 30_000 + ") is not in list")

    monkeypatch.setattr(MissingMemoryClobber, "check", boom)
    (tmp_path / "bad.cu").write_text(BAD)
    _, doc = run_json([str(tmp_path)], capsys)
    err = next(f for f in doc["findings"] if f["rule"] == "internal-error")
    assert "ValueError: Step(xxx" in err["message"] and "…" in err["message"]
    assert len(err["message"]) < 400 and err["message"].endswith("please report this")


def test_inline_suppression(tmp_path, capsys) -> None:
    text = BAD.replace("  asm(", "  // ptxlint: ignore[PTX001]\n  asm(")
    (tmp_path / "a.cu").write_text(text)
    (tmp_path / "b.cu").write_text(BAD.replace("(a));", "(a));  // ptxlint: ignore"))
    (tmp_path / "c.cu").write_text(BAD.replace("(a));", "(a));  // ptxlint: ignore[PTX101]"))
    code, doc = run_json([str(tmp_path)], capsys)
    got = [(os.path.basename(f["path"]), f["rule"]) for f in doc["findings"]]
    # c.cu's ignore[PTX101] suppresses nothing: PTX001 stays and PTX901 says so
    assert got == [("c.cu", "PTX001"), ("c.cu", "PTX901")]


def test_config_file_selects_and_overrides_severity(tmp_path, capsys) -> None:
    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ptxlint]\nseverity = { PTX001 = "warning" }\n'
    )
    code, doc = run_json([str(tmp_path)], capsys)
    assert doc["findings"][0]["severity"] == "warning" and code == 1
    (tmp_path / "ptxlint.toml").write_text('ignore = ["operand-index-out-of-range"]\n')
    code, doc = run_json([str(tmp_path)], capsys)
    assert doc["findings"] == [] and code == 0
    (tmp_path / "ptxlint.toml").write_text("bogus-key = 1\n")
    assert main(["check", str(tmp_path)]) == 2
    assert "bogus-key" in capsys.readouterr().err


def test_rules_and_rule_commands(capsys) -> None:
    assert main(["rules"]) == 0
    table = capsys.readouterr().out
    assert "PTX001" in table and "operand-index-out-of-range" in table
    assert main(["rule", "percent-escape"]) == 0
    doc = capsys.readouterr().out
    assert "## What it does" in doc and "## Use instead" in doc
    assert main(["rule", "PTX999"]) == 2


def test_stats_counts_statements_and_typed_operands(tmp_path, capsys) -> None:
    (tmp_path / "bad.cu").write_text(BAD)
    assert main(["stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "asm statements found:       1" in out
    assert "with a known type:        2 (100.0%)" in out


def test_python_dash_m_and_no_color(tmp_path) -> None:
    (tmp_path / "bad.cu").write_text(BAD)
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "ptxlint", "check", str(tmp_path)],
        capture_output=True, text=True, env=env, check=False,
    )
    assert proc.returncode == 1
    assert "\033[" not in proc.stdout and "PTX001" in proc.stdout


def test_doctor_and_verify_are_wired(tmp_path, capsys) -> None:
    import shutil

    import pytest

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed: verification has no toolchain")
    assert main(["doctor"]) == 0
    assert "nvcc" in capsys.readouterr().out
    (tmp_path / "bad.cu").write_text(BAD)
    assert main(["check", str(tmp_path), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "verify: confirmed" in out and "Verification: 1 confirmed" in out


def test_python_m_ptxlint_cli_runs_the_command_line(tmp_path) -> None:
    (tmp_path / "k.cu").write_text(BAD)
    done = subprocess.run(
        [sys.executable, "-m", "ptxlint.cli", "check", "k.cu", "--no-cache", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    assert done.returncode == 1, done.stderr
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == ["PTX001"]
