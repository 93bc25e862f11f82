"""Write a rendered report to stdout or a file without ever failing half-way.

Two hazards: a file name that is not UTF-8 reaches the report as a lone surrogate (Python's
``surrogateescape``), which no strict encoder writes; and a stdout whose encoding cannot hold
the text (``PYTHONIOENCODING=ascii``, a Windows code page). Both would end the run with a
traceback after the findings were computed, and ``--output`` would be left empty.

* JSON, SARIF (and the other JSON formats, JUnit XML) are UTF-8 by definition: written as
  UTF-8 bytes, an undecodable byte of a name spelled ``\\xNN`` inside its string (a JSON string
  cannot hold the byte itself).
* Text and GitHub annotations go to stdout in its own encoding, what it cannot hold
  backslash-escaped, an undecodable byte of a name as ``\\xNN``.
* A diff keeps names byte for byte: ``patch`` and ``git apply`` must find the file.
* ``--output`` is written to a temporary file beside it, then renamed: all or nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from typing import BinaryIO

from ptxlint import leftovers
from ptxlint.lazy_regex import on_first_use

_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKERS = on_first_use("[\x85\u2028\u2029]")
_JSON_FORMATS = ("json", "sarif", "json-lines", "gitlab", "rdjson")
_UTF8_FORMATS = (*_JSON_FORMATS, "junit")  # files for machines: UTF-8 whatever the terminal


def _escape(match: re.Match[str], json_string: bool) -> str:
    code = ord(match[0])
    text = f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
    return text.replace("\\", "\\\\") if json_string else text


def encode(report: str, fmt: str, encoding: str = "utf-8") -> bytes:
    """The bytes to write for ``report`` rendered as ``fmt`` (text, json, sarif, github, diff)."""
    if fmt == "diff":
        return report.encode("utf-8", "surrogateescape")
    if fmt in _JSON_FORMATS:
        # NEL and the Unicode line separators are legal raw in a JSON string, but a reader that
        # splits lines as Python's str.splitlines does would cut a json-lines record (or a file
        # name) in two there: escaped, they mean the same to a JSON parser
        text = _SURROGATE.sub(lambda m: _escape(m, True), report)
        return _LINE_BREAKERS().sub(lambda m: f"\\u{ord(m[0]):04x}", text).encode("utf-8")
    text = _SURROGATE.sub(lambda m: _escape(m, False), report)
    return text.encode(encoding or "utf-8", "backslashreplace")


def to_stdout(report: str, fmt: str) -> None:
    stream = sys.stdout
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if fmt in _UTF8_FORMATS:
        encoding = "utf-8"
    data = encode(report, fmt, encoding)
    if buffer is None:  # a replaced stdout (tests, embedding): hand it text it can hold
        stream.write(data.decode(encoding, "replace"))
        stream.flush()
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()


def to_file(report: str, fmt: str, path: str) -> None:
    """Write ``path`` atomically (OSError when it cannot be written; the old file stays)."""
    data = encode(report, fmt, "utf-8")
    target = os.path.realpath(path)  # a link to the report stays a link
    if os.path.exists(target) and not os.path.isfile(target):
        with open(target, "wb") as stream:  # /dev/stdout, a pipe: nothing to replace
            stream.write(data)
        return
    folder = os.path.dirname(target)
    # `-o reports/ptxlint.sarif` in a fresh CI checkout: the folder is made, as ruff's
    # --output-file does, rather than the report lost after the whole run
    with contextlib.suppress(FileExistsError):  # a file in the way: open says "Not a directory"
        os.makedirs(folder, exist_ok=True)
    # locked until renamed: a run that walks this folder meanwhile leaves it alone
    handle, tmp = leftovers.create(folder, "report-")
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            with contextlib.suppress(OSError):
                os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
