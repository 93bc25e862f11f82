"""The root causes of a statement's defects, so that one finding speaks for each defect.

A bad operand makes every rule that reads the template's use of it speak up: a ``uint4`` passed
as ``"r"`` is a non-scalar operand (PTX005) and, where the template spreads it into a vector, a
scalar where a vector belongs (PTX207); ``%H1`` is a GCC modifier nvcc rejects (PTX007) and a
64-bit register where a 32-bit one belongs (PTX206). The analysis names the root (the operand,
the ``%N`` token, the instruction) and the rule that reports it; the rules that would echo it
ask here and stay silent. Each rule's docstring says which roots silence it.

The roots, and the rule each belongs to:

- ``invalid-constraint`` (PTX002): a constraint letter nvcc does not take (``"m"``, ``"x"``);
  the operand's register class, and so its use in the template, is unknown.
- ``tied-input`` (PTX002 under nvcc; valid for clang and in LLVM syntax): an input whose
  constraint is an output's number (``"0"``); the output's register carries its value in, so the
  template reads that output on purpose and the input itself is never named.
- ``non-scalar-operand`` (PTX005): a struct or vector operand under a register letter.
- ``immediate-output`` (PTX006): an output under an immediate letter (``"=n"``, ``"+n"``,
  ``"=C"``): nvcc rejects it, and the template's use of it as a register (PTX207) or its value
  as a constant (PTX010) says nothing more.
- ``modifier-less-output`` (PTX006): an output under a register letter with neither ``=`` nor
  ``+`` (``: "r"(x)`` in the output list, often an input list one colon too early): nvcc and
  clang reject the statement, so whether the template writes the operand (PTX104) says nothing
  of what the variable receives. Where every operand is such an output and the template only
  reads them, the input list is one ``:`` too early: one finding for the statement, not one
  per operand (``StatementAnalysis.early_inputs``).
- ``late-outputs`` (PTX006): an empty output list and inputs that all have ``=`` or ``+``
  (``: : "=r"(a), "=r"(b) : "r"``): the outputs are listed one ``:`` too late, one finding for
  the statement (``StatementAnalysis.late_outputs``). Clobbers spelled as constraints are the
  input list the ``:`` pushed on (``shifted_clobbers``): PTX002 is silent on them, and PTX001 on
  a ``%N`` below the operands and those clobbers together.
- ``operand-modifier`` (PTX007): a GCC operand modifier on a ``%N`` (``%H1``); what the token
  stands for is not the operand's register.
- ``lowered-immediate`` (PTX508): a constant read-only argument of CuTe DSL's ``inline_ptx``,
  which the NVVM lowering passes as the immediate ``n``, where the instruction takes a register.
- ``unknown-instruction`` (PTX204): a modifier no form of a known opcode has, where PTX204
  reports it; what the instruction does (its effects) is unknown, so PTX101, PTX102 and PTX505
  ask nothing of it (``StatementAnalysis.instruction_unknown``). Where that modifier is a state
  space (``prefetch.shared``, ``ldu.shared``), or PTX204 reports a state space out of place
  or in a combination no form has (``cp.async.ca.global.shared``,
  ``cp.async.ca.shared.shared``), the space its addresses are read in is the misspelling, so
  PTX301 and PTX206 ask nothing of them either (``StatementAnalysis.space_unknown``).
  Where no form of any toolkit spells it (an unknown modifier, or words no form combines:
  ``bar.popc.red.u32``), which operands it reads and writes is a guess from its words, and
  the template's write flow is not followed (``StatementAnalysis.flow`` is None): the
  data-flow rules (PTX103, PTX104, PTX106) ask nothing of the statement.
- ``undefined-read`` (PTX106): a write-only output read before any write; the same output's
  "never written" (PTX104) is that read seen from the other side
  (``StatementAnalysis.undefined_reads``), and so is the "lost" result of the asm before it
  that the output writes again (PTX109): the template continues that result, and with ``+``
  it reads it (``analysis.overwritten_results``).
- ``register-misfit`` (PTX004): a value nvcc refuses under its register letter (a ``double`` or
  a pointer in ``"r"``); nvcc stops before ptxas reads the template, and the letter that fits
  the value names another register, so the ``%N``'s register type (PTX206) is no second defect
  (``StatementAnalysis.register_type_root``). In LLVM syntax, a value whose width the letter's
  register is not (an ``f64`` in ``"f"``: ``StatementAnalysis.llvm_width_misfits``), the same.
  A pointer in ``"r"`` that the template uses as a ``.shared`` address (directly or through a
  register copy: ``ptxlint.ptx.address_bases``, which PTX301 reads too) is one defect, the missing
  conversion to the shared window: PTX004 reports it with the conversion as its fix, PTX301 is
  silent (``StatementAnalysis.shared_pointer_misfit``). Likewise a generic pointer in ``"l"``
  that the template takes as a ``.shared`` address and reads elsewhere only as a 32-bit value
  (``add.u32 t, %0, 4; st.shared.u32 [t], %1;``): the missing conversion to the 32-bit offset
  is PTX301's finding (an error there), and PTX206 is silent on the 32-bit places
  (``ptxlint.analysis.shared_conversion.needs_offset``).
- ``operand-index`` (PTX001): an instruction that names a ``%N`` past the last operand; the
  template and the operand list disagree on the numbering, so what another ``%N`` of that
  instruction stands for (an input written, PTX105; an output read, PTX106; its register
  type, PTX206; a form ptxas rejects that the grammar matched by the registers, PTX204) is
  the same defect (``StatementAnalysis.numbering_root``, ``spelling_issue``).
- ``misnumbered-placeholder`` (PTX510): a CuTe DSL ``inline_ptx`` placeholder whose number does
  not name the argument the lowering binds (``{$r1}`` with no ``{$r0}``, or past its list): in
  its instruction, which argument each ``$K`` stands for is that defect, as for PTX001's
  (``StatementAnalysis.numbering_root``); PTX510 reports all of a statement's in one finding.
- ``operand-count`` (PTX207): an instruction with an operand count no form of it takes
  (``add.u32 %0 %1, %2;``, a comma missing); which operand it writes is unknown
  (``ptxlint.ptx.effects.written_operands`` answers None), so the data-flow rules (PTX103-PTX106)
  ask nothing of it, as of any instruction whose destinations are unknown.
- ``misdirected-write`` (PTX105): the one input a C++ template writes, where one write-only
  output is named nowhere (``mov.u32 %1, %1;`` given ``"=r"(d)``): the write was meant for the
  output, so its "never referenced" (PTX009) is the same defect
  (``StatementAnalysis.misdirected_write``); likewise the one write-only output read before any
  write where one input is named nowhere (PTX106, ``misdirected_read``).
- ``misnumbered-reference`` (PTX206): a ``%N`` whose register its place cannot take, where
  exactly one operand PTX009 would report as named by no ``%N`` has a register that fits that
  place, in the place's role (``add.u32 %0, %1, %1;`` given ``"l"(w), "r"(v)``): the ``%N``
  was meant to name it, so its "never referenced" (PTX009) is the same defect
  (``StatementAnalysis.misnumbered_reference``, :mod:`ptxlint.analysis.register_types`).
  In a statement with ``#if`` inside, that operand, where it is an input, is silent in the
  other branches too, as is an input that a misdirected read (PTX106) or a too-short vector
  (PTX207) in one branch was meant for: mending that branch names it
  (:mod:`ptxlint.analysis.branch_roots`).
- ``short-vector`` (PTX207): a vector operand with fewer ``%N`` elements than its form takes
  (``ld.global.v4.u32 {%0, %1, %2}, [%4];``): the operands of its elements' role and letter
  next to them that no ``%N`` names, or outputs nothing writes or writes on some paths only,
  are the elements it lacks, so their "never referenced" (PTX009), "never written" (PTX104) and
  "written only on some paths" (PTX103) are that defect (``StatementAnalysis.vector_lacks``).
- ``constraint-count`` (PTX501): an LLVM-syntax constraint string that lists more or fewer
  operands than the call binds (Triton, CuTe DSL); the operand list read from it is not the one
  the template is numbered against, so a ``$N`` past it (PTX001), an entry no ``$N`` names
  (PTX009) and an output read before any write (PTX106: the entry that tied an input to it may
  be the one lost) are that defect (``StatementAnalysis.binding_mismatch``).
- ``lost-result`` (PTX208): the one predicate a template computes and never reads, where one
  write-only output ``selp`` can fill (an integer letter, or ``f``/``d``: a choice between two
  values) is written by no instruction: the ``selp`` that moved the one into the other is
  missing, so the output's "never referenced" (PTX009) or "never written" (PTX104) is that
  defect (``StatementAnalysis.lost_result``).
- a backwards ``mov`` (PTX105 for a store's packing, PTX106 for a load's unpacking and for a
  copy from an output into an input): the inputs it writes and the outputs it reads are one
  defect, the swapped operands (``StatementAnalysis.reversed_movs``).

A root that its own rule does not report (the grammar abstains, the code is not clearly PTX)
silences nothing: a defect always keeps one finding. Selecting or suppressing rules does not
bring an echo back; the echo was never a second defect.
"""

from __future__ import annotations

from collections.abc import Callable

from ptxlint.analysis.template_refs import refs_of
from ptxlint.constraints import REGISTER_LETTERS, VALID_LETTERS, Verdict, operand_verdict
from ptxlint.file_traits import cuda_file
from ptxlint.frontends.cxx.dialect import IN_PTX_MODULE
from ptxlint.model import AsmStatement, CType, Operand, PercentToken, PtxInstruction
from ptxlint.ptx.instructions import is_opcode, unknown_modifier

__all__ = [
    "CLANG_ONLY_LETTERS",
    "ConstraintProblem",
    "NonScalar",
    "RegisterMisfit",
    "RootCause",
    "clearly_ptx",
    "constraint_problems",
    "modified_tokens",
    "non_scalar_operands",
    "register_misfits",
]

# Constraint letters clang's NVPTX target takes and nvcc does not: the generic immediate `i`
# and `c` (an 8-bit register).
CLANG_ONLY_LETTERS = frozenset("ic")


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class RootCause:
    """One defect that other rules would echo: what it is, the rule that reports it, and what
    it spoils (an asm operand, a span of the template)."""

    __slots__ = ("kind", "rule", "operand", "start", "end")

    def __init__(
        self, kind: str, rule: str, operand: int | None = None, start: int = -1, end: int = -1,
    ) -> None:
        self.kind = kind  # see the module's docstring
        self.rule = rule  # the rule whose finding reports it
        self.operand = operand  # the asm operand it spoils
        self.start = start  # template offsets of what it spoils, where it is one place
        self.end = end


class ConstraintProblem:
    """A C++ operand's constraint nvcc rejects: ``letter`` is the offending letter, or the tie's
    number (``"0"``) for a matching constraint."""

    __slots__ = ("operand", "letter")

    def __init__(self, operand: Operand, letter: str) -> None:
        self.operand = operand
        self.letter = letter

    @property
    def tied(self) -> bool:
        return self.letter.isdigit()


def constraint_problems(
    statement: AsmStatement, clang_only: Callable[[], bool]
) -> tuple[ConstraintProblem, ...]:
    """Each C++ operand constraint nvcc rejects, letter by letter, in operand order
    (``clang_only()``: only clang compiles the statement, which takes ``i`` and ``c``; asked
    only for such a letter). LLVM constraint strings follow other rules (PTX002 reads them)."""
    if statement.syntax == "llvm":
        return ()
    found: list[ConstraintProblem] = []
    for operand in statement.operands:
        c = operand.constraint
        if c.opaque:
            continue
        if c.letters.isdigit():
            found.append(ConstraintProblem(operand, c.letters))
            continue
        if c.letters in VALID_LETTERS:
            continue  # one letter nvcc takes (the set holds single letters): most operands
        for letter in dict.fromkeys(c.letters):
            if letter in CLANG_ONLY_LETTERS and clang_only():
                continue
            if letter not in VALID_LETTERS and not letter.isspace():
                found.append(ConstraintProblem(operand, letter))
    return tuple(found)


# Plain classes too (see RootCause's comment).
class NonScalar:
    """An operand of struct or vector type under a register letter, and why nvcc refuses it."""

    __slots__ = ("operand", "reason")

    def __init__(self, operand: Operand, reason: str) -> None:
        self.operand = operand
        self.reason = reason


class RegisterMisfit:
    """An operand under one register letter whose C++ type nvcc does not take there
    (``verdict`` rejects it: PTX004's size or class, PTX005's aggregate), or whose type is
    unknown (``verdict`` is None, and the type too)."""

    __slots__ = ("operand", "verdict")

    def __init__(self, operand: Operand, verdict: Verdict | None) -> None:
        self.operand = operand
        self.verdict = verdict


def register_misfits(statement: AsmStatement) -> tuple[RegisterMisfit, ...]:
    """Each operand under one register letter (``h r l q f d``) whose type the letter does not
    take, or whose type is unknown, in operand order: ``operand_verdict`` once per run of
    operands of one type and letter (a wgmma's accumulators), for PTX004 and PTX005 both.

    The types are read from the operands' type slot (``_read_type``, a read in C), the
    statement's types worked out by the first read that finds its slot empty: ``Operand.ctype``
    is a Python call per read, and this loop reads the type of every register operand (over
    CUTLASS's include/, 138,000 of its 143,350 operands). The loop over CUTLASS's statements,
    types worked out beforehand: 29.0-29.7 -> 16.7-17.9 ms of CPU; the CUDA 13 headers' 7.0-7.7
    -> 5.3-6.1 ms."""
    found: list[RegisterMisfit] = []
    read = _read_type
    last_type: CType | None = None
    last_letters: str | None = None
    last_verdict: Verdict | None = None
    for operand in statement.operands:
        c = operand.constraint
        letters = c.letters
        if letters not in REGISTER_LETTERS or c.opaque:  # its keys are single letters
            continue
        try:
            ctype = read(operand)
        except AttributeError:  # still to be worked out: this read works out every operand's
            ctype = operand.ctype
        if ctype is last_type and letters == last_letters:
            verdict = last_verdict
        elif ctype is None:
            found.append(RegisterMisfit(operand, None))
            continue
        else:
            verdict = last_verdict = operand_verdict(ctype, letters)
            last_type, last_letters = ctype, letters
        if verdict is not None and not verdict.accepted:
            found.append(RegisterMisfit(operand, verdict))
    return tuple(found)


# The type slot's own reader (``MadeOnRead.slot``): raises AttributeError where the type is
# still to be worked out (or the operand was made without one: ``Operand.ctype`` reads None).
_read_type: Callable[[Operand], CType | None] = vars(Operand)["ctype"].slot.__get__


def non_scalar_operands(misfits: tuple[RegisterMisfit, ...]) -> tuple[NonScalar, ...]:
    """Of a statement's ``register_misfits``, every operand whose type is an aggregate nvcc
    does not take under its register letter."""
    return tuple(
        NonScalar(m.operand, m.verdict.reason)
        for m in misfits
        if m.verdict is not None and m.verdict.rule == "PTX005"
    )


def modified_tokens(statement: AsmStatement) -> tuple[PercentToken, ...]:
    """The ``%N`` tokens of an extended template that carry a GCC operand modifier (``%H1``)."""
    if not statement.extended:
        return ()
    return refs_of(statement).modified


def _well_formed(instruction: PtxInstruction) -> bool:
    return (
        not instruction.opaque
        and is_opcode(instruction.opcode)
        and unknown_modifier(instruction.opcode, instruction.modifiers) is None
    )


def clearly_ptx(statement: AsmStatement) -> bool:
    """Device code for sure, so that an unknown word in it is a PTX typo: a CUDA file, a
    __device__/__global__ function, a GPU DSL's asm call (Triton, CuTe DSL, Pallas: their
    templates are PTX or, for Triton on AMD, GCN, whose opcodes have underscores and no dotted
    modifiers), or a statement with at least one well-formed PTX instruction."""
    return cuda_file(statement.source) or device_template(statement)


def device_template(statement: AsmStatement) -> bool:
    """:func:`clearly_ptx` but for the file's kind: a __device__/__global__ function, a GPU
    DSL's asm call, or a well-formed PTX instruction. A CUDA file's host functions hold x86 or
    Arm asm too, whose directives (``.p2align``, ``.L1:``) are no PTX typos."""
    if statement.llvm is not None and (statement.llvm.api != "llvmlite" or statement.context
                                       .dialect_reason.startswith(IN_PTX_MODULE)):
        return True  # (llvmlite's also targets CPUs: PTX where the module's other asm is)
    if {"__device__", "__global__"} & set(statement.context.function_specifiers):
        return True
    return any(_well_formed(i) for i in statement.ptx.instructions)
