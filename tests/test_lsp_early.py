"""The language server's first messages, read before pygls is loaded (``ptxlint.lsp.early``):
the ``initialize`` answer is the full server's, the first document's diagnostics are the ones
the full server publishes, and everything read early reaches the full server, which then goes
on as if it had read it itself."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from typing import IO, Any

import pytest

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

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.stdin.flush()

    def read(self) -> dict[str, Any]:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = self.stdout.read(1)
            assert byte, "the server closed its output"
            header += byte
        length = next(
            int(line.split(b":")[1]) for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        message: dict[str, Any] = json.loads(self.stdout.read(length))
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
    change = {"range": {"start": {"line": 2, "character": 24},
                        "end": {"line": 2, "character": 25}}, "text": "1"}
    client.send({"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]}})
    assert client.diagnostics(2) == []  # %3 -> %1: the full server's incremental lint
    assert client.finish() == 0
    answers = [m for m in client.seen if m.get("id") == 1 and "method" not in m]
    assert len(answers) == 1  # the full server's own answer to the initialize was dropped
    # initialized reached the full server: it registered its configuration-file watcher
    assert any(m.get("method") == "client/registerCapability" for m in client.seen)


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
