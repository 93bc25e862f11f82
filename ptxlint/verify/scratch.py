"""How the user's file and folder appear in the compiles verify runs, without their names ever
reaching a shell.

nvcc's driver runs cudafe, cicc and the host compiler through ``sh -c`` and puts the input
file's name there in double quotes without escaping it, so a file called ``$(touch x).cu``
would run ``touch x``. The scratch copy therefore has a fixed name; the user's folder goes to
``-I`` only when it is shell-inert (else through a fixed-name link in the scratch folder);
flags with shell syntax are refused; and the name in ``#line`` is the user's path only when it
is a plain string a C string literal holds as is (else a fixed alias mapped back on reading).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ptxlint.verify.runner import UnsafeArgument, shell_inert

SOURCE_NAME = "ptxlint-source.cu"  # the scratch copy of the user's file
ALIAS = "ptxlint-input.cu"  # the #line name of a path that cannot be written there as is
FOLDER_LINK = "ptxlint-folder"  # a link to the user's folder when its path is not shell-inert


def _plain(path: str) -> bool:
    if not path.isprintable() or '"' in path or "\\" in path or not shell_inert(path):
        return False
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # a byte that is not UTF-8 (os.fsdecode's surrogate escape)
        return False
    return True


def line_name(path: str) -> str:
    """The string to write in ``#line N "..."`` for ``path``."""
    shown = path.replace("\\", "/")
    return shown if _plain(shown) else ALIAS


def same_source(reported: str, path: str) -> bool:
    """Whether a file name in nvcc's messages is ``path`` (written by ``line_name``)."""
    if reported == ALIAS:
        return line_name(path) == ALIAS
    return reported == line_name(path) or reported == path or (
        os.path.abspath(reported) == os.path.abspath(path))


def folder_args(path: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(``-I`` arguments, links to make) so the file's own includes are found."""
    folder = os.path.dirname(os.path.abspath(path))
    if shell_inert(folder):
        return ("-I", folder), ()
    return ("-I", f"{{dir}}/{FOLDER_LINK}"), ((FOLDER_LINK, folder),)


def check_flags(flags: Sequence[str]) -> None:
    """UnsafeArgument when a flag (from --cuda-flags or compile_commands.json) holds shell
    syntax: nvcc would pass it to ``sh -c``."""
    for flag in flags:
        if not shell_inert(flag):
            raise UnsafeArgument(f"the flag {flag!r} holds characters a shell expands "
                                 "(nvcc passes flags through sh -c)")


SHADOW = "ptxlint-shadow"  # where a header's copy sits under its include name
_HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".ipp", ".tcc")


def _include_root(path: str, flags: Sequence[str]) -> str | None:
    """The first ``-I`` folder of ``flags`` that holds ``path``."""
    folder = os.path.abspath(path)
    args = list(flags)
    for n, arg in enumerate(args):
        value = args[n + 1] if arg == "-I" and n + 1 < len(args) else (
            arg[2:] if arg.startswith("-I") and len(arg) > 2 else None)
        if value and os.path.commonpath([os.path.abspath(value), folder]) == os.path.abspath(
                value):
            return os.path.abspath(value)
    return None


def sources(path: str, text: str, flags: Sequence[str]
            ) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(files to write, -I arguments to put first) for compiling ``text``, the content of
    ``path``. A header reached through an include folder of ``flags`` is written under its
    include name in a shadow folder searched first, and the compiled file only includes it:
    the headers it includes that include it back (CUTLASS's ``cute/arch`` headers) then reach
    the copy, whose ``#pragma once`` holds, instead of the original beside it, which would
    define everything twice. Anything else is the copy itself, as SOURCE_NAME."""
    root = _include_root(path, flags) if path.endswith(_HEADER_EXTENSIONS) else None
    name = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/") if root else ""
    if (not name or name.startswith("../") or not name.isprintable() or '"' in name
            or "\\" in name):
        return ((SOURCE_NAME, text),), ()
    return (((SOURCE_NAME, f'#include "{name}"\n'), (f"{SHADOW}/{name}", text)),
            ("-I", f"{{dir}}/{SHADOW}"))
