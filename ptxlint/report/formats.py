"""The output formats beyond text/json/sarif/github, behind one dispatch for the CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.report.run_result import RunResult

EXTRA_FORMATS = (
    "concise", "json-lines", "junit", "gitlab", "rdjson", "grouped", "full", "pylint", "azure",
)


def render(name: str, result: RunResult, *, quiet: bool = False, show_info: bool = True) -> str:
    # imported here: the CLI lists the names on every run, and renders one format at most
    from ptxlint.report import (
        azure_format,
        concise_format,
        full_format,
        gitlab_format,
        grouped_format,
        json_lines_format,
        junit_format,
        pylint_format,
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
    if name == "grouped":
        return grouped_format.render(result, quiet=quiet, show_info=show_info)
    if name == "full":
        return full_format.render(result, quiet=quiet, show_info=show_info)
    if name == "pylint":
        return pylint_format.render(result)
    if name == "azure":
        return azure_format.render(result)
    raise ValueError(f"unknown output format {name!r}")
