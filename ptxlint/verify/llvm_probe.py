"""Probe 5: llvmlite and CuTe DSL asm compiled by their own compilers, for a GPU target without a
GPU: the purity differential (PTX505).

The claim is that LLVM may delete, merge or move an asm declared without side effects. The probe
compiles the call with its result unused twice, as written (pure) and with the side effect
declared, and counts the effect (``atom.global.add``, ``%clock``) in each PTX. Fewer copies as
written is LLVM deleting it; the same count leaves the finding unverifiable (the optimizer may
still merge or move it elsewhere).

* llvmlite (``ir.InlineAsm``): the call as LLVM IR text, a device function whose parameters have
  the types the constraint letters name, compiled by llvmlite's own LLVM with its NVPTX target
  (``nvptx64-nvidia-cuda``) to PTX, then assembled by ptxas where one is found.
* Julia (``@asmcall``): LLVM.jl builds the same raw LLVM IR call, so llvmlite's LLVM compiles
  it as above.
* CuTe DSL (``llvm.inline_asm`` of ``cutlass._mlir.dialects``): a ``@cute.kernel`` holding the
  call with operands of those types, compiled by ``cute.compile`` (CuTe DSL's own MLIR and NVVM,
  no GPU needed); the PTX is ``compiled.__ptx__``. Never through llvmlite instead: CuTe DSL's
  lowering marks the call in ways raw LLVM IR does not (llvmlite's LLVM keeps a pure void asm
  that CuTe DSL deletes), so only CuTe DSL speaks for it.

The target is the one a C++ statement's probes get (``target``): ``--arch`` where the user
names one, else the lowest target that has every instruction the call spells (a ``wgmma`` call
compiles for sm_90a, a ``tcgen05`` one for sm_100a), sm_90 where any target has them all.

Each child runs isolated in its own scratch folder (``triton_probe.command``): never with the
linted checkout on its import path. The interpreters: ``PTXLINT_LLVMLITE_PYTHON`` and
``PTXLINT_CUTE_PYTHON``, else ptxlint's own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from ptxlint.model import AsmStatement, Finding
from ptxlint.verify import triton_probe
from ptxlint.verify.identity import probe_arch
from ptxlint.verify.ptx_probe import NotProbeable
from ptxlint.verify.runner import Compile
from ptxlint.verify.target_choice import DEFAULT_ARCH
from ptxlint.verify.verdict import CONFIRMED, UNVERIFIABLE, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier

METHOD = "llvm-purity"
PROBE_FILE = "llvm_probe.py"
PTX_OUTPUT = "probe.ptx"
# the LLVM type each NVPTX constraint letter binds
_LLVM_TYPE = {"h": "i16", "r": "i32", "l": "i64", "f": "float", "d": "double", "q": "i128"}
_CUTE_TYPE = {"h": "Int16", "r": "Int32", "l": "Int64", "f": "Float32", "d": "Float64"}
# Julia's @asmcall is raw LLVM IR too (LLVM.jl builds the call with no attributes): llvmlite's
# LLVM speaks for it, as for llvmlite's own calls
_APIS = ("llvmlite", "cute", "julia")


def target(verifier: Verifier, statement: AsmStatement) -> str:
    """The target a DSL's call is compiled for: the one its probes of a C++ statement would
    be (``identity.probe_arch``), so that a call that spells an architecture-specific
    instruction fails in ptxas, if at all, for the defect its finding names."""
    return probe_arch(statement, verifier.options.arch_for(statement), verifier.toolchain.archs)


def arch_specific(arch: str) -> str:
    """``arch`` as the architecture-specific target CuTe DSL compiles for (``sm_100`` and
    ``sm_100f``: ``sm_100a``, which has every feature of both)."""
    return arch if arch.endswith("a") else arch.rstrip("f") + "a"


def _python(tool: str) -> str:
    return os.environ.get(f"PTXLINT_{tool.upper()}_PYTHON") or sys.executable


@cache
def version(python: str, tool: str) -> str | None:
    """``llvmlite 0.50.0 (LLVM 22.1.0)`` / ``CuTe DSL 4.8.1`` in ``python``'s environment, or
    None when it is not installed there."""
    if tool == "llvmlite":
        code = ("import llvmlite, llvmlite.binding as b\n"
                "print('llvmlite %s (LLVM %s)' % (llvmlite.__version__, "
                "'.'.join(map(str, b.llvm_version_info))))\n")
    else:
        code = ("from importlib.metadata import version\nimport cutlass.cute\n"
                "print('CuTe DSL ' + version('nvidia-cutlass-dsl'))\n")
    try:
        with tempfile.TemporaryDirectory(prefix="ptxlint-llvm-") as scratch:
            done = subprocess.run(
                list(triton_probe.command(python, "-c", triton_probe.prelude(python) + code)),
                capture_output=True, text=True, timeout=300, check=False, cwd=scratch)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines() if done.returncode == 0 else []
    return lines[-1] if lines else None


_MISSING = {
    "llvmlite": "llvmlite is not installed for this Python (set PTXLINT_LLVMLITE_PYTHON to an "
                "interpreter that has it)",
    "cute": "CuTe DSL (nvidia-cutlass-dsl) is not installed for this Python (set "
            "PTXLINT_CUTE_PYTHON to an interpreter that has it)",
}


def interpreter(tool: str) -> tuple[str, str]:
    """(the Python that has ``tool``, ``"llvmlite"`` or ``"cute"``, and the tool's version):
    ``PTXLINT_<TOOL>_PYTHON`` else ptxlint's own; NotProbeable, saying so, where it lacks it."""
    python = _python(tool)
    found = version(python, tool)
    if found is None:
        raise NotProbeable(_MISSING[tool])
    return python, found


def _entries(statement: AsmStatement) -> tuple[list[str], list[str], list[str]]:
    """(output letters, input letters, clobber entries) of the constraint string."""
    call = statement.llvm
    if call is None or not call.constraints_known:
        raise NotProbeable("the constraint string is not known")
    outputs: list[str] = []
    inputs: list[str] = []
    clobbers: list[str] = []
    for entry in call.entries:
        if entry.opaque:
            raise NotProbeable("part of the constraint string is not known")
        text = entry.text
        if entry.role == "output":
            letter = text.lstrip("=&")
            if letter not in _LLVM_TYPE:
                raise NotProbeable(f"output constraint {text!r} names no register type")
            outputs.append(letter)
        elif entry.role == "input":
            if text.isdigit() and int(text) < len(outputs):
                inputs.append(outputs[int(text)])  # tied to an output: its type
            elif text in _LLVM_TYPE:
                inputs.append(text)
            else:
                raise NotProbeable(f"input constraint {text!r} is not a register the probe "
                                   "can pass")
        elif entry.role in ("clobber", "gcc-clobber"):
            clobbers.append(text)
    return outputs, inputs, clobbers


def _llvm_string(text: str) -> str:
    out: list[str] = []
    for ch in text:
        if ch in '"\\' or not (" " <= ch <= "~"):
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def llvm_ir(statement: AsmStatement, side_effects: bool, intel_dialect: bool = False) -> str:
    """A module holding one device function that calls the asm with its result unused;
    ``intel_dialect``: the call marked ``inteldialect``, as ``asm_dialect=AD_Intel`` marks it."""
    if statement.template.has_holes:
        raise NotProbeable("the asm string is not known")
    outputs, inputs, _ = _entries(statement)
    call = statement.llvm
    assert call is not None and call.constraints is not None
    types = [_LLVM_TYPE[x] for x in outputs]
    result = ("void" if not types else types[0] if len(types) == 1
              else "{" + ", ".join(types) + "}")
    params = ", ".join(f"{_LLVM_TYPE[x]} %a{k}" for k, x in enumerate(inputs))
    args = ", ".join(f"{_LLVM_TYPE[x]} %a{k}" for k, x in enumerate(inputs))
    sideeffect = (" sideeffect" if side_effects else "") + (" inteldialect" if intel_dialect
                                                             else "")
    named = "" if result == "void" else "%r = "
    return "\n".join([
        'target triple = "nvptx64-nvidia-cuda"',
        "",
        f"define void @ptxlint_probe({params}) {{",
        f"  {named}call {result} asm{sideeffect} {_llvm_string(statement.template.text)}, "
        f"{_llvm_string(call.constraints.text)}({args})",
        "  ret void",
        "}",
        "",
    ])


def llvmlite_script(statement: AsmStatement, side_effects: bool, python: str,
                    intel_dialect: bool = False, arch: str = DEFAULT_ARCH) -> str:
    ir = llvm_ir(statement, side_effects, intel_dialect)
    return triton_probe.prelude(python) + "\n".join([
        "import sys",
        "import llvmlite.binding as llvm",
        "",
        "llvm.initialize_all_targets()",
        "llvm.initialize_all_asmprinters()",
        f"module = llvm.parse_assembly({ir!r})",
        "module.verify()",
        'target = llvm.Target.from_triple("nvptx64-nvidia-cuda")',
        f'machine = target.create_target_machine(cpu="{arch}", opt=3)',
        "passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(3))",
        "passes.getModulePassManager().run(module, passes)",
        'open(sys.argv[1], "w").write(machine.emit_assembly(module))',
        "",
    ])


def cute_script(statement: AsmStatement, side_effects: bool, python: str,
                arch: str = DEFAULT_ARCH) -> str:
    if statement.template.has_holes:
        raise NotProbeable("the asm string is not known")
    outputs, inputs, _ = _entries(statement)
    call = statement.llvm
    assert call is not None and call.constraints is not None
    if len(outputs) > 1:
        raise NotProbeable("a CuTe DSL probe of several results is not built")
    if any(x not in _CUTE_TYPE for x in (*outputs, *inputs)):
        raise NotProbeable("an operand type CuTe DSL's probe does not declare")
    result = (f"cutlass.{_CUTE_TYPE[outputs[0]]}.mlir_type" if outputs else "None")
    operands = ", ".join(f"cutlass.{_CUTE_TYPE[x]}(a{k}).ir_value()"
                         for k, x in enumerate(inputs))
    params = ", ".join(f"a{k}: cutlass.{_CUTE_TYPE[x]}" for k, x in enumerate(inputs))
    values = ", ".join("1" for _ in inputs)
    return triton_probe.prelude(python) + "\n".join([
        "import sys",
        "import cutlass",
        "import cutlass.cute as cute",
        "from cutlass._mlir.dialects import llvm",
        "",
        "",
        "@cute.kernel",
        f"def probe({params}):",
        f"    llvm.inline_asm({result}, [{operands}], {statement.template.text!r}, "
        f"{call.constraints.text!r}, has_side_effects={side_effects})",
        "",
        "",
        "@cute.jit",
        f"def host({params}):",
        f"    probe({', '.join(f'a{k}' for k in range(len(inputs)))})"
        ".launch(grid=(1, 1, 1), block=(32, 1, 1))",
        "",
        "",
        f"compiled = cute.compile(host{', ' if values else ''}{values}, "
        f'options="--keep-ptx --gpu-arch {arch_specific(arch)}")',
        'open(sys.argv[1], "w").write(compiled.__ptx__)',
        "",
    ])


def jobs(statement: AsmStatement, ptxas: str | None, arch: str = DEFAULT_ARCH,
         ) -> tuple[tuple[Compile, Compile], str]:
    """The pure and impure compiles of the call with its result unused, for ``arch``, and the
    tool's name."""
    call = statement.llvm
    if call is None or call.api not in _APIS:
        raise NotProbeable("not an llvmlite, Julia or CuTe DSL call")
    build: Callable[..., str]
    if call.api == "cute":
        # CuTe DSL's MLIR lowering gives the call attributes raw LLVM IR does not have (a pure
        # void asm is deleted by CuTe DSL, kept by LLVM as llvmlite writes it): only CuTe DSL
        # speaks for CuTe DSL
        (python, tool), build = interpreter("cute"), cute_script
    else:
        (python, tool), build = interpreter("llvmlite"), llvmlite_script
    # ptxas only for llvmlite's PTX, whose target this probe picks; CuTe DSL's NVVM already
    # checked its own
    then = (((ptxas, f"-arch={arch}", "-o", "{dir}/probe.cubin", f"{{dir}}/{PTX_OUTPUT}"),)
            if ptxas and build is llvmlite_script else ())

    def one(side_effects: bool) -> Compile:
        return Compile(triton_probe.command(python, f"{{dir}}/{PROBE_FILE}",
                                            f"{{dir}}/{PTX_OUTPUT}"),
                       ((PROBE_FILE, build(statement, side_effects, python, arch=arch)),),
                       (PTX_OUTPUT,), then=then)

    return (one(False), one(True)), tool


def _arch(tool: str, arch: str) -> str:
    # CuTe DSL is asked for the arch-specific target: its sm_90 features need it
    return arch_specific(arch) if tool.startswith("CuTe") else arch


# --------------------------------------------------------------------------- in a verification


def plan(verifier: Verifier, finding: Finding) -> None:
    statement = finding.statement
    assert statement is not None
    ptxas = verifier.toolchain.ptxas
    try:
        (pure, impure), tool = jobs(statement, ptxas.path if ptxas else None,
                                    target(verifier, statement))
    except NotProbeable as exc:
        verifier.llvm[id(finding)] = str(exc)
        return
    verifier.llvm[id(finding)] = (verifier.plan.add(f"llvm:{pure}", pure, tool),
                                  verifier.plan.add(f"llvm:{impure}", impure, tool))


def verdict(verifier: Verifier, finding: Finding, why_clean: str) -> Verdict:
    statement = finding.statement
    assert statement is not None
    planned = verifier.llvm.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(f"no LLVM probe: {planned}", target(verifier, statement), "", METHOD)
    tool = verifier.plan.jobs[planned[0]][1]
    arch = _arch(tool, target(verifier, statement))
    pure, impure = (verifier.outcomes[k] for k in planned)
    for outcome in (pure, impure):
        if outcome.returncode != 0:
            lines = [ln for ln in outcome.messages.splitlines() if ln.strip()]
            return unverifiable(f"{tool} did not compile the probe: "
                                + (lines[-1][:300] if lines else f"exit {outcome.returncode}"),
                                arch, tool, METHOD)
    needle = statement.source.text[finding.span.start:finding.span.end].strip()
    kept = triton_probe.count(pure.output(PTX_OUTPUT), needle)
    wanted = triton_probe.count(impure.output(PTX_OUTPUT), needle)
    if kept < wanted:
        return Verdict(CONFIRMED, tool, arch,
                       f"{tool}: with its result unused, the PTX holds {kept} '{needle}' when "
                       f"the asm is pure and {wanted} when it has side effects: the compiler "
                       "deleted it", METHOD)
    if wanted == 0:
        return unverifiable(f"{tool} compiles the call, but '{needle}' is not in its PTX either "
                            "way", arch, tool, METHOD)
    return Verdict(UNVERIFIABLE, tool, arch, f"{tool} kept the pure asm in this probe: "
                   + why_clean, METHOD)
