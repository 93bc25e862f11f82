"""Find the PTX-carrying calls of a Julia file and model each as an ``AsmStatement``.

Three shapes, all LLVM inline asm (``$N`` operands, ``"=r,r,~{memory}"`` constraints), the
dialect Triton uses:

- CUDA.jl / LLVM.jl ``@asmcall(asm, constraints, [side_effects,] [rettyp, argtyp,] args...)``:
  the types are Julia types, read into the operands' types;
- ``Base.llvmcall(ir, rettyp, argtyp, args...)`` (or ``((module, entry), ...)``) whose IR holds
  ``call T asm [sideeffect] "template", "constraints"(args)``: the template and constraints are
  read out of the IR text, their escapes (``\\XX``) decoded, with the IR's own types;
- PTX.jl's ``ptx"opcode.modifiers"(args...)`` wrappers: the instruction's spelling is known and
  its operands are built by the wrapper, so the statement is the spelling followed by a hole.

tree-sitter-julia parses the file; nothing in it is run. A string the file does not spell
(an interpolation, a variable) is a hole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

import tree_sitter
import tree_sitter_julia

from ptxlint.frontends.extraction import ExtractionResult
from ptxlint.frontends.llvm_constraints import clobber_name, split_constraints
from ptxlint.frontends.sourced import Sourced
from ptxlint.model import (
    AsmStatement,
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

from . import jlstrings, jltypes
from .apis import mentions_api

_NOT_LETTER = re.compile(r"[=+&\s]")
_MODIFIER = re.compile(r"[=+&]")
_CALL_WORDS = re.compile(r"@asmcall\b|\bllvmcall\b|\bptx\"")
# `call <type> asm [flags] "template", "constraints"(<args>)` in LLVM IR text (decoded Julia)
_IR_ASM = re.compile(
    r"call\s+(?P<ret>void|\{[^}]*\}|<[^>]*>|[\w.]+(?:\s+addrspace\(\d+\))?\*?)\s+asm\s+"
    r"(?P<flags>(?:(?:sideeffect|alignstack|inteldialect|unwind)\s+)*)"
    r"\"(?P<asm>[^\"]*)\"\s*,\s*\"(?P<cons>[^\"]*)\"\s*\((?P<args>[^)]*)\)"
)
_BOOL = ("true", "false")


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


class _Reader:
    def __init__(self, source: SourceFile, parse_template: TemplateParser) -> None:
        self.source = source
        self.parse_template = parse_template
        self.text = source.text
        self.data = source.text.encode("utf-8", "surrogatepass")
        self.tree = _parser().parse(self.data)
        # byte -> character offsets (tree-sitter speaks bytes)
        self._ascii = len(self.data) == len(self.text)

    def char(self, byte: int) -> int:
        if self._ascii:
            return byte
        return len(self.data[:byte].decode("utf-8", "surrogatepass"))

    def span(self, node: tree_sitter.Node) -> Span:
        return Span(self.char(node.start_byte), self.char(node.end_byte))

    def node_text(self, node: tree_sitter.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def string(self, node: tree_sitter.Node) -> Sourced:
        """A string literal's value; anything else is a hole."""
        span = self.span(node)
        if node.type in ("string_literal", "prefixed_string_literal"):
            return jlstrings.decode(self.text, span.start, span.end)
        if node.type == "binary_expression":
            operators = [c for c in node.named_children if c.type == "operator"]
            parts = [c for c in node.named_children if c.type != "operator"]
            if len(operators) == 1 and self.node_text(operators[0]) == "*" and len(parts) == 2:
                return self.string(parts[0]) + self.string(parts[1])  # Julia's concatenation
        return Sourced.hole(span)


TemplateParser = Callable[..., Any]


def extract_julia(source: SourceFile, parse_template: TemplateParser) -> ExtractionResult:
    result = ExtractionResult()
    if not mentions_api(source.text):
        return result
    reader = _Reader(source, parse_template)
    seen: set[int] = set()
    for m in _CALL_WORDS.finditer(reader.text):
        byte = len(reader.text[: m.start()].encode("utf-8", "surrogatepass"))
        node = reader.tree.root_node.descendant_for_byte_range(byte, byte + 1)
        while node is not None and node.type not in (
            "macrocall_expression", "call_expression"
        ):
            node = node.parent
        if node is None or node.id in seen:
            continue
        seen.add(node.id)
        word = m.group()
        if word.startswith("@asmcall") and node.type == "macrocall_expression":
            _asmcall(reader, node, result)
        elif word == "llvmcall" and node.type == "call_expression":
            _llvmcall(reader, node, result)
        elif word.startswith("ptx") and node.type == "call_expression":
            _ptx_wrapper(reader, node, result)
    result.statements.sort(key=lambda s: s.span.start)
    return result


def _arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = next((c for c in node.children if c.type == "argument_list"), None)
    if args is None:
        return []
    return [c for c in args.named_children if c.type not in ("comment", "line_comment")]


def _asmcall(reader: _Reader, node: tree_sitter.Node, result: ExtractionResult) -> None:
    args = _arguments(node)
    span = reader.span(node)
    if not args:
        result.skipped.append((span.start, "julia: @asmcall without arguments"))
        return
    template = reader.string(args[0])
    constraints = reader.string(args[1]) if len(args) > 1 else Sourced()
    rest = args[2:]
    side_effects: bool | None = False
    side_span: Span | None = None
    if rest and reader.node_text(rest[0]) in _BOOL:
        side_effects = reader.node_text(rest[0]) == "true"
        side_span = reader.span(rest[0])
        rest = rest[1:]
    results = jltypes.julia_results(reader.node_text(rest[0])) if rest else []
    arguments = jltypes.julia_arguments(reader.node_text(rest[1])) if len(rest) > 1 else []
    values = [reader.node_text(a) for a in rest[2:]]
    anchor = reader.span(args[1]).start if len(args) > 1 else span.end
    _statement(
        reader, node, result, template.to_template(reader.span(args[0]).start),
        constraints.to_template(anchor), side_effects, side_span, results, arguments, values,
        "asmcall",
    )


def _llvmcall(reader: _Reader, node: tree_sitter.Node, result: ExtractionResult) -> None:
    args = _arguments(node)
    callee = node.named_children[0] if node.named_children else None
    if callee is None or reader.node_text(callee).rsplit(".", 1)[-1] != "llvmcall" or not args:
        return
    ir_node = args[0]
    if ir_node.type in ("tuple_expression", "parenthesized_expression"):
        inner = [c for c in ir_node.named_children if c.type != "comment"]
        if not inner:
            return
        ir_node = inner[0]
    ir = reader.string(ir_node)
    if "asm" not in ir.text:
        return
    values = [reader.node_text(a) for a in args[3:]]
    for m in _IR_ASM.finditer(ir.text):
        template = jlstrings.decode_llvm(ir.slice(m.start("asm"), m.end("asm")))
        constraints = jlstrings.decode_llvm(ir.slice(m.start("cons"), m.end("cons")))
        results = jltypes.llvm_results(m.group("ret"))
        arguments: list[CType | None] = [
            jltypes.llvm_type(" ".join(a.split()[:-1])) for a in jltypes.split_top(m.group("args"))
        ]
        anchor = ir.starts[m.start("asm")] if m.start("asm") < len(ir.starts) else 0
        _statement(
            reader, node, result, template.to_template(anchor),
            constraints.to_template(anchor), "sideeffect" in m.group("flags"), None, results,
            arguments, values, "llvmcall",
        )
    if not _IR_ASM.search(ir.text) and not ir.has_holes:
        result.skipped.append((reader.span(node).start, "julia: llvmcall IR with no asm call"))


def _ptx_wrapper(reader: _Reader, node: tree_sitter.Node, result: ExtractionResult) -> None:
    """``ptx"opcode.mods"(args...)``: the spelling, then a hole for the operands the wrapper
    builds (their count and registers come from the argument types, at compile time)."""
    callee = node.named_children[0] if node.named_children else None
    if callee is None or callee.type != "prefixed_string_literal":
        return
    text = reader.node_text(callee)
    m = re.fullmatch(r'ptx"([^"$\\]*)"(raw)?', text)
    if m is None:
        return  # interpolated: the spelling is not knowable
    span = reader.span(callee)
    lo = span.start + 4
    spelling = m.group(1)
    value = Sourced(
        spelling, list(range(lo, lo + len(spelling))), list(range(lo + 1, lo + len(spelling) + 1)),
        [],
    )
    args_node = next((c for c in node.children if c.type == "argument_list"), None)
    hole_span = reader.span(args_node) if args_node is not None else span
    template = value + Sourced(" ", [hole_span.start], [hole_span.start], [])
    template = template + Sourced.hole(hole_span) + Sourced(";", [hole_span.end - 1],
                                                           [hole_span.end], [])
    # The wrapper writes the call: sideeffect and a memory clobber (PTX.jl's raw contract; the
    # registered forms derive theirs from the instruction, which ptxlint does not second-guess)
    clobber = Sourced("~{memory}", [span.start] * 9, [span.end] * 9, [])
    _statement(
        reader, node, result, template.to_template(span.start), clobber.to_template(span.start),
        True, None, None, None, [], "ptx-wrapper", opaque=True,
    )


def _statement(
    reader: _Reader,
    node: tree_sitter.Node,
    result: ExtractionResult,
    template: Template,
    constraints: Template,
    side_effects: bool | None,
    side_span: Span | None,
    results: list[CType | None] | None,
    arguments: list[CType | None] | None,
    values: list[str],
    callee: str,
    opaque: bool = False,
) -> None:
    span = reader.span(node)
    entries: tuple[ConstraintEntry, ...] = (
        split_constraints(constraints) if constraints.text else ()
    )
    outputs = [e for e in entries if e.role == "output"]
    inputs = [e for e in entries if e.role == "input"]
    types: list[CType | None] = []
    labels: list[str] = []
    if results is not None and len(results) == len(outputs):
        types.extend(results)
        labels.extend(f"result {k}" if len(outputs) > 1 else "result" for k in range(len(outputs)))
    else:
        types.extend(None for _ in outputs)
        labels.extend("" for _ in outputs)
    if arguments is not None and len(arguments) == len(inputs):
        types.extend(arguments)
    else:
        types.extend(None for _ in inputs)
    labels.extend(values[k] if k < len(values) else "" for k in range(len(inputs)))
    operands: list[Operand] = []
    for entry in outputs + inputs:
        index = len(operands)
        constraint = Constraint(
            entry.text, "".join(_MODIFIER.findall(entry.text)),
            _NOT_LETTER.sub("", entry.text), entry.span, entry.opaque,
        )
        operands.append(Operand(
            index=index, role=entry.role, constraint=constraint, expression=labels[index],
            expression_span=entry.span, span=entry.span, ctype=types[index],
        ))
    call = LlvmCall(
        api="julia",
        call_span=span,
        callee=callee,
        constraints=constraints,
        entries=entries,
        side_effects=side_effects,
        side_effects_span=side_span,
        side_effects_name="side_effects" if callee == "asmcall" else "sideeffect",
        pack=1,
    )
    if not template.text.strip():
        result.skipped.append((span.start, "julia: empty template"))
        return
    result.statements.append(AsmStatement(
        source=reader.source,
        keyword=callee,
        span=span,
        qualifiers=(),
        extended=True,
        template=template,
        operands=tuple(operands),
        clobbers=tuple(Clobber(clobber_name(e), e.span) for e in entries if e.role == "clobber"),
        goto_labels=(),
        colons=(),
        open_paren=span.start,
        close_paren=max(span.start, span.end - 1),
        # a Julia asm call is compiled in the function around it (never module-level asm)
        context=Context(
            function=_function_name(reader, node), dialect="ptx",
            dialect_reason="Julia GPU asm call",
        ),
        ptx=reader.parse_template(template.text, True, "llvm"),
        problems=(),
        opaque_sections=opaque or constraints.has_holes,
        syntax="llvm",
        llvm=call,
    ))


def _function_name(reader: _Reader, node: tree_sitter.Node) -> str:
    """The function the call is in: ``function f(...)``, ``f(...) = ...``; "" at top level (a
    loop or a ``let`` in a script), where the call is still compiled inside the caller."""
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            signature = next((c for c in current.children if c.type == "signature"), None)
            call = signature.named_children[0] if signature and signature.named_children else None
            head = call.named_children[0] if call is not None and call.named_children else call
            return reader.node_text(head) if head is not None else ""
        if current.type == "assignment":
            left = current.named_children[0] if current.named_children else None
            if left is not None and left.type in ("call_expression", "where_expression"):
                head = left.named_children[0] if left.named_children else left
                return reader.node_text(head).split("(")[0]
        current = current.parent
    return ""
