"""Find the PTX-carrying calls of a Python file and model each as an ``AsmStatement``.

tree-sitter-python parses the file (only when the byte prefilter of :mod:`.apis` says it
mentions an API); callees are resolved through the file's imports (``import triton.language
as tl``, ``from triton.language import core``, ``from cutlass._mlir.dialects import llvm``);
arguments are bound by position and keyword; strings are resolved by :mod:`.values`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import tree_sitter
import tree_sitter_python

from ptxlint.constraints import LLVM_LETTERS
from ptxlint.frontends import tree_reuse
from ptxlint.frontends.cxx import dialect
from ptxlint.frontends.extraction import ExtractionResult
from ptxlint.frontends.llvm_constraints import clobber_name, split_constraints
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import (
    HOLE,
    AsmStatement,
    CallArgument,
    Clobber,
    Constraint,
    ConstraintEntry,
    Context,
    CType,
    LlvmCall,
    Operand,
    SourceFile,
    Span,
    Template,
)

from . import triton_types
from .apis import CODE_ROLES, Api, bounded_matches, classify, mentions_api, worth_parsing
from .embedded_cxx import extract_embedded
from .inline_ptx import read_inline_ptx
from .mlir_operands import mlir_operand_types
from .signatures import Signature, api_signature, bind
from .values import Values, branches, never_passes
from .version_guards import branch_guards, site_guards
from .wrappers import wrapper_uses

_CALLEE = re.compile(
    r"\b(inline_asm_elementwise|elementwise_inline_asm|inline_asm|inline_ptx|InlineAsm|RawKernel"
    r"|RawModule"
    r"|ElementwiseKernel|ReductionKernel|Program|load_inline|SourceModule|func_native)\b"
)
# Where ``_CALLEE`` can match: the same words without the boundaries (``apis.bounded_matches``).
# ``_CALLEE.finditer`` tried every position (0.52 s over flashinfer's 27 MB of asm-bearing
# Python); this scan costs 0.08 s, and ``_CALLEE`` is then only tried where it finds a word.
_CALLEE_WORD = re.compile(
    r"inline_asm_elementwise|elementwise_inline_asm|inline_asm|inline_ptx|InlineAsm|RawKernel"
    r"|RawModule|ElementwiseKernel|ReductionKernel|Program|load_inline|SourceModule|func_native"
)
# An operand constraint's modifiers, and what is not one of its letters (a modifier or a blank:
# ``\s`` is ``str.isspace``, both being Python's Unicode whitespace test); a regex each rather
# than a generator per character, for CuTe DSL's calls of dozens of operands.
_MODIFIER = re.compile(r"[=+&]")
_NOT_LETTER = re.compile(r"[=+&\s]")
_TRITON_FAMILY = ("triton", "helion", "pallas", "torch")
# Callees whose result is a tensor: `args=x.to(...)` is a tensor, not a list of them.
_TENSOR_CALLS = frozenset(
    "load to cast arange full zeros ones where maximum minimum exp log abs sqrt fma".split()
)

TemplateParser = Callable[..., Any]


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


def parse_python(text: str, path: str | None = None) -> ParsedSource:
    """The file's tree; given its ``path``, parsed as an edit of a near-duplicate parsed just
    before where there is one (``tree_reuse``): generated CuTe DSL kernels come in families of
    variants, as their C++ counterparts do (flashinfer: 38 MB of Python in 361 asm-bearing
    files, whose fresh parses cost 4.1 s and 3.5 s so reused)."""
    data = text.encode("utf-8", "surrogatepass")
    parser = _parser()
    tree = tree_reuse.parse(parser, path, data, "python") if path else parser.parse(data)
    return ParsedSource(text, data, tree, "python")


@dataclass
class _Call:
    """A call of a PTX-carrying Python API in the file: its node, how the callee is spelled, which
    API it is, and its arguments bound to parameter names."""

    node: tree_sitter.Node
    callee: str
    api: Api
    bound: dict[str, tree_sitter.Node]
    splat: bool  # *args/**kwargs: unbound parameters may still be given
    # a wrapper's parameters its template is built from, as this use gives them
    arguments: dict[tuple[int, str], tree_sitter.Node] = dataclasses.field(default_factory=dict)


def extract_python(
    source: SourceFile,
    parse_template: TemplateParser,
    type_lookup: Callable[[ParsedSource], Any] | None = None,
) -> ExtractionResult:
    if not mentions_api(source.text) or not worth_parsing(source.text):
        return ExtractionResult()
    parsed = parse_python(source.text, source.path)
    result = _extract(source, parsed, parse_template, type_lookup, False)
    if any(reason == f"unknown: {dialect.NO_EVIDENCE}" for _, reason in result.skipped) and any(
            s.keyword == "InlineAsm" and s.context.dialect_reason.startswith(
                dialect.PTX_BY_WORDS)
            for s in result.statements):
        # an llvmlite template whose words are not all PTX, in a module whose other ones are
        # (Numba's CUDA target): read as PTX, so that an opcode typo is PTX204's, not unseen
        result = _extract(source, parsed, parse_template, type_lookup, True)
    return result


def _extract(source: SourceFile, parsed: ParsedSource, parse_template: TemplateParser,
             type_lookup: Callable[[ParsedSource], Any] | None, ptx_module: bool
             ) -> ExtractionResult:
    """``ptx_module``: the module's llvmlite templates are PTX (``extract_python``)."""
    result = ExtractionResult()
    values = Values(parsed)
    imports = _imports(parsed)
    llvmlite = any("llvmlite" in origin for origin in imports.values())
    seen: set[int] = set()
    for call in _calls(parsed, values, imports, llvmlite):
        if call.node.id in seen:
            continue
        seen.add(call.node.id)
        start = values.span(call.node).start
        try:
            if call.api.syntax == "cxx":
                _embedded(source, values, call, parse_template, type_lookup, result)
            else:
                for read in _wrapper_uses(values, call):
                    values.arguments = read.arguments
                    try:
                        _llvm_branches(source, values, read, parse_template, result, imports,
                                       ptx_module)
                    finally:
                        values.arguments = {}
        except RecursionError:
            result.skipped.append((start, "expression too deeply nested to resolve"))
    result.statements.sort(key=lambda s: s.span.start)
    return result


# wrappers of wrappers followed: the API call's, its function's uses', their functions' uses'
_WRAPPER_DEPTH = 3


def _wrapper_uses(values: Values, call: _Call) -> list[_Call]:
    """The call as the statements it stands for: itself, or where its template is a parameter
    of the module-level function around it, that function's uses in the module, each read
    with the arguments it gives (``wrappers``); and where such a use passes a template that
    a parameter of the function around the use builds (``def ld(p, pf=""): return _asm(p,
    _LDQ + pf + ...)``), that function's uses in turn, up to ``_WRAPPER_DEPTH`` deep."""
    param = call.api.param("asm")
    if not param:
        return [call]
    reads = [call]
    for _ in range(_WRAPPER_DEPTH):
        deeper: list[_Call] = []
        followed = False
        for read in reads:
            uses = wrapper_uses(values, read.node, read.bound, param)
            if uses is None:
                deeper.append(read)
                continue
            followed = True
            deeper.extend(
                dataclasses.replace(read, node=use.node, bound=use.bound,
                                    arguments={**read.arguments, **use.arguments})
                for use in uses
            )
        reads = deeper
        if not followed:
            break
    return reads


# --------------------------------------------------------------------------- finding calls


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)\b", re.M)
# ``_IMPORT_LINE`` after a line break: the literal "\n" lets the engine skip from line to line
# instead of trying ``^`` at every character (0.07 s against 0.15 s over the same 27 MB).
_IMPORT_AFTER_BREAK = re.compile(r"\n[ \t]*(?:from|import)\b")
_IMPORT_NODES = ("import_statement", "import_from_statement")


def _imports(parsed: ParsedSource) -> dict[str, str]:
    """Local name -> dotted origin for every import of the file (relative ones keep dots).

    Import statements are found from their lines (a regex over the text), not by walking the
    whole tree: a 300 kB test file has a few dozen imports and tens of thousands of nodes."""
    table: dict[str, str] = {}
    root = parsed.tree.root_node
    stack: list[tree_sitter.Node] = []
    for m in _import_matches(parsed.text):
        keyword = m.end() - (4 if parsed.text[m.end() - 4 : m.end()] == "from" else 6)
        byte = parsed.to_byte(keyword)
        node: tree_sitter.Node | None = root.descendant_for_byte_range(byte, byte + 1)
        while node is not None and node.type not in _IMPORT_NODES:
            node = node.parent
        if node is not None:
            stack.append(node)
    seen: set[int] = set()
    for node in stack:  # file order: a later import of a name wins, as in Python
        if node.id in seen:
            continue
        seen.add(node.id)
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "aliased_import":
                    name = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        table[parsed.node_text(alias)] = parsed.node_text(name)
                elif child.type == "dotted_name":
                    dotted = parsed.node_text(child)
                    table[dotted.split(".")[0]] = dotted.split(".")[0]
        elif node.type == "import_from_statement":
            module = node.child_by_field_name("module_name")
            base = parsed.node_text(module) if module is not None else ""
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    name = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        table[parsed.node_text(alias)] = _join(base, parsed.node_text(name))
                else:
                    text = parsed.node_text(child)
                    table[text.split(".")[-1]] = _join(base, text)
    return table


def _import_matches(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_IMPORT_LINE.finditer(text)``, or matches ending where they do (what
    ``_imports`` reads): ``^`` (re.M) holds at the start and after each "\n" only, and a match
    ends within its line, so the matches are the first line's and those of ``_IMPORT_AFTER_BREAK``
    one character earlier."""
    first = _IMPORT_LINE.match(text)
    if first is not None:
        yield first
    yield from _IMPORT_AFTER_BREAK.finditer(text)


def _callee_matches(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_CALLEE.finditer(text)``, in order, found from ``_CALLEE_WORD``."""
    return bounded_matches(_CALLEE, _CALLEE_WORD, text)


def _join(base: str, name: str) -> str:
    if not base or base.endswith("."):
        return base + name
    return f"{base}.{name}"


def _calls(
    parsed: ParsedSource, values: Values, imports: dict[str, str], llvmlite: bool
) -> list[_Call]:
    calls: list[_Call] = []
    root = parsed.tree.root_node
    for m in _callee_matches(parsed.text):
        byte = parsed.to_byte(m.start())
        node = root.descendant_for_byte_range(byte, byte + len(m.group()))
        if node is None or node.type != "identifier":
            continue
        function = node
        if node.parent is not None and node.parent.type == "attribute":
            if node.parent.child_by_field_name("attribute") != node:
                continue
            function = node.parent
        call = function.parent
        if call is None or call.type != "call" or call.child_by_field_name("function") != function:
            continue
        callee = parsed.node_text(function)
        if not re.fullmatch(r"[\w.\s]+", callee):
            continue  # `f().inline_asm(...)`, `x[0].InlineAsm`: not a module path
        callee = re.sub(r"\s+", "", callee)
        head, _, rest = callee.partition(".")
        origin = imports.get(head)
        full = _join(origin, rest) if origin is not None and rest else (origin or callee)
        api = classify(full, origin is not None, llvmlite)
        if api is None:
            continue
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.type != "argument_list":
            continue
        bound, splat = _bind(parsed, api, arguments)
        if api.varargs:
            bound["*inputs"] = arguments
        calls.append(_Call(call, callee, api, bound, splat))
    return calls


def _bind(
    parsed: ParsedSource, api: Api, arguments: tree_sitter.Node
) -> tuple[dict[str, tree_sitter.Node], bool]:
    """The call's arguments by the API parameter each gives, with every keyword by its name
    (``loc=``, ``_builder=``: the table names only the parameters a rule reads), and whether a
    splat may give more. A call Python would reject is still read as written."""
    binding = bind(parsed, _signature(api), arguments)
    return {**binding.var_keyword, **binding.given}, binding.splat


@cache
def _signature(api: Api) -> Signature:
    """The API's parameters: the table's, in positional order (Torch's higher-order op takes
    its inputs as ``*inputs``), then any keyword."""
    return api_signature(api.params, "*inputs" if api.varargs else None)


# --------------------------------------------------------------------------- CuPy, cuda.core


def _embedded(
    source: SourceFile,
    values: Values,
    call: _Call,
    parse_template: TemplateParser,
    type_lookup: Callable[[ParsedSource], Any] | None,
    result: ExtractionResult,
) -> None:
    for role in CODE_ROLES:
        param = call.api.param(role)
        node = call.bound.get(param) if param else None
        if node is None:
            continue
        # a list of sources (`load_inline(cuda_sources=[a, b])`): each its own translation unit
        parts = (
            [n for n in node.named_children if n.type != "comment"]
            if node.type in ("list", "tuple") else [node]
        )
        for part in parts:
            code = values.string(part)
            if "asm" not in code.text:
                continue
            inner = extract_embedded(source, code, parse_template, type_lookup)
            result.statements.extend(inner.statements)
            result.skipped.extend(inner.skipped)
            result.left_out.extend(inner.left_out)


# --------------------------------------------------------------------------- LLVM syntax

# Branches of one `if` read one at a time, at most this many (an `if`/`elif` chain choosing a
# template by type is the common case: CUTLASS's and flashinfer's CuTe DSL wrappers)
_MAX_BRANCHES = 8
# A choice met inside a way taken (`"p" if isinstance(z, Boolean) else "0" if z else "1"`, an
# `if` in the branch an outer `if` takes) is read in turn (`_next_choices`), the choices of
# one reading at most this many deep, and at most this many such readings tried per call
_MAX_CHOICES = 3
_MAX_READINGS = 16


def _arms(values: Values, point: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The ways a branch point goes: an `if`'s branches, the entries of a table the template
    is looked up in, or the two sides of a conditional expression."""
    if point.type == "subscript":
        return values.table_entries(point)
    if point.type == "conditional_expression":
        return values.conditional_arms(point)
    return branches(point)


def _choices_at(
    values: Values, chosen: tuple[tuple[tree_sitter.Node, int], ...], point: tree_sitter.Node,
) -> list[tuple[tuple[tree_sitter.Node, int], ...]]:
    """``chosen`` extended by each way ``point`` goes that runs on past it."""
    kind = point.type
    return [
        (*chosen, (point, index))
        for index, branch in enumerate(_arms(values, point)[:_MAX_BRANCHES])
        if kind in ("subscript", "conditional_expression") or not never_passes(point, branch)
    ]


def _next_choices(
    values: Values, chosen: tuple[tuple[tree_sitter.Node, int], ...], point: tree_sitter.Node,
) -> list[tuple[tuple[tree_sitter.Node, int], ...]]:
    """What a reading that meets ``point`` after the choices ``chosen`` reads next. A choice
    inside a way already taken (the ``else`` side that is itself ``A if c else B``, an ``if``
    in the branch taken) splits it; a conditional expression testing the very name another
    one chosen tests (``"h" if hi else "l"`` and ``'h2' if hi else 'l2'``: Python reads ``hi``
    once for both) takes the same side. Any other choice is left open: two tests of
    different values may be tied (``dtype = A if c else B`` and a table keyed by ``dtype``),
    and reading every combination would lint ones no run makes."""
    if point.type == "conditional_expression":
        test = _plain_test(values, point)
        for other, index in chosen:
            if test is not None and other.type == point.type and _plain_test(values, other) == test:
                return [(*chosen, (point, index))]
    for other, index in chosen:
        arms = _arms(values, other)
        arm = arms[index] if index < len(arms) else None
        if arm is not None and arm.start_byte <= point.start_byte <= point.end_byte <= arm.end_byte:
            return _choices_at(values, chosen, point)
    return []


def _inside(node: tree_sitter.Node, other: tree_sitter.Node) -> bool:
    """Whether ``node`` lies within ``other`` (and is not it)."""
    return node.id != other.id and other.start_byte <= node.start_byte <= node.end_byte <= (
        other.end_byte)


def _plain_test(values: Values, point: tree_sitter.Node) -> str | None:
    """A conditional expression's condition where it is a name its function binds at most
    once (``hi``, a parameter never rebound): the same value wherever the function tests it."""
    parts = [c for c in point.named_children if c.type != "comment"]
    if len(parts) != 3 or parts[1].type != "identifier":
        return None
    name = values.text(parts[1])
    scope = values.scope_of(point)
    if scope.type != "function_definition" or not values.holds_one_value(scope, name):
        return None
    # one name per function: a wrapper's `hi` and its caller's are two variables
    return f"{scope.id}:{name}"


def _llvm_branches(
    source: SourceFile,
    values: Values,
    call: _Call,
    parse_template: TemplateParser,
    result: ExtractionResult,
    imports: dict[str, str],
    ptx_module: bool = False,
) -> None:
    """The call, and where its template or constraints are bound on the branches of an ``if``
    (``if isinstance(v, Int32): asm = "clz.b32 ..."; elif ...: asm = "clz.b64 ..."``), the
    call read once per branch, each with what that branch binds, as the C++ front end reads a
    statement once per ``#if`` branch; a choice that a branch's reading meets in turn (an
    ``if`` inside the branch, the ``else`` side that is itself ``A if c else B``) splits that
    reading again, as nested ``#if`` branches do. A branch read as text around holes (an
    unknown field, another choice left open) is linted around them, as the call's own reading
    would be; one whose reading holds no instruction text (one that binds nothing, or raises),
    or that never runs past the ``if`` (``else: return``, whatever was bound before it), gives
    no statement; when
    no branch gives one, the call stays a hole, unless the branches that bind a whole template
    all bind another ISA's (``if 'gfx11' in arch: asm = "s_sendmsg_rtn_b64 ..."``: Triton's
    AMD helpers): then it is no PTX, as a literal AMD template is not."""
    values.branch_points = []
    before = len(result.statements)
    _llvm(source, values, call, parse_template, result, imports, ptx_module)
    points = values.branch_points
    if len(result.statements) != before + 1 or not points:
        return
    read = result.statements[-1]
    constraints = read.llvm.constraints if read.llvm is not None else None
    if not read.template.has_holes and not (constraints is not None and constraints.has_holes):
        return
    readings: list[AsmStatement] = []
    other_isa: list[tuple[int, str]] = []  # the branches read as another ISA's assembly
    partial = False  # a branch read as some PTX text around a hole
    # the outermost choice first: one inside another's way is read within that way
    first = next((p for p in points if not any(_inside(p, q) for q in points)), points[0])
    pending = _choices_at(values, (), first)
    nested = 0  # readings tried below the first choice (each way of which is always read)
    while pending:
        chosen = pending.pop(0)
        if len(chosen) > 1:
            nested += 1
            if nested > _MAX_READINGS:
                continue
        values.choices = {point.id: index for point, index in chosen}
        values.branch_points = []
        one = ExtractionResult()
        try:
            _llvm(source, values, call, parse_template, one, imports, ptx_module)
        finally:
            values.choices = {}
        if not one.statements and any(r.startswith("host:") for _, r in one.skipped):
            other_isa.extend(one.skipped)
            continue
        if len(one.statements) != 1 or one.statements[0].template.has_holes:
            fresh = [p for p in values.branch_points if all(p.id != q.id for q, _ in chosen)]
            if len(one.statements) == 1 and fresh and len(chosen) < _MAX_CHOICES:
                more = next((m for p in fresh if (m := _next_choices(values, chosen, p))), [])
                if more:
                    pending[0:0] = more  # in source order
                    continue
            partial = partial or any(
                s.template.text.replace(HOLE, "").strip() for s in one.statements
            )
            known = [s for s in one.statements
                     if any(c.isalpha() for c in s.template.text.replace(HOLE, ""))]
            if len(one.statements) != 1 or not known:
                continue
            # a way read as PTX text around holes (an unknown field, another open choice) is
            # linted around them, as the call's own reading would be
        arms = {point.id: _arms(values, point) for point, _ in chosen}
        taken: list[str] = []
        for point, index in chosen:
            words = _branch_words(values, point, arms[point.id][index])
            # a side taken again for the same test ('if hi') is named once
            if point.type != "conditional_expression" or words not in taken:
                taken.append(words)
        context = one.statements[0].context
        # what the branch that binds this reading's template tests holds for it, as an
        # enclosing `if` would (`if HAS_CVT: asm = "cvt.rn.bf16x2.e2m1x2 ..."` before the call)
        chosen_guards = tuple(
            guard for point, index in chosen if point.type != "subscript"
            for guard in branch_guards(values, imports, point, index)
        )
        guards = tuple(dict.fromkeys(context.guards + chosen_guards))
        context = dataclasses.replace(context, branch=tuple(taken), guards=guards,
                                      local_guards=guards)
        readings.append(dataclasses.replace(one.statements[0], context=context))
    if readings:
        result.statements[before:] = readings
    elif other_isa and not partial:
        del result.statements[before:]
        result.skipped.extend(other_isa)


def _branch_words(values: Values, point: tree_sitter.Node, branch: tree_sitter.Node) -> str:
    """How a finding names the branch: ``if isinstance(value, Int32)``, ``else``,
    ``op == 'sum'`` (the entry of a table, ``asm_by_op[op]``, looked up)."""
    if point.type == "conditional_expression":
        parts = [c for c in point.named_children if c.type != "comment"]
        words = " ".join(values.text(parts[1]).split()) if len(parts) == 3 else "?"
        return f"if {words}" if parts and branch.id == parts[0].id else f"if not ({words})"
    if point.type == "subscript":
        looked_up = point.children_by_field_name("subscript")
        key = branch.child_by_field_name("key")
        words = " ".join(values.text(looked_up[0]).split()) if looked_up else "?"
        return f"{words} == {values.text(key) if key is not None else '?'}"
    if branch.type == "else_clause":
        return "else"
    owner = point if branch.type != "elif_clause" else branch
    condition = owner.child_by_field_name("condition")
    words = " ".join(values.text(condition).split()) if condition is not None else "?"
    return f"{'if' if owner is point else 'elif'} {words}"


def _llvm(
    source: SourceFile,
    values: Values,
    call: _Call,
    parse_template: TemplateParser,
    result: ExtractionResult,
    imports: dict[str, str],
    ptx_module: bool = False,
) -> None:
    api = call.api
    span = values.span(call.node)

    def node(role: str) -> tree_sitter.Node | None:
        param = api.param(role)
        return call.bound.get(param) if param else None

    asm_node = node("asm")
    if asm_node is None:
        reason = "asm passed through *args/**kwargs" if call.splat else "no asm argument"
        result.skipped.append((span.start, f"{api.key}: {reason}"))
        return
    inline_ptx = (
        read_inline_ptx(values, call.bound, api.param, asm_node, span, call.callee, call.splat)
        if api.key == "cute-ptx"
        else None
    )
    if inline_ptx is not None:
        template = inline_ptx.template
    else:
        template = values.string(asm_node).to_template(values.span(asm_node).start)
    constraints_node = node("constraints")
    constraints: Template | None = None
    entries: tuple[ConstraintEntry, ...] = ()
    if inline_ptx is not None:
        constraints, entries = inline_ptx.constraints, inline_ptx.entries
    elif constraints_node is not None:
        value = values.string(constraints_node)
        constraints = value.to_template(values.span(constraints_node).start)
        entries = split_constraints(constraints)
    ptx = parse_template(template.text, True, "llvm")
    letters = "".join(e.text for e in entries if e.role in ("output", "input"))
    verdict = dialect.classify(
        template.text.replace("$", "%"),
        ptx,
        _foreign_letters(entries),
        function_specifiers=("__device__",) if api.key != "llvmlite" else (),
        guards=(),
        ptx_module=ptx_module,
    )
    if verdict.dialect != "ptx" or not template.text.strip():
        reason = verdict.reason if template.text.strip() else "empty template"
        result.skipped.append((span.start, f"{verdict.dialect}: {reason}"))
        return
    if inline_ptx is not None:
        llvm_call, operands = inline_ptx.call, inline_ptx.operands
    else:
        llvm_call = _llvm_call(values, call, span, constraints, entries)
        operands = _operands(entries, llvm_call)
        if api.key == "cute":
            operands = mlir_operand_types(values, call.bound, api.param, operands)
    clobbers = tuple(Clobber(clobber_name(e), e.span) for e in entries if e.role == "clobber")
    guards = site_guards(values, imports, call.node)
    arguments = call.node.child_by_field_name("arguments")
    open_paren = values.span(arguments).start if arguments is not None else span.start
    opaque = constraints is None or constraints.has_holes or not letters and not entries
    if constraints_node is None:
        opaque = True
    if inline_ptx is not None:
        opaque = inline_ptx.opaque
    result.statements.append(
        AsmStatement(
            source=source,
            keyword=call.callee.rsplit(".", 1)[-1],
            span=span,
            qualifiers=(),
            extended=True,
            template=template,
            operands=operands,
            clobbers=clobbers,
            goto_labels=(),
            colons=(),
            open_paren=open_paren,
            close_paren=max(span.start, span.end - 1),
            context=Context(
                function=_function_name(values, call.node),
                guards=guards,
                local_guards=guards,
                dialect="ptx",
                dialect_reason=verdict.reason,
            ),
            ptx=ptx,
            problems=(),
            opaque_sections=opaque,
            syntax="llvm",
            llvm=llvm_call,
        )
    )


def _function_name(values: Values, node: tree_sitter.Node) -> str | None:
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            name = current.child_by_field_name("name")
            return values.text(name) if name is not None else None
        current = current.parent
    return None


def _llvm_call(
    values: Values,
    call: _Call,
    span: Span,
    constraints: Template | None,
    entries: tuple[ConstraintEntry, ...],
) -> LlvmCall:
    api = call.api

    def node(role: str) -> tree_sitter.Node | None:
        param = api.param(role)
        return call.bound.get(param) if param else None

    side_effects: bool | None = None
    side_span: Span | None = None
    side_name = ""
    defaults = dict(api.defaults)
    pure_node = node("pure")
    effects_node = node("side_effects")
    if pure_node is not None:
        side_name = api.param("pure") or ""
        side_span = values.span(pure_node)
        pure = values.scalar(pure_node)
        side_effects = (not pure) if isinstance(pure, bool) else None
    elif effects_node is not None:
        side_name = api.param("side_effects") or ""
        side_span = values.span(effects_node)
        effects = values.scalar(effects_node)
        side_effects = effects if isinstance(effects, bool) else None
    elif api.key in ("cute", "llvmlite") and not call.splat:
        side_name = api.param("side_effects") or ""
        side_effects = False  # omitted: the attribute is absent, the asm is pure
    elif "is_pure" in defaults and not call.splat:
        side_name = "is_pure"
        side_effects = not defaults["is_pure"]  # omitted: the default (pure)
    pack_node = node("pack")
    pack = values.scalar(pack_node) if pack_node is not None else defaults.get("pack")
    if api.key in ("cute", "llvmlite"):
        pack = 1  # one constraint per operand, no packing
    pack_value = pack if isinstance(pack, int) and not isinstance(pack, bool) and pack > 0 else None
    dtype_node = node("dtype")
    results = (
        triton_types.result_dtypes(values, dtype_node)
        if dtype_node is not None and api.key in ("triton", "helion", "torch")
        else None
    )
    args_node = node("args")
    args: tuple[CallArgument, ...] | None = None
    args_kind = "missing" if args_node is None and not call.splat else "unknown"
    if args_node is not None:
        args_kind, items = _sequence(values, args_node)
        if items is not None:
            args = tuple(
                CallArgument(
                    values.text(item),
                    values.span(item),
                    triton_types.arg_dtype(values, item),
                    triton_types.elements(values, item),
                )
                for item in items
            )
    output_registers = input_registers = None
    if api.key in ("triton", "helion", "torch") and pack_value is not None and args is not None:
        if results is not None:
            if not args:
                if pack_value == 1:
                    output_registers = (len(results), len(results))
            else:
                output_registers = _sum(
                    triton_types.registers(triton_types.bits_of(r), pack_value) for r in results
                )
        input_registers = _sum(
            triton_types.registers(triton_types.bits_of(a.dtype), pack_value) for a in args
        )
    result_elements = None
    if args:
        known = [a.elements for a in args if a.elements is not None]
        result_elements = max(known) if known else None
    dialect_node = node("dialect")
    dialect_name = values.text(dialect_node).rsplit(".", 1)[-1] if dialect_node else None
    return LlvmCall(
        asm_dialect=dialect_name if dialect_name and dialect_name.isidentifier() else None,
        asm_dialect_span=values.span(dialect_node) if dialect_node is not None else None,
        api=api.key,
        call_span=span,
        callee=call.callee,
        constraints=constraints,
        entries=entries,
        side_effects=side_effects,
        side_effects_span=side_span,
        side_effects_name=side_name,
        pack=pack_value,
        pack_span=values.span(pack_node) if pack_node is not None else None,
        results=results,
        results_span=values.span(dtype_node) if dtype_node is not None else None,
        args=args,
        args_span=values.span(args_node) if args_node is not None else None,
        args_kind=args_kind,
        output_registers=output_registers,
        input_registers=input_registers,
        result_elements=result_elements,
    )


def _sum(ranges: Any) -> tuple[int, int]:
    low = high = 0
    for a, b in ranges:
        low += a
        high += b
    return low, high


def _sequence(values: Values, node: tree_sitter.Node) -> tuple[str, list[tree_sitter.Node] | None]:
    """What ``args`` is: ("list"|"tuple", items), ("other", None) for a bare tensor, or
    ("unknown", None) when the source does not say."""
    target = values.definition(node)
    if target is None:
        return "unknown", None
    if target.type == "argument_list":  # `*inputs`: the positional arguments
        items = [
            c
            for c in target.named_children
            if c.type not in ("comment", "keyword_argument", "dictionary_splat")
        ]
        if any(c.type == "list_splat" for c in items):
            return "unknown", None
        return "tuple", items
    if target.type in ("list", "tuple", "expression_list"):
        items = [c for c in target.named_children if c.type != "comment"]
        if any(c.type in ("list_splat", "parenthesized_list_splat") for c in items):
            return "unknown", None
        return ("tuple" if target.type != "list" else "list"), items
    if target.type == "binary_operator":
        built = _list_arithmetic(values, target)
        if built is not None:
            return "list", built
    if target.type in ("binary_operator", "unary_operator", "integer", "float", "subscript"):
        return "other", None
    if target.type == "call":
        function = target.child_by_field_name("function")
        name = values.text(function).rsplit(".", 1)[-1] if function is not None else ""
        if name in _TENSOR_CALLS:
            return "other", None
    return "unknown", None


def _list_arithmetic(
    values: Values, node: tree_sitter.Node, depth: int = 0
) -> list[tree_sitter.Node] | None:
    """The items of a list built by ``+`` and ``*`` of literal lists and an integer
    (``[zero] * 16 + [a0, a1]``, CuTe DSL's operand lists), in Python's order; None where any
    part is not such a list (``x + y`` of tensors, a name bound to something else)."""
    if depth > 8:
        return None
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "list":
        items = [c for c in target.named_children if c.type != "comment"]
        return None if any("splat" in c.type for c in items) else items
    if target.type != "binary_operator":
        return None
    left, right = target.child_by_field_name("left"), target.child_by_field_name("right")
    operator = target.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return None
    if operator.type == "+":
        first = _list_arithmetic(values, left, depth + 1)
        second = _list_arithmetic(values, right, depth + 1) if first is not None else None
        return first + second if first is not None and second is not None else None
    if operator.type == "*":
        for items_node, count_node in ((left, right), (right, left)):
            count = values.scalar(count_node)
            if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 1024:
                repeated = _list_arithmetic(values, items_node, depth + 1)
                if repeated is not None:
                    return repeated * count
    return None


def _foreign_letters(entries: tuple[ConstraintEntry, ...]) -> str:
    """The operands' constraint letters NVPTX has not in LLVM syntax (``LLVM_LETTERS``), what
    ``dialect.classify`` reads where no word of the template is PTX: another GPU's assembly
    (``"=v,v"``, AMD's VGPRs, around words ptxlint does not know as GCN's) is no PTX typo.
    NVPTX's own LLVM letters are left out (``"=b"`` a predicate, ``"c"`` a byte, ``"i"`` an
    immediate), which the C++ reading would take for x86's; so are a tied operand's number
    and a register named in braces."""
    out: list[str] = []
    for entry in entries:
        if entry.role not in ("output", "input") or entry.opaque:
            continue
        letters = _NOT_LETTER.sub("", entry.text)
        if letters.isdigit() or letters.startswith("{"):
            continue
        out.extend(c for c in letters if c not in LLVM_LETTERS)
    return "".join(out)


def _operands(entries: tuple[ConstraintEntry, ...], call: LlvmCall) -> tuple[Operand, ...]:
    labels = _register_labels(call)
    types = _register_types(call)
    outputs = sum(1 for e in entries if e.role == "output")
    inputs = sum(1 for e in entries if e.role == "input")
    if (call.output_registers, call.input_registers) != ((outputs, outputs), (inputs, inputs)):
        labels = types = None  # the counts disagree (PTX501): no register is surely which
    operands: list[Operand] = []
    for entry in entries:
        if entry.role not in ("output", "input"):
            continue
        index = len(operands)
        text = entry.text
        constraint = Constraint(
            text=text,
            modifiers="".join(_MODIFIER.findall(text)),
            letters=_NOT_LETTER.sub("", text),
            span=entry.span,
            opaque=entry.opaque,
        )
        role = "output" if entry.role == "output" else "input"
        expression = labels[index] if labels is not None and index < len(labels) else ""
        ctype = types[index] if types is not None and index < len(types) else None
        operands.append(
            Operand(
                index=index,
                role=role,
                constraint=constraint,
                expression=expression,
                expression_span=entry.span,
                span=entry.span,
                ctype=ctype,
            )
        )
    return tuple(operands)


def _register_labels(call: LlvmCall) -> list[str] | None:
    """What each register is ("result 0", "args[1]"), when the counts are exact."""
    if (
        call.output_registers is None
        or call.input_registers is None
        or call.output_registers[0] != call.output_registers[1]
        or call.input_registers[0] != call.input_registers[1]
        or call.results is None
        or call.args is None
        or call.pack is None
    ):
        return None
    labels: list[str] = []
    for k, dtype in enumerate(call.results):
        count = triton_types.registers(triton_types.bits_of(dtype), call.pack)[0]
        if not call.args:
            count = 1
        labels.extend(f"result {k}" for _ in range(count))
    for arg in call.args:
        count = triton_types.registers(triton_types.bits_of(arg.dtype), call.pack)[0]
        labels.extend(arg.text for _ in range(count))
    return labels


def _register_types(call: LlvmCall) -> list[CType | None] | None:
    """What each register holds (element type x elements per register), when the counts are
    exact: ``float16`` at pack=2 is a 32-bit ``<2 x half>``; ``None`` for an unknown type."""
    if _register_labels(call) is None:
        return None
    assert call.results is not None and call.args is not None and call.pack is not None
    types: list[CType | None] = []
    for dtype in call.results:
        count = (
            1
            if not call.args
            else triton_types.registers(triton_types.bits_of(dtype), call.pack)[0]
        )
        types.extend(_register_ctype(dtype, call.pack if call.args else 1) for _ in range(count))
    for arg in call.args:
        count = triton_types.registers(triton_types.bits_of(arg.dtype), call.pack)[0]
        types.extend(_register_ctype(arg.dtype, call.pack) for _ in range(count))
    return types


def _register_ctype(dtype: str | None, pack: int) -> CType | None:
    bits = triton_types.bits_of(dtype)
    if dtype is None or bits is None:
        return None
    per = min(32 // bits, pack) if bits < 32 else 1
    kind = (
        "pointer"
        if dtype == triton_types.POINTER
        else ("floating" if "float" in dtype or dtype.startswith(("fp", "bf")) else "integer")
    )
    spelling = dtype if per == 1 else f"<{per} x {dtype}>"
    return CType(spelling, kind, bits * per // 8)
