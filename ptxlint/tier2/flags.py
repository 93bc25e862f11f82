"""Turn a compile command (nvcc, clang or gcc spelling) into arguments libclang can parse with.

We keep what changes the meaning of the source (include paths, defines, forced includes, the
language standard, the GPU architecture) and drop everything else: code generation, warnings,
dependency output, host-compiler pass-through. Keeping only known-good flags matters because one
flag libclang does not know turns into an error diagnostic for the whole translation unit.
Relative paths are made absolute against the command's directory, since libclang resolves them
against our working directory, not the build's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ptxlint.value_class import value_class

# The newest architecture the libclang 18 wheel knows; newer ones parse as this one.
MAX_ARCH = 90
DEFAULT_ARCH = "sm_90"

# Flags that take a path, joined ("-Ifoo") or separate ("-I foo").
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include")
_PATH_LONG = {
    "--include-path": "-I",
    "--system-include": "-isystem",
    "--pre-include": "-include",
}
_DEFINE_LONG = {"--define-macro": "-D", "--undefine-macro": "-U"}
# Flags we drop that take a separate value (so the value is dropped too).
_DROP_WITH_VALUE = {
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-Xcompiler",
    "--compiler-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xlinker",
    "--linker-options",
    "-Xnvlink",
    "-Xcudafe",
    "-Xarchive",
    "-ccbin",
    "--compiler-bindir",
    "-maxrregcount",
    "--maxrregcount",
    "--threads",
    "-t",
    "--keep-dir",
    "-odir",
    "--output-directory",
    "-code",
    "--gpu-code",
    "-rdc",
    "--relocatable-device-code",
    "--diag-suppress",
    "--diag-warn",
    "--diag-error",
    "-Werror",
    "-cudart",
    "--cudart",
    "-Xclang",
    "-target",
    "--target",
    "-arch-ls",
    "--default-stream",
    "-x",
    "--optimization-info",
    "--generate-line-info-level",
    "--dlink-time-opt",
    "-dopt",
}
_ARCH_FLAGS = ("-arch", "--gpu-architecture", "--cuda-gpu-arch", "--offload-arch")
_GENCODE_FLAGS = ("-gencode", "--generate-code")
_STD = re.compile(r"^(?:-std|--std)=(?P<std>.+)$")
_ARCH_VALUE = re.compile(r"(?:sm|compute)_(?P<num>\d+)(?P<suffix>[af]?)")


@value_class(slots=False)
class ClangFlags:
    """A compile command turned into arguments libclang can parse with, and the GPU architectures
    the command builds for."""

    args: tuple[str, ...]  # everything but the file name
    arch: str  # the --cuda-gpu-arch of ``args``, e.g. "sm_90"
    # every architecture the command builds for (-gencode ... -gencode ...), first = ``arch``:
    # code under NV_IF_TARGET / __CUDA_ARCH__ exists only for some of them
    archs: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()  # what we left out, for --verbose style reporting


def is_cuda_command(argv: Sequence[str], file: str) -> bool:
    """Whether the entry compiles device code: nvcc, ``-x cu``/``-x cuda``, or a .cu file."""
    if not argv:
        return file.endswith((".cu", ".cuh"))
    compiler = os.path.basename(argv[0])
    if "nvcc" in compiler or file.endswith((".cu", ".cuh")):
        return True
    return any(
        a in ("cu", "cuda") and p == "-x" for p, a in zip(argv, argv[1:], strict=False)
    ) or any(a in ("-xcu", "-xcuda") for a in argv)


def translate(
    argv: Sequence[str],
    directory: str,
    file: str | None = None,
    extra: Sequence[str] = (),
    include_dirs: Sequence[str] = (),
) -> ClangFlags:
    """libclang arguments for one compile command (``argv[0]`` is the compiler).

    ``extra`` (from ``--clang-args``) is appended verbatim; ``include_dirs`` (the CUDA include
    folder) go last as ``-isystem`` so a project's own paths win.
    """
    kept: list[str] = []
    dropped: list[str] = []
    std = "c++17"
    archs: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        step = 1
        if file is not None and _same_file(a, directory, file):
            pass  # the translation unit itself: libclang gets it separately
        elif a in _PATH_FLAGS or a in _PATH_LONG:
            if nxt is not None:
                kept += [_PATH_LONG.get(a, a), _absolute(nxt, directory)]
                step = 2
        elif (flag := _joined_path_flag(a)) is not None:
            kept += [flag, _absolute(a[len(flag) :].lstrip("="), directory)]
        elif a.startswith("--include-path=") or a.startswith("--system-include="):
            name, _, value = a.partition("=")
            kept += [_PATH_LONG[name], _absolute(value, directory)]
        elif a in ("-D", "-U") or a in _DEFINE_LONG:
            if nxt is not None:
                kept.append(_DEFINE_LONG.get(a, a) + nxt)
                step = 2
        elif a.startswith(("-D", "-U")):
            kept.append(a)
        elif a.startswith(("--define-macro=", "--undefine-macro=")):
            name, _, value = a.partition("=")
            kept.append(_DEFINE_LONG[name] + value)
        elif (m := _STD.match(a)) is not None:
            std = m.group("std")
        elif a in ("-std", "--std") and nxt is not None:
            std = str(nxt)
            step = 2
        elif (target := target_argument(a, nxt)) is not None:
            value, step = target
            archs.append(_pick_arch(value) or "")
        elif a in _DROP_WITH_VALUE:
            dropped += [a] + ([nxt] if nxt is not None else [])
            step = 2
        else:
            dropped.append(a)
        i += step
    distinct = tuple(dict.fromkeys(a for a in archs if a)) or (DEFAULT_ARCH,)
    chosen = distinct[0]
    args_out = [
        "-x",
        "cuda",
        "--cuda-device-only",
        f"--cuda-gpu-arch={chosen}",
        "-nocudainc",
        "-nocudalib",
        f"-std={_clang_std(std)}",
        "-Wno-unknown-cuda-version",
        "-ferror-limit=0",  # error recovery is per operand; never stop at 20
        *kept,
        *extra,
    ]
    for folder in include_dirs:
        args_out += ["-isystem", folder]
    return ClangFlags(tuple(args_out), chosen, archs=distinct, dropped=tuple(dropped))


def target_argument(arg: str, following: str | None) -> tuple[str, int] | None:
    """Where ``arg`` names the command's GPU target (``-arch sm_90a``, ``-gencode=arch=...``,
    clang's ``--cuda-gpu-arch``): its value as written and how many arguments it takes; else
    None. libclang's flags and each file's targets (``build_targets``) read the one spelling."""
    if arg in _ARCH_FLAGS or arg in _GENCODE_FLAGS:
        return following or "", 2
    name, equals, value = arg.partition("=")
    if equals and (name in _ARCH_FLAGS or name in _GENCODE_FLAGS):
        return value, 1
    return None


def target_values(argv: Sequence[str]) -> list[str]:
    """The value of each GPU-target argument of a compile command (``argv[0]`` the compiler),
    as written: ``sm_90a``, ``sm_80,sm_90``, ``arch=compute_80,code=sm_80``."""
    args = list(argv[1:])
    values: list[str] = []
    i = 0
    while i < len(args):
        target = target_argument(args[i], args[i + 1] if i + 1 < len(args) else None)
        if target is None:
            i += 1
            continue
        values.append(target[0])
        i += target[1]
    return values


def for_arch(flags: ClangFlags, arch: str) -> tuple[str, ...]:
    """``flags.args`` parsing for ``arch`` instead."""
    return tuple(
        f"--cuda-gpu-arch={arch}" if a.startswith("--cuda-gpu-arch=") else a for a in flags.args
    )


def _same_file(arg: str, directory: str, file: str) -> bool:
    if arg.startswith("-"):
        return False
    return os.path.realpath(os.path.join(directory, arg)) == os.path.realpath(file)


def _joined_path_flag(arg: str) -> str | None:
    for flag in _PATH_FLAGS:
        if arg.startswith(flag) and len(arg) > len(flag):
            return flag
    return None


def _absolute(path: str, directory: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(directory, path))


def _pick_arch(value: str) -> str | None:
    """The architecture libclang should parse for, from ``sm_80``, ``compute_90a`` or a
    ``-gencode arch=compute_80,code=sm_80`` value. Architectures newer than libclang knows are
    parsed as the newest it knows: the operand types do not depend on it."""
    found = [(int(m.group("num")), m.group("suffix")) for m in _ARCH_VALUE.finditer(value)]
    if not found:
        return None
    num, suffix = found[0]
    if num > MAX_ARCH:
        return f"sm_{MAX_ARCH}"
    return f"sm_{num}{'a' if suffix == 'a' and num == 90 else ''}"


def _clang_std(std: str) -> str:
    # nvcc spells "c++17"; clang also wants that spelling. Anything odd becomes c++17.
    std = std.lower()
    if re.fullmatch(r"(?:c|gnu)\+\+(?:11|14|17|20|23|2a|2b|1z|1y)", std):
        return std
    return "c++17"


def parse_extra(text: str | None) -> tuple[str, ...]:
    """``--clang-args "-DX=1 -Iinc"`` as a list, split like a shell would."""
    import shlex

    from ptxlint.config import ConfigError

    try:
        return tuple(shlex.split(text)) if text else ()
    except ValueError as exc:  # an unbalanced quote
        raise ConfigError(f"--clang-args {text!r}: {exc}") from exc
