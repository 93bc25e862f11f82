"""The function-level differential: the optimizer rules' evidence when the file cannot speak.

The whole-file differential (``differential``) compiles the user's file as written and with the
fix. When that file does not compile on its own (a missing header, another statement's error)
or does not hold the statement in its PTX (an uninstantiated template), this probe compiles the
statement alone, in a self-contained translation unit, as written and with the fix, at -O3 to
PTX, and compares. The unit is a kernel whose parameters give each operand a value of its
declared C++ type (so nothing folds to a constant) and which stores every operand after the asm
(so nothing is dead), around the asm the C++ code that the rule's claim is about:

* PTX101 (not volatile): the asm twice with the same inputs. The claim holds when nvcc emits
  fewer copies as written than with ``volatile`` (it merged or deleted one).
* PTX102 (no "memory" clobber): a C++ load of one word before the asm and the same load after.
  The claim holds when the loads and stores differ (nvcc reused the first load across the asm
  as written, or kept a store the fix makes it keep).
* PTX103, PTX105, PTX106 (an output written only on some paths, an input the template writes,
  an output read before it is written): each operand starts from its kernel parameter. The
  claim holds when the PTX differs (the initial value is not passed in as written, or a value
  the asm changed is reused after it). A PTX105 finding that offers no fix (a `const` input
  no constraint can make an output) is judged by the unit as written alone: nvcc's PTX reading
  the register it gave the input after the asm wrote it (``AS_WRITTEN_ONLY``).

Every compile is plain ``nvcc -arch=ARCH -O3 -ptx probe.cu``: the unit is the whole evidence,
and a user who wants to see it compiles the same text. Identical PTX leaves the finding
unverifiable with that said, never refuted: the claim is what the optimizer may do.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.engine import extract_statements
from ptxlint.fix import apply_edits
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Operand, SourceFile, Span
from ptxlint.value_class import value_class
from ptxlint.verify import cu_probe, differential, immediates
from ptxlint.verify.asm_blocks import asm_blocks, is_begin, outside_blocks
from ptxlint.verify.configuration import defines_for
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.identity import probe_arch, tool_id
from ptxlint.verify.recipes import DIFFERENTIAL, FUNCTION, recipe_for, undefined_output
from ptxlint.verify.runner import Compile, NotRun, UnsafeArgument
from ptxlint.verify.verdict import CONFIRMED, UNVERIFIABLE, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier

PROBE_FILE = "harness.cu"
OUTPUT = "harness.ptx"
RULES = ("PTX009", "PTX101", "PTX102", "PTX103", "PTX105", "PTX106")
# the rules whose fix the unit can write itself where the finding offers none: volatile, and
# the "memory" clobber
FIXED_IN_UNIT = ("PTX101", "PTX102")
# why the file itself is not compared for such a finding
NO_FIX_OF_ITS_OWN = "the finding offers no fix to compile the file with"
# the rules whose claim the unit as written settles alone, where the finding offers no fix:
# PTX105's evidence is a clobber (``_clobbered``), nvcc's PTX reading the register it gave an
# input, as the input's value, after the asm wrote it. That is the optimizer relying on the
# input being unchanged, seen in the one compile; a fix only gives it something to differ from.
# Its absence proves nothing (nvcc may not have needed the value again), so such a finding is
# confirmed or stays unverifiable, never refuted.
AS_WRITTEN_ONLY = ("PTX105",)
METHOD = FUNCTION
# a scalar (or pointer) local cu_probe declares: it becomes a kernel parameter instead
_LOCAL = re.compile(r"(?P<type>[^\[\]{}]+?)\s+(?P<name>ptxlint_v\d+)\{\};")
# what each rule's unit puts around the asm, said in the evidence
_SETTING = {
    "PTX009": "each operand starting from a kernel parameter and stored after the asm",
    "PTX101": "the asm twice with the same inputs",
    "PTX102": "a C++ load of one word before the asm and the same load after it",
    "PTX103": "each operand starting from a kernel parameter and stored after the asm",
    "PTX105": "each operand starting from a kernel parameter and stored after the asm",
    "PTX106": "each operand starting from a kernel parameter and stored after the asm",
}


class NotProbeable(Exception):
    pass


@value_class(slots=False)
class Unit:
    """The two translation units of one finding: as written and with the fix."""

    defective: str
    fixed: str  # the same text as ``defective`` for a rule of ``AS_WRITTEN_ONLY`` without a fix

    @property
    def compared(self) -> bool:
        """Whether the pair holds a fix to compare with (else the unit as written, twice)."""
        return self.fixed != self.defective


def _read_write(source: SourceFile, operand: Operand) -> Fix | None:
    """The comparison variant of an undefined output: the same operand read-write ('+')."""
    span = operand.constraint.span
    at = source.text.find("=", span.start, span.end)
    if at < 0:
        return None
    return Fix("read-write", (Edit(Span(at, at + 1), "+"),))


def fixed_statement(finding: Finding, source: SourceFile, fix: Fix | None = None
                    ) -> AsmStatement:
    """The statement as ``fix`` (the finding's own by default) leaves it, read again from the
    fixed file (a fix may change a constraint's role, '=' to '+', which moves the operand
    between sections)."""
    statement = finding.statement
    fix = fix or finding.fix
    if statement is None or fix is None or not fix.edits:
        raise NotProbeable("the finding has no fix to compare against")
    text, applied = apply_edits(source.text, [fix])
    if not applied:
        raise NotProbeable("the finding's fix does not apply")
    shift = sum(len(e.new_text) - (e.span.end - e.span.start) for e in fix.edits
                if e.span.end <= statement.span.start)
    start = statement.span.start + shift
    found = extract_statements(SourceFile(source.path, text)).statements
    for candidate in found:
        if (candidate.span.start == start
                and candidate.context.branch == statement.context.branch):
            return candidate
    raise NotProbeable("the fixed statement could not be read back")


def text(statement: AsmStatement, rule: str, written: str = "") -> str:
    """The unit for ``statement`` under ``rule``'s claim; ``written``: "as written" or "fixed"
    for the pair of a finding that offers no fix of its own (``FIXED_IN_UNIT``), both written
    from the statement's model, the second with the rule's fix. NotProbeable (cu_probe's
    reasons: a macro template, an operand of a user-defined type) when it cannot be written."""
    # the file's own value for each "n" operand it fixes: a stand-in may be one ptxas rejects
    # (cp.async's size), and the unit must compile as the file would
    known = {o.index: found[0] for o in immediates.immediates(statement)
             if (found := immediates.values(statement, o))}
    fixed = written == "fixed"
    try:
        probe = cu_probe.build(statement, known, volatile=fixed and rule == "PTX101",
                               memory=fixed and rule == "PTX102", rebuild=bool(written))
    except cu_probe.NotProbeable as exc:
        raise NotProbeable(str(exc)) from exc
    lines = probe.splitlines()
    head = lines.index("__global__ void ptxlint_probe() {")
    line_mark = next(n for n, ln in enumerate(lines) if ln.startswith("#line ") and n > head)
    params: list[str] = []
    body: list[str] = []
    kept: list[str] = []
    for declaration in lines[head + 1:line_mark]:
        declaration = declaration.strip()
        local = _LOCAL.fullmatch(declaration)
        if local is None:  # an array for an "m" operand: zero-initialised as cu_probe has it
            body.append(declaration)
            continue
        name = local["name"]
        params.append(f"{local['type']} {name}_in")
        body.append(f"{local['type']} {name} = {name}_in;")
        kept.append(name)
    back = lines.index(f'#line 1000000 "{cu_probe.SYNTH_NAME}"', line_mark)
    asm = lines[line_mark:back]  # the #line and the statement, however many lines it takes
    around_before: list[str] = []
    around_after: list[str] = []
    if rule == "PTX102":
        around_before = ["unsigned int ptxlint_before = *ptxlint_mem;"]
        around_after = ["unsigned int ptxlint_after = *ptxlint_mem;",
                        "ptxlint_mem[1] = ptxlint_before + ptxlint_after;"]
    stores = [f"ptxlint_keep(ptxlint_sink + {16 * k}, {name});" for k, name in enumerate(kept)]
    statement_twice = [*asm, "#line 1000000 \"ptxlint-harness.cu\"", *stores, *asm] \
        if rule == "PTX101" else asm
    includes = [ln for ln in lines[:head] if ln.startswith("#include")]
    signature = ", ".join(["unsigned int *ptxlint_mem", "unsigned char *ptxlint_sink", *params])
    return "\n".join([
        *includes,
        "template <class T>",
        "__device__ __forceinline__ void ptxlint_keep(unsigned char *at, const T &value) {",
        "  *reinterpret_cast<T *>(at) = value;",
        "}",
        f"__global__ void ptxlint_probe({signature}) {{",
        *(f"  {ln}" for ln in body),
        *(f"  {ln}" for ln in around_before),
        *statement_twice,
        '#line 1000000 "ptxlint-harness.cu"',
        # the load after the asm comes before any store, which could alias the word
        *(f"  {ln}" for ln in around_after),
        *(f"  {ln}" for ln in stores),
        "}",
        "",
    ])


def unit(finding: Finding, source: SourceFile) -> Unit:
    statement = finding.statement
    if statement is None or finding.rule not in RULES:
        raise NotProbeable(f"no function-level probe for {finding.rule}")
    if statement.syntax == "llvm":
        raise NotProbeable("LLVM-syntax asm has no C++ function to compile")
    if finding.fix is None and finding.rule in FIXED_IN_UNIT:
        # a statement of a macro's expansion: its fix would edit the macro, so none is
        # offered, but the unit can hold the statement with the rule's fix all the same
        return Unit(text(statement, finding.rule, "as written"),
                    text(statement, finding.rule, "fixed"))
    if finding.fix is None and finding.rule in AS_WRITTEN_ONLY:
        written = text(statement, finding.rule)
        return Unit(written, written)
    fix = None
    if finding.rule == "PTX009":
        operand = undefined_output(finding)
        fix = _read_write(source, operand) if operand is not None else None
        if fix is None:
            raise NotProbeable("an unused input changes no code")
    fixed = fixed_statement(finding, source, fix)
    return Unit(text(statement, finding.rule), text(fixed, finding.rule))


def compile_job(nvcc: str, unit_text: str, arch: str) -> Compile:
    # no flags of the user's: the unit includes nothing of theirs
    return Compile((nvcc, f"-arch={arch}", "-O3", "-ptx", "-o", f"{{dir}}/{OUTPUT}",
                    f"{{dir}}/{PROBE_FILE}"), ((PROBE_FILE, unit_text),), (OUTPUT,))


def judge(rule: str, defective_ptx: str, fixed_ptx: str, mnemonic: str, tool: str,
          pair: Unit | None = None, statement: AsmStatement | None = None
          ) -> tuple[bool, str]:
    """(confirmed, evidence) from the two units' PTX (``pair``, their text, and ``statement``,
    the asm as written, let the evidence name the operand)."""
    setting = f"a function-level probe ({_SETTING[rule]}, compiled alone)"
    if rule in ("PTX009", "PTX103", "PTX106") and pair is not None:
        # the fix (or the comparison) makes an '=' output '+': the claim holds where the value
        # the variable held is loaded for the asm with '+' and never as written
        passed = _passed_in(pair, defective_ptx, fixed_ptx)
        if passed is not None:
            return True, (f"in {setting}, {tool} -O3 never loads the value {passed} held "
                          "before the asm as written, and loads it with '+': where the template "
                          "does not write the output, the variable gets a register nothing set")
        if rule == "PTX009":
            return False, (f"in {setting}, {tool} -O3 passes the same value in with '=' and "
                           "'+': the undefined value is not visible in this compile")
    if rule == "PTX105" and statement is not None:
        clobbered = _clobbered(defective_ptx, statement)
        if clobbered is not None:
            return True, f"in {setting}, {clobbered}"
        if pair is not None and not pair.compared:
            return False, (f"not shown by {tool} -O3 in {setting}: the code after the asm reads "
                           "no register the asm wrote as an input's value, and the finding "
                           "offers no fix to compare with")
    before = differential.asm_copies(defective_ptx, mnemonic)
    after = differential.asm_copies(fixed_ptx, mnemonic)
    if rule == "PTX101":
        # volatile also orders the asm against memory: only the copies speak to this claim
        if before < after:
            return True, (f"in {setting}, {tool} -O3 emits `{mnemonic}` {before}x as written "
                          f"and {after}x with the fix: the optimizer merged or deleted it")
        return False, (f"not exploited by {tool} -O3 in {setting}: `{mnemonic}` is emitted "
                       f"{before}x either way")
    if rule == "PTX102":
        a, b = _accesses(defective_ptx), _accesses(fixed_ptx)
        if a != b:
            return True, (f"in {setting}, {tool} -O3 emits {len(a)} C++ memory accesses "
                          f"around the asm as written and {len(b)} with the fix: it caches or "
                          "drops them across the asm")
        return False, (f"not exploited by {tool} -O3 in {setting} either: the C++ loads and "
                       "stores stay on their side of the asm as written")
    confirmed, evidence = differential.judge(defective_ptx, fixed_ptx, mnemonic, tool)
    if confirmed:
        return True, f"in {setting}, " + evidence
    return False, (f"not exploited by {tool} -O3 in {setting} either: the same code around "
                   "the asm")


_CONSTRAINT = re.compile(r'"([=+&]*)[^"]*"\(ptxlint_v(\d+)\)')
_SIGNATURE = re.compile(r"__global__ void ptxlint_probe\((.*)\) \{")


def _passed_in(pair: Unit, defective_ptx: str, fixed_ptx: str) -> str | None:
    """The operand ('ptxlint_v0') that is '=' as written and '+' in the fixed unit, when the
    fixed PTX loads its kernel parameter and the defective PTX does not; else None."""
    before = {m[2]: m[1] for m in _CONSTRAINT.finditer(pair.defective)}
    after = {m[2]: m[1] for m in _CONSTRAINT.finditer(pair.fixed)}
    signature = _SIGNATURE.search(pair.defective)
    if signature is None:
        return None
    params = [p.strip() for p in signature[1].split(",")]
    for number, modifiers in before.items():
        if "=" not in modifiers or "+" not in after.get(number, ""):
            continue
        position = next((k for k, p in enumerate(params)
                         if p.endswith(f"ptxlint_v{number}_in")), None)
        if position is None:
            continue
        load = re.compile(rf"\bld\.param\.\w+\s+%\w+,\s*\[\w+_param_{position}\]")
        if load.search(fixed_ptx) and not load.search(defective_ptx):
            return f"operand %{number}"
    return None


def _clobbered(ptx: str, statement: AsmStatement) -> str | None:
    """PTX105: where the asm writes the register nvcc gave an input, and the code after the
    asm block reads that register as the input's value."""
    from ptxlint.analysis.operand_access import writes_of
    from ptxlint.verify.triton_probe import operand_registers

    lines = ptx.splitlines()
    blocks = asm_blocks(lines)
    for operand in statement.inputs:
        if not writes_of(statement, operand.index):
            continue
        for register in operand_registers(ptx, statement, operand.index) or ():
            use = re.compile(rf"{re.escape(register)}(?![\w$])")
            # from the end of the asm block that holds the register on
            holding = [b for b in blocks if any(use.search(x) for x in b.lines)]
            for line in lines[holding[0].end:] if holding else ():  # .end: 1-based, the marker
                code = " ".join(line.split("//", 1)[0].split())
                if is_begin(line):
                    break  # another asm: what it does with the register is its own
                if not code or not use.search(code):
                    continue
                elif _reads(code, register):
                    return (f"the asm writes {register}, the register nvcc gave input "
                            f"%{operand.index}, and the code after it reads {register} as the "
                            f"input's value (`{code}`): the write clobbers a value the compiler "
                            "still uses")
                else:
                    break  # written again first: this copy's clobber is not read
    return None


def _reads(code: str, register: str) -> bool:
    """Whether the PTX instruction ``code`` reads ``register`` (a source, an address, a store's
    value), not only writes it (the first operand of most instructions)."""
    parts = code.rstrip(";").split(None, 1)
    if parts and parts[0].startswith("@") and len(parts) == 2:  # a guard: `@%p1 st.u32 ...`
        parts = parts[1].split(None, 1)
    if len(parts) < 2:
        return False
    operands = [o.strip() for o in parts[1].split(",")]
    opcode = parts[0]
    # the register as a whole name: %r1 is not read by an instruction that reads %r12
    names = re.compile(rf"{re.escape(register)}(?![\w$])").search
    if opcode.startswith(("st.", "red.")) or not operands:
        return any(names(o) for o in operands)
    return any(names(o) for o in operands[1:]) or "[" in operands[0] and (
        names(operands[0]) is not None)


def _accesses(ptx: str) -> list[str]:
    """The C++ code's own loads and stores: outside the asm blocks, kernel parameters left out."""
    outside = outside_blocks(ptx)
    return [op for op in differential.memory_ops(differential.normalize(outside))
            if ".param" not in op]


# --------------------------------------------------------------------------- in a verification


def plan(verifier: Verifier) -> None:
    """After the first compiles: a function-level probe for each differential finding whose
    file could not speak (``Verifier.file_silence``)."""
    nvcc = verifier.toolchain.nvcc
    for finding in verifier.result.findings:
        statement = finding.statement
        if statement is None or finding.rule not in RULES:
            continue
        probes = recipe_for(finding.rule, finding).probes
        if DIFFERENTIAL not in probes and METHOD not in probes:
            continue
        arch = probe_arch(statement, verifier.options.arch_for(statement),
                          verifier.toolchain.archs)
        unfixed = finding.fix is None and finding.rule in (*FIXED_IN_UNIT, *AS_WRITTEN_ONLY)
        try:
            silence = verifier.file_silence(finding, arch) if DIFFERENTIAL in probes else None
        except NotRun:  # the --verify-timeout passed: the verdict says so
            continue
        if DIFFERENTIAL in probes and not unfixed and silence is None:
            continue
        source = verifier.result.sources.get(finding.path)
        try:
            if nvcc is None or source is None:
                raise NotProbeable("nvcc or the source is not available")
            pair = unit(finding, source)
        except NotProbeable as exc:
            verifier.function_probes[id(finding)] = str(exc)
            continue
        tool = tool_id(verifier.toolchain, "nvcc")
        _plan_preprocess(verifier, finding, arch, source, silence)
        virtual = arch.replace("sm_", "compute_")
        keys = [verifier.plan.add(f"harness:{job}", job, tool)
                for job in (compile_job(nvcc.path, pair.defective, virtual),
                            compile_job(nvcc.path, pair.fixed, virtual))]
        verifier.function_probes[id(finding)] = (keys[0], keys[1])
        verifier.function_units[id(finding)] = pair


def _plan_preprocess(verifier: Verifier, finding: Finding, arch: str, source: SourceFile,
                     silence: str | None) -> None:
    """For a statement the file's compile left out (``silence``, ``file_silence``'s words)
    under guards no -D can select (CCCL's ``_CCCL_HAS_CUDA_COMPILER()``): the file's
    device-side preprocessing, which says whether the build holds the statement's branch at
    all (``branch_compiled``)."""
    statement = finding.statement
    nvcc = verifier.toolchain.nvcc
    if statement is None or nvcc is None or statement.context.expansion is not None:
        return
    if silence is None or "never compiled" not in silence or defines_for(statement) is not None:
        return
    flags = verifier.flags(finding.path, ())
    try:
        job, name = differential.preprocess_job(nvcc.path, finding.path, source.text, arch, flags)
    except UnsafeArgument:
        return
    key = verifier.plan.add(f"preprocess:{job}", job, tool_id(verifier.toolchain, "nvcc"))
    verifier.preprocessed[id(finding)] = (key, name)


def branch_compiled(verifier: Verifier, finding: Finding) -> bool:
    """Whether the file's preprocessing (``_plan_preprocess``) holds the statement's line: its
    branch is in the build, and the statement is missing from the PTX only as an
    uninstantiated template or an unused function is, which the function-level probe speaks
    for."""
    planned = verifier.preprocessed.get(id(finding))
    statement = finding.statement
    if planned is None or statement is None:
        return False
    outcome = verifier.outcomes.get(planned[0])
    if outcome is None or outcome.returncode != 0:
        return False
    return differential.holds_line(outcome.output(differential.PREPROCESSED), planned[1],
                                   statement.line, statement.keyword)


def verdict(verifier: Verifier, finding: Finding, arch: str, silence: str,
            decisive: bool = True) -> Verdict:
    """The finding's verdict from its function-level probe; ``silence`` says why the file could
    not give one ("" for a rule only this probe judges), and stays in an unverifiable
    verdict's reason. Not ``decisive``: the statement is in no build of the file's flags, so
    what the probe shows is said, but the finding stays unverifiable."""
    tool = verifier.toolchain.label("nvcc")
    planned = verifier.function_probes.get(id(finding), "not planned")
    silence = f"{silence}; " if silence else ""
    if isinstance(planned, str):
        return unverifiable(f"{silence}no function-level probe: {planned}", arch, tool,
                            METHOD)
    defective, fixed = (verifier.outcomes[k] for k in planned)
    for outcome, which in ((defective, "as written"), (fixed, "with the fix")):
        if outcome.returncode != 0:
            first = next((d for d in parse(outcome.messages) if d.is_error), None)
            said = (f"{first.tool}: {first.message}" if first
                    else (outcome.messages.strip().splitlines() or ["no message"])[-1][:300])
            return unverifiable(f"{silence}the function-level probe does not compile {which} "
                                f"({said})", arch, tool, METHOD)
    statement = finding.statement
    assert statement is not None
    mnemonic = next((i.mnemonic for i in statement.ptx.instructions), "")
    pair = verifier.function_units.get(id(finding))
    confirmed, evidence = judge(finding.rule, defective.output(OUTPUT), fixed.output(OUTPUT),
                                mnemonic, tool, pair, statement)
    if not confirmed or not decisive:
        evidence = silence + evidence
        confirmed = False
    return Verdict(CONFIRMED if confirmed else UNVERIFIABLE, tool, arch, evidence, METHOD)
