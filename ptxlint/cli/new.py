"""``ptxlint new``: a correct inline-asm wrapper for one PTX instruction form, printed."""

from __future__ import annotations

import sys

from ptxlint.cli.exits import EXIT_OK, UsageError


def cmd_new(opcode: str, dialect: str, name: str | None, kernel: bool) -> int:
    """``ptxlint new``: the wrapper on stdout; what the grammar cannot write is a usage error."""
    if kernel and dialect != "cuda":
        raise UsageError("--kernel writes a CUDA __global__ kernel: it goes with --dialect cuda")
    if name is not None and not name.isidentifier():
        raise UsageError(f"--name {name!r} is not an identifier")
    from ptxlint.generate import generate

    try:
        text = generate(opcode, dialect, name, kernel)
    except ValueError as error:  # SelectionError, NotExpressible
        raise UsageError(f"ptxlint new {opcode}: {error}") from None
    sys.stdout.write(text)
    return EXIT_OK
