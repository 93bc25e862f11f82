"""The targets each translation unit of a compile database is built for, as the ``arch`` a file
is judged with where no ``arch`` is configured.

nvcc compiles a file's device code once per virtual architecture its command names (the
``arch=`` of each ``-gencode``, or ``-arch`` alone): each pass sets ``__CUDA_ARCH__`` and the
PTX ``.target`` an inline asm statement is assembled for, whatever real GPUs (``code=``) its PTX
is then assembled into. So those are the targets a statement must compile for. The database is
only read (JSON, shlex): nothing in it is run.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ptxlint.lazy_regex import on_first_use

if TYPE_CHECKING:
    from ptxlint.rule import RuleContext
    from ptxlint.tier2.compile_db import CompileDb

_TARGET = on_first_use(r"(?:sm|compute)_(\d+[af]?)\Z")
_KEY = on_first_use(r"(arch|code)=(\[[^\]]*\]|[^,]*)")

# path (real, absolute) -> the targets of its compile command, normalized (``Config.arch``)
BuildTargets = Mapping[str, tuple[str, ...]]


def command_targets(argv: Sequence[str]) -> tuple[str, ...]:
    """The targets of one compile command (``argv[0]`` the compiler), normalized and in
    ascending target order; values ptxlint's tables do not know (``native``, ``all``, a
    target newer than they are) are left out. Empty: the command names none."""
    from ptxlint.config import normalize_arch_list
    from ptxlint.tier2.flags import target_values

    values: list[str] = []
    for value in target_values(argv):
        # a -gencode value has arch=/code= keys; -arch and clang's flags list targets by commas
        values += _gencode_passes(value) if "=" in value else value.split(",")

    known: list[str] = []
    for value in values:
        match = _TARGET().match(value.strip())
        if match is None:
            continue
        try:
            known += normalize_arch_list(match[1])
        except ValueError:
            continue  # a target the tables do not know: judged as if not listed
    return normalize_arch_list(known) if known else ()


def _gencode_passes(value: str) -> list[str]:
    """``arch=compute_80,code=[sm_80,sm_86]`` -> ``["compute_80"]``: the pass's virtual
    architecture; ``code=`` only where ``arch=`` is missing."""
    fields = {key: text.strip("[]") for key, text in _KEY().findall(value)}
    return fields.get("arch", fields.get("code", "")).split(",")


def of_database(db: CompileDb) -> dict[str, tuple[str, ...]]:
    """Each translation unit's targets (the first command naming it, as Tier 2 reads it);
    a command naming none (a host compiler's) gives its file no entry."""
    found: dict[str, tuple[str, ...]] = {}
    for command in db.commands:
        if command.file not in found:
            targets = command_targets(command.arguments)
            if targets:
                found[command.file] = targets
    return found


def load(database: str | None) -> dict[str, tuple[str, ...]]:
    """``of_database`` of the database file ``database``; empty for none or an unreadable one
    (the Tier-2 session reports that)."""
    if database is None:
        return {}
    from pathlib import Path

    from ptxlint.tier2 import compile_db

    try:
        return of_database(compile_db.load(Path(database)))
    except compile_db.CompileDbError:
        return {}


def targets_of(build: BuildTargets, path: str) -> tuple[str, ...]:
    """The targets ``path``'s compile command builds it for; empty: it has none."""
    if not build:
        return ()
    return build.get(os.path.realpath(os.path.abspath(path)), ())


def applied(context: RuleContext, build: BuildTargets | None, path: str) -> RuleContext:
    """``context`` with ``path``'s build targets where it names no ``arch`` (a configured one
    always wins) and the database has the file."""
    if not build or context.listed_targets:
        return context
    targets = targets_of(build, path)
    if not targets:
        return context
    from ptxlint.config import arch_fields
    from ptxlint.tier2.locate import DB_NAME

    return dataclasses.replace(context, **arch_fields(targets), targets_from=DB_NAME)
