"""ptxlint's speed, measured as a user meets it, against a bare tree-sitter parse of the same files.

    python benchmarks/bench.py [--cuda PATH] [--cutlass PATH] [--flashinfer PATH] [TREE ...]
                               [--only-given] [--cores N] [--repeat N] [--jobs N]
                               [--slowest N] [--table] [--skip-per-file] [--skip-cache]
                               [--skip-preview] [--skip-fix] [--skip-bounds]

``--cores N`` pins this process (and so every ptxlint it starts, whose default ``--jobs`` is
the cores it may use) to N cores with ``os.sched_setaffinity``: on a 16-core machine
``--cores 2`` measures what a 2-core CI runner would see. ``--only-given`` leaves out the
default trees (measure only ``--flashinfer`` or the TREEs given).

In one run, for each tree (default: the CUDA toolkit's include/ and CUTLASS's include/ as
shipped in flash-attn's source distribution under ``$PTXLINT_CORPORA``, default ``corpora/`` in
ptxlint's cache folder (``scripts/locations.py``), when present; ``--flashinfer`` adds that source
distribution, which ``pip download --no-binary :all: --no-deps flashinfer-python`` fetches, as
the .tar.gz or unpacked, checked against the issue's goal of 60 s and 1 GB on 2 cores):

- ``ptxlint check TREE`` as a subprocess (start-up included, every core, ``--no-cache``: cold)
  against a bare tree-sitter parse of the same files in this process (read, decode, parse; one
  core), and against the bare parse of only the files that hold an asm keyword;
- the same command with the result cache, cold (empty cache) and warm (second run), and with
  ``--preview`` (``--skip-preview`` leaves it out): what the rules in preview add;
- peak memory: the largest sum of the resident sets of ptxlint and its workers, sampled every
  20 ms from /proc, with the largest single process (what ``/usr/bin/time -f %M`` reports) and
  the CPU time of the main process apart from its workers;
- per file, in this process: lint time against the file's own bare parse, the slowest files
  with their statement counts, every file over 1.5x its own parse (``--table``: every file)
  and the largest ratio;
- scaling (``--skip-scaling`` leaves it out): ``check --no-cache`` over every tree at once with
  ``-j 1`` and with ``--jobs`` (default: every core), the wall times and their ratio, and the
  main process's CPU at ``--jobs`` (what it does alone: discovery, feeding the pool, the
  report), which caps the ratio;

and once: ``ptxlint check`` on one small file and ``ptxlint --version`` against
``python -c pass`` (best of ``--repeat``), with the floor under the first: importing only the
standard-library and third-party modules that check loads; and ``check --fix`` on one file of
1,000 and of 16,000 fixes, with the growth exponent (``--skip-fix`` leaves it out); and one
asm statement under 100,000 nested ``#if`` blocks, and 16 MiB less one byte of C++ on standard
input, each against a bare parse of the same bytes (``--skip-bounds`` leaves them out). Nothing
is asserted: the numbers are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ptxlint import collector, file_memos  # noqa: E402
from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.frontends import tree_reuse  # noqa: E402
from ptxlint.frontends.cxx.extract import has_asm  # noqa: E402
from ptxlint.frontends.syntax_tree import parse  # noqa: E402
from ptxlint.model import SourceFile  # noqa: E402
from ptxlint.registry import load_rules, preview_ids  # noqa: E402
from ptxlint.rule import Rule, RuleContext  # noqa: E402
from ptxlint.run.discover import discover, read_source  # noqa: E402
from ptxlint.run.prefilter import (  # noqa: E402
    has_keyword,
    needs_include_check,
    uses_included_asm_macro,
)
from scripts import locations  # noqa: E402

SMALL = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'  # noqa: E501
MAX_SIZE = 16 * 1024 * 1024


def cuda_include() -> str | None:
    """The CUDA toolkit's include folder ($CUDA_HOME, $CUDA_PATH, else nvcc's on PATH)."""
    found = locations.cuda_include()
    return str(found) if found is not None else None


def cutlass_include() -> str | None:
    """CUTLASS's include/ from flash-attn's sdist under $PTXLINT_CORPORA (scripts/locations.py)."""
    found = locations.cutlass_include()
    return str(found) if found is not None else None


def ptxlint_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ptxlint", *args]


def environment(cache_dir: str | None = None) -> dict[str, str]:
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed ptxlint has its bytecode
    env.pop("PTXLINT_NO_CACHE", None)
    if cache_dir is not None:
        env["PTXLINT_CACHE_DIR"] = cache_dir
    return env


def compile_bytecode() -> None:
    """pip writes bytecode on install; a checkout may not have it (PYTHONDONTWRITEBYTECODE)."""
    import compileall

    for folder in ("ptxlint", "rules"):
        compileall.compile_dir(os.path.join(ROOT, folder), quiet=1)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _process_tree(pid: int) -> dict[int, tuple[int, float]]:
    """``pid`` and its descendants: resident set in KiB and CPU seconds so far, each (Linux)."""
    found: dict[int, tuple[int, float]] = {}
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as handle:
                rss = next(
                    (int(line.split()[1]) for line in handle if line.startswith("VmRSS:")), 0
                )
            with open(f"/proc/{current}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            found[current] = (rss, (int(fields[11]) + int(fields[12])) / _TICK)  # utime, stime
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    stack.extend(int(c) for c in handle.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return found


@dataclass
class Run:
    seconds: float
    peak_mib: float  # the largest sum of the resident sets of ptxlint and its workers
    code: int
    cpu: float = 0.0  # user + system seconds of the command and its workers
    main_peak_mib: float = 0.0  # ptxlint's own process
    worker_peak_mib: float = 0.0  # the largest worker
    worker_cpu: float = 0.0  # of ``cpu``, the workers' (as last sampled)

    def memory(self) -> str:
        return (f"{self.peak_mib:.0f} MiB summed over all processes (largest process "
                f"{max(self.main_peak_mib, self.worker_peak_mib):.0f} MiB: main "
                f"{self.main_peak_mib:.0f}, largest worker {self.worker_peak_mib:.0f})")


def timed(command: list[str], env: dict[str, str], stdin: str | None = None) -> Run:
    """Wall time, CPU time and peak memory: the resident sets of the process tree (ptxlint and
    its workers) read from /proc every 20 ms, summed at each sample; the largest sum is the
    peak (``/usr/bin/time``'s maximum resident set is only the largest single process).
    ``stdin``: a file to feed the command's standard input from."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(stdin or os.devnull, "rb") as feed:
        process = subprocess.Popen(
            command, stdin=feed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
    peak = [0]
    per_process: dict[int, int] = {}
    cpu_of: dict[int, float] = {}

    def sample() -> None:
        while process.poll() is None:
            tree = _process_tree(process.pid)
            peak[0] = max(peak[0], sum(rss for rss, _ in tree.values()))
            for pid, (rss, cpu) in tree.items():
                per_process[pid] = max(per_process.get(pid, 0), rss)
                cpu_of[pid] = cpu
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = process.wait()
    seconds = time.perf_counter() - started
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    workers = [pid for pid in per_process if pid != process.pid]
    return Run(
        seconds, peak[0] / 1024, code, cpu,
        main_peak_mib=per_process.get(process.pid, 0) / 1024,
        worker_peak_mib=max((per_process[p] for p in workers), default=0) / 1024,
        worker_cpu=sum(cpu_of[p] for p in workers),
    )


def best(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """The least wall time and the least CPU time of ``repeat`` runs."""
    runs = [timed(command, env) for _ in range(repeat)]
    return min(r.seconds for r in runs), min(r.cpu for r in runs)


def bare_parse(files: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    nbytes = 0
    for path in files:
        text, _, _ = read_source(path, MAX_SIZE)
        if text is None:
            continue
        nbytes += len(text)
        parse(path, text)
    return time.perf_counter() - started, nbytes


def default_rules() -> list[Rule]:
    """The rules ``check`` runs where nothing is configured: every rule but those in preview.
    The per-file table ran the preview rules too (they read whole functions), so it charged a
    file for work its ``check`` row never does (the CUDA 13 headers' ``ld.h``: 4.13x its parse
    with them, 3.25x without; the table's total 6.30x -> 4.89x, on a busy machine)."""
    classes = load_rules().rules
    preview = preview_ids(classes)
    return instantiate([rule for rule in classes if rule.id not in preview])


def warm_up() -> None:
    """Load both grammars and the type index query once, so no file pays for them."""
    for name in ("warm.cu", "warm.cpp"):
        parse(name, "int x;")
    lint_source(SourceFile("warm.cu", SMALL), default_rules(), RuleContext())


def as_check_meets_them(rules: list[Rule], files: list[str]) -> None:
    """What ``check`` has done once per run before it lints a tree's asm files, done here so
    that the per-file table charges none of it to the file that happens to need it first:
    every rule's module loaded (a rule loads on its first statement with its features), and
    the prefilter's question asked of each file without an asm keyword (it sketches the
    headers their includes reach: a macro table walks the same include graph). Without it the
    CUDA 13 headers' first CUB file, cub/detail/strong_load.cuh (22 statements), showed
    0.21-0.30 s = 55-67x its parse, of which 0.2 s sketched the 1,368 headers its includes
    reach and most of the rest loaded rules; 0.02 s = 12x so (in ``check -j 1``: 0.04 s, the
    first file of many that loads a few rules and compiles their patterns)."""
    _ = [rule.check for rule in rules]  # a stand-in's first read imports its rule's module
    for path in files:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        if not has_keyword(path, data) and needs_include_check(path, data):
            uses_included_asm_macro(path, data)


_FileRow = tuple[float, float, int, str]


def per_file(files: list[str], tree: list[str]) -> tuple[list[_FileRow], float]:
    """(lint seconds, its bare parse seconds, statements, path) of each asm-bearing file of
    ``files``, each linted alone (a run parses a near-duplicate as an edit of the file before:
    cheaper), after what ``check`` does first over the ``tree``'s files (``as_check_meets_them``),
    whose seconds come second: the tree's in-process total counts them, as ``check`` pays them.

    Each file is linted as a worker of ``check`` lints it (``runner.lint_path``): the collector
    paused, then one young collection, its survivors set aside. Without that, this process's
    automatic collections traversed the memos left by every file before, and each landed on
    whichever small file allocated at the time (CUTLASS's ``barrier.h``: 0.30 s = 55x its
    parse here, 0.05 s in a worker)."""
    rules = default_rules()
    started = time.perf_counter()
    as_check_meets_them(rules, tree)
    once = time.perf_counter() - started
    context = RuleContext()
    collector.settle_after_each_file()  # this process only measures, then ends
    rows = []
    for path in files:
        text, decode_errors, _ = read_source(path, MAX_SIZE)
        if text is None or not has_asm(text):
            continue
        started = time.perf_counter()
        parse(path, text)
        parse_seconds = time.perf_counter() - started
        tree_reuse.forget()  # each file alone: not parsed as an edit of the one before
        started = time.perf_counter()
        with collector.paused(collect_young=True):
            # as ``runner.lint_path``: only the count outlives the pause (a worker keeps only
            # the outcome), and the file's memos are let go in it. A result or memo still
            # holding the file's syntax tree makes the pause collect on its way out
            # (``collector.watch``), which ``check`` does not pay: 4-5% of this total.
            statements = len(lint_source(SourceFile(path, text, decode_errors), rules, context,
                                         kept_headers=True).statements)
            file_memos.release()
        rows.append((time.perf_counter() - started, parse_seconds, statements, path))
    return rows, once


def report_tree(
    label: str, tree: str, args: argparse.Namespace, goals: tuple[float, float] | None = None
) -> None:
    """``goals``: (seconds, MiB) the cold CLI run should stay under."""
    files = [f.path for f in discover([tree], max_file_size=MAX_SIZE).files]
    asm_files = []
    for path in files:
        text, _, _ = read_source(path, MAX_SIZE)
        if text is not None and has_asm(text):
            asm_files.append(path)
    print(f"\n== {label}: {tree}")
    print(f"   {len(files)} files, {len(asm_files)} with an asm keyword")
    bare_all, nbytes = min(bare_parse(files) for _ in range(args.repeat))
    bare_asm, asm_bytes = min(bare_parse(asm_files) for _ in range(args.repeat))
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    check = ptxlint_command(
        "check", tree, "--no-compile-commands", "--fail-on", "never", "--quiet", *jobs
    )
    cold = min(
        (timed([*check, "--no-cache"], environment()) for _ in range(args.repeat)),
        key=lambda r: r.seconds,
    )
    print(f"   bare parse, every file      : {bare_all:8.2f} s  ({nbytes / 1e6:.1f} MB, 1 core)")
    print(f"   bare parse, asm files only  : {bare_asm:8.2f} s  ({asm_bytes / 1e6:.1f} MB)")
    print(
        f"   ptxlint check (cold, CLI)   : {cold.seconds:8.2f} s  = "
        f"{cold.seconds / bare_all:.2f}x the bare parse of every file, "
        f"{cold.seconds / bare_asm:.2f}x of the asm files"
    )
    print(
        f"   its CPU time (all processes): {cold.cpu:8.2f} s  (workers {cold.worker_cpu:.2f} s, "
        f"main process {cold.cpu - cold.worker_cpu:.2f} s; exit code {cold.code})"
    )
    print(f"   peak memory                 : {cold.memory()}")
    if not args.skip_preview:
        # the rules in preview (the async-protocol ones read whole functions): what
        # ``--preview`` adds to the same cold run
        preview = min(
            (timed([*check, "--no-cache", "--preview"], environment())
             for _ in range(args.repeat)),
            key=lambda r: r.seconds,
        )
        print(
            f"   the same with --preview     : {preview.seconds:8.2f} s  = "
            f"{preview.seconds / cold.seconds:.2f}x the default rules "
            f"(CPU {preview.cpu:.2f} s)"
        )
    if goals:
        seconds, mib = goals
        met = cold.seconds < seconds and cold.peak_mib < mib
        print(
            f"   goal: under {seconds:.0f} s and {mib:.0f} MiB summed, cold: "
            f"{'met' if met else 'NOT met'} ({cold.seconds:.0f} s, {cold.peak_mib:.0f} MiB)"
        )
    if not args.skip_cache:
        report_cache(check, args.repeat)
    if args.skip_per_file:
        return
    report_files(*per_file(asm_files, files), tree, args)


def report_cache(check: list[str], repeat: int) -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        env = environment(cache_dir)
        first = timed(check, env)
        warm = min((timed(check, env) for _ in range(repeat)), key=lambda r: r.seconds)
    print(
        f"   result cache: cold {first.seconds:.2f} s, warm {warm.seconds:.2f} s "
        f"= {100 * warm.seconds / first.seconds:.0f}% of cold"
    )


def report_files(
    rows: list[tuple[float, float, int, str]], once: float, tree: str, args: argparse.Namespace
) -> None:
    if not rows:
        return
    rows.sort(reverse=True)
    total, parsed = sum(r[0] for r in rows) + once, sum(r[1] for r in rows)
    print(
        f"   in-process, asm files: lint {total:.2f} s (of which once per run: {once:.2f} s, "
        f"rules loaded and the prefilter's include question), their bare parse {parsed:.2f} s "
        f"= {total / parsed:.2f}x (1 core)"
    )

    def line(row: tuple[float, float, int, str]) -> str:
        seconds, parse_seconds, statements, path = row
        ratio = seconds / parse_seconds if parse_seconds else float("inf")
        return (
            f"     {seconds:7.2f} s  {ratio:6.2f}x  {statements:5d} statements  "
            f"{os.path.relpath(path, tree)}"
        )

    print(f"   slowest {args.slowest} files (in-process lint vs the file's own bare parse):")
    for row in rows[: args.slowest]:
        print(line(row))
    over = [r for r in rows if r[1] and r[0] / r[1] > 1.5]
    print(f"   files over 1.5x their own bare parse: {len(over)} of {len(rows)}")
    for row in rows if args.table else over[: max(args.slowest, 20)]:
        print(line(row))
    if not args.table and len(over) > max(args.slowest, 20):
        print(f"     ... and {len(over) - max(args.slowest, 20)} more (--table lists every file)")
    big = [r for r in rows if r[1] >= 0.05]  # ratios of tiny files are start-up noise
    if big:
        worst = max(big, key=lambda r: r[0] / r[1])
        print(
            f"   largest ratio (files parsing >= 50 ms): {worst[0] / worst[1]:.2f}x "
            f"{os.path.relpath(worst[3], tree)}"
        )


# Run in a child: lint ``small.cu`` in process, then print the modules that run loaded beyond a
# bare interpreter's, except ptxlint's own, in the order they were loaded.
_LOADED_BY_CHECK = """
import sys
before = set(sys.modules)
from ptxlint.cli import main
main(["check", sys.argv[1], "--no-cache", "--quiet"])
own = ("ptxlint", "ptxlint_rules")
loaded = [m for m in sys.modules if m not in before and m.split(".")[0] not in own]
print()
print(" ".join(loaded))
"""


def dependency_floor(small: str, env: dict[str, str], repeat: int) -> tuple[float, float]:
    """What importing only the standard-library and third-party modules that ``check small.cu``
    loads costs: no in-process design of the command can start faster than this."""
    listed = (
        subprocess.run(
            [sys.executable, "-c", _LOADED_BY_CHECK, small],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.splitlines()[-1]
        .split()
    )
    if "importlib.metadata" in listed:  # a layout ptxlint.entry_point_files leaves to it
        raise RuntimeError("the rule plugins were read through importlib.metadata: "
                           "the floor would read high")
    imports = f"import importlib\nfor name in {listed!r}:\n    importlib.import_module(name)\n"
    check = subprocess.run([sys.executable, "-c", imports], env=env, capture_output=True)
    if check.returncode != 0:  # a floor that skipped a module would read too low
        raise RuntimeError(f"importing check's dependencies failed: {check.stderr.decode()}")
    return best([sys.executable, "-c", imports], env, repeat)


def report_startup(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        small = os.path.join(folder, "small.cu")
        with open(small, "w", encoding="utf-8") as handle:
            handle.write(SMALL)
        env = environment(os.path.join(folder, "cache"))
        # the first run with an empty cache folder
        first = timed(ptxlint_command("check", small, "--no-cache"), env)
        python = best([sys.executable, "-c", "pass"], env, repeat)
        bare = best([sys.executable, "-S", "-c", "pass"], env, repeat)
        version = best(ptxlint_command("--version"), env, repeat)
        check = best(ptxlint_command("check", small, "--no-cache"), env, repeat)
        cached = best(ptxlint_command("check", small), env, repeat)
        floor = dependency_floor(small, env, repeat)
    print("\n== start-up (best of", repeat, "runs; wall time, and CPU time for a busy machine)")

    def row(label: str, run: tuple[float, float]) -> str:
        wall, cpu = run
        return (
            f"   {label:<28}: {wall * 1000:7.0f} ms = {wall / python[0]:4.1f}x   "
            f"CPU {cpu * 1000:5.0f} ms = {cpu / max(python[1], 1e-3):4.1f}x"
        )

    print(row("python -c pass", python))
    # What of it is site's: an editable install's import hook is part of it, a pip-installed
    # ptxlint's interpreter starts without that, so the ratios below are larger there.
    print(row("python -S -c pass (no site)", bare))
    print(row("ptxlint --version", version))
    print(row("ptxlint check small.cu", check))
    print(row("the same, first run ever", (first.seconds, first.cpu)))
    print(row("the same, cached result", cached))
    # The goal's 5x read against this: the modules ptxlint needs from the standard library and
    # tree-sitter, imported with none of ptxlint's own code, so what no in-process trimming of
    # ptxlint can get under.
    print(row("its dependencies' imports", floor))


# One fix per statement (a generic pointer where 'ld.shared' wants a shared address: PTX301
# wraps it in __cvta_generic_to_shared), in one function.
def fixes_file(n: int) -> str:
    declarations = "".join(f"  unsigned v{i};\n" for i in range(n))
    body = "".join(
        f'  asm("ld.shared.u32 %0, [%1];" : "=r"(v{i}) : "l"(p + {i}));\n' for i in range(n)
    )
    return f"__device__ void f(unsigned* p) {{\n{declarations}{body}}}\n"


FIX_SIZES = (1_000, 16_000)


def _growth(small: float, large: float) -> float:
    """The exponent k of t = c * n^k between the two sizes: 1 linear, 2 quadratic."""
    import math

    return math.log(large / small) / math.log(FIX_SIZES[1] / FIX_SIZES[0])


def _fix_engine_seconds(text: str, repeat: int) -> tuple[int, float]:
    """The fixes ``--fix`` would apply to ``text`` and the CPU seconds of applying them
    (``apply_edits``, best of ``repeat``), the lint untimed."""
    from ptxlint.fix import apply_edits, select_fixes

    rules = instantiate(load_rules().rules)
    findings = lint_source(SourceFile("fixes.cu", text), rules, RuleContext()).findings
    fixes = select_fixes(findings, unsafe=False)
    seconds = []
    for _ in range(repeat):
        with collector.paused():
            started = time.process_time()
            apply_edits(text, fixes)
            seconds.append(time.process_time() - started)
    return len(fixes), min(seconds)


def report_fix(repeat: int) -> None:
    """``ptxlint check --fix`` on one file of 1,000 and of 16,000 fixes, the plain check of the
    same files beside it (what the lints cost), and the fix engine alone; each with its growth
    exponent between the two sizes. CPU time: on a busy machine the wall time says little."""
    rows: dict[str, list[float]] = {"check": [], "check --fix": [], "apply_edits": []}
    counts = []
    with tempfile.TemporaryDirectory() as folder:
        env = environment(os.path.join(folder, "cache"))
        for n in FIX_SIZES:
            text = fixes_file(n)
            path = os.path.join(folder, f"fixes{n}.cu")
            runs: dict[str, list[float]] = {"check": [], "check --fix": []}
            for _ in range(repeat):
                for label, extra in (("check", ()), ("check --fix", ("--fix",))):
                    with open(path, "w", encoding="utf-8") as handle:
                        handle.write(text)  # --fix rewrote it
                    command = ptxlint_command(
                        "check", path, "--no-cache", "--quiet", "--fail-on", "never", *extra
                    )
                    runs[label].append(timed(command, env).cpu)
            for label, values in runs.items():
                rows[label].append(min(values))
            count, engine = _fix_engine_seconds(text, repeat)
            counts.append(count)
            rows["apply_edits"].append(engine)
    print(f"\n== --fix on one file (best of {repeat}; CPU seconds; fixes offered: "
          f"{counts[0]:,} and {counts[1]:,})")
    for label, (small, large) in rows.items():
        print(
            f"   {label:<28}: {small:8.3f} s at {FIX_SIZES[0]:,}, {large:8.3f} s at "
            f"{FIX_SIZES[1]:,}  growth {_growth(small, large):.2f} (1 = linear)"
        )


DEEP_IF = 100_000


def deep_if_file(depth: int) -> str:
    """One asm statement inside ``depth`` nested ``#if`` blocks (100,000: 1.3 MB)."""
    return (
        "__global__ void k(int *p) {\n"
        + "#if A\n" * depth
        + 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(*p));\n'
        + "#endif\n" * depth
        + "}\n"
    )


def stdin_text(cuda: str | None) -> bytes:
    """16 MiB less one byte of C++ (max-file-size, the most standard input may hold): the
    CUDA toolkit's headers one after another, from the start again until full (the repository's
    own fixtures without a toolkit)."""
    if cuda:
        files = [f.path for f in discover([cuda]).files]
    else:
        files = [str(p) for p in sorted(Path(ROOT, "fixtures").rglob("*.cu"))]
    size = MAX_SIZE - 1
    chunks: list[bytes] = []
    total = 0
    while total < size:
        for path in files:
            with open(path, "rb") as handle:
                chunk = handle.read() + b"\n"
            chunks.append(chunk)
            total += len(chunk)
            if total >= size:
                break
    return b"".join(chunks)[:size]


def _bare_parse_cpu(path: str, data: bytes, repeat: int) -> float:
    """CPU seconds of a bare tree-sitter parse of ``data`` (decoded as a file is), best of
    ``repeat``, in this process."""
    text = data.decode("utf-8", "replace")
    seconds = []
    for _ in range(repeat):
        started = time.process_time()
        parse(path, text)
        seconds.append(time.process_time() - started)
    return min(seconds)


def report_bounds(repeat: int, cuda: str | None) -> None:
    """Inputs whose cost once grew faster than their size, against a bare parse of the same
    bytes (CPU seconds, best of ``repeat``; the check's start-up included): one asm statement
    under 100,000 nested ``#if`` blocks (was killed at 24 GB), and 16 MiB less one byte of C++
    on standard input (``check -``, the most max-file-size lets in). The issue's goal: within
    10x the bare parse, under 1 GB."""
    print(f"\n== bounded inputs (best of {repeat}; CPU seconds against a bare parse of the same "
          "bytes in this process)")
    with tempfile.TemporaryDirectory() as folder:
        env = environment(os.path.join(folder, "cache"))
        deep = os.path.join(folder, "deep.cu")
        with open(deep, "w", encoding="utf-8") as handle:
            handle.write(deep_if_file(DEEP_IF))
        fed = os.path.join(folder, "stdin.cu")
        with open(fed, "wb") as handle:
            handle.write(stdin_text(cuda))
        cases = (
            (f"check: #if nested {DEEP_IF:,} deep", deep, [deep], None),
            ("check -: 16 MiB less one byte", fed, ["-", "--stdin-filename", "stdin.cu"], fed),
        )
        for label, path, arguments, stdin in cases:
            with open(path, "rb") as handle:
                data = handle.read()
            bare = _bare_parse_cpu(path, data, repeat)
            command = ptxlint_command("check", *arguments, "--no-cache", "--quiet",
                                      "--fail-on", "never")
            runs = [timed(command, env, stdin) for _ in range(repeat)]
            cpu = min(r.cpu for r in runs)
            peak = max(r.peak_mib for r in runs)
            codes = sorted({r.code for r in runs})
            print(f"   {label:<34}: {cpu:7.2f} s, bare parse {bare:6.2f} s = "
                  f"{cpu / bare:5.1f}x (goal 10x); peak {peak:.0f} MiB (goal 954); "
                  f"{len(data) / 2**20:.1f} MiB, exit {'/'.join(map(str, codes))}")


def report_scaling(trees: list[str], args: argparse.Namespace) -> None:
    """``-j 1`` against ``--jobs`` (default: every core) over ``trees`` together, cold, in
    alternated rounds (``scaling_rounds``)."""
    jobs = args.jobs or len(os.sched_getaffinity(0))
    base = ptxlint_command("check", *trees, "--no-compile-commands", "--fail-on", "never",
                           "--quiet", "--no-cache")
    ones, manys = scaling_rounds(
        lambda: timed([*base, "--jobs", "1"], environment()),
        lambda: timed([*base, "--jobs", str(jobs)], environment()),
        args.repeat,
    )
    one = min(ones, key=lambda r: r.seconds)
    many = min(manys, key=lambda r: r.seconds)
    print(f"\n== scaling, {len(trees)} trees together (cold, --no-cache)")
    print(f"   -j 1                        : {one.seconds:8.2f} s  (CPU {one.cpu:.2f} s)")
    print(
        f"   -j {jobs:<2}                       : {many.seconds:8.2f} s  = "
        f"{one.seconds / many.seconds:.2f}x faster (CPU {many.cpu:.2f} s, main process "
        f"{many.cpu - many.worker_cpu:.2f} s)"
    )
    print(f"   {round_ratios(ones, manys)}")


def scaling_rounds(one: Callable[[], Run], many: Callable[[], Run],
                   repeat: int) -> tuple[list[Run], list[Run]]:
    """``repeat`` rounds of ``one()`` then ``many()``. Alternated, not ``repeat`` of one then
    ``repeat`` of the other: the 16-core device host's speed drifts between runs (``-j 1`` over
    the CUDA headers and CUTLASS took 8.4 s to 13.2 s within one lease), so the best of each side
    may come from different speeds, where a round compares two runs made one after the other."""
    ones: list[Run] = []
    manys: list[Run] = []
    for _ in range(repeat):
        ones.append(one())
        manys.append(many())
    return ones, manys


def round_ratios(ones: Sequence[Run], manys: Sequence[Run]) -> str:
    """Each round's ``-j 1`` time over its parallel time: the median and the range."""
    ratios = sorted(o.seconds / m.seconds for o, m in zip(ones, manys, strict=True))
    return (f"per round ({len(ratios)}, each -j 1 then the parallel run): median "
            f"{statistics.median(ratios):.2f}x, {ratios[0]:.2f}x-{ratios[-1]:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", help="more trees to measure")
    parser.add_argument("--cuda", help="the CUDA include folder (default: found from nvcc)")
    parser.add_argument("--cutlass", help="CUTLASS's include/ (default: flash-attn's copy)")
    parser.add_argument("--flashinfer", help="flashinfer-python's unpacked source distribution")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="ptxlint --jobs (default: every core)")
    parser.add_argument("--slowest", type=int, default=5)
    parser.add_argument("--skip-per-file", action="store_true", help="no per-file table")
    parser.add_argument("--skip-cache", action="store_true", help="no result-cache runs")
    parser.add_argument("--skip-preview", action="store_true", help="no --preview row")
    parser.add_argument("--table", action="store_true", help="list every asm file's ratio")
    parser.add_argument("--skip-fix", action="store_true", help="no --fix row")
    parser.add_argument("--skip-bounds", action="store_true",
                        help="no deep #if / 16 MiB standard input rows")
    parser.add_argument("--cores", type=int, help="pin the benchmark to this many cores")
    parser.add_argument("--skip-scaling", action="store_true", help="no -j 1 against --jobs row")
    parser.add_argument(
        "--only-given", action="store_true", help="leave out the default CUDA and CUTLASS trees"
    )
    args = parser.parse_args()
    if args.cores:
        allowed = sorted(os.sched_getaffinity(0))
        if args.cores > len(allowed):
            parser.error(f"--cores {args.cores}: only {len(allowed)} cores are available")
        os.sched_setaffinity(0, allowed[: args.cores])
    # a mistyped path would be measured as an empty tree: a row of 0 MB and a ratio of nothing
    given = [t for t in (args.cuda, args.cutlass, *args.trees) if t]
    missing = [t for t in given if not os.path.isdir(t)]
    if missing:
        parser.error(f"not a folder: {', '.join(missing)}")
    if args.flashinfer and not os.path.exists(args.flashinfer):
        parser.error(f"--flashinfer {args.flashinfer}: no such file or folder")
    compile_bytecode()
    warm_up()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"ptxlint benchmark: {cores} cores, Python {sys.version.split()[0]}")
    trees: list[tuple[str, str, tuple[float, float] | None]] = []
    cuda = args.cuda or (None if args.only_given else cuda_include())
    if cuda:
        trees.append(("CUDA include tree", cuda, None))
    cutlass = args.cutlass or (None if args.only_given else cutlass_include())
    if cutlass:
        trees.append(("CUTLASS include/", cutlass, None))
    trees.extend(("tree", t, None) for t in args.trees)
    with tempfile.TemporaryDirectory() as unpacked:
        if args.flashinfer:
            tree = unpack(args.flashinfer, unpacked)
            trees.append(("flashinfer-python sdist", tree, FLASHINFER_GOALS))
        report_startup(max(args.repeat, 5))
        if not args.skip_fix:
            report_fix(args.repeat)
        if not args.skip_bounds:
            report_bounds(args.repeat, cuda or cuda_include())
        for label, tree, goals in trees:
            report_tree(label, tree, args, goals)
        if trees and not args.skip_scaling:
            report_scaling([tree for _, tree, _ in trees], args)
    return 0


# The goal for the flashinfer source distribution on 2 cores, cold: under 60 s and
# under 1 GB (10^9 bytes) of resident memory, ptxlint and its workers together.
FLASHINFER_GOALS = (60.0, 1e9 / 2**20)


def unpack(path: str, into: str) -> str:
    """``path`` itself when it is a folder; a source distribution (.tar.gz) unpacked into
    ``into``, the folder it holds."""
    if os.path.isdir(path):
        return path
    import tarfile

    with tarfile.open(path) as archive:
        archive.extractall(into, filter="data")
    entries = os.listdir(into)
    return os.path.join(into, entries[0]) if len(entries) == 1 else into


if __name__ == "__main__":
    sys.exit(main())
