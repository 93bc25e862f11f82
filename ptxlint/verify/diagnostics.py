"""Read nvcc's and ptxas's messages into (file, line, severity, text)."""

from __future__ import annotations

import re

from ptxlint.value_class import value_class

# ptxas probe.ptx, line 12; error   : Duplicate definition of variable 't'
# ptxas probe.ptx, line 41; info    : Advisory: Modifier '.sp::ordered_metadata' should be ...
_PTXAS = re.compile(r"^ptxas\s+(?P<file>.+?), line (?P<line>\d+); "
                    r"(?P<sev>error|fatal|warning|info)\s*:\s*(?P<msg>.*)$")
# ptxas fatal   : Ptx assembly aborted due to errors
_PTXAS_GLOBAL = re.compile(r"^ptxas (?P<sev>error|fatal|warning)\s*:\s*(?P<msg>.*)$")
# kernel.cu(4): error: asm operand type size(8) does not match ...   (also "warning #549-D:")
_FRONTEND = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<sev>error|warning|catastrophic error)"
                       r"(?: #\d+-D)?:\s*(?P<msg>.*)$")
_NOISE = ("Ptx assembly aborted due to errors",)
# "ptxas warning : Program uses 32-bit address on line '35' which is conflicting with
# .address_size 64": the line is inside the message. ptxas 13.0 then aborts with a fatal error
# that has no line: "32-Bit ABI ... is not supported on sm_90 or higher architectures" for
# sm_90+, "32-Bit compilation is no longer supported" for sm_75 to sm_89. The warning names the
# cause and where it is, so it is escalated to the error and the lineless fatal dropped.
_LINE_IN_MESSAGE = re.compile(r"\bon line '(\d+)'")
_ADDRESS_32 = re.compile(r"32-bit address", re.I)
_ABI_32 = re.compile(r"32-Bit (?:ABI .* not supported|compilation is no longer supported)", re.I)


@value_class(slots=False)
class Diagnostic:
    """One message of nvcc or ptxas: the file and line it names, its severity and its text."""

    tool: str  # "ptxas" | "nvcc"
    file: str
    line: int  # 1-based; 0 when the tool named no line
    severity: str  # "error" | "warning" | "info" (fatal and catastrophic count as error)
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
            message = match["msg"].strip()
            if message not in _NOISE:
                where = _LINE_IN_MESSAGE.search(message)
                out.append(Diagnostic("ptxas", "", int(where[1]) if where else 0,
                                      _severity(match["sev"]), message))
            continue
        match = _FRONTEND.match(line)
        if match:
            out.append(Diagnostic("nvcc", match["file"], int(match["line"]),
                                  _severity(match["sev"]), match["msg"].strip()))
    return _escalate_32_bit(out)


def _escalate_32_bit(found: list[Diagnostic]) -> list[Diagnostic]:
    if not any(d.is_error and _ABI_32.search(d.message) for d in found):
        return found
    causes = [d for d in found if d.severity == "warning" and _ADDRESS_32.search(d.message)]
    if not causes:
        return found
    return [Diagnostic(d.tool, d.file, d.line, "error", d.message) if d in causes else d
            for d in found if not (d.is_error and _ABI_32.search(d.message))]


def _severity(word: str) -> str:
    return word if word in ("warning", "info") else "error"
