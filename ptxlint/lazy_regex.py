"""Regular expressions compiled on first use, not at import.

``re.compile`` at module level costs every run the compile of every pattern of every module it
imports, used or not: 149 patterns at a small file's ``ptxlint check`` once, 108 of them never
matched there, about 18 ms of CPU in all. With every pattern that run does not match written
this way, it compiles 47: the 70 it no longer compiles took 9 ms of CPU. A pattern only some
inputs reach (a macro body, an include guard, a suppression comment, an LLVM constraint string)
is written

    _HEX = on_first_use(r"[0-9A-Fa-f]+")
    ...
    match = _HEX().match(text, i)

and compiled by its first call. The accessor is a ``functools.cache`` of no arguments: after
the first call it returns the compiled pattern from C, without a Python frame, and a hot loop
takes ``_HEX().match`` once before it starts. Patterns every run matches stay ``re.compile``d
at module level.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any, overload

# Python 3.11's re reads possessive repeats (``*+``, ``++``): a repeat that nothing after it could
# backtrack into keeps no backtracking state. Python 3.10, which ptxlint supports, rejects them
# ("multiple repeat"); there a pattern written ``X*{POSSESSIVE}`` is the greedy ``X*``, which
# matches the same text wherever nothing after the repeat can match what it would give back
# (tests/test_possessive_patterns.py checks each such pattern against its greedy spelling).
POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""


@overload
def on_first_use(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]: ...
@overload
def on_first_use(pattern: bytes, flags: int = 0) -> Callable[[], re.Pattern[bytes]]: ...


def on_first_use(pattern: str | bytes, flags: int = 0) -> Callable[[], re.Pattern[Any]]:
    """A function of no arguments that returns ``re.compile(pattern, flags)``, compiled on its
    first call and the same object on every later one."""
    return functools.cache(functools.partial(re.compile, pattern, flags))
