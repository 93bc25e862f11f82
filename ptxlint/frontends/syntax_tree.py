"""tree-sitter parsing: which grammar for which file, and byte <-> character offsets."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

import tree_sitter
import tree_sitter_cuda

from ptxlint import collector
from ptxlint.frontends.specifier_uses import MacroJudge, MacroUses, RecordedJudge, macro_uses
from ptxlint.frontends.split_conditionals import split_conditionals
from ptxlint.lazy_regex import on_first_use

# Headers are CUDA more often than not in the projects ptxlint is for; the CUDA grammar is a
# superset of C++, so it only costs when a plain C++ file uses CUDA's keywords as identifiers.
_CPP_ONLY_EXTENSIONS = {".cc", ".cpp", ".cxx", ".c"}
_CUDA_MARKERS = ("__device__", "__global__", "__CUDA_ARCH__", "__shared__")
_NON_ASCII = on_first_use(r"[^\x00-\x7f]")
_MACRO_WORD = on_first_use(rb"\b_*[A-Z][A-Z0-9_]*\b")  # a word that may be a macro


@cache
def _parser(grammar: str) -> tree_sitter.Parser:
    if grammar == "cuda":
        return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    # Imported when a plain C++ file needs it: with its importlib.resources, 2 ms of start-up.
    import tree_sitter_cpp

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cpp.language()))


def grammar_language(grammar: str) -> tree_sitter.Language:
    """The tree-sitter language of ``grammar`` ("cuda", "cpp"), the one files are parsed with."""
    language = _parser(grammar).language
    assert language is not None  # each parser is built with its language
    return language


def grammar_for(path: str, text: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext in _CPP_ONLY_EXTENSIONS and not any(m in text for m in _CUDA_MARKERS):
        return "cpp"
    return "cuda"


@dataclass
class ParsedSource:
    """A tree-sitter tree over ``text`` with offset conversion between bytes and characters."""

    text: str
    data: bytes
    tree: tree_sitter.Tree
    grammar: str
    _wide: tuple[list[int], list[int]] | None = field(default=None, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)
    # byte ranges ``[start, end)`` left out of the parse (``parse_leaving_out``): the tree
    # holds nothing there, every other node where the whole file's parse puts it
    unread: tuple[tuple[int, int], ...] = ()
    # CUDA's alignment macros left out of the parse (``attribute_macros``): nothing a reader
    # needs is there, but a parse resumed from this tree must leave them out too
    skipped: tuple[tuple[int, int], ...] = ()
    # ``skipped`` holds ``#if`` groups split across braces too (``split_conditionals``)
    split: bool = False
    # the uses of specifier macros left out of the parse (``specifier_uses``), in
    # ``skipped`` too: a function's header starts at the first of them before its node
    # (``header_start``)
    specifier_uses: tuple[tuple[int, int], ...] = ()
    # each macro whose uses were left out, and of what kind (``specifier_uses.MacroUses``):
    # the namespace and constraint macros' uses are in ``skipped`` only
    left_out_names: tuple[tuple[str, str], ...] = ()
    # a reader needed what was left out (``reads``): whoever left it out parses the whole file
    missed: bool = field(default=False, compare=False)
    # whether a macro, by name and the character it stands at, declares a kernel (expands to
    # specifiers holding ``__global__`` in every configuration: ``cxx.specifier_macros.
    # SpecifierMacros.kernel``); None where the parse was given no judge of the file's macros
    kernel_macro: Callable[[str, int], bool] | None = field(
        default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # alive when the file's lint is let go only if a reference cycle holds it (and the
        # tree): then the young collection runs (``collector.watch``)
        collector.watch(self)

    @property
    def ascii(self) -> bool:
        return len(self.data) == len(self.text)

    def reads(self, start: int, end: int) -> bool:
        """Whether the tree holds what lies in bytes ``[start, end)``: False, and ``missed``
        set, where that meets a range left out of the parse. For a reader that may go
        anywhere in the file (value flow follows calls across functions)."""
        unread = self.unread
        if unread:
            k = bisect.bisect_right(unread, (end,)) - 1  # the last range starting before end
            if k >= 0 and unread[k][1] > start:
                self.missed = True
                return False
        return True

    def declares_kernel(self, fn: tree_sitter.Node) -> bool:
        """A macro-looking word (ALL_CAPS, ``__KERNEL__``) before the declarator of the
        function definition ``fn`` declares it a kernel (``kernel_macro``: ``CUTLASS_GLOBAL
        void k()``, ``#define CUTLASS_GLOBAL __global__ static``). What the readers of a
        function's header (``function_shapes``, the statements' contexts) add to a spelled
        ``__global__``."""
        declarator = fn.child_by_field_name("declarator")
        if declarator is None:
            return False
        return self.kernel_macro_in(self.header_start(fn.start_byte), declarator.start_byte)

    def kernel_macro_in(self, start: int, end: int) -> bool:
        """A macro-looking word in bytes ``[start, end)``, a function's header up to its
        declarator, declares the function a kernel (``kernel_macro``). The one judge of a
        macro-declared kernel: of the tree's functions (``declares_kernel``) and of those the
        C++ front end reads from the text where the tree lost them
        (``function_recovery.recovered_kernel``)."""
        judge = self.kernel_macro
        if judge is None:
            return False
        return any(judge(m.group().decode(), self.to_char(m.start())) for m in
                   _MACRO_WORD().finditer(self.data, start, end))

    def header_start(self, start: int) -> int:
        """Where the header of the declaration whose node starts at byte ``start`` starts:
        there, or at the first of the specifier macros left out of the parse right before
        it (blanks between), which its node does not hold (``CUTLASS_DEVICE void f()``'s
        node starts at ``void``). Readers of a function's specifiers read from here."""
        uses = self.specifier_uses
        if not uses:
            return start
        k = bisect.bisect_right(uses, (start,)) - 1
        while k >= 0 and not self.data[uses[k][1] : start].strip():
            start = uses[k][0]
            k -= 1
        return start

    def positions(self) -> tree_sitter.Tree:
        """The tree for where its nodes are, their kinds and their fields. The language
        server's re-lint hands on a tree edited but not parsed again
        (``incremental._EditedSource``): its nodes are where a parse would put them, but a
        node's own ``text`` is unknown (read it through ``node_text``). Here, ``tree``."""
        return self.tree

    def _wide_chars(self) -> tuple[list[int], list[int]]:
        # Index of every non-ASCII character and the extra bytes up to and including it, so a
        # conversion is a bisect rather than a re-encode of the prefix. The characters are found
        # by one regex scan (C speed): a loop over a 4 MB kernel's characters cost 0.4 s.
        if self._wide is None:
            where: list[int] = []
            extra: list[int] = []
            total = 0
            for m in _NON_ASCII().finditer(self.text):
                ch = m.group()
                total += len(ch.encode("utf-8", "surrogatepass")) - 1
                where.append(m.start())
                extra.append(total)
            self._wide = (where, extra)
        return self._wide

    def to_byte(self, char_offset: int) -> int:
        if self.ascii:
            return char_offset
        where, extra = self._wide_chars()
        k = bisect.bisect_left(where, char_offset)
        return char_offset + (extra[k - 1] if k else 0)

    def to_char(self, byte_offset: int) -> int:
        """The character offset of ``byte_offset`` (a character boundary, as tree-sitter's node
        bounds are), by a bisect over the non-ASCII characters' byte offsets: O(log n) where
        decoding the prefix was O(n) per call."""
        if self.ascii:
            return byte_offset
        if self._starts is None:
            where, extra = self._wide_chars()
            # byte offset of each non-ASCII character's first byte
            self._starts = [w + (extra[k - 1] if k else 0) for k, w in enumerate(where)]
        starts = self._starts
        k = bisect.bisect_left(starts, byte_offset)
        if k and byte_offset < starts[k - 1] + self._width(k - 1):
            # inside a multi-byte character: the prefix decodes to it as one replacement
            return self._wide[0][k - 1] + 1 if self._wide else byte_offset
        return byte_offset - (self._wide[1][k - 1] if k and self._wide else 0)

    def _width(self, k: int) -> int:
        """Bytes of the ``k``-th non-ASCII character."""
        where, extra = self._wide_chars()
        return 1 + extra[k] - (extra[k - 1] if k else 0)

    def node_text(self, node: tree_sitter.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")


# ``(name, at)``: whether macro ``name``, used at character ``at``, expands to declaration
# specifiers only, and what else it may expand to that the parse leaves out
# (``cxx.specifier_macros.SpecifierMacros``)
SpecifierJudge = MacroJudge


def parse(path: str, text: str, specifiers: SpecifierJudge | None = None) -> ParsedSource:
    """The file's tree, parsed from nothing: parsing a C++ file as an edit of a near-duplicate
    (``tree_reuse``, which the Python front end uses) bought nothing measurable on generated
    C++ kernel families (see its docstring). ``specifiers``: which macros the parse may leave
    out before a declaration where the tree errs (``_with_specifier_macros``)."""
    data = text.encode("utf-8", "surrogatepass")
    grammar = grammar_for(path, text)
    skipped = attribute_macros(data)
    tree = _parse_ranges(data, grammar, skipped) if skipped else _parser(grammar).parse(data)
    return _judged(_with_specifier_macros(
        _with_split_conditionals(ParsedSource(text, data, tree, grammar, skipped=skipped)),
        specifiers), specifiers)


def _judged(parsed: ParsedSource, specifiers: SpecifierJudge | None) -> ParsedSource:
    """``parsed``, keeping the judge's word on kernel macros (``ParsedSource.kernel_macro``)
    where it has one: readers of a function's header ask it of the header's macros."""
    kernel = getattr(specifiers, "kernel", None)
    if callable(kernel):
        parsed.kernel_macro = kernel
    return parsed


def _with_split_conditionals(parsed: ParsedSource) -> ParsedSource:
    """``parsed``, or where its tree has an error that ``#if`` groups holding half a brace pair
    explain, the file parsed again without them (``split_conditionals``). Only a tree with an
    error pays for the scan, which costs 10-20% of a parse."""
    if not parsed.tree.root_node.has_error:
        return parsed
    split = split_conditionals(parsed.data)
    if not split:
        return parsed
    left_out = _merged(_merged(parsed.unread, parsed.skipped), split)
    tree = _parse_ranges(parsed.data, parsed.grammar, left_out)
    if _errors(tree)[:2] >= _errors(parsed.tree)[:2]:
        # the groups were not what confused the parse (uccl's allreduce.hpp, whose first
        # branch, read as plain code, confuses it more): the tree that errs less is kept
        return parsed
    return ParsedSource(parsed.text, parsed.data, tree, parsed.grammar, unread=parsed.unread,
                        skipped=tuple(_merged(parsed.skipped, split)), split=True)


def _with_specifier_macros(parsed: ParsedSource, specifiers: SpecifierJudge | None
                           ) -> ParsedSource:
    """``parsed``, or where its tree errs right at a macro the parse may leave out (a
    specifier macro, ``CUTLASS_DEVICE`` before a constructor; a namespace opener,
    ``CUB_NAMESPACE_BEGIN``; a constraint, ``:: __LDG_PTR(ptr)``), the file parsed again
    without their uses (``specifier_uses.macro_uses``), kept where the tree then errs less.
    Only a tree whose error nodes span lines, one of them near a macro that ``specifiers``
    judges such, pays for the scan and the parse: an error within a line (``DECL int f(int a)
    {``, the macro read as a type, the rest as a declarator) leaves the declarations around it
    whole, and those are most files (153 of the 180 asm files of the CUDA 13 headers and
    CUTLASS's include/ whose trees err near such a macro). Extracting the CUDA 13 headers' asm
    files takes 1.6 s of CPU without this step and 2.0 s with it; parsing every such file
    again cost about half as much more."""
    if specifiers is None or not parsed.tree.root_node.has_error:
        return parsed
    captured = _error_nodes(parsed.tree)
    old_bytes, old_missing, old_rows = _measured(captured)
    if not old_rows or not _error_at_specifier(parsed, captured, specifiers):
        return parsed
    found = macro_uses(parsed.text, specifiers)
    others = _in_bytes(parsed.text, _others(found))
    if not (found.specifiers or others):
        return parsed
    uses = _in_bytes(parsed.text, found.specifiers)
    skipped = tuple(_merged(parsed.skipped, _merged(uses, others)))
    tree = _parse_ranges(parsed.data, parsed.grammar, _merged(parsed.unread, skipped))
    new_bytes, new_missing, new_rows = _errors(tree)
    if (new_bytes, new_missing) >= (old_bytes, old_missing) or new_rows > old_rows:
        # kept only where the error nodes cover neither more bytes nor more lines: a macro
        # read as a type name may have stood in for a token the recovery needed elsewhere.
        # Made-up tokens may grow where code the recovery swallowed is read again.
        return parsed
    return ParsedSource(parsed.text, parsed.data, tree, parsed.grammar, unread=parsed.unread,
                        skipped=skipped, split=parsed.split, specifier_uses=tuple(uses),
                        left_out_names=found.names)


# An error node's neighbourhood where a specifier macro that confused the parse is: the
# recovery starts an ERROR node at the macro or at the token after it (the declarator read
# as a second declaration), and makes up a token (MISSING) within the declaration.
_NEAR_ERROR = 64
# The error nodes looked at, in text order: a file whose first ones show no such macro is
# not parsed again for the rest.
_ERRORS_LOOKED_AT = 256
# The children of an error node looked at, in text order.
_CHILDREN_LOOKED_AT = 64
_MACRO_WORD = on_first_use(rb"\b_*[A-Z][A-Z0-9_]*\b")


def _error_at_specifier(parsed: ParsedSource, captured: dict[str, list[tree_sitter.Node]],
                        specifiers: SpecifierJudge) -> bool:
    """Whether a macro-looking word within ``_NEAR_ERROR`` bytes of the start of one of the
    tree's first error nodes (``captured``: ``_error_nodes``) is one ``specifiers`` judges a
    specifier macro."""
    starts = sorted(n.start_byte for kind in ("error", "missing") for n in captured.get(kind, ()))
    # an error that starts at the file's start (a namespace macro read as a type name makes
    # the rest one ERROR node) shows the macro as one of its first children, a (type) name
    for error in captured.get("error", ())[:_ERRORS_LOOKED_AT]:
        if error.start_point[0] != error.end_point[0]:
            starts.extend(c.start_byte for c in error.children[:_CHILDREN_LOOKED_AT]
                          if c.type in ("identifier", "type_identifier"))
    starts.sort()
    data, asked = parsed.data, set()
    for start in starts[:_ERRORS_LOOKED_AT]:
        low = max(0, start - _NEAR_ERROR)
        for m in _MACRO_WORD().finditer(data, low, start + _NEAR_ERROR):
            at = parsed.to_char(m.start())
            name = m.group().decode()
            if (name, at) not in asked and (specifiers(name, at) or specifiers.braces(
                    name, at) or specifiers.constraint(name, at) or specifiers.statements(
                    name, at) or specifiers.template_piece(name, at)):
                return True
            asked.add((name, at))
    return False


def _others(found: MacroUses) -> list[tuple[int, int]]:
    """The character ranges of ``found``'s uses that are not specifiers', merged."""
    return _merged(_merged(found.namespaces, found.constraints),
                   _merged(found.calls, found.pieces))


def _in_bytes(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character ranges of ``text`` (sorted, apart) as byte ranges of its UTF-8."""
    if text.isascii():
        return ranges
    out: list[tuple[int, int]] = []
    byte = char = 0
    for start, end in ranges:
        byte += len(text[char:start].encode("utf-8", "surrogatepass"))
        first = byte
        byte += len(text[start:end].encode("utf-8", "surrogatepass"))
        out.append((first, byte))
        char = end
    return out


def _errors(tree: tree_sitter.Tree) -> tuple[int, int, int]:
    """How many bytes of ``tree`` lie in its outermost ERROR nodes, how many tokens its
    recovery made up (MISSING: an ``#endif`` closing a branch early reads the rest as
    ``#else``'s), and how many line breaks its outermost ERROR nodes span."""
    return _measured(_error_nodes(tree))


def _error_nodes(tree: tree_sitter.Tree) -> dict[str, list[tree_sitter.Node]]:
    """``tree``'s ERROR nodes ("error") and MISSING ones ("missing"), in text order, outer
    before inner. The walk enters only nodes that hold an error (``has_error``), and the ERROR
    nodes an outer one holds whatever their cost: a query for them visits the whole tree, ten
    times the CPU over the asm files of the CUDA 13 headers and CUTLASS (1.7 s against 0.2 s),
    where most trees err somewhere and each is asked once or twice."""
    errors: list[tree_sitter.Node] = []
    missing: list[tree_sitter.Node] = []
    pending = [tree.root_node]
    while pending:
        node = pending.pop()
        if node.is_missing:
            missing.append(node)
        elif node.is_error:
            errors.append(node)
        pending.extend(reversed([c for c in node.children if c.has_error or c.is_error]))
    return {"error": errors, "missing": missing}


def _measured(captured: dict[str, list[tree_sitter.Node]]) -> tuple[int, int, int]:
    """``_errors`` of the nodes ``_error_nodes`` found."""
    total = rows = covered_to = 0
    for node in sorted(captured.get("error", ()), key=lambda n: n.start_byte):
        if node.start_byte >= covered_to:
            total += node.end_byte - node.start_byte
            rows += node.end_point[0] - node.start_point[0]
            covered_to = node.end_byte
    return total, len(captured.get("missing", ())), rows


@cache
def query(language: tree_sitter.Language, source: str) -> tree_sitter.Query:
    """The query ``source`` compiled for ``language``, once per process (a compile reads the
    grammar's whole table: milliseconds each)."""
    return tree_sitter.Query(language, source)


def left_out_after_edit(old: ParsedSource, data: bytes
                        ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """What a parse of ``data``, an edit of ``old``'s text inside one string literal, leaves
    out, as ``parse`` would (``ParsedSource.skipped``, ``ParsedSource.specifier_uses``): the
    alignment macros, and the split ``#if`` groups and the uses of the macros left out where
    ``old``'s parse left them out (an edit inside a literal changes no brace and no
    directive), each name judged as there (``ParsedSource.left_out_names``)."""
    skipped = attribute_macros(data)
    if old.split:
        skipped = tuple(_merged(skipped, split_conditionals(data)))
    uses: tuple[tuple[int, int], ...] = ()
    if old.left_out_names:
        text = data.decode("utf-8", "surrogatepass")
        found = macro_uses(text, RecordedJudge(old.left_out_names))
        uses = tuple(_in_bytes(text, found.specifiers))
        others = _in_bytes(text, _others(found))
        skipped = tuple(_merged(skipped, _merged(uses, others)))
    return skipped, uses


# CUDA's alignment macros (host_defines.h: ``__align__(n)`` is ``__attribute__((aligned(n)))``;
# cuda_fp16.h's ``__CUDA_ALIGN__``), which tree-sitter's grammars do not know: read as a
# type or a call, ``struct __align__(16) S {...}`` or ``extern __shared__ __align__(16) char
# smem[];`` turns into error nodes that swallow the next statement or the whole struct (448 uses
# in flashinfer's 122 files with one). Left out of the parse, the declaration reads as C++ does
# after the preprocessor, save for the alignment, which no reader of the tree asks.
_ALIGN_MACRO = on_first_use(rb"\b(?:__align__|__builtin_align__|__CUDA_ALIGN__)[ \t]*\(")


def attribute_macros(data: bytes) -> tuple[tuple[int, int], ...]:
    """The byte ranges of the alignment macros' uses in ``data``, each from its name to its
    closing parenthesis (a use whose parentheses do not close on its line is left alone)."""
    if b"ALIGN__" not in data and b"align__" not in data:
        return ()
    found: list[tuple[int, int]] = []
    for m in _ALIGN_MACRO().finditer(data):
        if _in_directive(data, m.start()):
            continue  # a #define's text: the tree holds it as one token, kept whole
        depth, at = 1, m.end()
        stop = data.find(b"\n", at)
        stop = len(data) if stop < 0 else stop
        while at < stop and depth:
            depth += {40: 1, 41: -1}.get(data[at], 0)  # ( and )
            at += 1
        if depth == 0 and (not found or m.start() >= found[-1][1]):
            found.append((m.start(), at))
    return tuple(found)


def parse_again(data: bytes, grammar: str, old: tree_sitter.Tree,
                skipped: Sequence[tuple[int, int]]) -> tree_sitter.Tree:
    """``data``'s tree, parsed incrementally from ``old`` (edited to match it), leaving out
    ``skipped`` (``attribute_macros(data)``) as :func:`parse` does."""
    if skipped:
        return _parse_ranges(data, grammar, skipped, old)
    return _parser(grammar).parse(data, old)


def _in_directive(data: bytes, at: int) -> bool:
    """Whether byte ``at`` is on a preprocessor directive's logical line."""
    start = data.rfind(b"\n", 0, at) + 1
    # while the line before ends in a backslash (before its \r\n, in a CRLF file)
    while start >= 2 and (data[start - 2] == 92 or data[start - 2] == 13 and start >= 3
                          and data[start - 3] == 92):
        start = data.rfind(b"\n", 0, start - 1) + 1
    return data[start:at].lstrip().startswith(b"#")


def _parse_ranges(data: bytes, grammar: str, left_out: Sequence[tuple[int, int]],
                  old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
    """``data`` parsed without the byte ranges ``left_out`` (sorted, apart), as tree-sitter's
    included ranges: every node keeps the file's own offsets."""
    ranges: list[tree_sitter.Range] = []
    row, row_start, counted = 0, 0, 0

    def point(byte: int) -> tuple[int, int]:
        nonlocal row, row_start, counted
        lines = data.count(b"\n", counted, byte)
        if lines:
            row += lines
            row_start = data.rfind(b"\n", counted, byte) + 1
        counted = byte
        return row, byte - row_start

    at = 0
    for start, end in left_out:
        if start > at:
            ranges.append(tree_sitter.Range(point(at), point(start), at, start))
        at = end
    if at < len(data):
        ranges.append(tree_sitter.Range(point(at), point(len(data)), at, len(data)))
    parser = tree_sitter.Parser(_parser(grammar).language, included_ranges=ranges)
    return parser.parse(data, old) if old is not None else parser.parse(data)


def parse_leaving_out(
    path: str, text: str, unread: Sequence[tuple[int, int]],
    specifiers: SpecifierJudge | None = None,
) -> ParsedSource:
    """The file's tree with the byte ranges ``unread`` (sorted, apart) left out of the parse,
    as tree-sitter's included ranges: every node keeps the file's own offsets, and the parse
    costs about the bytes it reads. For a caller that knows what it leaves out cannot change
    the tree around it (``engine_parts``: the interiors of function bodies and parameter
    lists); ``ParsedSource.unread`` says what was left out."""
    if not unread:
        return parse(path, text, specifiers)
    data = text.encode("utf-8", "surrogatepass")
    grammar = grammar_for(path, text)
    skipped = attribute_macros(data)
    left_out = _merged(unread, skipped) if skipped else unread
    return _judged(_with_specifier_macros(_with_split_conditionals(
        ParsedSource(text, data, _parse_ranges(data, grammar, left_out), grammar,
                     unread=tuple(unread), skipped=skipped)), specifiers), specifiers)


def _merged(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]
            ) -> list[tuple[int, int]]:
    """Two sorted lists of byte ranges as one, sorted, with overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted([*a, *b]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out



# an expression read on its own is a call's one argument: the grammar reads nothing else there,
# and the line breaks end a ``//`` comment in it before the call's closing parenthesis
_ALONE = (b"void __ptxlint_f(void) { __ptxlint_g(\n", b"\n); }\n")
# where the text of ``parse_expression`` begins in its tree: a node's bytes in the text are
# its ``start_byte``/``end_byte`` less this
EXPRESSION_OFFSET = len(_ALONE[0])


def expression_text(node: tree_sitter.Node) -> str:
    """The text of a node of a ``parse_expression`` tree (the tree keeps the bytes it read)."""
    return (node.text or b"").decode("utf-8", "surrogatepass")


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> tree_sitter.Node | None:
    """``text`` parsed (CUDA's grammar) as one expression on its own, for a reader that has an
    expression's text but not its place in a file's tree (an asm operand, a call's argument
    that a helper's parameter is bound to); ``None`` where it is not one expression without a
    parse error. Memoised per text (the memo keeps each node's tree alive)."""
    data = _ALONE[0] + text.encode("utf-8", "surrogatepass") + _ALONE[1]
    root = _parser("cuda").parse(data).root_node
    if root.has_error:
        return None
    function = root.named_children[0] if root.named_child_count == 1 else None
    body = function.child_by_field_name("body") if function is not None else None
    statements = [c for c in body.named_children if c.type != "comment"] if body else []
    call = statements[0].named_children[0] if len(statements) == 1 and \
        statements[0].named_child_count else None
    arguments = call.child_by_field_name("arguments") if call is not None else None
    values = [c for c in arguments.named_children if c.type != "comment"] if arguments else []
    return values[0] if len(values) == 1 else None


def shared_parent(
    parents: dict[int, tree_sitter.Node], node: tree_sitter.Node, key: int
) -> tree_sitter.Node | None:
    """``node.parent`` (``key`` is ``node.id``), kept in ``parents``: a tree-sitter parent step
    is a descent from the root, and extraction's and typing's climbs share one map per file."""
    parent = parents.get(key)
    if parent is None:
        parent = node.parent
        if parent is not None:
            parents[key] = parent
    return parent


class NodeFinder:
    """``root.descendant_for_byte_range(start, end)`` with the node's ancestors, for ranges
    asked in text order: one tree-sitter cursor follows the queries, stepping right among
    siblings and down, so the nodes on the way from the root are visited once in all rather
    than once per query. Each query's new parent steps, past the ``KEPT_UPS`` nearest, go
    into ``parents`` (``shared_parent``'s map), so climbs from the node that take those
    ancestors as given never ask tree-sitter for a parent:
    its ``Node.parent`` is a descent from the root, and a climb by parent steps cost the
    square of the depth (``#if`` nested 20,000 deep: 7 s). Ranges out of order are still
    answered exactly, from the nearest common ancestor down."""

    def __init__(self, root: tree_sitter.Node, parents: dict[int, tree_sitter.Node]) -> None:
        self._cursor = root.walk()
        self._path: list[tree_sitter.Node] = [root]  # the cursor's node and its ancestors
        # their kinds, each read once, as the cursor enters its node (``functions``)
        self._kinds: list[str] = [root.type]
        self._parents = parents
        self._start = 0  # the last query's start

    def find(self, start: int, end: int) -> tuple[tree_sitter.Node, list[tree_sitter.Node]]:
        """The node tree-sitter's ``descendant_for_byte_range(start, end)`` gives, and its
        ancestors, innermost first (at most ``MAX_UPS``: read more through ``parents``)."""
        cursor, path, kinds = self._cursor, self._path, self._kinds
        if start < self._start:
            # Out of order: the children left of the path may hold the range. From the root.
            while len(path) > 1:
                cursor.goto_parent()
                path.pop()
                kinds.pop()
        self._start = start
        # up, while the parent is not one that tree-sitter's descent would enter (with the
        # range starting where the last one did or after, the children before the path end
        # before it: a node of the path that holds the range is the one the descent enters)
        while len(path) > 1 and not _holds(path[-2], start, end):
            cursor.goto_parent()
            path.pop()
            kinds.pop()
        if len(path) > 1 and not _holds(path[-1], start, end):
            # The parent holds the range and this child does not: the one that does, if any,
            # follows it (the children before it end before the range starts).
            while True:
                if not cursor.goto_next_sibling():
                    cursor.goto_parent()
                    path.pop()
                    kinds.pop()
                    break
                node = cursor.node
                assert node is not None
                node_end = node.end_byte
                if node_end < end or node_end <= start:
                    continue
                if start < node.start_byte:
                    cursor.goto_parent()
                    path.pop()
                    kinds.pop()
                    break
                path[-1] = node
                kinds[-1] = node.type
                self._descend(start, end)
                break
        else:
            self._descend(start, end)
        # The node and its KEPT_UPS nearest ancestors go back with it; the parent steps past
        # them go into the map (a climb takes the ancestors handed back before the map: an
        # entry for each of them was a fifth of the memory per statement of small statements).
        parents = self._parents
        for k in range(len(path) - 1 - KEPT_UPS, 0, -1):
            key = path[k].id
            if key in parents:
                break
            parents[key] = path[k - 1]
        return path[-1], path[-2 : -2 - MAX_UPS : -1]

    def functions(self) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        """For the node the last ``find`` gave: the innermost function definition on its way
        from the root (itself included), and that function again unless a lambda lies between
        them (else None), the answer a climb by parent steps gives
        (``statement_context.Ancestors.functions``). Read from the path the cursor already
        holds, its node kinds compared in C: a climb stepped and memoised node by node
        (5.5 nodes a statement over the CUDA 13 headers' asm). The kinds are the path's,
        each read once, as the cursor entered its node, where each call read the whole path's
        (extracting the CUDA 13 headers' statements: 10.6 M instructions fewer, CUTLASS
        include/'s 7.2 M; cachegrind)."""
        path, kinds = self._path, self._kinds
        if "function_definition" not in kinds:
            return None, None
        at = len(kinds) - 1 - kinds[::-1].index("function_definition")
        fn = path[at]
        return fn, (None if "lambda_expression" in kinds[at + 1 :] else fn)

    def _descend(self, start: int, end: int) -> None:
        """From the cursor's node down through the first child that holds the range, as
        ``ts_node_descendant_for_byte_range`` does (over the visible children: a hidden node
        holds a range only where one of its own children does)."""
        cursor, path = self._cursor, self._path
        while cursor.goto_first_child_for_byte(start) is not None:  # first child ending after
            while True:
                node = cursor.node
                assert node is not None
                node_end = node.end_byte
                if node_end >= end and node_end > start:
                    if start < node.start_byte:
                        cursor.goto_parent()
                        return
                    path.append(node)
                    self._kinds.append(node.type)
                    break
                if not cursor.goto_next_sibling():
                    cursor.goto_parent()
                    return


def ancestors_of(root: tree_sitter.Node, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The ancestors of ``node`` under ``root``, innermost first, found by one cursor descent
    from ``root`` (what ``node.parent`` steps give, each step a descent of its own: a climb by
    them costs the square of the depth). By parent steps where the descent cannot tell the
    way (a node of no width)."""
    start, end, key = node.start_byte, node.end_byte, node.id
    path: list[tree_sitter.Node] = []
    if end > start:
        cursor = root.walk()
        current: tree_sitter.Node | None = root
        while current is not None and current.id != key:
            path.append(current)
            current = None
            if cursor.goto_first_child_for_byte(start) is None:
                break
            while True:
                child = cursor.node
                if child is None or child.start_byte > start:
                    break
                if child.end_byte >= end:  # siblings do not overlap: the one on the way
                    current = child
                    break
                if not cursor.goto_next_sibling():
                    break
        if current is not None:
            path.reverse()
            return path
    path = []
    parent = node.parent
    while parent is not None:
        path.append(parent)
        parent = parent.parent
    return path


MAX_UPS = 8  # ancestors ``NodeFinder.find`` hands back with a node
# Of those, the nearest ones a climb from the node takes as given (``TypeResolver``'s
# ``ups``), whose parent steps are not put in the map
KEPT_UPS = 3


def _holds(node: tree_sitter.Node, start: int, end: int) -> bool:
    """Whether tree-sitter's range descent enters ``node`` for ``[start, end)``."""
    node_end = node.end_byte
    return node_end >= end and node_end > start and node.start_byte <= start


# Below this many bytes a subtree is searched by walking it from Python; above, by a query.
# tree-sitter compiles a query against the whole C++ grammar (20-50 ms each, once per process),
# which is most of the cost of linting one small file; a walk costs about 5 us per node.
WALK_LIMIT = 64 * 1024


def nodes_of_kinds(
    node: tree_sitter.Node, kinds: frozenset[str]
) -> dict[str, list[tree_sitter.Node]]:
    """The nodes of ``node``'s subtree (itself included) whose type is in ``kinds``, by type,
    in document order (a query's capture order), by one cursor walk."""
    found: dict[str, list[tree_sitter.Node]] = {}
    cursor = node.walk()
    while True:
        current = cursor.node
        if current is not None and current.type in kinds:
            found.setdefault(current.type, []).append(current)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


_NAME_NODES = frozenset({
    "identifier", "field_identifier", "qualified_identifier", "destructor_name",
    "operator_name", "template_function",
})


# Deeper than this, a declarator is given up on (no function's own declarator lies that deep).
_DECLARATOR_DEPTH = 24
# The declarators a function's result is reached through: a function declarator that a
# function declarator's own declarator holds is the function's only behind one of these
# (`void (*f(int n))(int)`); C++ has no function returning a function or an array, so
# `void M(f)(int n)` is a macro call in the name and the outer list is the function's.
_RESULT_INDIRECTIONS = frozenset({"pointer_declarator", "reference_declarator"})
_NOT_DECLARATORS = frozenset({"comment", "ERROR"})


def inner_declarator(decl: tree_sitter.Node) -> tree_sitter.Node | None:
    """The declarator a declarator wraps: its ``declarator`` field, else (a reference or
    parenthesized declarator holds it unnamed) its first named child that is neither a
    comment nor an error node (a parse recovering from ``#if`` branches that each open a
    function's parameter list may put one before it)."""
    inner = decl.child_by_field_name("declarator")
    if inner is None and decl.type.endswith("declarator"):
        inner = next((c for c in decl.named_children if c.type not in _NOT_DECLARATORS), None)
    return inner


def own_function_declarator(decl: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The declarator holding the parameter list of the function (or lambda) whose declarator
    is ``decl``: the one nearest the name. In ``void (*get(int n))(int)`` the outer list,
    ``(int)``, belongs to the function pointer ``get`` returns and ``(int n)`` to ``get``.
    Every reader of a function's own parameters or name starts here, so that typing, value
    flow, function flow, the C++ facts and the part trees agree on them."""
    found: tree_sitter.Node | None = None
    behind_indirection = False
    depth = 0
    while decl is not None and depth < _DECLARATOR_DEPTH:
        depth += 1
        kind = decl.type
        if kind == "operator_cast":  # `operator T*()`: the list is in its declarator
            decl = decl.child_by_field_name("declarator")
            continue
        if not kind.endswith("declarator"):
            break  # the name, or a parameter list a lambda's declarator holds unnamed
        if decl.child_by_field_name("parameters") is not None:
            if found is not None and not behind_indirection:
                break
            found = decl
            behind_indirection = False
        elif kind in _RESULT_INDIRECTIONS:
            behind_indirection = True
        decl = inner_declarator(decl)
    return found


def own_parameter_list(fn: tree_sitter.Node) -> tree_sitter.Node | None:
    """The parameter list of function definition or lambda ``fn``: its own function
    declarator's (``own_function_declarator``), not a returned function pointer's."""
    own = own_function_declarator(fn.child_by_field_name("declarator"))
    return own.child_by_field_name("parameters") if own is not None else None


def own_function_name(fn: tree_sitter.Node) -> tree_sitter.Node | None:
    """The node naming function definition ``fn`` (an identifier, a qualified name, an
    operator's or destructor's name, a template-id), or None. Found down from its own
    function declarator (``own_function_declarator``), so that a function returning a
    reference (``T& f()``, ``T&& f()``), a pointer, an array reference (``int (&f())[4]``) or a
    function pointer (``void (*f(int))(float)``) is named too: the reference and parenthesized
    declarators on the way hold their inner declarator unnamed, so a walk of ``declarator``
    fields from the definition stops there. Every reader of a function's name (its context,
    host-only verdict, function flow, latent marks, wgmma evidence) asks here."""
    declarator = fn.child_by_field_name("declarator")
    own = own_function_declarator(declarator)
    # no parameter list found (a macro or an error node in the declarator): the walk from
    # the definition's own declarator, as far as its ``declarator`` fields lead
    inner = own.child_by_field_name("declarator") if own is not None else None
    if inner is None:
        inner = declarator
    while inner is not None and inner.type not in _NAME_NODES:
        inner = inner.child_by_field_name("declarator")
    return inner
