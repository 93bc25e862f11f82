"""Whether a function the protocol flows cannot read is a leaf of a project header without asm.

The flows read the file and the project headers it includes that hold asm
(:mod:`.included_helpers`); a call of a function defined elsewhere is one they cannot read,
which may take any step, and silences the protocol rules (``FunctionFlow.opaque_between``).
Many such calls are of small utilities in the project's other headers (DeepEP's
``math::advance_ptr``, a pointer plus a byte offset): a header with no ``asm`` holds no step of
its own, and a function of it whose body calls nothing but casts and the CUDA built-ins known
to take none (:func:`.toolkit_calls.toolkit_harmless`) takes none either, however it is called.

:func:`leaf_elsewhere` answers from the headers' text, not a parse: every definition of the
name it finds there (``name(...) {``, with the parameters and qualifiers between) must be such
a leaf, and at least one is found; a macro-looking word called in a body, a lambda, or a body
whose braces do not balance is no leaf. A header that holds asm is not read here (its functions
are the flows' to read).
"""

from __future__ import annotations

import re

from ptxlint.analysis.included_helpers import plain_headers
from ptxlint.analysis.toolkit_calls import HARMLESS_CALLS, toolkit_harmless
from ptxlint.frontends.cxx.defines import MAX_HEADER_BYTES, read_header_bytes

__all__ = ["leaf_elsewhere"]

# what a body may spell before a parenthesis without calling a function
_NOT_CALLS = frozenset(
    b"if for while switch return sizeof alignof decltype noexcept static_assert".split())
_CALLED = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>\s*)?\(")
_MACRO = re.compile(rb"_*[A-Z][A-Z0-9_]*")
# The most text looked at between a name and its body's brace (the parameters, qualifiers,
# a trailing return type), and the most body read.
_HEAD = 512
_BODY = 4096

def leaf_elsewhere(path: str | None, text: str, name: str) -> bool:
    """``name`` is defined, in the project headers without asm that the file at ``path``
    (whose text is ``text``) includes, only as leaves (the module's docstring)."""
    if path is None or not name.isidentifier():
        return False
    bodies: list[bytes] = []
    for header in plain_headers(path, text):  # (``may_take`` keeps the answer per file)
        data = read_header_bytes(header, None, MAX_HEADER_BYTES)
        found = _bodies(data, name) if data is not None else None
        if found is None:
            return False
        bodies.extend(found)
    return bool(bodies) and all(_leaf(body) for body in bodies)


def _bodies(data: bytes, name: str) -> list[bytes] | None:
    """The bodies of the definitions of ``name`` in ``data``; None where one cannot be read."""
    found: list[bytes] = []
    word = name.encode()
    for match in re.finditer(rb"\b" + re.escape(word) + rb"\s*\(", data):
        head_end = data.find(b"{", match.end(), match.end() + _HEAD)
        semicolon = data.find(b";", match.end(), head_end if head_end >= 0 else None)
        if head_end < 0 or 0 <= semicolon < head_end:
            continue  # a call, or a declaration without a body
        if not _parameters_close(data, match.end() - 1, head_end):
            continue
        end = _closing(data, head_end)
        if end is None:
            return None
        found.append(data[head_end + 1:end])
    return found


def _parameters_close(data: bytes, open_at: int, brace: int) -> bool:
    """The parenthesis at ``open_at`` closes before ``brace`` (a definition's parameters, not
    a call in an expression that a block follows)."""
    close = _matching(data, open_at, brace, 0x28, 0x29)  # ( )
    return close is not None and re.fullmatch(rb"[\s\w:&*<>,\->]*",
                                              data[close + 1:brace]) is not None


def _closing(data: bytes, brace: int) -> int | None:
    return _matching(data, brace, min(len(data), brace + _BODY), 0x7B, 0x7D)  # { }


def _matching(data: bytes, start: int, stop: int, opener: int, closer: int) -> int | None:
    """Where the ``opener`` byte at ``start`` is closed, before ``stop``; None where it is
    not (bytes compared as integers: no one-byte slice made per step)."""
    depth = 0
    for at in range(start, stop):
        ch = data[at]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return at
    return None


def _leaf(body: bytes) -> bool:
    """``body`` holds no asm, no lambda and no call but casts and harmless built-ins."""
    if b"asm" in body or b"[" in body and b"](" in body.replace(b" ", b""):
        return False
    for match in _CALLED.finditer(body):
        called = match.group(1)
        if called in _NOT_CALLS:
            continue
        if _MACRO.fullmatch(called):
            return False
        spelled = called.decode()
        if spelled not in HARMLESS_CALLS and not toolkit_harmless(spelled, True):
            return False
    return True
