"""PTX403's evidence: the statement's PTX probe written at the ``.version`` the finding names as
the newest its oldest toolkit accepts ("whose ptxas accepts PTX ISA 8.0 at most"), assembled by
the run's ptxas. ptxas gates each feature on the module's ``.version`` ("Feature 'st.async'
requires PTX ISA .version 8.1 or later"), so that message on the finding's own lines is the
older toolkit's refusal in the newer ptxas's words; a clean assembly at that version refutes
the claim. Any other message (an unknown modifier, the version not knowing the target) is
another reason, and confirms nothing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.model import Finding, Severity
from ptxlint.verify import ptx_probe
from ptxlint.verify.identity import ptxas_target, tool_id
from ptxlint.verify.probe_errors import finding_lines, last_error, ptx_errors, quote
from ptxlint.verify.recipes import ISA_PROBE, recipe_for
from ptxlint.verify.runner import Compile
from ptxlint.verify.stand_ins import value_sets
from ptxlint.verify.verdict import ANOTHER_REASON, CONFIRMED, REFUTED, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier

# the version the finding says the oldest toolkit's ptxas accepts at most (rules/ptx403's
# three messages all say it so)
_ACCEPTED = re.compile(r"accepts PTX ISA (\d+\.\d+) at most")


# the version the finding says the instruction needs, and the one ptxas asks for
_NEEDS = re.compile(r"needs PTX ISA (\d+)\.(\d+)")
_ASKED = re.compile(r"requires PTX ISA \.version (\d+)\.(\d+)")


def _version_key(match: re.Match[str] | None) -> tuple[int, int]:
    return (int(match[1]), int(match[2])) if match else (0, 0)


def _other_version(finding: Finding, message: str) -> str:
    """Where ptxas asks for another version than the finding says the instruction needs (the
    build breaks all the same, but a guard written from the finding would be wrong): said."""
    needs, asked = _NEEDS.search(finding.message), _ASKED.search(message)
    if needs is None or asked is None or _version_key(needs) == _version_key(asked):
        return ""
    return (f"; ptxas asks for PTX ISA {asked[1]}.{asked[2]}, where the finding says "
            f"{needs[1]}.{needs[2]}")


def accepted_isa(finding: Finding) -> str | None:
    """The ``.version`` the finding names as the newest its toolkit accepts, or None."""
    match = _ACCEPTED.search(finding.message)
    return match[1] if match else None


def plan(verifier: Verifier, finding: Finding, arch: str) -> None:
    """The statement's PTX probe at the accepted version, for ``arch``."""
    statement, ptxas = finding.statement, verifier.toolchain.ptxas
    assert statement is not None
    isa = accepted_isa(finding)
    target = ptxas_target(arch, verifier.toolchain) if ptxas is not None else None
    if ptxas is None:
        verifier.isa_probes[id(finding)] = "ptxas not found"
        return
    if isa is None:
        verifier.isa_probes[id(finding)] = "the finding names no PTX ISA version to probe at"
        return
    if target is None:
        verifier.isa_probes[id(finding)] = (f"{verifier.toolchain.label('ptxas')} does not "
                                            f"know {arch}")
        return
    try:
        sets, exact = value_sets(statement)
        probe = ptx_probe.build([statement], arch, isa, values=sets[:1])
    except ptx_probe.NotProbeable as exc:
        verifier.isa_probes[id(finding)] = f"no PTX probe: {exc}"
        return
    job = Compile((ptxas.path, f"-arch={target}", "-o", "{dir}/probe.cubin",
                   f"{{dir}}/{ptx_probe.PROBE_FILE}"),
                  ((ptx_probe.PROBE_FILE, probe.text),), produces=("probe.cubin",))
    key = verifier.plan.add(f"ptx:{probe.text}:{target}", job,
                            tool_id(verifier.toolchain, "ptxas"))
    verifier.isa_probes[id(finding)] = (key, probe, isa, exact)


def verdict(verifier: Verifier, finding: Finding, arch: str) -> Verdict:
    tool = verifier.toolchain.label("ptxas")
    planned = verifier.isa_probes.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(planned, arch, tool, ISA_PROBE)
    key, probe, isa, exact = planned
    outcome = verifier.outcomes[key]
    at = f" at .version {isa}"
    everyone = ptx_errors(probe, outcome)
    if outcome.returncode != 0 and not everyone:
        return unverifiable(f"the PTX probe{at} failed: {last_error(outcome)}", arch, tool,
                            ISA_PROBE)
    recipe = recipe_for(finding.rule, finding)
    lines = finding_lines(finding)
    # only a message ptxas puts on a line of the finding's instruction: one on another line is
    # another instruction's (its own finding), one on a line the probe wrote is the module's
    # (".version 7.0 does not support .target sm_90")
    own = [m.diagnostic for m in everyone
           if lines is not None and m.offset is not None and lines[0] <= m.offset < lines[1]]
    agreeing = [d for d in own if recipe.agrees and recipe.agrees.search(d.message)]
    if agreeing:
        match = max(agreeing, key=lambda d: _version_key(_ASKED.search(d.message)))
        return Verdict(CONFIRMED, tool, arch, f"{quote(match)} (the probe at .version {isa})"
                       + _other_version(finding, match.message), ISA_PROBE)
    if own:
        return unverifiable(f"{ANOTHER_REASON}{quote(own[0])} (the probe{at})", arch, tool,
                            ISA_PROBE)
    if everyone:
        return unverifiable(f"the probe{at} fails elsewhere: {quote(everyone[0].diagnostic)}",
                            arch, tool, ISA_PROBE)
    if not exact:
        return unverifiable(f"compiles cleanly{at} with stand-in values for its \"n\" operands",
                            arch, tool, ISA_PROBE)
    if finding.severity is not Severity.ERROR:
        return unverifiable(f"compiles cleanly{at}", arch, tool, ISA_PROBE)
    return Verdict(REFUTED, tool, arch, f"accepts the statement{at} (placed twice)", ISA_PROBE)
