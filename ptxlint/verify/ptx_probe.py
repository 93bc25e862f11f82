"""Probe 1: a PTX module around one statement (or one split scope), assembled by ptxas alone.

The template is substituted as nvcc would (``%%`` -> ``%``, ``%N`` -> a register of the class
the constraint letter names, ``%=`` -> a number unique per copy) and placed twice in one kernel,
as inlining into two call sites or unrolling would: a ``.reg`` or label outside ``{ }`` then
shows as ptxas's "Duplicate definition". No host compiler, no CUDA headers: tens of ms each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import HOLE, AsmStatement, Operand, Span
from ptxlint.value_class import value_class

# Register classes nvcc 13 declares for each constraint letter (seen in its -ptx output).
REGISTER_CLASS = {"h": (".b16", "rs"), "r": (".b32", "r"), "l": (".b64", "rd"),
                  "f": (".f32", "f"), "d": (".f64", "fd"), "q": (".b128", "rq")}
_INT_LITERAL = re.compile(r"\s*\(?\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?\s*")
PROBE_FILE = "probe.ptx"


class NotProbeable(Exception):
    """The statement cannot be rebuilt faithfully (a macro hole, a ``C`` splice, ...)."""


@value_class(slots=False)
class PtxProbe:
    """A PTX module that puts statements' templates before ptxas, and which statement and template
    offset each of its lines came from."""

    text: str
    # line_origin[n] = (statement index in the group, template offset) for PTX line n (1-based);
    # None for lines the probe wrote itself
    line_origin: tuple[tuple[int, int] | None, ...]
    statements: tuple[AsmStatement, ...]
    # PTX lines (1-based) holding an "n" value the caller chose (``build``'s ``values``)
    chosen_lines: frozenset[int] = frozenset()

    def source_span(self, line: int) -> tuple[AsmStatement, Span] | None:
        """Where PTX ``line`` (1-based, as ptxas reports it) came from in the source."""
        if not 1 <= line < len(self.line_origin):
            return None
        origin = self.line_origin[line]
        if origin is None:
            return None
        which, offset = origin
        statement = self.statements[which]
        return statement, statement.template.source_span(offset, offset + 1)


def _letter(operand: Operand, statement: AsmStatement | None = None) -> str:
    if operand.constraint.opaque:
        # C++: a macro; Python (Triton's constraints=f"={c.value},l"): a string built at run time
        source = ("a string built at run time" if statement is not None
                  and statement.syntax == "llvm" else "a macro")
        raise NotProbeable(f"operand {operand.index}'s constraint comes from {source}")
    letters = operand.constraint.letters
    return letters[:1]


def operand_text(operand: Operand, statement: AsmStatement | None = None,
                 values: Mapping[int, int] | None = None) -> str:
    """``values``: what each "n" operand (by index) stands for in this configuration."""
    letter = _letter(operand, statement)
    if letter.isdigit() and statement is not None and statement.syntax == "llvm":
        tied = int(operand.constraint.letters)
        if tied < len(statement.operands) and statement.operands[tied].role == "output":
            return operand_text(statement.operands[tied])  # LLVM's "0": the output's register
        raise NotProbeable(f"operand {operand.index} is tied to {tied}, not an output")
    if letter in REGISTER_CLASS:
        return f"%pl{REGISTER_CLASS[letter][1]}{operand.index}"
    if letter == "n":
        if values and operand.index in values:
            return str(values[operand.index])
        match = _INT_LITERAL.fullmatch(operand.expression)
        if match is None:
            # a value only the caller can choose (verify.immediates): never a silent stand-in
            raise NotProbeable(f"operand {operand.index} ({operand.expression}) has no known "
                               "value")
        return str(int(match[1], 0))
    raise NotProbeable(f"operand {operand.index} has constraint {operand.constraint.text!r}")


def substitute(statement: AsmStatement, copy: int,
               values: Mapping[int, int] | None = None) -> list[tuple[str, int]]:
    """The template as ptxas will see it: (text, template offset it starts at) pieces;
    ``values`` gives the "n" operands that are not literals."""
    text = statement.template.text
    if HOLE in text:
        raise NotProbeable("part of the template is a macro whose text is unknown")
    if statement.syntax == "llvm":
        return _substitute_llvm(statement, copy, values)
    if not statement.extended:
        return [(text, 0)]  # basic asm reaches ptxas verbatim: no % processing
    by_index = {o.index: o for o in statement.operands}
    by_name = {o.symbolic_name: o for o in statement.operands if o.symbolic_name}
    pieces: list[tuple[str, int]] = []
    pos = 0
    # every % token in one text-order pass (the parser's order), not the operand index
    # (``template_refs``): that splits the tokens by kind and holds no %=, which is rewritten too
    for token in statement.ptx.percents:
        pieces.append((text[pos:token.start], pos))
        if token.kind == "escape":
            new = "%"
        elif token.kind == "unique":
            new = str(copy)
        elif token.kind == "ref" and not token.modifier and token.index in by_index:
            new = operand_text(by_index[token.index], statement, values)
        elif token.kind == "named" and token.name in by_name:
            new = operand_text(by_name[token.name], None, values)
        elif token.kind in ("bare", "trailing"):
            new = text[token.start:token.end]  # nvcc 13 passes these through
        else:
            raise NotProbeable(f"{text[token.start:token.end]!r} is not an operand nvcc accepts")
        pieces.append((new, token.start))
        pos = token.end
    pieces.append((text[pos:], pos))
    return pieces


def _substitute_llvm(statement: AsmStatement, copy: int,
                     values: Mapping[int, int] | None = None) -> list[tuple[str, int]]:
    """LLVM's substitution (Triton, CuTe DSL, llvmlite): ``$N``/``${N}`` -> a register of the
    letter's class (comments included, as LLVM does), ``${:uid}`` -> a number unique per
    copy, ``$$`` -> ``$``; ``%`` is not special, so ``%%laneid`` reaches ptxas as written."""
    if statement.opaque_sections:
        raise NotProbeable("the constraint string is not known")
    text = statement.template.text
    by_index = {o.index: o for o in statement.operands}
    pieces: list[tuple[str, int]] = []
    pos = 0
    # every token in one text-order pass: ${:uid} and $$ are rewritten too, and the operand
    # index (``template_refs``) holds neither
    for token in statement.ptx.percents:
        if token.kind in ("escape", "bare", "trailing"):
            continue  # `%` tokens: verbatim
        pieces.append((text[pos : token.start], pos))
        if token.kind == "unique":
            new = str(copy)
        elif token.kind == "dollar":
            new = "$"
        elif token.kind == "ref" and token.index in by_index:
            new = operand_text(by_index[token.index], statement, values)
        else:
            raise NotProbeable(f"{text[token.start : token.end]!r} is not an operand LLVM accepts")
        pieces.append((new, token.start))
        pos = token.end
    pieces.append((text[pos:], pos))
    return pieces


def declarations(statements: Sequence[AsmStatement]) -> list[str]:
    lines = []
    for statement in statements:
        for operand in statement.operands:
            letter = _letter(operand, statement)
            if letter in REGISTER_CLASS:
                kind, prefix = REGISTER_CLASS[letter]
                lines.append(f"\t.reg {kind} %pl{prefix}{operand.index};")
    return sorted(set(lines))


def build(statements: Sequence[AsmStatement], arch: str, isa: str, copies: int = 2,
          values: Sequence[Mapping[int, int]] = ()) -> PtxProbe:
    """The module for one statement or one split-scope group, each placed ``copies`` times;
    ``values[i]`` gives statement i's non-literal "n" operands.

    A statement outside any function (file-scope ``asm(".global ...")``) is a module-level
    directive: it goes before the kernel, once, as nvcc emits it. A statement with
    instructions is never one: outside a function where it is written (a ``#define`` body, a
    macro expanded at file scope into functions), it is inside one where it is compiled, so it
    goes in the kernel (flashinfer's PROFILER_INIT ``mov.u32 %0, %smid;``, CUB's
    ``_CUB_LOAD_ALL`` loads: before the kernel, syntax errors no compile of the code gives)."""
    module_scope = all(s.context.function is None and not s.ptx.instructions
                       for s in statements)
    lines: list[str] = [""]  # 1-based
    origin: list[tuple[int, int] | None] = [None]

    def plain(*texts: str) -> None:
        for line in texts:
            lines.append(line)
            origin.append(None)

    chosen: set[int] = set()

    def place(copy: int) -> None:
        for which, statement in enumerate(statements):
            chars: list[str] = []
            where: list[int] = []
            marked: list[bool] = []
            given = values[which] if which < len(values) else None
            picked = _chosen_offsets(statement, given)
            for piece, offset in substitute(statement, copy, given):
                chars.extend(piece)
                # literal text maps char by char; a substitution maps to the token it replaced
                literal = piece == statement.template.text[offset:offset + len(piece)]
                where.extend(offset + k if literal else offset for k in range(len(piece)))
                marked.extend([not literal and offset in picked] * len(piece))
            text = "".join(chars)
            pos = 0
            for line in text.split("\n"):
                stripped = len(line) - len(line.lstrip())
                at = pos + stripped if stripped < len(line) else pos
                lines.append("\t" + line)
                origin.append((which, where[at] if at < len(where) else 0))
                if any(marked[pos:pos + len(line)]):
                    chosen.add(len(lines) - 1)
                pos += len(line) + 1

    plain(f".version {isa}", f".target {arch}", ".address_size 64", "")
    if module_scope:
        place(0)
    plain(".visible .entry ptxlint_probe()", "{", *declarations(statements))
    if not module_scope:
        for copy in range(copies):
            place(copy)
    plain("\tret;", "}", "")
    return PtxProbe("\n".join(lines[1:]), tuple(origin), tuple(statements), frozenset(chosen))


def _chosen_offsets(statement: AsmStatement, given: Mapping[int, int] | None) -> set[int]:
    """Template offsets of the operand references that ``given`` supplies a value for."""
    if not given:
        return set()
    # the template's operand index answers it: the %N tokens of each given operand (modifiers
    # included) and the %[name] tokens, without a walk over every % token
    refs = refs_of(statement)
    out = {token.start for index in given for token in refs.tokens_of(index)}
    if refs.named:
        by_name = {o.symbolic_name: o.index for o in statement.operands if o.symbolic_name}
        out.update(t.start for t in refs.named if by_name.get(t.name) in given)
    return out


def groups(statements: Sequence[AsmStatement]) -> list[list[AsmStatement]]:
    """Statements in probe units: one each, except that a scope a volatile statement opens and
    a later volatile statement of the same function closes is one unit (CCCL does this; nvcc
    keeps volatile asm in order, so ptxas sees the scope whole)."""
    out: list[list[AsmStatement]] = []
    i = 0
    while i < len(statements):
        first = statements[i]
        group = [first]
        depth = _net_depth(first)
        j = i + 1
        while depth > 0 and first.is_volatile and j < len(statements):
            nxt = statements[j]
            if (nxt.context.function != first.context.function or not nxt.is_volatile
                    or nxt.source.path != first.source.path):
                break
            group.append(nxt)
            depth += _net_depth(nxt)
            j += 1
        if depth != 0 and len(group) > 1:
            group = [first]  # never closed: probe it alone, unbalanced as it is
        out.append(group)
        i += len(group)
    return out


def _net_depth(statement: AsmStatement) -> int:
    return sum(1 if b.char == "{" else -1 for b in statement.ptx.braces)
