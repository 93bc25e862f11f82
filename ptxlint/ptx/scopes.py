"""Questions about a template's scopes that PTX201/PTX202 share: where it lives, whether its brace
depths can be trusted, which names its instructions use."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE, AsmStatement, PtxDirective, PtxLabel, PtxOperand, PtxTemplate
from ptxlint.ptx.instructions import family
from ptxlint.ptx.operand_roles import destinations
from ptxlint.ptx.special_registers import VECTOR_SPECIAL_REGISTERS
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = [
    "FORWARD", "SCOPED_DECLARATIONS", "Unscoped", "bare_special_element", "braces_known",
    "declaration_note",
    "declared_names",
    "declaration_blocks",
    "declares",
    "is_file_scope",
    "undeclared_registers", "undeclared_sources", "unscoped", "used_names", "uses_declared",
    "written_compiler_registers",
]

# Declarations that live in the enclosing function's scope once the template is spliced in.
# ptxas 13.0 answers a second copy of each with "Duplicate definition of variable" (checked for
# .reg, .local, .shared and .param in tests/test_template_rules_oracle.py).
SCOPED_DECLARATIONS = frozenset({".reg", ".local", ".shared", ".param"})


class Unscoped(NamedTuple):
    """What a template defines at brace depth 0, which a second emitted copy of it defines
    again (the names spelled with ``%=`` or ``${:uid}``, unique per copy, left out): one defect,
    the missing ``{ }``, however many names it hits."""

    declarations: tuple[PtxDirective, ...]  # each with at least one such name
    labels: tuple[PtxLabel, ...]
    # every such name is used by the template itself: braces hide it from nothing (False in a
    # template with a hole, which may use it or hold a brace the braces would unbalance)
    all_used: bool
    # a declaration whose name is a hole (``unread_names``), with the hole as its source spells it
    unread: tuple[tuple[PtxDirective, str], ...] = ()

    def names(self, directive: PtxDirective) -> tuple[str, ...]:
        for declared, shown in self.unread:
            if declared is directive:
                return (shown,)
        return tuple(n for n in directive.declared if not _per_copy(n))


def is_file_scope(statement: AsmStatement) -> bool:
    """Top-level asm is emitted once into the module: its declarations are meant to be global."""
    return statement.context.function is None and statement.context.macro is None


def braces_known(statement: AsmStatement) -> bool:
    """Whether brace depths can be trusted: no macro piece (it could hold a brace) and balanced."""
    if statement.template.has_holes:
        return False
    depth = 0
    for brace in statement.ptx.braces:
        depth += 1 if brace.char == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _operand_words(operand: PtxOperand) -> Iterator[str]:
    if operand.parts:
        for part in operand.parts:
            yield from _operand_words(part)
    else:
        yield operand.text.lstrip("!-")


def used_names(ptx: PtxTemplate) -> set[str]:
    """Every register, label and other word the instructions of ``ptx`` name as an operand."""
    names: set[str] = set()
    for instruction in ptx.instructions:
        if instruction.predicate is not None:
            names.update(_operand_words(instruction.predicate.register))
        for operand in instruction.operands:
            names.update(_operand_words(operand))
    return names


def uses_declared(declared: str, names: set[str]) -> bool:
    """Whether ``declared`` (``t`` or a parameterised ``r<4>``) is among ``names``."""
    if "<" not in declared:
        return declared in names
    return any(_number_of(declared, name) is not None for name in names)


def _per_copy(name: str) -> bool:
    """A name nvcc (``%=``) or LLVM (``${:uid}``) makes unique per emitted copy."""
    return "%=" in name or "${:uid}" in name


def _known_until(statement: AsmStatement) -> int | None:
    """The template offset before which brace depths can be trusted: its end where it has no
    hole and its braces balance (``braces_known``), its first hole where the braces before it
    never close more than they open (a hole may hold any text, a brace too, so what follows it
    is unknown, but what precedes it stands at the depth its own braces give); None where no
    depth is known (a ``}`` closing a scope an earlier statement opened)."""
    text = statement.template.text
    first = text.find(HOLE)
    if first < 0:
        return len(text) if braces_known(statement) else None
    depth = 0
    for brace in statement.ptx.braces:
        if brace.offset >= first:
            break
        depth += 1 if brace.char == "{" else -1
        if depth < 0:
            return None
    return first


# The spelling of a name unique per emitted copy, in the text of a Python module that builds
# one (``${:uid}``, ``${{:uid}}`` inside an f-string).
_UID = ":uid}"

# The LLVM-syntax APIs whose second copy of a statement is made from its text once built: LLVM
# inlining the function around it (llvmlite, as Numba lowers a device function once and NVVM
# inlines it into each caller; Julia), Triton's lowering placing it once per `pack` elements.
# A CuTe DSL helper is traced again at each call, its template built anew (CuTe DSL's
# `declare_ptx_idesc(op, var_name=...)`, called once per name): not these.
_COPIED_AS_BUILT = frozenset({"llvmlite", "julia", "triton", "helion", "pallas", "torch"})


def unread_names(statement: AsmStatement, directive: PtxDirective) -> str | None:
    """Where ``directive`` declares one name and the whole name is a hole (``.reg .pred
    {temp_reg};`` built at run time by a Python module, Numba's fp16 comparisons): the hole as
    the source spells it. A name built at run time is the same in each copy the compiler makes
    of the built statement (``_COPIED_AS_BUILT``) unless the template's own syntax makes it
    unique per copy, which for LLVM inline asm is the text ``${:uid}``: a module that never
    spells it builds no such name. A C++ macro whose text ptxlint cannot read may expand to
    ``%=`` (unique per copy), so a C++ hole says nothing; nor does a hole beside other names,
    or inside one (``p{i}``), nor one in an API that builds each copy anew (CuTe DSL)."""
    call = statement.llvm
    if directive.declared or call is None or call.api not in _COPIED_AS_BUILT \
            or _UID in statement.source.text:
        return None
    text = directive.text
    hole = text.find(HOLE)
    if hole < 0 or text.find(HOLE, hole + 1) >= 0:
        return None
    prefix = _DECL_PREFIX().match(text)
    if prefix is None or prefix.end() != hole or text[hole + 1:].strip() not in (";", ""):
        return None
    span = statement.template.source_span(directive.start + hole, directive.start + hole + 1)
    return statement.source.text[span.start:span.end]


# what precedes a declaration's names: its state space, type and vector words
_DECL_PREFIX = on_first_use(r"\.[a-z]+(?:\s+\.[\w:]+)*\s+")


def unscoped(statement: AsmStatement) -> Unscoped | None:
    """The declarations and labels at brace depth 0 of a function's template whose depths are
    known; None where there are none (most templates), at file scope (emitted once, meant to be
    global) or where the depths cannot be trusted. In a template with a hole, those that end
    before it: what they declare is spelled out, at the depth the braces before them give,
    whatever the hole holds; and a declaration whose one name is the hole where that name is
    the same in each copy (``unread_names``)."""
    ptx = statement.ptx
    if not ptx.directives and not ptx.labels:
        return None
    if is_file_scope(statement):
        return None
    known = _known_until(statement)
    if known is None:
        return None
    holes = known < len(statement.template.text)
    declarations: list[PtxDirective] = []
    unread: list[tuple[PtxDirective, str]] = []
    for d in ptx.directives:
        if d.depth != 0 or d.name not in SCOPED_DECLARATIONS or d.start >= known:
            continue
        if d.end <= known and any(not _per_copy(n) for n in d.declared):
            declarations.append(d)
        elif holes:
            shown = unread_names(statement, d)
            if shown is not None:
                declarations.append(d)
                unread.append((d, shown))
    labels = tuple(
        label for label in ptx.labels
        if label.depth == 0 and label.end <= known and not _per_copy(label.name)
    )
    if not declarations and not labels:
        return None
    used = used_names(ptx)
    all_used = not holes and all(
        uses_declared(n, used) for d in declarations for n in d.declared
    ) and all(label.name in used for label in labels)
    return Unscoped(tuple(declarations), labels, all_used, tuple(unread))


# Instructions that take a symbol (a variable's or a function's name) as a source outside an
# address: `mov.u64 d, var`, `cvta.global.u64 d, var` (ptxas 13.0: any other instruction says
# "Argument 1 of instruction 'add': must be register"); and those whose operands name
# functions, branch tables or texture handles.
_TAKE_SYMBOLS = frozenset({"mov", "cvta", "call", "brx", "istypep", "prototype"})


def declared_names(ptx: PtxTemplate) -> frozenset[str]:
    """Every name a directive of ``ptx`` declares (a parameterised one as written, ``r<4>``,
    which ``declares`` reads as ``r0`` to ``r3``), and its labels."""
    names = {n for d in ptx.directives for n in d.declared}
    names.update(label.name for label in ptx.labels)
    return frozenset(names)


class _Scope(NamedTuple):
    """Where one declared name holds in its template: from its declaration (``at``) to the end
    of the braces around it (the whole template at depth 0, or where the braces are not known).
    A use before the declaration names nothing yet: ptxas 13.0 reads it as a label declared
    further on ("Label expected for forward reference of 't'", after "Arguments mismatch"),
    while the same use in inner braces after an outer declaration of the name reads the outer
    one. A label holds in the whole template (a branch may jump forward): ``at`` is -1."""

    name: str  # as declared: `t`, or `r<4>`
    start: int
    end: int
    at: int


def _scopes(ptx: PtxTemplate) -> tuple[_Scope, ...]:
    blocks = _blocks(ptx)
    found: list[_Scope] = []
    for directive in ptx.directives:
        start, end = blocks.get(directive.start, (-1, _WHOLE)) if blocks is not None \
            else (-1, _WHOLE)
        found.extend(_Scope(name, start, end, directive.start) for name in directive.declared)
    found.extend(_Scope(label.name, -1, _WHOLE, -1) for label in ptx.labels)
    return tuple(found)


_WHOLE = 1 << 62


def _blocks(ptx: PtxTemplate) -> dict[int, tuple[int, int]] | None:
    """Per directive inside braces, the offsets of the braces that open and close its block;
    None where the braces do not balance (a macro piece may hold one)."""
    blocks: dict[int, tuple[int, int]] = {}
    open_at: list[tuple[int, list[int]]] = []  # per open block: its brace, its directives
    events = sorted([(b.offset, b.char) for b in ptx.braces]
                    + [(d.start, "") for d in ptx.directives])
    for offset, char in events:
        if char == "{":
            open_at.append((offset, []))
        elif char == "}":
            if not open_at:
                return None
            start, inside = open_at.pop()
            for directive in inside:
                blocks[directive] = (start, offset)
        elif open_at:
            open_at[-1][1].append(offset)
    return None if open_at else blocks


def declaration_blocks(ptx: PtxTemplate) -> dict[int, tuple[int, int]] | None:
    """Per directive inside braces (by its start), the offsets of the braces that open and
    close its block; a directive at depth 0 is not in it. None where the braces do not balance
    (a macro piece may hold one)."""
    return _blocks(ptx)


def declares(declared: frozenset[str], name: str) -> bool:
    """Whether ``declared`` (``declared_names``) holds ``name``: itself, or one of a
    parameterised declaration's names (``r3`` of ``r<4>``, which declares ``r0`` to ``r3``)."""
    if name in declared:
        return True
    return any(_numbered(entry, name) for entry in declared if "<" in entry)


def _numbered(declared: str, name: str) -> bool:
    """``name`` is one of the names ``declared`` (``r<4>``) stands for."""
    number = _number_of(declared, name)
    return number is not None and number[0] < number[1]


def _number_of(declared: str, name: str) -> tuple[int, int] | None:
    """(``name``'s number, the count) where ``name`` is ``declared``'s base and a number
    (``r7`` of ``r<4>``: (7, 4); ptxas takes ``r03`` for ``r3``), else None."""
    base, _, count = declared.partition("<")
    count = count.rstrip(">")
    number = name[len(base):]
    if not count.isdigit() or not name.startswith(base) or not number.isdigit():
        return None
    return int(number), int(count)


def _declared_at(scopes: tuple[_Scope, ...], name: str, position: int) -> bool:
    return any(scope.start < position < scope.end and scope.at < position
               and (scope.name == name or ("<" in scope.name and _numbered(scope.name, name)))
               for scope in scopes)


# declaration_note's answer for a use before the declaration that would hold there
FORWARD = "it is declared further on, and a name is declared from its .reg line onwards"


def declaration_note(ptx: PtxTemplate, name: str, position: int) -> str | None:
    """Why a name the template declares somewhere is not declared where it is used (template
    offset ``position``): it is declared further on in braces that enclose the use
    (``FORWARD``), the braces around its declaration do not enclose the use, or it is past a
    parameterised declaration's last number."""
    if any(scope.at > position and scope.start < position < scope.end
           and (scope.name == name or ("<" in scope.name and _numbered(scope.name, name)))
           for scope in _scopes(ptx)):
        return FORWARD
    for directive in ptx.directives:
        for declared in directive.declared:
            if declared == name or ("<" in declared and _numbered(declared, name)):
                return "its declaration is inside braces that do not enclose this use"
    for directive in ptx.directives:
        for declared in directive.declared:
            number = _number_of(declared, name) if "<" in declared else None
            if number is not None:
                base = declared.partition("<")[0]
                return f"'{declared}' declares {base}0 to {base}{number[1] - 1}"
    return None


def undeclared_registers(ptx: PtxTemplate) -> tuple[PtxOperand, ...]:
    """The words of ``ptx`` where PTX takes a register and that name nothing it declares
    (``_undeclared``), kept for the next statement that spells it."""
    return _UNDECLARED.of(ptx, lambda: _undeclared(ptx))[0]


def undeclared_sources(ptx: PtxTemplate) -> tuple[PtxOperand, ...]:
    """The ``mov``/``cvta`` sources of ``ptx`` that name nothing it declares: a module symbol,
    or a misspelt register (``_undeclared``)."""
    return _UNDECLARED.of(ptx, lambda: _undeclared(ptx))[1]


def written_compiler_registers(ptx: PtxTemplate) -> tuple[PtxOperand, ...]:
    """The destinations of ``ptx`` (``operand_roles.destinations``) that are one of the
    registers the compiler declares in the function the asm is inlined into (nvcc's ``%r1``,
    ``%rd2``, ``%f3``, ``%p4``...; ``%%r1`` of extended asm) and that the template does not
    declare where it writes them: the write lands on a register that holds one of the
    compiler's values (``_undeclared``)."""
    return _UNDECLARED.of(ptx, lambda: _undeclared(ptx))[2]


_Undeclared = tuple[tuple[PtxOperand, ...], tuple[PtxOperand, ...], tuple[PtxOperand, ...]]


def _undeclared(ptx: PtxTemplate) -> _Undeclared:
    """The operands of ``ptx`` that must be registers and name none the template declares:
    a guard, an operand of an instruction that takes no symbol there (``add``, ``setp``,
    ``st``'s value: ptxas "must be register"), a destination of ``mov`` and ``cvta``; never
    a word inside an address, a label, a sink (``_``), ``WARP_SZ``, a special register, or one
    of nvcc's own registers (``%r1``: a name with ``%``). ptxas answers each with "Unknown
    symbol". Second, the sources of ``mov`` and ``cvta`` that name nothing declared: a module
    symbol there is right (a ``__device__`` variable's address), so these are only candidates.
    Third, the destinations that are undeclared compiler registers (``%r1`` written).
    A template with a macro hole, or an instruction whose opcode is unknown, says nothing."""
    if not ptx.instructions:
        return (), (), ()
    scopes = _scopes(ptx)
    found: list[PtxOperand] = []
    sources: list[PtxOperand] = []
    compiler: list[PtxOperand] = []  # undeclared compiler registers, for the writes among them

    def ask(operand: PtxOperand, into: list[PtxOperand]) -> None:
        for word in _register_words(operand):
            name = word.text.lstrip("!").partition(".")[0]  # `v.x` of a vector variable
            if not name or name in _NO_DECLARATION or _declared_at(scopes, name, word.start):
                continue
            if name[0] != "%":
                into.append(word)
            elif not _COMPILER_REGISTER().fullmatch(name):
                found.append(word)  # no module symbol is spelt with `%`: never a candidate
            elif _VIRTUAL_REGISTER().fullmatch(name):
                compiler.append(word)

    written: list[PtxOperand] = []
    for instruction in ptx.instructions:
        if instruction.opaque or family(instruction.opcode) is None:
            continue
        compiler.clear()
        if instruction.predicate is not None:
            ask(instruction.predicate.register, found)
        operands = instruction.operands
        if instruction.opcode in ("mov", "cvta"):
            for operand in operands[1:]:
                ask(operand, sources)
            operands = operands[:1]
        elif instruction.opcode in _TAKE_SYMBOLS:
            operands = ()
        for operand in operands:
            ask(operand, found)
        if compiler:
            taken = {id(o) for o in destinations(instruction) or ()}
            written.extend(word for word in compiler if id(word) in taken)
    return tuple(found), tuple(sources), tuple(written)


def bare_special_element(text: str) -> bool:
    """``text`` is an element of a vector special register written without its ``%``
    (``tid.y``): a register word, never a module symbol (no symbol takes a field)."""
    base, _, element = text.lstrip("!").partition(".")
    return element.isalpha() and base in VECTOR_SPECIAL_REGISTERS


def _register_words(operand: PtxOperand) -> Iterator[PtxOperand]:
    """The plain words of ``operand`` that stand for registers: outside addresses. A vector's
    or pair's parts are looked at here, a generator made only for one that nests, where each
    part made one (a wgmma's accumulator, 128 ``%N`` parts: 21.7 -> 5.9 us, timeit)."""
    kind = operand.kind
    if kind == "register" or kind == "other" and bare_special_element(operand.text):
        yield operand
    elif kind in ("vector", "pair"):
        for part in operand.parts:
            kind = part.kind
            if kind == "register":
                yield part
            elif kind in ("vector", "pair"):
                yield from _register_words(part)


# The names with `%` that a template may use undeclared: the registers the compiler declares
# in the function it inlines the asm into (nvcc's and clang's `%r1`, `%rd2`, `%rs3`, `%f4`,
# `%fd5`, `%p6`, `%h7`, `%SP`; ptxas takes a template that reads one), and the numbered special
# registers past their last number (`%envreg32`, PTX207's: the grammar reads the operand). Any
# other undeclared `%` name is no special register either (the parser knows those): ptxas
# "Unknown symbol '%laneId'".
_COMPILER_REGISTER = on_first_use(
    r"%%?(?:(?:r|rd|rs|rq|rl|rh|f|fd|fl|h|hh|p|b)[0-9]+|SPL?|(?:envreg|pm)[0-9]+(?:_64)?)")

# The registers of the compiler's own numbered scheme (nvcc: `.reg .b32 %r<N>`, `.b64 %rd<N>`,
# `.b16 %rs<N>`, `.f32 %f<N>`, `.f64 %fd<N>`, `.pred %p<N>`; clang's and older nvcc's
# spellings), which hold its values: a template that writes one it does not declare overwrites
# one of them. `%SP` and the special registers are not among them.
_VIRTUAL_REGISTER = on_first_use(r"%%?(?:r|rd|rs|rq|rl|rh|f|fd|fl|h|hh|p|b)[0-9]+")

_UNDECLARED: TemplateMemo[_Undeclared] = TemplateMemo(4096)
# Words no directive declares: the sink, and the one predefined identifier without a `%`
# (PTX ISA, "Identifiers": the constant WARP_SZ, an immediate wherever one is allowed)
_NO_DECLARATION = frozenset({"_", "WARP_SZ"})
