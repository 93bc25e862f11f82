"""``--verify``: confirm findings with the real toolchain (nvcc/ptxas).

``verify(result, VerifyOptions(...))`` fills ``RunResult.verifications``; ``toolchain.discover``
finds the tools; ``cli`` holds the command-line glue.
"""

from ptxlint.verify.toolchain import Toolchain, ToolchainError, discover
from ptxlint.verify.verdict import CONFIRMED, REFUTED, UNVERIFIABLE, Verdict
from ptxlint.verify.verifier import TOOLCHAIN_ERROR, VerifyOptions, verify

__all__ = ["CONFIRMED", "REFUTED", "TOOLCHAIN_ERROR", "UNVERIFIABLE", "Toolchain",
           "ToolchainError", "Verdict", "VerifyOptions", "discover", "verify"]
