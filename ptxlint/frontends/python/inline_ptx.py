"""CuTe DSL's ``cute.arch.inline_ptx`` (and MLIR's ``nvvm.inline_ptx``) read into the one model.

The user writes no constraint string: operands are named by placeholders (``{$w0}``, ``{$r1}``,
``{$rw0}``) and MLIR's NVVM lowering (``BasicPtxBuilderInterface``) writes the LLVM call. This
module does what that lowering does, so that the statement the rules see is the one LLVM sees:

- operands in the order read-write, write-only, read-only, predicate; a read-write operand is an
  ``=`` output with a tied input (``"0"``) appended after all others. The call's values come in
  the order read-write, read-only, predicate, and LLVM pairs them with the input constraints in
  order, so with both lists the values land in the wrong registers (PTX512): each input operand
  here is the value it really receives;
- each placeholder becomes ``$K``, where K counts the *placeholder numbers the template uses*
  (sorted, read-write first, then write-only, then read-only), not the argument lists: ``{$r1}``
  alone binds ``read_only_args[0]``;
- a read-only argument that is a compile-time constant becomes the immediate constraint ``n``
  (CUTLASS issue 3640); other letters follow the value's type (``Int32`` -> ``r``, ``Float32``
  -> ``f``, shared-memory pointers aside, where the type is not knowable the letter is a hole);
- the asm always has side effects, and no memory clobber.

Every character of the rewritten template maps back to the source: a ``$K`` to its placeholder,
a constraint letter to the argument (or type) it was chosen for.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter

from ptxlint.frontends.sourced import Sourced, join
from ptxlint.model import HOLE, Constraint, CType, Operand, Span, Template, TemplatePiece
from ptxlint.model_llvm import CallArgument, ConstraintEntry, LlvmCall, PtxPlaceholder
from ptxlint.value_class import value_class

from . import mlir_types
from .values import Values

# The lowering's pattern (``getPredicateMappingRegex``): case as written.
PLACEHOLDER = re.compile(r"\{\$(rw|w|r)([0-9]+)\}")
# A placeholder whose number the program computes (f"@{{$r{len(args)}}} ..."): the lowering
# rewrites it too, to an operand this file cannot name
_HOLED = re.compile(rf"\{{\$(rw|w|r)[0-9{HOLE}]*{HOLE}[0-9{HOLE}]*\}}")

# CuTe DSL's Numeric classes -> (constraint letter, type spelling, kind, bytes).
_NUMERIC: dict[str, tuple[str, str, str, int]] = {
    "Int32": ("r", "i32", "integer", 4),
    "Uint32": ("r", "i32", "integer", 4),
    "Int64": ("l", "i64", "integer", 8),
    "Uint64": ("l", "i64", "integer", 8),
    "Int16": ("h", "i16", "integer", 2),
    "Uint16": ("h", "i16", "integer", 2),
    "Float32": ("f", "f32", "floating", 4),
    "Float64": ("d", "f64", "floating", 8),
    "Boolean": ("b", "i1", "bool", 1),
}


@value_class(slots=False)
class _Arg:
    """One operand the lowering makes: which list it comes from and its constraint letter
    ("" when the source does not say)."""

    kind: str  # "rw" | "w" | "r" | "predicate"
    index: int  # place in its list
    node: tree_sitter.Node
    letter: str
    ctype: CType | None


@value_class(slots=False)
class InlinePtx:
    """What the front end needs to build the statement."""

    template: Template
    constraints: Template
    entries: tuple[ConstraintEntry, ...]
    operands: tuple[Operand, ...]
    call: LlvmCall
    opaque: bool  # an argument list is not a literal list: the operands are not all known


def read_inline_ptx(
    values: Values,
    bound: dict[str, tree_sitter.Node],
    param: Callable[[str], str | None],
    asm_node: tree_sitter.Node,
    span: Span,
    callee: str,
    splat: bool,
) -> InlinePtx:
    def node(role: str) -> tree_sitter.Node | None:
        name = param(role)
        return bound.get(name) if name else None

    source_text = values.string(asm_node)
    anchor = values.span(asm_node).start
    args: list[_Arg] = []
    counts: dict[str, int] = {}
    opaque = splat
    for kind in ("rw", "w", "r"):
        list_node = node(kind)
        if list_node is None:
            counts[kind] = 0
            continue
        items = _items(values, list_node)
        if items is None:
            opaque = True
            continue
        counts[kind] = len(items)
        for k, item in enumerate(items):
            letter, ctype = (
                _result_letter(values, item) if kind == "w" else _value_letter(values, item)
            )
            if kind == "rw" and letter == "n":
                letter = ""  # a read-write operand is an output: never an immediate
            args.append(_Arg(kind, k, item, letter, ctype))
    predicate = node("predicate")
    if predicate is not None and values.text(predicate) != "None":
        args.append(_Arg("predicate", 0, predicate, "b", CType("i1", "bool", 1)))
    placeholders, template = _rewrite(source_text, counts, anchor)
    if predicate is not None and values.text(predicate) != "None":
        # the lowering prefixes the whole text with "@$P " (P: the last operand)
        pspan = values.span(predicate)
        prefix = f"@${len(args) - 1} "
        template = (
            Sourced(prefix, [pspan.start] * len(prefix), [pspan.end] * len(prefix), [])
            + template
        )
    constraints, entries = _constraints(values, args, span)
    operands = _operands(values, args, entries)
    call = LlvmCall(
        api="cute-ptx",
        call_span=span,
        callee=callee,
        constraints=constraints,
        entries=entries,
        side_effects=True,  # the lowering always sets has_side_effects
        side_effects_span=None,
        side_effects_name="",
        pack=1,
        args=tuple(
            CallArgument(values.text(a.node), values.span(a.node), a.ctype.spelling if a.ctype
                         else None, 1)
            for a in args
            if a.kind == "r"
        ),
        args_kind="list",
        placeholders=placeholders,
        role_counts=tuple(sorted(counts.items()))
        + ((("predicate", 1),) if any(a.kind == "predicate" for a in args) else ()),
    )
    return InlinePtx(
        _merged(template).to_template(anchor), constraints, entries, operands, call, opaque
    )


def _items(values: Values, node: tree_sitter.Node) -> list[tree_sitter.Node] | None:
    target = values.definition(node)
    if target is None:
        return None
    if target.type == "none":
        return []
    if target.type not in ("list", "tuple"):
        return None
    items = [c for c in target.named_children if c.type != "comment"]
    if any(c.type in ("list_splat", "parenthesized_list_splat") for c in items):
        return None
    return items


def _numeric_name(text: str) -> str:
    return text.rsplit(".", 1)[-1].strip()


def _result_letter(values: Values, node: tree_sitter.Node) -> tuple[str, CType | None]:
    """A write-only result: a Numeric class (``Int32``) or an MLIR type (``T.i32()``)."""
    name = _numeric_name(values.text(node))
    if name in _NUMERIC:
        letter, spelling, kind, size = _NUMERIC[name]
        return letter, CType(spelling, kind, size)
    mlir = mlir_types.mlir_type(values, node)
    if mlir is not None:
        return mlir_types.register_letter(mlir) or "", mlir_types.ctype(mlir)
    return "", None


def _value_letter(values: Values, node: tree_sitter.Node) -> tuple[str, CType | None]:
    """A read-only value: ``n`` for a compile-time integer constant (the lowering's choice),
    the Numeric constructor's letter for ``Int32(x)``, "" where the source does not say."""
    target = values.definition(node) or node
    kind = target.type
    if kind in ("integer", "true", "false") or (
        kind == "unary_operator" and isinstance(values.scalar(target), int)
    ):
        return "n", CType("i32", "integer", 4)  # as_numeric(int) is an Int32 constant
    if kind == "float":
        return "f", CType("f32", "floating", 4)  # 4.8.1 moves a Float32 into a register
    if kind == "call":
        function = target.child_by_field_name("function")
        arguments = target.child_by_field_name("arguments")
        name = _numeric_name(values.text(function)) if function is not None else ""
        if name in _NUMERIC and arguments is not None:
            letter, spelling, ckind, size = _NUMERIC[name]
            inner = [a for a in arguments.named_children if a.type != "comment"]
            ctype = CType(spelling, ckind, size)
            if len(inner) == 1 and letter != "f" and _constant(values, inner[0]):
                return "n", ctype
            return letter, ctype
    return "", None


def _constant(values: Values, node: tree_sitter.Node) -> bool:
    value = values.scalar(node)
    return isinstance(value, int)


def _rewrite(
    text: Sourced, counts: dict[str, int], anchor: int
) -> tuple[tuple[PtxPlaceholder, ...], Sourced]:
    """The lowering's ``rewriteAsmPlaceholders``, keeping the source map."""
    seen: dict[str, list[int]] = {"rw": [], "w": [], "r": []}
    matches = list(PLACEHOLDER.finditer(text.text))
    holed = list(_HOLED.finditer(text.text)) if HOLE in text.text else []
    # an unknown number takes an unknown rank among its kind's, and every id after it moves:
    # the placeholders of that kind and the kinds numbered after it name no operand surely
    kinds = ("rw", "w", "r")
    unsure = {k for m in holed for k in kinds[kinds.index(m.group(1)):]}
    for m in matches:
        if int(m.group(2)) not in seen[m.group(1)]:
            seen[m.group(1)].append(int(m.group(2)))
    ids: dict[tuple[str, int], int] = {}
    rank: dict[tuple[str, int], int] = {}
    next_id = 0
    for kind in ("rw", "w", "r"):
        for k, number in enumerate(sorted(seen[kind])):
            ids[(kind, number)] = next_id
            rank[(kind, number)] = k
            next_id += 1
    # $K binds the K-th operand, counted over all lists (rw, then w, then r); past a list whose
    # length is unknown, no operand is surely which
    order: list[tuple[str, int]] = []
    for kind in ("rw", "w", "r"):
        if kind not in counts:
            break
        order.extend((kind, n) for n in range(counts[kind]))
    parts: list[Sourced] = []
    last = 0
    found: list[PtxPlaceholder] = []
    for m in sorted(matches + holed, key=lambda m: m.start()):
        parts.append(text.slice(last, m.start()))
        start, end = text.starts[m.start()], text.ends[m.end() - 1]
        if m.re is _HOLED or m.group(1) in unsure:
            parts.append(Sourced.hole(Span(start, end)))
            last = m.end()
            continue
        kind, number = m.group(1), int(m.group(2))
        k = ids[(kind, number)]
        ref = f"${k}"
        parts.append(Sourced(ref, [start] * len(ref), [end] * len(ref), []))
        last = m.end()
        bound = order[k] if k < len(order) else ("", -1)
        found.append(PtxPlaceholder(kind, number, Span(start, end), k, bound[0], bound[1]))
    parts.append(text.slice(last, len(text.text)))
    return tuple(found), join(parts)


def _merged(value: Sourced) -> Sourced:
    """Pieces of one literal that the rewrite split are one piece again (a ``$K`` sits inside
    the literal it was written in, as the placeholder did)."""
    pieces: list[TemplatePiece] = []
    for p in sorted(value.pieces, key=lambda p: p.text_start):
        if pieces and pieces[-1].span == p.span and pieces[-1].kind == p.kind:
            q = pieces[-1]
            pieces[-1] = TemplatePiece(q.kind, q.span, q.text_start, max(q.text_end, p.text_end))
        else:
            pieces.append(p)
    return Sourced(value.text, value.starts, value.ends, pieces)


def _constraints(
    values: Values, args: list[_Arg], span: Span
) -> tuple[Template, tuple[ConstraintEntry, ...]]:
    """The constraint string the lowering writes: ``=X`` for read-write and write-only
    operands, ``X`` for read-only ones and the predicate, then the ties of read-write ones."""
    text = ""
    starts: list[int] = []
    ends: list[int] = []
    entries: list[ConstraintEntry] = []
    ties = [k for k, a in enumerate(args) if a.kind == "rw"]
    spelled: list[tuple[str, Span, str]] = []
    for a in args:
        modifier = "=" if a.kind in ("rw", "w") else ""
        body = modifier + (a.letter or HOLE)
        spelled.append((body, values.span(a.node), "output" if modifier else "input"))
    for k in ties:
        spelled.append((str(k), values.span(args[k].node), "input"))
    for position, (body, where, role) in enumerate(spelled):
        if text:
            text += ","
            starts.append(where.start)
            ends.append(where.start)
        text += body
        starts.extend([where.start] * len(body))
        ends.extend([where.end] * len(body))
        entries.append(ConstraintEntry(body, where, position, role, HOLE in body))
    pieces = (TemplatePiece("macro", span, 0, len(text)),)
    return Template(text, starts, ends, pieces), tuple(entries)


def _operands(
    values: Values, args: list[_Arg], entries: tuple[ConstraintEntry, ...]
) -> tuple[Operand, ...]:
    operands: list[Operand] = []
    # The outputs are the read-write and write-only lists. The call's values are the read-write
    # ones, the read-only ones and the predicate, in that order, while its input constraints are
    # the read-only letters, the predicate's and then the read-write ties: LLVM pairs them in
    # order, so with both lists `{$r0}` reads read_write_args[0] (nvidia-cutlass-dsl 4.8.1,
    # measured: PTX512). Each input operand here is the value it really receives.
    outputs = [a for a in args if a.kind in ("rw", "w")]
    passed = [a for a in args if a.kind == "rw"] + [a for a in args if a.kind in ("r", "predicate")]
    bound = outputs + passed
    nodes = [a.node for a in bound]
    types = [a.ctype for a in bound]
    for index, (entry, node, ctype) in enumerate(zip(entries, nodes, types, strict=True)):
        text = entry.text
        letters = text.lstrip("=")
        constraint = Constraint(
            text=text,
            modifiers="=" if text.startswith("=") else "",
            letters=letters if HOLE not in letters else "",
            span=entry.span,
            opaque=entry.opaque,
        )
        where = values.span(node)
        operands.append(
            Operand(
                index=index,
                role=entry.role,
                constraint=constraint,
                expression=values.text(node),
                expression_span=where,
                span=where,
                ctype=ctype,
            )
        )
    return tuple(operands)
