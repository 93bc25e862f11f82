"""PTX213 undeclared-register."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.split_scopes import scope_helper
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import percents_rewritten
from ptxlint.model import AsmStatement, Finding, Fix, PtxOperand, Severity
from ptxlint.ptx.nearest import edit_distance
from ptxlint.ptx.scopes import (
    FORWARD,
    bare_special_element,
    declaration_note,
    declared_names,
    declares,
    is_file_scope,
    undeclared_registers,
    undeclared_sources,
    written_compiler_registers,
)
from ptxlint.ptx.special_registers import (
    SPECIAL_REGISTERS,
    nearest_special_registers,
)
from ptxlint.rule import Rule, RuleContext


class UndeclaredRegister(Rule):
    id = "PTX213"
    name = "undeclared-register"
    pure = True  # reads the file's other statements only where a name is undeclared here
    scope = "file"  # another asm statement of the function may declare the name
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "Template names a register that no .reg declares"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a name the template uses as a register that nothing declares: no `.reg` (or other
declaring directive) of the template, and none of another asm statement of the same function (a
scope opened in one statement and used in the next, as CCCL writes some; in a macro's
definition, of any macro's definition in the file: a pair may open a scope and close it), nor
of a helper
function of the file whose asm only declares (`asm volatile(".reg .pred %c1;")`, called
before the statements that use `%%c1`). Such a helper may live in another file, which
ptxlint does not read with this one: a `%` name (the compiler's style, no C++ symbol's) that no
asm statement of the file declares, nor a name one edit from it, read in a `__device__`
function (not a kernel: its caller's statements run first) is a warning, not an error (xmp's
`PTXInliner` declares `%c1` in one header for the helpers of another). The places checked
are those where PTX takes a register and nothing else: a guard (`@p`), an operand of an
instruction that takes no symbol there (`add`, `setp`, `selp`, `st`'s value: ptxas "must be
register"), and the destination of `mov` and `cvta`. Where a name declared in the template is
close, the message names it.

A declaration holds from its line to the end of the braces around it: a `.reg .pred p;` in an
inner `{ }` declares nothing for a use after its `}`, nor for a use before the `.reg` line in
the same braces (ptxas reads a name not declared yet as a label further on: "Label expected
for forward reference of 'p'"), and the message says which. A use in inner braces before
their own `.reg t` reads an outer `t` declared before it, and is not flagged. A parameterised
declaration `.reg .b32 t<4>;` declares `t0` to `t3` (ptxas reads `t03` as `t3`), so `t4` is a
finding that names the range.

The source of `mov` and `cvta` may name a module symbol (`mov.u64 %0, counter;` takes the
address of a `__device__` variable, whose PTX name is the C++ one): an undeclared name there
is reported only one edit away from a register the template declares (`tmp` declared,
`mov.u32 %0, temp;`), a misspelling rather than a symbol.

A name with `%` that is no special register and that nothing declares (`%%laneId`,
`%%warp_id`, `%%clock32`) is reported wherever it is read, the `mov` source included (no C++
symbol has a `%`); the message names the special register one edit away (two in a longer
name, a letter's case no edit), and an unsafe fix writes it where only one is that near. The
registers the compiler declares in the function it inlines the asm into (`%r1`, `%rd2`, `%f3`,
`%p4`, `%rs5`, `%SP`...) are not reported where they are read (ptxas takes them), nor a
numbered special register past its last number (`%%envreg32`: PTX207's).

A special register written without its `%` (`mov.u32 r7, tid.y;` for `%tid.y`, pasted from
another listing or typed by hand) is reported where an element is taken (`tid.y`: no module
symbol takes a field, ptxas says "Unknown field '.y'" and "Unknown symbol 'tid'") and where
only a register may stand (`add.u32 r, laneid, 1`); in a `mov`, a safe fix writes the `%`
(`%%` in an asm with operands). A bare `laneid` as a `mov` source may be a `__device__` variable's
address, and is left alone.

A template that *writes* one of the compiler's numbered registers (`%r1`, `%rd1`, `%rs1`,
`%f1`, `%fd1`, `%p1`, or `%%r1` in extended asm; a destination of an instruction) without
declaring it inside its own braces is reported, one finding per register: nvcc declares
`.reg .b32 %r<N>;`, `.reg .b64 %rd<N>;`, `.reg .f32 %f<N>;`, `.reg .pred %p<N>;`... in every
function and keeps its values in them, numbered from 1, so the write lands on one of them
(an error). Number 0 (`%r0`, `%p0`) holds none of them: it exists only where the function
declares some register of that type, and ptxas stops with "Unknown symbol" where it does not
(a warning). Not checked: a word inside an address
(`[smem + 4]` may name a variable), call targets and branch labels, the sink `_`, PTX's
constant `WARP_SZ`, a template with a macro hole, an instruction whose opcode is unknown
(PTX204's), and an instruction that runs into the next where two string pieces meet without a
`;` (PTX205's: the next instruction's words, `@p exit`, are read as its operands).

## Why is this bad?
ptxas stops with "Unknown symbol 'temp'" (and, for a guard, "Predicate expression expected")
when it compiles the statement: a register name misspelled (`tmp` declared, `temp` used), a
`.reg` line forgotten, or a special register misspelt (`%laneId`). Inline asm is compiled
late, only for the targets and template instantiations that reach it, so the error waits for
the build that does.

A compiler register written undeclared is worse: ptxas takes it, and the asm silently
overwrites whatever value the compiler keeps in that register at that point (nvcc 13.0 puts
`x = a * 3 + b` in `%r3` of a three-argument kernel; an `asm("add.u32 %r3, %r3, 7;")` after
it changes the `x` stored next). Where the function has fewer such registers than the
number written, ptxas stops with "Unknown symbol '%r0'" instead. Declaring the name inside
the template's braces keeps the write local, but the compiler's own operand (`%0`, which it
may name `%r1`) then means the template's register inside those braces: a name outside the
compiler's scheme is safe.

## Example
```cuda
asm("{\\n\\t.reg .pred p;\\n\\t"
    "setp.ne.u32 q, %1, 0;\\n\\t"
    "selp.u32 %0, 1, 0, p;\\n\\t}"
    : "=r"(r) : "r"(x));
```

## Use instead
```cuda
asm("{\\n\\t.reg .pred p;\\n\\t"
    "setp.ne.u32 p, %1, 0;\\n\\t"
    "selp.u32 %0, 1, 0, p;\\n\\t}"
    : "=r"(r) : "r"(x));
```

For a compiler register written, `asm("add.cc.u32 %r0, %r0, 7;");` (the carry chain's
value lands on one of nvcc's registers), write an operand instead:
```cuda
asm("add.cc.u32 %0, %0, 7;" : "+r"(lo));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        ptx = statement.ptx
        if statement.template.has_holes or statement.opaque_sections:
            return
        registers, sources = undeclared_registers(ptx), undeclared_sources(ptx)
        writes = written_compiler_registers(ptx)
        if writes and not is_file_scope(statement):
            yield from self._compiler_writes(statement, context, writes)
        if not registers and not sources:
            return  # (most statements: the answers are kept per template)
        here = sorted({n.partition("<")[0] for n in declared_names(ptx)})
        # a mov/cvta source that names nothing may be a module symbol; one edit away from a
        # register the template declares, it is that register misspelt
        misspelt = [word for word in sources
                    if any(edit_distance(_name(word.text), name) == 1 for name in here)
                    or bare_special_element(word.text)]
        found = sorted([*registers, *misspelt], key=lambda word: word.start)
        if not found or not analysis_of(statement).clearly_ptx:
            return
        # an instruction glued to the next (PTX205's one defect) reads that one's words as its
        # operands: none of them is a register it names
        analysis = analysis_of(statement)
        glued = [(i.start, i.end) for i in ptx.instructions if analysis.runs_together(i)]
        found = [w for w in found if not any(start <= w.start < end for start, end in glued)]
        if not found:
            return
        # one finding per name: the missing declaration, or the misspelling, is one defect
        uses: dict[str, list[int]] = {}
        for index, word in enumerate(found):
            uses.setdefault(_name(word.text), []).append(index)
        elsewhere = _declared_elsewhere(statement, context)
        for name, indices in uses.items():
            if declares(elsewhere, _ptx_name(name)):
                continue
            word = found[indices[0]]
            more = len(indices) - 1
            also = f" (and {more} more use{'s' if more > 1 else ''})" if more else ""
            note = declaration_note(ptx, name, word.start)
            fix = None
            severity: Severity | None = None
            spelt = name[1:] if name.startswith("%%") else name  # as ptxas reads it
            unknown = (f"(ptxas: \"Label expected for forward reference of '{spelt}'\")"
                       if note == FORWARD else f"(ptxas: \"Unknown symbol '{spelt}'\")")
            if note is not None:  # declared, but not where it is used
                message = (f"'{name}' is not declared where it is used{also}: {note} "
                           f"{unknown}")
            elif name in SPECIAL_REGISTERS and (word in registers
                                                 or bare_special_element(word.text)):
                escape = "%%" if percents_rewritten(statement) else "%"
                message = (f"'{word.text.lstrip('!')}' is the special register "
                           f"'{escape}{word.text.lstrip('!')}' written without its '%'{also} "
                           f"{unknown}")
                fix = self._percent_fix(statement, [found[i] for i in indices], escape)
            elif name.startswith("%") and (special := nearest_special_registers(name)):
                escape = name[:len(name) - len(spelt)]  # `%%laneid` where the asm writes `%%`
                named = " or ".join(f"'{escape}{known}'" for known in special)
                message = (f"'{name}' is no special register, nor a register the template "
                           f"or another asm statement of this function declares{also} "
                           f"{unknown}; did you mean {named}?")
                if len(special) == 1:
                    fix = self._rename_fix(statement, [found[i] for i in indices],
                                           escape + special[0])
            else:
                import difflib  # only for a finding: off the start-up path

                close = difflib.get_close_matches(name, here, n=1, cutoff=0.6)
                advice = (f"did you mean '{close[0]}'?" if close
                          else f"declare it in a {{ }} block of the template "
                               f"(.reg .<type> {name};)")
                if not close and _kernel_scope_name(statement, context, name):
                    # a warning: the kernel may declare it through another file's helper
                    severity = Severity.WARNING
                    unknown = (f"(ptxas: \"Unknown symbol '{spelt}'\", unless the kernel "
                               f"the function is inlined into declares it first, as a helper "
                               f"of another file whose asm only declares may)")
                message = (f"'{name}' is no register the template declares{also}, nor one "
                           f"another asm statement of this function declares {unknown}; "
                           f"{advice}")
            yield self.finding(statement, self.template_span(statement, word.start, word.end),
                               message, fix, severity=severity)

    def _compiler_writes(self, statement: AsmStatement, context: RuleContext,
                         writes: tuple[PtxOperand, ...]) -> Iterator[Finding]:
        """One finding per compiler register (``%r1``) the template writes undeclared."""
        analysis = analysis_of(statement)
        if not analysis.clearly_ptx:
            return
        glued = [(i.start, i.end) for i in statement.ptx.instructions
                 if analysis.runs_together(i)]
        # nvcc rewrites `%%` to `%` only in a statement with operands (PTX008's): there the
        # compiler's register is spelt `%%r1`, elsewhere `%r1` (`%r1` with operands is an
        # operand reference, `%%r1` without reaches ptxas as written: those rules' findings)
        processed = percents_rewritten(statement)
        uses: dict[str, list[PtxOperand]] = {}
        for word in writes:
            name = _name(word.text)
            if name.startswith("%%") == processed and not any(
                    start <= word.start < end for start, end in glued):
                uses.setdefault(name, []).append(word)
        if not uses:
            return
        elsewhere = _declared_elsewhere(statement, context)
        for name, words in uses.items():
            spelt = _ptx_name(name)
            if declares(elsewhere, spelt):
                continue
            more = len(words) - 1
            also = f" (and {more} more write{'s' if more > 1 else ''})" if more else ""
            kind = _COMPILER_TYPES.get(spelt[1:].rstrip("0123456789"), ".<type>")
            scheme = f"'.reg {kind} {spelt.rstrip('0123456789')}<N>'"
            advice = (f"write an output operand, or a register of the template's own declared "
                      f"inside its braces under a name outside that scheme "
                      f"('{{ .reg {kind} t; ... }}')")
            severity = None
            if int(spelt[len(spelt.rstrip("0123456789")):]) == 0:
                # nvcc names its registers from 1: number 0 holds none of its values, and
                # exists only where the function declares that register type at all
                severity = Severity.WARNING
                message = (f"'{name}' is written{also} but the template does not declare it: "
                           f"it exists only where the function the asm is inlined into "
                           f"declares the compiler's {scheme} (nvcc names its own from 1, so "
                           f"it holds none of their values); in a function with none of that "
                           f"type ptxas stops with \"Unknown symbol '{spelt}'\"; {advice}")
            else:
                message = (f"'{name}' is written{also} but the template does not declare it: "
                           f"it is one of the registers the compiler declares in the function "
                           f"the asm is inlined into (nvcc's {scheme}), so the write "
                           f"overwrites a value the compiler keeps there (ptxas takes it; "
                           f"where the function declares fewer: \"Unknown symbol "
                           f"'{spelt}'\"); {advice}")
            word = words[0]
            yield self.finding(statement, self.template_span(statement, word.start, word.end),
                               message, severity=severity)

    def _percent_fix(self, statement: AsmStatement, uses: list[PtxOperand], escape: str
                     ) -> Fix | None:
        """``escape`` written before every use of the special register; none where a use is
        not a ``mov``'s (only ``mov`` and an integer ``cvt`` read one: ptxas "Special register
        argument not allowed for instruction 'add'")."""
        movs = [(i.start, i.end) for i in statement.ptx.instructions if i.opcode == "mov"]
        if not all(any(start <= use.start < end for start, end in movs) for use in uses):
            return None
        edits = []
        for use in uses:
            start = use.start + len(use.text) - len(use.text.lstrip("!"))
            name = _name(use.text)
            edit = self.template_edit(statement, start, start + len(name), escape + name)
            if edit is None:
                return None
            edits.append(edit)
        return Fix(f"Write the special register with its '{escape}'", tuple(edits))

    def _rename_fix(self, statement: AsmStatement, uses: list[PtxOperand], written: str
                    ) -> Fix | None:
        """Every use of the name written as the special register it is nearest to: unsafe,
        the register meant is a guess."""
        edits = []
        for use in uses:
            start = use.start + len(use.text) - len(use.text.lstrip("!"))
            edit = self.template_edit(statement, start, start + len(_name(use.text)), written)
            if edit is None:
                return None
            edits.append(edit)
        return Fix(f"Read the special register '{written}'", tuple(edits), safe=False)


# the type nvcc declares each of its numbered register names with
_COMPILER_TYPES = {"r": ".b32", "rd": ".b64", "rs": ".b16", "f": ".f32", "fd": ".f64",
                   "p": ".pred", "h": ".b16", "hh": ".b32", "rq": ".b128"}


def _name(text: str) -> str:
    return text.lstrip("!").partition(".")[0]


def _ptx_name(name: str) -> str:
    """The name as ptxas reads it: ``%%t`` of extended asm is the ``%t`` a basic asm statement
    (no operands, no ``%%``) declares (sppark's ``asm("{ .reg.b32 %t;")``, then ``%%t``)."""
    return name[1:] if name.startswith("%%") else name


def _kernel_scope_name(statement: AsmStatement, context: RuleContext, name: str) -> bool:
    """``name`` may be declared at the scope of the kernel a ``__device__`` function is
    inlined into, by an asm statement of another file: the name has a ``%`` (the compiler's
    style, no C++ symbol's, and no special register one edit away: a deliberate kernel-scope
    name), the function is no kernel, so a caller's statements come first, and no asm
    statement of this file declares it or a name one edit from it (then the file's own
    declaration is the one meant, misspelt or out of reach)."""
    if not name.startswith("%") or statement.context.function is None \
            or "__global__" in statement.context.function_specifiers:
        return False
    spelt = _ptx_name(name)
    return not any(edit_distance(spelt, _ptx_name(declared)) <= 1
                   for other in context.file_statements if other.ptx.directives
                   for declared in declared_names(other.ptx))


def _declared_elsewhere(statement: AsmStatement, context: RuleContext) -> frozenset[str]:
    """What the other asm statements of the statement's function (or macro) declare: a scope
    one opens and a later one uses, or a `.reg` left at the top of an earlier template
    (PTX201's), declares for them. Another function's declarations are its own, unless its
    asm declares and does nothing else (xmp's ``declarePredicate()`` is ``asm volatile(".reg
    .pred %c1;")``): such a helper exists to declare for the statements after its call. A
    macro's definition is expanded beside the file's other macros: a pair of them may open a
    scope and close it (uDeviceX's ``xfor`` declares ``.reg .pred p, q``, ``xendfor`` reads
    ``q``), so there every macro definition's declarations count."""
    names: set[str] = set()
    function = statement.context.function
    for other in context.file_statements:
        if other is statement or not (other.ptx.directives or other.ptx.labels):
            continue
        # in a function, whatever macro wrote the statement (a scope-opening macro expanded
        # in it); in a macro's definition, any macro's definition
        if (other.context.function == function and (
                function is not None or other.context.macro is not None)) or (
                function is not None and other.context.function is not None
                and scope_helper(other)):
            names.update(_ptx_name(name) for name in declared_names(other.ptx))
    return frozenset(names)
