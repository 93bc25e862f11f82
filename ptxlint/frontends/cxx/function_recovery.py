"""The function definition around a statement that the tree shows in none: tree-sitter-cpp
cannot parse every head and body CUDA code writes (a head qualified by macros,
``_CCCL_DEVICE static inline _CCCL_VISIBILITY_HIDDEN void f(...)``; a body holding
``NV_IF_TARGET(NV_PROVIDES_SM_90, (statements))``, whose statement list is no expression; an
operand that is a macro, ``:: __LDG_PTR(p)``), and its recovery from the error puts the
statements in an ERROR node, or a whole file in one, outside any ``function_definition``. Over
the CUDA 13 headers that was 257 of their 3,746 asm statements. ``FunctionRecovery`` reads the
function from the text instead, by C++'s own shapes, for those statements only
(``statement_context.context_of``)."""

from __future__ import annotations

import bisect
import re

import tree_sitter

from ptxlint import file_memos
from ptxlint.frontends.cxx.guards import FileGuards, guards_of
from ptxlint.frontends.cxx.lexer import Token, tokens
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use

__all__ = ["FunctionRecovery", "RecoveredFunction", "recovered_kernel", "recovery_of"]


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class RecoveredFunction:
    """A function definition the tree does not show around a statement (its head or body sits
    in an ERROR node: a macro-qualified head, ``NV_IF_TARGET(SM, (statements))`` in its body,
    a macro operand the asm grammar cannot take), read from the text (``FunctionRecovery``):
    its name as spelled, and byte offsets of where its header starts, of its name, of its
    parameter list's ``)`` and of its body's ``{``. ``start_byte`` keys it as a definition's
    start keys a tree's function (``host_code.HostFunctions``)."""

    __slots__ = ("name", "start_byte", "name_byte", "params_end", "body_byte")

    def __init__(
        self, name: str, start_byte: int, name_byte: int, params_end: int, body_byte: int
    ) -> None:
        self.name = name
        self.start_byte = start_byte
        self.name_byte = name_byte
        self.params_end = params_end  # just past the parameter list's ")"
        self.body_byte = body_byte


_GLOBAL = on_first_use(rb"\b__global__\b")


def recovered_kernel(parsed: ParsedSource, fn: RecoveredFunction) -> bool:
    """Whether ``fn`` is a kernel: its header, up to its name, spells ``__global__`` or a
    macro that declares one (``ParsedSource.kernel_macro_in``, the judge of the tree's
    functions too: ``CUTLASS_GLOBAL void k()``, ``#define CUTLASS_GLOBAL __global__
    static``)."""
    start = parsed.header_start(fn.start_byte)
    return (_GLOBAL().search(parsed.data, start, fn.name_byte) is not None
            or parsed.kernel_macro_in(start, fn.name_byte))


# What the recovery's scan stops at: a comment or literal (stepped over), a brace or ``;``
# (the end of a head), a directive's logical line (its word: one match, its continued lines
# included, where a scan that stopped at each ``#`` and went on after its line started over
# 2,563 times over the CUDA 13 headers).
_SCAN = on_first_use(
    r"""^[ \t]*\#[ \t]*(?P<word>\w*)[^\n\\]*(?:\\.[^\n\\]*)*
      | (?:[^{};"'/\n\#R]|\n(?![ \t]*\#))+
      | //[^\n\\]*(?:\\.[^\n\\]*)*
      | /\*.*?(?:\*/|\Z)
      | R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)"
      | "[^"\\\n]*(?:\\.[^"\\\n]*)*"?
      | '[^'\\\n]*(?:\\.[^'\\\n]*)*'?
      | (?P<mark>[{};])
      | [\s\S]""",
    re.S | re.X | re.M,
)
# Words that never name a function before a parenthesis.
_NOT_FUNCTION_NAMES = frozenset((
    "if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof",
    "alignas", "noexcept", "throw", "static_assert", "__attribute__", "__declspec",
    "requires", "defined", "do", "else", "new", "delete", "case", "co_return", "co_await",
    "_Pragma", "__pragma", "typeid", "asm", "__asm__", "__asm",
))
# Words a function's declarator may be followed by before its body (and any macro-looking
# word: ``void f() CCCL_NOEXCEPT {``).
_TRAILING_WORDS = frozenset((
    "const", "volatile", "noexcept", "override", "final", "mutable", "throw",
    "__attribute__", "__declspec", "alignas", "requires", "__launch_bounds__",
))
_MACRO_LOOKING = on_first_use(r"_*[A-Z][A-Z0-9_]*|__\w+__")
_SCOPE_WORDS = frozenset(("namespace", "struct", "class", "union"))
# The end of a lambda's head: ``[captures]``, CUDA's ``__device__``, the parameters, the
# specifiers and a trailing return type.
_LAMBDA_HEAD = on_first_use(
    r"\]\s*(?:(?:__device__|__host__)\s*)*(?:\([^;{}]*\))?"
    r"\s*(?:(?:mutable|constexpr|consteval|noexcept|__device__|__host__)\b\s*)*"
    r"(?:->[^;{}]*)?$"
)
_CLASS_HEAD = on_first_use(r"\b(?:struct|class|union)\b")
_IF_WORDS = frozenset(("if", "ifdef", "ifndef"))
_ELSE_WORDS = frozenset(("elif", "else", "elifdef", "elifndef"))
_FUNCTION, _LAMBDA, _SCOPE, _BLOCK = 0, 1, 2, 3
# Statements only a function's body holds: at the top level, the tree closed a body early.
_IN_BODIES = frozenset((
    "if_statement", "for_statement", "for_range_loop", "while_statement", "do_statement",
    "switch_statement", "return_statement", "break_statement", "continue_statement",
    "compound_statement", "expression_statement", "labeled_statement", "case_statement",
    "try_statement", "goto_statement", "comment",  # (a comment belongs to either side)
))
_SHORT = 2000  # bytes of a top-level node before the first with errors that a scan reads too


class FunctionRecovery:
    """The function definition around a statement that the tree shows inside none, read
    from the text of the tree's top-level node that holds it: one forward scan of its
    braces, semicolons and directives (comments and literals stepped over, the branches of
    an ``#if`` each starting where the ``#if`` did), each ``{`` judged by the head before it
    (C++'s own shapes: ``name(parameters) [trailing words, X(...)] {`` opens a function's body
    where a function may be defined, at namespace or class scope; ``[...](...) {`` a lambda;
    ``namespace``/``struct``/``class``/``union``/``extern "C"`` a scope; anything else a
    block). Specifier and attribute macros before the name are words of the header like any
    other; ``NV_IF_TARGET(SM, (statements))`` is parentheses inside the body. Asked only for
    statements without a function (CUDA 13 headers: 257 of 3,746); each scan goes once, as
    far as the statements asked about, and tokenizes only the heads of braces at namespace
    or class scope (a body's braces are told from their text). Over the CUDA 13 headers'
    asm files: 65 ms of CPU, a third of it the macro look-ups that say ``__device__``,
    against 1.35 s of extraction; CUTLASS include/: 18 ms. Bounded by the file's text."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        self._guards: FileGuards | None = None
        # top-level node start -> its scan (``_Scan``)
        self._scans: dict[int, _Scan] = {}

    def around(self, byte: int) -> tuple[RecoveredFunction | None, bool]:
        """The function whose body holds byte ``byte`` and whether a lambda between them
        holds it too; (None, False) where none does, or where ``byte`` lies in a directive (a
        ``#define``'s body: a macro, not a function's statement)."""
        parsed = self.parsed
        guards = self._guards
        if guards is None:
            guards = self._guards = guards_of(parsed.text)
        at = parsed.to_char(byte)
        if guards.directives.holding(at) >= 0:
            return None, False
        # The scan starts where the code is at namespace scope: at the first of the run of
        # top-level nodes with errors, or of statements only a body holds (the tree closed
        # a body early), that ends with the one holding ``byte`` (a clean one before them
        # ends at namespace scope; a function's head may be a node with errors of its own,
        # its body another), or at the file's start where the root is an ERROR node (whose
        # children are fragments that may start anywhere).
        root = parsed.tree.root_node
        top: tree_sitter.Node | None = root
        if root.type == "translation_unit":
            # nothing lies past the last node (where tree-sitter's look-up crashes)
            last = root.child(root.child_count - 1) if root.child_count else None
            top = root.first_child_for_byte(byte) \
                if last is not None and byte < last.end_byte else None
        if top is None or top.start_byte > byte:
            return None, False
        scan = self._scans.get(top.start_byte)
        if scan is None:
            first = top
            if top is not root:
                before = top.prev_sibling
                while before is not None and (before.has_error or before.type in _IN_BODIES):
                    first, before = before, before.prev_sibling
                if before is not None and before.end_byte - before.start_byte < _SHORT:
                    first = before  # a clean declaration may be the head of a body after it
            scan = self._scans.get(first.start_byte)
            if scan is None:
                scan = _Scan(parsed, guards, parsed.to_char(first.start_byte), len(parsed.text))
                self._scans[first.start_byte] = scan
            self._scans[top.start_byte] = scan
        return scan.around(at)


def recovery_of(parsed: ParsedSource) -> FunctionRecovery:
    """The file's one ``FunctionRecovery``: the statements' contexts and the analysis after
    them (the function around a point, ``analysis.function_index``) read the same scans."""
    if _LAST and _LAST[0][0] is parsed:
        return _LAST[0][1]
    recovery = FunctionRecovery(parsed)
    _LAST[:] = [(parsed, recovery)]
    return recovery


# the last file's (the engine reads a file's statements, then lints them, then lets it go)
_LAST: list[tuple[ParsedSource, FunctionRecovery]] = []
file_memos.register(_LAST.clear)


class _Scan:
    """One scan from a point at namespace scope (``FunctionRecovery``), carried forward as
    far as the statements asked about: the bodies it found, each with the one it opened in."""

    def __init__(self, parsed: ParsedSource, guards: FileGuards, start: int, end: int) -> None:
        self.parsed = parsed
        self.text = parsed.text
        self.end = end
        self.position = start
        self.head = start  # where the head of the next brace starts
        self.stack: list[int] = []  # the kind of each open brace
        self.opened: list[int] = []  # for each open brace: its index in ``spans``, or -1
        # for each open brace: where the head it stands in starts, for a brace inside
        # parentheses (``f(T x = {})``, a lambda argument: the head goes on past its "}"),
        # else -1
        self.resumed: list[int] = []
        self.saved: list[tuple[list[int], list[int], list[int]]] = []  # the stacks at each #if
        # (body's "{", its "}" or -1 while open, function or None for a lambda), in order
        self.spans: list[tuple[int, int, RecoveredFunction | None]] = []
        self.parents: list[int] = []  # for each span: the span it opened in, or -1
        lines = guards.directives.lines()
        # the directives in order, which no head's tokens include (the heads of an ``#if``'s
        # branches are read together: ``#if A / void f(int) / #else / void f(long) / #endif``)
        self.hashes = [hash_at for hash_at, _, _ in lines]
        self.stops = [stop for _, stop, _ in lines]

    def around(self, at: int) -> tuple[RecoveredFunction | None, bool]:
        if at > self.position:
            self._scan_to(at)
        # The last span opened before ``at``, or the innermost of those around it: a span that
        # holds ``at`` and opened before that one is open where it opens, so it holds it too.
        lambda_inside = False
        spans = self.spans
        k = bisect.bisect_left(spans, (at,)) - 1
        while k >= 0:
            _, closing, fn = spans[k]
            if closing == -1 or closing > at:
                if fn is not None:
                    return fn, lambda_inside
                lambda_inside = True
            k = self.parents[k]
        return None, False

    def _scan_to(self, at: int) -> None:
        stack, opened, spans = self.stack, self.opened, self.spans
        for m in _SCAN().finditer(self.text, self.position, self.end):
            group = m.lastgroup
            if group is None or group == "delim":
                continue  # code, a comment or a literal (most matches): no state changes
            where = m.start()
            if where >= at:
                self.position = where
                return
            if group == "word":
                word = m.group("word")
                if word in _IF_WORDS:
                    self.saved.append((stack[:], opened[:], self.resumed[:]))
                elif word in _ELSE_WORDS and self.saved:
                    self._close_to(self.saved[-1], where)
                elif word == "endif" and self.saved:
                    self.saved.pop()
                continue  # a directive is no part of any head
            head = where + 1
            if m.group("mark") == "{":
                kind, fn, inside = self._judge(self.head, where, stack)
                stack.append(kind)
                self.resumed.append(self.head if inside else -1)
                if kind in (_FUNCTION, _LAMBDA):
                    self.parents.append(next((i for i in reversed(opened) if i >= 0), -1))
                    opened.append(len(spans))
                    spans.append((where, -1, fn))
                else:
                    opened.append(-1)
            elif stack and m.group("mark") == "}":
                stack.pop()
                index = opened.pop()
                if index >= 0:
                    spans[index] = (spans[index][0], where, spans[index][2])
                resumed = self.resumed.pop()
                if resumed >= 0:
                    head = resumed
            self.head = head
        self.position = self.end

    def _close_to(self, saved: tuple[list[int], list[int], list[int]], where: int) -> None:
        """An ``#elif``/``#else`` branch starts with the braces its ``#if`` found: the bodies
        opened since end at ``where``."""
        kinds, indices, resumed = saved
        for index in self.opened[len(indices):]:
            if index >= 0:
                self.spans[index] = (self.spans[index][0], where, self.spans[index][2])
        self.stack[:] = kinds
        self.opened[:] = indices
        self.resumed[:] = resumed

    def _head_tokens(self, head: int, brace: int) -> list[Token]:
        """The tokens of ``[head, brace)`` outside the directives there."""
        text = self.text
        k = bisect.bisect_left(self.hashes, head)
        if k == len(self.hashes) or self.hashes[k] >= brace:
            return list(tokens(text, head, brace))
        found: list[Token] = []
        start = head
        while k < len(self.hashes) and self.hashes[k] < brace:
            found.extend(tokens(text, start, self.hashes[k]))
            start = self.stops[k]
            k += 1
        found.extend(tokens(text, start, brace))
        return found

    def _judge(
        self, head: int, brace: int, stack: list[int]
    ) -> tuple[int, RecoveredFunction | None, bool]:
        """What the brace at ``brace`` opens, from the tokens before it since the last brace
        or ``;`` outside parentheses (``[head, brace)``, its directives left out), and whether
        it stands inside parentheses the head opened."""
        if _BLOCK in stack or _FUNCTION in stack or _LAMBDA in stack:
            # In a body only a lambda, a block or a local class opens, told from the text
            # without tokens (most braces a scan meets: the CUDA 13 headers' scans tokenized
            # 5.6 heads per statement asked about, and spent two thirds of their time there).
            spelled = self.text[head:brace]
            inside = spelled.count("(") > spelled.count(")")
            if _LAMBDA_HEAD().search(spelled) is not None:
                return _LAMBDA, None, inside
            if not inside and _CLASS_HEAD().search(spelled) is not None and "=" not in spelled:
                return _SCOPE, None, False
            return _BLOCK, None, inside
        toks = self._head_tokens(head, brace)
        inside = sum(1 if t.text == "(" else -1 if t.text == ")" else 0 for t in toks) > 0
        last = toks[-1] if toks else None
        initializers = _head_end(toks)[1]
        if last is not None and initializers and (last.kind == "ident" or last.text == ">"):
            # a member's or base's braced initializer: ``S(int a) : a_{a}, Base{} {``
            return _BLOCK, None, True
        if last is None or not (last.text in (")", "&") or last.kind == "ident" or (
                initializers and last.text == "}")):
            # ``= {``, ``do {``, ``extern "C" {``
            return (_BLOCK if inside else _scope_or_block(toks)), None, inside
        found = _declarator(toks)
        if found == "lambda":
            return _LAMBDA, None, inside
        if inside:
            return _BLOCK, None, inside
        if isinstance(found, tuple):
            name_at, name_end, params_end = found
            parsed = self.parsed
            fn = RecoveredFunction(
                self.text[name_at:name_end].strip(),
                parsed.to_byte(toks[0].start),
                parsed.to_byte(name_at),
                parsed.to_byte(params_end),
                parsed.to_byte(brace),
            )
            return _FUNCTION, fn, False
        return _scope_or_block(toks), None, False


def _scope_or_block(toks: list[Token]) -> int:
    """A namespace, class, struct or union body or an ``extern "C"`` block (where functions
    are defined), else a block."""
    words = {t.text for t in toks}
    if "=" not in words and (not _SCOPE_WORDS.isdisjoint(words) or (
            "extern" in words and any(t.kind == "string" for t in toks))):
        return _SCOPE
    return _BLOCK


def _declarator(toks: list[Token]) -> tuple[int, int, int] | str | None:
    """Of a brace's head tokens: (where the function's name starts, where it ends, just past
    its parameter list) for ``[words] name(parameters) [trailing] {``, "lambda" for
    ``[...](...) {``, else None."""
    i = _head_end(toks)[0] - 1
    groups = 0  # parenthesized groups stepped over as trailing attributes
    while i >= 0:
        t = toks[i]
        if t.kind == "ident" and (t.text in _TRAILING_WORDS or _MACRO_LOOKING().fullmatch(t.text)):
            i -= 1
            continue
        if t.text in ("&", "&&"):
            i -= 1
            continue
        if t.text != ")":
            return None
        j = _matching_open(toks, i)
        if j is None:
            return None
        before = toks[j - 1] if j > 0 else None
        if before is not None and before.kind == "ident" and (
            before.text in _TRAILING_WORDS or _MACRO_LOOKING().fullmatch(before.text)
        ) and any(toks[k].text == ")" for k in range(j - 1)) and groups < 8:
            groups += 1
            i = j - 2  # ``__attribute__((x))``, ``_CCCL_REQUIRES(x)``: trailing
            continue
        return _named(toks, j, i)
    return None


def _head_end(toks: list[Token]) -> tuple[int, bool]:
    """Where a head's declarator part ends: before a constructor's initializer list or a
    trailing return type (a ``:`` or ``->`` after a parenthesized group), and whether it is
    an initializer list that ends it."""
    depth = 0
    closed = False
    for i, t in enumerate(toks):
        word = t.text
        if word == "(" or word == "[":
            depth += 1
        elif word == ")" or word == "]":
            depth -= 1
            closed = closed or depth == 0
        elif depth == 0 and closed and (word == ":" or word == "->"):
            return i, word == ":"
    return len(toks), False


def _matching_open(toks: list[Token], close: int) -> int | None:
    depth = 0
    for k in range(close, -1, -1):
        word = toks[k].text
        if word == ")":
            depth += 1
        elif word == "(":
            depth -= 1
            if depth == 0:
                return k
    return None


def _named(
    toks: list[Token], open_at: int, close_at: int
) -> tuple[int, int, int] | str | None:
    """The name before the parameter list ``toks[open_at..close_at]``."""
    if open_at == 0:
        return None
    last = toks[open_at - 1]
    end = last.end
    k = open_at - 1
    if last.text == "]":
        return "lambda"
    # ``operator()``, ``operator+=``, ``operator bool``: up to four tokens after ``operator``
    for back in range(1, 5):
        if k - back + 1 >= 0 and toks[k - back + 1].text == "operator":
            return toks[k - back + 1].start, end, toks[close_at].end
    if last.text == ">":  # a template-id: ``f<T>(...)``
        depth = 0
        while k >= 0:
            word = toks[k].text
            depth += word.count(">") - word.count("<")
            if depth <= 0 and word == "<":
                break
            k -= 1
        k -= 1
        if k < 0:
            return None
        last = toks[k]
    if last.kind != "ident" or last.text in _NOT_FUNCTION_NAMES:
        return None
    # its qualification: ``A::B<T>::f``, ``~S``
    start = last.start
    while k >= 2 and toks[k - 1].text == "::":
        j = k - 2
        if toks[j].text == ">":  # ``A<T>::``
            depth = 0
            while j >= 0:
                depth += toks[j].text.count(">") - toks[j].text.count("<")
                if depth <= 0 and toks[j].text == "<":
                    break
                j -= 1
            j -= 1
        if j < 0 or toks[j].kind != "ident":
            break
        k = j
        start = toks[k].start
    if k >= 1 and toks[k - 1].text == "~":
        start = toks[k - 1].start
    if k >= 1 and toks[k - 1].text in (".", "->", "=", ",", "(", "return"):
        return None  # a call in an expression, not a declarator
    return start, end, toks[close_at].end
