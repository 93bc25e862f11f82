"""Probe 3: the real file, compiled whole (nvcc -ptx with its own flags, then ptxas), and its
errors mapped back to the asm statements they are about.

For claims a per-statement probe cannot judge: a non-constant "n" expression (the .cu probe
stands a literal in for it), an operand of a user-defined type (the probe cannot declare it).

* nvcc's front end says ``file(line): error: ...``; a ``#line 1 "path"`` at the top of the
  scratch copy makes that the user's path, and the asm statement whose lines cover ``line`` is
  the one it is about.
* ptxas names a line of the generated PTX. nvcc writes every inlined asm between
  ``// begin inline asm`` and ``// end inline asm``, its template spliced in verbatim, so the
  block around the line is matched against each statement's template, whitespace ignored and
  every ``%N`` a wildcard. Identical templates stay ambiguous: all are candidates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ptxlint.model import HOLE, AsmStatement, Span
from ptxlint.value_class import value_class
from ptxlint.verify import scratch
from ptxlint.verify.asm_blocks import Block, asm_blocks, block_at
from ptxlint.verify.diagnostics import Diagnostic, parse
from ptxlint.verify.runner import Compile, Outcome
from ptxlint.verify.scratch import check_flags

OUTPUT = "whole.ptx"
_OPERAND = r"[^,;\[\]{}]+?"  # a register, an immediate or an address piece nvcc spliced in
_SPACE = re.compile(r"\s+")


def compile_job(nvcc: str, ptxas: str | None, ptxas_arch: str | None, path: str, text: str,
                arch: str, flags: Sequence[str]) -> Compile:
    """nvcc -ptx over a scratch copy of ``text`` (found includes: its folder first), then
    ptxas over that PTX. The copy is in the job, so the cache keys on the file's content.
    UnsafeArgument when a flag holds shell syntax."""
    check_flags(flags)
    name = scratch.SOURCE_NAME  # never the user's: nvcc puts it in sh -c (headers: as CUDA)
    include, links = scratch.folder_args(path)
    copy = f'#line 1 "{scratch.line_name(path)}"\n{text}'
    files, shadow = scratch.sources(path, copy, flags)
    # -rdc keeps every external __device__ function in the PTX, called or not
    args = (nvcc, f"-arch={arch}", "-ptx", "-rdc=true", *shadow, *include, *flags,
            "-o", f"{{dir}}/{OUTPUT}", f"{{dir}}/{name}")
    then: tuple[tuple[str, ...], ...] = ()
    if ptxas and ptxas_arch:
        then = ((ptxas, f"-arch={ptxas_arch}", "-c", "-o", "{dir}/whole.cubin",
                 f"{{dir}}/{OUTPUT}"),)
    return Compile(args, files, (OUTPUT,), then, links)


# --------------------------------------------------------------------------- statements in the PTX


def _literal(text: str) -> str:
    parts = _SPACE.sub("", text).split(HOLE)
    return ".*?".join(re.escape(p) for p in parts)  # a macro piece: anything


def template_pattern(statement: AsmStatement) -> re.Pattern[str]:
    """What nvcc writes for this statement, whitespace removed: operands are wildcards."""
    text = statement.template.text
    if not statement.extended:
        return re.compile(_literal(text), re.S)  # basic asm: verbatim, no % processing
    out: list[str] = []
    pos = 0
    # every % token in one text-order pass (the parser's order), not the operand index
    # (``template_refs``): that splits the tokens by kind and holds no %=, which is matched too
    for token in statement.ptx.percents:
        out.append(_literal(text[pos:token.start]))
        if token.kind == "escape":
            out.append(re.escape("%"))
        elif token.kind == "unique":
            out.append(r"\d+")
        elif token.kind in ("bare", "trailing"):
            out.append(_literal(text[token.start:token.end]))
        else:
            out.append(_OPERAND)
        pos = token.end
    out.append(_literal(text[pos:]))
    return re.compile("".join(out), re.S)


class Matcher:
    """Blocks of one PTX output against one file's statements (patterns built on demand)."""

    def __init__(self, statements: Sequence[AsmStatement], ptx: str) -> None:
        self.statements = list(statements)
        self.blocks = asm_blocks(ptx)
        self._patterns: dict[int, re.Pattern[str]] = {}

    def _pattern(self, statement: AsmStatement) -> re.Pattern[str]:
        key = id(statement)
        if key not in self._patterns:
            self._patterns[key] = template_pattern(statement)
        return self._patterns[key]

    def matches(self, statement: AsmStatement, block: Block) -> bool:
        return self._pattern(statement).fullmatch(_SPACE.sub("", block.text)) is not None

    def statements_of(self, block: Block) -> tuple[AsmStatement, ...]:
        return tuple(s for s in self.statements if self.matches(s, block))

    def present(self, statement: AsmStatement) -> bool:
        """Whether nvcc emitted this statement (it may be an uninstantiated template, a branch
        not compiled for this target, or an unused internal function)."""
        return any(self.matches(statement, b) for b in self.blocks)


# --------------------------------------------------------------------------- mapping errors


@value_class(slots=False)
class Located:
    """An error of a whole-file compile with the asm statements it may be about."""

    diagnostic: Diagnostic
    statements: tuple[AsmStatement, ...]  # candidates; () when on no asm statement of the file
    span: Span | None  # the characters it points at in the first candidate, where known
    where: str  # "line 12" (source) or "PTX line 40"


@value_class(slots=False)
class Report:
    """The result of compiling a file whole: whether it compiled, its errors located in the file's
    statements, and why it failed when no error names a line."""

    compiled: bool  # nvcc and ptxas both succeeded
    errors: tuple[Located, ...]
    failure: str  # when it failed with no error a line could be read from: the first words
    matcher: Matcher


def _covering(statements: Sequence[AsmStatement], line: int) -> tuple[AsmStatement, ...]:
    return tuple(s for s in statements
                 if s.line <= line <= s.source.line_col(s.span.end).line)


def _template_span(statement: AsmStatement, block: Block, line: int) -> Span:
    """The template line that PTX ``line`` of ``block`` is (nvcc splices templates verbatim)."""
    index = line - block.first
    rows = statement.template.text.split("\n")
    if not 0 <= index < len(rows) or HOLE in statement.template.text:
        return statement.span
    offset = sum(len(r) + 1 for r in rows[:index])
    offset += len(rows[index]) - len(rows[index].lstrip())
    return statement.template.source_span(offset, offset + 1)


def read(outcome: Outcome, path: str, statements: Sequence[AsmStatement]) -> Report:
    matcher = Matcher(statements, outcome.output(OUTPUT))
    located: list[Located] = []
    for diag in parse(outcome.messages):
        if not diag.is_error:
            continue
        if diag.tool == "nvcc":
            mine = scratch.same_source(diag.file, path)
            found = _covering(statements, diag.line) if mine else ()
            span = found[0].span if found else None
            shown = os.path.basename(path if mine else diag.file)
            where = f"{shown}:{diag.line}" if diag.line else "nvcc"
            located.append(Located(diag, found, span, where))
            continue
        block = block_at(matcher.blocks, diag.line) if diag.line else None
        found = matcher.statements_of(block) if block is not None else ()
        span = _template_span(found[0], block, diag.line) if found and block else None
        located.append(Located(diag, found, span,
                               f"PTX line {diag.line}" if diag.line else "ptxas"))
    failure = ""
    if outcome.returncode != 0 and not located:
        failure = outcome.messages.splitlines()[0] if outcome.messages else "nvcc failed"
    return Report(outcome.returncode == 0, tuple(located), failure, matcher)
