"""The CUDA toolchain for tests that use it as an oracle: where nvcc and ptxas are, one compile
of one snippet with its result cached by content hash, and a parallel map over many snippets.

The cache lives in ``toolchain/`` under ``oracle_cache_root()``: ``$PTXLINT_TEST_CACHE``, else
``tests/`` in ptxlint's one cache location (``$PTXLINT_CACHE_DIR`` or the user cache folder,
``~/.cache/ptxlint/tests`` on Linux; conftest.py pins it before pointing ptxlint's own caches at a
temporary folder). A key covers the tool's ``--version`` text, the command (with the input and
output file names as placeholders, so temporary folders do not defeat it), the input's file name
and its text: a new toolkit or a changed flag recompiles, a rerun costs nothing. A probe that
includes headers of its own names them (``inputs``: the folders it passes with ``-I``, or single
files): the key then covers their contents too, so an edited or updated header is compiled again
instead of answered from a verdict on its old text. Files the probe needs beside it (``files``,
e.g. an empty stand-in for a library header) are written next to the input and keyed likewise. The raw result
(exit status, stdout, stderr, the output file when asked for) is stored, and each test module
reads its own verdict from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import cache
from typing import TypeVar

import pytest

# Placeholders in a command for the snippet's file and the output file (in a temporary folder).
INPUT = "{input}"
OUTPUT = "{output}"


def find_tool(name: str) -> str | None:
    """``name`` on PATH, else under $CUDA_HOME or $CUDA_PATH."""
    found = shutil.which(name)
    if found:
        return found
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    for home in homes:
        candidate = os.path.join(home, "bin", name) if home else ""
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


NVCC = find_tool("nvcc")
PTXAS = find_tool("ptxas")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found (PATH, CUDA_HOME)")


def _gpu() -> bool:
    """nvcc, and a GPU that nvidia-smi lists: where the GPU tests build and run a kernel."""
    return NVCC is not None and shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0


needs_gpu = pytest.mark.skipif(not _gpu(), reason="no GPU")


def gpu_program(folder: str, source: str, *flags: str) -> Callable[..., str]:
    """``source`` built by nvcc (with ``flags``) in ``folder``; the result runs the program with
    its arguments and answers its standard output (for the tests marked ``needs_gpu``)."""
    assert NVCC is not None
    path = os.path.join(folder, "program.cu")
    binary = os.path.join(folder, "program")
    with open(path, "w") as handle:
        handle.write(source)
    subprocess.run([NVCC, *flags, "-o", binary, path], check=True)

    def run(*args: str, timeout: float = 120) -> str:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
        return done.stdout

    return run
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not found")


@cache
def tool_version(tool: str) -> str:
    return subprocess.run([tool, "--version"], capture_output=True, text=True).stdout


def oracle_cache_root() -> str:
    configured = os.environ.get("PTXLINT_TEST_CACHE")
    if configured:
        return configured
    from ptxlint.run.cache import location

    return str(location("tests"))


def cache_dir() -> str:
    return os.path.join(oracle_cache_root(), "toolchain")


@cache
def content_digest(path: str) -> str:
    """A sha256 of a file's bytes, or of a folder's files (their relative names and bytes, in a
    fixed order, symbolic links followed as the compiler would); "missing" for neither.
    Memoised: a test session reads a corpus folder once (CUTLASS's include/, 28 MB: 0.08 s)."""
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    if not os.path.isdir(path):
        return "missing"
    digest = hashlib.sha256()
    for folder, subfolders, names in os.walk(path, followlinks=True):
        subfolders.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            if not os.path.isfile(full):  # a dangling link, a socket
                continue
            digest.update(os.path.relpath(full, path).encode() + b"\0")
            with open(full, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    output: str  # the output file's text when asked for and written, else ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_cached(
    tool: str,
    command: Sequence[str],
    source: str,
    *,
    filename: str = "case.cu",
    read_output: bool = False,
    timeout: float = 300,
    inputs: Sequence[str] = (),
    files: Mapping[str, str] | None = None,
) -> Run:
    """``tool *command`` on ``source`` written to ``filename`` (``INPUT`` in the command), cached.

    ``OUTPUT`` in the command names a file in the same temporary folder; with ``read_output``
    its text is kept in the result. ``inputs``: the folders and files the run reads besides
    ``source`` (a probe's include folders, a header it names); the verdict is keyed on their
    contents. ``files``: name -> text of more files written beside ``source`` (the run's
    working folder, so ``-I.`` finds them).
    """
    keyed: list[object] = [tool_version(tool), list(command), filename, read_output, source]
    if inputs or files:  # only then: the keys of every other run stay what they were
        keyed += [[(path, content_digest(path)) for path in inputs], sorted((files or {}).items())]
    key = hashlib.sha256(json.dumps(keyed).encode()).hexdigest()
    cached = os.path.join(cache_dir(), key[:2], key + ".json")
    if os.path.exists(cached):
        with open(cached, encoding="utf-8") as handle:
            return Run(**json.load(handle))
    with tempfile.TemporaryDirectory(prefix="ptxlint-test-") as folder:
        path = os.path.join(folder, filename)
        out = os.path.join(folder, "out")
        for name, text in {**(files or {}), filename: source}.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        args = [path if a == INPUT else out if a == OUTPUT else a for a in command]
        done = subprocess.run(
            [tool, *args], capture_output=True, text=True, timeout=timeout, cwd=folder
        )
        output = ""
        if read_output and os.path.exists(out):
            with open(out, encoding="utf-8") as handle:
                output = handle.read()
    run = Run(done.returncode, done.stdout, done.stderr, output)
    os.makedirs(os.path.dirname(cached), exist_ok=True)
    # a file of this writer's own: parallel_map's threads share a pid, and two of them may
    # compile the same snippet (a matrix with equal cases), so a pid-named file was replaced
    # under the other's feet
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(cached), prefix=key[:16], suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(run), handle)
    os.replace(partial, cached)  # atomic: parallel test runs never read half a file
    return run


T = TypeVar("T")
R = TypeVar("R")


def parallel_map(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None) -> list[R]:
    """``[fn(x) for x in items]`` on a thread pool (the work is in subprocesses)."""
    with ThreadPoolExecutor(max_workers=workers or max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(fn, items))
