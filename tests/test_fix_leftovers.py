"""A `--fix` killed between writing its temporary file and renaming it leaves `.ptxlint-*.tmp`
beside the source; the next run of any command that walks that folder removes it, and never
removes one whose writer is still alive."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ptxlint import cli, leftovers

SOURCE = '__device__ void f() { asm volatile("membar.gl;"); }\n'

# A writer as --fix makes it, killed with SIGKILL before its rename: the lock goes with it.
WRITER = (
    "import sys, time\n"
    "from ptxlint import leftovers\n"
    "out, path = leftovers.create(sys.argv[1])\n"
    "out.write(b'the whole new text'); out.flush()\n"
    "print(path, flush=True)\n"
    "time.sleep(600)\n"
)

needs_flock = pytest.mark.skipif(leftovers.fcntl is None, reason="no flock on this platform")


def _start_writer(folder: Path) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(folder)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    path = Path(process.stdout.readline().strip())
    assert path.name.startswith(".ptxlint-") and path.name.endswith(".tmp")
    return process, path


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def _killed_leftover(folder: Path) -> Path:
    process, path = _start_writer(folder)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert path.exists()
    _age(path, leftovers.GRACE_S + 1)
    return path


@needs_flock
@pytest.mark.parametrize("command", [
    ["check", "--isolated", "--no-cache"],
    ["check", "--isolated", "--output-format", "json"],
    ["check", "--isolated", "--show-files"],
    ["stats"],
])
def test_a_killed_fix_leaves_nothing_after_the_next_run_in_that_folder(tmp_path, command,
                                                                       capsys):
    sub = tmp_path / "kernels"
    sub.mkdir()
    (sub / "k.cu").write_text(SOURCE)
    leftover = _killed_leftover(sub)
    cli.main([*command, str(tmp_path)])
    capsys.readouterr()
    assert not leftover.exists()
    assert (sub / "k.cu").read_text() == SOURCE


@needs_flock
def test_naming_a_file_cleans_its_folder_too(tmp_path, capsys):
    (tmp_path / "k.cu").write_text(SOURCE)
    leftover = _killed_leftover(tmp_path)
    cli.main(["check", "--isolated", "--no-cache", str(tmp_path / "k.cu")])
    capsys.readouterr()
    assert not leftover.exists()


@needs_flock
def test_git_status_is_clean_again_after_the_next_run(tmp_path, capsys):
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def run(*args: str) -> str:
        return subprocess.run([git, *args], cwd=tmp_path, env=env, check=True,
                              capture_output=True, text=True).stdout

    run("init", "-q")
    (tmp_path / "k.cu").write_text(SOURCE)
    run("add", "k.cu")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "k")
    leftover = _killed_leftover(tmp_path)
    assert leftover.name in run("status", "--porcelain")
    cli.main(["check", "--isolated", "--no-cache", str(tmp_path)])
    capsys.readouterr()
    assert run("status", "--porcelain") == ""


@needs_flock
def test_a_running_writers_file_is_never_removed(tmp_path, capsys):
    (tmp_path / "k.cu").write_text(SOURCE)
    process, path = _start_writer(tmp_path)
    try:
        _age(path, leftovers.UNLOCKABLE_AGE_S + 1)  # however old it looks: its lock is held
        cli.main(["check", "--isolated", "--no-cache", str(tmp_path)])
        capsys.readouterr()
        assert path.exists()
        assert not leftovers.remove_if_abandoned(str(path))
    finally:
        process.kill()
        process.wait()
    assert leftovers.remove_if_abandoned(str(path))


def test_a_just_created_file_may_be_a_writer_about_to_lock_it(tmp_path):
    young = tmp_path / ".ptxlint-young.tmp"
    young.write_text("half a file")
    assert not leftovers.remove_if_abandoned(str(young))
    _age(young, leftovers.GRACE_S + 1)
    assert leftovers.remove_if_abandoned(str(young))


def test_only_ptxlint_temporary_files_are_touched(tmp_path, capsys):
    (tmp_path / "k.cu").write_text(SOURCE)
    others = [tmp_path / ".ptxlint-keep.txt", tmp_path / "notes.tmp", tmp_path / "ptxlint-x.tmp"]
    for other in others:
        other.write_text("someone else's")
        _age(other, leftovers.UNLOCKABLE_AGE_S + 1)
    cli.main(["check", "--isolated", "--no-cache", str(tmp_path)])
    capsys.readouterr()
    assert all(other.exists() for other in others)


def test_fix_still_writes_atomically_and_leaves_no_temporary_file(tmp_path, capsys):
    path = tmp_path / "k.cu"
    path.write_text('__device__ void f(unsigned t) { asm("mov.u32 %0, %clock;" : "=r"(t)); }\n')
    cli.main(["check", "--isolated", "--no-cache", "--fix", str(tmp_path)])
    capsys.readouterr()
    assert "%%clock" in path.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["k.cu"]
