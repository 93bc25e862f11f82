#!/usr/bin/env python3
"""Prove ptxlint's findings on PTX in Python where Triton is installed (and, for the run-time
claims, on a GPU).

    python benchmarks/prove_python_ptx.py OUTDIR [--deps build/proofdeps]

1. ``ptxlint check --verify`` over the Python rule fixtures and the Triton example, with
   Triton's own ptxas and ``PTXLINT_TRITON_PYTHON`` set to this interpreter: every finding gets
   the verdict of ptxas (the PTX) or of Triton compiling the call (what LLVM decides). Writes
   OUTDIR/verify.json and prints one line per finding.
2. Every Triton call of the clean Python fixtures is compiled by Triton (they must compile).
3. With a GPU, the two run-time claims no compile can show, each in a child process (LLVM may
   abort the interpreter): PTX505 (a pure ``atom.global.add`` whose result is unused: the
   counters stay 0, impure: 1) and PTX506 (an impure ``red.global.add`` on 32 elements with
   ``num_warps=4``: how many times each cell is incremented). Writes OUTDIR/runtime.json.

``--deps`` names a folder with ``common/`` and ``py3.N/`` site folders (``pip install --target``)
for machines where ptxlint is not installed: ``common`` holds ptxlint (this checkout, for its
rules' entry point) and its pure-Python dependencies, ``py3.N`` tree-sitter built for 3.N.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUNTIME_PURE = r"""
import json, sys, torch, triton, triton.language as tl

@triton.jit
def count(C, PURE: tl.constexpr):
    offs = tl.arange(0, 128)
    tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [C + offs],
                              dtype=tl.uint32, is_pure=PURE, pack=1)

out = {}
for pure in (True, False):
    c = torch.zeros(128, dtype=torch.int32, device="cuda")
    count[(1,)](c, PURE=pure)
    torch.cuda.synchronize()
    out["pure" if pure else "impure"] = sorted(set(c.tolist()))
print(json.dumps(out))
"""

RUNTIME_REPLICATED = r"""
import json, torch, triton, triton.language as tl

@triton.jit
def bump(P, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.inline_asm_elementwise("red.global.add.u32 [$1], 1;", "=r,l", [P + offs],
                              dtype=tl.int32, is_pure=False, pack=1)

out = {}
for n in (32, 128):
    p = torch.zeros(n, dtype=torch.int32, device="cuda")
    bump[(1,)](p, N=n, num_warps=4)
    torch.cuda.synchronize()
    out[f"elements={n}, num_warps=4"] = sorted(set(p.tolist()))
print(json.dumps(out))
"""


def _environment(deps: str | None) -> dict[str, str]:
    env = dict(os.environ)
    paths = [ROOT]
    if deps:
        # DEPS/common holds ptxlint itself (`pip install --target DEPS/common --no-deps .`), for
        # the rules' entry point, and its pure-Python dependencies; DEPS/py3.N tree-sitter
        version = f"py{sys.version_info.major}.{sys.version_info.minor}"
        paths = [os.path.join(deps, version), os.path.join(deps, "common")]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PTXLINT_TRITON_PYTHON"] = sys.executable
    return env


def _triton_ptxas() -> str | None:
    try:
        import triton  # noqa: PLC0415 - only where Triton is installed
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
    return path if os.path.exists(path) else None


def verify(out: str, env: dict[str, str]) -> dict[str, object]:
    files = sorted(glob.glob(os.path.join(ROOT, "fixtures", "rules", "PTX*_bad.py")))
    files += sorted(glob.glob(os.path.join(ROOT, "fixtures", "example-triton", "*.py")))
    report = os.path.join(out, "verify.json")
    command = [
        sys.executable,
        "-m",
        "ptxlint",
        "check",
        *files,
        "--verify",
        "--arch",
        "sm_90a",
        "--format",
        "json",
        "--output",
        report,
        "--fail-on",
        "never",
    ]
    ptxas = _triton_ptxas()
    if ptxas:
        command += ["--ptxas", ptxas]
    env = dict(env, PTXLINT_CACHE_DIR=os.path.join(out, "cache"))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1) or not os.path.exists(report):
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        return {"error": f"ptxlint exited {done.returncode}"}
    with open(report, encoding="utf-8") as handle:
        data = json.load(handle)
    tally: dict[str, int] = {}
    for finding in data["findings"]:
        verdict = finding.get("verification") or {}
        status = verdict.get("status", "-")
        tally[status] = tally.get(status, 0) + 1
        where = f"{os.path.relpath(finding['path'], ROOT)}:{finding['line']}"
        print(f"{where}: {finding['rule']} {status}: {verdict.get('evidence', '')[:160]}")
    print(f"verify: {tally} in {seconds:.0f}s")
    return {"tally": tally, "seconds": round(seconds, 1)}


CLEAN_PROBES = r"""
import glob, json, os, subprocess, sys, tempfile
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import ptx_probe, triton_probe

root = sys.argv[1]
report = {}
for path in sorted(glob.glob(os.path.join(root, "fixtures", "rules", "PTX*_clean.py"))):
    text = open(path, encoding="utf-8").read()
    for statement in extract_statements(SourceFile(path, text)).statements:
        where = f"{os.path.relpath(path, root)}:{statement.line}"
        try:
            program = triton_probe.script(statement)
        except ptx_probe.NotProbeable as exc:
            report[where] = f"not probed: {exc}"
            continue
        with tempfile.TemporaryDirectory() as scratch:
            script = os.path.join(scratch, "probe.py")
            open(script, "w", encoding="utf-8").write(program)
            done = subprocess.run([sys.executable, script, os.path.join(scratch, "p.ptx")],
                                  capture_output=True, text=True, timeout=300)
        lines = [ln for ln in (done.stderr + done.stdout).splitlines() if ln.strip()]
        ok = done.returncode == 0
        report[where] = "compiles" if ok else f"rc {done.returncode}: {lines[-1:]}"
print(json.dumps(report))
"""


def clean(out: str, env: dict[str, str]) -> dict[str, object]:
    """Every Triton call of the clean Python fixtures, compiled by Triton: no false errors."""
    path = os.path.join(out, "clean_probes.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(CLEAN_PROBES)
    done = subprocess.run(
        [sys.executable, path, ROOT],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=400,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"returncode": done.returncode, "stderr": done.stderr[-1500:]}
    report: dict[str, object] = json.loads(lines[-1])
    for where, outcome in report.items():
        print(f"clean {where}: {outcome}")
    return report


def runtime(out: str, env: dict[str, str]) -> dict[str, object]:
    results: dict[str, object] = {}
    for name, program in (("PTX505", RUNTIME_PURE), ("PTX506", RUNTIME_REPLICATED)):
        path = os.path.join(out, f"runtime_{name}.py")  # @triton.jit reads its source file
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(program)
        done = subprocess.run(
            [sys.executable, path],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=300,
        )
        lines = done.stdout.strip().splitlines()
        if done.returncode == 0 and lines:
            results[name] = json.loads(lines[-1])
        else:
            results[name] = {"returncode": done.returncode, "stderr": done.stderr[-1500:]}
        print(f"{name} at run time: {results[name]}")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--deps", help="pip --target folders: DEPS/common and DEPS/py3.N")
    parser.add_argument("--no-runtime", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    env = _environment(os.path.abspath(args.deps) if args.deps else None)
    summary: dict[str, object] = {"python": sys.version.split()[0]}
    try:
        import triton  # noqa: PLC0415

        summary["triton"] = triton.__version__
    except ImportError:
        summary["triton"] = None
    summary["verify"] = verify(args.out, env)
    if summary["triton"]:
        summary["clean"] = clean(args.out, env)
    if not args.no_runtime:
        summary["runtime"] = runtime(args.out, env)
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
