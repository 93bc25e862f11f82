"""The language server's first messages, read before pygls is loaded (``ptxlint.lsp.early``):
the ``initialize`` answer is the full server's, the first document's diagnostics are the ones
the full server publishes, and everything read early reaches the full server, which then goes
on as if it had read it itself."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import select
import subprocess
import sys
import time
from typing import IO, Any

import pytest

from ptxlint.lsp import early as early_reader
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pygls") is None, reason="pygls (ptxlint[lsp]) not installed"
)

BAD = (
    "__device__ unsigned f(unsigned a) {\n"
    "  unsigned d;\n"
    '  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n'
    "  return d;\n"
    "}\n"
)

READ_S = 60.0  # a loaded machine's server start-up, with room

CLIENTS: list[dict[str, Any]] = [
    {},
    {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-32"]}},
    {"general": {"positionEncodings": ["x-unknown"]}},
    {
        "textDocument": {"completion": {"completionItem": {"snippetSupport": True}}},
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
    },
]


class Client:
    def __init__(self, early: bool, log_file: str | None = None) -> None:
        env = {**os.environ, "PTXLINT_LSP_EARLY": "1" if early else "0"}
        command = [sys.executable, "-m", "ptxlint", "lsp"]
        if log_file:
            command += ["--log-file", log_file, "--log-level", "INFO"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        self.seen: list[dict[str, Any]] = []
        self.unread = b""  # read from the server, not yet a message

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.stdin.flush()

    def send_together(self, *messages: dict[str, Any]) -> None:
        """``messages`` in one write: the server reads them in one chunk."""
        self.stdin.write(b"".join(_frame(m) for m in messages))
        self.stdin.flush()

    def _more(self) -> None:
        """Read what the server wrote next; fail, not hang, where it writes nothing."""
        fd = self.stdout.fileno()
        assert select.select([fd], [], [], READ_S)[0], f"the server said nothing for {READ_S} s"
        data = os.read(fd, 1 << 16)
        assert data, "the server closed its output"
        self.unread += data

    def read(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self.unread:
            self._more()
        header, _, self.unread = self.unread.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1]) for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        while len(self.unread) < length:
            self._more()
        body, self.unread = self.unread[:length], self.unread[length:]
        message: dict[str, Any] = json.loads(body)
        self.seen.append(message)
        if "id" in message and "method" in message:  # a request of the server's: say yes
            self.send({"id": message["id"], "result": None})
        return message

    def until(self, wanted: Any) -> dict[str, Any]:
        while True:
            message = self.read()
            if wanted(message):
                return message

    def initialize(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        self.send({"id": 1, "method": "initialize",
                   "params": {"processId": None, "rootUri": None, "capabilities": capabilities}})
        answer = self.until(lambda m: m.get("id") == 1)
        self.send({"method": "initialized", "params": {}})
        return answer

    def open(self, uri: str, text: str) -> None:
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "cuda", "version": 1, "text": text}}})

    def diagnostics(self, version: int) -> list[dict[str, Any]]:
        message = self.until(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"].get("version") == version
        )
        found: list[dict[str, Any]] = message["params"]["diagnostics"]
        return found

    def finish(self) -> int:
        self.send({"id": 99, "method": "shutdown"})
        self.until(lambda m: m.get("id") == 99)
        self.send({"method": "exit"})
        return self.process.wait(timeout=60)


@pytest.mark.parametrize("capabilities", CLIENTS)
def test_the_early_initialize_answer_is_the_full_server_s(capabilities) -> None:
    answers = []
    for early in (True, False):
        client = Client(early)
        answers.append(client.initialize(capabilities)["result"])
        assert client.finish() == 0
    assert answers[0] == answers[1]


def test_the_first_document_s_diagnostics_go_out_before_the_server_loads(tmp_path) -> None:
    uri = (tmp_path / "k.cu").as_uri()
    published = []
    for early in (True, False):
        log = tmp_path / f"log-{early}.txt"
        client = Client(early, str(log))
        client.initialize({})
        client.open(uri, BAD)
        published.append(client.diagnostics(1))
        assert client.finish() == 0
        said = log.read_text()
        assert ("before loading the server" in said) == early
    assert [d["code"] for d in published[0]] == ["PTX001"]
    assert published[0] == published[1]


def test_the_full_server_goes_on_from_the_early_messages(tmp_path) -> None:
    uri = (tmp_path / "k.cu").as_uri()
    client = Client(early=True)
    client.initialize({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
    client.open(uri, BAD)
    assert [d["code"] for d in client.diagnostics(1)] == ["PTX001"]
    # initialized reached the full server: it registers its configuration-file watcher, so
    # it has loaded, and the edit below is its own, not the early reader's (``serve_edits``)
    client.until(lambda m: m.get("method") == "client/registerCapability")
    client.send({"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [MEND]}})
    assert client.diagnostics(2) == []  # %3 -> %1: the full server's incremental lint
    assert client.finish() == 0
    answers = [m for m in client.seen if m.get("id") == 1 and "method" not in m]
    assert len(answers) == 1  # the full server's own answer to the initialize was dropped


@pytest.mark.parametrize("early", [True, False])
def test_an_edit_read_with_the_opening_applies_to_the_document(tmp_path, early) -> None:
    # the full server opened a document in a task, after which an edit read in the same chunk
    # (or handed over by the early reader) found no document and was lost: the server went on
    # linting the text as opened
    uri = (tmp_path / "k.cu").as_uri()
    client = Client(early)
    client.initialize({})
    opening = {"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "cuda", "version": 1, "text": BAD}}}
    edit = {"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [MEND]}}
    client.send_together(opening, edit)
    assert client.diagnostics(2) == []
    client.send({"method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}})
    # the save's lint is the full server's: the edit reached its document
    assert client.diagnostics(2) == []
    assert client.finish() == 0


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _published(out: bytes) -> list[tuple[int, list[str]]]:
    """(version, codes) of each publishDiagnostics written to ``out``."""
    found = []
    while out:
        header, _, rest = out.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        message, out = json.loads(rest[:length]), rest[length:]
        if message.get("method") == "textDocument/publishDiagnostics":
            params = message["params"]
            found.append((params["version"], [d["code"] for d in params["diagnostics"]]))
    return found


def _early_session(tmp_path, *after: dict[str, Any]) -> tuple[Any, io.BytesIO]:
    """The early reader's first messages over a pipe holding initialize, initialized, the
    opening of BAD and then ``after``."""
    uri = (tmp_path / "k.cu").as_uri()
    messages = [
        {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "cuda", "version": 1, "text": BAD}}},
        *({**m, "params": {**m["params"], "textDocument": {"uri": uri, **m["params"].get(
            "textDocument", {})}}} for m in after),
    ]
    read, write = os.pipe()
    os.write(write, b"".join(_frame(m) for m in messages))
    out = io.BytesIO()
    try:
        return early_reader.read_first_messages(read, out, None), out
    finally:
        os.close(write)  # the reader sees the end of the input after the messages


def _edit(version: int, change: dict[str, Any]) -> dict[str, Any]:
    return {"method": "textDocument/didChange", "params": {
        "textDocument": {"version": version}, "contentChanges": [change]}}


# %3 -> %1 in BAD's template, and back
MEND = {"range": {"start": {"line": 2, "character": 24}, "end": {"line": 2, "character": 25}},
        "text": "1"}
BREAK = {**MEND, "text": "3"}


def test_edits_while_the_server_loads_are_linted_early(tmp_path) -> None:
    hover = {"id": 5, "method": "textDocument/hover",
             "params": {"position": {"line": 0, "character": 0}}}
    early, out = _early_session(tmp_path, _edit(2, MEND), _edit(3, BREAK), hover,
                                _edit(4, MEND))
    assert early.document is not None
    early_reader.serve_edits(early, lambda: True)
    assert _published(out.getvalue()) == [(1, ["PTX001"]), (2, []), (3, ["PTX001"])]
    # the request stops it: it and the edit after it are the full server's, after the others
    assert [json.loads(item).get("method") for item in early.items][-3:] == [
        "textDocument/didChange", "textDocument/didChange", "textDocument/hover"]
    rest = early.frames.next()  # read already, not yet taken: the full server's reader's
    assert isinstance(rest, bytes) and json.loads(rest)["params"]["textDocument"]["version"] == 4
    assert early.document.text == BAD


def test_edits_wait_for_the_full_server_once_it_has_loaded(tmp_path) -> None:
    early, out = _early_session(tmp_path, _edit(2, MEND))
    early_reader.serve_edits(early, lambda: False)
    assert _published(out.getvalue()) == [(1, ["PTX001"])]


def test_a_slow_first_lint_leaves_the_edits_to_the_full_server(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(early_reader, "EDIT_LINT_S", -1.0)
    early, out = _early_session(tmp_path, _edit(2, MEND))
    assert early.published is not None and early.document is None
    early_reader.serve_edits(early, lambda: True)
    assert _published(out.getvalue()) == [(1, ["PTX001"])]


def test_the_end_of_the_input_ends_the_early_edits(tmp_path) -> None:
    early, out = _early_session(tmp_path, _edit(2, MEND))
    early_reader.serve_edits(early, lambda: True)  # returns at the end, not waiting on
    assert _published(out.getvalue()) == [(1, ["PTX001"]), (2, [])]


def test_a_first_message_that_is_not_initialize_is_the_full_server_s() -> None:
    answers = []
    for early in (True, False):
        client = Client(early)
        client.send({"id": 7, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///k.cu"}, "position": {"line": 0, "character": 0}}})
        answers.append(client.until(lambda m: m.get("id") == 7))
        client.initialize({})
        assert client.finish() == 0
    assert answers[0] == answers[1]


def test_a_slow_client_is_served_by_the_full_server() -> None:
    client = Client(early=True)
    time.sleep(1.5)  # past the early reader's wait for initialize
    assert client.initialize({})["result"]["serverInfo"]["name"] == "ptxlint"
    assert client.finish() == 0
