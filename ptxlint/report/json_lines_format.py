"""``--output-format json-lines``: one JSON object per finding and line, the fields of
``--output-format json``'s findings (streams into ``jq -c``, log shippers, line-based tools)."""

from __future__ import annotations

import json

from ptxlint.report.json_format import finding_dict
from ptxlint.report.run_result import RunResult


def render(result: RunResult) -> str:
    return "".join(
        json.dumps(finding_dict(f, result), ensure_ascii=False) + "\n" for f in result.findings
    )
