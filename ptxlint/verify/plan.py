"""The compiles a ``--verify`` run will make, each planned once: a PTX probe per statement (or
split-scope group) and target, a .cu probe per statement, a whole-file compile per file, target
and #if configuration; and the outcomes of those that ran."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ptxlint.model import AsmStatement
from ptxlint.value_class import value_class
from ptxlint.verify import cu_probe, ptx_probe
from ptxlint.verify.identity import StatementKey, key_of, ptxas_target, tool_id
from ptxlint.verify.recipes import CU, WHOLE_FILE, Recipe
from ptxlint.verify.runner import Compile, NotRun, Outcome
from ptxlint.verify.stand_ins import value_sets
from ptxlint.verify.toolchain import Toolchain

WholeKey = tuple[str, str, tuple[str, ...]]  # (path, arch, -D/-U flags)


class Outcomes(dict[str, Outcome]):
    """The outcomes of the compiles that ran; looking one up that did not raises NotRun."""

    def __missing__(self, key: str) -> Outcome:
        raise NotRun(key)


@value_class(slots=False)
class Variant:
    """One PTX probe of a statement (or split-scope group): the "n" values it was built with, per
    statement of the group, and whether they are the file's own (else stand-ins)."""

    probe: ptx_probe.PtxProbe
    values: tuple[Mapping[int, int], ...]
    exact: bool

    def label(self, statement: AsmStatement) -> str:
        """" with N=16" for the values this variant gave ``statement``'s operands."""
        for which, member in enumerate(self.probe.statements):
            if key_of(member) == key_of(statement) and which < len(self.values):
                names = {o.index: o.expression for o in member.operands}
                given = self.values[which]
                if given:
                    return " with " + ", ".join(f"{names.get(i, i)}={v}"
                                                for i, v in sorted(given.items()))
        return ""


@dataclass
class Plan:
    """The compiles a verification will run, each once, and which probe each statement and file
    gets."""

    jobs: dict[str, tuple[Compile, str]] = field(default_factory=dict)  # key -> (job, tool id)
    ptx: dict[tuple[StatementKey, str], tuple[Variant, ...] | str] = field(default_factory=dict)
    cu: dict[StatementKey, str | None] = field(default_factory=dict)  # None: not probeable
    # (path, arch, defines) -> job key, or why the file cannot be compiled
    whole: dict[WholeKey, tuple[str, str] | str] = field(default_factory=dict)

    def add(self, key: str, job: Compile, tool: str) -> str:
        self.jobs.setdefault(key, (job, tool))
        return key


def plan_ptx(plan: Plan, group: Sequence[AsmStatement], arch: str,
              toolchain: Toolchain) -> None:
    target = ptxas_target(arch, toolchain)
    for statement in group:
        if (key_of(statement), arch) in plan.ptx:
            return
    variants: list[Variant] = []
    try:
        if toolchain.ptxas is None:
            raise ptx_probe.NotProbeable("ptxas not found")
        if target is None:
            raise ptx_probe.NotProbeable(f"{toolchain.label('ptxas')} does not know {arch}")
        sets = [value_sets(s) for s in group]
        exact = all(e for _, e in sets)
        for n in range(max(len(v) for v, _ in sets)):
            values = tuple(v[min(n, len(v) - 1)] for v, _ in sets)
            probe = ptx_probe.build(group, arch, toolchain.ptx_isa, values=values)
            variants.append(Variant(probe, values, exact))
    except ptx_probe.NotProbeable as exc:
        for statement in group:
            plan.ptx[(key_of(statement), arch)] = str(exc)
        return
    for variant in variants:
        job = Compile((toolchain.ptxas.path, f"-arch={target}", "-o", "{dir}/probe.cubin",
                       f"{{dir}}/{ptx_probe.PROBE_FILE}"),
                      ((ptx_probe.PROBE_FILE, variant.probe.text),), produces=("probe.cubin",))
        plan.add(f"ptx:{variant.probe.text}:{target}", job, tool_id(toolchain, "ptxas"))
    for statement in group:
        plan.ptx[(key_of(statement), arch)] = tuple(variants)


def ptx_job_key(probe: ptx_probe.PtxProbe, arch: str, toolchain: Toolchain) -> str:
    return f"ptx:{probe.text}:{ptxas_target(arch, toolchain)}"


def plan_cu(plan: Plan, statement: AsmStatement, arch: str, toolchain: Toolchain) -> None:
    key = key_of(statement)
    if key in plan.cu:
        return
    if toolchain.nvcc is None or toolchain.host_compiler is None:
        plan.cu[key] = None
        return
    try:
        text = cu_probe.build(statement)
    except cu_probe.NotProbeable:
        plan.cu[key] = None
        return
    job = Compile((toolchain.nvcc.path, f"-arch={virtual_arch(arch)}", "-ptx", "-o",
                   "{dir}/probe.ptx", f"{{dir}}/{cu_probe.PROBE_FILE}"),
                  ((cu_probe.PROBE_FILE, text),), produces=("probe.ptx",))
    plan.cu[key] = plan.add(f"cu:{text}:{arch}", job, tool_id(toolchain, "nvcc"))


def virtual_arch(arch: str) -> str:
    return arch.replace("sm_", "compute_")


def wants_whole_file(recipe: Recipe, cu_job: str | None) -> bool:
    """WHOLE_FILE first: always; after CU: only where the .cu probe could not be built."""
    if WHOLE_FILE not in recipe.probes:
        return False
    return recipe.probes[0] == WHOLE_FILE or (CU in recipe.probes and cu_job is None)
