"""Find nvcc and ptxas, ask them their version and targets, and read the GPU's compute capability.

Search order (first hit wins, per tool): an explicit ``--nvcc``/``--ptxas`` path, then
``$CUDA_HOME/bin`` and ``$CUDA_PATH/bin`` (when absolute), then ``PATH``, then the
``nvidia-cuda-nvcc`` wheel (``pip install ptxlint[verify]``), which installs its binaries under
``site-packages/nvidia/cu13/bin`` (with cicc from the ``nvidia-nvvm`` wheel under
``nvidia/cu13/nvvm/bin`` and headers from ``nvidia-cuda-runtime``/``nvidia-cuda-crt``).
ptxas alone is enough for the per-statement PTX probes; nvcc also needs a host compiler.

None of these searches looks in the working folder or in a folder being linted
(``ptxlint/program_search.py`` says exactly where they look): a checkout's ``nvidia/cu13/bin/nvcc``
or ``bin/ptxas`` is data, never a compiler.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import field
from functools import lru_cache
from pathlib import Path

from ptxlint.program_search import (
    Distrusted,
    absolute_env_folder,
    environment_site_folders,
    executable,
    skipped_path_hits,
    which,
)
from ptxlint.value_class import value_class

WHEEL_BIN_DIRS = ("nvidia/cu13/bin", "nvidia/cu12/bin", "nvidia/cuda_nvcc/bin")
# The PTX ISA version each CUDA release writes by default (CUDA 12.x: 8.x, 13.0: 9.0).
PTX_ISA_BY_CUDA = {(13, 0): "9.0", (12, 9): "8.8", (12, 8): "8.7", (12, 6): "8.5", (12, 4): "8.4"}


class ToolchainError(Exception):
    """No usable toolchain: the CLI prints the message and exits 2."""


@value_class(slots=False)
class Tool:
    """An nvcc or ptxas found for ``--verify``: its path, how it was found and its version."""

    name: str  # "nvcc" | "ptxas"
    path: str
    found_by: str  # "--nvcc", "CUDA_HOME", "PATH", "nvidia-cuda-nvcc wheel", ...
    version: str  # "13.0.88" or "" when it did not say


@value_class(slots=False)
class Toolchain:
    """The nvcc and ptxas ``--verify`` compiles with, the targets ptxas accepts, and the problems
    met finding them."""

    nvcc: Tool | None
    ptxas: Tool | None
    archs: tuple[str, ...] = ()  # real targets ptxas accepts: sm_75, sm_90a, ...
    host_compiler: str | None = None
    problems: tuple[str, ...] = field(default=())

    @property
    def version(self) -> str:
        tool = self.nvcc or self.ptxas
        return tool.version if tool else ""

    def label(self, name: str) -> str:
        """``"ptxas 13.0.88"``: names the evidence's source in verdicts."""
        tool = self.nvcc if name == "nvcc" else self.ptxas
        return f"{name} {tool.version}".strip() if tool else name

    @property
    def ptx_isa(self) -> str:
        """The ``.version`` to write in synthesized PTX: the newest this ptxas reads (ptxas's
        own version first: `--ptxas` may name an older one than nvcc, such as Triton's)."""
        version = self.ptxas.version if self.ptxas and self.ptxas.version else self.version
        match = re.match(r"(\d+)\.(\d+)", version)
        if not match:
            return "8.0"
        key = (int(match[1]), int(match[2]))
        best = [v for k, v in sorted(PTX_ISA_BY_CUDA.items()) if k <= key]
        return best[-1] if best else "8.0"

    def supports(self, arch: str) -> bool:
        return not self.archs or arch in self.archs


def _candidates(name: str, explicit: str | None,
                distrusted: Distrusted) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if explicit:  # named by the user: used as given, wherever it is
        out.append((explicit, f"--{name}"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = absolute_env_folder(var)
        if root:
            out.append((os.path.join(root, "bin", name), var))
    found = which(name, distrusted)
    if found:
        out.append((found, "PATH"))
    for folder in environment_site_folders():
        for sub in WHEEL_BIN_DIRS:
            out.append((os.path.join(folder, sub, name), "nvidia-cuda-nvcc wheel"))
    return out



def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    match = re.search(r"\bV(\d+\.\d+\.\d+)", out.stdout) or re.search(
        r"release (\d+\.\d+)", out.stdout
    )
    return match[1] if match else ""


def _find(name: str, explicit: str | None, problems: list[str],
          distrusted: Distrusted) -> Tool | None:
    if explicit and not executable(explicit):
        problems.append(f"--{name} {explicit}: not an executable file")
    for path, how in _candidates(name, explicit, distrusted):
        if executable(path):
            return Tool(name, os.path.realpath(path), how, _version(path))
    for folder in skipped_path_hits(name, distrusted):
        problems.append(f"{name} in PATH entry {folder!r} not used: it is relative, or inside "
                        "the working folder or a folder being linted")
    return None


def _ptxas_archs(ptxas: str) -> tuple[str, ...]:
    """Real ``sm_`` targets from ``ptxas --help`` (its --gpu-name list)."""
    try:
        out = subprocess.run([ptxas, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    found = set(re.findall(r"'(sm_\d+[af]?)'", out))
    return tuple(sorted(found, key=arch_key))


def arch_key(arch: str) -> tuple[int, str]:
    match = re.match(r"(?:sm|compute)_(\d+)([af]?)", arch)
    return (int(match[1]), match[2]) if match else (0, arch)


def discover(nvcc: str | None = None, ptxas: str | None = None,
             linted: tuple[str, ...] = ()) -> Toolchain:
    """What is installed, never taken from the working folder or the ``linted`` folders; never
    raises (see ``require`` for the failing variant)."""
    return _discover(nvcc, ptxas, Distrusted.here(linted))


@lru_cache(maxsize=8)
def _discover(nvcc: str | None, ptxas: str | None, distrusted: Distrusted) -> Toolchain:
    problems: list[str] = []
    nvcc_tool = _find("nvcc", nvcc, problems, distrusted)
    ptxas_tool = _find("ptxas", ptxas, problems, distrusted)
    if ptxas_tool is None and nvcc_tool is not None:
        # nvcc's own bin folder holds its ptxas
        beside = Path(nvcc_tool.path).with_name("ptxas")
        if executable(str(beside)):
            ptxas_tool = Tool("ptxas", str(beside), "beside nvcc", _version(str(beside)))
    archs = _ptxas_archs(ptxas_tool.path) if ptxas_tool else ()
    host = which("g++", distrusted) or which("clang++", distrusted) or which("cl", distrusted)
    if nvcc_tool is not None and host is None:
        problems.append("nvcc found but no host compiler (g++/clang++): nvcc probes are skipped")
    return Toolchain(nvcc_tool, ptxas_tool, archs, host, tuple(problems))


# How to point ptxlint at a toolkit that is installed but not found, or to get one.
POINT_AT_ONE = (
    "Point at an installed toolkit with CUDA_HOME=/usr/local/cuda (its folder) or --nvcc PATH, "
    "or install one: the CUDA Toolkit, or `pip install ptxlint[verify]`."
)


def require(toolchain: Toolchain) -> Toolchain:
    named = [p for p in toolchain.problems if p.startswith(("--nvcc ", "--ptxas "))]
    if named:  # the user named a tool: never verify with another one found on PATH instead
        raise ToolchainError("; ".join(named))
    if toolchain.ptxas is None and toolchain.nvcc is None:
        passed_over = [p for p in toolchain.problems if " in PATH entry " in p]
        raise ToolchainError(
            "no CUDA toolchain found for --verify: looked at --nvcc/--ptxas, $CUDA_HOME/bin, "
            f"$CUDA_PATH/bin, PATH and the nvidia-cuda-nvcc wheel. {POINT_AT_ONE}"
            + "".join(f" ({p})" for p in passed_over)
        )
    return toolchain


# --------------------------------------------------------------------------- the GPU at hand


def native_arch(smi: str | None = None) -> str:
    """``sm_90`` for the first GPU nvidia-smi lists; ToolchainError with the reason otherwise."""
    smi = smi or which("nvidia-smi")
    if smi is None:
        raise ToolchainError(
            "--arch native: nvidia-smi is not on PATH, so no GPU can be queried here; "
            "pass a target such as --arch sm_90"
        )
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolchainError(f"--arch native: nvidia-smi failed: {exc}") from exc
    match = re.search(r"(\d+)\.(\d+)", out.stdout)
    if out.returncode != 0 or match is None:
        said = (out.stderr or out.stdout).strip().splitlines()
        raise ToolchainError(
            "--arch native: nvidia-smi found no GPU"
            + (f" ({said[0]})" if said else "")
            + "; pass a target such as --arch sm_90"
        )
    return f"sm_{int(match[1])}{int(match[2])}"


def resolve_arch(value: str | None, smi: str | None = None) -> str | None:
    """``--arch`` as given, with ``native`` (an entry of a comma-separated list too) replaced
    by the GPU's target."""
    if value is None:
        return value
    entries = value.split(",")
    if not any(entry.strip().lower() == "native" for entry in entries):
        return value
    return ",".join(native_arch(smi) if entry.strip().lower() == "native" else entry
                    for entry in entries)


# --------------------------------------------------------------------------- doctor


def doctor_report(toolchain: Toolchain) -> str:
    lines = []
    for name, tool in (("nvcc", toolchain.nvcc), ("ptxas", toolchain.ptxas)):
        if tool is None:
            lines.append(f"{name:<13} not found")
        else:
            lines.append(f"{name:<13} {tool.path} ({tool.version or 'version unknown'}, "
                         f"found by {tool.found_by})")
    lines.append(f"{'host compiler':<13} {toolchain.host_compiler or 'not found'}")
    if toolchain.archs:
        lines.append(f"{'targets':<13} {' '.join(toolchain.archs)}")
    if toolchain.ptxas or toolchain.nvcc:
        lines.append(f"{'PTX ISA':<13} {toolchain.ptx_isa} (written in synthesized probes)")
    try:
        lines.append(f"{'GPU':<13} {native_arch()} (--arch native)")
    except ToolchainError as exc:
        lines.append(f"{'GPU':<13} none: {exc}")
    for problem in toolchain.problems:
        lines.append(f"problem: {problem}")
    can = []
    if toolchain.ptxas:
        can.append("PTX probes (ptxas)")
    if toolchain.nvcc and toolchain.host_compiler:
        can.append("front-end probes, whole-file and differential compiles (nvcc)")
    lines.append("verify can run: " + (", ".join(can) if can else
                                       f"nothing: no nvcc or ptxas found. {POINT_AT_ONE}"))
    return "\n".join(lines) + "\n"
