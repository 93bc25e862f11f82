"""Read nvcc's and ptxas's messages into (file, line, severity, text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# ptxas probe.ptx, line 12; error   : Duplicate definition of variable 't'
_PTXAS = re.compile(r"^ptxas\s+(?P<file>.+?), line (?P<line>\d+); (?P<sev>error|fatal|warning)\s*:"
                    r"\s*(?P<msg>.*)$")
# ptxas fatal   : Ptx assembly aborted due to errors
_PTXAS_GLOBAL = re.compile(r"^ptxas (?P<sev>error|fatal|warning)\s*:\s*(?P<msg>.*)$")
# kernel.cu(4): error: asm operand type size(8) does not match ...   (also "warning #549-D:")
_FRONTEND = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<sev>error|warning|catastrophic error)"
                       r"(?: #\d+-D)?:\s*(?P<msg>.*)$")
_NOISE = ("Ptx assembly aborted due to errors",)


@dataclass(frozen=True)
class Diagnostic:
    tool: str  # "ptxas" | "nvcc"
    file: str
    line: int  # 1-based; 0 when the tool named no line
    severity: str  # "error" | "warning" (fatal and catastrophic count as error)
    message: str

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def parse(text: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        match = _PTXAS.match(line)
        if match:
            out.append(Diagnostic("ptxas", match["file"], int(match["line"]),
                                  _severity(match["sev"]), match["msg"].strip()))
            continue
        match = _PTXAS_GLOBAL.match(line)
        if match:
            if match["msg"].strip() not in _NOISE:
                out.append(Diagnostic("ptxas", "", 0, _severity(match["sev"]),
                                      match["msg"].strip()))
            continue
        match = _FRONTEND.match(line)
        if match:
            out.append(Diagnostic("nvcc", match["file"], int(match["line"]),
                                  _severity(match["sev"]), match["msg"].strip()))
    return out


def _severity(word: str) -> str:
    return "warning" if word == "warning" else "error"
