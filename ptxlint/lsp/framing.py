"""Read LSP messages from a byte stream, surviving any bad frame.

pygls's reader trusts the ``Content-Length`` header: a missing or non-numeric one leaves it
skipping headers forever, a short one parses half a body and then reads the rest as headers, a
long one waits for bytes that never come, and ``10**12`` asks for a terabyte. Here:

* a header block without a usable length (missing, not a number, above ``MAX_BODY``) is answered
  with a parse error and skipped up to the next ``Content-Length:``;
* a body that is not JSON is answered with a parse error, and when it contains another
  ``Content-Length:`` (the length was wrong) reading resumes there;
* a body still incomplete after ``IDLE_S`` without new bytes is taken as far as it goes: what
  it holds up to the next header is tried as the message (a long length), the rest is read on.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger("ptxlint.lsp")

MAX_BODY = 64 * 1024 * 1024
IDLE_S = 1.0
_HEADER_START = re.compile(rb"Content-Length:", re.I)
_LENGTH = re.compile(rb"^Content-Length:[ \t]*([^\s]*)[ \t\r]*$", re.I | re.M)


class FrameReader:
    """Splits a byte stream into message bodies (``bytes``) and framing errors (``str``)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def _skip_to_next_header(self, start: int) -> None:
        match = _HEADER_START.search(self.buffer, start)
        del self.buffer[: match.start() if match else len(self.buffer)]

    def next(self, idle: bool = False) -> bytes | str | None:
        """The next body, or a problem to report, or None when more bytes are needed. With
        ``idle`` (no bytes came for a while), an incomplete body is settled instead."""
        while True:
            start = _HEADER_START.search(self.buffer)
            if start is None:
                # no header at all: keep only what may be the start of one
                if len(self.buffer) > 64:
                    del self.buffer[:-64]
                return None
            if start.start():
                junk = bytes(self.buffer[: start.start()]).strip()
                del self.buffer[: start.start()]
                if junk:
                    return f"skipped {len(junk)} bytes outside any message"
            end = self.buffer.find(b"\r\n\r\n")
            if end == -1:
                if len(self.buffer) > 8192:  # headers are short: this is no header block
                    self._skip_to_next_header(1)
                    return "a header block without an end"
                return None
            headers = bytes(self.buffer[:end])
            body_start = end + 4
            match = _LENGTH.search(headers)
            value = match.group(1) if match else b""
            if not value.isdigit() or len(value) > 12 or int(value) > MAX_BODY:
                self._skip_to_next_header(1)
                what = "missing" if match is None else f"{value[:20]!r}"
                return f"unusable Content-Length ({what})"
            length = int(value)
            available = len(self.buffer) - body_start
            if available < length:
                if not idle:
                    return None
                # a long length: the body ends where the next message's header starts
                later = _HEADER_START.search(self.buffer, body_start)
                stop = later.start() if later else len(self.buffer)
                body = bytes(self.buffer[body_start:stop])
                del self.buffer[:stop]
                return body
            body = bytes(self.buffer[body_start : body_start + length])
            if not _is_json(body):
                # A long length swallowed (part of) the next header: the message ends where
                # that header starts, and reading resumes there.
                reach = body_start + length + len("Content-Length:")
                later = _HEADER_START.search(self.buffer, body_start, reach)
                if later is not None:
                    candidate = bytes(self.buffer[body_start : later.start()])
                    del self.buffer[: later.start()]
                    if _is_json(candidate):
                        return candidate
                    return f"Content-Length {length} does not frame a JSON body"
            del self.buffer[: body_start + length]
            return body


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


async def serve(stop: threading.Event, fd: int, on_body: Callable[[bytes], None],
                on_problem: Callable[[str], None], frames: FrameReader | None = None,
                replay: Sequence[bytes | str] = ()) -> None:
    """Read ``fd`` until end of file or ``stop``; hand each body and each problem over.

    ``replay``: bodies and problems read before (``early``), handed over first, in order;
    ``frames``: the reader they came from, holding the bytes read past them."""
    import asyncio  # only the full server's loop: the early reader answers before it exists

    for item in replay:
        if isinstance(item, str):
            on_problem(item)
        else:
            on_body(item)
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def pump() -> None:  # a daemon thread: a read blocked at exit must not hold the process
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, data)
            except RuntimeError:  # the loop has closed: the server stopped serving (`exit`)
                return
            if not data:
                return

    threading.Thread(target=pump, name="ptxlint-lsp-stdin", daemon=True).start()
    frames = frames or FrameReader()
    _drain(frames, False, on_body, on_problem)  # whole messages the early reader left
    while not stop.is_set():
        try:
            data = await asyncio.wait_for(chunks.get(), IDLE_S)
        except asyncio.TimeoutError:
            idle = True
        else:
            if not data:
                break
            frames.feed(data)
            idle = False
        _drain(frames, idle, on_body, on_problem)


def _drain(frames: FrameReader, idle: bool, on_body: Callable[[bytes], None],
           on_problem: Callable[[str], None]) -> None:
    while True:
        item = frames.next(idle)
        if item is None:
            return
        if isinstance(item, str):
            log.warning("LSP framing: %s", item)
            on_problem(item)
        else:
            on_body(item)


def decode(body: bytes, object_hook: Callable[[dict[str, Any]], Any]) -> Any:
    return json.loads(body, object_hook=object_hook)
