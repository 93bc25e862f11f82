"""The language server's start-up: its first lint worker is spawned before the server process
imports pygls or the engine, so the worker's imports and rules overlap the server's own."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT

needs_pygls = pytest.mark.skipif(
    importlib.util.find_spec("pygls") is None, reason="pygls (ptxlint[lsp]) not installed"
)


def _last_line(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=300, check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_the_worker_module_imports_only_the_standard_library() -> None:
    code = (
        "import sys\nimport ptxlint.lsp.worker\n"
        "print(sorted(m for m in sys.modules if m.startswith(('ptxlint', 'pygls', 'tree_sitter'))))"
    )
    assert _last_line(code) == str(
        sorted(["ptxlint", "ptxlint.lsp", "ptxlint.lsp.worker", "ptxlint.run", "ptxlint.run.orphan_guard"])
    )


def test_initialize_is_answered_without_an_event_loop_library() -> None:
    # asyncio (with ssl, socket and selectors) is a fifth of what the server imported before
    # answering ``initialize``; only the full server's loop needs it, after the early lint
    code = (
        "import sys\nimport ptxlint.lsp, ptxlint.lsp.worker, ptxlint.lsp.early\n"
        "print('asyncio' in sys.modules)"
    )
    assert _last_line(code) == "False"


@needs_pygls
def test_the_first_worker_starts_before_pygls_and_the_engine_are_imported() -> None:
    code = """
import sys
from ptxlint.lsp import main_lsp, worker

seen = []
original = worker.LintService.start

def start(self):
    seen.append(sorted(m for m in ("pygls", "ptxlint.engine", "ptxlint.lsp.server")
                       if m in sys.modules))
    original(self)

worker.LintService.start = start
main_lsp([])  # stdin is empty: the server ends at once
print(seen)
"""
    # one start, before any of them; the server's own start() at `initialize` never came
    assert _last_line(code) == "[[]]"


@needs_pygls
def test_a_server_that_cannot_start_stops_the_worker_started_early(tmp_path) -> None:
    code = f"""
from ptxlint.lsp import main_lsp, worker

closed = []
original = worker.LintService.close

def close(self):
    closed.append(True)
    original(self)

worker.LintService.close = close
try:
    main_lsp(["--log-file", {str(tmp_path / "missing" / "log.txt")!r}])
except OSError:
    print("raised", closed)
"""
    assert _last_line(code) == "raised [True]"
