"""Where a statement stands: the function, declaration or macro around it, its specifiers
(``__device__``, ``__global__``, templates), and whether an ``asm`` keyword is a GNU asm
label on a declarator rather than a statement."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint.frontends.cxx.function_recovery import (
    FunctionRecovery,
    RecoveredFunction,
    recovered_kernel,
    recovery_of,
)
from ptxlint.frontends.cxx.guard_macros import GuardMacros
from ptxlint.frontends.cxx.guards import FileGuards, guards_of
from ptxlint.frontends.cxx.lexer import NEXT_TOKEN as _NEXT_TOKEN
from ptxlint.frontends.cxx.statement_tokens import (
    KEYWORDS,
    QUALIFIERS,
    at_line_start,
    end_of_directive,
)
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_name, shared_parent
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import Context
from ptxlint.model_slots import slot_setters

_MACRO_BODY_OWNERS = {"preproc_def", "preproc_function_def"}
_DEVICE_WORDS = ("__device__", "__global__")


_FUNCTION_WORDS = re.compile(r"[A-Za-z_$][\w$]*")  # the identifiers of a header
# A header's comments and directive lines (continued lines included: translation phase 2
# joins them before comments and directives are read), blanked from its spelling (``_code``).
# A spelling is memoised as bytes, wherever it stands, so it is read on its own; where it
# starts is the file's code, put right by ``FunctionHeaders._start`` from the file's guards.
# (Each line's run of plain characters is taken whole, ``[^\n\\]*``: one that tried a splice
# before every character took 1.5x as long, 0.78 against 0.52 ms over the 120 spellings
# holding a '/' or '#' that the CUDA 13 headers' asm files read.)
_HEADER_NOISE = on_first_use(
    r"/\*.*?\*/"
    r"|//[^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*"
    r"|^[ \t]*#[^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*",
    re.S | re.M,
)
_SPECIFIER_WORDS = frozenset(("static", "inline", "constexpr"))
_BACKSLASH, _CR = ord("\\"), ord("\r")


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


_MAYBE_DECLARATOR_END = on_first_use(r"[/#\"']")  # a comment, directive or literal: tokenize


_DECLARATOR_END = on_first_use(r"[\w$\])]$")


def follows_declarator(text: str, offset: int) -> bool:
    """Token-level check for an asm label that tree-sitter could not place, as in
    ``clock_t clock(void)`` / ``#if ...`` / ``asm("clock32")`` / ``#endif`` / ``__THROW;``:
    the token before the keyword ends a declarator (a name, ``]``, or a parameter list)."""
    near = text[max(0, offset - 200) : offset]
    tail = near.rstrip()
    if tail and not _MAYBE_DECLARATOR_END().search(near) and not _DECLARATOR_END().search(tail):
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
    for m in _NEXT_TOKEN().finditer(text, begin, offset):
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
    kind_of: Callable[[tree_sitter.Node | RecoveredFunction], str] | None = None,
) -> Context:
    """The context of the statement at ``[start, end)`` whose node is ``node``. ``kind_of``:
    whether a function is device code by its declaration's macros
    (``host_code.HostFunctions.kind``); where given, ``CUTLASS_DEVICE void f()`` counts as
    ``__device__`` (a specifier macro of the file or its headers that says so), unless the
    statement is in a lambda. A statement the tree shows in no function (an ERROR node holds
    it or its function's head), or in one without a name, takes the function
    ``FunctionRecovery`` reads from the text."""
    function = None
    specifiers: tuple[str, ...] = ()
    fn, enclosing = ancestors.functions(node)
    if fn is not None:
        if kind_of is not None and enclosing is not None:
            function, specifiers = ancestors.device_header(fn, kind_of)
        else:
            function, specifiers = ancestors.header(fn)
    if function is None and macro is None and node is not None:
        # a function the tree lost (its head or body in an ERROR node), or one it made up
        # without a name (``for (...; i += 2) {`` misread as a definition): from the text
        recovered, words = ancestors.recovered_header(start, kind_of)
        if recovered is not None:
            function, specifiers = recovered, words
    guards, local_guards = file_guards.at(start, end)
    known = guard_macros.at(start) if guard_macros is not None and guards else ()
    # one Context per distinct answer (a look-up costs a fifth of making one): the
    # statements of a function mostly share it
    key = (function, specifiers, macro, guards, local_guards, known)
    context = _MADE.get(key)
    if context is None:
        if len(_MADE) >= CONTEXTS_KEPT:
            _MADE.clear()
        # Context(function=function, ..., guard_macros=known), the rest its defaults, filled
        # slot by slot: the frozen ``__init__`` sets eleven fields through
        # ``object.__setattr__`` (twice the time; a context for most statements of the CUDA 13
        # headers, one to a function)
        context = _new(Context)
        C_FUNCTION(context, function)
        C_SPECIFIERS(context, specifiers)
        C_MACRO(context, macro)
        C_GUARDS(context, guards)
        C_LOCAL_GUARDS(context, local_guards)
        C_GUARD_MACROS(context, known)
        C_DIALECT(context, "ptx")
        C_DIALECT_REASON(context, "")
        C_EMBEDDED_IN(context, "")
        C_EXPANSION(context, None)
        C_BRANCH(context, ())
        C_BRANCH_NAMED(context, _NONE_NAMED)
        _MADE[key] = context
    return context


_MADE: dict[tuple[object, ...], Context] = {}
_new = object.__new__
_NONE_NAMED: frozenset[int] = frozenset()
# A context's slots, in field order: its makers here and in ``extract`` fill every one
(C_FUNCTION, C_SPECIFIERS, C_MACRO, C_GUARDS, C_LOCAL_GUARDS, C_GUARD_MACROS, C_DIALECT,
 C_DIALECT_REASON, C_EMBEDDED_IN, C_EXPANSION, C_BRANCH, C_BRANCH_NAMED) = slot_setters(
    Context,
    ("function", "function_specifiers", "macro", "guards", "local_guards", "guard_macros",
     "dialect", "dialect_reason", "embedded_in", "expansion", "branch", "branch_named"),
)  # fmt: skip


class Ancestors:
    """The functions around a node: for a statement's node, read on the way down to it
    (``known``: ``NodeFinder.functions``); for any other, memoised per node on the way up, a
    climb stopping at the first node an earlier one passed (a tree-sitter parent step costs a
    descent from the root). A function's header is read once, not once per statement.
    """

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        # node id -> parent node: the parent steps made, shared with the type resolver's climbs
        # (``TypeResolver.share_parents``)
        self.parents: dict[int, tree_sitter.Node] = {}
        # node id -> (innermost function definition, ``host_code.enclosing_function``)
        self._known: dict[int, tuple[tree_sitter.Node | None, tree_sitter.Node | None]] = {}
        # the one reading of each function's header: its context's words here, whether its
        # declaration says device code in ``host_code.HostFunctions``
        self.headers = FunctionHeaders(parsed)
        self._headers: dict[int, tuple[str | None, tuple[str, ...]]] = {}  # name, specifiers
        # ``device_header``'s answers by function: its statements read it once
        self._device_headers: dict[int, tuple[str | None, tuple[str, ...]]] = {}
        self._recovery: FunctionRecovery | None = None  # on the first statement it is for

    def known(
        self,
        node: tree_sitter.Node,
        functions: tuple[tree_sitter.Node | None, tree_sitter.Node | None],
    ) -> None:
        """``functions(node)``, already read from the way down to ``node``
        (``NodeFinder.functions``): no climb from it."""
        self._known[node.id] = functions

    def _climb(
        self, node: tree_sitter.Node | None
    ) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        known = self._known
        climbed: list[tuple[tree_sitter.Node, str]] = []
        found: tuple[tree_sitter.Node | None, tree_sitter.Node | None] = (None, None)
        current = node
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
            current = shared_parent(parents, current, key)
        for current, kind in reversed(climbed):
            if kind == "function_definition":
                found = (current, current)
            elif kind == "lambda_expression":
                found = (found[0], None)
            known[current.id] = found
        return found

    def functions(
        self, node: tree_sitter.Node | None
    ) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
        """``(function(node), enclosing_function(node))``, from one look-up."""
        known = self._known.get(node.id) if node is not None else None
        return known or self._climb(node)

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
            inner = own_function_name(fn)
            name = self.parsed.node_text(inner) if inner is not None else None
            cached = self._headers[key] = (name, self.headers.read(fn).specifiers)
        return cached

    def device_header(
        self, fn: tree_sitter.Node, kind_of: Callable[[tree_sitter.Node], str]
    ) -> tuple[str | None, tuple[str, ...]]:
        """``header(fn)``, its words ending in ``__device__`` where none of them says
        ``__device__`` or ``__global__`` and ``kind_of(fn)`` says "device" (a specifier
        macro; ``__global__`` where the macro declares a kernel), ``__host__`` too where it
        says "host-device": the words a statement's context
        is made with, where each statement's context was made with the header's words and
        then made again with the word added. Once per
        function (``kind_of`` is the file's one judge): its other statements take the answer
        from one look-up, not from the header's and the judge's memos in turn (the CUDA 13
        headers' asm files: 3,325 statements asking of 2,466 functions, the other 859 each
        saving five calls and a scan of the words). Bounded by the file's functions."""
        key = fn.id
        found = self._device_headers.get(key)
        if found is None:
            name, words = self.header(fn)
            if all(w not in words for w in _DEVICE_WORDS):
                kind = kind_of(fn)
                if kind == "device":
                    # a kernel macro's function is ``__global__`` (an entry point), as its
                    # shape says (``ParsedSource.declares_kernel``)
                    words = (*words, "__global__" if self.parsed.declares_kernel(fn)
                             else "__device__")
                elif kind == "host-device":
                    words = (*words, "__device__") if "__host__" in words else (
                        *words, "__host__", "__device__")
            found = self._device_headers[key] = (name, words)
        return found

    def recovered(self, at: int) -> tuple[RecoveredFunction | None, bool]:
        """``FunctionRecovery.around`` character ``at``, where no function node holds it."""
        recovery = self._recovery
        if recovery is None:
            recovery = self._recovery = recovery_of(self.parsed)
        return recovery.around(self.parsed.to_byte(at))

    def recovered_header(
        self,
        at: int,
        kind_of: Callable[[tree_sitter.Node | RecoveredFunction], str] | None,
    ) -> tuple[str | None, tuple[str, ...]]:
        """``header``/``device_header`` of the function ``recovered`` finds around ``at``
        (``device_header``'s words outside a lambda, where ``kind_of`` is given), or
        (None, ()) where none is found."""
        fn, in_lambda = self.recovered(at)
        if fn is None:
            return None, ()
        words = self.headers.read_recovered(fn).specifiers
        if kind_of is not None and not in_lambda and all(w not in words for w in _DEVICE_WORDS):
            kind = kind_of(fn)
            if kind == "device":
                # a kernel macro's function is ``__global__``, as a parsed one's
                # (``device_header``), by the same judge
                words = (*words, "__global__" if recovered_kernel(self.parsed, fn)
                         else "__device__")
            elif kind == "host-device":
                words = (*words, "__device__") if "__host__" in words else (
                    *words, "__host__", "__device__")
        return fn.name, words


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class FunctionHeader:
    """What the words before a function's body say, read once for every reader: the
    context's words (``specifiers``) and the declaration's words that say whether it is device
    code (``declaration_words``, read by ``host_code.HostFunctions``). Comments and
    preprocessor lines are no part of either."""

    __slots__ = ("specifiers", "declaration_words")

    def __init__(self, specifiers: tuple[str, ...], declaration_words: tuple[str, ...]) -> None:
        # the words of ``[start of the function, its body)`` that rules read: specifiers, template
        # words, and any ``__word`` (``__SM_32_INTRINSICS_DECL__``, ``__restrict__``, parameters)
        self.specifiers = specifiers
        # the words of the declaration outside its declarator, in order: from the end of what
        # precedes the function (macros tree-sitter did not take into it: ``CCCL_DEPRECATED(...)
        # _CCCL_DEVICE``) to the declarator, and those between the declarator and the body
        # (``void f() __device__``-style trailing words are not C++, but a macro may be)
        self.declaration_words = declaration_words


_Spelled = tuple[bytes, int, int, bool]  # a function's header from its start: ``_own_words``


class FunctionHeaders:
    """Reads each function's header once, for every reader of it (``Ancestors.header``,
    ``host_code.HostFunctions``). Memoised per function, and per spelling of the function's
    own header and of what precedes it apart: the functions of a file repeat a few headers
    (CUTLASS's GMMA header: 736 functions of 110 headers of up to 3,000 characters, parameter
    lists included), each after its own doc comment. The asm files of CUTLASS's
    ``include/`` read 4,485 functions of 1,484 own spellings: 89-92 ms of CPU unmemoised,
    29-31 ms so (the CUDA 13 headers' 3,526 of 3,367 gain nothing, lose nothing). Bounded by
    the file's functions."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        self._by_function: dict[int, FunctionHeader] = {}
        self._by_spelling: dict[tuple[bytes, _Spelled], FunctionHeader] = {}
        self._before: dict[bytes, tuple[str, ...]] = {}
        self._own: dict[_Spelled, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._guards: FileGuards | None = None

    def read(self, fn: tree_sitter.Node) -> FunctionHeader:
        found = self._by_function.get(fn.id)
        if found is None:
            found = self._by_function[fn.id] = self._read(fn)
        return found

    def _read(self, fn: tree_sitter.Node) -> FunctionHeader:
        data = self.parsed.data
        # a specifier macro left out of the parse before it is the header's (``CUTLASS_DEVICE``)
        start = self.parsed.header_start(fn.start_byte)
        lo = self._start(start)
        body = fn.child_by_field_name("body")
        end = body.start_byte if body is not None else fn.end_byte
        declarator = fn.child_by_field_name("declarator")
        # no declarator: the whole header is the specifiers' (no declaration words)
        named, after = (end, end) if declarator is None else (
            declarator.start_byte, declarator.end_byte
        )
        before = data[lo + 1 : start]
        own: _Spelled = (data[start:end], named - start, after - start, body is not None)
        key = (before, own)
        found = self._by_spelling.get(key)
        if found is None:
            before_words = self._before.get(before)
            if before_words is None:
                before_words = self._before[before] = tuple(_FUNCTION_WORDS.findall(_code(before)))
            own_words = self._own.get(own)
            if own_words is None:
                own_words = self._own[own] = _own_words(*own)
            specifiers, declared = own_words
            found = self._by_spelling[key] = FunctionHeader(specifiers, before_words + declared)
        return found

    def read_recovered(self, fn: RecoveredFunction) -> FunctionHeader:
        """``read`` of a function the tree lost (``RecoveredFunction``): its header from its
        first word to its body, the declarator from its name to its parameter list's end."""
        key = -1 - fn.start_byte  # never a node's id
        found = self._by_function.get(key)
        if found is None:
            data = self.parsed.data
            start = fn.start_byte
            specifiers, declared = _own_words(
                data[start : fn.body_byte], fn.name_byte - start, fn.params_end - start, True
            )
            found = self._by_function[key] = FunctionHeader(specifiers, declared)
        return found

    def _start(self, start: int) -> int:
        """The byte of the last ``;``, ``{`` or ``}`` of the file's code before byte ``start``
        (-1 where none is): what precedes the function's header ends there. One inside a
        multi-line block comment or on a directive line is none (a licence's ``;`` would
        make its words the declaration's, a ``#define``'s body its macros); the file's guards
        say which, where its text is read once for them (``FileGuards.comments``,
        ``FileGuards.directives``). A ``;`` in a line comment or a literal is still taken:
        the guards do not hold those."""
        data = self.parsed.data
        rfind = data.rfind
        find = data.find
        lo = max(rfind(b";", 0, start), rfind(b"}", 0, start), rfind(b"{", 0, start))
        while lo >= 0:
            # The guards are asked only where they may say yes: a comment holding ``lo``
            # closes before the function's code (a ``*/`` between them), a directive holding
            # it has its ``#`` before it on its line or on a line spliced to it. (A raw string
            # holding it would end in an expression, whose ``;`` or brace lies between.) Over
            # the CUDA 13 headers' asm files, 181 of 2,514 headers ask (each asking: 2,614
            # look-ups, 21 ms of CPU); this search costs 5.8-6.5 ms where the ``rfind``s alone
            # cost 4.3-4.5 (CUTLASS include/: 6.3 against 5.3 ms; instrumented, in one run).
            line = rfind(b"\n", 0, lo) + 1
            if (
                find(b"*/", lo, start) < 0
                and find(b"#", line, lo) < 0
                and not (line >= 2 and data[line - 2] == _BACKSLASH)
                and not (line >= 3 and data[line - 2] == _CR and data[line - 3] == _BACKSLASH)
            ) or not self._hidden(lo):
                break
            lo = max(rfind(b";", 0, lo), rfind(b"}", 0, lo), rfind(b"{", 0, lo))
        return lo

    def _hidden(self, byte: int) -> bool:
        """Whether byte ``byte`` of the file lies in a multi-line block comment or raw string,
        or on a directive's logical line."""
        guards = self._guards
        if guards is None:
            # the extraction's own (``guards_of`` keeps it by the text's identity)
            guards = self._guards = guards_of(self.parsed.text)
        at = self.parsed.to_char(byte)
        return guards.comments.hides(at) or guards.directives.holding(at) >= 0


def _own_words(
    spelled: bytes, declarator: int, after: int, has_body: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The specifiers of the header spelled ``spelled`` (from the function's start to its
    body, or its end where it has none) and its declaration words in order, before the
    declarator ``[declarator, after)`` and, where ``has_body``, after it."""
    text = _code(spelled)
    if not spelled.isascii():  # offsets in characters: the bytes before each, decoded
        declarator = len(spelled[:declarator].decode("utf-8", "replace"))
        after = len(spelled[:after].decode("utf-8", "replace"))
    find = _FUNCTION_WORDS.findall
    within = find(text, 0, declarator)
    trailing = find(text, after)
    # the declarator's own words count only as specifiers, and one can be there only where
    # its text holds "__" or a specifier word: a long parameter list (CUTLASS's GMMA headers,
    # 130 parameters) is not split into words otherwise (a 3,221-byte GMMA header: 52.9 ->
    # 7.6 us, timeit; CUTLASS include/'s asm files read 1,484 header spellings)
    mid = text[declarator:after]
    if "__" in mid or any(word in mid for word in _SPECIFIER_WORDS):
        words = within + find(text, declarator, after) + trailing
    else:
        words = within + trailing
    specifiers = tuple([w for w in words if w[:2] == "__" or w in _SPECIFIER_WORDS])
    return specifiers, tuple(within + trailing if has_body else within)


def _code(spelled: bytes) -> str:
    """``spelled`` decoded, its comments and preprocessor lines blanked (not removed: an
    offset in it stays where it was)."""
    text = spelled.decode("utf-8", "replace")
    if "/" in text or "#" in text:
        text = _HEADER_NOISE().sub(_blanked, text)
    return text


def _blanked(m: re.Match[str]) -> str:
    """A comment or directive line as blanks, its line breaks kept."""
    spelled = m.group()
    if "\n" not in spelled:
        return " " * len(spelled)
    return "\n".join(" " * len(line) for line in spelled.split("\n"))
