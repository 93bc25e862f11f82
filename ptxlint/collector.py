"""The cyclic garbage collector, paused while one file is linted.

A lint allocates millions of objects that live until the file is done (syntax nodes, tokens,
statements, findings), and the collector traversed them again and again: a quarter of the CPU
time of CUTLASS's GMMA header and of flashinfer's sample. A file's lint leaves only a few
hundred objects in cycles (the extractor's closures). ``engine.lint_kept`` pauses for the lint
alone; ``runner.lint_path`` pauses until the file's objects are let go and then collects the
young generation once (``collect_young``), which frees those cycles for about 1 ms.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused(collect_young: bool = False) -> Iterator[None]:
    """No cyclic collection inside; a caller's own pause is left as it was (then nothing is
    collected on the way out either)."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
            if collect_young:
                gc.collect(0)
