"""--verify on a terminal shows files prepared, probes done and compiles running; its summary
line reports the verification's own time."""

from __future__ import annotations

import io
import re
import shutil
import threading

import pytest

from ptxlint.cli import main
from ptxlint.verify.progress import VerifyProgress
from tests.conftest import FIXTURES


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_counts_and_clears() -> None:
    stream = FakeTerminal()
    progress = VerifyProgress(stream, interval=0)
    progress.files(1, 2)
    progress.files(2, 2)
    progress.planned(3)
    workers = [threading.Thread(target=lambda: (progress.started(), progress.finished()))
               for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert progress.line() == "verify: 2/2 files prepared, 3/3 probes done, 0 compiles running"
    progress.close()
    text = stream.getvalue()
    assert "1/2 files prepared" in text and "running" in text
    assert text.endswith("\r\033[K")


@pytest.mark.skipif(shutil.which("ptxas") is None and shutil.which("nvcc") is None,
                    reason="no CUDA toolchain (nvcc/ptxas) on PATH")
def test_verify_shows_progress_and_its_time(monkeypatch, capsys) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["check", f"{FIXTURES}/rules/PTX008_bad.cu", "--select", "PTX008", "--verify",
                 "--arch", "sm_90"])
    assert code == 1
    out = capsys.readouterr().out
    assert re.search(r"^Verification: .* in \d+\.\d\ds\.$", out, re.M), out[-300:]
    drawn = terminal.getvalue()
    assert re.search(r"verify: \d+/\d+ files prepared, \d+/\d+ probes done, \d+ compiles? "
                     r"running", drawn), drawn[-300:]
