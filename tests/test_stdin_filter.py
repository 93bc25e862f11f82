"""``ptxlint check --fix -`` is a filter (editors run it on a buffer and take its standard
output as the new buffer): what it does not fix comes back byte for byte, never re-encoded nor
emptied."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

FIXABLE = b'__device__ int f() { int y; asm("mov.u32 %0, %clock;" : "=r"(y)); return y; }\n'
BOM = b"\xef\xbb\xbf"


def _filter(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", "check", "-", "--fix", "--no-cache", *args],
        input=data, capture_output=True, timeout=120,
        env={**os.environ, "PTXLINT_NO_CACHE": "1"},
    )


@pytest.mark.parametrize("data", [
    # not UTF-8: its findings are reported, not fixed, and its bytes must not turn into U+FFFD
    FIXABLE.replace(b"return", b"/* caf\xe9 \xff */ return"),
    # a NUL byte: skipped as a binary file is, and passed through
    b"\x00\x01binary\xff" * 10,
])
def test_what_is_not_fixed_comes_back_unchanged(data: bytes) -> None:
    done = _filter(data)
    assert done.stdout == data, done.stderr.decode()


def test_a_fixed_buffer_keeps_its_bom() -> None:
    done = _filter(BOM + FIXABLE)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.startswith(BOM) and b"%%clock" in done.stdout
    assert done.stdout.count(BOM) == 1


def test_input_not_fixed_is_a_note_not_a_skip() -> None:
    err = _filter(FIXABLE.replace(b"return", b"/* \xff */ return")).stderr.decode()
    assert "ptxlint: note: stdin.cu: not fixed: the input is not valid UTF-8" in err
    assert "skipped" not in err
