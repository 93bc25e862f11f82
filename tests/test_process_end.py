"""``ptxlint check`` run as the program ends without the interpreter's teardown, once all a
user can observe is done (``ptxlint.run.leave``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ptxlint.run import leave
from tests.conftest import ROOT

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'

# Runs ``ptxlint.cli.main()`` as the console script does (no argv: the whole process). Its
# ``atexit`` callback leaves a mark, and a cycle whose ``__del__`` leaves another: the
# collection in the interpreter's teardown is the only one left to free it.
PROGRAM = textwrap.dedent(
    """
    import atexit, os, sys, threading
    marks = sys.argv.pop(1)
    def mark(name, open=open, join=os.path.join):  # what it needs bound: run at teardown
        with open(join(marks, name), "w") as f:
            f.write(name)
    class Teardown:
        def __del__(self):
            mark("teardown")
    def at_exit():
        mark("atexit")
        cycle = Teardown()
        cycle.me = cycle
    atexit.register(at_exit)
    # The thread lives until main() returns, however long the check takes: were the process
    # ended inside main(), it would never leave its mark.
    returned = threading.Event()
    if os.environ.get("BUSY_THREAD"):
        threading.Thread(target=lambda: (returned.wait(), mark("thread"))).start()
    from ptxlint.cli import main
    code = main()
    returned.set()
    sys.exit(code)
    """
)


def _program(
    tmp_path: Path, busy_thread: bool = False, interpreter_options: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.cu").write_text(BAD)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    if busy_thread:
        env["BUSY_THREAD"] = "1"
    proc = subprocess.run(
        [sys.executable, *interpreter_options, "-c", PROGRAM, str(marks), "check",
         str(tmp_path / "src"), "--no-cache"],
        capture_output=True, text=True, env=env, check=False, cwd=tmp_path,
    )
    return proc, {p.name for p in marks.iterdir()}


def test_check_as_the_program_flushes_its_report_runs_atexit_and_skips_the_teardown(
    tmp_path: Path,
) -> None:
    proc, marks = _program(tmp_path)
    assert proc.returncode == 1, proc.stderr  # findings
    assert "PTX001" in proc.stdout  # a pipe: written only when flushed
    assert "atexit" in marks
    assert "teardown" not in marks


def test_a_thread_that_is_not_a_daemon_leaves_the_exit_to_the_interpreter(
    tmp_path: Path,
) -> None:
    proc, marks = _program(tmp_path, busy_thread=True)
    assert proc.returncode == 1, proc.stderr
    assert "PTX001" in proc.stdout
    assert {"thread", "atexit", "teardown"} <= marks


class _GoneReader:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_stream_that_cannot_be_flushed_leaves_the_exit_to_the_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []

    def exit_now(code: int) -> None:
        raise AssertionError(f"ended the process with {code}")

    monkeypatch.setattr(leave.os, "_exit", exit_now)
    monkeypatch.setattr(leave.atexit, "_run_exitfuncs", lambda: ran.append("atexit"))
    monkeypatch.setattr(sys, "stdout", _GoneReader())
    assert leave.leave(1) == 1
    assert ran == []  # the interpreter's exit runs them


def test_a_profiled_check_leaves_the_exit_to_the_interpreter_so_the_profile_is_written(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "check.prof"
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.cu").write_text(BAD)
    (tmp_path / "marks").mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), str(tmp_path / "prog.py"),
         str(tmp_path / "marks"), "check", str(tmp_path / "src"), "--no-cache"],
        capture_output=True, text=True, env=env, check=False, cwd=tmp_path,
    )
    assert "PTX001" in proc.stdout, proc.stderr  # cProfile itself exits 0 after SystemExit
    assert profile.stat().st_size > 0  # written after the program returns
