"""``--verify``: confirm findings with the real toolchain (nvcc/ptxas).

``verify(result, VerifyOptions(...))`` fills ``RunResult.verifications``; ``toolchain.discover``
finds the tools; ``cli`` holds the command-line glue.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxlint.verify.identity import TOOLCHAIN_ERROR
    from ptxlint.verify.toolchain import Toolchain, ToolchainError, discover
    from ptxlint.verify.verdict import CONFIRMED, REFUTED, UNVERIFIABLE, Verdict
    from ptxlint.verify.verifier import VerifyOptions, verify

__all__ = ["CONFIRMED", "REFUTED", "TOOLCHAIN_ERROR", "UNVERIFIABLE", "Toolchain",
           "ToolchainError", "Verdict", "VerifyOptions", "discover", "verify"]

_HOMES = {
    "Toolchain": "toolchain", "ToolchainError": "toolchain", "discover": "toolchain",
    "CONFIRMED": "verdict", "REFUTED": "verdict", "UNVERIFIABLE": "verdict", "Verdict": "verdict",
    "TOOLCHAIN_ERROR": "identity", "VerifyOptions": "verifier", "verify": "verifier",
}


def __getattr__(name: str) -> Any:
    # Loaded on first use: `ptxlint check` without --verify never imports the verifier.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
