"""Where a statement stands: the function, declaration or macro around it, its specifiers
(``__device__``, ``__global__``, templates), and whether an ``asm`` keyword is a GNU asm
label on a declarator rather than a statement."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint.frontends.cxx.guard_macros import GuardMacros
from ptxlint.frontends.cxx.guards import FileGuards
from ptxlint.frontends.cxx.lexer import NEXT_TOKEN as _NEXT_TOKEN
from ptxlint.frontends.cxx.statement_tokens import (
    KEYWORDS,
    QUALIFIERS,
    at_line_start,
    end_of_directive,
)
from ptxlint.frontends.syntax_tree import ParsedSource, function_name_node, shared_parent
from ptxlint.model import Context

_MACRO_BODY_OWNERS = {"preproc_def", "preproc_function_def"}
_DEVICE_WORDS = ("__device__", "__global__")


_FUNCTION_WORDS = re.compile(r"[A-Za-z_]\w*")


CONTEXTS_KEPT = 4096


_DECLARATION_NODES = {
    "declaration",
    "field_declaration",
    "init_declarator",
    "parameter_declaration",
    "function_declarator",
}


def is_asm_label(
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


def follows_declarator(text: str, offset: int) -> bool:
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
    line before). Where that line holds no token (a directive, ``#if`` right before the
    statement, or a comment), from the start of the line before it, on the same terms, and so
    on back (the text from ``begin`` was tokenized for each such statement: 2,000 characters).
    (None, None) where that is not shown, or where the last token is ")" (the "(" it closes
    may lie before the line)."""
    last_char = offset - blanks - 1
    if last_char < begin:
        return None, None
    stop = offset
    line = text.rfind("\n", 0, last_char) + 1
    while (
        line >= begin
        and text.find("/*", begin, line) < 0
        and text.find('R"', begin, line) < 0
        and not text.endswith("\\\n", 0, line)
        and not text.endswith("\\\r\n", 0, line)
    ):
        # no token runs past ``stop`` from before it: the tokens from ``line`` to ``stop``
        # end those from ``line`` to ``offset``, and none followed them
        found = _declarator_tail(text, line, stop)
        if found[0] is not None or line <= begin:
            return found
        stop = line
        line = text.rfind("\n", 0, line - 1) + 1
    return None, None


def _declarator_tail(
    text: str, begin: int, offset: int
) -> tuple[_Tail | None, _Tail | None]:
    """Of the tokens ``code_tokens(text, begin, stop=offset)`` less the directives: the last
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
        if kind == "punct" and word == "#" and at_line_start(text, at):
            skip_until = end_of_directive(text, at)
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


def macro_params(parsed: ParsedSource, owner: tree_sitter.Node | None) -> frozenset[str]:
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


def macro_name_of(parsed: ParsedSource, owner: tree_sitter.Node | None) -> str:
    if owner is None or owner.type not in _MACRO_BODY_OWNERS:
        return "<macro>"
    name = owner.child_by_field_name("name")
    return parsed.node_text(name) if name is not None else "<macro>"


def context_of(
    ancestors: Ancestors,
    node: tree_sitter.Node | None,
    macro: str | None,
    file_guards: FileGuards,
    start: int,
    end: int,
    guard_macros: GuardMacros | None = None,
    kind_of: Callable[[tree_sitter.Node], str] | None = None,
) -> Context:
    """The context of the statement at ``[start, end)`` whose node is ``node``. ``kind_of``:
    whether a function is device code by its declaration's macros
    (``host_code.HostFunctions.kind``); where given, ``CUTLASS_DEVICE void f()`` counts as
    ``__device__`` (a specifier macro of the file or its headers that says so), unless the
    statement is in a lambda."""
    function = None
    specifiers: tuple[str, ...] = ()
    fn = ancestors.function(node)
    if fn is not None:
        if kind_of is not None and ancestors.enclosing_function(node) is not None:
            function, specifiers = ancestors.device_header(fn, kind_of)
        else:
            function, specifiers = ancestors.header(fn)
    guards, local_guards = file_guards.at(start, end)
    known = guard_macros.at(start) if guard_macros is not None and guards else ()
    # one Context per distinct answer (a look-up costs a fifth of making one): the
    # statements of a function mostly share it
    key = (function, specifiers, macro, guards, local_guards, known)
    context = _MADE.get(key)
    if context is None:
        if len(_MADE) >= CONTEXTS_KEPT:
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


class Ancestors:
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
            kind = current.type
            climbed.append((current, kind))
            if kind == "function_definition":
                # the innermost function: nothing above it changes the answer (nodes the
                # climbs step through: CUDA 13 headers 23,700 -> 20,400, CUTLASS include/
                # 27,300 -> 19,000)
                break
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
        # a statement's node is asked up to three times (its context, its specifiers, whether
        # it is host code): after the first, the answer is known at the node itself
        known = self._known.get(node.id) if node is not None else None
        return (known or self._climb(node))[0]

    def enclosing_function(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """``host_code.enclosing_function(node)``: None inside a lambda."""
        known = self._known.get(node.id) if node is not None else None
        return (known or self._climb(node))[1]

    def header(self, fn: tree_sitter.Node) -> tuple[str | None, tuple[str, ...]]:
        key = fn.id
        cached = self._headers.get(key)
        if cached is None:
            cached = self._headers[key] = _function_header(self.parsed, fn, self._words)
        return cached

    def device_header(
        self, fn: tree_sitter.Node, kind_of: Callable[[tree_sitter.Node], str]
    ) -> tuple[str | None, tuple[str, ...]]:
        """``header(fn)``, its words ending in ``__device__`` where none of them says
        ``__device__`` or ``__global__`` and ``kind_of(fn)`` says "device" (a specifier
        macro): the words a statement's context is made with, where each statement's context
        was made with the header's words and then made again with the word added."""
        name, words = self.header(fn)
        if not any(w in _DEVICE_WORDS for w in words) and kind_of(fn) == "device":
            words = (*words, "__device__")
        return name, words


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
