"""Every input bounded: a deep file within a memory limit, and input over ``max-file-size``
(a named file, standard input) refused after reading at most that much."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_module import load

GIB = 1024 * 1024 * 1024
DEEP = 100_000


# the file the bench's bounds row times, so the test holds the memory bound on the same bytes
_deep_kernel = load("bench").deep_if_file


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def _check(*args: str, cwd: Path, stdin: int | None = None, limited: bool = False,
           timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "ptxlint", "check", "--no-cache", *args], cwd=cwd,
        stdin=stdin, capture_output=True, text=True, timeout=timeout,
        preexec_fn=_limit_memory if limited else None,
    )


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS"), reason="no RLIMIT_AS here")
def test_a_file_nested_100000_if_deep_is_linted_within_1_gib(tmp_path: Path) -> None:
    """Was killed at 24 GB (a climb to the root by parent steps, each a descent from the
    root, and a copy of the enclosing #if chain per level). Time is compared with a bare
    parse in benchmarks/bench.py, not here."""
    (tmp_path / "deep.cu").write_text(_deep_kernel(DEEP))
    done = _check("deep.cu", cwd=tmp_path, limited=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 asm statement" in done.stdout
    # one line says the conditions past the cap are not read
    [note] = [line for line in done.stderr.splitlines() if "nested over" in line]
    assert note.startswith("ptxlint: note: deep.cu: #if blocks or NV_IF_TARGET calls nested "
                           "over 256 deep")


def test_standard_input_over_max_file_size_is_refused_after_reading_that_much(
    tmp_path: Path,
) -> None:
    """``ptxlint check - < /dev/zero`` read until MemoryError; it reads 16 MiB and a byte."""
    with open("/dev/zero", "rb") as zero:
        done = _check("-", cwd=tmp_path, stdin=zero.fileno(), limited=True, timeout=120)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("ptxlint:")]
    assert errors == ["ptxlint: error: standard input: larger than 16 MiB (max-file-size)"]


def test_standard_input_is_held_to_the_configured_max_file_size(tmp_path: Path) -> None:
    text = b'__global__ void k(unsigned *x) { asm("mov.u32 %0, %clock;" : "=r"(*x)); }\n'
    source = tmp_path / "k.cu"
    for size, code in ((len(text), 1), (len(text) - 1, 2)):
        source.write_bytes(text)
        with open(source, "rb") as handle:
            done = _check("-", "--stdin-filename", "k.cu", "--config", f"max-file-size={size}",
                          cwd=tmp_path, stdin=handle.fileno(), timeout=120)
        assert done.returncode == code, done.stderr
        if code == 2:
            assert f"k.cu: larger than {size} bytes (max-file-size)" in done.stderr


def test_a_named_file_over_max_file_size_is_an_error_and_one_in_a_folder_a_note(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "big.cu").write_text("int x;\n" * 400)
    named = _check("src/big.cu", "--config", "max-file-size=1024", cwd=tmp_path, timeout=120)
    assert named.returncode == 2
    assert "ptxlint: error: src/big.cu: larger than 1 KiB (max-file-size)" in named.stderr
    walked = _check("src", "--config", "max-file-size=1024", cwd=tmp_path, timeout=120)
    assert walked.returncode == 0
    assert "ptxlint: note: src/big.cu: skipped: larger than 1 KiB (max-file-size)" in (
        walked.stderr
    )


def test_the_editor_deadline_message_says_whose_limit_it_was() -> None:
    pytest.importorskip("pygls")
    from ptxlint.lsp.server import _timeout_message
    from ptxlint.run.discover import DEFAULT_MAX_FILE_SIZE

    small = _timeout_message("linting stopped after 20 s", "int x;\n")
    assert "lintTimeoutMs" in small and "`ptxlint check` on the saved file has no time limit" in (
        small
    )
    large = _timeout_message("linting stopped after 20 s", "x" * (DEFAULT_MAX_FILE_SIZE + 1))
    assert "refuses the file too" in large and "no time limit" not in large


def test_the_memory_limit_is_one_a_runaway_would_hit() -> None:
    """The limit the deep-file test runs under stops a process that takes 2 GiB."""
    if not hasattr(resource, "RLIMIT_AS"):
        pytest.skip("no RLIMIT_AS here")
    grab = subprocess.run([sys.executable, "-c", "b = bytearray(2 * 1024 ** 3)"],
                          preexec_fn=_limit_memory, capture_output=True, text=True, timeout=60,
                          env={**os.environ})
    assert grab.returncode != 0 and "MemoryError" in grab.stderr


def test_standard_input_with_no_size_limit_stops_at_the_pipe_limit(tmp_path: Path) -> None:
    """``max-file-size = 0`` (no limit) still stops at the hard limit a named pipe has."""
    from ptxlint.run.discover import PIPE_HARD_LIMIT

    with open("/dev/zero", "rb") as zero:
        done = _check("-", "--config", "max-file-size=0", cwd=tmp_path, stdin=zero.fileno(),
                      limited=True, timeout=120)
    assert done.returncode == 2
    assert f"larger than {PIPE_HARD_LIMIT // 2**20} MiB" in done.stderr


def test_binary_standard_input_is_skipped_with_a_note_as_a_binary_file_is(tmp_path: Path) -> None:
    """Random bytes: a NUL in the first 8 KiB skips them (tree-sitter itself took minutes
    and gigabytes over 16 MiB of them)."""
    source = tmp_path / "blob"
    source.write_bytes(b'asm("mov.u32 %0, 1;" : "=r"(x));\n\0' + bytes(range(256)) * 64)
    with open(source, "rb") as handle:
        done = _check("-", cwd=tmp_path, stdin=handle.fileno(), timeout=120)
    assert done.returncode == 0
    assert "ptxlint: note: standard input: skipped: binary file (NUL byte)" in done.stderr
