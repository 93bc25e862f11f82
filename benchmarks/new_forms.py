"""Does ``ptxlint new`` write correct code for every form of the instruction grammar?

For each form of ``ptxlint/ptx/grammar_data*.py``, its plainest spelling (each required slot's
first word, ``ptxlint.generate.spelling``) goes through ``ptxlint new OPCODE --kernel``. Each
wrapper that comes out is

* compiled with nvcc (``-gencode arch=compute_X,code=sm_X``, so ptxas assembles it) for the
  lowest target its guard admits that nvcc builds, and for sm_90a and sm_100a where the guard
  admits them; the PTX nvcc writes must hold the instruction (a statement the guard leaves out
  for this toolkit, a ``toolkit=13.1`` form under nvcc 13.0, is counted apart, not as a pass;
  so is a form only for targets this nvcc does not know, sm_107a under nvcc 13.0);
* linted with ``ptxlint check`` (every finding, info included, counts against it).

A statement the guard leaves out for this nvcc (a form of a newer toolkit) is assembled alone by
that toolkit's ptxas where ``benchmarks/toolkits.py`` has fetched it.

Forms the generator cannot express are counted with the reason it gives. Wrappers compile in
batches, one .cu per target; a batch that fails is split until each failure is one form's.
Verdicts are cached by content hash (nvcc version, target, the form's source) under
``ptxlint-tests/new-forms`` in the tests' cache folder, like ``ptxas_agreement.py``'s:

    python benchmarks/new_forms.py                 # every form
    python benchmarks/new_forms.py --family cp,mma # some families
    python benchmarks/new_forms.py --sample 40     # a deterministic sample (what the tests run)
    python benchmarks/new_forms.py --dialect triton  # the Triton calls, linted only
    python benchmarks/new_forms.py --spellings 4   # more spellings of each form (each word)

Printed: per family, forms (spellings, with --spellings) / generated / compile OK / guarded out /
check clean / not expressible, then every failure and every reason a form was not expressible.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ptxlint.generate import NotExpressible, SelectionError, derive, select, spelling  # noqa: E402
from ptxlint.generate.cxx import kernel, wrapper  # noqa: E402
from ptxlint.generate.guard import admitted  # noqa: E402
from ptxlint.ptx import grammar  # noqa: E402
from ptxlint.ptx.grammar import Form  # noqa: E402
from ptxlint.ptx.targets import Target  # noqa: E402

NVCC = shutil.which("nvcc")
OLDEST_SM = 75  # CUDA 13's nvcc builds nothing older
ALSO = (Target(90, "a"), Target(100, "a"))  # compiled too wherever the guard admits them
BATCH = 80  # forms per nvcc run (a failing batch is split)
PRELUDE = "#include <cstdint>\n"


@dataclass
class Case:
    """One form of the grammar and what became of it."""

    form: Form
    opcode: str  # the spelling given to `ptxlint new`
    name: str = ""  # the wrapper's function name (unique in a batch)
    code: str = ""  # wrapper and kernel, "" when not expressible
    reason: str = ""  # why not expressible
    targets: tuple[Target, ...] = ()
    compiled: dict[str, str] = field(default_factory=dict)  # target -> "" ok | "guarded" | error
    unbuilt: list[Target] = field(default_factory=list)  # targets this nvcc does not know
    # a statement guarded out for this nvcc, assembled alone by the ptxas of the toolkit its
    # guard names: "13.2" -> "" accepted | error | "no such ptxas here"
    newer: dict[str, str] = field(default_factory=dict)
    template: str = ""  # the derived template (operands as %N)
    constraints: tuple[str, ...] = ()
    examples: tuple[int, ...] = ()  # the immediates' values, in order
    need_ptx: int = 0
    findings: list[str] = field(default_factory=list)

    @property
    def family(self) -> str:
        return self.form.opcode


def sample(forms: Sequence[Form], count: int) -> list[Form]:
    """``count`` forms spread over the table (every n-th), so each family's share is kept and
    the same forms come back on every run."""
    if count <= 0 or count >= len(forms):
        return list(forms)
    step = len(forms) / count
    return [forms[int(i * step)] for i in range(count)]


def compile_targets(targets: tuple[Target, ...]) -> tuple[Target, ...]:
    """The lowest admitted target nvcc builds, and sm_90a/sm_100a when admitted."""
    built = [t for t in targets if t.sm >= OLDEST_SM]
    if not built:
        return ()
    chosen = [built[0], *(t for t in ALSO if t in built and t != built[0])]
    return tuple(chosen)


def _name(prefix: str, form: Form, opcode: str) -> str:
    """A wrapper name fixed by the form and the spelling alone, so a sample and the full run
    compile the same text and share cached verdicts."""
    key = f"{form.spec}\0{opcode}".encode()
    return f"{prefix}_{hashlib.sha256(key).hexdigest()[:10]}"


def spellings(form: Form, count: int) -> list[str]:
    """The plainest spelling first, then up to ``count - 1`` more that take each slot's words
    in turn (an optional slot's too), so every word of a form gets spelled once with enough."""
    out = [spelling(form)]
    for i in range(1, count):
        words = []
        for slot in form.slots:
            k = i if not slot.optional else i - 1
            words.append(slot.values[k % len(slot.values)].word)
        text = ".".join((form.opcode, *words))
        if text not in out:
            out.append(text)
    return out


def build(forms: Sequence[Form], count: int = 1) -> list[Case]:
    cases = []
    for form, opcode in ((f, o) for f in forms for o in spellings(f, count)):
        case = Case(form, opcode, name=_name("w", form, opcode))
        try:
            derived = derive(select(case.opcode))
        except (SelectionError, NotExpressible) as error:
            case.reason = str(error)
            cases.append(case)
            continue
        case.code = wrapper(derived, case.name) + kernel(derived, case.name)
        case.template, case.constraints = derived.template, derived.constraints
        case.examples = tuple(p.example for p in derived.params if p.kind == "imm")
        case.need_ptx = derived.selected.need.ptx
        case.targets = compile_targets(admitted(derived.selected.need))
        if not case.targets:
            case.reason = "no target nvcc 13.0 builds has the form (needs " \
                          f"{derived.selected.need.target}, removed from sm_" \
                          f"{derived.selected.need.removed or '?'})"
            case.code = ""
        cases.append(case)
    return cases


# ----------------------------------------------------------------------------- nvcc


def cache_path() -> str:
    root = os.environ.get("PTXLINT_TEST_CACHE") or os.path.expanduser("~/.cache/ptxlint-tests")
    return os.path.join(root, "new-forms", "verdicts.json")


class Compiler:
    """nvcc verdicts per (target, source): "" compiled with the instruction in its PTX,
    "guarded" compiled without it, else the first error line; cached."""

    def __init__(self, nvcc: str) -> None:
        self.nvcc = nvcc
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        self.version = hashlib.sha256(version.encode()).hexdigest()[:16]
        self.path = cache_path()
        self.cache: dict[str, str] = {}
        if os.path.exists(self.path):
            with open(self.path) as f:
                self.cache = json.load(f)
        self.runs = 0
        # the sm_ numbers this nvcc builds for (None: it cannot say, so every one is tried)
        listed = subprocess.run([nvcc, "--list-gpu-code"], capture_output=True, text=True)
        codes = {int(m) for m in re.findall(r"sm_(\d+)", listed.stdout)}
        self.codes: frozenset[int] | None = frozenset(codes) if codes else None

    def builds(self, target: Target) -> bool:
        return self.codes is None or target.sm in self.codes

    def key(self, target: Target, case: Case) -> str:
        text = f"v1\0{self.version}\0{target}\0{case.opcode}\0{case.code}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def save(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        if os.path.exists(self.path):  # keep what another run saved since this one loaded
            try:
                with open(self.path) as f:
                    self.cache = {**json.load(f), **self.cache}
            except (OSError, ValueError):
                pass
        tmp = f"{self.path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(self.cache, f)
        os.replace(tmp, self.path)

    def judge(self, target: Target, cases: list[Case]) -> None:
        todo = []
        for case in cases:
            cached = self.cache.get(self.key(target, case))
            if cached is None:
                todo.append(case)
            else:
                case.compiled[str(target)] = cached
        for start in range(0, len(todo), BATCH):
            self._batch(target, todo[start:start + BATCH])

    def _batch(self, target: Target, cases: list[Case]) -> None:
        ok, ptx, error = self._run(target, cases)
        if not ok and len(cases) > 1:
            half = len(cases) // 2
            self._batch(target, cases[:half])
            self._batch(target, cases[half:])
            return
        for case in cases:
            verdict = error if not ok else "" if _holds(ptx, case) else "guarded"
            case.compiled[str(target)] = verdict
            self.cache[self.key(target, case)] = verdict

    def _run(self, target: Target, cases: list[Case]) -> tuple[bool, str, str]:
        arch = f"{target.sm}{target.suffix}"
        source = PRELUDE + "\n".join(c.code for c in cases)
        with tempfile.TemporaryDirectory(prefix="ptxlint-new-") as folder:
            path = os.path.join(folder, "forms.cu")
            with open(path, "w") as f:
                f.write(source)
            done = subprocess.run(
                [self.nvcc, f"-gencode=arch=compute_{arch},code=sm_{arch}", "-c", path,
                 "-o", os.path.join(folder, "forms.o"), "-keep", f"-keep-dir={folder}"],
                capture_output=True, text=True, cwd=folder)
            ptx = ""
            for name in os.listdir(folder):
                if name.endswith(".ptx"):
                    with open(os.path.join(folder, name)) as f:
                        ptx += f.read()
        self.runs += 1
        errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
        message = (errors[0] if errors else done.stderr.strip()[:300]) or f"rc {done.returncode}"
        return done.returncode == 0, ptx, re.sub(r"/tmp/[^ ]*?/", "", message)


def _holds(ptx: str, case: Case) -> bool:
    """Whether nvcc's PTX holds the case's instruction inside its wrapper's kernel."""
    body = re.search(rf"\.entry\s+\w*{case.name}_kernel\w*\(.*?\n\}}", ptx, re.S)
    return body is not None and case.opcode in body.group()


# ----------------------------------------------------------------------------- newer toolkits

_REGISTERS = {"h": "%h", "r": "%r", "l": "%rd", "f": "%f", "d": "%fd", "q": "%q"}


def standalone_ptx(case: Case, target: Target) -> str:
    """The case's statement as a kernel of its own in PTX, each ``%N`` a register of the class
    nvcc declares for its letter (an immediate its example value)."""
    examples = iter(case.examples)
    names: dict[int, str] = {}
    for i, constraint in enumerate(case.constraints):
        letter = constraint.lstrip("=+&")
        names[i] = str(next(examples)) if letter == "n" else f"{_REGISTERS[letter]}{i}"
    body = re.sub(r"%(\d+)", lambda m: names[int(m.group(1))], case.template)
    return (f".version {case.need_ptx // 10}.{case.need_ptx % 10}\n.target {target}\n"
            ".address_size 64\n.entry k() {\n"
            ".reg .b16 %h<200>; .reg .b32 %r<200>; .reg .b64 %rd<200>; .reg .f32 %f<200>;\n"
            ".reg .f64 %fd<200>; .reg .b128 %q<200>;\n"
            f"{body}\nret;\n}}\n")


def assemble_newer(cases: list[Case]) -> None:
    """A statement this nvcc's guard leaves out (a form of a newer toolkit) is assembled alone
    by that toolkit's ptxas where ``benchmarks/toolkits.py`` has fetched it."""
    from ptxlint.ptx.versions import cuda_for_ptx

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import toolkits

    found = toolkits.found()
    for case in cases:
        guarded = [t for t in case.targets if case.compiled.get(str(t)) == "guarded"] \
            or case.unbuilt
        cuda = cuda_for_ptx(case.need_ptx)
        if not guarded or cuda is None:
            continue
        version = f"{cuda[0]}.{cuda[1]}"
        ptxas = found.get(version)
        if ptxas is None:
            case.newer[version] = "no such ptxas here"
            continue
        with tempfile.TemporaryDirectory(prefix="ptxlint-new-") as folder:
            path = os.path.join(folder, "form.ptx")
            with open(path, "w") as f:
                f.write(standalone_ptx(case, guarded[0]))
            done = subprocess.run([ptxas, f"-arch={guarded[0]}", path, "-o", os.devnull],
                                  capture_output=True, text=True)
        case.newer[version] = "" if done.returncode == 0 else done.stderr.strip()[:200]


# ----------------------------------------------------------------------------- ptxlint check


def check(cases: list[Case], prelude: str = PRELUDE, suffix: str = ".cu") -> None:
    """``ptxlint check`` over every generated wrapper (one file, one run), findings mapped back
    to the wrapper whose lines they fall in."""
    generated = [c for c in cases if c.code]
    if not generated:
        return
    lines: list[tuple[int, Case]] = []
    text = prelude
    for case in generated:
        lines.append((text.count("\n") + 1, case))
        text += case.code + "\n"
    with tempfile.TemporaryDirectory(prefix="ptxlint-new-") as folder:
        path = os.path.join(folder, "forms" + suffix)
        with open(path, "w") as f:
            f.write(text)
        done = subprocess.run(
            [sys.executable, "-m", "ptxlint", "check", "--isolated", "--no-cache",
             "--output-format", "json", path], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"ptxlint check failed: {done.stderr[-2000:]}")
    for finding in json.loads(done.stdout)["findings"]:
        index = bisect.bisect_right([start for start, _ in lines], finding["line"]) - 1
        owner = lines[max(index, 0)][1]
        owner.findings.append(f"{finding['rule']} {finding['message']}")


# ----------------------------------------------------------------------------- the report


def run(forms: Sequence[Form], compiler: Compiler | None, count: int = 1) -> list[Case]:
    cases = build(forms, count)
    if compiler is not None:
        by_target: dict[Target, list[Case]] = defaultdict(list)
        for case in cases:
            for target in case.targets:
                if compiler.builds(target):
                    by_target[target].append(case)
                else:
                    case.unbuilt.append(target)
        for target, group in sorted(by_target.items(), key=lambda kv: str(kv[0])):
            compiler.judge(target, group)
        compiler.save()
        assemble_newer(cases)
    check(cases)
    return cases


def summarize(cases: Sequence[Case], out: object = sys.stdout) -> dict[str, dict[str, int]]:
    def line(text: str = "") -> None:
        print(text, file=out)  # type: ignore[call-overload]

    table: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        row = table[case.family]
        row["forms"] += 1
        if not case.code:
            row["not expressible"] += 1
            continue
        row["generated"] += 1
        verdicts = list(case.compiled.values())
        if verdicts and all(v == "" for v in verdicts):
            row["compile ok"] += 1
        elif not verdicts and case.unbuilt or verdicts and all(
                v in ("", "guarded") for v in verdicts):
            row["guarded out"] += 1
            if case.newer and all(v == "" for v in case.newer.values()):
                row["newer ptxas ok"] += 1
        elif verdicts:
            row["compile failed"] += 1
        if not case.findings:
            row["check clean"] += 1
    columns = ("forms", "generated", "compile ok", "guarded out", "newer ptxas ok",
               "compile failed", "check clean", "not expressible")
    line(f"{'family':22}" + "".join(f"{c:>17}" for c in columns))
    total: Counter[str] = Counter()
    for family in sorted(table):
        total.update(table[family])
        line(f"{family:22}" + "".join(f"{table[family][c]:>17}" for c in columns))
    line(f"{'all':22}" + "".join(f"{total[c]:>17}" for c in columns))
    line("\ncompile failures:")
    for case in cases:
        for target, verdict in case.compiled.items():
            if verdict not in ("", "guarded"):
                line(f"  [{target}] {case.opcode}: {verdict}")
    line("\nguarded out (compiled, instruction not in the PTX):")
    for case in cases:
        guarded = [t for t, v in case.compiled.items() if v == "guarded"] or [
            f"{t} (unknown to this nvcc)" for t in case.unbuilt]
        if guarded:
            newer = "; ".join(f"ptxas {k}: {v or 'accepted'}" for k, v in case.newer.items())
            line(f"  {case.opcode}: {', '.join(guarded)}" + (f" ({newer})" if newer else ""))
    line("\nptxlint check findings:")
    for case in cases:
        for finding in case.findings:
            line(f"  {case.opcode}: {finding}")
    line("\nnot expressible:")
    reasons = Counter(re.sub(r"'[^']*'", "'…'", c.reason) for c in cases if not c.code)
    for reason, n in reasons.most_common():
        line(f"  {n:5}  {reason}")
    return {family: dict(row) for family, row in table.items()}


def triton_run(forms: Sequence[Form]) -> list[Case]:
    """The Triton dialect: each form's ``inline_asm_elementwise`` call, linted by ``ptxlint
    check`` (one .py, one run). Nothing compiles it here (that needs Triton and a GPU)."""
    from ptxlint.generate import generate

    cases = []
    for form in forms:
        case = Case(form, spelling(form), name=_name("t", form, spelling(form)))
        try:
            text = generate(case.opcode, dialect="triton", name=case.name)
        except (SelectionError, NotExpressible) as error:
            case.reason = str(error)
        else:
            case.code = "\n".join(line for line in text.splitlines()
                                  if not line.startswith("import ")) + "\n"
        cases.append(case)
    check(cases, prelude="import triton\nimport triton.language as tl\n", suffix=".py")
    return cases


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--family", help="comma-separated opcodes (default: all)")
    parser.add_argument("--sample", type=int, default=0, help="this many forms, spread evenly")
    parser.add_argument("--spellings", type=int, default=1,
                        help="spellings per form: the plainest, then each slot's words in turn")
    parser.add_argument("--json", help="write the per-family counts here")
    parser.add_argument("--dialect", choices=("cuda", "triton"), default="cuda",
                        help="triton: the inline_asm_elementwise calls, linted only")
    args = parser.parse_args(argv)
    forms = list(grammar.forms())
    if args.family:
        wanted = set(args.family.split(","))
        forms = [f for f in forms if f.opcode in wanted]
    forms = sample(forms, args.sample)
    if args.dialect == "triton":
        cases = triton_run(forms)
        counts = summarize(cases)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(counts, f, indent=1)
        return 1 if any(c.findings for c in cases) else 0
    if NVCC is None:
        print("nvcc not found on PATH: generation and ptxlint check only", file=sys.stderr)
    compiler = Compiler(NVCC) if NVCC else None
    cases = run(forms, compiler, args.spellings)
    counts = summarize(cases)
    if compiler is not None:
        print(f"\nnvcc runs: {compiler.runs}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(counts, f, indent=1)
    failed = any(v not in ("", "guarded") for c in cases for v in c.compiled.values())
    return 1 if failed or any(c.findings for c in cases) else 0


if __name__ == "__main__":
    sys.exit(main())
