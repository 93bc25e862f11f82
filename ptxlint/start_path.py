"""Keep the working folder off the import path of ptxlint's own process and of the Python
processes it starts.

``python -m ptxlint`` puts the working folder first on ``sys.path`` (``python -c`` puts ``''``,
the same folder), so a checkout being linted that holds ``tree_sitter.py``, ``platformdirs.py``
or a ``*.dist-info`` declaring a ``ptxlint.rules`` entry point would be imported as ptxlint's
own code. By the time this runs, Python has imported only its start-up modules and ``ptxlint``
itself (which a checkout's own ``ptxlint/`` folder would already have replaced: nothing in
ptxlint can undo that, hence ``python -I -m ptxlint`` or the console script in the docs).

Child interpreters are covered by ``PYTHONSAFEPATH=1`` in the environment (Python 3.11 and
later): multiprocessing starts its spawn and forkserver workers as ``python -c ...`` in the
same working folder, and they import ``multiprocessing`` itself before they learn their parent's
``sys.path``. A parent started with ``-I`` passes ``-I`` on to them on every version.
"""

from __future__ import annotations

import os
import sys


def _same_folder(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def isolate() -> None:
    """Drop the working folder (the entry ``-m``/``-c`` added, and every empty or relative
    entry, which resolve against it) from ``sys.path``, and have child interpreters do the same.
    Kept when ptxlint itself was imported from it: then the checkout *is* ptxlint's source."""
    os.environ.setdefault("PYTHONSAFEPATH", "1")
    if sys.flags.isolated or getattr(sys.flags, "safe_path", False):
        return
    try:
        here = os.getcwd()
    except OSError:
        here = None
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kept: list[str] = []
    for n, entry in enumerate(sys.path):
        if not entry or not os.path.isabs(entry):
            continue
        if n == 0 and here is not None and _same_folder(entry, here) and not _same_folder(
            entry, package
        ):
            continue
        kept.append(entry)
    sys.path[:] = kept
