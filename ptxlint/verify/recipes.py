"""For each rule: which probe can check its claim, and which compiler words agree with it.

A finding is *confirmed* only by an error whose text says the same thing (a Duplicate
definition for PTX201, not any syntax error), *refuted* when the probe compiles cleanly, and
*unverifiable* otherwise. New rules get a recipe here; a rule without one is unverifiable.

WHOLE_FILE compiles the real file (nvcc -ptx, then ptxas) once per file: the evidence for claims
a per-statement probe cannot judge (a non-constant "n" expression, an operand of a user-defined
type). Listed after CU, it is a fallback: planned only where the .cu probe cannot be built.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.analysis.register_types import NARROW_GLOBAL_CLAIM
from ptxlint.analysis.shared_conversion import OFFSET_CLAIM
from ptxlint.model import Severity
from ptxlint.value_class import value_class

if TYPE_CHECKING:
    from ptxlint.model import Finding, Operand

PTX, CU, DIFFERENTIAL, NONE = "ptx-probe", "cu-probe", "differential", "none"
# Python's LLVM-syntax calls: Triton compiles the call itself (verify/triton_probe.py)
TRITON, TRITON_PURITY = "triton", "triton-purity"
# the call compiled as written, and the register LLVM bound the operand to read from its PTX
TRITON_WIDTH = "triton-width"
# llvmlite's and CuTe DSL's calls: their own compilers, pure against impure (verify/llvm_probe.py)
LLVM_PURITY = "llvm-purity"
# an asm call in LLVM's Intel dialect, printed by llvmlite's LLVM with and without it, then
# assembled by ptxas (verify/dialect_probe.py)
LLVM_DIALECT = "llvm-dialect"
WHOLE_FILE = "whole-file"
# the statement alone in a kernel of its own, as written and with a variant (verify/harness.py)
FUNCTION = "function-probe"
# the file compiled as written at -O3: where nvcc placed a carry consumer (PTX107)
CARRY = "carry-placement"
# the file compiled for sm_90a: ptxas's C7517/C7519 info lines about the wgmma protocol
WGMMA_INFO = "ptxas-wgmma-info"
# CuTe DSL's inline_ptx in a kernel compiled by cute.compile (verify/inline_ptx_probe.py)
INLINE_PTX = "cute-inline-ptx"
# the statement's PTX probe at the .version a PTX403 finding names as the newest its oldest
# toolkit accepts (verify/isa_probe.py)
ISA_PROBE = "ptx-isa-probe"


@value_class(slots=False)
class Recipe:
    """How the toolchain can check one rule's claim: the probes to run, and which compiler messages
    agree with it."""

    probes: tuple[str, ...]  # PTX and/or CU (then WHOLE_FILE), or WHOLE_FILE, DIFFERENTIAL,
    # CARRY, NONE
    agrees: re.Pattern[str] | None = None  # compiler messages that state the finding's claim
    why_none: str = ""  # for NONE: why the compiler cannot speak to this claim
    arch_sensitive: bool = False  # probe at the arches the finding names
    # False where a clean compile does not contradict the claim (it fails only at run time):
    # the finding then stays unverifiable with why_clean instead of being refuted
    refutable: bool = True
    why_clean: str = ""
    # ptxas names the finding's own lines in the words that confirm it (verify.probe_errors.
    # finding_lines); False where it notices the defect later: a missing ';' at the next
    # instruction, an unbalanced brace at the end
    own_lines: bool = True


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


RECIPES: dict[str, Recipe] = {
    "PTX001": Recipe((CU,), _p(r"asm operand index|Internal Compiler Error|operand.*(named|"
                               r"symbolic)|%\[")),
    "PTX002": Recipe((CU,), _p(r"constraint letter|not allowed inside a __device__|does not "
                               r"match type/size|cc clobber|unknown register name|constraint")),
    "PTX003": Recipe((CU,), _p(r"only one constraint letter")),
    "PTX004": Recipe((CU,), _p(r"does not match type/size implied by constraint|more than one "
                               r"conversion function|no suitable conversion")),
    # an operand of a user-defined type (__half2, a struct) cannot be declared in a .cu probe
    # without its definition: the whole file gives nvcc's verdict on the line itself
    "PTX005": Recipe((CU, WHOLE_FILE), _p(r"must have scalar type")),
    # an output under "n" gets the constant-expression message
    "PTX006": Recipe((CU,), _p(r"modifier|must be an integral constant expression")),
    "PTX007": Recipe((CU,), _p(r"operand modifier not supported")),
    "PTX008": Recipe((PTX, CU), _p(r"Parsing error near '%|at end of asm string|syntax error|"
                                   r"invalid % escape")),
    # the .cu probe stands a literal in for a non-literal "n" expression, so it cannot judge
    # PTX010; the whole file, compiled with its flags, can (a float or pointer gets the size
    # message for constraint 'n')
    "PTX010": Recipe((WHOLE_FILE,), _p(r"must be an integral constant expression|does not match "
                                       r"type/size implied by constraint 'n'")),
    "PTX101": Recipe((DIFFERENTIAL,)),
    "PTX102": Recipe((DIFFERENTIAL,)),
    "PTX103": Recipe((DIFFERENTIAL,)),
    # without a fix (an input no constraint can make an output) the function-level probe as
    # written alone: nvcc's PTX reading the input's register after the asm wrote it
    # (verify.harness.AS_WRITTEN_ONLY)
    "PTX105": Recipe((DIFFERENTIAL,)),
    "PTX106": Recipe((DIFFERENTIAL,)),
    "PTX107": Recipe((CARRY,)),
    "PTX108": Recipe((NONE,), why_none="an output and an input share a register only where the "
                                       "code around the asm joins their values (a loop-carried "
                                       "one): the statement compiled alone gets distinct "
                                       "registers with or without '&', so no compile of it "
                                       "shows the clash"),
    "PTX201": Recipe((PTX,), _p(r"Duplicate definition of variable")),
    "PTX202": Recipe((PTX,), _p(r"Duplicate definition of label")),
    "PTX203": Recipe((PTX,), _p(r"syntax error|Parsing error|brace|unbalanced"),
                     own_lines=False),
    # ptxas words a modifier combination it rejects as a type the operation requires ("Operation
    # .and requires .b32 or .b64 type for instruction 'atom'"), a modifier that must be another
    # when one is given (".dtype must be '.f32' when .ctype is '.f32' for 'mma' ...") or a modifier
    # that needs another ("Modifier '.sys' requires memory order with 'st' instruction",
    # "Modifier '.nc' requires .global space"); its target messages ("requires .target sm_80",
    # "Feature '.16x256b' not supported on .target 'sm_90'", given before the type message for
    # tcgen05.ld without '.b32') are PTX401's, its version messages PTX403's
    "PTX204": Recipe((PTX,), _p(r"Not a name of any known instruction|Unknown (field|modifier|"
                                r"instruction)|Parsing error|syntax error|Illegal|unexpected|"
                                r"not supported(?! on \.target)|Unexpected|does not apply|"
                                r"cannot be|required|Mismatch between|Incorrect type|"
                                r"requires \S+ (?:or \S+ )?type|requires '[^']*' type|"
                                r"must be '[^']*' when|"
                                r"Modifier '[^']*' requires (?!\.target|PTX ISA)")),
    "PTX205": Recipe((PTX,), _p(r"syntax error|Parsing error|Unknown field|Arguments mismatch"),
                     own_lines=False),
    "PTX206": Recipe((PTX,), _p(r"Arguments mismatch|operand.*type|mismatch|"
                                r"Incompatible elements|Predicate expression expected|"
                                r"Predicate output expected")),
    # a vector where the form takes one register, or one of another length: "Argument vector
    # size mismatch for instruction 'ld'" (aerial's ld.shared.b64 {%0, %1, %2, %3}); an integer
    # literal beside .f32 registers in one vector: "Vector with elements of different types are
    # not allowed in tex.grad instruction" (LuisaCompute's tex.grad.3d {%13, %14, %15, 16})
    "PTX207": Recipe((PTX,), _p(r"unexpected value|Arguments mismatch|Parsing error|syntax error|"
                                r"out of range|expected|Vector of size|vector size mismatch|"
                                r"Sink '_'|Predicate output|elements of different types|"
                                r"Special register argument not allowed|multiple of warp size")),
    "PTX213": Recipe((PTX,), _p(r"Unknown symbol|Predicate expression expected|"
                                r"Label expected for forward reference")),
    "PTX401": Recipe((PTX,), _p(r"not supported on \.target|requires \.target|requires "
                                r"sm_|not supported (?:for|on)|Feature .* requires"),
                     arch_sensitive=True),
    # ptxas gates a feature on the module's .version in these words ("Feature 'st.async' requires
    # PTX ISA .version 8.1 or later"); an unknown modifier at the older version is not them
    "PTX403": Recipe((ISA_PROBE,), _p(r"requires PTX ISA \.version")),
    "PTX402": Recipe((PTX,), _p(r"without '\.sync'|\.sync|deprecated|not supported|"
                                r"should be used on instruction"),
                     arch_sensitive=True),
    # claims about intent: the code compiles and means what it says, and whether something else
    # was meant is for the author; each says why no compile can settle it
    # an input or a '+' output the template never names ('=' outputs: _PTX009_OUTPUT)
    "PTX009": Recipe((NONE,), why_none="nvcc and ptxas accept an operand the template never "
                                       "names (an input, or a '+' output, which keeps its "
                                       "value): whether a %N was forgotten is intent, which no "
                                       "compile shows"),
    "PTX011": Recipe((NONE,), why_none="nvcc accepts operands without a ',' between them (it "
                                       "reads them as written): the claim is that clang and GCC "
                                       "reject the statement, which plain nvcc does not show"),
    "PTX012": Recipe((NONE,), why_none="the toolchain accepts one value passed twice: whether "
                                       "another element was meant (an index typo) is intent, "
                                       "which no compile shows"),
    "PTX104": Recipe((NONE,), why_none="a read-write operand the template only reads is correct "
                                       "code: the claim is that it could be an input, which "
                                       "changes what the code says, not what nvcc accepts"),
    "PTX208": Recipe((NONE,), why_none="ptxas accepts a predicate that is written and never "
                                       "read (it has no warning for it): that the value was "
                                       "meant to leave the asm is intent, which no compile "
                                       "shows"),
    # PTX6xx: protocols across statements. No per-statement or whole-file compile fails on
    # them; the evidence is a run (benchmarks/protocol_evidence.py) or, for the wgmma kinds,
    # ptxas's info lines for the sm_90a compile (verify/wgmma_info.py).
    "PTX601": Recipe((NONE,), why_none="a collective reached by part of a warp compiles; "
                                       "the ISA leaves it undefined at run time"),
    "PTX602": Recipe((NONE,), why_none="an uncommitted cp.async compiles; its data is stale "
                                       "only at run time"),
    "PTX603": Recipe((NONE,), why_none="a read before the cp.async wait compiles; the race is "
                                       "a run-time one (compute-sanitizer racecheck)"),
    "PTX604": Recipe((NONE,), why_none="an mbarrier init not released to the cluster compiles; "
                                       "it fails only at run time, across CTAs"),
    "PTX605": Recipe((NONE,), why_none="a missing proxy fence compiles; the stale TMA store "
                                       "shows only at run time"),
    "PTX606": Recipe((WGMMA_INFO,)),
    "PTX607": Recipe((WGMMA_INFO,)),
    "PTX608": Recipe((NONE,), why_none="a wrong expect-tx count compiles; the phase hangs or "
                                       "completes early at run time"),
    "PTX610": Recipe((NONE,), why_none="an mbarrier used before another thread's init is "
                                       "visible compiles; the race shows only at run time"),
    "PTX404": Recipe((NONE,), why_none="the host pass is the host compiler's, which --verify "
                                       "does not run (nvcc -ptx and ptxas compile the device "
                                       "side only), and an inline function fails only once host "
                                       "code calls it"),
    "PTX609": Recipe((NONE,), why_none="a Tensor Memory allocation left unfreed, freed with "
                                       "another size or made after the permit was given up "
                                       "compiles; it fails or hangs only at run time"),
    # statement-level claims no compile settles: the code builds, and means something else
    "PTX209": Recipe((NONE,), why_none="a carry chain that reads another carry compiles; the "
                                       "wrong sum shows only at run time"),
    "PTX211": Recipe((NONE,), why_none="ptxas reads any 32 bits as the packed type the "
                                       "instruction names: the element type is the C++ side's, "
                                       "which no compile checks"),
    "PTX212": Recipe((NONE,), why_none="an access wider than its object compiles; it reads or "
                                       "overwrites the neighbouring bytes only at run time"),
    "PTX109": Recipe((NONE,), why_none="each of the two statements compiles; that the first "
                                       "one's results are lost is what the code means, which "
                                       "no compile shows"),
    "PTX614": Recipe((NONE,), why_none="ptxas 13.0 and later reject the kernel ('uses single "
                                       "CTA(.cta_group::1) and CTA pair granularity'), but name "
                                       "the kernel, not a line, and only for a kernel the file "
                                       "instantiates: no probe of the statement can show it; "
                                       "compile the kernel for sm_100a with CUDA 13 to see it"),
    "PTX613": Recipe((NONE,), why_none="reading %warpid compiles; that its value is no index "
                                       "in the block shows only at run time"),
    "PTX615": Recipe((NONE,), why_none="an mbarrier.arrive before the wgmma's wait compiles; "
                                       "the producer overwrites the stage under the running "
                                       "wgmma only at run time"),
    "PTX616": Recipe((NONE,), why_none="a write of a bulk store's source before its wait "
                                       "compiles; the store sends the new data only at run "
                                       "time"),
    # about ptxlint itself: nothing of the toolchain to ask
    "PTX901": Recipe((NONE,), why_none="a suppression comment is ptxlint's, not the compiler's"),
    "PTX902": Recipe((NONE,), why_none="the template is not read, so there is no claim to "
                                       "compile"),
    "PTX210": Recipe((NONE,), why_none="any binding order compiles; the permuted value shows "
                                       "only in a run (tests/test_vector_element_order.py)"),
    # the warnings: a generic pointer in a .shared access
    "PTX301": Recipe((NONE,), why_none="a generic address in a .shared access assembles: the "
                                       "PTX ISA leaves the result undefined, and on sm_90 "
                                       "(H200) such accesses give the right results today, "
                                       "so neither a compile nor a run proves it"),
}

# PTX301's errors (a shared-window offset where a .global or generic address is expected) are a
# different claim: a 32-bit offset in a 64-bit module is refused by ptxas for sm_90+ ("Program
# uses 32-bit address on line N", then the 32-bit ABI fatal); a 64-bit offset assembles.
_PTX301_ERROR = Recipe((PTX,), _p(r"32-bit address"), refutable=False,
                       why_clean="ptxas accepts a 64-bit shared-window offset as a .global or "
                                 "generic address; it faults (or reads the wrong memory) only at "
                                 "run time")


# PTX301's error where the template also reads the unconverted 64-bit pointer in a 32-bit place
# (analysis.shared_conversion.OFFSET_CLAIM): ptxas refuses that place ("Arguments mismatch"),
# at the instruction that reads it, which may be another line of the template than the access
_PTX301_OFFSET = Recipe((PTX,), _p(r"Arguments mismatch"), own_lines=False)


# PTX206's claim of a 32-bit register as a .global address of cp.async, the bulk copies or
# tensormap.replace: ptxas assembles it, and the fault shows only when the code runs
_PTX206_NARROW_GLOBAL = Recipe(
    (NONE,), why_none="ptxas 13.0 takes a 32-bit register as this .global address, whose "
                      "upper half is lost; the wrong address shows only at run time (on an "
                      "H200, an illegal memory access)")


# PTX206's claim of a 32-bit register as the generic or .global address of ld, st, atom, the
# mbarrier operations and the like (its message quotes ptxas: "32-bit addressing is not
# supported"): ptxas 13.0 warns "Program uses 32-bit address on line N" and aborts, for every
# target it builds (sm_75 to sm_89 "32-Bit compilation is no longer supported", sm_90+ the
# 32-Bit ABI fatal), which is this claim and no other reason
ADDRESS_32_CLAIM = "32-bit addressing is not supported"
_PTX206_ADDRESS_32 = Recipe((PTX,), _p(r"32-bit address"))


# PTX009's other claim: an '=' output the template never names hands the variable an undefined
# value, which the function-level probe shows by comparing '=' with '+'
_PTX009_OUTPUT = Recipe((FUNCTION,))


def undefined_output(finding: Finding) -> Operand | None:
    """The '=' output a PTX009 finding says the template never writes ("the variable receives
    an undefined value"), or None for its other claims (an unused input: intent only)."""
    statement = finding.statement
    if finding.rule != "PTX009" or statement is None or statement.syntax == "llvm":
        return None
    for operand in statement.operands:
        if (operand.span.start <= finding.span.start < operand.span.end
                and operand.role == "output" and "=" in operand.constraint.modifiers
                and not operand.constraint.opaque):
            return operand
    return None


_LLVM_ABORTS = (r"number of (?:input|output) constraints does not match|cannot return struct|"
                r"must return void|output constraint occurs after")
# LLVM-syntax statements (Triton, CuTe DSL, llvmlite): no C++ front end to ask; ptxas speaks
# for the PTX, Triton (where installed) for what LLVM rejects before ptxas runs.
LLVM_RECIPES: dict[str, Recipe] = {
    "PTX001": Recipe((TRITON,), _p(r"invalid operand in inline asm")),
    # a value in a register of another width: ptxas's words where an instruction of the
    # template then has the wrong register, else the register itself in Triton's PTX
    "PTX004": Recipe((TRITON_WIDTH,), _p(r"Arguments mismatch")),
    "PTX008": Recipe((PTX,), _p(r"Parsing error near '%|syntax error|Unknown symbol '%")),
    "PTX010": Recipe((TRITON,), _p(r"expects an integer constant expression")),
    "PTX501": Recipe((TRITON,), _p(_LLVM_ABORTS)),
    "PTX502": Recipe((TRITON,), _p(_LLVM_ABORTS)),
    "PTX503": Recipe((TRITON,), _p(r"number of input constraints does not match")),
    "PTX504": Recipe((TRITON,), _p(r"failed to parse constraints|invalid (?:operand|constraint)")),
    "PTX505": Recipe((TRITON_PURITY,), refutable=False,
                     why_clean="Triton kept the pure asm in this probe; the optimizer may still "
                               "merge or move it elsewhere"),
    "PTX506": Recipe((NONE,), why_none="the replication shows only at run time (how many times "
                                       "the effect happens), not in any compile"),
    "PTX507": Recipe((TRITON,), _p(r"Did you forget to add @triton\.jit|is not iterable")),
    # CuTe DSL's inline_ptx: what its NVVM lowering makes of the call, in a kernel holding it
    # compiled by cute.compile (ptxas's verdict, or the parameter each register came from)
    **{rule: Recipe((INLINE_PTX,)) for rule in ("PTX508", "PTX510", "PTX512")},
    "PTX513": Recipe((LLVM_DIALECT,)),
    "PTX511": Recipe((NONE,), why_none="the claim is about PyTorch's op, which Triton's probe "
                                       "does not run"),
    "PTX902": Recipe((NONE,), why_none="a note: there is no template to compile"),
}


def _llvm_recipe(rule: str, api: str) -> Recipe:
    if rule == "PTX505" and api in ("llvmlite", "cute", "julia"):
        return Recipe((LLVM_PURITY,), refutable=False,
                      why_clean="the optimizer may still merge or move it elsewhere")
    if rule in LLVM_RECIPES:
        return LLVM_RECIPES[rule]
    recipe = RECIPES.get(rule)
    if recipe is not None and recipe.probes in ((PTX,), (ISA_PROBE,)):
        return recipe  # a claim about the PTX itself: ptxas judges it in any syntax
    return Recipe((NONE,), why_none=f"no verification recipe for {rule} on LLVM-syntax asm")


def recipe_for(rule: str, finding: Finding | None = None) -> Recipe:
    """The recipe for ``rule``; ``finding`` picks between the claims one rule makes."""
    statement = finding.statement if finding is not None else None
    if statement is not None and statement.syntax == "llvm":
        return _llvm_recipe(rule, statement.llvm.api if statement.llvm else "")
    if rule == "PTX301" and finding is not None and OFFSET_CLAIM in finding.message:
        return _PTX301_OFFSET
    if rule == "PTX301" and finding is not None and finding.severity is Severity.ERROR:
        return _PTX301_ERROR
    if rule == "PTX009" and finding is not None and undefined_output(finding) is not None:
        return _PTX009_OUTPUT
    if rule == "PTX206" and finding is not None and NARROW_GLOBAL_CLAIM in finding.message:
        return _PTX206_NARROW_GLOBAL
    if rule == "PTX206" and finding is not None and ADDRESS_32_CLAIM in finding.message:
        return _PTX206_ADDRESS_32
    return RECIPES.get(rule, Recipe((NONE,), why_none=f"no verification recipe for {rule} yet"))
