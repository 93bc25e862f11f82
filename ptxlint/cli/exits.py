"""What the command line's exit codes mean, and the error that is the user's, not a crash."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.report.run_result import RunResult

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A bad argument or combination: exit 2 with its message on one line."""


def user_errors() -> tuple[type[Exception], ...]:
    """The errors that mean "bad input or set-up" (exit 2 with one line), not a crash."""
    from ptxlint.config import ConfigError
    from ptxlint.tier2.compile_db import CompileDbError
    from ptxlint.verify.toolchain import ToolchainError

    return (UsageError, ConfigError, ToolchainError, CompileDbError)


def exit_code(result: RunResult, fail_on: str) -> int:
    """A lint run's code: 2 for unreadable input or an internal error, 1 for a finding at or
    above ``fail_on``, else 0."""
    from ptxlint.model import Severity

    if result.errors or result.internal_errors:
        return EXIT_ERROR
    if fail_on == "never":
        return EXIT_OK
    threshold = Severity(fail_on).rank
    if any(f.severity.rank >= threshold for f in result.findings):
        return EXIT_FINDINGS
    return EXIT_OK
