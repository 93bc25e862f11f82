"""CUDA toolkit versions and the PTX ISA versions their ptxas (and nvcc) accept.

A toolkit's ptxas assembles PTX up to its own ISA version: CUDA 12.4 knows PTX ISA 8.4, and an
instruction form the ISA introduced in 8.6 ("PTX ISA Notes" of each instruction) is an error
there ("Not a name of any known instruction", "Unknown modifier", or "... requires PTX ISA .version
8.6 or later"). The table is the PTX ISA manual's release history ("PTX ISA version" against
"CUDA release"): from CUDA 11 on the minor numbers match (PTX ISA 7.x is CUDA 11.x, 8.0-8.5 are
12.0-12.5), except that CUDA 12.6 kept PTX ISA 8.5 and 12.7-12.9 carry 8.6-8.8; CUDA 13.0 is
PTX ISA 9.0, 13.1 9.1, 13.2 9.2, 13.3 9.3, 13.4 9.4, 13.5 9.5 (each toolkit's ptxas takes
that ``.version`` and rejects the next: "Unsupported .version 9.4; current version is '9.3'").
Before CUDA 9 the numbers do not line up: CUDA 6.0 is PTX ISA 4.0, 6.5 4.1, 7.0 4.2, 7.5 4.3,
8.0 5.0 (and 5.0 3.1, 5.5 3.2), so a project that still builds with CUDA 8 cannot use
``bar.warp.sync`` (6.0), nor one that builds with CUDA 6.5 ``lop3`` (4.3).
Versions are integers: PTX ISA 8.6 is ``86``; a CUDA version is ``(12, 4)``.
"""

from __future__ import annotations

import os
import re

from ptxlint.lazy_regex import on_first_use

__all__ = [
    "DEFAULT_CUDA_VERSION",
    "NEWEST_KNOWN",
    "CudaVersion",
    "cmake_min_cuda",
    "cmake_toolkit_gate",
    "cuda_for_ptx",
    "format_cuda",
    "format_ptx",
    "known_toolkits",
    "parse_cuda_version",
    "ptx_for_cuda",
    "version_options",
]

CudaVersion = tuple[int, int]

# (CUDA major, minor) -> the PTX ISA version (x10) its toolchain writes and accepts.
_PTX_OF_CUDA: dict[CudaVersion, int] = {
    (5, 0): 31, (5, 5): 32, (6, 0): 40, (6, 5): 41, (7, 0): 42, (7, 5): 43, (8, 0): 50,
    (9, 0): 60, (9, 1): 61, (9, 2): 62,
    (10, 0): 63, (10, 1): 64, (10, 2): 65,
    **{(11, minor): 70 + minor for minor in range(9)},
    **{(12, minor): 80 + minor for minor in range(6)},
    (12, 6): 85, (12, 7): 86, (12, 8): 87, (12, 9): 88,
    (13, 0): 90, (13, 1): 91, (13, 2): 92, (13, 3): 93, (13, 4): 94, (13, 5): 95,
}
# The oldest toolkit a setting may name: the table starts at CUDA 5.0 (PTX ISA 3.1, sm_35).
_OLDEST: CudaVersion = min(_PTX_OF_CUDA)

# The toolkit whose ptxas ptxlint's verdicts were measured with, when nothing says otherwise
# (`cuda-version`, or the toolkit `--verify` finds).
DEFAULT_CUDA_VERSION: CudaVersion = (13, 0)
# The newest toolkit whose PTX ISA the instruction grammar covers: a word it does not know may
# be an instruction or modifier of a newer one. A toolkit counts as covered once every form its
# ptxas takes that CCCL's generated wrappers spell is written down (CCCL 3.5's, PTX ISA 9.3-9.5,
# each measured with that toolkit's ptxas), and those its CUDA headers write.
NEWEST_KNOWN: CudaVersion = (13, 5)

_VERSION = on_first_use(r"\s*(\d+)(?:\.(\d+))?(?:\.\d+)?\s*\Z")


def parse_cuda_version(text: str | int | float) -> CudaVersion:
    """``"12.4"``, ``"12.4.1"``, ``"12"`` (12.0), or the ``CUDA_VERSION`` number ``12040``."""
    if isinstance(text, bool):
        raise ValueError(f"expected a CUDA version like \"12.4\", got {text!r}")
    if isinstance(text, int) and text >= 1000:
        return (text // 1000, text % 1000 // 10)
    m = _VERSION().match(str(text))
    if m is None:
        raise ValueError(f"expected a CUDA version like \"12.4\", got {text!r}")
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    if major >= 1000 and m.group(2) is None:
        return (major // 1000, major % 1000 // 10)
    if not _OLDEST[0] <= major <= 99:
        raise ValueError(f"expected a CUDA version like \"12.4\" ({format_cuda(_OLDEST)} or "
                         f"newer), got {text!r}")
    return (major, minor)


def ptx_for_cuda(version: CudaVersion) -> int | None:
    """The PTX ISA version the toolkit accepts, or ``None`` for a toolkit newer than the table
    (it accepts at least everything the table knows)."""
    known = _PTX_OF_CUDA.get(version)
    if known is not None:
        return known
    older = [v for v in _PTX_OF_CUDA if v <= version]
    if not older:
        return _PTX_OF_CUDA[min(_PTX_OF_CUDA)]
    if version > max(_PTX_OF_CUDA):
        return None
    return _PTX_OF_CUDA[max(older)]  # a minor release the table skips: its predecessor's


def known_toolkits(since: CudaVersion | None = None) -> list[CudaVersion]:
    """The toolkits of the table, oldest first; with ``since``, that one (where the table skips
    it) and the newer ones."""
    known = sorted(v for v in _PTX_OF_CUDA if since is None or v > since)
    return known if since is None else [since, *known]


def cuda_for_ptx(ptx: int) -> CudaVersion | None:
    """The oldest toolkit that accepts PTX ISA ``ptx``, or ``None`` past the table."""
    for version in sorted(_PTX_OF_CUDA):
        if _PTX_OF_CUDA[version] >= ptx:
            return version
    return None


def format_ptx(ptx: int) -> str:
    return f"{ptx // 10}.{ptx % 10}"


def format_cuda(version: CudaVersion) -> str:
    return f"{version[0]}.{version[1]}"


# `find_package(CUDAToolkit 12.4 REQUIRED)`, `find_package(CUDAToolkit 11.8...12.9)`: the first
# version is the oldest the project accepts. `find_package(CUDA 10.2 REQUIRED)` is the same ask
# of the FindCUDA module that CUDAToolkit replaced (CMake 3.17), still in older projects.
_FIND_PACKAGE = on_first_use(
    r"\bfind_package\s*\(\s*CUDA(?:Toolkit)?\s+(\d+(?:\.\d+){0,2})[^)]*\)", re.IGNORECASE)


def cmake_min_cuda(text: str) -> CudaVersion | None:
    """The oldest CUDA toolkit a CMakeLists.txt asks for: the version of its
    ``find_package(CUDAToolkit X)`` (or ``find_package(CUDA X)``), when exactly one version is
    named; ``None`` when none is or several differ (which one a build takes is then the
    configuration's business)."""
    text = re.sub(r"#[^\n]*", "", text)  # line comments
    found: set[CudaVersion] = set()
    for m in _FIND_PACKAGE().finditer(text):
        try:
            found.add(parse_cuda_version(m.group(1)))
        except ValueError:  # older than the table (FindCUDA's 7.5): no version it can hold to
            return None
    return found.pop() if len(found) == 1 else None


# A CMake command: its name and its parenthesised arguments (nested parentheses one deep, as in
# `if((A) AND B)`); `if`, `elseif`, `else` and `endif` are what the gate reads.
_COMMAND = on_first_use(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(((?:[^()]|\([^()]*\))*)\)")
# `${CUDA_VERSION} VERSION_GREATER_EQUAL "12.8"` (FindCUDA's variable, CUDAToolkit's, or the
# compiler's own), or the same bound written `NOT ... VERSION_LESS 12.8`.
_GATE = on_first_use(
    r"\s*(NOT\s+)?\"?(?:\$\{)?(?:CUDA_VERSION|CUDA_VERSION_STRING|CUDAToolkit_VERSION|"
    r"CMAKE_CUDA_COMPILER_VERSION)\}?\"?\s+(VERSION_GREATER_EQUAL|VERSION_LESS)\s+"
    r"\"?(\d+\.\d+(?:\.\d+)?)\"?\s*")


def cmake_toolkit_gate(text: str) -> CudaVersion | None:
    """The CUDA toolkit a CMakeLists.txt builds anything with: X where every command of the
    file lies inside one ``if(CUDA_VERSION VERSION_GREATER_EQUAL X) ... endif()`` with no
    ``else``/``elseif`` (``CUDAToolkit_VERSION``, ``CMAKE_CUDA_COMPILER_VERSION``, or ``NOT ...
    VERSION_LESS X`` alike; alone or AND-ed with other conditions). With an older toolkit the
    folder adds no target and no subdirectory: nothing under it is compiled. ``None`` for any
    other file."""
    text = re.sub(r"#[^\n]*", "", text)  # line comments
    commands = [(m.group(1).lower(), m.group(2)) for m in _COMMAND().finditer(text)]
    if len(commands) < 2 or commands[0][0] != "if" or commands[-1][0] != "endif":
        return None
    gate = _conjunct_gate(commands[0][1])
    if gate is None:
        return None
    depth = 0
    for index, (name, _) in enumerate(commands):
        if name == "if":
            depth += 1
        elif name == "endif":
            depth -= 1
            if depth == 0 and index != len(commands) - 1:
                return None  # the first `if` closes before the file ends
        elif name in ("else", "elseif") and depth == 1:
            return None  # an older toolkit takes the other branch
    try:
        return parse_cuda_version(gate)
    except ValueError:
        return None


def _conjunct_gate(condition: str) -> str | None:
    """The version X of a toolkit bound (``CUDA_VERSION VERSION_GREATER_EQUAL X``) that the
    ``if`` condition requires: the whole condition, or one operand of a top-level ``AND``
    (``(SM STREQUAL "90") AND ${CUDA_VERSION} VERSION_GREATER_EQUAL "12.8"``). A top-level
    ``OR`` (which binds looser than ``AND``) requires none."""
    depth, start, conjuncts = 0, 0, []
    for m in re.finditer(r"[()]|\b(AND|OR)\b", condition):
        if m.group() == "(":
            depth += 1
        elif m.group() == ")":
            depth -= 1
        elif depth == 0 and m.group() == "OR":
            return None
        elif depth == 0:
            conjuncts.append(condition[start:m.start()])
            start = m.end()
    conjuncts.append(condition[start:])
    for conjunct in conjuncts:
        conjunct = conjunct.strip()
        while conjunct.startswith("(") and conjunct.endswith(")"):
            conjunct = conjunct[1:-1].strip()
        gate = _GATE().fullmatch(conjunct)
        if gate is not None and bool(gate.group(1)) == (gate.group(2) == "VERSION_LESS"):
            return gate.group(3)
    return None


def version_options(cuda_version: str | None, min_cuda_version: str | None,
                    root: str) -> dict[str, object]:
    """The rule options a run's versions give (``RuleContext.options``): ``cuda_version``
    (``DEFAULT_CUDA_VERSION`` when not configured, and then ``cuda_version_source`` is
    ``"default"``) and ``min_cuda_version`` (configured, else from ``root``'s CMakeLists.txt,
    else absent), as ``(major, minor)``."""
    options: dict[str, object] = {
        "cuda_version": parse_cuda_version(cuda_version) if cuda_version
        else DEFAULT_CUDA_VERSION,
    }
    if not cuda_version:
        options["cuda_version_source"] = "default"
    oldest = parse_cuda_version(min_cuda_version) if min_cuda_version else None
    if oldest is None:
        try:
            with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8",
                      errors="replace") as handle:
                oldest = cmake_min_cuda(handle.read(1 << 20))
        except OSError:
            oldest = None
        if oldest is not None:
            options["min_cuda_version_source"] = "CMakeLists.txt"
    if oldest is not None:
        options["min_cuda_version"] = oldest
    return options
