"""Probe 6: CuTe DSL's ``cute.arch.inline_ptx`` compiled by ``cute.compile``, for a GPU target
without a GPU: what its NVVM lowering makes of the call (PTX508, PTX510, PTX512).

The probe is a ``@cute.kernel`` holding the call with the statement's own PTX (its placeholders
as written), its write-only types, and its arguments: a constant where the statement has one
(the claim of PTX508 is about any constant, so ``1`` stands in), else a kernel parameter of the
type its constraint letter names. Each parameter is loaded by its own ``ld.param``, so the PTX
says which argument every register of the inline asm came from:

* PTX508 (a constant lowered to the immediate ``n``): confirmed by ptxas rejecting the kernel,
  refuted by a clean compile;
* PTX510 and PTX512 (a placeholder that reads another argument than its number names):
  confirmed where the asm's register at a placeholder was loaded from another parameter than
  the one the placeholder names, refuted where every placeholder reads its own.

The child runs isolated in its own scratch folder (``triton_probe.command``), with the
interpreter ``PTXLINT_CUTE_PYTHON`` names, else ptxlint's own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.model import HOLE, AsmStatement, Finding
from ptxlint.verify import llvm_probe, triton_probe
from ptxlint.verify.asm_blocks import asm_blocks
from ptxlint.verify.ptx_probe import NotProbeable
from ptxlint.verify.runner import Compile
from ptxlint.verify.target_choice import DEFAULT_ARCH
from ptxlint.verify.verdict import CONFIRMED, REFUTED, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.model_llvm import PtxPlaceholder
    from ptxlint.verify.verifier import Verifier

METHOD = "cute-inline-ptx"
PROBE_FILE = "inline_ptx_probe.py"
PTX_OUTPUT = "probe.ptx"
_NUMERIC = {"h": "Int16", "r": "Int32", "l": "Int64", "f": "Float32", "d": "Float64"}
_LISTS = {"r": "read_only_args", "w": "write_only_types", "rw": "read_write_args"}
_PARAM_LOAD = re.compile(r"ld\.param\.\w+\s+(%\w+),\s*\[\w*?_param_(\d+)\]")
_COPY = re.compile(r"mov\.\w+\s+(%\w+),\s*(%\w+);")
_PTXAS_ERROR = re.compile(r"ptxas application ptx input, line \d+; error\s*:\s*(.*)")
# an argument whose type the source does not say stands in as this (the claims are about which
# register an argument lands in, or a constant's slot, not about the other arguments' types)
_STAND_IN = "r"


def written_ptx(statement: AsmStatement) -> str:
    """The call's PTX as the user wrote it: each ``$K`` put back as the placeholder it was."""
    call = statement.llvm
    assert call is not None
    by_span = {(p.span.start, p.span.end): p for p in call.placeholders}
    text, starts, ends = statement.template.text, statement.template.char_starts, \
        statement.template.char_ends
    out: list[str] = []
    i = 0
    while i < len(text):
        p = by_span.get((starts[i], ends[i]))
        if p is not None and text[i] == "$":
            j = i + 1
            while j < len(text) and text[j].isdigit() and (starts[j], ends[j]) == (starts[i],
                                                                                      ends[i]):
                j += 1
            out.append(f"{{${p.kind}{p.number}}}")
            i = j
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _lists(statement: AsmStatement) -> tuple[list[str], list[str], list[str]]:
    """(read-write letters, write-only letters, read-only letters or 'n'), from the lowered
    constraint string: read-write and write-only outputs first, then the read-only inputs."""
    call = statement.llvm
    assert call is not None
    counts = dict(call.role_counts)
    if "predicate" in counts:
        raise NotProbeable("a call with a predicate is not built")
    if any(kind not in counts for kind in ("rw", "w", "r")):
        raise NotProbeable("an argument list is not a literal list")
    letters = [_STAND_IN if HOLE in e.text else e.text.lstrip("=") for e in call.entries]
    if any(not x for x in letters):
        raise NotProbeable("an empty constraint")
    rw, w, r = counts["rw"], counts["w"], counts["r"]
    return letters[:rw], letters[rw:rw + w], letters[rw + w:rw + w + r]


def script(statement: AsmStatement, python: str, arch: str = DEFAULT_ARCH,
           ) -> tuple[str, dict[tuple[str, int], int]]:
    """The probe program, for ``arch`` as CuTe DSL's architecture-specific target, and the
    kernel parameter each (kind, number) argument is."""
    if statement.template.has_holes:
        raise NotProbeable("the PTX string is not known")
    rw, w, r = _lists(statement)
    params: list[str] = []
    which: dict[tuple[str, int], int] = {}

    def param(kind: str, number: int, letter: str) -> str:
        if letter not in _NUMERIC:
            raise NotProbeable(f"an operand of constraint '{letter}' the probe does not declare")
        which[(kind, number)] = len(params)
        params.append(f"a{len(params)}: cutlass.{_NUMERIC[letter]}")
        return f"a{len(params) - 1}"

    read_write = [param("rw", k, x) for k, x in enumerate(rw)]
    read_only = ["1" if x == "n" else param("r", k, x) for k, x in enumerate(r)]
    if any(x not in _NUMERIC for x in w):
        raise NotProbeable("a result type the probe does not declare")
    types = [f"cutlass.{_NUMERIC[x]}" for x in w]
    names = ", ".join(p.split(":")[0] for p in params)
    values = ", ".join("1.0" if "Float" in p else str(k + 2) for k, p in enumerate(params))
    program = triton_probe.prelude(python) + "\n".join([
        "import sys",
        "import cutlass",
        "import cutlass.cute as cute",
        "",
        "",
        "@cute.kernel",
        f"def probe({', '.join(params)}):",
        f"    cute.arch.inline_ptx({written_ptx(statement)!r}, "
        f"write_only_types=[{', '.join(types)}], read_only_args=[{', '.join(read_only)}], "
        f"read_write_args=[{', '.join(read_write)}])",
        "",
        "",
        "@cute.jit",
        f"def host({', '.join(params)}):",
        f"    probe({names}).launch(grid=(1, 1, 1), block=(32, 1, 1))",
        "",
        "",
        f"compiled = cute.compile(host{', ' if values else ''}{values}, "
        f'options="--keep-ptx --gpu-arch {llvm_probe.arch_specific(arch)}")',
        'open(sys.argv[1], "w").write(compiled.__ptx__)',
        "",
    ])
    return program, which


def job(statement: AsmStatement, arch: str = DEFAULT_ARCH) -> tuple[Compile, str]:
    call = statement.llvm
    if call is None or call.api != "cute-ptx":
        raise NotProbeable("not a CuTe DSL inline_ptx call")
    python, tool = llvm_probe.interpreter("cute")
    program, _ = script(statement, python, arch)
    return Compile(triton_probe.command(python, f"{{dir}}/{PROBE_FILE}", f"{{dir}}/{PTX_OUTPUT}"),
                   ((PROBE_FILE, program),), (PTX_OUTPUT,)), tool


def plan(verifier: Verifier, finding: Finding) -> None:
    statement = finding.statement
    assert statement is not None
    try:
        compile_, tool = job(statement, llvm_probe.target(verifier, statement))
    except NotProbeable as exc:
        verifier.llvm[id(finding)] = str(exc)
        return
    key = verifier.plan.add(f"inline-ptx:{compile_}", compile_, tool)
    verifier.llvm[id(finding)] = (key, key)


def sources(ptx: str) -> dict[str, int]:
    """Register -> the kernel parameter it holds (through plain copies)."""
    found = {m.group(1): int(m.group(2)) for m in _PARAM_LOAD.finditer(ptx)}
    for m in _COPY.finditer(ptx):
        if m.group(2) in found:
            found.setdefault(m.group(1), found[m.group(2)])
    return found


def registers(statement: AsmStatement, ptx: str) -> dict[int, str] | None:
    """``$K`` -> the register the inline asm in ``ptx`` has there, or None where the asm is not
    found as the template spells it."""
    template = statement.template.text
    parts = re.split(r"\$(\d+)", template)
    pattern = ""
    order: list[int] = []
    for k, part in enumerate(parts):
        if k % 2:
            order.append(int(part))
            pattern += r"(%\w+|[-\w.]+)"
        else:
            pattern += r"\s*".join(re.escape(w) for w in part.split())
            if part[-1:].isspace():
                pattern += r"\s*"
    for block in asm_blocks(ptx):
        m = re.search(pattern, block.text)
        if m is not None:
            return {k: m.group(i + 1) for i, k in enumerate(order)}
    return None


def _misread(statement: AsmStatement, ptx: str, which: dict[tuple[str, int], int],
             at: PtxPlaceholder | None) -> list[str]:
    call = statement.llvm
    assert call is not None
    held = sources(ptx)
    regs = registers(statement, ptx)
    if regs is None:
        raise NotProbeable("the inline asm is not found in the PTX as the template spells it")
    names = {v: k for k, v in which.items()}
    wrong: list[str] = []
    seen: set[tuple[str, int]] = set()
    # the placeholder at the finding first; the others show the same numbering too
    for p in sorted(call.placeholders, key=lambda p: p is not at):
        reg = regs.get(p.operand)
        if p.kind == "w" or reg is None or (p.kind, p.number) in seen:
            continue  # a write-only register is no argument's: which result it is shows at run
        seen.add((p.kind, p.number))
        want = which.get((p.kind, p.number))
        got = held.get(reg)
        name = f"'{{${p.kind}{p.number}}}' is {reg}"
        if got is None and want is not None:
            wrong.append(f"{name}, which no argument was loaded into (a result's register)")
        elif got is not None and got != want:
            kind, number = names[got]
            wrong.append(f"{name}, loaded from {_LISTS[kind]}[{number}]"
                         + (f", not {_LISTS[p.kind]}[{p.number}]" if want is not None
                            else f" ({_LISTS[p.kind]} has no element {p.number})"))
    return wrong


def verdict(verifier: Verifier, finding: Finding) -> Verdict:
    statement = finding.statement
    assert statement is not None
    arch = llvm_probe.arch_specific(llvm_probe.target(verifier, statement))
    planned = verifier.llvm.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(f"no inline_ptx probe: {planned}", arch, "", METHOD)
    tool = verifier.plan.jobs[planned[0]][1]
    outcome = verifier.outcomes[planned[0]]
    lines = [ln for ln in outcome.messages.splitlines() if ln.strip()]
    if finding.rule == "PTX508":
        if outcome.returncode == 0:
            return Verdict(REFUTED, tool, arch, f"{tool} compiles the kernel with the constant "
                           "in place", METHOD)
        said = next((m.group(1).strip() for ln in lines if (m := _PTXAS_ERROR.search(ln))), "")
        if "Arguments mismatch" in said or "Unexpected instruction types" in said:
            return Verdict(CONFIRMED, tool, arch, f"{tool}: ptxas: {said}{_standing(statement)}",
                           METHOD)
        return unverifiable(f"{tool} did not compile the probe: "
                            + (lines[-1][:300] if lines else f"exit {outcome.returncode}"),
                            arch, tool, METHOD)
    if outcome.returncode != 0:
        return unverifiable(f"{tool} did not compile the probe: "
                            + (lines[-1][:300] if lines else f"exit {outcome.returncode}"),
                            arch, tool, METHOD)
    call = statement.llvm
    assert call is not None
    _, which = script(statement, llvm_probe._python("cute"), arch)
    at = None
    if finding.rule == "PTX510":
        at = next((p for p in call.placeholders
                   if p.span.start <= finding.span.start < p.span.end), None)
    try:
        wrong = _misread(statement, outcome.output(PTX_OUTPUT), which, at)
    except NotProbeable as exc:
        return unverifiable(str(exc), arch, tool, METHOD)
    if wrong:
        return Verdict(CONFIRMED, tool, arch,
                       f"{tool}: " + "; ".join(wrong[:3]) + _standing(statement), METHOD)
    return Verdict(REFUTED, tool, arch, f"{tool}: every placeholder reads the argument its number "
                   "names" + _standing(statement), METHOD)


def _standing(statement: AsmStatement) -> str:
    call = statement.llvm
    unknown = call is not None and any(HOLE in e.text for e in call.entries)
    return " (arguments of unknown type passed as Int32)" if unknown else ""
