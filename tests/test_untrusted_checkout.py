"""Linting an untrusted checkout never imports or runs anything from it.

The checkout built here holds a module named like every runtime dependency of ptxlint (read from
the installed metadata, extras and their own dependencies included), a ``triton.py``, a package
shadowing ``multiprocessing``, a ``*.dist-info`` declaring a ``ptxlint.rules`` plugin, and fake
``nvcc``/``ptxas``/``nvidia-smi``/``g++`` in ``nvidia/*/bin``, ``bin/`` and its root. Each writes a
marker file when imported or run. Every way the documentation and the GitHub Action start
ptxlint is run from inside it, with hostile relative ``PATH`` entries and ``CUDA_HOME=.``: no
marker may appear.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from ptxlint.program_search import Distrusted, which

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="the checkout's fake tools are POSIX shell scripts")
# the toolchain, and what a search through a relative PATH entry would find instead of the real
# one: compilers, git, shells and Python itself
TOOLS = ("nvcc", "ptxas", "nvidia-smi", "cicc", "g++", "gcc", "c++", "cc", "clang++", "cl",
         "git", "python", "python3", "sh", "bash")
TOOL_FOLDERS = ("nvidia/cu13/bin", "nvidia/cu12/bin", "nvidia/cuda_nvcc/bin", "bin", ".")
# Standard-library modules ptxlint imports after start-up, lazily or in child processes.
STDLIB_LATE = ("argparse", "json", "tomllib", "tempfile", "concurrent", "multiprocessing",
               "subprocess", "shlex", "difflib", "xml", "sqlite3", "asyncio", "logging")

KERNEL = """\
__global__ void k(unsigned *out, double d) {
  unsigned t;
  asm("mov.u32 %0, %%clock;" : "=r"(t));
  out[0] = t;
  asm volatile("mov.b32 %0, %0;" : "+r"(d));
}
"""


# --------------------------------------------------------------------------- the checkout


def _top_level_names(dist: metadata.Distribution) -> set[str]:
    names: set[str] = set()
    top = dist.read_text("top_level.txt")
    if top:
        names.update(line.strip() for line in top.splitlines() if line.strip())
    for file in dist.files or ():
        first = file.parts[0]
        if first in ("..", "__pycache__") or first.endswith((".dist-info", ".egg-info", ".data")):
            continue
        name = first.split(".")[0] if "." in first else first
        if len(file.parts) == 1 and not first.endswith((".py", ".so", ".pyd")):
            continue  # a stray file at the top of site-packages, not a module
        names.add(name)
    return {n for n in names if n.isidentifier() and not n.startswith("__")}


def runtime_module_names() -> set[str]:
    """Every top-level module ptxlint's installed runtime dependencies provide: its requirements
    under every extra but `dev`, and theirs, recursively."""
    root = metadata.distribution("ptxlint")
    extras = [e for e in root.metadata.get_all("Provides-Extra") or [] if e != "dev"]
    pending = [(root, ["", *extras])]
    seen: set[str] = set()
    names: set[str] = set()
    while pending:
        dist, wanted = pending.pop()
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is not None and not any(
                req.marker.evaluate({"extra": extra}) for extra in wanted
            ):
                continue
            key = re.sub(r"[-_.]+", "-", req.name).lower()
            if key in seen or key == "ptxlint":
                continue
            seen.add(key)
            try:
                found = metadata.distribution(req.name)
            except metadata.PackageNotFoundError:
                names.add(re.sub(r"[-.]", "_", req.name).lower())  # not installed: its usual name
                continue
            names |= _top_level_names(found)
            pending.append((found, ["", *req.extras]))
    return names


def _write_tool(path: Path, markers: Path, label: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f"echo ran > '{markers}/exec-{label}'\n"
        "echo 'Cuda compilation tools, release 13.0, V13.0.88'\n"
        "echo \"Allowed values: 'sm_90'\"\n"
        "echo 9.0\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _write_plugin(checkout: Path, markers: Path) -> None:
    """``evil.so``, a shared library that leaves a marker when loaded (where a C compiler
    outside the checkout can build it)."""
    cc = which("cc", Distrusted.here([str(checkout)]))
    if cc is None:
        return
    source = checkout / "evil.c"
    source.write_text(
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void loaded(void) {\n"
        f"  FILE *f = fopen(\"{markers}/load-evil.so\", \"w\"); if (f) fclose(f);\n"
        "}\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(checkout / "evil.so"), str(source)],
                   capture_output=True, timeout=120, check=False)


def build_checkout(root: Path) -> tuple[Path, Path, list[str]]:
    """The hostile checkout under ``root``: (its folder, the marker folder, the module names)."""
    checkout = root / "checkout"
    markers = root / "markers"
    checkout.mkdir()
    markers.mkdir()
    modules = sorted(runtime_module_names() | {"triton", *STDLIB_LATE})
    for name in modules:
        body = (f"open({str(markers / ('import-' + name))!r}, 'w').write('imported')\n"
                f"__version__ = '6.6.6-from-the-checkout'\n")
        if name in ("multiprocessing", "concurrent", "xml"):  # packages in the standard library
            (checkout / name).mkdir()
            (checkout / name / "__init__.py").write_text(body)
        else:
            (checkout / f"{name}.py").write_text(body)
    # a rule plugin the checkout declares for itself
    info = checkout / "evil_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ptxlint.rules]\nevil = evil_rules_plugin:RULES\n")
    (checkout / "evil_rules_plugin.py").write_text(
        f"open({str(markers / 'import-evil_rules_plugin')!r}, 'w').write('imported')\nRULES = []\n")
    for folder in TOOL_FOLDERS:
        for tool in TOOLS:
            _write_tool(checkout / folder / tool, markers, f"{folder.replace('/', '_')}_{tool}")
    (checkout / "kernel.cu").write_text(KERNEL)
    _write_plugin(checkout, markers)
    # a compile database naming the checkout's compiler and a compiler plugin to load
    (checkout / "compile_commands.json").write_text(json.dumps([{
        "directory": str(checkout), "file": "kernel.cu",
        "arguments": ["./bin/nvcc", "-ccbin", "./bin/g++", "-Xclang", "-load", "-Xclang",
                      "./evil.so", "-fplugin=./evil.so", "--load-pass-plugin=./evil.so",
                      "-Xcompiler", "-fplugin=./evil.so", "-I.", "-c", "kernel.cu"],
    }]))
    shutil.copy(ROOT / "fixtures" / "example-triton" / "triton_kernels.py", checkout)
    return checkout, markers, modules


# --------------------------------------------------------------------------- running from it


def _clean_path(dropping: tuple[str, ...]) -> list[str]:
    """This machine's PATH entries, absolute, without those holding any of ``dropping``."""
    return [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and os.path.isabs(p) and not any(os.path.exists(os.path.join(p, t))
                                                  for t in dropping)]


def _env(with_cuda: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "CUDA_")) and k != "PTXLINT_TRITON_PYTHON"}
    kept = _clean_path(()) if with_cuda else _clean_path(("nvcc", "ptxas"))
    # hostile relative entries: each names a folder of the checkout once inside it
    env["PATH"] = os.pathsep.join(["", ".", "bin", "nvidia/cu13/bin", *kept, ""])
    env["CUDA_HOME"] = "."
    env["CUDA_PATH"] = "nvidia/cu13"
    env["NO_COLOR"] = "1"
    return env


def _console_script() -> str | None:
    folder = sysconfig.get_path("scripts")
    for candidate in (os.path.join(folder, "ptxlint"), os.path.join(folder, "ptxlint.exe")):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _trusted_nvcc() -> str | None:
    return which("nvcc", Distrusted.here())


def _left(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


def _run(args: list[str], cwd: Path, env: dict[str, str],
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def hostile(tmp_path):
    checkout, markers, modules = build_checkout(tmp_path)
    return checkout, markers, modules


def test_the_checkout_would_run_if_anything_trusted_it(hostile):
    """The markers work: a plain `python -c` there imports its modules, and its tools run."""
    checkout, markers, modules = hostile
    env = _env(with_cuda=False)
    assert {"tree_sitter", "platformdirs", "pathspec", "triton"} <= set(modules)
    for name in ("tree_sitter", "triton", "multiprocessing"):
        subprocess.run([sys.executable, "-c", f"import {name}"], cwd=checkout, env=env,
                       capture_output=True, timeout=60)
    subprocess.run(["./nvidia/cu13/bin/nvcc", "--version"], cwd=checkout, capture_output=True,
                   timeout=60)
    if (checkout / "evil.so").exists():
        import ctypes

        ctypes.CDLL(str(checkout / "evil.so"))
        assert "load-evil.so" in _left(markers)
    assert {"import-tree_sitter", "import-triton", "import-multiprocessing",
            "exec-nvidia_cu13_bin_nvcc"} <= set(_left(markers))


def _invocations() -> list[pytest.param]:
    python = [sys.executable]
    script = _console_script()
    found = [
        pytest.param([*python, "-m", "ptxlint", "check", "."], id="python-m"),
        pytest.param([*python, "-m", "ptxlint", "check", "--jobs", "2", "--no-cache", "."],
                     id="python-m-jobs"),
        pytest.param([*python, "-I", "-m", "ptxlint", "check", "."], id="python-I-m"),
        pytest.param([*python, "-m", "ptxlint", "check", "--output-format", "sarif", "."],
                     id="python-m-sarif"),
        pytest.param([*python, "-m", "ptxlint", "stats", "."], id="python-m-stats"),
        pytest.param([*python, "-m", "ptxlint", "check", "--diff", "."], id="python-m-diff"),
        pytest.param([*python, "-m", "ptxlint", "check", "--fix", "--compile-commands", ".",
                      "."], id="python-m-fix-tier2"),
        pytest.param([*python, "-m", "ptxlint", "rule", "PTX101"], id="python-m-rule"),
    ]
    if script is not None:
        found.append(pytest.param([script, "check", "."], id="console-script"))
    return found


@pytest.mark.parametrize("command", _invocations())
def test_lint_imports_nothing_from_the_checkout(hostile, command):
    checkout, markers, _ = hostile
    done = _run(command, checkout, _env(with_cuda=False))
    assert done.returncode in (0, 1), done.stderr
    assert _left(markers) == []


@pytest.mark.parametrize("with_cuda", [False, True], ids=["no-cuda-on-path", "cuda-on-path"])
@pytest.mark.parametrize("how", ["python-m", "console-script"])
def test_verify_and_doctor_run_no_tool_of_the_checkout(hostile, with_cuda, how):
    if with_cuda and _trusted_nvcc() is None:
        pytest.skip("nvcc is not installed outside the checkout: the with-CUDA case needs it")
    if how == "console-script":
        script = _console_script()
        if script is None:
            pytest.skip("ptxlint's console script is not installed in this environment")
        start = [script]
    else:
        start = [sys.executable, "-m", "ptxlint"]
    checkout, markers, _ = hostile
    env = _env(with_cuda)
    doctor = _run([*start, "doctor"], checkout, env)
    verify = _run([*start, "check", "--verify", "--verify-timeout", "240", "-p", ".", "."],
                  checkout, env)
    assert _left(markers) == []
    assert "6.6.6-from-the-checkout" not in verify.stdout + verify.stderr
    assert str(checkout) not in doctor.stdout.split("problem:")[0]
    if with_cuda:
        assert doctor.returncode == 0, doctor.stdout
        assert verify.returncode == 1, verify.stderr
        assert "Verification:" in verify.stdout
    elif doctor.returncode == 2:  # no wheel either: the clear message, exit 2
        assert "no CUDA toolchain found" in verify.stderr
        assert verify.returncode == 2


def _action_commands() -> list[pytest.param]:
    data = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    steps = [s for s in data["runs"]["steps"] if "ptxlint check" in s.get("run", "")]
    assert steps, "action.yml runs ptxlint check in no step"
    return [pytest.param(s, id=s.get("id") or s["name"]) for s in steps]


BASH = shutil.which("bash")


@pytest.mark.skipif(BASH is None, reason="the Action's steps are bash scripts")
@pytest.mark.parametrize("step", _action_commands())
def test_the_actions_own_command_line_imports_nothing_from_the_checkout(hostile, tmp_path,
                                                                        step):
    checkout, markers, _ = hostile
    env = {
        **_env(with_cuda=False),
        # what the Action's inputs and its install step give these steps (action.yml defaults)
        "PTXLINT_PATHS": ".",
        "PTXLINT_ARGS": "",
        "PTXLINT_SARIF": "ptxlint.sarif",
        "PTXLINT_FAIL_ON": "warning",
        "PTXLINT_CATEGORY": "ptxlint",
        "PTXLINT_PYTHON": sys.executable,
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
    }
    for name in step.get("env", {}):
        assert name in env, f"the test does not know what the Action puts in {name}"
    assert BASH is not None
    done = subprocess.run([BASH, "-e", "-c", step["run"]], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert _left(markers) == []
    if step.get("id") == "check":
        outputs = dict(line.split("=", 1) for line in (tmp_path / "github_output").read_text()
                       .split())
        assert outputs == {"exit-code": "1", "sarif-written": "true"}


# --------------------------------------------------------------------------- the language server


@pytest.mark.parametrize("command", [
    pytest.param(["-m", "ptxlint.lsp", "--help"], id="python-m-ptxlint.lsp"),
    pytest.param(["-m", "ptxlint", "lsp", "--help"], id="python-m-ptxlint-lsp"),
])
def test_starting_the_language_server_imports_nothing_from_the_checkout(hostile, command):
    checkout, markers, _ = hostile
    done = _run([sys.executable, *command], checkout, _env(with_cuda=False))
    assert done.returncode == 0, done.stderr
    assert _left(markers) == []


@pytest.mark.skipif(sys.version_info < (3, 11),
                    reason="PYTHONSAFEPATH needs 3.11; on 3.10 the README says to start it with -I")
def test_language_server_workers_import_nothing_from_the_checkout(hostile):
    """An editor starts the server in the workspace: its lint workers are spawned interpreters
    (`python -c ...` in that folder), which import `multiprocessing` before anything else."""
    pytest.importorskip("pygls")
    from test_bad_inputs import RawClient

    checkout, markers, _ = hostile
    client = RawClient(checkout)
    try:
        client.initialize(checkout)
        kernel = checkout / "kernel.cu"
        client.open(kernel, kernel.read_text())
        assert client.diagnostics(kernel, timeout=120)  # linted, by a worker
        client.request(2, "shutdown")
        client.send({"method": "exit"})
        assert client.finish() == 0
    finally:
        if client.process.poll() is None:
            client.process.kill()
    assert _left(markers) == []
