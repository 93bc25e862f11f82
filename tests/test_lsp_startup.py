"""The language server's start-up: its first lint worker is spawned once the early reader is done
(whose own lint publishes the first diagnostics, without the spawn competing with it) and before
the server imports pygls, so the worker's imports and rules overlap pygls's."""

from __future__ import annotations

import importlib.util
import json
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
        # (value_class is the standard library's dataclass with closures for three methods)
        sorted(["ptxlint", "ptxlint.lsp", "ptxlint.lsp.worker", "ptxlint.run", "ptxlint.run.orphan_guard",
                "ptxlint.value_class"])
    )


def test_initialize_is_answered_without_an_event_loop_library() -> None:
    # asyncio (with ssl, socket and selectors) is a fifth of what the server imported before
    # answering ``initialize``; only the full server's loop needs it, after the early lint
    code = (
        "import sys\nimport ptxlint.lsp, ptxlint.lsp.worker, ptxlint.lsp.early\n"
        "print('asyncio' in sys.modules)"
    )
    assert _last_line(code) == "False"


def _framed(*messages: dict[str, object]) -> bytes:
    out = b""
    for message in messages:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


@needs_pygls
def test_the_first_worker_starts_after_the_early_lint_and_before_pygls(tmp_path) -> None:
    code = """
import sys
from ptxlint.lsp import main_lsp, worker

seen = []
original = worker.LintService.start

def start(self):
    seen.append(sorted(m for m in ("ptxlint.engine", "ptxlint.lsp.server", "lsprotocol.types",
                                   "pygls.protocol") if m in sys.modules))
    original(self)

worker.LintService.start = start
main_lsp([])
print(seen, file=sys.stderr)  # the server closed stdout at exit
"""
    source = tmp_path / "k.cu"
    text = ('__device__ unsigned f(unsigned a) {\n  unsigned d;\n'
            '  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n')
    source.write_text(text)
    item = {"uri": source.as_uri(), "languageId": "cuda", "version": 1, "text": text}
    messages = _framed(
        {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": item}},
        {"id": 2, "method": "shutdown"},
        {"method": "exit"},
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, input=messages, capture_output=True,
        timeout=300, check=True,
    )
    assert b'"PTX001"' in done.stdout  # the early lint's diagnostics (and the worker's)
    # one start, after the early lint loaded the engine, before any of pygls's protocol; the
    # server's own start() at `initialize` finds it running
    assert "[['ptxlint.engine']]" in done.stderr.decode().splitlines()


@needs_pygls
def test_a_worker_started_is_stopped_when_the_server_cannot_start(tmp_path) -> None:
    code = """
from ptxlint.lsp import main_lsp, worker
import ptxlint.lsp.server

events = []
for name in ("start", "close"):
    def wrapped(self, original=getattr(worker.LintService, name), name=name):
        events.append(name)
        original(self)
    setattr(worker.LintService, name, wrapped)

def broken(*args, **kwargs):
    raise RuntimeError("the server cannot be built")

ptxlint.lsp.server.build_server = broken
try:
    main_lsp([])
except RuntimeError:
    print("raised", events)
"""
    assert _last_line(code) == "raised ['start', 'close']"


@needs_pygls
def test_an_unwritable_log_file_fails_before_any_worker_starts(tmp_path) -> None:
    code = f"""
from ptxlint.lsp import main_lsp, worker

started = []
original = worker.LintService.start

def start(self):
    started.append(True)
    original(self)

worker.LintService.start = start
try:
    main_lsp(["--log-file", {str(tmp_path / "missing" / "log.txt")!r}])
except OSError:
    print("raised", started)
"""
    assert _last_line(code) == "raised []"
