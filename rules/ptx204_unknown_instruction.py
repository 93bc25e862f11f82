"""PTX204 unknown-instruction."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.roots import device_template
from ptxlint.analysis.statement import analysis_of
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import (
    HOLE,
    AsmStatement,
    Edit,
    Finding,
    Fix,
    PtxInstruction,
    Severity,
    Span,
)
from ptxlint.ptx.directives import misplaced, unknown
from ptxlint.ptx.grammar import Issue, canonical_order, family_vocabulary, vector_order
from ptxlint.ptx.instructions import family, instruction_requirement, is_opcode, unknown_modifier
from ptxlint.ptx.toolkit import beyond_grammar, toolkit_unseen
from ptxlint.ptx.versions import NEWEST_KNOWN, CudaVersion, format_cuda, format_ptx, ptx_for_cuda
from ptxlint.rule import Rule, RuleContext, first_of_each

# An opcode word the way PTX spells them: lowercase letters and digits (AMD's `v_add_f32`
# and `s_waitcnt` have underscores and no modifiers).
_PTX_WORD = on_first_use(r"[a-z][a-z0-9]*\Z")
# An opcode that is a PTX opcode but for its case or a leading underscore (`_mma`, `MMA`,
# `Add`): ptxas rejects it ("Not a name of any known instruction").
_NEAR_PTX = on_first_use(r"_*[A-Za-z][A-Za-z0-9]*\Z")
# non-ASCII characters, but the stand-in of a part the source does not spell (model.HOLE)
_NON_ASCII = on_first_use("[^\\x00-\\x7f\ufffc]+")


def _modifier_offset(instruction: PtxInstruction, index: int) -> int:
    offset = instruction.opcode_start + len(instruction.opcode)
    for modifier in instruction.modifiers[:index]:
        offset += 1 + len(modifier)
    return offset  # at the '.' that starts modifier `index`


class UnknownInstruction(Rule):
    id = "PTX204"
    name = "unknown-instruction"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("instructions", "directives", "template-problems")
    summary = "Opcode or modifier that the PTX ISA does not have"
    tags = ("correctness", "ptx")
    docs = """\
## What it does
Flags an instruction whose opcode is not a PTX opcode, or whose modifier chain contains a word
that no slot of the instruction family accepts: a misspelled type (`.u23`, `.f33`), state space
(`.globl`), or an option the family does not have.

## Why is this bad?
ptxas rejects the whole translation unit ("Unknown modifier", "Not a name of any known
instruction"), but only when the code is compiled for a target that reaches the statement: a
typo in a rarely built branch (an `#if __CUDA_ARCH__` path, an uninstantiated template) survives
until someone builds that configuration.

For the families the instruction grammar knows form by form (`ptxlint/ptx/grammar_data.py`:
arithmetic and logic, `ld`/`st`, `cp.async`, `mbarrier`, barriers and fences, warp collectives,
`cvta`...; `grammar_data_tensor.py`: `mma.sync`, `wgmma`, `tcgen05`, `ldmatrix`/`stmatrix`), it
also flags modifiers that exist but not together: saturation on an unsigned add (`add.sat.u32`),
a rounding mode on an integer type (`add.rn.u32`), `.ftz` on a double comparison, a reduction
operation the type does not have (`redux.sync.add.b32`), an mma accumulator the shape does not
take, a `wgmma` shape the integer types do not have (`.m64n40k32.s32.s8.s8`), `tcgen05.mma.ws`
with `.cta_group::2`; and types out of place where ptxas reads them by position
(`mma...bf16.bf16.f32.f32` for `.f32.bf16.bf16.f32`). The span is the offending modifier. A form
ptxas accepts although the ISA does not document it is a warning, not an error. A form only
a newer toolkit's ptxas takes than the one the verdicts are for (`cuda-version`, 13.0 by
default) is an error that names that toolkit and the targets the form needs
(`cvt.rn.satfinite.e4m3x2.bf16x2`: ptxas 13.1, sm_100f and the other family targets); PTX401
leaves those targets to this finding. A statement gets one such finding per toolkit (and
targets) its forms need, at the first form, which counts the others: one toolkit mends them
all. In Python DSL code (Triton, CuTe DSL), whose PTX the
DSL's own bundled toolchain assembles, such a form is a warning unless `cuda-version` is
configured: which ptxas that is, ptxlint cannot see, and the toolchains disagree (CuTe DSL
supports CUDA 12.9, which `nvidia-cutlass-dsl` installs by default, and CUDA 13.3, its `[cu13]`
extra: a form new in ptxas 13.1 or 13.2 fails the first and assembles with the second). Set
`cuda-version` to the DSL's toolkit (`cutlass.CUDA_VERSION`) to make it an error or nothing. A
call under a test of that version (`if cutlass.CUDA_VERSION.major > 13 or (...minor >= 2)`, the
branch of such a test that binds its template, `cutlass.target_version(min_version="13.2")`,
or past an `if not ...: raise`) is judged as C++ under `#if CUDA_VERSION >= 13020`: nothing
where the test keeps the toolkit out.
Where `cuda-version` names a toolkit newer than the newest whose PTX ISA the grammar covers
(CUDA 13.5, PTX ISA 9.5), an unknown opcode or modifier is a warning that says so: that toolkit
may have added it.

It also warns where an instruction of those families writes its vector qualifier anywhere
but right before the type (`ld.global.u64.v2`, `ld.global.v2.cs.u64`, `atom.global.add.f32.v4`,
`mov.u32.v2`): ptxas 13.0 reads the modifiers in any order and builds the same code, but warns
"Vector Type not specified properly" on each such instruction, and a build that makes ptxas's
warnings errors (`--warning-as-error`, `-Werror`) fails there. Every other order it takes
silently (`ld.u64.global`, `ld.v2.u64.global`), and those are not flagged. A template whose
mnemonic is written but an operand is not (an f-string field in the address) is judged by its
spelling. A spelling ptxas
rejects (`ld.global.v2.u32.v2`: "Multiple vector modifiers specified") is that error alone.

A misspelled modifier gets the nearest word of its family (`did you mean '.release'?`); a
combination no form spells gets the nearest form where exactly one is a word or two away
(`mma...m16n8k8.row.col.bf16.bf16.bf16.bf16`: "the nearest form:
'mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32'"), and none where the grammar cannot tell
which was meant (`st.relaxed.global.u32`: which scope?).

Opcodes that are PTX opcodes but for their case or a leading underscore (`_mma`, `ADD`) are
reported as well; other unknown opcodes only when the statement is clearly PTX. Every form of
the PTX ISA up to 9.x is accepted, including `::` sub-namespaces (`.shared::cluster`,
`.mbarrier::complete_tx::bytes`), shapes (`.m16n8k16`) and vector types (`.v4`).

It also flags a directive that a function body cannot hold, which is where an asm statement's
template lands (`ptxlint.ptx.directives`, each case checked with ptxas 13.0): the module's own
(`.version`, `.address_size`, `.file`, `.section`), a function header's (`.entry`, `.maxnreg`,
`.maxntid`...), a variable with linkage (`.extern .shared .align 16 .b8 smem[];`: declare
`extern __shared__` in C++ and pass its address), a texture, surface or sampler variable, and
a declaration with no state space (`.b32 x;`, `.pred p;`). And a directive name the PTX ISA
does not have (its "PTX Directives" table, ISA 9.x, and the Directives chapter's later
`.abi_preserve`, `.abi_preserve_control`, `.blocksareclusters`, `.attribute`): a typo
(`.regg`, `.shraed`, `.REG`), an attribute's word (`.managed`), or another assembler's label
(`.L1:`: a PTX identifier cannot start with '.'), each a ptxas syntax error, with the nearest
directive where one is close (`did you mean '.shared'?`). Not in a CUDA file's host function
without a well-formed PTX instruction (x86 asm's `.p2align`), nor for a name a macro, an
f-string field or a "C" operand completes (`.sha{kind}`).

It also flags a line of the template that starts with `#` where an instruction would
(Python's or the shell's comment, a preprocessor line): PTX has no such comment, and ptxas stops
there ("Parsing error near '#'", `#line` too). The line is read as the comment it was meant to
be, so the instructions after it are judged as written (not as missing the `;` the comment's
line lacks, PTX205), and a statement's `#` lines are one finding at the first, which counts
the others. Its fix writes `//` for each `#` (safe), where the source spells every one of them;
a comment that holds a non-ASCII character still fails ("Unexpected non-ASCII character",
ptxas 13.0), which the message says.

It also flags a non-ASCII character anywhere else in the template, a comment included (a note in
another language, a typographic quote or dash pasted from a document): ptxas 13.0 refuses the
whole module ("Unexpected non-ASCII character encountered") before reading any instruction,
`//` and `/* */` comments too, so the kernel does not build. One finding per statement, at the
first run of such characters, counting the others; one inside an instruction is left to that
instruction's own finding, and one on a `#` line to that line's. No fix: what the comment
should say in ASCII is the author's call. A comment of the C++ or Python source outside the
template is never ptxas's and is not flagged.

One defect, one finding (`ptxlint.analysis.roots`): a form ptxas rejects that the grammar
matches by its operands' registers (`cvta.to.shared.u32` of a 32-bit register: "32-bit
addressing") is not reported for an instruction that names a `%N` past the last operand
(PTX001): which register that operand was meant to be is not known.

## Example
```cuda
asm("mul.lo.u23 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
asm("ld.globl.f32 %0, [%1];" : "=f"(x) : "l"(p));
asm("add.sat.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
```

## Use instead
```cuda
asm("mul.lo.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
asm("ld.global.f32 %0, [%1];" : "=f"(x) : "l"(p));
asm("add.sat.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
```

## Fix safety
A statement's `#` lines have a fix: each `#` becomes `//`, which turns the line into the
comment it was meant to be and changes no instruction (safe). A vector qualifier out of its place
has one too: the mnemonic written with its modifiers in the ISA's order (`ld.global.v2.u64`),
which ptxas reads as the same instruction, without the warning (safe); none where the
instruction's forms order the words differently, or where a macro or an escape spells part of
the mnemonic. The other findings have none: which spelling was meant is the author's call, even
where the message names the nearest one.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        clearly: bool | None = None
        # each judged instruction's verdict (None for an opaque one or a spelling the grammar
        # does not judge), read in one pass
        verdicts = analysis_of(statement).verdicts
        cuda_version = context.options.get("cuda_version")
        beyond = beyond_grammar(cuda_version)
        newer: dict[tuple[object, ...], list[Finding]] = {}  # forms of a newer toolkit, by need
        for instruction, verdict in zip(statement.ptx.instructions, verdicts, strict=True):
            if instruction.opaque and not _spelling_known(statement, instruction):
                continue
            opcode = instruction.opcode
            fam = family(opcode)
            if fam is None:
                near = _near_opcode(opcode)
                if near is not None:
                    message = (
                        f"'{opcode}' is not a PTX instruction: PTX opcodes are lower case, "
                        f"without a leading '_' (did you mean '{near}'?)"
                    )
                elif instruction.modifiers and _PTX_WORD().match(opcode):
                    message = f"'{opcode}' is not a PTX instruction{_hint(opcode, None)}"
                else:
                    continue
                if clearly is None:
                    clearly = analysis_of(statement).clearly_ptx
                if clearly:
                    start = instruction.opcode_start
                    span = self.template_span(statement, start, start + len(opcode))
                    yield self._unknown_word(statement, span, message, beyond)
                continue
            if verdict is not None:  # judged, and not opaque
                if verdict.issues:  # most verdicts have none
                    yield from self._grammar_findings(
                        statement, instruction, context, beyond, newer)
                    yield from self._vector_order(statement, instruction, verdict.issues)
                continue
            index = unknown_modifier(opcode, instruction.modifiers)
            if index is None:
                if instruction.opaque:  # a hole among the operands: the spelling is written
                    order = vector_order(instruction)
                    if order is not None:
                        yield from self._vector_order(statement, instruction, (order,))
                continue
            if clearly is None:
                clearly = analysis_of(statement).clearly_ptx
            if not clearly:
                continue
            modifier = instruction.modifiers[index]
            start = _modifier_offset(instruction, index)
            span = self.template_span(statement, start, start + 1 + len(modifier))
            if modifier:
                message = (
                    f"unknown modifier '.{modifier}' in '{instruction.mnemonic}': no form of "
                    f"'{opcode}' has it{_hint(modifier, fam.modifiers)}"
                )
            else:
                message = f"empty modifier ('..') in '{instruction.mnemonic}'"
            yield self._unknown_word(statement, span, message, beyond)
        if statement.ptx.directives:
            yield from self._directive_findings(statement, beyond)
        if statement.ptx.problems:
            yield from self._hash_lines(statement)
        if statement.ptx.instructions and not statement.template.text.isascii():
            yield from self._non_ascii(statement)
        # one toolkit mends them all, as one guard mends PTX401's (quack's four
        # cvt.rn.bf16x2.e2m1x2 in one template were four findings)
        yield from first_of_each(newer.values(), "that toolkit")

    def _directive_findings(self, statement: AsmStatement, beyond: CudaVersion | None
                            ) -> Iterator[Finding]:
        """The directives ptxas rejects in the function body the asm is pasted into, and the
        names the PTX ISA does not have."""
        if not analysis_of(statement).clearly_ptx:
            return  # another assembler's directive (x86's .align, .byte) is no PTX's
        device: bool | None = None
        for directive in statement.ptx.directives:
            reason = misplaced(directive)
            message = None if reason is not None else unknown(directive)
            if reason is None and message is None:
                continue  # (most are: a scoped .reg; its span is worked out only for a finding)
            start = directive.start
            span = self.template_span(statement, start, start + len(directive.name))
            if reason is not None:
                yield self.finding(statement, span, reason)
                continue
            assert message is not None
            if device is None:
                # a CUDA file's host function may hold x86 asm, whose .p2align is no typo
                device = device_template(statement)
            if device:
                yield self._unknown_word(statement, span, message, beyond)

    def _hash_lines(self, statement: AsmStatement) -> Iterator[Finding]:
        """The statement's '#' lines, one finding at the first that counts the others: ptxas
        stops at the '#' ("Parsing error near '#'"), and the parser read each line as the
        comment it was meant to be. One fix writes '//' for every '#' the source spells
        itself."""
        lines = [p for p in statement.ptx.problems if p.kind == "hash-comment"]
        if not lines or not analysis_of(statement).clearly_ptx:
            return
        text = statement.template.text
        edits: list[Edit] = []
        for problem in lines:
            char = statement.template.source_span(problem.start, problem.start + 1)
            if statement.source.text[char.start : char.end] == "#":
                edits.append(Edit(char, "//"))
        first = lines[0]
        line = " ".join(text[first.start : first.end].split())
        more = ""
        if len(lines) > 1:
            more = f" (and {len(lines) - 1} more '#' line{'s' if len(lines) > 2 else ''})"
        ascii_note = ""
        if any(not text[p.start : p.end].isascii() for p in lines):
            # measured: ptxas 13.0 'Unexpected non-ASCII character' on a '//' line too
            ascii_note = "; ptxas takes no non-ASCII character, in a comment either"
        fix = Fix("write the comments with '//'", tuple(edits)) if len(edits) == len(lines) \
            else None
        yield self.finding(
            statement, self.template_span(statement, first.start, first.end),
            f"'{line[:40]}' is no PTX comment{more}: ptxas stops at the '#' (\"Parsing error "
            f"near '#'\"); PTX comments are '//' and '/* */'{ascii_note}",
            fix=fix,
        )

    def _non_ascii(self, statement: AsmStatement) -> Iterator[Finding]:
        """The first run of non-ASCII characters outside the instructions (a comment in another
        language, a typographic quote or dash): ptxas 13.0 refuses the whole module ("Unexpected
        non-ASCII character encountered"), in a '//' comment too. One finding per statement,
        counting the others; in an instruction the word's own finding speaks, and on a '#'
        line ``_hash_lines``'s."""
        text = statement.template.text
        taken = [(p.start, p.end) for p in statement.ptx.problems if p.kind == "hash-comment"]
        taken.extend((i.start, i.end) for i in statement.ptx.instructions)
        runs = [m.span() for m in _NON_ASCII().finditer(text)
                if not any(a <= m.start() < b for a, b in taken)]
        if not runs or not analysis_of(statement).clearly_ptx:
            return
        start, end = runs[0]
        more = f" (and {len(runs) - 1} more)" if len(runs) > 1 else ""
        yield self.finding(
            statement, self.template_span(statement, start, end),
            f"'{text[start:end][:20]}' is not ASCII{more}: ptxas takes no other character, in a "
            "comment either (\"Unexpected non-ASCII character encountered\"), and stops",
        )

    def _vector_order(self, statement: AsmStatement, instruction: PtxInstruction,
                      issues: tuple[Issue, ...]) -> Iterator[Finding]:
        """The grammar's warning that the vector qualifier is not right before the type
        (``ld.global.u64.v2``: ptxas 13.0 "Vector Type not specified properly"), with a fix
        that writes the modifiers in the ISA's order where that order is one
        (``grammar.canonical_order``) and the source spells the mnemonic itself."""
        issue = next((i for i in issues if i.kind == "order"), None)
        if issue is None:
            return
        fix = None
        canonical = canonical_order(instruction.opcode, instruction.modifiers)
        if canonical is not None:
            spelled = ".".join((instruction.opcode, *canonical))
            start = instruction.opcode_start
            end = start + len(instruction.mnemonic)
            edit = (self.template_edit(statement, start, end, spelled)
                    if statement.template.text[start:end] == instruction.mnemonic else None)
            if edit is not None:
                fix = Fix(f"write '{spelled}'", (edit,))
        yield self.finding(statement, self.template_span(statement, issue.start, issue.end),
                           issue.message, fix=fix, severity=Severity.WARNING)

    def _unknown_word(self, statement: AsmStatement, span: Span, message: str,
                      beyond: CudaVersion | None) -> Finding:
        """A word the grammar does not know: an error for the toolkits it covers, a warning
        where the verdicts are for a newer one (``beyond``), which may have added it."""
        if beyond is None:
            return self.finding(statement, span, message)
        return self.finding(statement, span, message + _past_grammar(beyond),
                            severity=Severity.WARNING)


    def _grammar_findings(
        self, statement: AsmStatement, instruction: PtxInstruction, context: RuleContext,
        beyond: CudaVersion | None, newer: dict[tuple[object, ...], list[Finding]],
    ) -> Iterator[Finding]:
        """The grammar's finding on ``instruction``; a form of a newer toolkit goes to
        ``newer``, by what it needs (the toolkit, the targets, the severity)."""
        issue = analysis_of(statement).spelling_issue(instruction,
                                                      context.options.get("cuda_version"))
        if issue is None:
            return
        start, end = issue.start, issue.end
        if end <= start:
            start, end = instruction.opcode_start, instruction.opcode_end
        message = issue.message
        targets = ""
        if issue.toolkit is not None:
            # a form of a newer toolkit: PTX401 leaves to this finding the target it needs
            need = instruction_requirement(statement, instruction)
            if need.sm or need.suffix or need.only:
                targets = f", and it needs {need.targets_named}"
                message += targets
        if issue.word:
            message += _hint(issue.word, family_vocabulary(instruction.opcode))
        severity = Severity.WARNING if issue.severity == "warning" else None
        if issue.toolkit is not None and toolkit_unseen(context.options, statement.syntax):
            message += ("; this code's PTX is assembled by its DSL's own toolchain, whose "
                        "version ptxlint cannot see (set cuda-version to judge it)")
            severity = Severity.WARNING
        elif issue.toolkit is None and beyond is not None and severity is None:
            message += _past_grammar(beyond)
            severity = Severity.WARNING
        finding = self.finding(
            statement, self.template_span(statement, start, end), message, severity=severity
        )
        if issue.toolkit is not None:
            newer.setdefault((issue.toolkit, targets, severity), []).append(finding)
        else:
            yield finding


def _past_grammar(beyond: CudaVersion) -> str:
    known = ptx_for_cuda(NEWEST_KNOWN)
    ptx = f"PTX ISA {format_ptx(known)} " if known is not None else ""
    return (f"; ptxlint knows {ptx}(CUDA {format_cuda(NEWEST_KNOWN)}) and older, and "
            f"CUDA {format_cuda(beyond)} (cuda-version) may have added it")


def _near_opcode(opcode: str) -> str | None:
    """The PTX opcode ``opcode`` would be, lower-cased and without leading underscores."""
    if not _NEAR_PTX().match(opcode) or opcode == opcode.lower() and not opcode.startswith("_"):
        return None
    candidate = opcode.lstrip("_").lower()
    return candidate if is_opcode(candidate) else None


def _hint(word: str, vocabulary: frozenset[str] | None) -> str:
    if not word:
        return ""
    import difflib  # only for an unknown word: most runs never ask it

    if vocabulary is None:
        from ptxlint.ptx.isa_table import FAMILIES

        candidates: list[str] = list(FAMILIES)
    else:
        candidates = sorted(vocabulary)
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.75)
    return f" (did you mean '{'' if vocabulary is None else '.'}{close[0]}'?)" if close else ""


def _spelling_known(statement: AsmStatement, instruction: PtxInstruction) -> bool:
    """An instruction with a hole only among its operands (an f-string field, a macro operand,
    the operands a PTX.jl wrapper builds): its spelling is as written, and a typo in it is one.
    A hole before the mnemonic or touching its end may be a predicate or a modifier."""
    text = statement.template.text
    before = text[instruction.start : instruction.opcode_end + 1]
    mnemonic = text[instruction.opcode_start : instruction.opcode_end]
    return HOLE not in before and "%" not in mnemonic and "$" not in mnemonic
