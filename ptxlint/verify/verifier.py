"""Give every finding of a run a verdict from the real toolchain, and report what the toolchain
rejected that no rule predicted.

One pass: build every probe the findings need (PTX probes for every statement, .cu probes for
the front-end rules, one whole-file compile per file and target for the claims only the real file
can settle, defective/fixed whole-file compiles for the optimizer rules), run them all in
parallel through the cache, then judge each finding by its rule's recipe.
"""

from __future__ import annotations

import re
import time
from dataclasses import field
from typing import Any

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, Finding, Severity, SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.run.discover import read_source
from ptxlint.value_class import value_class
from ptxlint.verify import (
    carry,
    cu_probe,
    dialect_probe,
    differential,
    harness,
    identity,
    inline_ptx_probe,
    isa_probe,
    llvm_probe,
    ptx_probe,
    stand_ins,
    triton_probe,
    wgmma_info,
    whole_file,
)
from ptxlint.verify.configuration import (
    Configuration,
    configuration,
    defines_for,
    in_default_build,
    not_in_default_build,
    older_than_guards,
)
from ptxlint.verify.diagnostics import Diagnostic
from ptxlint.verify.flags import from_database, tree_includes
from ptxlint.verify.identity import (
    DEFAULT_ARCH,
    StatementKey,
    key_of,
    ptxas_target,
    tool_id,
)
from ptxlint.verify.llvm_verdicts import triton_python, width_verdict
from ptxlint.verify.past_first import past_first_error
from ptxlint.verify.plan import (
    Outcomes,
    Plan,
    Variant,
    WholeKey,
    plan_cu,
    plan_ptx,
    ptx_job_key,
    wants_whole_file,
)
from ptxlint.verify.probe_errors import (
    Mapped,
    compile_failure,
    cu_errors,
    finding_lines,
    last_error,
    most_specific,
    on_chosen_line,
    on_lines,
    ptx_errors,
    quote,
)
from ptxlint.verify.recipes import (
    CARRY,
    CU,
    DIFFERENTIAL,
    FUNCTION,
    INLINE_PTX,
    ISA_PROBE,
    LLVM_DIALECT,
    LLVM_PURITY,
    NONE,
    PTX,
    TRITON,
    TRITON_PURITY,
    TRITON_WIDTH,
    WGMMA_INFO,
    WHOLE_FILE,
    Recipe,
    recipe_for,
)
from ptxlint.verify.runner import (
    NotRun,
    Outcome,
    UnsafeArgument,
    parallel_map,
    prune_cache,
    run,
)
from ptxlint.verify.toolchain import Toolchain, arch_key, discover, require
from ptxlint.verify.unpredicted import unpredicted
from ptxlint.verify.verdict import (
    ANOTHER_REASON,
    CONFIRMED,
    REFUTED,
    UNVERIFIABLE,
    Verdict,
    name_the_other_findings,
    unverifiable,
)

MAX_FILE_SIZE = 8 * 1024 * 1024
_ARCH_IN_TEXT = re.compile(r"\bsm_(\d+)([af]?)\b")


@value_class(slots=False)
class VerifyOptions:
    """The settings of a ``--verify`` run: target, tools, parallel jobs, compile flags, cache."""

    arch: str | None = None  # the user's target; None: the statement's guard, else sm_90
    # a build's several targets (``arch`` as a list), lowest first; ``arch`` is then None and
    # each statement is compiled at the one ``arch_for`` chooses
    archs: tuple[str, ...] = ()
    nvcc: str | None = None
    ptxas: str | None = None
    jobs: int | None = None
    use_cache: bool = True
    cuda_flags: tuple[str, ...] = ()  # for whole-file and differential compiles
    build_dir: str | None = None  # where compile_commands.json is: per-file flags
    report_unpredicted: bool = True
    # files linted without findings: the run keeps no source for them, but their statements
    # may still be rejected by the toolchain
    files: tuple[str, ...] = ()
    # a ptxlint.verify.progress.VerifyProgress on a terminal; None: silent
    progress: Any = field(default=None, compare=False)
    # --verify-timeout: seconds for the whole verification; the findings whose compiles had
    # not finished by then stay unverifiable, with a note (None: no limit)
    timeout: float | None = None
    # the folders being linted: no compiler is ever taken from inside them
    linted: tuple[str, ...] = ()
    # add -I for the include/ folders of the linted tree around each file (--no-tree-includes)
    tree_includes: bool = True

    @property
    def explicit_arch(self) -> bool:
        """The user named the target or targets: they are not second-guessed."""
        return self.arch is not None or bool(self.archs)

    def arch_for(self, statement: AsmStatement) -> str | None:
        """The user's target for ``statement``: ``arch``; of several, the lowest listed its
        guards admit, one with every instruction it spells first (``listed_target``)."""
        if len(self.archs) <= 1:
            return self.arch or (self.archs[0] if self.archs else None)
        from ptxlint.verify.target_choice import listed_target

        return listed_target(statement, self.archs)

    def asked_for(self, arch: str) -> bool:
        """``arch`` is a target the user named."""
        return arch in self.archs or arch == self.arch


def probe_arch(statement: AsmStatement, options: VerifyOptions, toolchain: Toolchain) -> str:
    return identity.probe_arch(statement, options.arch_for(statement), toolchain.archs)




# --------------------------------------------------------------------------- planning


# --------------------------------------------------------------------------- judging


class Verifier:
    def __init__(self, result: RunResult, options: VerifyOptions, toolchain: Toolchain) -> None:
        self.result, self.options, self.toolchain = result, options, toolchain
        self.plan = Plan()
        self.outcomes = Outcomes()
        self.deadline = time.monotonic() + options.timeout if options.timeout else None
        self.not_run = 0  # compiles the deadline left out
        self.statements: dict[str, list[AsmStatement]] = {}
        self.sources: dict[str, SourceFile] = {}
        self.differential: dict[int, tuple[str, str] | str] = {}  # id(f) -> keys | reason
        self.triton: dict[int, tuple[str, ...] | str] = {}  # id(f) -> job keys | reason
        self.function_probes: dict[int, tuple[str, str] | str] = {}  # id(f) -> keys | reason
        self.function_units: dict[int, harness.Unit] = {}  # id(f) -> the two texts
        # id(f) -> (job key, the file's name in its line markers): its preprocessing
        self.preprocessed: dict[int, tuple[str, str]] = {}
        self.llvm: dict[int, tuple[str, str] | str] = {}  # llvmlite/CuTe DSL: keys | reason
        # id(f) -> (job key, probe, .version, exact values) | reason: PTX403's older-ISA probe
        self.isa_probes: dict[int, tuple[str, ptx_probe.PtxProbe, str, bool] | str] = {}
        self._reports: dict[WholeKey, whole_file.Report] = {}
        self._ran: set[str] = set()
        # a differential's PTX, read into asm blocks once however many findings look at it
        self._matchers: dict[str, whole_file.Matcher] = {}
        # errors a probe showed that no compile of the file reproduced: never findings, but
        # --verbose notes and the summary's count, (path, line, what)
        self.probe_failures: list[tuple[str, int, str]] = []

    # ----------------------------------------------------------------- build and run
    def prepare(self) -> None:
        sources = dict(self.result.sources)
        for path in self.options.files:
            if path not in sources:
                text, decode_errors, _ = read_source(path, MAX_FILE_SIZE)
                if text is not None:
                    sources[path] = SourceFile(path, text, decode_errors)
        self.sources = sources
        progress = self.options.progress
        for done, (path, source) in enumerate(sources.items(), 1):
            try:
                found = extract_statements(source).statements
            except Exception as exc:  # never dropped silently: the file is not verified
                self.result.notes.append(
                    (path, f"not verified: its asm statements could not be read "
                           f"({type(exc).__name__}: {exc})"))
                found = []
            # A branch no 64-bit build compiles (`#else` of `defined(__LP64__)`) is not probed:
            # its toolchain errors would be about a configuration nvcc 13 cannot build.
            self.statements[path] = [s for s in found if in_default_build(s)]
            if progress is not None:
                progress.files(done, len(sources))
        for statements in self.statements.values():
            for group in ptx_probe.groups(statements):
                # each statement's verdict reads the probe at its own target, and a scope's
                # statements may need different ones (one opens it, a wgmma closes it)
                for arch in dict.fromkeys(probe_arch(s, self.options, self.toolchain)
                                          for s in group):
                    plan_ptx(self.plan, group, arch, self.toolchain)
        for finding in self.result.findings:
            statement = finding.statement
            if statement is None:
                # at a helper call of a file without asm: only a whole file's evidence
                if WGMMA_INFO in recipe_for(finding.rule, finding).probes:
                    wgmma_info.plan(self, finding)
                continue
            recipe = recipe_for(finding.rule, finding)
            arch = probe_arch(statement, self.options, self.toolchain)
            if PTX in recipe.probes and recipe.arch_sensitive:
                for other in self._named_archs(finding):
                    plan_ptx(self.plan, [statement], other, self.toolchain)
            if CU in recipe.probes:
                plan_cu(self.plan, statement, arch, self.toolchain)
            if DIFFERENTIAL in recipe.probes:
                self._plan_differential(finding, arch)
            if {TRITON, TRITON_PURITY, TRITON_WIDTH} & set(recipe.probes):
                self._plan_triton(finding, purity=TRITON_PURITY in recipe.probes,
                                  before_ptxas=TRITON in recipe.probes)
            if CARRY in recipe.probes:
                carry.plan(self, finding, arch)
            if WGMMA_INFO in recipe.probes:
                wgmma_info.plan(self, finding)
            if LLVM_PURITY in recipe.probes:
                llvm_probe.plan(self, finding)
            if LLVM_DIALECT in recipe.probes:
                dialect_probe.plan(self, finding)
            if INLINE_PTX in recipe.probes:
                inline_ptx_probe.plan(self, finding)
            if ISA_PROBE in recipe.probes:
                isa_probe.plan(self, finding, arch)
            if wants_whole_file(recipe, self.plan.cu.get(key_of(statement))):
                self.plan_whole_file(finding.path, arch, self.defines(statement))

    def unbuildable(self, arch: str) -> str:
        """Why the toolchain cannot build ``arch``, a target the guards chose over the user's
        (``#else`` of ``__CUDA_ARCH__ >= 700``: sm_62, which nvcc 13 no longer builds); ""
        when it can, or when ``arch`` is the one the user asked for."""
        if (arch == (self.options.arch or DEFAULT_ARCH) or self.options.asked_for(arch)
                or self.toolchain.supports(arch)):
            return ""
        return (f"the statement's guards compile it only for targets such as {arch}, which "
                f"{self.toolchain.label('ptxas')} cannot build: that configuration cannot be "
                "compiled here")

    def older_than_guards(self, statement: AsmStatement) -> str:
        """Why the toolchain is older than the statement's version guards admit, or ""."""
        tools = (self.toolchain.nvcc, self.toolchain.ptxas)
        return older_than_guards(statement, [(t.name, t.version) for t in tools if t])

    def configuration(self, statement: AsmStatement) -> Configuration:
        """Where the statement's findings are compiled: at --arch, else at the target its
        instructions need among those this ptxas builds."""
        return configuration(statement, self.options.arch_for(statement), self.toolchain.archs,
                             self.toolchain.label("ptxas"))

    def defines(self, statement: AsmStatement) -> tuple[str, ...]:
        """The -D/-U flags that select the statement's #if branches (none where a guard asks
        for more than a -D can say: the compile then shows whether it is there at all)."""
        if statement.syntax == "llvm":
            return ()
        return self.configuration(statement).defines

    def flags(self, path: str, defines: tuple[str, ...]) -> tuple[str, ...]:
        """The flags of a compile of ``path``: its compile database entry, --cuda-flags, the
        linted tree's include/ folders around it (flags.tree_includes), the defines."""
        tree = (tree_includes(path, self.options.linted) if self.options.tree_includes
                else ())
        return (*from_database(self.options.build_dir, path), *self.options.cuda_flags, *tree,
                *defines)

    def plan_whole_file(self, path: str, arch: str, defines: tuple[str, ...] = ()) -> None:
        key = (path, arch, defines)
        if key in self.plan.whole:
            return
        nvcc, source = self.toolchain.nvcc, self.sources.get(path)
        if nvcc is None or self.toolchain.host_compiler is None:
            self.plan.whole[key] = "a whole-file compile needs nvcc and a host compiler"
            return
        if source is None:
            self.plan.whole[key] = "the source is not available"
            return
        ptxas = self.toolchain.ptxas
        flags = self.flags(path, defines)
        try:
            job = whole_file.compile_job(nvcc.path, ptxas.path if ptxas else None,
                                         ptxas_target(arch, self.toolchain), path,
                                         source.text, arch, flags)
        except UnsafeArgument as exc:
            self.plan.whole[key] = str(exc)
            return
        tool = tool_id(self.toolchain, "nvcc") + "+" + tool_id(self.toolchain, "ptxas")
        self.plan.whole[key] = (self.plan.add(f"whole:{job}", job, tool), tool)

    def _named_archs(self, finding: Finding) -> list[str]:
        return sorted({f"sm_{n}{s}" for n, s in _ARCH_IN_TEXT.findall(finding.message)},
                      key=arch_key)

    def _plan_differential(self, finding: Finding, arch: str) -> None:
        nvcc = self.toolchain.nvcc
        if nvcc is None or self.toolchain.host_compiler is None:
            self.differential[id(finding)] = "the differential needs nvcc and a host compiler"
            return
        source = self.result.sources.get(finding.path)
        if source is None:
            self.differential[id(finding)] = "the source is not available"
            return
        fixed = differential.fixed_text(finding, source.text)
        if fixed is None:
            self.differential[id(finding)] = "the finding has no fix to compare against"
            return
        tool = tool_id(self.toolchain, "nvcc")
        flags = self.flags(finding.path,
                           self.defines(finding.statement) if finding.statement else ())
        try:
            a = differential.compile_job(nvcc.path, finding.path, source.text, arch, flags)
            b = differential.compile_job(nvcc.path, finding.path, fixed, arch, flags)
        except UnsafeArgument as exc:
            self.differential[id(finding)] = str(exc)
            return
        self.differential[id(finding)] = (
            self.plan.add(f"diff:{a}", a, tool), self.plan.add(f"diff:{b}", b, tool))

    def _plan_triton(self, finding: Finding, purity: bool, before_ptxas: bool) -> None:
        statement = finding.statement
        assert statement is not None
        python = triton_python()
        version = triton_probe.triton_version(python)
        if version is None:
            self.triton[id(finding)] = (
                "Triton is not installed for this Python (set PTXLINT_TRITON_PYTHON to an "
                "interpreter that has it)"
                + ("; LLVM rejects this before ptxas runs" if before_ptxas else ""))
            return
        tool = f"triton {version}"
        arch = llvm_probe.target(self, statement)
        try:
            if purity:
                jobs = [triton_probe.job(statement, python, arch, use_result=False),
                        triton_probe.job(statement, python, arch, use_result=False,
                                         is_pure=False)]
            else:
                bare = finding.rule == "PTX507"
                jobs = [triton_probe.job(statement, python, arch, bare_args=bare)]
        except ptx_probe.NotProbeable as exc:
            self.triton[id(finding)] = f"no Triton probe: {exc}"
            return
        self.triton[id(finding)] = tuple(self.plan.add(f"triton:{job}", job, tool) for job in jobs)
    def execute(self) -> None:
        """Run every planned compile not run yet (a second call runs what was planned since)."""
        keys = [k for k in self.plan.jobs if k not in self._ran]
        self._ran.update(keys)

        progress = self.options.progress
        if progress is not None:
            progress.planned(len(self.plan.jobs))

        def one(key: str) -> Outcome | None:
            job, tool = self.plan.jobs[key]
            if progress is None:
                return run(job, tool, self.options.use_cache, deadline=self.deadline)
            progress.started()
            try:
                return run(job, tool, self.options.use_cache, deadline=self.deadline)
            finally:
                progress.finished()

        ran = parallel_map(one, keys, self.options.jobs)
        done = {k: o for k, o in zip(keys, ran, strict=True) if o is not None}
        self.outcomes.update(done)
        self.not_run += len(keys) - len(done)

    # ----------------------------------------------------------------- verdicts
    def verdict(self, finding: Finding) -> Verdict:
        recipe = recipe_for(finding.rule, finding)
        statement = finding.statement
        if statement is None:
            # at a helper call of a file without asm (a protocol rule's): the file's evidence
            if WGMMA_INFO in recipe.probes:
                return wgmma_info.verdict(self, finding)
            if NONE in recipe.probes:
                return unverifiable(recipe.why_none)
            return unverifiable("the finding is not about one asm statement")
        arch = probe_arch(statement, self.options, self.toolchain)
        if NONE in recipe.probes:
            return unverifiable(recipe.why_none, arch)
        if statement.syntax != "llvm":
            config = self.configuration(statement)
            if config.arch is None and recipe.arch_sensitive and not self.options.explicit_arch:
                # no target has every instruction (PTX401's own claim): its probe compiles at
                # the targets the finding names, in the configuration the guards choose
                config = configuration(statement, DEFAULT_ARCH)
            if config.arch is None:
                return unverifiable(f"not compiled in any configuration the toolchain can "
                                    f"build: {config.why}",
                                    self.options.arch_for(statement) or "")
            if unbuilt := (self.unbuildable(config.arch) or self.older_than_guards(statement)
                           or not_in_default_build(statement)):
                return unverifiable(unbuilt, config.arch)
        elif unbuilt := self.older_than_guards(statement):  # a DSL's version tests
            return unverifiable(unbuilt, arch)
        if DIFFERENTIAL in recipe.probes:
            return self._differential_verdict(finding, arch)
        if FUNCTION in recipe.probes:
            return harness.verdict(self, finding, arch, "")
        if LLVM_PURITY in recipe.probes:
            return llvm_probe.verdict(self, finding, recipe.why_clean)
        if LLVM_DIALECT in recipe.probes:
            return dialect_probe.verdict(self, finding)
        if INLINE_PTX in recipe.probes:
            return inline_ptx_probe.verdict(self, finding)
        if {TRITON, TRITON_PURITY, TRITON_WIDTH} & set(recipe.probes):
            return self._triton_verdict(finding, recipe)
        if CARRY in recipe.probes:
            return carry.verdict(self, finding, arch)
        if ISA_PROBE in recipe.probes:
            return isa_probe.verdict(self, finding, arch)
        if WGMMA_INFO in recipe.probes:
            return wgmma_info.verdict(self, finding)
        if wants_whole_file(recipe, self.plan.cu.get(key_of(statement))):
            return self._whole_file_verdict(finding, recipe, arch)
        heard: list[Diagnostic] = []
        warned: list[Diagnostic] = []  # ptxas's warnings on the statement: not a clean compile
        reasons: list[str] = []
        tools: list[str] = []
        archs = [arch]
        if PTX in recipe.probes and recipe.arch_sensitive:
            archs = self._named_archs(finding) or [arch]
        if PTX in recipe.probes:
            # the lines ptxas's words about the finding name
            lines = finding_lines(finding) if recipe.own_lines else None
            for at in archs:
                planned = self.plan.ptx.get((key_of(statement), at))
                if not isinstance(planned, tuple):
                    reasons.append(f"no PTX probe: {planned or 'not planned'}")
                    continue
                # each variant's ptxas errors, all and the statement's, read once (the
                # outcome None: not run)
                read: list[tuple[Variant, str, Outcome | None, list[Mapped],
                                 list[Diagnostic]]] = []
                for variant in planned:
                    key = ptx_job_key(variant.probe, at, self.toolchain)
                    outcome = self.outcomes.get(key)
                    everyone = ptx_errors(variant.probe, outcome) if outcome is not None else []
                    mine = [m.diagnostic for m in everyone
                            if key_of(m.statement) == key_of(statement)]
                    read.append((variant, key, outcome, everyone, mine))
                # the words every stand-in probe gave on a stand-in's line: not the value's
                value_free = stand_ins.same_in_every_probe(
                    [[d for d in mine if on_chosen_line(d, variant.probe)]
                     for variant, _, _, _, mine in read if not variant.exact])
                for variant, key, outcome, everyone, errors in read:
                    if outcome is None:
                        raise NotRun(key)
                    probe = variant.probe
                    if outcome.returncode != 0 and not everyone:
                        # no message to judge, and no sign that ptxas accepted the statement
                        # either (a crash, a timeout, exit 0 without probe.cubin)
                        reasons.append(f"the PTX probe failed: {last_error(outcome)}")
                        continue
                    tools.append(self.toolchain.label("ptxas"))
                    note = variant.label(statement)
                    if not variant.exact:
                        guessed = [d for d in errors if on_chosen_line(d, probe)
                                   and (d.line, d.message) not in value_free]
                        if variant is planned[0]:  # one reason for the stand-ins
                            reasons.append(stand_ins.guess_reason(
                                statement, guessed[0] if guessed else None))
                        errors = [d for d in errors if d not in guessed]
                        note = stand_ins.value_free_note(statement)
                    own = {id(m.diagnostic) for m in everyone if on_lines(m, lines)}
                    agreeing = [d for d in errors if id(d) in own and recipe.agrees
                                and recipe.agrees.search(d.message)]
                    if agreeing:
                        match = most_specific(agreeing, finding)
                        return Verdict(CONFIRMED, self.toolchain.label("ptxas"), at,
                                       quote(match) + note, PTX)
                    heard.extend(errors)
                    notes = [m for m in ptx_errors(probe, outcome, True)
                             if m.diagnostic.line  # a lineless one is the module's
                             and key_of(m.statement) == key_of(statement)]
                    # an info finding is ptxas's own advice where ptxas gives it on the
                    # finding's lines ("Advisory: Modifier '.sp::ordered_metadata' should be
                    # used on instruction 'mma' instead of modifier '.sp'")
                    advised = [m.diagnostic for m in notes if m.diagnostic.severity == "info"
                               and on_lines(m, lines) and finding.severity is Severity.INFO
                               and recipe.agrees and recipe.agrees.search(m.diagnostic.message)]
                    if advised:
                        return Verdict(CONFIRMED, self.toolchain.label("ptxas"), at,
                                       quote(advised[0]) + note, PTX)
                    warned.extend(m.diagnostic for m in notes
                                  if m.diagnostic.severity == "warning")
        if CU in recipe.probes:
            job_key = self.plan.cu.get(key_of(statement))
            if job_key is None:
                reasons.append("no .cu probe: " + self._cu_reason(statement))
            else:
                tools.append(self.toolchain.label("nvcc"))
                mine, other = cu_errors(statement, self.outcomes[job_key])
                said = next((d for d in mine if recipe.agrees and recipe.agrees.search(
                    d.message)), None)
                if said is not None:
                    return Verdict(CONFIRMED, self.toolchain.label("nvcc"), arch, quote(said),
                                   CU)
                heard.extend(mine)
                reasons.extend(f"the probe itself failed: {m}" for m in other[:1])
        tool = " + ".join(dict.fromkeys(tools))
        method = "+".join(p for p in recipe.probes if p in (PTX, CU))
        if heard:
            return unverifiable(ANOTHER_REASON
                                + quote(heard[0]), archs[0], tool, method)
        if reasons or not tools:
            return unverifiable("; ".join(reasons) or "nothing could be compiled", arch, tool,
                                method)
        # the verdict's line names the tool and the first target: the evidence names the
        # other targets only ("unverifiable by ptxas 13.0 for sm_90: compiles cleanly")
        also = f" (also for {', '.join(archs[1:])})" if len(archs) > 1 else ""
        # what ptxas said while accepting it: "Vector Type not specified properly" for
        # ld.global.u64.v2 is a warning, and the compile is then not clean
        clean = f"compiles with a warning ({quote(warned[0])})" if warned else "compiles cleanly"
        if not recipe.refutable:
            return unverifiable(f"{clean}{also}: {recipe.why_clean}", archs[0], tool, method)
        if finding.severity is not Severity.ERROR:
            return unverifiable(f"{clean}{also}: the claim is about the documented contract or "
                                "another target", archs[0], tool, method)
        return Verdict(REFUTED, tool, archs[0], f"accepts the statement{also}"
                       + (" (placed twice)" if PTX in recipe.probes else "")
                       + (f", with a warning ({quote(warned[0])})" if warned else ""), method)

    def _triton_verdict(self, finding: Finding, recipe: Recipe) -> Verdict:
        statement = finding.statement
        assert statement is not None
        arch = llvm_probe.target(self, statement)
        planned = self.triton.get(id(finding), "not planned")
        if isinstance(planned, str):
            return unverifiable(planned, arch, "triton", TRITON)
        tool = self.plan.jobs[planned[0]][1]
        outcomes = [self.outcomes[key] for key in planned]
        if TRITON_PURITY in recipe.probes:
            pure, impure = outcomes
            if pure.returncode != 0 or impure.returncode != 0:
                failed = pure if pure.returncode != 0 else impure
                return unverifiable("Triton did not compile the probe: " + last_error(failed),
                                    arch, tool, TRITON_PURITY)
            needle = statement.source.text[finding.span.start:finding.span.end].strip()
            kept = triton_probe.count(pure.output(triton_probe.PTX_OUTPUT), needle)
            wanted = triton_probe.count(impure.output(triton_probe.PTX_OUTPUT), needle)
            if kept < wanted:
                return Verdict(CONFIRMED, tool, arch,
                               f"with its result unused, the PTX holds {kept} '{needle}' when "
                               f"the asm is pure and {wanted} when it is not: Triton deleted it",
                               TRITON_PURITY)
            return unverifiable(recipe.why_clean, arch, tool, TRITON_PURITY)
        outcome = outcomes[0]
        if TRITON_WIDTH in recipe.probes and outcome.returncode == 0:
            return width_verdict(finding, outcome.output(triton_probe.PTX_OUTPUT), tool,
                                 arch)
        method = TRITON_WIDTH if TRITON_WIDTH in recipe.probes else TRITON
        text = outcome.messages
        # the last matching line: the message, not a traceback's source line quoting the code
        lines = [ln for ln in text.splitlines() if recipe.agrees and recipe.agrees.search(ln)]
        match = recipe.agrees.search(text) if recipe.agrees else None
        if match is not None:
            line = lines[-1] if lines else match.group(0)
            died = " (the process aborted)" if outcome.returncode in (-6, 134) else ""
            return Verdict(CONFIRMED, tool, arch, f"{tool}: {line.strip()[:300]}{died}",
                           method)
        if outcome.returncode == 0:
            return Verdict(REFUTED, tool, arch, f"{tool} compiles the call for {arch}", TRITON)
        return unverifiable("Triton rejects the probe for another reason: "
                            + last_error(outcome), arch, tool, method)

    # ----------------------------------------------------------------- whole file
    def report(self, path: str, arch: str,
               defines: tuple[str, ...] = ()) -> whole_file.Report | str:
        """The whole-file compile of ``path`` for ``arch`` (with ``defines``), read; or why there
        is none."""
        key = (path, arch, defines)
        planned = self.plan.whole.get(key, "not planned")
        if isinstance(planned, str):
            return planned
        if key not in self._reports:
            self._reports[key] = whole_file.read(
                self.outcomes[planned[0]], path, self.statements.get(path, []))
        return self._reports[key]

    def _flagged(self, path: str) -> set[StatementKey]:
        """Statements of ``path`` with an error finding: errors on them are explained."""
        return {key_of(f.statement) for f in self.result.findings
                if f.path == path and f.statement is not None and f.severity is Severity.ERROR}

    def _whole_file_verdict(self, finding: Finding, recipe: Recipe, arch: str) -> Verdict:
        statement = finding.statement
        assert statement is not None
        tool = f"{self.toolchain.label('nvcc')} + {self.toolchain.label('ptxas')}"
        report = self.report(finding.path, arch, self.defines(statement))
        if isinstance(report, str):
            return unverifiable(f"no whole-file compile: {report}", arch, "", WHOLE_FILE)
        me, flagged = key_of(statement), self._flagged(finding.path)
        other = [e for e in report.errors
                 if not any(key_of(s) in flagged for s in e.statements)]
        if other or report.failure:
            said = (f"{other[0].where}: {quote(other[0].diagnostic)}" if other
                    else report.failure)
            return unverifiable(f"the file does not compile for another reason ({said}), so "
                                "nvcc's silence or words on this statement prove nothing; pass "
                                "its flags with -p BUILD_DIR or --cuda-flags", arch, tool,
                                WHOLE_FILE)
        mine = [e.diagnostic for e in report.errors if me in map(key_of, e.statements)]
        match = next((d for d in mine if recipe.agrees and recipe.agrees.search(d.message)),
                     None)
        if (match is not None and statement.context.branch and match.tool == "nvcc"
                and defines_for(statement) is None):
            # nvcc names a line, and every branch of the statement holds it: which branch the
            # flags compiled is not known
            return unverifiable("nvcc's error is on a line every #if branch of this statement "
                                "shares, and which branch the flags compile is not known: "
                                + quote(match), arch, tool, WHOLE_FILE)
        if match is not None:
            return Verdict(CONFIRMED, self.toolchain.label(match.tool), arch,
                           quote(match) + " (whole file)", WHOLE_FILE)
        if mine:
            return unverifiable(ANOTHER_REASON
                                + quote(mine[0]), arch, tool, WHOLE_FILE)
        if not report.compiled:
            lines = sorted({e.where for e in report.errors})
            return unverifiable("nvcc says nothing about this statement, but the file fails on "
                                f"other flagged statements ({', '.join(lines)}) and never "
                                "reached ptxas", arch, tool, WHOLE_FILE)
        if not report.matcher.present(statement):
            return unverifiable(f"the file compiles for {arch}, but this statement is not in its "
                                "PTX (an uninstantiated template, a branch not compiled for "
                                f"{arch}, or an unused function)", arch, tool, WHOLE_FILE)
        if not recipe.refutable:
            return unverifiable(f"the file compiles with {tool} for {arch}: "
                                + recipe.why_clean, arch, tool, WHOLE_FILE)
        if finding.severity is not Severity.ERROR:
            return unverifiable(f"the file compiles with {tool} for {arch}: the claim is about "
                                "the documented contract or another target", arch, tool,
                                WHOLE_FILE)
        return Verdict(REFUTED, tool, arch, f"{tool} compile the whole file for {arch}, this "
                       "statement included", WHOLE_FILE)

    def _cu_reason(self, statement: AsmStatement) -> str:
        if self.toolchain.nvcc is None:
            return "nvcc not found"
        if self.toolchain.host_compiler is None:
            return "no host compiler"
        try:
            cu_probe.build(statement)
        except cu_probe.NotProbeable as exc:
            return str(exc)
        return "not planned"

    def file_silence(self, finding: Finding, arch: str) -> str | None:
        """Why the whole-file differential cannot judge ``finding`` (the file does not compile
        on its own, or its PTX lacks the statement), or None when it can: then the function-level
        probe (verify.harness) is asked instead."""
        planned = self.differential.get(id(finding))
        if not isinstance(planned, tuple):
            return None
        defective, fixed = (self.outcomes[k] for k in planned)
        tool = self.toolchain.label("nvcc")
        if defective.returncode != 0:
            return (f"the file does not compile on its own "
                    f"({compile_failure(defective, finding.path)}); pass --cuda-flags with its "
                    "include paths and defines")
        if fixed.returncode != 0:
            return "the fixed variant does not compile"
        statement = finding.statement
        assert statement is not None
        if not any(self._matcher(key).present(statement) for key in planned):
            # deleted by -O3 as written: kept with the fix
            return (f"the statement is not in the PTX {tool} -O3 emits for {arch} (a branch these "
                    "flags leave out, an uninstantiated template or an unused function): it was "
                    "never compiled")
        return None

    def _differential_verdict(self, finding: Finding, arch: str) -> Verdict:
        tool = self.toolchain.label("nvcc")
        planned = self.differential.get(id(finding), "not planned")
        if isinstance(planned, str):
            if finding.fix is None and id(finding) in self.function_probes:
                return harness.verdict(self, finding, arch, harness.NO_FIX_OF_ITS_OWN)
            return unverifiable(planned, arch, tool, DIFFERENTIAL)
        silence = self.file_silence(finding, arch)
        if silence is not None:
            # a statement the file's compile leaves out is an unused inline function or an
            # uninstantiated template where -D flags selected its #if branch (the probe then
            # speaks for it, as it does in any file that uses it); where no -D could select the
            # branch, what it does alone is said but proves nothing about this configuration
            statement = finding.statement
            assert statement is not None
            decisive = ("never compiled" not in silence or defines_for(statement) is not None
                        or harness.branch_compiled(self, finding))
            return harness.verdict(self, finding, arch, silence, decisive=decisive)
        defective, fixed = (self.outcomes[k] for k in planned)
        statement = finding.statement
        assert statement is not None
        mnemonic = next((i.mnemonic for i in statement.ptx.instructions), "")
        if not mnemonic:
            return unverifiable("the statement has no instruction to follow", arch, tool,
                                DIFFERENTIAL)
        confirmed, evidence = differential.judge(defective.output(differential.OUTPUT),
                                                 fixed.output(differential.OUTPUT), mnemonic,
                                                 tool)
        return Verdict(CONFIRMED if confirmed else UNVERIFIABLE, tool, arch, evidence,
                       DIFFERENTIAL)

    def _matcher(self, key: str) -> whole_file.Matcher:
        if key not in self._matchers:
            self._matchers[key] = whole_file.Matcher(
                [], self.outcomes[key].output(differential.OUTPUT))
        return self._matchers[key]

# --------------------------------------------------------------------------- entry point


def verify(result: RunResult, options: VerifyOptions | None = None,
           toolchain: Toolchain | None = None) -> RunResult:
    """Fill ``result.verifications`` (id(finding) -> Verdict) and append a ``toolchain-error``
    finding for each statement the toolchain rejects without a ptxlint finding saying why.
    Raises ToolchainError when neither nvcc nor ptxas can be found."""
    options = options or VerifyOptions()
    toolchain = require(toolchain or discover(options.nvcc, options.ptxas, options.linted))
    verifier = Verifier(result, options, toolchain)
    verifier.prepare()
    try:
        verifier.execute()
        harness.plan(verifier)
        verifier.execute()
    finally:
        prune_cache()
    confirmed: set[StatementKey] = set()
    for finding in result.findings:
        try:
            verdict = verifier.verdict(finding)
        except NotRun:
            verdict = unverifiable(f"not verified: the --verify-timeout of {options.timeout:g} s "
                                   "passed before its compiles finished")
        result.verifications[id(finding)] = verdict
        if verdict.status == CONFIRMED and finding.statement is not None:
            confirmed.add(key_of(finding.statement))
    name_the_other_findings(result.findings, result.verifications,
                            lambda f: key_of(f.statement) if f.statement is not None else None)
    behind = past_first_error(verifier, confirmed)
    if options.report_unpredicted:
        result.findings.extend(behind)
        for finding, verdict in unpredicted(verifier, confirmed):
            result.findings.append(finding)
            result.verifications[id(finding)] = verdict
        paths = dict.fromkeys((*options.files, *result.sources))
        order = {path: n for n, path in enumerate(paths)}
        result.findings.sort(key=lambda f: (order.get(f.path, len(order)), f.span.start, f.rule))
    result.verify_probe_failures.extend(verifier.probe_failures)
    if verifier.not_run:
        result.file_notes.append(
            ("", f"--verify-timeout: {options.timeout:g} s passed with {verifier.not_run} of "
                 f"{len(verifier.plan.jobs)} compiles not done; the findings that needed them "
                 "are unverifiable"))
    return result
