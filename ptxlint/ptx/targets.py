"""Which GPU targets an asm statement is compiled for, from ``--arch`` and its ``#if`` guards.

A statement's guards (``Context.guards``, plus the condition of an enclosing CCCL
``NV_IF_TARGET``/``NV_IF_ELSE_TARGET``/``NV_DISPATCH_TARGET`` call) are evaluated for each
candidate architecture with :func:`ptxlint.preproc.evaluate`. A guard that mentions an
architecture macro must be *true* for the statement to count as compiled there; a guard that
mentions none and stays unknown (``__cccl_ptx_isa >= 800``, ``defined(USE_FOO)``) is not about
the target and is assumed to hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ptxlint.model import AsmStatement
from ptxlint.preproc import DEFAULT_TARGET, evaluate

__all__ = ["ARCHES", "Target", "compiled_for", "lowest_target", "statement_guards"]

# Every sm_ the CUDA toolchains have known (the guard lattice; order matters).
ARCHES: tuple[int, ...] = (
    30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103,
    110, 120, 121,
)
_ARCH_MACRO = re.compile(
    r"__CUDA_ARCH(?:__|_FEAT_SM\w*|_SPECIFIC__|_FAMILY_SPECIFIC__|_LIST__)"
    r"|__NVCOMPILER_CUDA_ARCH__|NV_PROVIDES_SM|NV_IS_"
)


@dataclass(frozen=True)
class Target:
    sm: int
    suffix: str = ""  # "a" (sm_90a), "f" (sm_100f) or ""

    def __str__(self) -> str:
        return f"sm_{self.sm}{self.suffix}"


def _defines(target: Target) -> Mapping[str, int | None]:
    defines: dict[str, int | None] = dict(DEFAULT_TARGET)
    defines["__CUDA_ARCH__"] = target.sm * 10
    specific = target.suffix in ("a", "f")
    for sm in ARCHES:
        feature = target.suffix == "a" and sm == target.sm
        defines[f"__CUDA_ARCH_FEAT_SM{sm}_ALL"] = 1 if feature else None
    defines["__CUDA_ARCH_SPECIFIC__"] = target.sm * 10 if target.suffix == "a" else None
    defines["__CUDA_ARCH_FAMILY_SPECIFIC__"] = target.sm * 10 if specific else None
    return defines


_DEFINES: dict[Target, Mapping[str, int | None]] = {}
# A function-like macro call the evaluator cannot expand (`_CCCL_CUDA_COMPILER(NVHPC)`) becomes
# one unknown identifier, so `unknown || __CUDA_ARCH__ >= 900` still decides for sm_90.
_CALL = re.compile(r"\b(?!defined\b)[A-Za-z_]\w*\s*\([^()]*\)")


def _evaluate(guard: str, defines: Mapping[str, int | None]) -> bool | None:
    if "(" in guard:
        guard = _CALL.sub("__ptxlint_unknown__", guard)
    return evaluate(guard, defines)


def compiled_for(guards: tuple[str, ...], target: Target, unknown_holds: bool = True) -> bool:
    """Whether a statement under ``guards`` is certainly compiled for ``target``, as far as
    the architecture is concerned. With ``unknown_holds=False`` an undecided guard of any kind
    counts as excluding the target (a macro from another header, such as cuda_fp8.h's
    ``__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__``, may well test the arch)."""
    defines = _DEFINES.get(target)
    if defines is None:
        defines = _DEFINES[target] = _defines(target)
    for guard in guards:
        value = _evaluate(guard, defines)
        if value is True:
            continue
        if value is None and unknown_holds and not _ARCH_MACRO.search(guard):
            continue
        return False
    return True


def lowest_target(guards: tuple[str, ...]) -> Target | None:
    """The lowest architecture the guards compile the statement for, when they bound it from
    below (the oldest architecture is excluded); ``None`` when they set no lower bound or
    exclude every architecture."""
    if not any(_ARCH_MACRO.search(g) for g in guards):
        return None
    if compiled_for(guards, Target(ARCHES[0])):
        return None  # no lower bound (no guard, or only an upper one such as `< 900`)
    for sm in ARCHES:
        for suffix in ("", "a"):
            if suffix and sm < 90:
                continue
            if compiled_for(guards, Target(sm, suffix)):
                return Target(sm, suffix)
    return None


# ----------------------------------------------------------------------------- NV_IF_TARGET

_NV_CALL = re.compile(r"\b(NV_IF_TARGET|NV_IF_ELSE_TARGET|NV_DISPATCH_TARGET)\s*\(")
_NV_COND = re.compile(r"^\s*(NV_PROVIDES_SM|NV_IS_EXACTLY_SM|NV_HAS_FEATURE_SM)_(\d+)([af]?)\s*$")
_NV_SIMPLE = {
    "NV_IS_DEVICE": "defined(__CUDA_ARCH__)",
    "NV_IS_HOST": "!defined(__CUDA_ARCH__)",
    "NV_ANY_TARGET": "1",
    "NV_NO_TARGET": "0",
}


def _nv_condition(text: str) -> str:
    text = text.strip()
    if text in _NV_SIMPLE:
        return _NV_SIMPLE[text]
    m = _NV_COND.match(text)
    if m is None:
        return "__CUDA_ARCH__ && __ptxlint_unknown_target__"  # undecidable: never "compiled"
    kind, number, suffix = m.groups()
    if kind == "NV_PROVIDES_SM":
        return f"__CUDA_ARCH__ >= {number}0"
    if kind == "NV_IS_EXACTLY_SM":
        return f"__CUDA_ARCH__ == {number}0"
    return f"defined(__CUDA_ARCH_FEAT_SM{number}_ALL)"


def _nv_guards(text: str, start: int, end: int) -> tuple[str, ...]:
    """Conditions of the ``NV_IF_*TARGET`` calls whose arguments hold ``[start, end)``."""
    guards: list[str] = []
    window = max(0, start - 20000)
    for m in _NV_CALL.finditer(text, window, start):
        args = _split_call(text, m.end(), end)
        if args is None:
            continue
        for i, (a, b) in enumerate(args):
            if a <= start and end <= b:
                name = m.group(1)
                if i == 0:
                    break
                if name == "NV_DISPATCH_TARGET":
                    if i % 2 == 1:
                        guards.append(_nv_condition(text[args[i - 1][0] : args[i - 1][1]]))
                    break
                condition = _nv_condition(text[args[0][0] : args[0][1]])
                guards.append(condition if i == 1 else f"!({condition})")
                break
    return tuple(guards)


def _split_call(text: str, pos: int, must_pass: int) -> list[tuple[int, int]] | None:
    """Top-level argument spans of a call whose ``(`` ends at ``pos``; ``None`` when the call
    closes before ``must_pass``."""
    depth = 0
    args: list[tuple[int, int]] = []
    begin = pos
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _skip_literal(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if i < must_pass:
                    return None
                args.append((begin, i))
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append((begin, i))
            begin = i + 1
        i += 1
    return None


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    n = len(text)
    while i < n and text[i] != quote and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return i + 1


# ----------------------------------------------------------------------------- #if blocks

_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_COMMENT = re.compile(r"/\*.*?\*/|//.*$")
# An #if block longer than this is a file-wide "minimum target for this header" guard, not a
# statement guard: the functions under it only reach ptxas when someone calls them.
LOCAL_GUARD_LINES = 300


@dataclass(frozen=True)
class _Branch:
    start: int  # offset of the branch's first line
    end: int  # offset of the next #elif/#else/#endif
    block_lines: int  # lines from #if to #endif
    conditions: tuple[str, ...]  # what holds inside the branch


def _branches(text: str) -> list[_Branch]:
    """Every branch of every #if block, read line by line (continuations joined)."""
    out: list[_Branch] = []
    stack: list[_Block] = []
    lines = text.split("\n")
    offset = 0
    i = 0
    while i < len(lines):
        start = offset
        line_no = i
        line = lines[i]
        offset += len(line) + 1
        i += 1
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i]
            offset += len(lines[i]) + 1
            i += 1
        m = _DIRECTIVE.match(line) if "#" in line else None
        if m is None:
            continue
        kind, rest = m.group(1), _COMMENT.sub(" ", m.group(2)).strip()
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if":
                cond = rest
            else:
                cond = f"defined({rest})" if kind == "ifdef" else f"!defined({rest})"
            stack.append(_Block(line_no, [cond], [(offset, -1, (cond,))]))
            continue
        if not stack:
            continue
        block = stack[-1]
        b_start, _, b_conds = block.branches[-1]
        block.branches[-1] = (b_start, start, b_conds)
        if kind in ("elif", "else"):
            negated = tuple(f"!({c})" for c in block.previous)
            block.branches.append((offset, -1, negated + ((rest,) if kind == "elif" else ())))
            if kind == "elif":
                block.previous.append(rest)
        else:  # endif
            stack.pop()
            size = line_no - block.if_line
            out.extend(_Branch(b0, b1, size, c) for b0, b1, c in block.branches)
    return out


@dataclass
class _Block:
    if_line: int
    previous: list[str]  # conditions of the #if and #elifs so far
    branches: list[tuple[int, int, tuple[str, ...]]]  # (start, end or -1, conditions)


_CACHE: dict[int, tuple[str, list[_Branch]]] = {}


def _branches_cached(text: str) -> list[_Branch]:
    key = id(text)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is text:
        return hit[1]
    branches = _branches(text)
    _CACHE.clear()  # one file at a time
    _CACHE[key] = (text, branches)
    return branches


def statement_guards(statement: AsmStatement, local_only: bool = False) -> tuple[str, ...]:
    """The conditions of the #if branches around the statement (outermost first) plus those
    of enclosing ``NV_IF_*TARGET`` calls. ``local_only`` drops #if blocks longer than
    :data:`LOCAL_GUARD_LINES` lines (file-wide header guards)."""
    text = statement.source.text
    at = statement.span.start
    guards: list[str] = []
    if "#" in text:
        for branch in _branches_cached(text):
            if branch.start <= at < branch.end:
                if local_only and branch.block_lines > LOCAL_GUARD_LINES:
                    continue
                guards.extend(branch.conditions)
    extra: tuple[str, ...] = ()
    if "NV_" in text:
        extra = _nv_guards(text, at, statement.span.end)
    return tuple(guards) + extra
