"""The output formats beyond text/json/sarif/github, behind one dispatch for the CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.report.run_result import RunResult

EXTRA_FORMATS = ("concise", "json-lines", "junit", "gitlab", "rdjson")


def render(name: str, result: RunResult, *, quiet: bool = False) -> str:
    # imported here: the CLI lists the names on every run, and renders one format at most
    from ptxlint.report import (
        concise_format,
        gitlab_format,
        json_lines_format,
        junit_format,
        rdjson_format,
    )

    if name == "concise":
        return concise_format.render(result, quiet=quiet)
    if name == "json-lines":
        return json_lines_format.render(result)
    if name == "junit":
        return junit_format.render(result)
    if name == "gitlab":
        return gitlab_format.render(result)
    if name == "rdjson":
        return rdjson_format.render(result)
    raise ValueError(f"unknown output format {name!r}")
