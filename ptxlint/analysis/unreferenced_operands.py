"""The operands of an asm statement that no ``%N`` of its template names (PTX009's finding),
with what makes an unnamed operand deliberate: an input read through the output it is tied
to, Triton's dummy outputs, one register of a packed tensor, an input another ``#if`` branch
names, a template that only copies its inputs to order them; and (:func:`named_twin`, asked
by PTX009 once the other rules' roots are ruled out) an input bound twice whose twin is
named."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.analysis.effects import instruction_effects
from ptxlint.analysis.template_refs import refs_of
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, Operand, PtxOperand, PtxTemplate

if TYPE_CHECKING:
    from ptxlint.analysis.statement import StatementAnalysis

__all__ = ["named_twin", "unreferenced_operands"]


def unreferenced_operands(
    statement: AsmStatement, analysis: StatementAnalysis
) -> tuple[Operand, ...]:
    """The operands no ``%N`` of the template names (PTX009's findings), where the whole
    template and operand list are seen (no macro piece or section, no constraint from a
    macro, no ``"C"`` operand, whose spliced text may name others, no ``%[name]``) and the
    template is not empty (``asm volatile("" : "+r"(x))`` pins a value): not an input tied
    to an output (read through the output's register), a dummy output of Triton's
    (``bar.sync`` needs one), nor one register of a packed tensor whose others are named,
    nor a read-write operand of a template that names none (it orders the value around its
    instruction: ``asm volatile("wgmma.fence.sync.aligned;" : "+r"(a[0]))``), nor an input
    that the template of another ``#if`` branch of the statement names
    (``Context.branch_named``: the build that takes that branch reads it; an output it
    names is still unwritten in this branch's build), nor an input of a template that only
    copies inputs into outputs (a dependency, :func:`_copies_only`). In LLVM syntax a
    ``%N`` names operand N with the wrong sigil: PTX008's finding, not this."""
    if (
        analysis.rocm_guarded  # hipcc code: not nvcc's constraints
        or not statement.extended
        or not statement.operands
        or not (statement.ptx.instructions or statement.ptx.directives or statement.ptx.labels)
        or statement.template.has_holes
        or statement.opaque_sections
    ):
        return ()
    refs = refs_of(statement)
    if refs.named or any(
        o.constraint.opaque or "C" in o.constraint.letters for o in statement.operands
    ):
        return ()
    used = refs.referenced
    if statement.syntax == "llvm":
        # `%1` for `$1`: the operand is named, with the wrong sigil (PTX008's one finding)
        misspelt = {int(t.name) for t in refs.escapes if t.kind == "bare" and t.name.isdigit()}
        if misspelt:
            used = used | misspelt
    packed = statement.llvm is not None and (statement.llvm.pack or 1) > 1
    elsewhere = statement.context.branch_named
    dummy = statement.syntax == "llvm" and _dummy_outputs(statement, analysis, used)
    found = []
    for operand in statement.operands:
        if operand.index in used:
            continue
        if operand.index in elsewhere and operand.role == "input":
            continue  # another #if branch's template reads it (`cvt.rs`'s random bits)
        if dummy and operand.role == "output":
            continue  # Triton needs an output even for `bar.sync`: a dummy "=r" is normal
        if analysis.tied(operand.index):
            continue  # "0", "=r,0": the tied input is read through the output's register
        if not used and operand.role == "output" and "+" in operand.constraint.modifiers:
            # a template that names no operand, given "+r" ones, orders their values around
            # its instruction as an empty one pins them (`wgmma.fence` with the A
            # fragments: their writes complete before it)
            continue
        if operand.role == "input" and statement.syntax == "llvm" and _copies_only(statement):
            continue  # `mov.b64 $0, $1;` given a pointer and a token: a dependency
        # Packed: each input tensor has several registers and a template may need only
        # some of them (two random words for eight values); an input counts as unnamed
        # where no register of its tensor is named, and only where the register -> tensor
        # map is known. Each output register holds its own elements of the result: one
        # the template never names leaves those elements undefined.
        if packed and operand.role == "input" and (
            not operand.expression
            or any(
                o.index in used
                for o in statement.operands
                if o.expression == operand.expression
            )
        ):
            continue
        found.append(operand)
    return tuple(found)

# What makes evaluating an expression twice give two values the author may mean as two: a
# call (`f(x)`, `rand()`), an increment or decrement, an assignment (`=`, `+=`, `<<=`,
# Python's `:=`).
_EFFECTFUL = on_first_use(r"[\w\]]\(|\+\+|--|:=|<<=|>>=|[-+*/%&|^]=|(?<![=!<>])=(?!=)")
_SPACE = on_first_use(r"\s*([^\w\s])\s*")


def _spelling(expression: str) -> str:
    """The expression with no space a token does not need (``p [ 1 ]`` is ``p[1]``)."""
    return _SPACE().sub(r"\1", " ".join(expression.split()))


def named_twin(statement: AsmStatement, operand: Operand) -> bool:
    """An unnamed input one of whose twins the template names: another input binding the
    same expression with the same constraint, an expression whose evaluation changes nothing
    (no call, increment or assignment). Both operands hold one value in registers of one
    class, so the template reads the value the unnamed one holds. Passing one value twice is
    a way to spell it twice (a selector given as the first and the last input of ``prmt``).

    What an unnamed operand shows is a slip: something written where the unnamed one was
    meant. A slip to the twin reads the same bits. Any other changes the value, and it must
    be visible for the twin to count as a use: the template is ``%N`` tokens only (every
    instruction operand, vector element, address part and guard; no literal, register,
    declaration or label that could stand where the unnamed one was meant), each naming
    another operand (a ``%N`` slip names its operand where the unnamed one should be,
    besides where that operand is meant). ``{%13, %14, %15, %15}`` or ``{%13, %14, %15,
    99}`` beside an unnamed ``"f"(0.f)`` whose twins fill the other vectors stays reported.
    (Two reads of one ``volatile`` object are twins too: no documented order says which
    operand the compiler evaluates first, so neither read is the later one the template
    could have meant.)"""
    if operand.role != "input":
        return False
    text = _spelling(operand.expression)
    if not text or _EFFECTFUL().search(text):
        return False
    refs = refs_of(statement)
    if len(refs.referenced) != len(refs.refs) or not _refs_only(statement.ptx):
        return False  # a slip that changes the value could hide in the template
    used = refs.referenced
    return any(
        other is not operand
        and other.role == "input"
        and other.index in used
        and other.constraint.text == operand.constraint.text
        and _spelling(other.expression) == text
        for other in statement.operands)


def _refs_only(ptx: PtxTemplate) -> bool:
    """Every operand of every instruction (vector elements, address parts and guards
    included) is a ``%N``, and the template declares and labels nothing."""
    if ptx.directives or ptx.labels or not ptx.instructions:
        return False
    pending: list[PtxOperand] = []
    for instruction in ptx.instructions:
        if instruction.opaque:
            return False
        pending.extend(instruction.operands)
        if instruction.predicate is not None:
            pending.append(instruction.predicate.register)
    while pending:
        operand = pending.pop()
        if operand.parts:
            if operand.kind not in ("vector", "address", "pair"):
                return False
            pending.extend(operand.parts)
        elif operand.kind != "ref":
            return False
    return True


def _copies_only(statement: AsmStatement) -> bool:
    """The template only copies inputs into outputs (``mov.b64 $0, $1;``): it computes
    nothing, and exists to make its results depend on everything it is given, as an
    empty template pins a value. In LLVM syntax an input it does not name is such a
    dependency (Triton-distributed's ``consume_token``: the pointer comes back out ordered
    after the token a wait returned; an elementwise call has no other way to order its
    result), not a forgotten ``$N``. C++ asm orders itself with ``volatile`` and clobbers,
    and there the unnamed input is reported."""
    ptx = statement.ptx
    if not ptx.instructions or ptx.directives or ptx.labels:
        return False
    roles: dict[int | None, str] = {o.index: o.role for o in statement.operands}
    written: set[int | None] = set()
    for instruction in ptx.instructions:
        if (
            instruction.opcode != "mov"
            or instruction.predicate is not None
            or len(instruction.operands) != 2
        ):
            return False
        target, source = instruction.operands
        if (
            target.kind != "ref" or source.kind != "ref"
            or roles.get(target.ref) != "output" or roles.get(source.ref) != "input"
        ):
            return False
        written.add(target.ref)
    # every output a copy: an output left unwritten says the copies are not all meant
    return all(o.index in written for o in statement.outputs)

def _dummy_outputs(
    statement: AsmStatement, analysis: StatementAnalysis, used: frozenset[int]
) -> bool:
    """LLVM syntax: the outputs are a call's required result, not values the template
    computes: it names none of them and exists for a side effect (a barrier, a fence, a
    store, a sleep: what needs ``volatile``; or an instruction whose effects are
    unknown). Triton's ``inline_asm_elementwise`` always returns a tensor, so
    ``bar.sync 0;`` comes with an ``"=r"`` nothing writes, and the caller ignores the
    value. A template that computes (names an output, or has no side effect) and leaves
    an output unnamed gives the caller an undefined value, as in C++ (a weak load into a
    temporary is no side effect: its value is all it gives).

    The effects are the analysis's (``side_effects``, from ``effects.instruction_effects``),
    and unknown where it knows none: an instruction PTX204 reports as misspelled (its
    effects are left out until it is spelled right), one whose opcode no PTX family has,
    and one with a hole or a spliced operand in its mnemonic whose spellings do not share
    their effects (``instruction_effects`` is None: the hole may make it a store)."""
    if any(o.index in used for o in statement.outputs):
        return False
    return bool(analysis.side_effects) or any(
        analysis.instruction_unknown(i) or instruction_effects(i) is None
        for i in statement.ptx.instructions)
