"""Probe for PTX513: an asm call in LLVM's Intel dialect, compiled with and without it.

The claim is LLVM's, not the DSL's: its asm printer writes ``.intel_syntax`` before an
``inteldialect`` call's template and ``.att_syntax`` after it, whatever the target, and ptxas
stops at the first. The probe writes the call as LLVM IR (``llvm_probe.llvm_ir``: a device
function passing registers of the types the constraint letters name), once marked
``inteldialect`` and once not, both with a side effect so that no optimizer drops the call,
and has llvmlite's LLVM (its NVPTX target) print each to PTX, which ptxas then assembles.

* Confirmed: the plain call assembles, and ptxas rejects the marked one at a line of the
  dialect's.
* Refuted: ptxas assembles the marked call.
* Unverifiable: llvmlite or ptxas is missing, the plain call does not assemble either (the
  template has a defect of its own), or ptxas fails on the marked one for another reason.

The DSLs that spell the dialect (CuTe DSL, JAX Mosaic GPU) lower through their own LLVM builds;
the printer code is upstream LLVM's, so llvmlite's LLVM speaks for it, and the verdict names it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.model import Finding
from ptxlint.verify import llvm_probe, triton_probe
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.probe_errors import quote
from ptxlint.verify.ptx_probe import NotProbeable
from ptxlint.verify.runner import Compile, Outcome
from ptxlint.verify.target_choice import DEFAULT_ARCH
from ptxlint.verify.verdict import CONFIRMED, REFUTED, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.model import AsmStatement
    from ptxlint.verify.verifier import Verifier

METHOD = "llvm-dialect"
# the directives LLVM's printer adds for the dialect, as ptxas names them in its error
_DIALECT_LINE = re.compile(r"'\.(?:intel|att)_syntax'")


def jobs(statement: AsmStatement, ptxas: str | None, arch: str = DEFAULT_ARCH,
         ) -> tuple[tuple[Compile, Compile], str]:
    """The compiles of the call without and with the dialect, for ``arch``, and llvmlite's
    name."""
    if ptxas is None:
        raise NotProbeable("no ptxas found: only ptxas can say whether the PTX assembles")
    python, tool = llvm_probe.interpreter("llvmlite")
    assemble = ((ptxas, f"-arch={arch}", "-o", "{dir}/probe.cubin",
                 f"{{dir}}/{llvm_probe.PTX_OUTPUT}"),)

    def one(intel_dialect: bool) -> Compile:
        script = llvm_probe.llvmlite_script(statement, True, python, intel_dialect, arch)
        return Compile(triton_probe.command(python, f"{{dir}}/{llvm_probe.PROBE_FILE}",
                                            f"{{dir}}/{llvm_probe.PTX_OUTPUT}"),
                       ((llvm_probe.PROBE_FILE, script),), (llvm_probe.PTX_OUTPUT,),
                       then=assemble, produces=("probe.cubin",))

    return (one(False), one(True)), tool


def plan(verifier: Verifier, finding: Finding) -> None:
    statement = finding.statement
    assert statement is not None
    ptxas = verifier.toolchain.ptxas
    try:
        (plain, marked), tool = jobs(statement, ptxas.path if ptxas else None,
                                     llvm_probe.target(verifier, statement))
    except NotProbeable as exc:
        verifier.llvm[id(finding)] = str(exc)
        return
    verifier.llvm[id(finding)] = (verifier.plan.add(f"dialect:{plain}", plain, tool),
                                  verifier.plan.add(f"dialect:{marked}", marked, tool))


def verdict(verifier: Verifier, finding: Finding) -> Verdict:
    statement = finding.statement
    assert statement is not None
    arch = llvm_probe.target(verifier, statement)
    planned = verifier.llvm.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(f"no dialect probe: {planned}", arch, "", METHOD)
    tool = verifier.plan.jobs[planned[0]][1]
    plain, marked = (verifier.outcomes[k] for k in planned)
    return judged(plain, marked, tool, arch)


def judged(plain: Outcome, marked: Outcome, tool: str, arch: str = DEFAULT_ARCH) -> Verdict:
    """The verdict on the two compiles (``jobs``): the call without the dialect and with it."""
    if plain.returncode != 0:
        return unverifiable(f"the call does not assemble without the dialect either: "
                            f"{_last_line(plain)}", arch, tool, METHOD)
    if marked.returncode == 0:
        return Verdict(REFUTED, tool, arch, f"{tool}'s PTX of the call in the Intel dialect "
                       "assembles with ptxas", METHOD)
    error = next((d for d in parse(marked.messages)
                  if d.is_error and _DIALECT_LINE.search(d.message)), None)
    if error is None:
        return unverifiable(f"the call in the Intel dialect fails for another reason: "
                            f"{_last_line(marked)}", arch, tool, METHOD)
    return Verdict(CONFIRMED, tool, arch, f"{quote(error)[:300]} (the PTX its LLVM prints for "
                   "the call in the Intel dialect; without it the call assembles)", METHOD)


def _last_line(outcome: Outcome) -> str:
    lines = [line.strip() for line in outcome.messages.splitlines() if line.strip()]
    return lines[-1][:300] if lines else f"exit {outcome.returncode}"
