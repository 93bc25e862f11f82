"""PTX107's evidence: the file compiled as written at -O3, and where nvcc placed the carry
consumer (``differential.carry_judge``); the compile is one of the verifier's plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.model import Finding
from ptxlint.verify import differential
from ptxlint.verify.identity import tool_id
from ptxlint.verify.probe_errors import compile_failure
from ptxlint.verify.recipes import CARRY
from ptxlint.verify.runner import UnsafeArgument
from ptxlint.verify.verdict import CONFIRMED, UNVERIFIABLE, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier


def plan(verifier: Verifier, finding: Finding, arch: str) -> None:
    """The compile of the file as written at -O3 that shows where nvcc placed the consumer."""
    nvcc = verifier.toolchain.nvcc
    source = verifier.result.sources.get(finding.path)
    if nvcc is None or verifier.toolchain.host_compiler is None:
        verifier.differential[id(finding)] = "the compile needs nvcc and a host compiler"
    elif source is None:
        verifier.differential[id(finding)] = "the source is not available"
    else:
        flags = verifier.flags(
            finding.path, verifier.defines(finding.statement) if finding.statement else ())
        try:
            job = differential.compile_job(nvcc.path, finding.path, source.text, arch, flags)
        except UnsafeArgument as exc:
            verifier.differential[id(finding)] = str(exc)
            return
        key = verifier.plan.add(f"diff:{job}", job, tool_id(verifier.toolchain, "nvcc"))
        verifier.differential[id(finding)] = (key, key)


# what PTX107 says of a consumer, an error or (volatile keeping the pair in order) a warning;
# its producer warning ("the carry flag 'add.cc.u32' sets is never consumed") does not
_CONSUMER_CLAIM = "reads the carry flag"


def verdict(verifier: Verifier, finding: Finding, arch: str) -> Verdict:
    tool = verifier.toolchain.label("nvcc")
    if _CONSUMER_CLAIM not in finding.message:
        # nothing is compiled for it, so no tool is named
        return unverifiable("a carry result nothing in the statement reads is no error, and "
                            "nothing to compile shows it; where the next asm statement reads "
                            "it, that consumer's finding carries the evidence", arch, "", CARRY)
    planned = verifier.differential.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(planned, arch, tool, CARRY)
    outcome = verifier.outcomes[planned[0]]
    if outcome.returncode != 0:
        return unverifiable(f"the file does not compile on its own "
                            f"({compile_failure(outcome, finding.path)}); pass --cuda-flags "
                            "with its include paths and defines", arch, tool, CARRY)
    statement = finding.statement
    assert statement is not None
    consumer = statement.source.text[finding.span.start:finding.span.end]
    confirmed, evidence = differential.carry_judge(
        outcome.output(differential.OUTPUT), statement, consumer, tool)
    return Verdict(CONFIRMED if confirmed else UNVERIFIABLE, tool, arch, evidence, CARRY)
