"""The first diagnostics, before pygls is loaded.

pygls and lsprotocol cost about half a second of imports (``lsprotocol.types`` alone 0.34 s on
the 16-core H200 host), more than the engine's imports and the lint of a small file together.
An editor that starts the server and opens a file at once would wait for them. So the server
reads its first messages itself, with the same framing reader the full server uses:

* ``initialize`` is answered with what the full server announces (``capabilities``);
* a small document opened right after ``initialized`` is linted in this process, and its
  diagnostics published as the full server would publish them (``wire``);
* then pygls is imported, in another thread, while this reader goes on answering edits of that
  document (``serve_edits``): a keystroke made while the server loads (half a second) is linted
  here at once, where it would wait for the import and a worker;
* then every message read so far is handed to the full server, in order, as if it had read
  them itself. Its own answer to the ``initialize`` it is handed is dropped
  (``server._Protocol``); the document and the edits it is handed are linted again by a
  worker, which publishes the same diagnostics for the same versions.

Anything else (a first message that is not ``initialize``, a request before the document, a
large document, a platform whose pipes ``select`` cannot wait on, ``PTXLINT_LSP_EARLY=0``)
hands over at once: the full server reads it as it always has. So does, while the server
loads, any message but an edit of the early document, and that document's edits where its
first lint took longer than ``EDIT_LINT_S``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ptxlint.lsp.capabilities import initialize_result, position_encoding
from ptxlint.lsp.framing import FrameReader

if TYPE_CHECKING:
    from ptxlint.engine import FileResult
    from ptxlint.lsp.linting import Linter
    from ptxlint.lsp.rule_docs import RuleDocs

log = logging.getLogger("ptxlint.lsp")

ENV_VAR = "PTXLINT_LSP_EARLY"
FIRST_MESSAGE_S = 1.0  # how long to wait for ``initialize`` before handing over
NEXT_MESSAGE_S = 0.25  # then for ``initialized`` and the first ``didOpen``
MAX_TEXT = 256 * 1024  # a larger document waits for a worker's lint, which has a deadline
WARNING_MESSAGE = 2  # the LSP's MessageType.Warning
# Edits are answered here only for a document whose first lint took at most this long: the
# reader answers nothing else while it lints, and the server's handover waits for it too.
EDIT_LINT_S = 0.1
POLL_S = 0.02  # how often the edit reader looks whether the server has loaded


@dataclass
class EarlyDocument:
    """The document published early, as its edits leave it."""

    uri: str
    path: str
    text: str
    encoding: str
    docs: RuleDocs


@dataclass
class Early:
    """What the early reader did: the messages it read (bodies and framing problems, in order),
    the reader holding the bytes past them, and the id of the ``initialize`` it answered."""

    frames: FrameReader = field(default_factory=FrameReader)
    items: list[bytes | str] = field(default_factory=list)
    answered: Any = None
    published: str | None = None  # the document whose diagnostics went out early
    told: list[str] = field(default_factory=list)  # configuration problems shown early
    linter: Linter | None = None  # the one the early lint loaded: the full server keeps it
    document: EarlyDocument | None = None  # the one whose edits are answered early
    fd: int = -1  # where the messages come from
    out: IO[bytes] | None = None  # where the answers go


def enabled() -> bool:
    return os.environ.get(ENV_VAR, "1") != "0" and sys.platform != "win32"


class _Reader:
    def __init__(self, fd: int, early: Early) -> None:
        self.fd = fd
        self.early = early
        self.done = False  # the input ended, or what came is the full server's to answer

    def next(self, timeout_s: float) -> dict[str, Any] | None:
        """The next message as JSON, or None: none came in time, or (``done``) the input
        ended or the next thing read is not a JSON-RPC object (the full server answers it)."""
        import select

        frames = self.early.frames
        deadline = time.monotonic() + timeout_s
        while True:
            item = frames.next()
            if item is not None:
                self.early.items.append(item)
                message = _json_of(item)
                if not isinstance(message, dict):
                    self.done = True
                    return None
                return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                self.done = True  # the full server's reader sees the end of the input too
                return None
            frames.feed(data)


def _json_of(item: bytes | str) -> Any:
    """A message body's JSON; None for a framing problem (``str``) or a body that is not JSON."""
    if isinstance(item, str):
        return None
    try:
        return json.loads(item)
    except ValueError:
        return None


def _send(out: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()


def read_first_messages(fd: int, out: IO[bytes], rule_docs_url: str | None) -> Early:
    """Answer ``initialize`` and publish the first document's diagnostics, if they come at
    once; return what was read for the full server."""
    early = Early(fd=fd, out=out)
    reader = _Reader(fd, early)
    message = reader.next(FIRST_MESSAGE_S)
    if message is None or message.get("method") != "initialize" or "id" not in message:
        return early
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    _send(out, {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(params)})
    early.answered = message["id"]
    message = reader.next(NEXT_MESSAGE_S)
    if message is None or message.get("method") != "initialized":
        return early
    message = reader.next(NEXT_MESSAGE_S)
    if message is None or message.get("method") != "textDocument/didOpen":
        return early
    item = (message.get("params") or {}).get("textDocument")
    if isinstance(item, dict):
        _publish_first(out, item, params, rule_docs_url, early)
    return early


def _tell(out: IO[bytes], early: Early, problem: str) -> None:
    """A configuration or plugin problem, shown as the full server shows it (``_tell``)."""
    early.told.append(problem)
    _send(out, {"jsonrpc": "2.0", "method": "window/showMessage",
                "params": {"type": WARNING_MESSAGE, "message": f"ptxlint: {problem}"}})


def _publish_first(
    out: IO[bytes],
    item: dict[str, Any],
    params: dict[str, Any],
    rule_docs_url: str | None,
    early: Early,
) -> None:
    uri, text, version = item.get("uri"), item.get("text"), item.get("version")
    language_id = item.get("languageId")
    if not (isinstance(uri, str) and isinstance(text, str) and isinstance(language_id, str)):
        return
    if len(text) > MAX_TEXT:
        return
    from pygls.uris import to_fs_path  # plain string work: none of pygls's protocol

    from ptxlint.lsp.conversions import sanitize
    from ptxlint.lsp.linting import Linter, lintable
    from ptxlint.lsp.rule_docs import RuleDocs

    path = to_fs_path(uri) or uri
    if not lintable(path, language_id):
        return
    options = params.get("initializationOptions")
    url = options.get("ruleDocsUrl") if isinstance(options, dict) else None
    text = sanitize(text)
    started = time.monotonic()
    try:
        linter = Linter(report=lambda problem: _tell(out, early, problem), warm_up=False)
        early.linter = linter
        linting = time.monotonic()
        result = linter.lint(path, text)
        linted = time.monotonic() - linting
    except Exception:  # the worker's lint of the same text reports it, with its deadline
        log.exception("the early lint of %s failed", path)
        return
    docs = RuleDocs({r.id: r for r in linter.rule_classes}, url or rule_docs_url)
    document = EarlyDocument(uri, path, text, position_encoding(params), docs)
    count = _publish(out, document, version, result)
    early.published = uri
    if linted <= EDIT_LINT_S:
        early.document = document
    log.info("published %d diagnostics for %s before loading the server (%.0f ms)",
             count, uri, (time.monotonic() - started) * 1000)


def _publish(out: IO[bytes], document: EarlyDocument, version: Any, result: FileResult) -> int:
    """Publish ``result``'s findings on ``document`` as the full server would; how many."""
    from ptxlint.lsp.conversions import LineIndex
    from ptxlint.lsp.wire import diagnostic_json

    index = LineIndex(document.text)
    diagnostics = [diagnostic_json(f, index, document.encoding, document.docs)
                   for f in result.findings]
    notification: dict[str, Any] = {"uri": document.uri, "diagnostics": diagnostics}
    if isinstance(version, int):
        notification["version"] = version
    _send(out, {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                "params": notification})
    return len(diagnostics)


def serve_edits(early: Early, loading: Callable[[], bool]) -> None:
    """While ``loading()`` holds (the full server's modules load in another thread), lint each
    edit of the document published early and publish its diagnostics, as the first. Stops at
    the first message that is anything else, which stays for the full server with the edits
    before it: it lints them again, and publishes the same diagnostics for their versions."""
    document, linter, out = early.document, early.linter, early.out
    if document is None or linter is None or out is None:
        return
    reader = _Reader(early.fd, early)
    while loading():
        message = reader.next(POLL_S)
        if message is None:
            if reader.done:
                return
            continue
        edited = _edited(document, message)
        if edited is None:
            return
        text, version = edited
        try:
            result = linter.lint(document.path, text)
        except Exception:
            log.exception("the early lint of an edit of %s failed", document.path)
            return
        document.text = text
        _publish(out, document, version, result)


def _edited(document: EarlyDocument, message: dict[str, Any]) -> tuple[str, Any] | None:
    """The text and version after ``message``, a ``didChange`` of ``document``; None for any
    other message, or one this reader cannot read (the full server answers it)."""
    from ptxlint.lsp.conversions import apply_change, sanitize

    if message.get("method") != "textDocument/didChange":
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    target, changes = params.get("textDocument"), params.get("contentChanges")
    if not (isinstance(target, dict) and target.get("uri") == document.uri
            and isinstance(changes, list)):
        return None
    text = document.text
    for change in changes:
        new = change.get("text") if isinstance(change, dict) else None
        if not isinstance(new, str):
            return None
        span = change.get("range")
        if span is None:
            text = new
            continue
        try:
            start = (span["start"]["line"], span["start"]["character"])
            end = (span["end"]["line"], span["end"]["character"])
        except (KeyError, TypeError):
            return None
        if not all(isinstance(n, int) for n in (*start, *end)):
            return None
        text = apply_change(text, start, end, new, document.encoding)
    if len(text) > MAX_TEXT:
        return None
    return sanitize(text), target.get("version")
