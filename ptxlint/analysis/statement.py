"""One statement's analysis: every fact more than one rule reads, computed the first time a rule
asks and kept for the next one.

Rules read the statement through :func:`analysis_of`; nothing here imports a rule. A fact is a
function of the statement and of what :mod:`ptxlint.file_traits` knows of its file (so a pure
rule's memoised outcome stays right on a copy of the statement elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ptxlint import file_memos
from ptxlint.analysis import effects as _effects
from ptxlint.analysis import register_types as _types
from ptxlint.analysis import roots as _roots
from ptxlint.analysis.early_clobber import EarlyClobber, early_clobbers
from ptxlint.analysis.effects import Effect
from ptxlint.analysis.glued_pieces import GluedPieces, glued_pieces
from ptxlint.analysis.guard_facts import GuardFacts, guard_facts_of
from ptxlint.analysis.guards import model_dependent
from ptxlint.analysis.lazy_fact import fact, known
from ptxlint.analysis.llvm_binding import (
    BindingMismatch,
    WrongPlaceholder,
    binding_mismatch,
    misnumbered_placeholders,
)
from ptxlint.analysis.lost_predicates import LostPredicate, lost_predicates, lost_result
from ptxlint.analysis.operand_access import (
    Access,
    reads_of,
    register_operand,
    writes_of,
    written_indices,
)
from ptxlint.analysis.operand_summary import summary_of
from ptxlint.analysis.operand_use import uses
from ptxlint.analysis.placement import Placement, placement_of
from ptxlint.analysis.register_types import Misnumbered, RegisterMismatch
from ptxlint.analysis.reversed_mov import ReversedMov, reversed_movs
from ptxlint.analysis.roots import ConstraintProblem, NonScalar, RegisterMisfit, RootCause
from ptxlint.analysis.template_refs import refs_of
from ptxlint.analysis.unreferenced_operands import unreferenced_operands
from ptxlint.constraints import VALID_LETTERS, is_array
from ptxlint.model import AsmStatement, Clobber, CType, Operand, PercentToken, PtxInstruction
from ptxlint.ptx.address_bases import address_bases
from ptxlint.ptx.flow import WriteAnalysis, analyze
from ptxlint.ptx.grammar import REJECTED, Issue, judged
from ptxlint.ptx.instructions import Requirement, family, unknown_modifier
from ptxlint.ptx.judge import Verdict, judge
from ptxlint.ptx.scopes import Unscoped, unscoped
from ptxlint.ptx.spaces import SHARED_SPACES, STATE_SPACES
from ptxlint.ptx.targets import Target
from ptxlint.ptx.toolkit import toolkit_accepts

__all__ = ["StatementAnalysis", "analysis_of"]

# The messages of the forms the grammar spells only to name ptxas's rejection of them
_REJECTED_FORMS = frozenset(REJECTED.values())


class StatementAnalysis:
    """The shared facts of one statement. Each is computed on first use."""

    def __init__(self, statement: AsmStatement) -> None:
        self.statement = statement
        self._verdicts: dict[tuple[int, bool], tuple[PtxInstruction, Verdict]] = {}
        # register_mismatches by (arch, cuda_version): a rule option, compared, not hashed
        self._mismatches: list[tuple[tuple[int | None, object], tuple[RegisterMismatch, ...]]] = []

    # ------------------------------------------------------------------ guards and targets
    # Each is its chain of conditions' (ptxlint.analysis.guard_facts), shared by the statements
    # of the chain.

    @fact
    def _chain(self) -> GuardFacts:
        return guard_facts_of(self.statement)

    @fact
    def guards(self) -> tuple[str, ...]:
        """The ``#if`` conditions that decide whether the statement is compiled, without the
        file's include guard (``GuardFacts.guards``)."""
        return self._chain.guards

    @fact
    def local_guards(self) -> tuple[str, ...]:
        """:attr:`guards` without file-wide ``#if`` blocks (``GuardFacts.local_guards``)."""
        return self._chain.local_guards

    @fact
    def no_device_build(self) -> bool:
        """No device build (target and supported toolkit) compiles the branch, the file's
        guard macros read (``GuardFacts.no_device_build``)."""
        return self._chain.no_device_build

    def compiled_for_arch(self, target: Target) -> bool:
        """The statement is certainly compiled for ``target`` (``--arch``): every guard is
        decided and true there, the include guard aside."""
        return self._chain.compiled_for_arch(target)

    def compiled_for(self, target: Target) -> bool:
        """The statement may be compiled for ``target``: no guard about the architecture
        excludes it (guards about anything else are assumed to hold)."""
        return self._chain.compiled_for(target)

    def undecided_for(self, target: Target) -> tuple[str, ...] | None:
        """The guards a build for ``target`` leaves undecided (``GuardFacts.undecided_for``)."""
        return self._chain.undecided_for(target)

    @property
    def compiled_for_host(self) -> bool:
        """A ``__host__ __device__`` function's statement that nvcc's host pass certainly
        compiles: the host compiler gets its template (PTX404)."""
        specifiers = self.statement.context.function_specifiers
        return ("__host__" in specifiers and "__device__" in specifiers
                and self._chain.compiled_for_host)

    @fact
    def admitted_targets(self) -> tuple[Target, ...]:
        """Without ``--arch``: the targets the guards let the statement compile for, where the
        local guards choose among targets (``GuardFacts.admitted_targets``)."""
        return self._chain.admitted_targets

    def known_admitted_targets(self) -> tuple[Target, ...] | None:
        """:attr:`admitted_targets` where they are known already (worked out for another
        statement of the chain of conditions), else None: nothing is worked out."""
        found = known(self._chain, "admitted_targets", None)
        return cast("tuple[Target, ...] | None", found)

    @fact
    def arch_guards(self) -> tuple[str, ...]:
        """Of :attr:`guards`, those the target decides (``GuardFacts.arch_guards``)."""
        return self._chain.arch_guards

    @fact
    def arch_targets(self) -> tuple[Target, ...] | None:
        """The targets a build compiles the statement for, as far as the target decides: those
        every arch guard admits, file-wide ones included, without those the file ``#error``s
        for; ``None`` when nothing chooses (``GuardFacts.arch_targets``). What ``--verify``
        compiles for; :attr:`admitted_targets` is its subset the rules judge."""
        return self._chain.arch_targets

    def lacking(self, need: Requirement) -> tuple[Target, ...]:
        """Of :attr:`admitted_targets`, those without what ``need`` describes, in their order
        (``GuardFacts.lacking``, kept per chain)."""
        return self._chain.lacking(need)

    @fact
    def lowest_target(self) -> Target | None:
        """The guards' own lower bound on the architecture, unless the file excludes it."""
        return self._chain.lowest_target

    @fact
    def rocm_guarded(self) -> bool:
        """Some guard must hold for a HIP/ROCm build: not nvcc's code."""
        return self._chain.rocm_guarded

    @fact
    def clang_only(self) -> bool:
        """Only clang compiles the statement (its own CUDA headers, or a guard excludes nvcc)."""
        return self._chain.clang_only

    @fact
    def only_for_32bit(self) -> bool:
        """No 64-bit build compiles the statement."""
        return self._chain.only_for_32bit

    @fact
    def data_model_guarded(self) -> bool:
        """A guard mentions the data model, or only a 32-bit build compiles the statement."""
        return self._chain.data_model_guarded

    # ------------------------------------------------------------------ the grammar's verdicts

    def verdict(self, instruction: PtxInstruction, typed_floats: bool = True) -> Verdict:
        """The grammar's verdict on ``instruction`` (:func:`ptxlint.ptx.judge.judge`), once per
        instruction: PTX204, PTX206 and PTX207 each read it."""
        key = (id(instruction), typed_floats)
        known = self._verdicts.get(key)
        if known is not None and known[0] is instruction:
            return known[1]
        verdict = judge(self.statement, instruction, typed_floats)
        self._verdicts[key] = (instruction, verdict)
        return verdict

    @fact
    def verdicts(self) -> tuple[Verdict | None, ...]:
        """The grammar's verdict on each instruction of the template, in order (:meth:`verdict`,
        "f"/"d" read as float registers); None for an opaque instruction or a spelling the
        grammar does not judge. One pass for PTX204 and PTX206, which each asked ``judged`` and
        :meth:`verdict` of every instruction in turn, and then a generator per instruction for
        the issues most verdicts do not have."""
        verdict = self.verdict
        return tuple([
            None if i.opaque or not judged(i.opcode, i.modifiers) else verdict(i)
            for i in self.statement.ptx.instructions
        ])

    # ------------------------------------------------------------------ root causes

    @fact
    def constraint_problems(self) -> tuple[ConstraintProblem, ...]:
        """The C++ constraints nvcc rejects (PTX002's findings); none in HIP/ROCm code."""
        holds = summary_of(self.statement).holds
        if "foreign-letters" not in holds and "tied-operands" not in holds:
            return ()  # every known constraint one letter nvcc takes: most statements
        if self.rocm_guarded:
            return ()
        return _roots.constraint_problems(self.statement, lambda: self.clang_only)

    @fact
    def register_misfits(self) -> tuple[RegisterMisfit, ...]:
        """Operands under a register letter whose C++ type it does not take, or whose type is
        unknown (:func:`ptxlint.analysis.roots.register_misfits`: PTX004 and PTX005 read
        them); none in HIP/ROCm code."""
        return () if self.rocm_guarded else _roots.register_misfits(self.statement)

    @fact
    def size_misfits(self) -> tuple[RegisterMisfit, ...]:
        """The operands whose C++ type nvcc will not bind to their register letter, by size or
        class (PTX004's findings: ``asm operand type size(8) does not match type/size implied
        by constraint 'r'``): not a 2-byte class in ``h`` where only clang compiles the
        statement, nor an fp16 type where only a toolkit before CUDA 9.0 does (its
        ``__half2``'s ``x`` is an ``unsigned int``: ``GuardFacts.fp16_structs``), nor a type
        whose size depends on the data model under a guard that mentions it (maybe a 32-bit
        build, where a pointer fits ``r``). C++ only: LLVM syntax
        binds registers by the letter's width, which PTX004 judges apart."""
        if self.statement.syntax != "gnu":
            return ()
        found = []
        for misfit in self.register_misfits:
            verdict = misfit.verdict
            if verdict is None or verdict.rule != "PTX004":
                continue
            ctype = misfit.operand.ctype
            assert ctype is not None  # a verdict was given: the type is known
            if ctype.kind == "half" and (
                    misfit.operand.constraint.letters == "h" and self.clang_only
                    or self._chain.fp16_structs):
                continue
            if self.data_model_guarded and model_dependent(ctype):
                continue
            found.append(misfit)
        return tuple(found)

    @fact
    def llvm_width_misfits(self) -> dict[int, tuple[int, int]]:
        """LLVM syntax: by operand index, (the value's bits, the register's bits) where the
        constraint letter's register is not the value's width (an ``f32`` in ``"d"``, an
        ``f64`` in ``"f"``): LLVM binds the register by the letter, truncating or widening
        the value (PTX004's findings there). 8-bit values widen harmlessly."""
        found: dict[int, tuple[int, int]] = {}
        if self.statement.syntax != "llvm":
            return found
        for operand in self.statement.operands:
            c, ctype = operand.constraint, operand.ctype
            width = _LLVM_WIDTH.get(c.letters)
            if c.opaque or ctype is None or ctype.size is None or width is None:
                continue
            bits = ctype.size * 8
            if bits != width and bits != 8:
                found[operand.index] = (bits, width)
        return found

    @fact
    def llvm_tie_misfits(self) -> dict[int, int]:
        """LLVM syntax: by input index, the output it is tied to (``"0"``) where the two values'
        types differ in kind (integer or floating) or width, both scalars whose types are
        known. A tied input is its output's register on entry, so the template reads its bits
        as the output's type (LLVM 22 compiles it so; LLVM 14 stops with ``Unsupported asm:
        input constraint with a matching output constraint of incompatible type!``): PTX004's
        findings."""
        found: dict[int, int] = {}
        if self.statement.syntax != "llvm":
            return found
        operands = self.statement.operands
        for operand in operands:
            letters = operand.constraint.letters
            if operand.role != "input" or operand.constraint.opaque or not letters.isdigit():
                continue
            tied = int(letters)
            if tied >= len(operands) or operands[tied].role != "output":
                continue  # PTX504's
            mine, theirs = _scalar_type(operand.ctype), _scalar_type(operands[tied].ctype)
            if mine is not None and theirs is not None and mine != theirs:
                found[operand.index] = tied
        return found

    def size_misfit(self, index: int) -> RegisterMisfit | None:
        """Asm operand ``index`` among :attr:`size_misfits`."""
        return next((m for m in self.size_misfits if m.operand.index == index), None)

    def shared_pointer_misfit(self, index: int) -> bool:
        """Asm operand ``index`` is a pointer input nvcc refuses under ``"r"``
        (:attr:`size_misfits`) that the template uses as a ``.shared`` address: one defect,
        the missing conversion to the 32-bit shared-window offset (PTX004 reports it, with the
        conversion as its fix; PTX301 stays silent on the generic pointer)."""
        misfit = self.size_misfit(index)
        if misfit is None:
            return False
        operand = misfit.operand
        ctype = operand.ctype
        if operand.constraint.letters != "r" or operand.role != "input" or ctype is None \
                or not (ctype.kind == "pointer" or is_array(ctype)):
            return False
        # named in the address (``[%0]``, ``[%0+%1]``), or its base through a copy
        # (``mov.u32 t, %0; st.shared.u32 [t], %1;``: PTX301 reads the same bases)
        return any(u.in_address and u.space == "shared" for u in uses(self.statement, index)) \
            or any(base.ref == index and base.use.space in SHARED_SPACES
                   for base in address_bases(self.statement.ptx))

    @fact
    def non_scalar_operands(self) -> tuple[NonScalar, ...]:
        """Struct and vector operands under a register letter (PTX005's findings)."""
        return _roots.non_scalar_operands(self.register_misfits)

    @fact
    def modified_tokens(self) -> tuple[PercentToken, ...]:
        """``%N`` tokens with a GCC operand modifier (PTX007's findings)."""
        if "modified-references" not in summary_of(self.statement).holds:
            return ()
        return _roots.modified_tokens(self.statement)

    @fact
    def _operand_roots(self) -> dict[int, RootCause]:
        roots: dict[int, RootCause] = {}
        for problem in self.constraint_problems:
            index = problem.operand.index
            if problem.tied:
                roots.setdefault(index, RootCause("tied-input", "PTX002", index))
            else:
                roots[index] = RootCause("invalid-constraint", "PTX002", index)
        for found in self.non_scalar_operands:
            index = found.operand.index
            roots.setdefault(index, RootCause("non-scalar-operand", "PTX005", index))
        if self.statement.syntax == "gnu":
            summary = summary_of(self.statement)
            if summary.immediate_outputs or "misplaced-modifiers" in summary.holds:
                for operand in self.statement.outputs:
                    c = operand.constraint
                    if c.opaque:
                        continue
                    if c.letters in ("n", "C"):
                        roots.setdefault(operand.index, RootCause("immediate-output", "PTX006",
                                                                  operand.index))
                    elif "=" not in c.modifiers and "+" not in c.modifiers:
                        # an output that is no output: nvcc rejects the statement ("an asm
                        # output operand must have one of the '=' or '+' modifiers")
                        roots.setdefault(operand.index, RootCause(
                            "modifier-less-output", "PTX006", operand.index))
        return roots

    def operand_root(self, index: int) -> RootCause | None:
        """Why asm operand ``index`` cannot be judged as written: its constraint is not one
        nvcc takes, or its type is not a scalar."""
        root = self._operand_roots.get(index)
        return root if root is not None and root.kind != "tied-input" else None

    @fact
    def _ties(self) -> dict[int, RootCause]:
        ties: dict[int, RootCause] = {}
        if "tied-operands" not in summary_of(self.statement).holds:
            return ties
        for operand in self.statement.inputs:
            letters = operand.constraint.letters
            if letters.isdigit() and not operand.constraint.opaque:
                # of the operand roots, only a constraint problem can be a tied input's (a
                # non-scalar operand has a register letter): asked of those alone, which
                # read no C++ type
                rule = "PTX002" if any(
                    p.operand.index == operand.index for p in self.constraint_problems
                ) else ""
                ties.setdefault(int(letters), RootCause("tied-input", rule, operand.index))
        return ties

    def tied_input(self, output: int) -> RootCause | None:
        """The input tied to output ``output`` by a matching constraint (``"0"``, ``"=r,0"``):
        its value comes in through the output's register. ``rule`` is "PTX002" where nvcc
        rejects the tie, empty where it is valid (clang, LLVM syntax)."""
        return self._ties.get(output)

    def tied(self, operand: int) -> bool:
        """Operand ``operand`` is an input whose constraint ties it to an output."""
        return any(root.operand == operand for root in self._ties.values())

    def template_root(self, start: int, end: int) -> RootCause | None:
        """A root cause that spoils the template's characters ``[start, end)``: a ``%N`` there
        with a GCC modifier (PTX007), or naming an operand :meth:`operand_root` rejects."""
        for token in self.modified_tokens:
            if start <= token.start < end:
                return RootCause("operand-modifier", "PTX007", token.index, token.start, token.end)
        lowered = self._lowered_immediate(start, end)
        if lowered is not None:
            return lowered
        if not self._operand_roots:
            return None
        for token in refs_of(self.statement).within(start, end):
            root = self.operand_root(cast(int, token.index))  # the index's have a number
            if root is not None:
                return RootCause(root.kind, root.rule, root.operand, token.start, token.end)
        return None

    @fact
    def binding_mismatch(self) -> BindingMismatch | None:
        """An LLVM-syntax call whose constraint string lists more or fewer operands than the
        call binds (:mod:`ptxlint.analysis.llvm_binding`, PTX501's finding): the root of the
        numbering findings PTX001 and PTX009 would make of the string's operand list."""
        return binding_mismatch(self.statement)

    @fact
    def glued_pieces(self) -> GluedPieces:
        """The boundaries between string pieces that run two instructions together
        (:mod:`ptxlint.analysis.glued_pieces`, PTX205's findings)."""
        return glued_pieces(self.statement)

    def runs_together(self, instruction: PtxInstruction) -> bool:
        """Whether ``instruction`` runs into the next one where two string pieces meet without
        a ';' (a glued boundary: PTX205's finding): the words it reads as its operands are not
        the ones written for it, so its operand count or types (PTX206, PTX207) are that one
        defect. Asked only where one of those rules would speak."""
        return any(b.instruction is instruction for b in self.glued_pieces.boundaries)

    @fact
    def unscoped(self) -> Unscoped | None:
        """The declarations and labels at the template's top level that a second emitted copy
        defines again (:func:`ptxlint.ptx.scopes.unscoped`): one defect, the missing ``{ }``
        (PTX201's finding where a declaration is among them, else PTX202's)."""
        return unscoped(self.statement)

    @fact
    def unreferenced_operands(self) -> tuple[Operand, ...]:
        """The operands no ``%N`` of the template names (PTX009's findings): see
        :func:`ptxlint.analysis.unreferenced_operands.unreferenced_operands`."""
        return unreferenced_operands(self.statement, self)

    @fact
    def misdirected_write(self) -> tuple[int, Operand] | None:
        """``(input, output)`` where the template writes exactly one input and names one
        write-only output nowhere (``mov.u32 %1, %1;`` given ``"=r"(d)`` and ``"r"(a)``): the
        write was meant for the output, one defect (PTX105's finding names the output; PTX009
        is silent on it). C++ only: an LLVM-syntax output no ``$N`` names is no finding. Only
        where PTX105 reports that write as its own: a register input without modifiers, in an
        instruction that names no stray ``%N`` and is no backwards ``mov``."""
        statement = self.statement
        if statement.syntax != "gnu" or self.stray_refs:
            return None
        unnamed = [
            o for o in self.unreferenced_operands
            if o.role == "output" and "=" in o.constraint.modifiers
            and "+" not in o.constraint.modifiers
        ]
        if len(unnamed) != 1:
            return None
        written = written_indices(statement)
        inputs = [o for o in statement.inputs if o.index in written]
        if len(inputs) != 1:
            return None
        (operand,) = inputs
        if not register_operand(operand) or operand.constraint.modifiers.strip("&"):
            return None
        write = writes_of(statement, operand.index)[0]
        if self.reversed_mov(write.position) is not None:
            return None
        return operand.index, unnamed[0]

    @fact
    def misdirected_read(self) -> tuple[int, Operand] | None:
        """``(output, input)`` where the template reads exactly one write-only output before
        writing it (:attr:`undefined_reads`) and names one input nowhere (``add.u32 %0, %0,
        %1;`` given ``"r"(a), "r"(b)``; Gluon's ``mov.b32 $0, $0;`` given ``"=r,r"``): the
        read was most likely meant for the input, one defect (PTX106's finding names the
        input; PTX009 is silent on it). In either syntax: an input no ``$N`` names is
        PTX009's finding in LLVM syntax too (an output is not: :attr:`misdirected_write`)."""
        if len(self.undefined_reads) != 1 or self.stray_refs:
            return None
        unnamed = [o for o in self.unreferenced_operands if o.role == "input"]
        if len(unnamed) != 1:
            return None
        ((output, read),) = self.undefined_reads.items()
        if self.reversed_mov(read.position) is not None:
            return None  # PTX106 reports the mov
        return output, unnamed[0]

    @fact
    def lost_predicates(self) -> tuple[LostPredicate, ...]:
        """The predicates the template declares in its braces, writes and never reads
        (PTX208's findings: :mod:`ptxlint.analysis.lost_predicates`); not those of an
        instruction no form spells (PTX204, PTX207)."""
        return lost_predicates(self.statement, self._unspelled)

    def _unspelled(self, instruction: PtxInstruction) -> bool:
        return any(issue.severity == "error" and issue.kind != "type"
                   for issue in self.verdict(instruction).issues)

    @fact
    def lost_result(self) -> tuple[LostPredicate, Operand] | None:
        """``(predicate, output)`` where the one predicate the template loses was meant for the
        one write-only output nothing writes: the instruction that moves it there (``selp``)
        is missing, one defect (PTX208's finding names the output; PTX009 and PTX104 are
        silent on it). Not where another root names the output."""
        lost = self.lost_predicates
        if len(lost) != 1:  # most statements: the other facts are not asked
            return None
        meant = [m[1] for m in (self.misdirected_write, self.misdirected_read) if m]
        return lost_result(self.statement, lost, lambda o: (
            o.index in self.vector_lacks or o.index in self.undefined_reads
            or self.operand_root(o.index) is not None or any(o is m for m in meant)))

    def register_mismatches(
        self, arch: int | None, cuda_version: object, parsed: Callable[[], object | None],
    ) -> tuple[RegisterMismatch, ...]:
        """Each place whose register its instruction cannot take (PTX206's findings,
        :mod:`ptxlint.analysis.register_types`), for the target ``arch`` (None: the lowest one
        the guards admit) and the toolkit ``cuda_version`` (a rule option). ``parsed`` gives
        the file's syntax tree; it is read only for a 32-bit address register whose value may
        be a shared-window offset (PTX301's then)."""
        found = self._register_mismatches(arch, cuda_version)
        if not any(m.address for m in found):
            return found  # most statements: no value flow asked
        statement = self.statement
        return tuple(
            m for m in found if not _types.claimed_elsewhere(statement, self, m, parsed))

    def _register_mismatches(
        self, arch: int | None, cuda_version: object
    ) -> tuple[RegisterMismatch, ...]:
        key = (arch, cuda_version)
        for known_key, found in self._mismatches:
            if known_key == key:
                return found
        found = _types.register_mismatches(self.statement, self, arch, cuda_version)
        self._mismatches.append((key, found))
        return found

    def misnumbered_reference(
        self, arch: int | None, cuda_version: object, parsed: Callable[[], object | None],
    ) -> Misnumbered | None:
        """A ``%N`` whose register its place cannot take (:meth:`register_mismatches`) where
        exactly one operand no ``%N`` names would fit that place, in type and role
        (``add.u32 %0, %1, %1;`` given ``"l"(w), "r"(v)``: ``%2`` was meant): one defect, the
        number (PTX206's finding names the operand; PTX009 is silent on it). Not memoised:
        the value flow it may read (``parsed``) must be read by each rule that asks."""
        if not self.unreferenced_operands:
            return None
        mismatches = self._register_mismatches(arch, cuda_version)
        if not mismatches:
            return None
        return _types.misnumbered(self.statement, self, mismatches, parsed)

    @fact
    def early_inputs(self) -> tuple[Operand, ...]:
        """The operands of a C++ statement with outputs and no inputs whose outputs are all
        register operands with neither ``=`` nor ``+`` that no instruction of the template
        writes (``stmatrix...[%0], {%1, %2};`` given ``: "r"(p), "r"(a), "r"(b)``): inputs
        listed one ``:`` too early, one defect (PTX006 reports it once, not once per
        operand). Empty where the template's writes are not known."""
        statement = self.statement
        outputs = statement.outputs
        if (statement.syntax != "gnu" or not outputs or statement.inputs
                or statement.opaque_sections or self.flow is None):
            return ()
        for operand in outputs:
            c = operand.constraint
            if c.opaque or "=" in c.modifiers or "+" in c.modifiers \
                    or not register_operand(operand):
                return ()
        written = written_indices(statement)
        if any(o.index in written for o in outputs):
            return ()
        return outputs

    @fact
    def late_outputs(self) -> tuple[Operand, ...]:
        """The inputs of a C++ statement with inputs and an empty output list whose every
        constraint has ``=`` or ``+`` (``: : "=r"(a), "=r"(b) : ...``): outputs listed one
        ``:`` too late, one defect (PTX006 reports it once, not once per operand). Empty
        otherwise."""
        statement = self.statement
        inputs = statement.inputs
        if (statement.syntax != "gnu" or statement.outputs or not inputs
                or statement.opaque_sections):
            return ()
        for operand in inputs:
            c = operand.constraint
            if c.opaque or not ("=" in c.modifiers or "+" in c.modifiers):
                return ()
        return inputs

    @fact
    def shifted_clobbers(self) -> tuple[Clobber, ...]:
        """Where the outputs sit one ``:`` too late (:meth:`late_outputs`), the clobbers
        spelled as constraints (``"r"``, ``"l"``): the input list the stray ``:`` pushed into
        the clobber list, the same defect. Their ``%N`` continue the operands' numbering, so
        a ``%N`` below the operands and these together names one of them (PTX001 and PTX002
        are silent on them)."""
        if not self.late_outputs:
            return ()
        return tuple(c for c in self.statement.clobbers if _constraint_spelled(c.name))

    @fact
    def misplaced_refs(self) -> frozenset[int]:
        """The %N named by an instruction whose operands are out of its form's order (PTX207:
        an ``stmatrix`` in ``ldmatrix``'s shape): what it reads and writes is a guess, so their
        "read before written" (PTX106) or "never written" (PTX104) would echo that defect."""
        wrong = [(i.start, i.end) for i, v in zip(self.statement.ptx.instructions, self.verdicts,
                                                   strict=True) if v is not None and v.misplaced]
        if not wrong:
            return frozenset()
        within = refs_of(self.statement).within
        return frozenset(t.index for span in wrong for t in within(*span) if t.index is not None)

    @fact
    def vector_lacks(self) -> frozenset[int]:
        """The operands a too-short vector lacks (``ld.global.v4.u32 {%0, %1, %2}, [%4];``
        given four outputs and the address): where an instruction's first operand issue, the
        one PTX207 reports, is a vector of ``%N`` elements with fewer than its form takes,
        the operands of its elements' role and letter next to their indices (at most as many
        as it lacks, on each side) that no ``%N`` names, or outputs nothing writes (an mma's
        ``+f`` accumulator still read as its C operand) or writes on some paths only (the
        ``@!p mov.u32 %3, 0;`` beside a ``@p`` load that lost ``%3``), are those elements: one
        defect, and their "never referenced" (PTX009), "never written" (PTX104) or "written
        only on some paths" (PTX103) is its echo. Only where no more of them are loose than
        the vector lacks."""
        statement = self.statement
        if statement.opaque_sections or self.stray_refs:
            return frozenset()
        operands = statement.operands
        problems = statement.ptx.problems
        lacking: set[int] = set()
        loose: set[int] | None = None  # asked once a vector is short: most are not
        for instruction, verdict in zip(statement.ptx.instructions, self.verdicts, strict=True):
            issue = next((i for i in verdict.issues if i.kind == "operand"), None) \
                if verdict is not None else None
            if (issue is None or not issue.short_by or self.runs_together(instruction)
                    or any(p.kind == "operand-list" and instruction.start <= p.start
                           < instruction.end for p in problems)):
                continue
            if loose is None:
                loose = self._loose_operands()
            vector = next((o for o in instruction.operands
                           if o.kind == "vector" and (o.start, o.end) == (issue.start, issue.end)),
                          None)
            parts = vector.parts if vector is not None else ()
            refs = [p.ref for p in parts if p.ref is not None and p.ref < len(operands)]
            if not refs or len(refs) != len(parts):
                continue
            kinds = {(operands[r].role, operands[r].constraint.letters) for r in refs}
            if len(kinds) != 1:
                continue
            low, high = min(refs), max(refs)
            beside = [i for i in loose if low - issue.short_by <= i <= high + issue.short_by
                      and i not in refs
                      and (operands[i].role, operands[i].constraint.letters) in kinds]
            if 0 < len(beside) <= issue.short_by:
                lacking.update(beside)
        return frozenset(lacking)

    def _loose_operands(self) -> set[int]:
        """The operands no ``%N`` names, and the outputs the template does not write on every
        path (none, or only under a predicate or on some branches)."""
        statement = self.statement
        written = written_indices(statement)
        loose = {o.index for o in self.unreferenced_operands} | {
            o.index for o in statement.outputs if o.index not in written}
        flow = self.flow
        if flow is not None:
            loose |= {o.index for o in statement.outputs
                      if o.index in written and o.index not in flow.definite}
        return loose

    @fact
    def stray_refs(self) -> tuple[PercentToken, ...]:
        """The ``%N`` tokens past the statement's last operand, by operand number then place
        (PTX001's findings, which nvcc 13.0 answers with an internal compiler error); none
        where an operand section comes through a macro (the count is unknown)."""
        statement = self.statement
        if not statement.extended or statement.opaque_sections:
            return ()
        refs = refs_of(statement)
        count = len(statement.operands)
        if refs.highest < count:
            return ()  # most statements
        return tuple(
            t for index in sorted(refs.referenced) if index >= count for t in refs.tokens_of(index)
        )

    @fact
    def stray_instructions(self) -> tuple[PtxInstruction, ...]:
        """The instructions that name one of :attr:`stray_refs`."""
        strays = self.stray_refs
        if not strays:
            return ()
        return tuple(
            i for i in self.statement.ptx.instructions
            if any(i.start <= t.start < i.end for t in strays)
        )

    def numbering_root(self, start: int, end: int) -> RootCause | None:
        """Where ``[start, end)`` lies in an instruction that also names a ``%N`` past the last
        operand: the template and the operand list disagree on how many operands there are,
        so each ``%N`` of that instruction may stand for another operand than the author
        counted (``{%0, %1, %2, %3}`` of a ``.v4`` load given two outputs names an input as
        its third element). What such a ``%N``'s operand is (an input written, an output read,
        a register of the wrong type) is PTX001's defect seen from the other side. Likewise an
        ``inline_ptx`` instruction with a placeholder that binds another argument than its
        number names (PTX510): which argument each of its ``$K`` reads is that defect's."""
        rebound = self.rebound_operands
        if rebound:  # first: a placeholder past its list is a stray too, and PTX510's
            refs = refs_of(self.statement)
            for instruction in self.statement.ptx.instructions:
                if instruction.start <= start and end <= instruction.end and any(
                    t.index in rebound for t in refs.within(instruction.start, instruction.end)
                ):
                    return RootCause("misnumbered-placeholder", "PTX510", None, start, end)
        for instruction in self.stray_instructions:
            if instruction.start <= start and end <= instruction.end:
                return RootCause("operand-index", "PTX001", None, start, end)
        return None

    @fact
    def misnumbered_placeholders(self) -> tuple[WrongPlaceholder, ...]:
        """The ``inline_ptx`` placeholders PTX510 reports (:func:`.misnumbered_placeholders`)."""
        return misnumbered_placeholders(self.statement)

    @fact
    def rebound_operands(self) -> frozenset[int]:
        """The ``$K`` of :attr:`misnumbered_placeholders`."""
        return frozenset(w.placeholder.operand for w in self.misnumbered_placeholders)

    def register_type_root(self, start: int, end: int) -> RootCause | None:
        """A root cause that spoils the register type of the ``%N`` in ``[start, end)``:
        :meth:`template_root`'s, :meth:`numbering_root`'s, or an operand whose C++ type its
        letter does not take (:attr:`size_misfits`, PTX004): nvcc rejects the operand before
        ptxas sees the template, and the letter that fits the value names another register
        (a ``double`` in ``"r"`` of an ``add.f64`` is one defect, the letter)."""
        root = self.template_root(start, end) or self.numbering_root(start, end)
        if root is None and self.llvm_width_misfits:
            for token in refs_of(self.statement).within(start, end):
                if token.index in self.llvm_width_misfits:
                    return RootCause("register-misfit", "PTX004", token.index, token.start,
                                     token.end)
        if root is not None or not self.size_misfits:
            return root
        for token in refs_of(self.statement).within(start, end):
            misfit = self.size_misfit(cast(int, token.index))
            if misfit is not None:
                return RootCause("register-misfit", "PTX004", token.index, token.start, token.end)
        return None

    def _lowered_immediate(self, start: int, end: int) -> RootCause | None:
        """A ``$K`` in ``[start, end)`` naming a constant that CuTe DSL's ``inline_ptx`` lowers
        to the immediate constraint ``n`` (PTX508 reports where the instruction takes none)."""
        call = self.statement.llvm
        if call is None or call.api != "cute-ptx":
            return None
        operands = self.statement.operands
        for token in refs_of(self.statement).within(start, end):
            index = cast(int, token.index)  # the index's tokens have a number
            if index < len(operands) and operands[index].constraint.letters == "n":
                return RootCause("lowered-immediate", "PTX508", index, token.start, token.end)
        return None

    @fact
    def clearly_ptx(self) -> bool:
        """Device code for sure (:func:`ptxlint.analysis.roots.clearly_ptx`): an unknown word
        in it is a PTX typo, not another assembler's instruction."""
        return _roots.clearly_ptx(self.statement)

    def spelling_issue(self, instruction: PtxInstruction, cuda_version: object = None
                       ) -> Issue | None:
        """The grammar's first spelling issue with ``instruction`` (an unknown modifier, a
        combination no form has) that PTX204 reports: one the toolkit the verdicts are for
        (``cuda_version``, a rule option) rejects, unless the statement's guards keep that
        toolkit out, and not a 32-bit address in a branch built only for 32-bit targets. While
        the spelling is wrong, what the instruction needs or does is not known: the rules that
        ask (PTX403) stay silent."""
        if instruction.opaque or not judged(instruction.opcode, instruction.modifiers):
            return None
        for issue in self.verdict(instruction).issues:
            if issue.kind not in ("modifier", "combination"):
                continue
            if toolkit_accepts(issue, cuda_version, self.guards):
                continue  # the configured toolkit's ptxas (cuda-version) takes it
            if issue.message == REJECTED["address32"] and self.only_for_32bit:
                continue  # a 32-bit branch: right where it is built
            if issue.message in _REJECTED_FORMS and any(
                    instruction is i for i in self.stray_instructions):
                # a form ptxas rejects, matched by its operands' registers, where one %N is
                # past the last operand (PTX001): which form the registers meant is not known
                # (cvta.to.shared.u32 of a "l" operand is PTX206's, of an "r" one this)
                continue
            return issue
        return None

    def instruction_unknown(self, instruction: PtxInstruction) -> bool:
        """PTX204 reports that no PTX form spells ``instruction`` (an unknown modifier of a
        known opcode): what it does is unknown until it is spelled right."""
        return self._unknown_modifier(instruction) is not None

    def space_unknown(self, instruction: PtxInstruction) -> bool:
        """The state space PTX204 reports is the misspelling, not a fact about the addresses:
        one no form of ``instruction`` has (``prefetch.shared.L2``), one out of place
        (``cp.async.ca.global.shared``: ptxas reads the destination's first) or one no form
        combines with the other words (``cp.async.ca.shared.shared``)."""
        first = self._first_issue(instruction)
        return (self._unknown_modifier(instruction) in STATE_SPACES
                or (first is not None and first.about in STATE_SPACES))

    def _first_issue(self, instruction: PtxInstruction) -> Issue | None:
        """The grammar's first spelling issue: the one PTX204 reports (None where it abstains)."""
        if instruction.opaque or not judged(instruction.opcode, instruction.modifiers):
            return None
        return next((i for i in self.verdict(instruction).issues
                     if i.kind in ("modifier", "combination")), None)

    def _unknown_modifier(self, instruction: PtxInstruction) -> str | None:
        """The modifier word PTX204 reports as one no form of ``instruction`` has, or None."""
        opcode, modifiers = instruction.opcode, instruction.modifiers
        if instruction.opaque or family(opcode) is None:
            return None  # an unknown opcode has no effects or roles to echo
        if judged(opcode, modifiers):
            first = self._first_issue(instruction)  # the verdict PTX204 reads
            if first is None or first.kind != "modifier":
                return None
            return first.word if first.word is not None else ""
        at = unknown_modifier(opcode, modifiers)
        return modifiers[at] if at is not None and self.clearly_ptx else None

    @fact
    def side_effects(self) -> tuple[Effect, ...]:
        """What needs ``volatile`` (PTX101, PTX505), without the effects of an instruction
        PTX204 reports as misspelled."""
        return self._known(_effects.side_effects(self.statement))

    @fact
    def memory_effects(self) -> tuple[Effect, ...]:
        """What needs a ``"memory"`` clobber (PTX102, PTX505), without the effects of an
        instruction PTX204 reports as misspelled."""
        return self._known(_effects.memory_effects(self.statement))

    def _known(self, effects: list[Effect]) -> tuple[Effect, ...]:
        instructions = self.statement.ptx.instructions
        return tuple(
            e for e in effects
            if e.position < 0 or not self.instruction_unknown(instructions[e.position])
        )


    @fact
    def placement(self) -> Placement:
        """Where a Python-embedded asm call sits in its function: in a loop, after a barrier
        (:mod:`ptxlint.analysis.placement`); nothing known for C++."""
        return placement_of(self.statement)

    # ------------------------------------------------------------------ value flow in the template

    @fact
    def flow(self) -> WriteAnalysis | None:
        """Which operands the template has written on every path to each instruction
        (:mod:`ptxlint.ptx.flow`); ``None`` where the template cannot be followed, or where
        an instruction is spelled as no form of any toolkit is (PTX204's: an unknown
        modifier, or words no form combines): which operands it reads and writes would be
        what its words say, a guess (``bar.popc.red.u32`` for ``bar.red.popc.u32``: ``bar``
        reads its operands, ``bar.red`` writes the first), and the data-flow rules
        (PTX103, PTX104, PTX106) would report the guess."""
        if self._misspelled:
            return None
        return analyze(self.statement.ptx, self.statement.template.text)

    @fact
    def _misspelled(self) -> bool:
        return any(verdict is not None and verdict.no_form_spells for verdict in self.verdicts)

    def misspelled(self, instruction: PtxInstruction) -> bool:
        """No form of any toolkit spells ``instruction`` (PTX204's error: an unknown modifier,
        or words no form combines, as ``add.cc.f32``): what it reads, writes or does to the
        carry flag is a guess from its words (``flow``; PTX107)."""
        if instruction.opaque or not judged(instruction.opcode, instruction.modifiers):
            return False
        return self.verdict(instruction).no_form_spells

    @fact
    def reversed_movs(self) -> dict[int, ReversedMov]:
        """By instruction position, each ``mov`` that runs backwards
        (:mod:`ptxlint.analysis.reversed_mov`): the root cause PTX105 and PTX106 report once."""
        return {m.position: m for m in reversed_movs(self.statement, self.tied_input)}

    def reversed_mov(self, position: int) -> ReversedMov | None:
        """The ``mov`` at instruction ``position`` where it runs backwards."""
        return self.reversed_movs.get(position)

    @fact
    def early_clobbers(self) -> dict[int, EarlyClobber]:
        """By output index, a write-only register output without ``&`` that the template writes
        before it reads an input of the same register class
        (:mod:`ptxlint.analysis.early_clobber`): PTX108's finding."""
        return early_clobbers(self.statement, self)

    @fact
    def undefined_reads(self) -> dict[int, Access]:
        """By output index, the first read of a write-only (``=``) register output that no
        write of the template precedes on every path: it reads an undefined value (PTX106's
        finding, and the root of PTX104's "never written" for the same output). Not for an
        output tied to an input (its value comes in) or that is itself the defect
        (:meth:`operand_root`) or is named by a misplaced operand (:attr:`misplaced_refs`),
        nor where the template cannot be followed. In output order."""
        statement = self.statement
        found: dict[int, Access] = {}
        if (
            not summary_of(statement).write_only_outputs  # asked per statement, not per output
            or statement.opaque_sections
            or not statement.extended
            or self.rocm_guarded
        ):
            return found
        for operand in statement.outputs:
            modifiers = operand.constraint.modifiers
            # the letters last: a wgmma's 128 accumulators are "+f"
            if ("+" in modifiers or "=" not in modifiers or not register_operand(operand)
                    or operand.index in self.misplaced_refs):
                continue
            for read in reads_of(statement, operand.index):
                flow = self.flow
                if flow is None:
                    return {}
                predicate = read.instruction.predicate
                guard = None
                if predicate is not None and predicate.register is not read.operand:
                    guard = (predicate.register.text, predicate.negated)
                if not flow.written_before(read.position, operand.index, guard):
                    # asked only here: the operands' roots read every register operand's
                    # C++ type, and most outputs are never read before written
                    if (
                        self.tied_input(operand.index) is None
                        and self.operand_root(operand.index) is None
                    ):
                        found[operand.index] = read
                    break
        return found


# The register each LLVM constraint letter makes, in bits (Triton, CuTe DSL, llvmlite).
_LLVM_WIDTH = {"h": 16, "r": 32, "f": 32, "l": 64, "d": 64}


def _scalar_type(ctype: CType | None) -> tuple[str, int] | None:
    """(kind, bytes) of a scalar integer or floating value; None for anything else or unknown
    (a packed ``<2 x f16>``, a vector, a pointer)."""
    if ctype is None or ctype.size is None or ctype.kind not in ("integer", "floating") \
            or ctype.spelling.startswith(("<", "vector")):
        return None
    return ctype.kind, ctype.size


# The analyses of the current file's statements, by identity (the statement is held, so its
# id stays its own). The engine lints one file's statements in turn and every rule asks of the
# same statement; a new file (another path, or ``file_memos.release``) starts afresh. Keeping
# the files before it (in-process callers of ``engine.lint_source`` never release) held every
# statement of a run alive (1.43 million objects after CUTLASS's include/, 1.08 million without
# them), and the cyclic collector traversed them after each file: its time over CUTLASS's asm
# files in-process fell from 0.81 s to 0.67 s.
_ANALYSES: dict[int, tuple[AsmStatement, StatementAnalysis]] = {}
_KEPT = 1 << 14
_PATH: list[str] = []  # the path of the statements in _ANALYSES


def analysis_of(statement: AsmStatement) -> StatementAnalysis:
    """The statement's analysis, made on first ask."""
    if _LAST and _LAST[0][0] is statement:
        return _LAST[0][1]  # the engine runs every rule on one statement in turn
    known = _ANALYSES.get(id(statement))
    if known is None or known[0] is not statement:
        path = statement.source.path
        if len(_ANALYSES) >= _KEPT or not _PATH or _PATH[0] != path:
            _ANALYSES.clear()
            _PATH[:] = [path]
        known = _ANALYSES[id(statement)] = (statement, StatementAnalysis(statement))
    _LAST[:] = [known]
    return known[1]


_LAST: list[tuple[AsmStatement, StatementAnalysis]] = []  # the last ask


def _forget() -> None:
    _ANALYSES.clear()
    _LAST.clear()
    _PATH.clear()


file_memos.register(_forget)


def _constraint_spelled(name: str) -> bool:
    """Whether a clobber's text is an operand constraint: NVPTX letters after the modifiers
    ``= + &``."""
    letters = name.lstrip("=+&")
    return bool(letters) and all(ch in VALID_LETTERS for ch in letters)
