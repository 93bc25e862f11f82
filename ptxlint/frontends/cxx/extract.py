"""Find every inline asm statement of a file and model it with exact source positions.

tree-sitter says where the ``asm`` keywords are (not in a comment or string; in code or in a
``#define`` body) and what surrounds them (function, specifiers, ``#if`` guards). The statement
itself is read with :mod:`.lexer`, which survives the macros real headers put there.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import tree_sitter

from ptxlint.frontends.cxx import branches, dialect, host_code, macro_uses, preproc, reading_memo
from ptxlint.frontends.cxx.guard_macros import GuardMacros
from ptxlint.frontends.cxx.guards import FileGuards
from ptxlint.frontends.cxx.lexer import NEXT_TOKEN as _NEXT_TOKEN
from ptxlint.frontends.cxx.lexer import (
    SKIPPED,
    Token,
    decode_string_literal,
    literal_value,
    tokens,
)
from ptxlint.frontends.cxx.lexer import new_token as _new_token
from ptxlint.frontends.cxx.macros import ExpandedString, MacroDef, MacroTable, expand_to_string

# The reader fills the operands, their constraints, spans and templates slot by slot, with
# the setters the reading memo fills its moved readings with (``reading_memo``: why)
from ptxlint.frontends.cxx.reading_memo import (
    C_LETTERS,
    C_MODIFIERS,
    C_OPAQUE,
    C_SPAN,
    C_TEXT,
    O_CONSTRAINT,
    O_CTYPE,
    O_EXPRESSION,
    O_EXPRESSION_SPAN,
    O_INDEX,
    O_NAME,
    O_ROLE,
    O_SPAN,
    PIECE_KIND,
    PIECE_SPAN,
    PIECE_TEXT_END,
    PIECE_TEXT_START,
    SPAN_END,
    SPAN_START,
    T_CHAR_ENDS,
    T_CHAR_STARTS,
    T_PIECES,
    T_TEXT,
    new,
)
from ptxlint.frontends.cxx.reading_memo import RawStatement as _RawStatement
from ptxlint.frontends.syntax_tree import (
    NodeFinder,
    ParsedSource,
    function_name_node,
    parse,
    shared_parent,
)
from ptxlint.model import (
    HOLE,
    AsmStatement,
    Clobber,
    Constraint,
    Context,
    CType,
    Expansion,
    Offsets,
    Operand,
    PtxTemplate,
    Qualifier,
    SourceFile,
    Span,
    Template,
    TemplatePiece,
    slot_setters,
)

KEYWORDS = ("asm", "__asm__", "__asm")
ASM_LABEL = "asm label"
QUALIFIERS = ("volatile", "__volatile__", "__volatile", "inline", "__inline", "__inline__", "goto")
_KEYWORD = re.compile(r"(?<![\w$])(?:__asm__|__asm|asm)(?![\w$])")
_MODIFIERS = "=+&"
_NON_CODE_NODES = {
    "comment",
    "string_literal",
    "string_content",
    "raw_string_literal",
    "raw_string_content",
    "raw_string_delimiter",
    "char_literal",
    "character",
    "escape_sequence",
    "system_lib_string",
}
_MACRO_BODY_OWNERS = {"preproc_def", "preproc_function_def"}
_FUNCTION_WORDS = re.compile(r"[A-Za-z_]\w*")

TemplateParser = Callable[[str, bool], PtxTemplate]
class TypeLookup(Protocol):
    """``TypeResolver.resolve``: an operand's type from its expression and offset, and, where
    the statement is in the file's syntax tree, the node of its asm keyword or that node's
    nearest ancestors (``_ancestors_of``)."""

    def __call__(
        self,
        expression: str,
        offset: int,
        statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None = None,
        /,
    ) -> CType | None: ...


@dataclass
class ExtractionResult:
    """What the extractor read from one file: its asm statements, those it did not lint and why, and
    the macros it expanded or could not."""

    statements: list[AsmStatement] = field(default_factory=list)
    # Statements found but not linted (host asm, unknown dialect), kept for `stats`.
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (offset, reason)
    parsed: ParsedSource | None = None
    # asm-bearing macros: expanded here ("path:line" of each #define), and those defined in
    # this file with parameters that no invocation here expanded (offset, name): opaque
    expanded_macros: set[str] = field(default_factory=set)
    unexpanded_macros: list[tuple[int, str]] = field(default_factory=list)
    skipped_invocations: list[tuple[int, str]] = field(default_factory=list)  # (offset, reason)
    # statements with #if inside are linted once per branch: the readings beyond the first
    branch_variants: int = 0


def has_asm(text: str) -> bool:
    return next(_keywords(text), None) is not None


_WORD_CHAR = re.compile(r"[\w$]")


def _keywords(text: str) -> Iterator[tuple[int, str]]:
    """What ``_KEYWORD.finditer(text)`` finds, as (start, keyword). The literal ``asm`` is
    searched and its surroundings checked here: the pattern's leading look-behind made the
    regex engine try it at every character (GMMA's 2.7 MB header: 63 ms, now 1 ms)."""
    word = _WORD_CHAR.match
    find = text.find
    at = find("asm")
    while at >= 0:
        end = at + 3
        if at >= 2 and text[at - 2] == "_" == text[at - 1]:
            start = at - 2
            if text.startswith("__", end) and not word(text, end + 2):
                end += 2
            elif word(text, end):
                start = -1
        else:
            start = at if not word(text, end) else -1
        if start >= 0 and (start == 0 or not word(text, start - 1)):
            yield start, text[start:end]
            at = find("asm", end)
        else:
            at = find("asm", at + 3)


def extract(
    source: SourceFile,
    parse_template: TemplateParser,
    make_type_lookup: Callable[[ParsedSource], TypeLookup] | None = None,
) -> ExtractionResult:
    result = ExtractionResult()
    macros = MacroPieces(source)
    if not has_asm(source.text):
        # LOAD(u32, global) may still expand to asm from a header included by relative path
        if "#include" not in source.text and "# include" not in source.text:
            return result
        names = macro_uses.asm_macros(macros.table)
        if not names or next(macro_uses.find_uses(source.text, names), None) is None:
            return result  # no asm macro is named: nothing can expand, no parse needed
    parsed = parse(source.path, source.text)
    result.parsed = parsed
    lookup = make_type_lookup(parsed) if make_type_lookup else None
    file_guards = FileGuards(source.text)
    host = _HostCode(parsed, macros, file_guards)
    share_parents = getattr(lookup, "share_parents", None)
    if share_parents is not None:  # a TypeResolver: one parent step per node for both climbs
        share_parents(host.ancestors.parents)
    macro_tokens: dict[int, list[Token]] = {}
    macro_index: dict[int, dict[object, int]] = {}
    # the keywords come in text order: one cursor finds each and its ancestors
    finder = NodeFinder(parsed.tree.root_node, host.ancestors.parents)
    for start, keyword in _keywords(source.text):
        byte = parsed.to_byte(start)
        node, above = finder.find(byte, byte + len(keyword))
        if node.type in _NON_CODE_NODES:
            continue
        # its three nearest ancestors, for the checks below and the climb to its function
        ups = above[:3]
        if any(up.type in _NON_CODE_NODES for up in ups):  # _inside_non_code(node)
            continue
        host.ancestors.given(node, ups)
        if node.type == "preproc_arg":
            body_start = parsed.to_char(node.start_byte)
            if body_start not in macro_tokens:
                macro_tokens[body_start] = list(
                    tokens(source.text, body_start, parsed.to_char(node.end_byte))
                )
            toks = macro_tokens[body_start]
            if body_start not in macro_index:
                macro_index[body_start] = _keyword_tokens(toks)
            at = macro_index[body_start]
            index = at.get(start)
            if index is None:  # inside a comment or string of the macro body
                continue
            owner = ups[0] if ups else None
            # up to the next asm keyword: one pass over the body for all its statements
            stream: Sequence[Token] = toks[index : at.get(("next", start), len(toks))]
            macro_name = _macro_name(parsed, owner)
            context_node = owner
            plain = None
        elif node.type in ("preproc_call", "preproc_directive"):
            continue
        elif _is_asm_label(node, ups):
            result.skipped.append(
                (start, "asm label: names a declaration's symbol, not a statement")
            )
            continue
        else:
            plain = _read_plain_here(source, parsed, start, keyword, ups)
            stream = () if plain is not None else _code_tokens(source.text, start)
            macro_name = None
            context_node = node
        pieces = macros
        if macro_name is not None:
            pieces = macros.with_forbidden(_macro_params(parsed, owner))
        if macro_name is None and plain is None and _has_inner_directive(stream):
            _read_branches(
                result,
                source,
                parsed,
                stream,
                pieces,
                context_node,
                file_guards,
                parse_template,
                lookup,
                host,
                keyword,
                start,
            )
            continue
        raw = plain or _StatementReader(source, stream, pieces, macro_name is not None).read()
        if raw is None:
            continue
        if not raw.extended and macro_name is None and _follows_declarator(source.text, start):
            result.skipped.append(
                (start, f"{ASM_LABEL}: names a declaration's symbol, not a statement")
            )
            continue
        context = _context(
            host.ancestors, context_node, macro_name, file_guards, start, raw.end, host.guard_macros
        )
        if macro_name is None:
            context = host.with_macro_specifiers(context, context_node)
        _finish(
            result,
            source,
            raw,
            context,
            keyword,
            Span(start, raw.end),
            parse_template,
            lookup if macro_name is None else None,
            host_only=host.reason(context_node if macro_name is None else None),
            statement=ups if macro_name is None else None,  # the resolver climbs from them
        )
    _expand_macro_uses(source, parsed, macros, file_guards, parse_template, lookup, result, host)
    return result


def reread(
    source: SourceFile, old: AsmStatement, parse_template: TemplateParser
) -> AsmStatement | None:
    """Statement ``old`` read again from ``source`` after an edit inside its template literals
    that kept its start, its context and its operands' C++ (the language server's re-lint):
    the same reading ``extract`` makes of it, its operands' types carried over. None where that
    cannot be shown: it no longer reads as one PTX statement, a macro piece or ``#if`` sits in
    it, or its operands changed."""
    if old.context.macro is not None or old.context.expansion is not None or old.context.branch:
        return None
    start, text = old.span.start, source.text
    raw: _RawStatement | None = None
    if text.startswith(old.keyword, start) and not _WORD_CHAR.match(text, start + len(old.keyword)):
        raw = _read_plain(source, start, old.keyword)  # what the tokens read, where it reads
    if raw is None:
        stream = _code_tokens(text, start)
        if not stream or stream[0].text != old.keyword or _has_inner_directive(stream):
            return None
        pieces = _RefusedPieces(source)
        raw = _StatementReader(source, stream, pieces, in_macro=False).read()
        if raw is None or pieces.asked:
            return None
    if raw.extended != old.extended:
        return None
    if not raw.extended and _follows_declarator(source.text, old.span.start):
        return None
    if [o.expression for o in raw.operands] != [o.expression for o in old.operands]:
        return None
    found = ExtractionResult()
    # host_only is "": for a statement that was PTX it changes no verdict (a never-built file
    # or function would have made it host; elsewhere it only speaks outside device code,
    # where it would have made it host as well)
    _finish(found, source, raw, old.context, old.keyword, Span(old.span.start, raw.end),
            parse_template, None)
    if len(found.statements) != 1:
        return None
    typed = tuple(
        _with_ctype(new, was.ctype) if was.ctype is not None else new
        for new, was in zip(found.statements[0].operands, old.operands, strict=True)
    )
    return dataclasses.replace(found.statements[0], operands=typed)


def _finish(
    result: ExtractionResult,
    source: SourceFile,
    raw: _RawStatement,
    context: Context,
    keyword: str,
    span: Span,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    type_at: int | None = None,
    host_only: str = "",
    branch_split: bool = False,
    statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None = None,
) -> None:
    """Classify a statement read from the source (or from an expansion) and keep it if PTX.
    ``branch_split``: one branch of a statement with #if inside (outside device code, only a
    context that says PTX makes it PTX). ``statement``: the asm keyword's node in the file's
    tree, or its nearest ancestors, for the operands' types."""
    letters = "".join(o.constraint.letters for o in raw.operands)
    ptx = parse_template(raw.template.text, raw.extended)
    split = branch_split or any(p.startswith("preprocessor directive") for p in raw.problems)
    # nothing of the file: the verdicts carry across files, where templates repeat
    key = (parse_template, raw.template.text, raw.extended, letters,
           context.function_specifiers, context.guards, split, host_only)  # fmt: skip
    verdict = _VERDICTS.get(key)
    if verdict is None:
        if len(_VERDICTS) >= _VERDICTS_KEPT:
            _VERDICTS.clear()
        verdict = _VERDICTS[key] = dialect.classify(
            raw.template.text,
            ptx,
            letters,
            function_specifiers=context.function_specifiers,
            guards=context.guards,
            split_by_directives=split,
            host_only=host_only,
        )
    context = _replaced(context, dialect=verdict.dialect, dialect_reason=verdict.reason)
    if verdict.dialect != "ptx":
        if context.expansion is None:  # an expansion's statement is counted at its #define
            result.skipped.append((span.start, f"{verdict.dialect}: {verdict.reason}"))
        return
    operands = raw.operands
    if lookup is not None:
        operands = _typed_all(operands, lookup, type_at, statement)
    # AsmStatement(source=source, keyword=keyword, ..., missing_commas=raw.missing_commas)
    # filled slot by slot (its __init__ sets 20 fields through object.__setattr__: 5 us)
    statement_ = new(AsmStatement)
    _S_SOURCE(statement_, source)
    _S_KEYWORD(statement_, keyword)
    _S_SPAN(statement_, span)
    _S_QUALIFIERS(statement_, raw.qualifiers)
    _S_EXTENDED(statement_, raw.extended)
    _S_TEMPLATE(statement_, raw.template)
    _S_OPERANDS(statement_, operands)
    _S_CLOBBERS(statement_, raw.clobbers)
    _S_GOTO_LABELS(statement_, raw.goto_labels)
    _S_COLONS(statement_, raw.colons)
    _S_OPEN_PAREN(statement_, raw.open_paren)
    _S_CLOSE_PAREN(statement_, raw.end - 1)
    _S_CONTEXT(statement_, context)
    _S_PTX(statement_, ptx)
    _S_PROBLEMS(statement_, raw.problems)
    _S_OPAQUE_SECTIONS(statement_, raw.opaque_sections)
    _S_MISSING_COMMAS(statement_, raw.missing_commas)
    _S_SYNTAX(statement_, "gnu")
    _S_LLVM(statement_, None)
    _S_ROLES(statement_, None)
    result.statements.append(statement_)


(_S_SOURCE, _S_KEYWORD, _S_SPAN, _S_QUALIFIERS, _S_EXTENDED, _S_TEMPLATE, _S_OPERANDS, _S_CLOBBERS,
 _S_GOTO_LABELS, _S_COLONS, _S_OPEN_PAREN, _S_CLOSE_PAREN, _S_CONTEXT, _S_PTX, _S_PROBLEMS,
 _S_OPAQUE_SECTIONS, _S_MISSING_COMMAS, _S_SYNTAX, _S_LLVM, _S_ROLES) = slot_setters(
    AsmStatement,
    ("source", "keyword", "span", "qualifiers", "extended", "template", "operands", "clobbers",
     "goto_labels", "colons", "open_paren", "close_paren", "context", "ptx", "problems",
     "opaque_sections", "missing_commas", "syntax", "llvm", "_roles"),
)  # fmt: skip


def _replaced(context: Context, **changes: object) -> Context:
    """``dataclasses.replace(context, **changes)``, one object per distinct answer: the
    statements of a function share their context, and a look-up (a hash of the context)
    costs a fraction of a replace (every field read, a frozen ``__init__``)."""
    if context.expansion is not None:  # one per invocation: nothing to share
        return dataclasses.replace(context, **changes)  # type: ignore[arg-type]
    key = (context, *changes.items())
    found = _CONTEXTS.get(key)
    if found is None:
        if len(_CONTEXTS) >= _CONTEXTS_KEPT:
            _CONTEXTS.clear()
        found = _CONTEXTS[key] = dataclasses.replace(context, **changes)  # type: ignore[arg-type]
    return found


_CONTEXTS: dict[tuple[object, ...], Context] = {}
_CONTEXTS_KEPT = 4096


# ``dialect.classify``'s verdicts by all it reads (``ptx`` is ``parse_template(text, extended)``;
# nothing of the file): a pure function, and statements repeat their template
# in one context, within a file and across files (flashinfer's sample: 23,000 statements, 700
# templates). Bounded: cleared when full.
_VERDICTS: dict[tuple[object, ...], dialect.Verdict] = {}
_VERDICTS_KEPT = 4096


# --------------------------------------------------------------------------- #if inside


def _has_inner_directive(stream: Sequence[Token]) -> bool:
    return "directive" in map(_KIND, itertools.islice(stream, 1, None))


_KIND = operator.itemgetter(0)  # a token's kind


def _read_branches(
    result: ExtractionResult,
    source: SourceFile,
    parsed: ParsedSource,
    stream: Sequence[Token],
    pieces: MacroPieces,
    node: tree_sitter.Node | None,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    host: _HostCode,
    keyword: str,
    start: int,
) -> None:
    """A statement with #if inside: one statement per combination of branches that a 64-bit
    Linux build can take, its branch conditions added to its guards."""
    try:
        variants = branches.split(list(stream))
    except branches.BranchError as exc:
        result.skipped.append((start, f"preprocessor directives inside the statement: {exc}"))
        return
    host_only = host.reason(node)
    # The branches are alternatives of one statement, so of one dialect: read them all, and
    # when one is another ISA's assembly (miniaudio's `clz %w[out]` beside `clz %[out]`),
    # none is PTX.
    trial = ExtractionResult()
    in_device_code = False
    for variant in variants:
        guard_macros = host.guard_macros.inside(start, variant.conditions)
        if preproc.evaluate_guards(variant.conditions, macros=guard_macros) is False:
            continue  # a branch no 64-bit Linux build takes
        raw = _StatementReader(source, variant.tokens, pieces, in_macro=False).read()
        if raw is None:
            continue
        base = host.with_macro_specifiers(
            _context(host.ancestors, node, None, file_guards, start, raw.end, host.guard_macros),
            node,
        )
        in_device_code = bool(dialect.device_context_of(base.function_specifiers, base.guards))
        context = dataclasses.replace(
            base,
            guards=base.guards + variant.conditions,
            local_guards=base.local_guards + variant.conditions,
            guard_macros=guard_macros,
            branch=variant.conditions,
        )
        _finish(
            trial,
            source,
            raw,
            context,
            keyword,
            Span(start, raw.end),
            parse_template,
            lookup,
            host_only=host_only,
        )
    host_skip = next((s for s in trial.skipped if s[1].startswith("host")), None)
    if host_skip is None and trial.skipped and not in_device_code:
        host_skip = trial.skipped[0]  # outside device code, one doubtful branch decides
    if host_skip is not None:
        result.skipped.append(host_skip)  # one entry for the statement
    elif trial.statements:
        result.statements.extend(trial.statements)
        result.branch_variants += len(trial.statements) - 1
    elif trial.skipped:
        result.skipped.append(trial.skipped[0])
    else:
        result.skipped.append(
            (start, "preprocessor directives inside the statement: no branch a 64-bit build takes")
        )


# --------------------------------------------------------------------------- macro invocations


def _expand_macro_uses(
    source: SourceFile,
    parsed: ParsedSource,
    macros: MacroPieces,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    result: ExtractionResult,
    host: _HostCode,
) -> None:
    """Expand every invocation, in code, of a macro whose expansion holds asm."""
    text = source.text
    if "#" not in text and not macros.table.headers:
        return
    table = macros.table
    names = macro_uses.asm_macros(table)
    if not names:
        return
    finder = NodeFinder(parsed.tree.root_node, host.ancestors.parents)
    covered = -1
    expanded: set[tuple[str, int]] = set()
    for name, start in macro_uses.find_uses(text, names):
        if start < covered:
            continue  # an argument of an invocation already expanded
        byte = parsed.to_byte(start)
        node, ups = finder.find(byte, byte + len(name))
        if not _is_code_use(node, ups) or _on_directive_line(text, start):
            continue
        host.ancestors.given(node, ups[:3])  # the climb to its function starts from them
        d = table.lookup(name, start)
        if d is None:
            if table.definitions(name):
                result.skipped_invocations.append(
                    (start, f"macro {name}: no single definition here; its asm is not expanded")
                )
            continue
        use = macro_uses.read_use(text, name, start, d.params is not None)
        if use is None:
            continue
        covered = use.end
        if use.has_directive:
            result.skipped_invocations.append(
                (start, f"macro {name}: preprocessor directive inside its arguments")
            )
            continue
        line = source.line_col(start).line
        done = macro_uses.expand_use(table, text, use, line)
        if done is None:
            result.skipped_invocations.append(
                (start, f"macro {name}: could not be expanded exactly")
            )
            continue
        for used in done.used:
            expanded.add((used.path, used.start))
            result.expanded_macros.add(f"{os.path.realpath(used.path)}:{used.line}")
        _read_expansion(
            source, parsed, node, done, d, file_guards, parse_template, lookup, result, host
        )
    for defs in table.own.defines.values():
        for d in defs:
            if (
                d.params is not None
                and (d.path, d.start) not in expanded
                and table.asm_bearing(d.name)
            ):
                result.unexpanded_macros.append((d.start, d.signature))


def _display_path(path: str, linted: str) -> str:
    """A header's path as the user would write it: relative to the working directory when
    below it (headers are found by their real path)."""
    if path == linted or not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _on_directive_line(text: str, offset: int) -> bool:
    """``#define NAME(...)``, ``#undef NAME``: the name of a directive, not a use."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text[line_start:offset].lstrip().startswith("#")


class _HostCode:
    """Why a statement at a node is never compiled for the GPU, or "" (lazily, per file)."""

    def __init__(self, parsed: ParsedSource, macros: MacroPieces, guards: FileGuards) -> None:
        self.parsed = parsed
        self.macros = macros
        self.guards = guards
        self.guard_macros = GuardMacros(guards, lambda: macros.table)
        self._functions: host_code.HostFunctions | None = None
        self._file_error: bool | None = None
        self.ancestors = _Ancestors(parsed)
        # a .c file with no CUDA marker (grammar_for picked C++ for it)
        self._c_file = (
            os.path.splitext(macros.source.path)[1].lower() == ".c" and parsed.grammar == "cpp"
        )

    def with_macro_specifiers(self, context: Context, node: tree_sitter.Node | None) -> Context:
        """``CUTLASS_DEVICE void f()``: a specifier macro of this file or its headers that
        says ``__device__`` counts as the word itself."""
        if any(w in ("__device__", "__global__") for w in context.function_specifiers):
            return context
        fn = self.ancestors.enclosing_function(node)
        if fn is None:
            return context
        if self._functions is None:
            self._functions = host_code.HostFunctions(self.parsed, lambda: self.macros.table)
        if self._functions.kind(fn) != "device":
            return context
        return _replaced(context, function_specifiers=(*context.function_specifiers, "__device__"))

    def reason(self, node: tree_sitter.Node | None) -> str:
        if self._file_error is None:
            self._file_error = host_code.file_errors_for_cuda(self.parsed.text, self.guards)
        if self._file_error:
            return f"{dialect.NEVER_BUILT}: the file stops with #error unless built elsewhere"
        if self._c_file:
            return f"{dialect.NEVER_BUILT}: a C file without CUDA code (nvcc compiles .c as host C)"
        fn = self.ancestors.enclosing_function(node)
        if fn is None:
            return ""
        if self._functions is None:
            self._functions = host_code.HostFunctions(self.parsed, lambda: self.macros.table)
        if self._functions.host_only(fn):
            return "in a host-only function (no __device__/__global__, no device caller here)"
        return ""


def _is_code_use(node: tree_sitter.Node, ups: Sequence[tree_sitter.Node]) -> bool:
    """``ups``: the node's nearest ancestors, innermost first (three or more, fewer at the
    root)."""
    if (
        node.type in _NON_CODE_NODES
        or any(up.type in _NON_CODE_NODES for up in ups[:3])  # _inside_non_code(node)
        or node.type == "preproc_arg"
    ):
        return False
    parent = ups[0] if ups else None
    if parent is None:
        return True
    if parent.type in (
        "preproc_def",
        "preproc_function_def",
        "preproc_call",
        "preproc_defined",
        "preproc_params",
    ):
        return False
    return not (parent.type == "preproc_ifdef" and parent.child_by_field_name("name") == node)


def _read_expansion(
    source: SourceFile,
    parsed: ParsedSource,
    node: tree_sitter.Node,
    done: macro_uses.Expanded,
    definition: MacroDef,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    result: ExtractionResult,
    host: _HostCode,
) -> None:
    use = done.use
    host_only = host.reason(node)
    invocation = Span(use.start, use.end)
    same_file = [d for d in done.used if d.path == source.path]
    bodies = [Span(d.start, d.end) for d in same_file]
    remap = macro_uses.Remap(done.virtual, invocation, bodies)
    expansion = Expansion(
        macro=use.name,
        invocation=macro_uses.invocation_text(source.text, use),
        span=invocation,
        defined_at=f"{_display_path(definition.path, source.path)}:{definition.line}",
        body=Span(definition.start, definition.end) if definition.path == source.path else None,
    )
    virtual_source = SourceFile(source.path, done.virtual.text)
    vtoks = list(tokens(done.virtual.text))
    guards = tuple(g for d in done.used for g in d.guards)
    base = host.with_macro_specifiers(
        _context(host.ancestors, node, None, file_guards, use.start, use.end, host.guard_macros),
        node,
    )
    context = dataclasses.replace(
        base,
        guards=base.guards + guards,
        local_guards=base.local_guards + guards,
        expansion=expansion,
    )
    # NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, asm(A), asm(B)) inside the body: each branch's own
    inner = FileGuards(done.virtual.text) if "NV_" in done.virtual.text else None
    ordinal = 0
    for k, tok in enumerate(vtoks):
        if tok.kind != "ident" or tok.text not in KEYWORDS:
            continue
        reader = _StatementReader(virtual_source, vtoks[k:], _NoPieces(), in_macro=False)
        raw = reader.read()
        if raw is None:
            continue
        statement_context = context
        if inner is not None:
            nv = inner.at(tok.start, raw.end)[0]
            if nv:
                statement_context = dataclasses.replace(
                    context, guards=context.guards + nv, local_guards=context.local_guards + nv
                )
        mapped = dataclasses.replace(
            raw,
            qualifiers=tuple(remap.qualifier(q) for q in raw.qualifiers),
            template=remap.template(raw.template),
            operands=tuple(remap.operand(o) for o in raw.operands),
            clobbers=tuple(remap.clobber(c) for c in raw.clobbers),
            colons=tuple(remap.point(c) for c in raw.colons),
            open_paren=remap.point(raw.open_paren),
            end=remap.point(raw.end - 1) + 1,
        )
        # Statements of one expansion keep their order (PTX203 pairs scopes across them).
        span = Span(min(use.start + ordinal, use.end - 1), use.end)
        ordinal += 1
        _finish(
            result,
            source,
            mapped,
            statement_context,
            tok.text,
            span,
            parse_template,
            lookup,
            use.start,
            host_only,
        )


def _typed_all(
    operands: tuple[Operand, ...],
    lookup: TypeLookup,
    at: int | None,
    statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None,
) -> tuple[Operand, ...]:
    """Each operand with its type (``_typed``). A statement of the file's tree (``statement``:
    its keyword's ancestors) is typed by one call to the look-up's ``resolve_operands`` where
    it has one (``TypeResolver``), the same answers as a call per operand for less."""
    batch = getattr(lookup, "resolve_operands", None)
    if batch is None or at is not None or statement is None or isinstance(
        statement, tree_sitter.Node
    ):
        return tuple(_typed(op, lookup, at, statement) for op in operands)
    spelled = [op for op in operands if op.expression]
    try:
        ctypes = batch([(op.expression, op.expression_span.start) for op in spelled], statement)
    except Exception:  # as _typed: then each on its own, where one failure costs only its type
        return tuple(_typed(op, lookup, at, statement) for op in operands)
    for operand, ctype in zip(spelled, ctypes, strict=True):
        if ctype is not None:
            _with_ctype(operand, ctype)
    return operands


def _typed(
    operand: Operand,
    lookup: TypeLookup,
    at: int | None = None,
    statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None = None,
) -> Operand:
    if not operand.expression:
        return operand
    try:
        where = operand.expression_span.start
        if at is not None and not (at <= where):
            where = at
        if statement is not None:
            ctype = lookup(operand.expression, where, statement)
        else:
            ctype = lookup(operand.expression, where)
    except Exception:  # a type we cannot work out is unknown, never a crash
        ctype = None
    return operand if ctype is None else _with_ctype(operand, ctype)


def _with_ctype(operand: Operand, ctype: CType) -> Operand:
    """``operand`` with its type: set in its slot, where a copy (``dataclasses.replace``, or
    even an unrolled one) made each typed operand twice (100,000 on flashinfer's sample).
    Sound because ``_finish`` types only operands that are its statement's own: every
    reading (``_RawStatement``) makes its operands anew, and nothing has seen or hashed them
    before they are typed."""
    O_CTYPE(operand, ctype)
    return operand


_DECLARATION_NODES = {
    "declaration",
    "field_declaration",
    "init_declarator",
    "parameter_declaration",
    "function_declarator",
}


def _is_asm_label(
    keyword: tree_sitter.Node, ups: Sequence[tree_sitter.Node] | None = None
) -> bool:
    """``int f(void) asm("f32");`` renames a symbol; it is GNU syntax, not an asm statement.
    ``ups``: the keyword's nearest ancestors (``_ancestors_of``), where already read."""
    if ups is None:
        ups = _ancestors_of(keyword)
    if not ups or ups[0].type != "gnu_asm_expression":
        return False
    parent = ups[1] if len(ups) > 1 else None
    if parent is not None and parent.type == "ERROR":
        parent = ups[2] if len(ups) > 2 else None
    return parent is not None and parent.type in _DECLARATION_NODES


def _ancestors_of(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The parent, grandparent and great-grandparent of ``node``, fewer at the root."""
    ups: list[tree_sitter.Node] = []
    parent = node.parent
    while parent is not None and len(ups) < 3:
        ups.append(parent)
        parent = parent.parent if len(ups) < 3 else None
    return ups


_CONTROL_WORDS = {"if", "while", "for", "switch"}
_STATEMENT_WORDS = {"else", "do", "return", "case", "default"}


_MAYBE_DECLARATOR_END = re.compile(r"[/#\"']")  # a comment, directive or literal: tokenize
_DECLARATOR_END = re.compile(r"[\w$\])]$")


def _follows_declarator(text: str, offset: int) -> bool:
    """Token-level check for an asm label that tree-sitter could not place, as in
    ``clock_t clock(void)`` / ``#if ...`` / ``asm("clock32")`` / ``#endif`` / ``__THROW;``:
    the token before the keyword ends a declarator (a name, ``]``, or a parameter list)."""
    near = text[max(0, offset - 200) : offset]
    tail = near.rstrip()
    if tail and not _MAYBE_DECLARATOR_END.search(near) and not _DECLARATOR_END.search(tail):
        return False  # plainly after an operator or '(': no need to tokenize 2000 characters
    begin = text.rfind("\n", 0, max(0, offset - 2000)) + 1
    if offset - begin > 8000:  # one huge line (minified, generated): never rescan from its start
        begin = offset - 2000
    last, before_open = _last_on_line(text, begin, offset, len(near) - len(tail))
    if last is None or last[1] == ")":
        last, before_open = _declarator_tail(text, begin, offset)
    if last is None:
        return False
    kind, word = last
    if kind == "ident":
        return word not in _STATEMENT_WORDS and word not in QUALIFIERS
    if word == "]":
        return True
    if word != ")":
        return False
    return (
        before_open is not None
        and before_open[0] == "ident"
        and before_open[1] not in _CONTROL_WORDS
        and before_open[1] not in KEYWORDS
    )


_Tail = tuple[str, str]  # (kind, text) of a token


def _last_on_line(
    text: str, begin: int, offset: int, blanks: int
) -> tuple[_Tail | None, _Tail | None]:
    """``_declarator_tail(text, begin, offset)`` read from the start of the line that holds
    the last character before ``offset`` (``blanks`` blanks before it) instead of from
    ``begin``, where that gives the same tokens: nothing before that line and after ``begin``
    can open a token that runs past its start (no ``/*``, no raw string, no backslash ending the
    line before). (None, None) where that is not shown, or where the last token is ")" (the
    "(" it closes may lie before the line)."""
    last_char = offset - blanks - 1
    line = text.rfind("\n", 0, last_char) + 1
    if (
        last_char < begin
        or line < begin
        or text.find("/*", begin, line) >= 0
        or text.find('R"', begin, line) >= 0
        or text.endswith("\\\n", 0, line)
        or text.endswith("\\\r\n", 0, line)
    ):
        return None, None
    return _declarator_tail(text, line, offset)


def _declarator_tail(
    text: str, begin: int, offset: int
) -> tuple[_Tail | None, _Tail | None]:
    """Of the tokens ``_code_tokens(text, begin, stop=offset)`` less the directives: the last
    one, and, when it is ")", the token before the "(" that matches it (the nearest "(" after
    which the parentheses balance: the one open when it comes), or None for either. One pass
    without a token list: the window is up to 2,000 characters before each such statement.
    """
    last: _Tail | None = None
    # for each "(" still open: the token before it (None at the start)
    opened: list[_Tail | None] = []
    match: _Tail | None = None  # for the latest ")": the token before its "("
    matched = False
    skip_until = -1
    count = 0
    for m in _NEXT_TOKEN.finditer(text, begin, offset):
        kind = m.lastgroup
        if kind is None:
            break
        if kind == "delim":
            kind = "raw"
        at = m.start(kind)
        if at < skip_until:
            continue
        word = m.group(kind)
        if kind == "punct" and word == "#" and _at_line_start(text, at):
            skip_until = _end_of_directive(text, at)
            count += 1  # kept as a directive token, whose own step checks no limit
            continue
        if word == "(":
            opened.append(last)
        elif word == ")":
            matched = bool(opened)
            match = opened.pop() if opened else None
        last = (kind, word)
        count += 1
        if count > 200_000:
            break
    if last is None or last[1] != ")":
        return last, None
    return last, match if matched else None


def _keyword_tokens(toks: Sequence[Token]) -> dict[object, int]:
    """Token index of each asm keyword by offset, and under ``("next", offset)`` the index of
    the keyword after it."""
    found = [i for i, t in enumerate(toks) if t.kind == "ident" and _KEYWORD.fullmatch(t.text)]
    out: dict[object, int] = {toks[i].start: i for i in found}
    for here, following in zip(found, found[1:], strict=False):
        out[("next", toks[here].start)] = following
    return out


def _code_tokens(text: str, start: int, stop: int | None = None) -> list[Token]:
    """Tokens from ``start`` to the end of the statement (or to ``stop``), preprocessor lines
    kept as single ``directive`` tokens.

    An unterminated statement ends before the next asm keyword: otherwise each of n nested
    unterminated ``asm(`` would read to the end of the file (quadratic time). Real code never
    nests an asm statement inside another's parentheses.

    One pass over the lexer's matches (``lexer.tokens`` inlined: CUTLASS's GMMA header reads
    265,000 tokens here), O(tokens of the statement)."""
    out: list[Token] = []
    append = out.append
    depth = 0
    skip_until = -1
    # #if blocks opened inside the statement: (depth at the #if, depth at the end of the first
    # branch). Each branch starts from the #if's depth, and the statement ends once the
    # parenthesis closes outside every block.
    groups: list[list[int]] = []
    whole = stop is None
    for m in _NEXT_TOKEN.finditer(text, start, len(text) if stop is None else stop):
        kind = m.lastgroup
        if kind is None:
            break  # only blanks and comments were left
        if kind == "delim":
            kind = "raw"
        at = m.start(kind)
        if at < skip_until:
            continue
        word = m.group(kind)
        if kind != "punct":
            if kind == "ident" and whole and out and word in _KEYWORD_WORDS:
                break
            append(_new_token(Token, (kind, word, at, m.end())))
            if len(out) > 200_000:
                break
            continue
        if word == "#" and _at_line_start(text, at):
            skip_until = _end_of_directive(text, at)
            append(Token("directive", text[at:skip_until], at, skip_until))
            directive = _DIRECTIVE_WORD.match(text, at)
            name = directive.group(1) if directive else ""
            if name in ("if", "ifdef", "ifndef"):
                groups.append([depth, -1])
            elif name in ("elif", "else") and groups:
                if groups[-1][1] < 0:
                    groups[-1][1] = depth
                depth = groups[-1][0]
            elif name == "endif" and groups:
                opened, first = groups.pop()
                depth = first if first >= 0 else depth
                if depth == 0 and whole and len(out) > 2:
                    break
            continue
        append(_new_token(Token, ("punct", word, at, m.end())))
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
            if depth == 0 and whole and not groups:
                break
        elif word in (";", "{", "}") and depth == 0 and len(out) > 1 and whole and not groups:
            break
        if len(out) > 200_000:
            break
    return out


_KEYWORD_WORDS = frozenset(KEYWORDS)  # what _KEYWORD.fullmatch accepts of an identifier


_DIRECTIVE_WORD = re.compile(r"#[ \t]*(\w*)")


def _at_line_start(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return text[line_start:offset].strip() == ""


def _end_of_directive(text: str, offset: int) -> int:
    i = offset
    while True:
        nl = text.find("\n", i)
        if nl == -1:
            return len(text)
        if nl > 0 and text[nl - 1] == "\\" or (nl > 1 and text[nl - 2 : nl] == "\\\r"):
            i = nl + 1
            continue
        return nl


# --------------------------------------------------------------------------- the statement


class _StatementReader:
    def __init__(
        self,
        source: SourceFile,
        stream: Sequence[Token],
        macros: MacroPieces,
        in_macro: bool,
    ) -> None:
        self.source = source
        self.toks = stream
        self.macros = macros
        self.in_macro = in_macro
        self.problems: list[str] = []
        self.opaque_sections = False
        self.missing_commas: list[tuple[int, int]] = []

    def read(self) -> _RawStatement | None:
        toks = self.toks
        i = 1
        qualifiers: list[Qualifier] = []
        while i < len(toks) and toks[i].kind == "ident" and toks[i].text in QUALIFIERS:
            qualifiers.append(Qualifier(toks[i].text, Span(toks[i].start, toks[i].end)))
            i += 1
        if i >= len(toks) or toks[i].text != "(":
            return None  # `#define __asm__ asm`, MSVC `__asm { }`: not a GNU asm statement
        open_paren = toks[i].start
        current: list[Token] = []
        sections: list[list[Token]] = [current]
        colons: list[int] = []
        depth = 0
        end = None
        for k in range(i + 1, len(toks)):
            tok = toks[k]
            kind, text = tok[0], tok[1]
            if kind == "punct":  # brackets and colons are punctuation
                if text in _OPENING:
                    depth += 1
                elif text in _CLOSING:
                    if depth == 0:
                        if text == ")":
                            end = tok[3]
                            break
                        continue
                    depth -= 1
                elif depth == 0 and text in (":", "::"):
                    for c in range(len(text)):
                        colons.append(tok[2] + c)
                        current = []
                        sections.append(current)
                    continue
            elif kind == "directive":
                self.opaque_sections = True
                self.problems.append("preprocessor directive inside the statement")
                continue
            current.append(tok)
        if end is None:
            self.problems.append("unterminated asm statement: no closing parenthesis")
            last = toks[-1].end if toks else open_paren + 1
            end = last
        template = self._template(sections[0], open_paren)
        outputs = self._operands(sections[1], "output", 0) if len(sections) > 1 else []
        inputs = self._operands(sections[2], "input", len(outputs)) if len(sections) > 2 else []
        clobbers = self._clobbers(sections[3]) if len(sections) > 3 else []
        labels = (
            tuple(t.text for t in sections[4] if t.kind == "ident") if len(sections) > 4 else ()
        )
        if len(sections) > 5:
            self.problems.append("more than four colons")
        return _RawStatement(
            qualifiers=tuple(qualifiers),
            extended=len(sections) > 1,
            template=template,
            operands=tuple(outputs + inputs),
            clobbers=tuple(clobbers),
            goto_labels=labels,
            colons=tuple(colons),
            open_paren=open_paren,
            end=end,
            problems=tuple(self.problems),
            opaque_sections=self.opaque_sections,
            missing_commas=tuple(self.missing_commas),
        )

    # -- template

    def _template(self, toks: list[Token], open_paren: int) -> Template:
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        pieces: list[TemplatePiece] = []
        i = 0
        while i < len(toks):
            tok = toks[i]
            begin = len(starts)  # one entry per template character so far
            kind, literal, at, end = tok
            if (
                kind == "string"
                and len(literal) > 1
                and literal[0] == literal[-1] == '"'
                and "\\" not in literal
            ):  # the usual literal, terminated, without escapes: decode_string_literal's reading
                chars.append(literal[1:-1])
                starts.extend(range(at + 1, end - 1))
                ends.extend(range(at + 2, end))
                pieces.append(TemplatePiece(kind, Span(at, end), begin, len(starts)))
                i += 1
                continue
            if kind in ("string", "raw"):
                if len(literal) > _DECODED_CHARS:
                    decoded = decode_string_literal(tok)
                    spelled, terminated = decoded.text, decoded.terminated
                    starts.extend(decoded.starts)
                    ends.extend(decoded.ends)
                else:
                    spelled, runs, terminated = _decoded(kind, literal)
                    for first_start, first_end, count in runs:
                        starts.extend(range(at + first_start, at + first_start + count))
                        ends.extend(range(at + first_end, at + first_end + count))
                chars.append(spelled)
                if not terminated:
                    self.problems.append("unterminated string literal in the template")
                pieces.append(TemplatePiece(kind, Span(at, end), begin, begin + len(spelled)))
                i += 1
                continue
            # Anything else is a macro (or, in a #define body, a `#param` stringification).
            j = i + 1
            if tok.text == "#" and j < len(toks):
                j += 1
            if j < len(toks) and toks[j].text == "(":
                j = _skip_group(toks, j)
            piece_end = toks[j - 1].end
            value = self.macros.piece(toks[i:j], (tok.start, piece_end))
            if value is not None:
                chars.append(value.text)
                starts.extend(value.starts)
                ends.extend(value.ends)
            else:
                chars.append(HOLE)
                starts.append(tok.start)
                ends.append(piece_end)
            pieces.append(TemplatePiece("macro", Span(tok.start, piece_end), begin, len(starts)))
            i = j
        text = "".join(chars)
        if not pieces:
            self.problems.append("empty template section")
            starts, ends = [], []
            pieces.append(TemplatePiece("string", Span(open_paren + 1, open_paren + 1), 0, 0))
        return Template(text, starts, ends, tuple(pieces))  # made Offsets from the lists

    # -- operands

    def _operands(self, toks: list[Token], role: str, first_index: int) -> list[Operand]:
        operands: list[Operand] = []
        for group in _split_operands(toks, self.problems, self.missing_commas):
            if not group:
                continue
            operand = self._operand(group, role, first_index + len(operands))
            if operand is None:
                self.opaque_sections = True
                self.problems.append(f"could not read {role} operand at offset {group[0].start}")
                continue
            operands.append(operand)
        return operands

    def _operand(self, group: list[Token], role: str, index: int) -> Operand | None:
        k = 0
        name = None
        if group[0].text == "[" and len(group) >= 3 and group[2].text == "]":
            name = group[1].text
            k = 3
        if group[-1].text != ")":
            return None
        # The expression is the last parenthesized group; everything before it is the constraint.
        depth = 0
        open_index = None
        for j in range(len(group) - 1, k - 1, -1):
            if group[j].text == ")":
                depth += 1
            elif group[j].text == "(":
                depth -= 1
                if depth == 0:
                    open_index = j
                    break
        if open_index is None or open_index == k:
            return None
        constraint = self._constraint(group[k:open_index])
        if constraint is None:
            return None
        open_tok, close_tok = group[open_index], group[-1]
        raw = self.source.text[open_tok.end : close_tok.start]
        lead = len(raw) - len(raw.lstrip())
        expression = raw.strip()
        expr_start = open_tok.end + lead
        return Operand(
            index=index,
            role=role,
            constraint=constraint,
            expression=expression,
            expression_span=Span(expr_start, expr_start + len(expression)),
            span=Span(group[0].start, close_tok.end),
            symbolic_name=name,
        )

    def _constraint(self, toks: list[Token]) -> Constraint | None:
        if not toks:
            return None
        span = Span(toks[0].start, toks[-1].end)
        if len(toks) == 1:  # the usual "r": one literal
            only = toks[0]
            if only[0] in _LITERALS:
                return _constraint_from_text(literal_value(only[0], only[1]), span)
        elif all(t.kind in _LITERALS for t in toks):
            text = "".join(literal_value(t.kind, t.text) for t in toks)
            return _constraint_from_text(text, span)
        if toks[0].kind == "ident":
            value = self.macros.piece(toks, (span.start, span.end))
            if value is not None:
                return _constraint_from_text(value.text, span)
        text = self.source.text[span.start : span.end]
        return Constraint(text=text, modifiers="", letters="", span=span, opaque=True)

    def _clobbers(self, toks: list[Token]) -> list[Clobber]:
        clobbers: list[Clobber] = []
        for group in _split_commas(toks):
            if group and all(t.kind in ("string", "raw") for t in group):
                name = "".join(literal_value(t.kind, t.text) for t in group)
                clobbers.append(Clobber(name, Span(group[0].start, group[-1].end)))
            elif group:
                self.opaque_sections = True
        return clobbers


def _constraint_from_text(text: str, span: Span) -> Constraint:
    modifiers, letters = _constraint_parts(text)
    return Constraint(text=text, modifiers=modifiers, letters=letters, span=span)


@functools.lru_cache(maxsize=1024)
def _constraint_parts(text: str) -> tuple[str, str]:
    modifiers = "".join(c for c in text if c in _MODIFIERS)
    letters = "".join(c for c in text if c not in _MODIFIERS and not c.isspace())
    return modifiers, letters


def _skip_group(toks: Sequence[Token], open_index: int) -> int:
    """Index just past the group opened at ``open_index``."""
    depth = 0
    for j in range(open_index, len(toks)):
        if toks[j].text in ("(", "[", "{"):
            depth += 1
        elif toks[j].text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def _split_operands(
    toks: list[Token], problems: list[str], missing_commas: list[tuple[int, int]]
) -> list[list[Token]]:
    """Operands split on commas, and also where a comma is missing: nvcc's front end reads
    ``"r"(a) "l"(b)`` as two operands (CUTLASS ships such code), GCC and clang reject it.

    One pass (the depth at a top-level comma is 0, so splitting on commas first and then
    within each piece counts the same depths)."""
    groups: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for tok in toks:
        text = tok[1]
        if depth == 0:
            if text == ",":
                groups.append(current)
                current = []
                continue
            if current and current[-1][1] == ")" and (tok[0] in _LITERALS or text == "["):
                problems.append(f"missing ',' between operands at offset {tok[2]}")
                missing_commas.append((current[-1][2], tok[2]))
                groups.append(current)
                current = []
        if text in _OPENING:
            depth += 1
        elif text in _CLOSING:
            depth -= 1
        current.append(tok)
    groups.append(current)
    return groups


def _split_commas(toks: list[Token]) -> list[list[Token]]:
    groups: list[list[Token]] = [[]]
    depth = 0
    for tok in toks:
        if tok.text in _OPENING:
            depth += 1
        elif tok.text in _CLOSING:
            depth -= 1
        if tok.text == "," and depth == 0:
            groups.append([])
            continue
        groups[-1].append(tok)
    return groups


_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
_LITERALS = frozenset(("string", "raw"))


# --------------------------------------------------------------------------- plain statements

# The reader's fast path. Most statements are plain: a template of string literals, and operands
# each of one plain constraint literal and a parenthesized expression without literals, comments
# or directives (``"=r"(d0)``, ``[p] "l"(ptr + 1)``, ``"n"(int32_t(scaleA))``). Such a statement
# is read with a regex match per operand instead of a token tuple per token (CUTLASS's GMMA
# header: 48,612 operands, 264,000 tokens); anything else returns None and the token path reads
# it, as it always did. Where this path gives a reading it is the token path's
# (tests/test_plain_reader.py checks the two against each other on generated statements).
#
# The patterns skip only blanks between tokens: one that skipped comments before a required
# token could, on failing, backtrack into a comment and find its token there (Python 3.10 has
# no atomic groups). Comments are skipped by the lexer's own pattern where a plain pattern
# fails (``_after_comments``), and a comment inside an operand sends the statement to the token
# path.
_BLANKS = r"[ \t\r\f\v\n]*"  # the lexer's blanks, without its line continuations
# An expression's characters: none that starts a literal, a comment or a directive, and no
# bracket; brackets nest, matched by kind (as the token path counts them). A backslash, a line
# continuation or not, changes no token that counts.
_EXPR_CHAR = r"""[^()\[\]{}"'/#]"""
_EXPR_RUN = rf"{_EXPR_CHAR}*(?:/(?![/*]){_EXPR_CHAR}*)*"


def _nested(depth: int) -> str:
    inner = _EXPR_RUN
    for _ in range(depth):
        inner = rf"{_EXPR_RUN}(?:(?:\({inner}\)|\[{inner}\]|\{{{inner}\}}){_EXPR_RUN})*"
    return inner


_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"  # the lexer's identifier
_PLAIN_WORD = re.compile(_BLANKS + rf"(?:({_IDENT})|\()")  # a qualifier, or the "("
_PLAIN_LITERAL = re.compile(_BLANKS + r'("[^"\\\n]*(?:(?:\\\r?\n|\\.)[^"\\\n]*)*")', re.S)
_PLAIN_SEP = re.compile(_BLANKS + r"([,:)])")
# up to the "(" of the expression
_OPERAND_HEAD = (
    _BLANKS
    + rf"(?P<op>(?:\[{_BLANKS}(?P<name>{_IDENT}){_BLANKS}\]{_BLANKS})?"
    + r'"(?P<con>[^"\\\n]*)")'
    + _BLANKS
    + r"\("
)
# after the ")": a separator, or the literal or "[" of an operand after a missing comma
_OPERAND_TAIL = _BLANKS + r'(?P<sep>[,:)"\[])?'
# a whole operand whose expression nests brackets two deep (deeper: ``_expression_end``)
_PLAIN_OPERAND = re.compile(_OPERAND_HEAD + rf"(?P<expr>{_nested(2)})\)" + _OPERAND_TAIL)
_PLAIN_HEAD = re.compile(_OPERAND_HEAD)
_PLAIN_TAIL = re.compile(_OPERAND_TAIL)
_PLAIN_RUN = re.compile(_EXPR_RUN)
_PLAIN_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_PLAIN_CLOBBER = re.compile(
    _BLANKS + r'(?P<lit>"(?P<name>[^"\\\n]*)")' + _BLANKS + r"(?P<sep>[,:)])?"
)
_TOKEN_LIMIT = 200_000  # _code_tokens' bound on a statement's tokens (each at least a character)


def _after_comments(text: str, pos: int) -> int:
    """Where the blanks, comments and line continuations from ``pos`` end (the lexer's own
    pattern: the token path skips the same), or -1 where there are none."""
    end = SKIPPED.match(text, pos).end()  # type: ignore[union-attr]  # matches ""
    return end if end > pos else -1


def _expression_end(text: str, pos: int) -> int:
    """The offset of the ")" that closes the expression starting at ``pos`` (after its "("),
    brackets nested to any depth, comments (``"r"(/*as_b32*/ x)``) skipped as the lexer skips
    them; -1 where the expression is not plain."""
    closers = [")"]
    while True:
        pos = _PLAIN_RUN.match(text, pos).end()  # type: ignore[union-attr]  # matches ""
        c = text[pos : pos + 1]
        closer = _PLAIN_CLOSERS.get(c)
        if closer is not None:
            closers.append(closer)
        elif c and c == closers[-1]:
            closers.pop()
            if not closers:
                return pos
        elif c == "/":  # the run stops at a "/" only where a comment starts
            pos = SKIPPED.match(text, pos).end()  # type: ignore[union-attr]
            continue
        else:
            return -1
        pos += 1


def _tail(text: str, pos: int) -> re.Match[str]:
    tail = _PLAIN_TAIL.match(text, pos)
    assert tail is not None  # its every part is optional
    return tail


def _read_plain_here(
    source: SourceFile,
    parsed: ParsedSource,
    start: int,
    keyword: str,
    ups: Sequence[tree_sitter.Node],
) -> _RawStatement | None:
    """``_read_plain(source, start, keyword)``, or the reading of the same text elsewhere moved
    here (``reading_memo``). ``ups``: the keyword's ancestors; where the first is its
    ``gnu_asm_expression``, its end is the text to look up (tree-sitter may place it wrongly:
    then nothing is found, or a reading of that same text). O(length of the statement)."""
    text = source.text
    if ups and ups[0].type == "gnu_asm_expression":
        raw = reading_memo.recall(text, start, parsed.to_char(ups[0].end_byte), keyword)
        if raw is not None:
            return raw
    raw = _read_plain(source, start, keyword)
    if raw is not None:
        reading_memo.remember(text, start, keyword, raw)
    return raw


def _read_plain(source: SourceFile, start: int, keyword: str) -> _RawStatement | None:
    """``_StatementReader(source, _code_tokens(source.text, start), ...).read()`` for the
    statement whose keyword ``keyword`` is at ``start``, where the statement is plain (above);
    None where it is not. O(length of the statement), a few regex matches per operand."""
    text = source.text
    pos = start + len(keyword)
    qualifiers: list[Qualifier] = []
    while True:
        m = _PLAIN_WORD.match(text, pos)
        if m is None:
            pos = _after_comments(text, pos)
            if pos < 0:
                return None
            continue
        pos = m.end()
        word = m.group(1)
        if word is None:
            break
        if word not in QUALIFIERS:
            return None
        qualifiers.append(Qualifier(word, Span(m.start(1), pos)))
    open_paren = pos - 1
    literals: list[tuple[str, int, int]] = []  # (spelling, start, end)
    while True:
        m = _PLAIN_LITERAL.match(text, pos)
        if m is None:
            after = _after_comments(text, pos)
            if after < 0:
                break
            pos = after
            continue
        pos = m.end()
        literals.append((m.group(1), m.start(1), pos))
    m = _PLAIN_SEP.match(text, pos)
    if not literals or m is None:
        return None
    sep = m.group(1)
    pos = m.end()
    colons: list[int] = []
    operands: list[Operand] = []
    clobbers: list[Clobber] = []
    problems: list[str] = []
    missing_commas: list[tuple[int, int]] = []
    while sep == ":":
        colons.append(pos - 1)
        if len(colons) == 1:
            read = _plain_operands(text, pos, "output", operands, problems, missing_commas)
        elif len(colons) == 2:
            read = _plain_operands(text, pos, "input", operands, problems, missing_commas)
        elif len(colons) == 3:
            read = _plain_clobbers(text, pos, clobbers)
        else:
            return None  # goto labels, or a fifth section
        if read is None:
            return None
        pos, sep = read
    if sep != ")" or pos - start >= _TOKEN_LIMIT:
        return None
    template = _plain_template(literals)
    if template is None:
        return None
    return _RawStatement(
        qualifiers=tuple(qualifiers),
        extended=bool(colons),
        template=template,
        operands=tuple(operands),
        clobbers=tuple(clobbers),
        goto_labels=(),
        colons=tuple(colons),
        open_paren=open_paren,
        end=pos,
        problems=tuple(problems),
        opaque_sections=False,
        missing_commas=tuple(missing_commas),
    )


def _plain_template(literals: list[tuple[str, int, int]]) -> Template | None:
    """``_StatementReader._template`` of ``_read_plain``'s literals (terminated, unprefixed,
    at least one), without a token per literal and with the pieces and the template filled
    slot by slot; None where one decodes as unterminated (the token path then reads it)."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pieces: list[TemplatePiece] = []
    for literal, at, end in literals:
        begin = len(starts)
        if "\\" not in literal:  # decode_string_literal's reading of it
            chars.append(literal[1:-1])
            starts.extend(range(at + 1, end - 1))
            ends.extend(range(at + 2, end))
            text_end = len(starts)
        else:
            if len(literal) > _DECODED_CHARS:
                decoded = decode_string_literal(Token("string", literal, at, end))
                spelled, terminated = decoded.text, decoded.terminated
                starts.extend(decoded.starts)
                ends.extend(decoded.ends)
            else:
                spelled, runs, terminated = _decoded("string", literal)
                for first_start, first_end, count in runs:
                    starts.extend(range(at + first_start, at + first_start + count))
                    ends.extend(range(at + first_end, at + first_end + count))
            if not terminated:
                return None
            chars.append(spelled)
            text_end = begin + len(spelled)
        span = new(Span)
        SPAN_START(span, at)
        SPAN_END(span, end)
        piece = new(TemplatePiece)
        PIECE_KIND(piece, "string")
        PIECE_SPAN(piece, span)
        PIECE_TEXT_START(piece, begin)
        PIECE_TEXT_END(piece, text_end)
        pieces.append(piece)
    template = new(Template)
    T_TEXT(template, "".join(chars))
    T_CHAR_STARTS(template, Offsets("q", starts))  # as Template.__post_init__ stores them
    T_CHAR_ENDS(template, Offsets("q", ends))
    T_PIECES(template, tuple(pieces))
    return template


def _plain_operands(
    text: str,
    pos: int,
    role: str,
    operands: list[Operand],
    problems: list[str],
    missing_commas: list[tuple[int, int]],
) -> tuple[int, str] | None:
    """Read the operands of a section from ``pos`` (after its colon) onto ``operands``, their
    missing commas onto ``problems`` and ``missing_commas``, as ``_operands`` reads them; where
    the section ends (after its ":" or ")") and that separator, or None where not plain."""
    # groups by number, all at once: op 1, name 2, con 3 (and in _PLAIN_OPERAND expr 4, sep 5)
    while True:
        m = _PLAIN_OPERAND.match(text, pos)
        if m is not None:  # the usual operand, in one match
            _, name, con, expr, sep = m.groups()
            op_at, con_at, expr_at = m.start(1), m.start(3), m.start(4)
            close = expr_at + len(expr)
            tail = m
        else:
            head = _PLAIN_HEAD.match(text, pos)
            if head is None:
                m = _PLAIN_SEP.match(text, pos)  # an empty operand, or the section's end
                if m is None:
                    pos = _after_comments(text, pos)
                    if pos < 0:
                        return None
                    continue
                pos = m.end()
                if m.group(1) == ",":
                    continue
                return pos, m.group(1)
            _, name, con = head.groups()
            op_at, con_at, expr_at = head.start(1), head.start(3), head.end()
            close = _expression_end(text, expr_at)
            if close < 0:
                return None
            expr = text[expr_at:close]
            tail = _tail(text, close + 1)
            sep = tail.group("sep")
        if sep is None:
            after = _after_comments(text, tail.end())
            if after < 0:
                return None
            tail = _tail(text, after)
            sep = tail.group("sep")
            if sep is None:
                return None
        if "asm" in expr or name in _KEYWORD_WORDS:
            return None  # an asm keyword inside would have ended the token stream
        con_end = con_at + len(con)
        modifiers, letters = _constraint_parts(con)
        expression = expr.strip()
        expr_start = expr_at + len(expr) - len(expr.lstrip())
        span = new(Span)
        SPAN_START(span, con_at - 1)
        SPAN_END(span, con_end + 1)
        constraint = new(Constraint)
        C_TEXT(constraint, con)
        C_MODIFIERS(constraint, modifiers)
        C_LETTERS(constraint, letters)
        C_SPAN(constraint, span)
        C_OPAQUE(constraint, False)
        operand = new(Operand)
        O_INDEX(operand, len(operands))
        O_ROLE(operand, role)
        O_CONSTRAINT(operand, constraint)
        O_EXPRESSION(operand, expression)
        span = new(Span)
        SPAN_START(span, expr_start)
        SPAN_END(span, expr_start + len(expression))
        O_EXPRESSION_SPAN(operand, span)
        span = new(Span)
        SPAN_START(span, op_at)
        SPAN_END(span, close + 1)
        O_SPAN(operand, span)
        O_NAME(operand, name)
        O_CTYPE(operand, None)
        operands.append(operand)
        if sep == '"' or sep == "[":  # nvcc's missing comma (see _split_operands)
            pos = tail.start("sep")
            problems.append(f"missing ',' between operands at offset {pos}")
            missing_commas.append((close, pos))
            continue
        pos = tail.end()
        if sep != ",":
            return pos, sep


def _plain_clobbers(text: str, pos: int, clobbers: list[Clobber]) -> tuple[int, str] | None:
    """Read the clobbers from ``pos`` (after their colon) onto ``clobbers``; where they end
    (after the ")" or a ":") and that separator, or None where not plain."""
    while True:
        m = _PLAIN_CLOBBER.match(text, pos)
        if m is None:
            m = _PLAIN_SEP.match(text, pos)  # an empty clobber, or the end
            if m is None:
                pos = _after_comments(text, pos)
                if pos < 0:
                    return None
                continue
            sep = m.group(1)
            pos = m.end()
        else:
            clobbers.append(Clobber(m.group("name"), Span(*m.span("lit"))))
            sep = m.group("sep")
            pos = m.end()
            if sep is None:  # a comment before the separator, or not plain
                after = _after_comments(text, pos)
                m = _PLAIN_SEP.match(text, after) if after >= 0 else None
                if m is None:
                    return None
                sep = m.group(1)
                pos = m.end()
        if sep != ",":
            return pos, sep


_DECODED_CHARS = 512  # longer literals are decoded where they are, not kept


@functools.lru_cache(maxsize=4096)
def _decoded(kind: str, literal: str) -> tuple[str, tuple[tuple[int, int, int], ...], bool]:
    """``decode_string_literal`` of a literal spelled at offset 0, memoised (templates repeat
    their literals: "\\n\\t", "}\\n", ...): its text, whether it is terminated, and its
    offsets as runs (first start, first end, count) of characters whose starts and ends each
    step by one, so that a use adds the token's start per run, not per character."""
    decoded = decode_string_literal(Token(kind, literal, 0, len(literal)))
    runs: list[tuple[int, int, int]] = []
    last_start = last_end = -2
    for start, end in zip(decoded.starts, decoded.ends, strict=True):
        if runs and start == last_start + 1 and end == last_end + 1:
            first_start, first_end, count = runs[-1]
            runs[-1] = (first_start, first_end, count + 1)
        else:
            runs.append((start, end, 1))
        last_start, last_end = start, end
    return decoded.text, tuple(runs), decoded.terminated


# --------------------------------------------------------------------------- string macros


class MacroPieces:
    """Template and constraint pieces that are macros (``STR(op)``, ``__LDG_PTR``), expanded
    with the file's #defines (and its relatively included headers'); the table is built on
    first use, once per file."""

    def __init__(self, source: SourceFile, forbidden: frozenset[str] = frozenset()) -> None:
        self.source = source
        self.forbidden = forbidden
        self._table: MacroTable | None = None
        self.used: list[MacroDef] = []

    @property
    def table(self) -> MacroTable:
        if self._table is None:
            self._table = MacroTable(self.source.path, self.source.text)
        return self._table

    def with_forbidden(self, forbidden: frozenset[str]) -> MacroPieces:
        other = MacroPieces(self.source, forbidden)
        other._table = self._table
        other.used = self.used
        if self._table is None:
            other._table = self.table
        return other

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        if not any(t.kind == "ident" for t in toks):
            return None
        value = expand_to_string(self.table, self.source.text, toks, within, self.forbidden)
        if value is not None:
            self.used.extend(value.used)
        return value


class _RefusedPieces(MacroPieces):
    """For ``reread``: a macro piece needs the file's macro table, so the statement is read
    in full instead; ``asked`` says whether one came up."""

    def __init__(self, source: SourceFile) -> None:
        super().__init__(source)
        self.asked = False

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        if any(t.kind == "ident" for t in toks):
            self.asked = True
        return None


class _NoPieces(MacroPieces):
    """An expansion is already expanded: what is left of its macros stays a hole."""

    def __init__(self) -> None:
        pass

    def piece(self, toks: Sequence[Token], within: tuple[int, int]) -> ExpandedString | None:
        return None


# --------------------------------------------------------------------------- context


def _macro_params(parsed: ParsedSource, owner: tree_sitter.Node | None) -> frozenset[str]:
    """Parameter names of the function-like #define ``owner`` (``...`` is ``__VA_ARGS__``)."""
    if owner is None or owner.type != "preproc_function_def":
        return frozenset()
    params = owner.child_by_field_name("parameters")
    if params is None:
        return frozenset()
    names = {"__VA_ARGS__", "__VA_OPT__"}
    for child in params.named_children:
        names.add(parsed.node_text(child).rstrip(".").strip())
    return frozenset(names)


def _macro_name(parsed: ParsedSource, owner: tree_sitter.Node | None) -> str:
    if owner is None or owner.type not in _MACRO_BODY_OWNERS:
        return "<macro>"
    name = owner.child_by_field_name("name")
    return parsed.node_text(name) if name is not None else "<macro>"


def _context(
    ancestors: _Ancestors,
    node: tree_sitter.Node | None,
    macro: str | None,
    file_guards: FileGuards,
    start: int,
    end: int,
    guard_macros: GuardMacros | None = None,
) -> Context:
    function = None
    specifiers: tuple[str, ...] = ()
    fn = ancestors.function(node)
    if fn is not None:
        function, specifiers = ancestors.header(fn)
    guards, local_guards = file_guards.at(start, end)
    known = guard_macros.at(start) if guard_macros is not None and guards else ()
    # one Context per distinct answer (a look-up costs a fifth of making one): the
    # statements of a function mostly share it
    key = (function, specifiers, macro, guards, local_guards, known)
    context = _MADE.get(key)
    if context is None:
        if len(_MADE) >= _CONTEXTS_KEPT:
            _MADE.clear()
        context = _MADE[key] = Context(
            function=function,
            function_specifiers=specifiers,
            macro=macro,
            guards=guards,
            local_guards=local_guards,
            guard_macros=known,
        )
    return context


_MADE: dict[tuple[object, ...], Context] = {}


class _Ancestors:
    """The functions around a node, memoised per node on the way up: the statements of a
    block climb only to the first node an earlier one passed (a tree-sitter parent step costs
    a descent from the root), and a function's header is read once, not once per statement.
    """

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        # node id -> parent node: the parent steps made, shared with the type resolver's climbs
        # (``TypeResolver.share_parents``)
        self.parents: dict[int, tree_sitter.Node] = {}
        # node id -> (innermost function definition, ``host_code.enclosing_function``)
        self._known: dict[int, tuple[tree_sitter.Node | None, tree_sitter.Node | None]] = {}
        self._headers: dict[int, tuple[str | None, tuple[str, ...]]] = {}
        self._words: dict[bytes, tuple[str, ...]] = {}
        self._given: tuple[int, Sequence[tree_sitter.Node]] | None = None

    def given(self, node: tree_sitter.Node, ups: Sequence[tree_sitter.Node]) -> None:
        """``node``'s nearest ancestors, already read (``_ancestors_of``): a climb from it
        takes them instead of stepping up again."""
        self._given = (node.id, ups)

    def _climb(
        self, node: tree_sitter.Node | None
    ) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        known = self._known
        climbed: list[tuple[tree_sitter.Node, str]] = []
        found: tuple[tree_sitter.Node | None, tree_sitter.Node | None] = (None, None)
        current = node
        given: Sequence[tree_sitter.Node] = ()
        if node is not None and self._given is not None and self._given[0] == node.id:
            given = self._given[1]
        step = 0
        parents = self.parents
        while current is not None:
            key = current.id
            cached = known.get(key)
            if cached is not None:
                found = cached
                break
            climbed.append((current, current.type))
            if step < len(given):
                current = given[step]
                step += 1
            else:
                current = shared_parent(parents, current, key)
        for current, kind in reversed(climbed):
            if kind == "function_definition":
                found = (current, current)
            elif kind == "lambda_expression":
                found = (found[0], None)
            known[current.id] = found
        return found

    def function(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """The innermost function definition around ``node`` (itself included), through
        lambdas."""
        return self._climb(node)[0]

    def enclosing_function(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """``host_code.enclosing_function(node)``: None inside a lambda."""
        return self._climb(node)[1]

    def header(self, fn: tree_sitter.Node) -> tuple[str | None, tuple[str, ...]]:
        key = fn.id
        cached = self._headers.get(key)
        if cached is None:
            cached = self._headers[key] = _function_header(self.parsed, fn, self._words)
        return cached


def _function_header(
    parsed: ParsedSource, fn: tree_sitter.Node, memo: dict[bytes, tuple[str, ...]] | None = None
) -> tuple[str | None, tuple[str, ...]]:
    """The function's name and the words of its header that rules read. ``memo``: the words
    by the header's bytes (per file: GMMA's 736 functions spell 110 headers of up to 3,000
    characters, parameter lists included)."""
    inner = function_name_node(fn)
    name = parsed.node_text(inner) if inner is not None else None
    body = fn.child_by_field_name("body")
    header_end = body.start_byte if body is not None else fn.end_byte
    spelled = parsed.data[fn.start_byte : header_end]
    words = memo.get(spelled) if memo is not None else None
    if words is None:
        header = spelled.decode("utf-8", "replace")
        # Template headers and the specifiers before the declarator; macros such as
        # `__SM_32_INTRINSICS_DECL__` are kept as words too, for rules that know them.
        words = tuple(
            w
            for w in _FUNCTION_WORDS.findall(header)
            if w.startswith("__") or w in ("static", "inline", "constexpr")
        )
        if memo is not None:
            memo[spelled] = words
    return name, words
