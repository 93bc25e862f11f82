"""The command line as a new user meets it: a usage error is short and says what was meant (the
closest option for a misspelt one, one usage line, not argparse's list of every option of
check); paths may follow options; --output never replaces a source and makes its folder; a run
that finds no file warns; --statistics is the same table in every format read by people."""

from __future__ import annotations

import re

import pytest

from ptxlint.cli import main


def _usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("typo,meant", [
    ("--output_format", "--output-format"),
    ("--fail_on", "--fail-on"),
    ("--sellect", "--select"),
    ("--unfixible", "--unfixable"),
])
def test_a_misspelt_option_gets_the_closest_one(capsys, typo: str, meant: str) -> None:
    err = _usage_error(capsys, "check", typo, "x")
    assert f"unrecognized arguments: {typo} (did you mean {meant!r}?)" in err


def test_no_guess_when_nothing_is_close_or_the_option_exists_elsewhere(capsys) -> None:
    assert "did you mean" not in _usage_error(capsys, "check", "--bogus")
    # --fix is check's: for rules it is no typo of anything
    assert "did you mean" not in _usage_error(capsys, "rules", "--fix")


def test_a_bad_value_is_one_usage_line_and_the_error(capsys) -> None:
    err = _usage_error(capsys, "check", "--fail-on", "bogus")
    usage, error, hint = err.splitlines()  # argparse words the choices per Python version
    assert usage == "usage: ptxlint check [OPTIONS] [PATH ...]"
    assert error.startswith("ptxlint check: error: argument --fail-on: invalid choice: 'bogus'")
    assert hint == "For more information, try 'ptxlint check --help'."


@pytest.mark.parametrize("key,says", [
    ("missing-volatil", "no rule 'missing-volatil' (did you mean 'missing-volatile'?)"),
    ("PTX1", "no rule 'PTX1': a prefix of "),
    ("zzzz", "no rule 'zzzz' (see `ptxlint rules`)"),
])
def test_rule_that_names_no_rule_says_what_was_meant(capsys, key: str, says: str) -> None:
    assert main(["rule", key]) == 2
    assert says in capsys.readouterr().err


SOURCE = '__device__ int f() { int y; asm("mov.u32 %0, %clock;" : "=r"(y)); return y; }\n'


@pytest.mark.parametrize("named", [True, False])
def test_output_never_replaces_a_source_file(tmp_path, capsys, named: bool) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(SOURCE)
    other = tmp_path / "sub" / "other.cuh"  # -o other.cuh for -o other.sarif, say
    other.parent.mkdir()
    other.write_text(SOURCE)
    target = kernel if named else other
    assert main(["check", str(kernel if named else tmp_path), "-o", str(target),
                 "--no-cache", "--no-progress"]) == 2
    assert "the report would replace it" in capsys.readouterr().err
    assert target.read_text() == SOURCE
    report = tmp_path / "report.txt"  # a report file, even one that exists, is written
    report.write_text("old")
    assert main(["check", str(kernel), "-o", str(report), "--no-cache", "--no-progress"]) == 1
    assert "PTX101" in report.read_text()


@pytest.mark.parametrize("implicit", [False, True])
def test_paths_may_follow_options(tmp_path, capsys, monkeypatch, implicit: bool) -> None:
    # argparse took only the first run of paths: `check a.cu -q b.cu` was "unrecognized b.cu"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.cu").write_text(SOURCE)
    (tmp_path / "b.cu").write_text(SOURCE)
    command = [] if implicit else ["check"]
    assert main([*command, "a.cu", "--output-format", "concise", "--no-cache", "b.cu"]) == 1
    out = capsys.readouterr().out
    assert "a.cu:1:" in out and "b.cu:1:" in out
    # options first, then paths split by another option: those paths only, not the default
    (tmp_path / "c.cu").write_text(SOURCE)
    assert main([*command, "--output-format", "concise", "--no-cache", "a.cu", "-q",
                 "b.cu"]) == 1
    assert "c.cu" not in capsys.readouterr().out


def test_a_run_that_finds_no_file_warns(tmp_path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("asm")
    assert main(["check", str(tmp_path), "--no-cache", "--no-progress"]) == 0
    assert "warning: no file to lint under" in capsys.readouterr().err
    (tmp_path / "k.cu").write_text("int x;\n")  # a file without asm is a file linted
    assert main(["check", str(tmp_path), "--no-cache", "--no-progress"]) == 0
    assert "no file to lint" not in capsys.readouterr().err
    # nor when what was found was skipped, with its own note
    assert main(["check", str(tmp_path), "--no-cache", "--no-progress",
                 "--config", "max-file-size=1"]) == 0
    err = capsys.readouterr().err
    assert "skipped: larger than" in err and "no file to lint" not in err


def test_output_makes_its_folder(tmp_path, capsys) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(SOURCE)
    report = tmp_path / "reports" / "ci" / "ptxlint.json"  # a fresh checkout has no reports/
    assert main(["check", str(kernel), "-o", str(report), "--output-format", "json",
                 "--no-cache", "--no-progress"]) == 1
    assert '"PTX101"' in report.read_text()
    (tmp_path / "afile").write_text("")
    assert main(["check", str(kernel), "-o", str(tmp_path / "afile" / "r.json"),
                 "--no-cache", "--no-progress"]) == 2
    assert "Not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("jobs", ["-3", "x"])
def test_jobs_takes_zero_or_more(capsys, jobs: str) -> None:
    assert "expected a number of worker processes" in _usage_error(capsys, "check", "-j", jobs)


@pytest.mark.parametrize("fmt", ["text", "concise", "grouped", "full"])
def test_statistics_is_the_table_in_every_format_read_by_people(tmp_path, capsys,
                                                                fmt: str) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(SOURCE)
    main(["check", str(kernel), "--statistics", "--output-format", fmt, "--no-cache"])
    out = capsys.readouterr().out
    assert re.search(r"^\s+1\s+PTX101\s+missing-volatile$", out, re.M), out
    assert "mov.u32" not in out  # the table, not the findings


def test_statistics_with_a_machine_format_says_it_is_ignored(tmp_path, capsys) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text(SOURCE)
    main(["check", str(kernel), "--statistics", "--output-format", "json", "--no-cache"])
    captured = capsys.readouterr()
    assert '"PTX101"' in captured.out
    assert "--statistics is ignored with --output-format json" in captured.err


def test_rules_as_json_is_every_rule_s_documentation(capsys) -> None:
    import json

    assert main(["rule", "--all", "--output-format", "json"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert main(["rules", "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == every


def test_config_naming_a_pyproject_without_our_table_warns(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(
        '__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }\n')
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n')
    assert main(["check", str(tmp_path), "--config", str(pyproject)]) == 0
    assert "no [tool.ptxlint] table in it; the defaults apply" in capsys.readouterr().err
    pyproject.write_text('[tool.ptxlint]\nselect = ["PTX1"]\n')
    assert main(["check", str(tmp_path), "--config", str(pyproject)]) == 0
    assert "no [tool.ptxlint] table" not in capsys.readouterr().err
