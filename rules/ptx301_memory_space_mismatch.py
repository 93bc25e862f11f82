"""PTX301 memory-space-mismatch.

Cost: the template's address uses (which operand is the base of which access, through register
copies, less the operands the template converts itself) are worked out once per parsed template
(``ptxlint.ptx.address_bases``, which PTX004's root reads too); per statement, only the operands
that are the base of an access are judged, and only those whose type leaves the question open
ask ``analysis.value_flow`` (see its docstring). This rule is not marked pure: its answers read
the file's tree through value flow, which the rule memo cannot key (marking it pure was
measured: no gain).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ptxlint.analysis.shared_conversion import OFFSET_CLAIM, converted_width, needs_offset
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.analysis.value_flow import (
    Value,
    holds_shared_address,
    local_address_operand,
    operand_value,
)
from ptxlint.model import (
    AsmStatement,
    Edit,
    Finding,
    Fix,
    Operand,
    PtxOperand,
    Severity,
)
from ptxlint.ptx.address_bases import address_bases
from ptxlint.ptx.address_values import is_generic_pointer, is_shared_offset
from ptxlint.ptx.spaces import NARROW_GENERIC_SHARED, SHARED_SPACES, AddressUse
from ptxlint.rule import Rule, RuleContext


def _may_truncate(operand: Operand) -> bool:
    """Worth asking the value flow: an integer or unknown-typed operand (a local, a helper's
    result, a cast) that may hold a shared-window address or a truncated pointer."""
    ctype = operand.ctype
    return ctype is None or ctype.kind in ("integer", "pointer")


def _narrow_register(operand: Operand, where: PtxOperand) -> bool:
    """The operand itself (not a register copy) bound under a 32- or 16-bit letter, whose C++
    value is an integer or of unknown type: no 64-bit generic address fits in it. A pointer in
    "r" is PTX004's (nvcc refuses the 8-byte value)."""
    constraint = operand.constraint
    if where.kind != "ref" or constraint.opaque or constraint.letters not in ("r", "h"):
        return False
    return operand.ctype is None or operand.ctype.kind == "integer"



class MemorySpaceMismatch(Rule):
    id = "PTX301"
    name = "memory-space-mismatch"
    scope = "values"  # the file's value flow, which reads another template only for `cvta`
    severity = Severity.ERROR
    needs = ("addresses",)  # an address operand is a bracket's
    summary = "Address operand is in a different memory space than the instruction expects"
    tags = ("correctness", "memory")
    docs = """\
## What it does
Flags an address operand whose value is in a different address space than the instruction's
state space expects:

* a C++ pointer (a *generic* address) used by a `.shared`/`.shared::cta`/`.shared::cluster`
  access: `ld.shared`, `st.shared`, `atom.shared`, `ldmatrix...shared`, `stmatrix...shared`,
  `mbarrier.*.shared`, the shared side of `cp.async` and `cp.async.bulk*` (and a pointer copied
  into a register with `mov`/`add` first); an array's name (`"l"(tile)`) decays to one;
* a shared-window offset (`__cvta_generic_to_shared(p)`, CUTLASS's `cast_smem_ptr_to_uint(p)`
  and similar helpers; in a Python DSL, a value of type `!llvm.ptr<3>`) used by a `.global`
  access or a generic one (no state space: `mbarrier.complete_tx.b64 [$0]`). An `!llvm.ptr`
  of another space than 0 is no generic pointer either;
* a 32-bit register (`"r"(addr)`, an integer or a value of unknown type) as the address of
  `ldmatrix` or `stmatrix` without a state space, wherever its value comes from: no generic
  address fits in 32 bits, so it is a shared-window offset (a warning; `ld`, `st`, `mbarrier`
  and the other instructions ptxas refuses a 32-bit address for are PTX206's).

* the shared-window conversion of an automatic local variable's address
  (`__cvta_generic_to_shared(&bar)` where `uint64_t bar;` is declared in the function without
  `__shared__`, directly or through a local or a helper) used by a shared access: an error. The
  variable lives in the thread's own memory, and the PTX ISA leaves the result of converting a
  generic address outside the shared window undefined ("the resulting address is undefined in
  cases where the generic address does not fall within the address window of the specified
  state space"): an mbarrier kept on the stack this way is no barrier the CTA shares. Only a
  declaration that plainly spells automatic storage counts (a type, `const`, `volatile`,
  `alignas`; `analysis/local_storage.py`): `static`, `extern`, `__shared__`, an attribute, a
  macro on its line (which may expand to `__shared__`) or a parse error there keep it silent;
* the address of such a local written as the operand (`"l"(&value)`, `"l"(buf)`,
  `"l"(&buf[i])`) of a `.global` access (`cp.async.ca.shared.global [%0], [%1], 4` copying
  from a register's stack slot): an error. A local's generic address is in the thread's local
  window, which is no global address; a generic access (no state space) reads it correctly;
* what `mapa.shared::cluster` wrote (another CTA's shared memory, as an address of the
  cluster's shared window), directly through a local or a helper's return value, used by a
  `.shared` or `.shared::cta` access: an error. Those read the executing CTA's own window, which
  holds no address of another CTA; the remote form is `.shared::cluster`
  (`mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote]`). TVM's remote barrier view
  shipped `mbarrier.arrive.shared.b64` on a `mapa` result;
* a generic pointer truncated to 32 bits (`(uint32_t)(uintptr_t)p`, directly or through a
  helper or a local) used by a shared access: a warning, like a generic pointer;
* a generic pointer cast to a 64-bit integer (`(uint64_t)&smem[i]`,
  `reinterpret_cast<uintptr_t>(p)`, directly or through a local or a helper) used by a shared
  access: an integer cast changes the C++ type, never the address space, so the value is still
  generic (a warning, like the pointer itself).

Values are followed through the file's own functions, one call level deep
(`analysis/value_flow.py`): a local's assignments, a helper's `return` statements, and what every
call site passes for a parameter; a member function's parameter, what every call that may reach
it passes (`o.f(x)` and `p->f(x)` of an object of its class, of a class derived from it or of
one not read, such as a template parameter's; `this->f(x)`, a plain `f(x)` in a member function,
`C::f(x)`; not a call through an object of another class that defines an `f` of its own). A
call inside a lambda, whose names value flow does not read, may pass anything: the parameter is
then unknown. A member function's call (`o.f()`, `this->f()`, `C::f()`, a plain `f()` in a member
function) returns what the member function of that class returns, where the file defines one
there; through an object whose class is not read (a template parameter's) it is unknown. A
class's data member, used in a member function (`m`,
`this->m`), holds what every place that may give it a value agrees on
(`analysis/member_values.py`): its default member initializer or a constructor's mem-initializer,
what a constructor's body assigns it last (`ptr_(p) { asm("cvta.to.shared.u64 %0, %0;" :
"+l"(ptr_)); }` leaves the converted value), and every assignment in the member functions the
file defines and through an object (`o.m = v`). Where they disagree, or the class declares a
member function the file does not define (another file may assign the member there), the member
is unknown, as a local given both kinds is: a pointer member then reads as a pointer of unknown
origin. The address of a reference (`&ref`) is that of what the calls bind it to: a variable's,
or `p`'s own value where it is bound to `*p` or `p[i]`. An element's or a member's address
(`&p[i]`, `p + i`, `&p->m`, `&s.buf[i]`, `&grid[1][i]`) is its base's plus an offset, in the
base's window (and a local stepped by `p = p + i`, `p = &p[i]` or `p += i` keeps its kind): a
shared-window address where `p` holds one (`&p[i]` of a pointer made with
`__cvta_generic_to_shared`, or of a member its constructor converts with `cvta.to.shared`),
generic where the base is a variable or array (a data member's base is `this`, generic but in
a file that makes shared-window pointers, as a parameter is), unknown where the base's kind is
(a parameter no call site explains, or a pointer loaded from memory: `&ptrs[j][i]` of an array
of pointers, `&s.ptr[i]`; or a reference member, whose address is that of what it is bound to).
An address aligned down keeps its kind where the mask keeps the high bits (`p & -16`,
`p & ~uintptr_t(15)`; not `~15u`, which C++ zero-extends). A helper
that returns `cvta.to.shared`'s result (even typed as a pointer) or
`static_cast<uint32_t>(__cvta_generic_to_shared(p))` yields a shared-window address; so does
a `uint32_t addr` parameter that every caller binds to one. A pointer parameter that no call
site in the file explains is left alone in a file that itself makes shared-window pointers
(nccl's `shmemCvtPtr` beside `loadShmem128(uint64_t* shmemAsmPtr)`): its callers elsewhere
may pass one; so is a reference parameter's address there. The file's own conversions are read
off its statements too, so one spelt through macros counts (NvCloth's `asm("cvta.to.shared."
POINTER_TYPE " %0, %0;" : "+" POINTER_CONSTRAINT(ptr)); return ptr;`), and so does an operand
that a macro constraint hides from the parse (`POINTER_CONSTRAINT(ptr)`), read as the name it is.

Not flagged: `__cvta_generic_to_shared(p)` with a shared access; a value that already is a
shared-window address, however it got there; a template that converts the operand itself with
`cvta.to.shared`; `ld.global` or plain `ld`/`st` on a C++ pointer (a generic
address is a valid global address on current GPUs); operands whose type and helper are unknown.
A pointer passed with `"r"` as a shared address, directly or through a register the template
copies it into, is PTX004's finding (nvcc refuses the 8-byte value in a 32-bit register; its
fix is the conversion): one defect, one finding. So is a state
space that no form of the instruction has (`prefetch.shared.L2`, `ldu.shared`: PTX204's), or
one PTX204 reports out of place or in a combination no form has (`cp.async.ca.global.shared`,
whose form reads the destination's space first and copies only from global to shared;
`cp.async.ca.shared.shared`), where the space to convert into is the misspelling itself.

## Why is this bad?
State spaces are separate address windows, and the PTX ISA leaves an access undefined when its
address is not in the instruction's state space. nvcc and ptxas accept it without a word (the
operand is just a 64-bit register). That it often works today is an accident: on an H200
(sm_90, CUDA 13.0) ptxas emits `LDS` on the low 32 bits of the register, and the generic shared
window sits at a 4 GiB-aligned base (`0x7fce000301a0` for shared offset `0x301a0`), so the
truncated generic address happens to equal the shared offset. Nothing in the ISA promises that
layout, and a generic pointer into *another* CTA's shared memory (distributed shared memory)
truncates to the wrong `.shared::cluster` address.

The reverse, a 32-bit shared offset used as a global or generic address, is a wild pointer;
ptxas warns "Program uses 32-bit address ... conflicting with .address_size 64" and refuses it
for sm_90 and newer. Not for `ldmatrix` and `stmatrix`, whose generic address must point into
shared memory: ptxas 13.0 takes a 32-bit register there without a word and emits `LDSM`/`STSM`
on it as the shared-window offset (on an H200, `ldmatrix...m8n8.x1.b16` without `.shared` on
`__cvta_generic_to_shared`'s 32-bit value read the same matrix as the `.shared` form). It works
by that accident only: the ISA reads the operand as a generic address, which a 32-bit value is
not.

Severity: a generic pointer in a shared access is reported as a *warning* (undefined, but it
works on current GPUs and real code such as DeepGEMM's `ld_shared` relies on it), and as an
*error* where the template reads the same `"l"` pointer as a 32-bit value too (`mad.lo.u32 a,
%1, 4, %0; st.shared.b8 [%0], ...`): it was written for the 32-bit shared-window offset, ptxas
rejects the 64-bit register in that place ('Arguments mismatch', which `--verify` confirms
it by), and the conversion to the offset mends both, so this finding speaks for PTX206 there;
a shared offset in a global or generic access is an *error*; a 32-bit register in a generic
`ldmatrix` or `stmatrix`, whose value the rule does not follow, a *warning*, as it works today.

## Example
```cuda
__shared__ float tile[256];
asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&tile[i]));
```

## Use instead
```cuda
asm volatile("ld.shared.f32 %0, [%1];"
             : "=f"(v) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(&tile[i]))));
```

## Fix safety
For a C++ pointer in a shared access, the fix passes the shared-window address instead, at the
width every use of the operand in the template takes: `"r"(static_cast<unsigned>(
__cvta_generic_to_shared(p)))` where only shared accesses take it as their address,
`"l"(__cvta_generic_to_shared(p))` where an instruction reads it as a 64-bit value (`mov.b64 a,
%1` or `add.u64` into a register a shared access then uses; ptxas rejects a 32-bit register
there). It is safe when the value is proven to be a generic address (`&x`, a `__shared__` array,
an element or member of one, a local every assignment gives one, a member every place the file
has gives one) and the
template uses the operand only as the address of
shared accesses. A pointer of unknown origin (a parameter no call site in the file explains) may
already hold a shared-window address, and converting it twice breaks working code: then the fix
is unsafe; so is the 64-bit form, whose register copy may flow where the rule does not follow it.
No fix is offered when the operand (or a register copy of it) is also the address of a global or
generic access, which the converted value would break, or when an instruction reads it without a
type to judge its width by (`isspacep.shared`).

A `.shared::cluster` access may address another CTA's shared memory. `__cvta_generic_to_shared`
is `cvta.to.shared` (`::cta`), which the PTX ISA leaves undefined for an address outside the
executing CTA's window: right for `&x` of the CTA's own `__shared__` variable, wrong for a pointer
from `__cluster_map_shared_rank` or `cluster.map_shared_rank`, whose conversion is
`cvta.to.shared::cluster` (or `mapa.shared::cluster` of the CTA's own shared-window address). So
for a `.shared::cluster` access the fix is offered only where the value is proven to be a generic
address of the file's own `__shared__` memory, and the message names both conversions.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if not statement.extended or statement.opaque_sections:
            return
        if "[" not in statement.template.text:
            # no address operand (the parser makes one only of a bracket): no plan to look up
            # or make (6,940 of the 11,800 statements of CUTLASS include/, the CUDA headers,
            # flashinfer and the fixtures: their mma, cvt and fence templates)
            return
        ptx = statement.ptx
        plan = address_bases(ptx)
        if not plan:
            return
        operands = statement.operands
        shared_refs: dict[int, list[PtxOperand]] = {}
        # every state space the operand's address uses read, copies through registers included
        spaces: dict[int, set[str]] = {}
        problems: list[tuple[AddressUse, Operand, PtxOperand, str]] = []
        values: dict[tuple[int, bool], Value | None] = {}

        def value(operand: Operand, through_parameters: bool) -> Value | None:
            key = (operand.index, through_parameters)
            if key not in values:
                values[key] = operand_value(
                    statement, operand, through_parameters, context.parsed,
                    context.file_statements,
                )
            return values[key]

        for use, index, where in plan:
            if index >= len(operands):
                continue
            operand = operands[index]
            spaces.setdefault(index, set()).add(use.space)
            if use.space in SHARED_SPACES:
                if where.kind == "ref":
                    shared_refs.setdefault(index, []).append(where)
                if is_shared_offset(operand):
                    # unless it converts a local's address (value flow reads the helper's
                    # argument where it is `&x` or an array's name)
                    if value(operand, False) is Value.LOCAL:
                        problems.append((use, operand, where, "local"))
                    continue
                if is_generic_pointer(operand) or _may_truncate(operand):
                    # Already a shared-window value (a helper's cvta.to.shared result typed as
                    # a pointer, a parameter every caller converts): never flag it, never
                    # convert it twice.
                    held = value(operand, True)
                    if held is Value.LOCAL:
                        problems.append((use, operand, where, "local"))
                    elif held is Value.CLUSTER:
                        if use.space != "shared::cluster":
                            problems.append((use, operand, where, "cluster"))
                    elif held is Value.TRUNCATED:
                        problems.append((use, operand, where, "truncated"))
                    elif held not in (Value.SHARED, Value.MAYBE_SHARED) and is_generic_pointer(
                        operand
                    ):
                        if not analysis_of(statement).shared_pointer_misfit(operand.index):
                            # (a pointer in "r": PTX004's finding, the conversion its fix)
                            problems.append((use, operand, where, "generic"))
                    elif held is Value.GENERIC:
                        # a pointer cast to a 64-bit integer keeps its generic value: the cast
                        # changes the C++ type, not the address space
                        problems.append((use, operand, where, "generic-integer"))
            elif use.space in ("global", "generic") and (
                is_shared_offset(operand)
                or (
                    _may_truncate(operand)
                    and holds_shared_address(
                        statement, operand, context.parsed, context.file_statements
                    )
                )
            ):
                problems.append((use, operand, where, "offset"))
            elif use.space == "global" and is_generic_pointer(operand) and \
                    local_address_operand(statement, operand, context.parsed):
                problems.append((use, operand, where, "local-global"))
            elif (
                use.space == "generic"
                and use.instruction.opcode in NARROW_GENERIC_SHARED
                and _narrow_register(operand, where)
            ):
                problems.append((use, operand, where, "narrow"))
        for use, operand, where, kind in problems:
            if analysis_of(statement).space_unknown(use.instruction):
                continue  # PTX204's: no form of the instruction reads this space at all
            mnemonic = use.instruction.mnemonic
            expression = " ".join(operand.expression.split())
            named = f"'{where.text}'"
            if where.kind != "ref":
                named += f" (a copy of %{operand.index})"
            if kind == "generic":
                typed = f", {operand.ctype.spelling}" if operand.ctype is not None else ""
                proven = value(operand, True) is Value.GENERIC
                if use.space == "shared::cluster":
                    convert = (
                        "convert it with __cvta_generic_to_shared if it points to this CTA's "
                        "shared memory, or with cvta.to.shared::cluster if to another CTA's"
                    )
                else:
                    convert = "convert it with __cvta_generic_to_shared"
                message = (
                    f"{named} is a generic pointer ('{expression}'{typed}) but "
                    f"'{mnemonic}' expects a .{use.space} address; {convert}"
                )
                echoes = self._offset_places(statement, operand, context, value)
                if echoes:
                    # PTX206 is silent on the 64-bit register in those places: one defect,
                    # which ptxas rejects
                    message += (
                        f" to the 32-bit offset: '{echoes[0]}' reads it too, and {OFFSET_CLAIM} "
                        "('Arguments mismatch')"
                    )
                # cvta.to.shared (::cta) is undefined for another CTA's address: for a cluster
                # access only an address proven to be of the file's own shared memory converts
                fix = (
                    None
                    if use.space == "shared::cluster" and not proven
                    else self._convert_fix(
                        statement,
                        operand,
                        shared_refs.get(operand.index, []),
                        spaces.get(operand.index, set()),
                        proven=proven,
                    )
                )
                # Undefined per the ISA but works on today's GPUs (see docs): a warning, unless
                # the same missing conversion stops ptxas
                severity = Severity.ERROR if echoes else Severity.WARNING
            elif kind == "generic-integer":
                typed = f", {operand.ctype.spelling}" if operand.ctype is not None else ""
                message = (
                    f"{named} is a generic address cast to an integer ('{expression}'{typed}): "
                    f"the cast changes the C++ type, not the address, and '{mnemonic}' expects "
                    f"a .{use.space} address; convert the pointer with __cvta_generic_to_shared "
                    "before the cast"
                )
                fix = None
                severity = Severity.WARNING
            elif kind == "local":
                message = (
                    f"{named} is the shared-window conversion of a local variable's address "
                    f"('{expression}'), and '{mnemonic}' expects a .{use.space} address: a "
                    "local variable lives in the thread's own memory, outside the shared "
                    "window, so the conversion is undefined; declare the variable __shared__"
                )
                fix = None
                severity = Severity.ERROR
            elif kind == "local-global":
                message = (
                    f"{named} is the address of a local variable ('{expression}'), and "
                    f"'{mnemonic}' takes a .global address: a local variable lives in the "
                    "thread's own (local) memory, whose generic addresses are no global "
                    "addresses, so the access is undefined; read the global memory it was "
                    "copied from, or drop the state space for a generic access"
                )
                fix = None
                severity = Severity.ERROR
            elif kind == "cluster":
                message = (
                    f"{named} holds a .shared::cluster address ('{expression}', what "
                    f"mapa.shared::cluster wrote), but '{mnemonic}' reads the executing CTA's "
                    f".{use.space} window, which holds no address of another CTA's shared "
                    "memory; use the instruction's .shared::cluster form"
                )
                fix = None
                severity = Severity.ERROR
            elif kind == "truncated":
                message = (
                    f"{named} is a generic address truncated to 32 bits ('{expression}'), not a "
                    f"shared-window address, but '{mnemonic}' expects a .{use.space} address; "
                    "convert the pointer with __cvta_generic_to_shared"
                )
                fix = None
                severity = Severity.WARNING
            elif kind == "narrow":
                typed = f", {operand.ctype.spelling}" if operand.ctype is not None else ""
                message = (
                    f"{named} is a 32-bit register ('{expression}'{typed}), which holds no "
                    f"generic address, only a shared-window offset, but '{mnemonic}' without a "
                    "state space reads a generic address; use the .shared form of the "
                    "instruction (ptxas takes the register and today reads it as the offset, "
                    "which the ISA does not promise)"
                )
                fix = None
                # Undefined per the ISA but works on today's GPUs (see docs): a warning.
                severity = Severity.WARNING
            else:
                space = "a generic" if use.space == "generic" else "a .global"
                message = (
                    f"{named} is a shared-memory offset ('{expression}') but "
                    f"'{mnemonic}' reads {space} address; pass the pointer itself, or use the "
                    ".shared form of the instruction"
                )
                fix = None
                severity = Severity.ERROR
            yield self.finding(
                statement,
                self.template_span(statement, where.start, where.end),
                message,
                fix=fix,
                severity=severity,
            )

    @staticmethod
    def _offset_places(
        statement: AsmStatement,
        operand: Operand,
        context: RuleContext,
        value: Callable[[Operand, bool], Value | None],
    ) -> list[str]:
        """The instructions whose 32-bit place refuses ``operand``'s 64-bit register (PTX206's
        mismatches), where the missing conversion to the 32-bit shared-window offset is that
        defect too (``analysis.shared_conversion.needs_offset``): PTX206 is silent on them."""
        if not needs_offset(statement, operand, lambda: value(operand, True)):
            return []
        analysis = analysis_of(statement)
        mismatches = analysis.register_mismatches(
            context.one_arch(analysis), context.options.get("cuda_version"),
            lambda: context.parsed)
        return list(dict.fromkeys(m.instruction.mnemonic for m in mismatches
                                  if m.index == operand.index and not m.address))

    def _convert_fix(
        self,
        statement: AsmStatement,
        operand: Operand,
        shared_refs: list[PtxOperand],
        spaces: set[str],
        proven: bool,
    ) -> Fix | None:
        constraint = operand.constraint
        source = statement.source.text
        if (
            operand.role != "input"
            or constraint.opaque
            or constraint.modifiers
            or constraint.letters not in ("l", "r")
            or not source[constraint.span.start : constraint.span.end].startswith('"')
            or "," in operand.expression
            or not spaces <= SHARED_SPACES
        ):
            # converted, the value would be wrong for an access in another space (directly or
            # through a register copy)
            return None
        width = converted_width(statement, operand, len(shared_refs))
        if width is None:
            return None
        # Safe only when its premise is proven: the value is a generic address (`&x`, an array,
        # a pointer every assignment and caller gives one; a pointer of unknown origin may
        # already be a shared-window value, and converting it again breaks working code), and
        # every reference to the operand is the base of a shared address (a register copy may
        # flow where the rule does not follow it: a store, an output, a comparison).
        references = {t.start for t in refs_of(statement).tokens_of(operand.index)}
        safe = proven and references == {r.start for r in shared_refs}
        expression = operand.expression.strip()
        converted = f"__cvta_generic_to_shared({expression})"
        if width == 32:
            edits = (
                Edit(constraint.span, '"r"'),
                Edit(operand.expression_span, f"static_cast<unsigned>({converted})"),
            )
        else:
            # the shared-window offset in a 64-bit register, for the template's 64-bit uses
            # (`mov.b64 a, %1`, `add.u64`): a shared access takes a 64-bit register too, and
            # __cvta_generic_to_shared gives a size_t, which "l" binds
            edits = (Edit(constraint.span, '"l"'), Edit(operand.expression_span, converted))
        return Fix("pass the shared-window address: __cvta_generic_to_shared", edits, safe=safe)
