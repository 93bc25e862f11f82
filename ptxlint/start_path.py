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


def _main_module(args: list[str]) -> str | None:
    """The module of ``-m`` in an interpreter's options (``-I -m x``, ``-Im x``, ``-mx``,
    ``-X importtime -m x``), None when it runs a script, ``-c`` or standard input."""
    n = 0
    while n < len(args):
        arg = args[n]
        if arg == "--" or not arg.startswith("-") or arg == "-":
            return None
        if arg.startswith("--"):  # --check-hash-based-pycs MODE; others take no value
            n += 2 if arg == "--check-hash-based-pycs" else 1
            continue
        for k, flag in enumerate(arg[1:], start=1):
            rest = arg[k + 1:]
            if flag == "c":
                return None
            if flag == "m":
                return rest or (args[n + 1] if n + 1 < len(args) else "")
            if flag in "XW":  # takes a value: the rest of this word, or the next one
                if not rest:
                    n += 1
                break
        n += 1
    return None


def started_as_ptxlint(argv: list[str] | None = None) -> bool:
    """Whether the interpreter's own command line is ``python [options] -m ptxlint[.sub]``
    (``sys.orig_argv``): a host program run as ``python -m tool`` that imports ptxlint keeps
    its ``sys.path``."""
    args = list(getattr(sys, "orig_argv", []) if argv is None else argv)[1:]
    module = _main_module(args)
    return module is not None and (module == "ptxlint" or module.startswith("ptxlint."))


def isolate() -> None:
    """Drop the working folder (the entry ``-m``/``-c`` added, and every empty or relative
    entry, which resolve against it) from ``sys.path``, and have child interpreters do the same.
    Kept when ptxlint itself was imported from it: then the checkout *is* ptxlint's source."""
    os.environ["PYTHONSAFEPATH"] = "1"  # an empty value would leave it off
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
