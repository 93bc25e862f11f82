"""The cyclic garbage collector, paused while one file is linted.

A lint allocates millions of objects that live until the file is done (syntax nodes, tokens,
statements, findings), and the collector traversed them again and again: a quarter of the CPU
time of CUTLASS's GMMA header and of flashinfer's sample. A file's lint leaves only a few
hundred objects in cycles (the extractor's closures). ``engine.lint_kept`` pauses for the lint
alone; ``runner.lint_path`` pauses until the file's objects are let go and then collects the
young generation once (``collect_young``), which frees those cycles for about 1 ms.

The command line's own process also sets aside what its imports made (``keep_for_good``).
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


def keep_for_good() -> None:
    """Take every object alive now out of the collector's generations for the rest of the
    process (``gc.freeze``). The command line calls it once its modules and rules are loaded:
    their functions, classes and tables live until the process ends, yet every full
    collection traversed them again, the interpreter's own at exit included (10 to 15 ms of
    the 150 of `ptxlint check` on one small file). Only for a process that ends with the
    command: a host that lives on would keep whatever garbage is alive now."""
    gc.freeze()
