"""PTX004 constraint-size-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.guards import model_dependent
from ptxlint.analysis.operand_use import LETTER_TYPES, Use, uses, value_types
from ptxlint.analysis.statement import analysis_of
from ptxlint.constraints import letter_for, operand_verdict
from ptxlint.model import AsmStatement, CType, Edit, Finding, Fix, Operand, Severity, Span
from ptxlint.rule import Rule, RuleContext

from ._llvm import TRITON_FAMILY


class ConstraintSizeMismatch(Rule):
    id = "PTX004"
    name = "constraint-size-mismatch"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("operands",)
    summary = "Operand type does not fit the constraint's register size or class"
    tags = ("correctness", "constraints", "types")
    docs = """\
## What it does
Flags an operand whose C++ type nvcc will not bind to its constraint letter. The letters name a
register of one class and size: `h` 16-bit, `r` 32-bit, `l` 64-bit, `q` 128-bit integers (enums
and pointers count as integers), `f` a `float`, `d` a `double`. So `char`, `bool` and `short`
with `r`, `int` with `l`, `float` with `r` (same size, wrong class), `double` with `f` or `l`,
any pointer with `r`, and `__half`/`__nv_bfloat16` values (with any letter) are all flagged.

The knowledge comes from nvcc 13.0 itself (see `ptxlint/constraints.py`, re-checked by
`tests/test_nvcc_oracle_operands.py`). A type the file names but does not declare is read
from the project headers its includes reach, where one namespace-scope definition there gives
it (`typedef unsigned short u16;`, `struct Half4 { half2 a, b; };`). When the operand's type
is unknown (a template parameter, a macro, a library's type, a name such headers define twice
or only inside a class), the rule says nothing. So it does for the fp16
types in a branch that only a toolkit before CUDA 9.0 compiles (the `#else` of `#if
CUDA_VERSION >= 9000`): there `__half2` was a struct holding an `unsigned int x`, and
`"r"(h2.x)` was right.

Neighbouring operands that nvcc refuses for one reason under one constraint (an `mma`'s float
accumulators all given `"+r"`) are one letter copied along: one finding names the run, and its
fix changes every letter of it.

A pointer passed with `r` as a `.shared` address is one defect, the missing conversion to the
shared window: the message says so and PTX301 stays silent on it, also where the template
copies the operand into a register first (`mov.u32 t, %0; st.shared.u32 [t], %1;`). So does
PTX206 on the register type of any operand reported here (a `double` in `"r"` of an
`add.f64`): nvcc stops at the operand, and the letter that fits the value gives the `%N`
another register.

## Why is this bad?
nvcc rejects the statement: `asm operand type size(8) does not match type/size implied by
constraint 'r'` (or, for `__half`, `more than one conversion function ... applies`). The
classic case is a shared-memory address passed as a 64-bit generic pointer with `"r"`; CUDA
12.3/12.4's own `cuda_fp16.hpp` shipped `"r"(ptr)` in `__ldcs`/`__stcs` helpers and broke
64-bit Windows builds.

In Python (Triton's `inline_asm_elementwise`), where the element types are known (`dtype`,
`.to(tl.float16)`, `tl.full(..., dtype)`), every register is checked against the letter's width:
an `int64` in `r` keeps its low 32 bits, an `f32` in `d` reads as 0.0, an `f16` alone (pack=1)
in `r` is a 32-bit register that `neg.f16` rejects (research note 1.3, 4d, 5c). A packed pair
of halves is one 32-bit `r`; 8-bit values widen harmlessly.

In LLVM syntax (CuTe DSL's and JAX's `llvm.inline_asm`, whose values' MLIR types are known:
`Float32(x).ir_value()`, `T.i32()`), an input tied to an output (`"0"`) is that output's register
on entry, so its value must have the output's type. An `i32` tied to an `f32` output is read as
the float with its bits (LLVM 22 compiles it so; LLVM 14 stops with "Unsupported asm: input
constraint with a matching output constraint of incompatible type!"). The usual cause is a list
of values out of the constraints' order: an `mma`'s accumulators listed first, where the
constraints put its fragments, so every tie takes a fragment. One finding names every such tie
of the statement; ties whose types are unknown, or only packed (`<2 x half>`), are not judged.

## Example
```cuda
__shared__ float tile[2][128];
asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
             :: "r"(&tile[buf][threadIdx.x]), "l"(src));       // 8-byte pointer with "r"
unsigned long long t; asm("mov.u64 %0, %%globaltimer;" : "=r"(t));
__half h; asm("mov.b16 %0, %0;" : "+h"(h));
```

## Use instead
```cuda
asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
             :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(&tile[buf][threadIdx.x]))),
                "l"(src));
unsigned long long t; asm("mov.u64 %0, %%globaltimer;" : "=l"(t));
asm("mov.b16 %0, %0;" : "+h"(*reinterpret_cast<unsigned short*>(&h)));  // or __half_as_ushort
```

## Fix safety
A pointer passed with `r` as the address of a `.shared` access is wrapped in
`static_cast<unsigned>(__cvta_generic_to_shared(...))`; this is safe when every use of the
operand is a shared-memory address. Otherwise, where exactly one letter fits the type, the
letter is replaced (`r` -> `l` for a 64-bit value). That is safe only when every instruction that
names the operand already works on the new width (`mov.u64`, a generic address) and type; when
the template uses it in an instruction of that width but another type (`"f"` in `mov.b32`), the
fix is marked unsafe; when an instruction works on another width (`mov.b32` on a 64-bit value),
no letter fixes it (ptxas would reject the new register) and none is offered. No fix is offered
for types no letter fits (`char`, `__half`).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.syntax == "llvm":
            yield from self._llvm(statement)
            return
        analysis = analysis_of(statement)
        if context.tier2 is not None:
            # the register operands whose type is unknown (a misfit's verdict is None exactly
            # then: most misfits of the CUDA 13 headers, 7,112): the template instantiations
            # (Tier 2) that disagree, each judged
            guarded: bool | None = None
            for misfit in analysis.register_misfits:
                if misfit.verdict is None:
                    if guarded is None:
                        guarded = analysis.data_model_guarded
                    yield from self._per_instantiation(
                        statement, misfit.operand, context, guarded
                    )
        # nvcc's refusals, less a 2-byte class in "h" under clang and a pointer or long where
        # the guards may mean a 32-bit build (the analysis's, as PTX206 and PTX301 defer here);
        # a run of neighbouring operands refused alike (an mma's "+r" float accumulators) is
        # one letter copied along: one finding, one fix for the run
        runs: list[list[tuple[Operand, str, bool]]] = []
        for misfit in analysis.size_misfits:
            operand = misfit.operand
            assert operand.ctype is not None and misfit.verdict is not None
            shared = analysis.shared_pointer_misfit(operand.index)
            item = (operand, misfit.verdict.reason, shared)
            last = runs[-1][-1] if runs else None
            if last is not None and last[0].index + 1 == operand.index and last[1:] == item[1:] \
                    and last[0].constraint.text == operand.constraint.text:
                runs[-1].append(item)
            else:
                runs.append([item])
        for run in runs:
            yield self._run_finding(statement, run)

    def _run_finding(
        self, statement: AsmStatement, run: list[tuple[Operand, str, bool]]
    ) -> Finding:
        """One finding for neighbouring operands that nvcc refuses for one reason."""
        first, reason, shared = run[0]
        last = run[-1][0]
        fixes = []
        for operand, _, _ in run:
            assert operand.ctype is not None
            fixes.append(_fix(statement, operand, operand.ctype, operand.constraint.letters,
                              shared))
        if len(run) == 1:
            what = f"operand {first.index} ({first.expression})"
            fix = fixes[0]
        else:
            shown = [o.expression for o, _, _ in run]
            if len(shown) > 3:
                shown = [shown[0], shown[1], "...", shown[-1]]
            what = f"operands {first.index}..{last.index} ({', '.join(shown)})"
            fix = None
            if all(f is not None for f in fixes):
                head = fixes[0]
                assert head is not None
                fix = Fix(
                    f"{head.description}, for each of the {len(run)} operands",
                    tuple(e for f in fixes if f is not None for e in f.edits),
                    safe=all(f is not None and f.safe for f in fixes),
                )
        message = f"{what}: {reason}"
        if shared:  # PTX301 is silent on this generic pointer: one defect, one finding
            message += (", and it is a .shared address, which takes the 32-bit "
                        "shared-window offset: convert it with __cvta_generic_to_shared")
        span = first.span if len(run) == 1 else Span(first.span.start, last.span.end)
        return self.finding(statement, span, message, fix=fix)

    def _llvm(self, statement: AsmStatement) -> Iterator[Finding]:
        """Triton: LLVM gives each value a register of its constraint letter's width, so a
        64-bit value in 'r' is truncated, an f32 in 'd' or 'h' reads garbage, an f16 alone in
        'r' is a 32-bit register (research note 1.3, 4d, 5c). 8-bit values widen harmlessly."""
        analysis = analysis_of(statement)
        yield from self._ties(statement, analysis.llvm_tie_misfits)
        misfits = analysis.llvm_width_misfits
        for operand in statement.operands:
            if operand.index not in misfits:
                continue
            c, ctype = operand.constraint, operand.ctype
            assert ctype is not None  # a misfit's type is known
            bits, width = misfits[operand.index]
            if bits > width:
                what = f"LLVM keeps only its low {width} bits"
            else:
                what = f"LLVM widens it to {width} bits, so the template works on the wrong width"
            right = {16: "h", 32: "r", 64: "l"}.get(bits, "")
            yield self.finding(
                statement,
                operand.span,
                f"{operand.role} {statement.ref_prefix}{operand.index} holds {ctype.spelling} "
                f"({bits} bits) but '{c.letters}' makes a {width}-bit register: {what} "
                + (
                    "(Triton 3.6.0: wrong results, or ptxas's 'Arguments mismatch')"
                    if statement.llvm is None or statement.llvm.api in TRITON_FAMILY
                    else "(wrong results, or ptxas's 'Arguments mismatch')"
                )
                + _llvm_advice(statement, operand, right, bits),
            )

    def _ties(self, statement: AsmStatement, ties: dict[int, int]) -> Iterator[Finding]:
        """One finding for the statement's inputs whose types differ from those of the outputs
        they are tied to: a list of values out of the constraints' order mismatches them all
        at once."""
        if not ties:
            return
        prefix = statement.ref_prefix
        operands = statement.operands
        pairs = [
            f"{prefix}{i} ({_spelled(operands[i].ctype)}) to {prefix}{o} "
            f"({_spelled(operands[o].ctype)})"
            for i, o in ties.items()
        ]
        first = operands[next(iter(ties))]
        yield self.finding(
            statement,
            first.constraint.span,
            f"tied input{'s' if len(pairs) > 1 else ''} {', '.join(pairs)}: a tied input is "
            "its output's register on entry, so the template reads "
            + ("its bits as the output's type" if len(pairs) == 1
               else "each value's bits as its output's type")
            + " (LLVM 22 compiles it so; LLVM 14 stops with 'Unsupported asm: input constraint "
            "with a matching output constraint of incompatible type!'); pass values of the "
            "outputs' types there, or check that the values are listed in the constraints' "
            "order",
        )

    def _per_instantiation(
        self, statement: AsmStatement, operand: Operand, context: RuleContext, guarded: bool
    ) -> Iterator[Finding]:
        types = getattr(context.tier2, "operand_types", None)
        if types is None:
            return
        letter = operand.constraint.letters
        broken = []
        for found in types(statement, operand.index):
            verdict = operand_verdict(found.ctype, letter)
            if verdict is None or verdict.accepted or verdict.rule != self.id:
                continue
            if guarded and model_dependent(found.ctype):
                continue
            broken.append(f"{found.name or 'as written'}: {verdict.reason}")
        if broken:
            yield self.finding(
                statement,
                operand.span,
                f"operand {operand.index} ({operand.expression}) in {'; in '.join(broken)}",
            )


def _fix(
    statement: AsmStatement, operand: Operand, ctype: CType, letter: str, shared: bool
) -> Fix | None:
    """``shared``: the operand is a pointer in "r" the template uses as a .shared address
    (``StatementAnalysis.shared_pointer_misfit``)."""
    seen = list(uses(statement, operand.index))
    holes = statement.template.has_holes or statement.opaque_sections
    if shared:
        safe = not holes and all(u.in_address and u.space == "shared" for u in seen)
        expression = statement.source.text[
            operand.expression_span.start : operand.expression_span.end
        ]
        new = f"static_cast<unsigned>(__cvta_generic_to_shared({expression}))"
        return Fix(
            "Pass the 32-bit shared-window address: "
            "static_cast<unsigned>(__cvta_generic_to_shared(...))",
            (Edit(operand.expression_span, new),),
            safe=safe,
        )
    new_letter = letter_for(ctype)
    if new_letter is None or new_letter == letter:
        return None
    if any(not _same_width(u, new_letter) for u in seen):
        # `mov.b32 %0, %0` with "+h": the new register is the value's width, not the
        # instruction's, and ptxas rejects it ("Arguments mismatch"); the template must change
        return None
    edit = _letter_edit(statement, operand, letter, new_letter)
    if edit is None:
        return None
    safe = not holes and bool(seen) and all(_fits(u, new_letter) for u in seen)
    return Fix(f"Use constraint letter '{new_letter}'", (edit,), safe=safe)


_LETTER_BITS = {"h": 16, "r": 32, "l": 64, "q": 128, "f": 32, "d": 64}


def _same_width(use: Use, letter: str) -> bool:
    """Whether ptxas takes a register of ``letter`` where ``use`` names it: an address wants
    32 or 64 bits; a value, a register of a width the instruction spells (ptxas takes an .f32
    register in ``mov.b32`` and a .b32 one in ``add.f32``, never a .b16 one in ``mov.b32``)."""
    bits = _LETTER_BITS.get(letter)
    if use.in_address:
        return bits in (32, 64)
    widths = {_type_bits(t) for t in value_types(use.instruction)}
    return not widths or bits in widths


def _fits(use: Use, letter: str) -> bool:
    if use.in_address:
        # a generic (or global) address takes a 64-bit register; shared windows are 32-bit
        return (
            letter == "l"
            and use.space != "shared"
            and not any(m.startswith("shared") for m in use.instruction.modifiers)
        )
    types = value_types(use.instruction)
    return bool(types) and types <= LETTER_TYPES[letter]


def _letter_edit(statement: AsmStatement, operand: Operand, old: str, new: str) -> Edit | None:
    c = operand.constraint
    literal = statement.source.text[c.span.start : c.span.end]
    if not (literal.startswith('"') and literal.endswith('"')) or literal[1:-1] != c.text:
        return None  # a macro, a prefix, an escape or several pieces: do not guess
    at = c.span.start + 1 + c.text.rfind(old)
    return Edit(Span(at, at + 1), new)


def _spelled(ctype: CType | None) -> str:
    return ctype.spelling if ctype is not None else "?"


def _llvm_advice(statement: AsmStatement, operand: Operand, letter: str, bits: int) -> str:
    """"; use 'l'" where the new letter is all it takes; where an instruction of the template
    works on another width (``mov.b32`` on a 64-bit value), the letter alone would only trade
    the mismatch for ptxas's "Arguments mismatch": say that the instruction must change too."""
    if not letter:
        return ""
    narrow = []
    for use in uses(statement, operand.index):
        if use.in_address:
            if bits != 64:
                narrow.append(use.instruction.mnemonic)
            continue
        widths = {_type_bits(t) for t in value_types(use.instruction)}
        if widths and bits not in widths:
            narrow.append(use.instruction.mnemonic)
    if narrow:
        spelled = "', '".join(dict.fromkeys(narrow))
        other = ("give the call the instruction's type (dtype=)" if operand.role == "output"
                 else "convert the value to the instruction's type (.to()) before the call")
        return (f"; '{spelled}' works on another width, so '{letter}' alone would not do: "
                f"use '{letter}' with a {bits}-bit instruction, or {other}")
    return f"; use '{letter}'"


def _type_bits(ptx_type: str) -> int:
    """``f16x2`` -> 32, ``u64`` -> 64."""
    digits = "".join(ch for ch in ptx_type.split("x")[0] if ch.isdigit())
    lanes = int(ptx_type.split("x")[1]) if "x" in ptx_type else 1
    return int(digits or 0) * lanes


# The register width LLVM's NVPTX backend gives each constraint letter.
