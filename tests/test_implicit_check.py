"""``ptxlint PATH`` and ``ptxlint --option PATH`` run check, as the --help text says; a command's
name stays the command, and a word that is neither gets a clear error."""

from __future__ import annotations

import json

from ptxlint.cli import help_text, main

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'


def test_help_promises_the_shorthand() -> None:
    assert "ptxlint src --fix" in help_text.MAIN and "`ptxlint check src --fix`" in help_text.MAIN


def test_a_path_first_runs_check(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(BAD)
    assert main(["src", "--no-progress", "--format", "json"]) == 1
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["PTX001"]
    assert main(["src", "--no-progress", "--format", "json"]) == main(
        ["check", "src", "--no-progress", "--format", "json"])


def test_an_option_first_runs_check(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(BAD)
    assert main(["--format", "json", "--no-progress", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["rule"] == "PTX001"
    assert main(["-v", "--select", "PTX009", "--no-progress", str(tmp_path)]) == 0


def test_a_folder_named_like_a_command_needs_check(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "k.cu").write_text(BAD)
    assert main(["rules"]) == 0  # the command, not the folder
    assert "PTX001" in capsys.readouterr().out
    assert main(["check", "rules", "--no-progress"]) == 1
    assert "rules/k.cu:3:24: PTX001" in capsys.readouterr().out


def test_a_word_that_is_neither_is_an_error_with_the_nearest_command(tmp_path, capsys,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["chekc"]) == 2
    err = capsys.readouterr().err
    assert "'chekc' is neither a command" in err and "did you mean 'check'?" in err
    assert main(["no-such-folder"]) == 2
    assert "nor an existing path" in capsys.readouterr().err
