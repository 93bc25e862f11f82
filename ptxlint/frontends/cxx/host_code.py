"""Code that nvcc never compiles for the GPU: host-only functions, and files that stop the
build with ``#error`` unless they are built for another host (SPARC, MIPS, RISC-V).

A function is host-only when nothing in its declaration says ``__device__``/``__global__``
(through a macro of this file or its headers too), every word before its declarator is
understood, and no device function of the file calls it. Where anything is unknown (a macro
from a header ptxlint cannot see), it is not host-only: the caller stays with its other rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import tree_sitter

from ptxlint.frontends.cxx import dialect, preproc
from ptxlint.frontends.cxx.guards import FileGuards
from ptxlint.frontends.cxx.lexer import tokens
from ptxlint.frontends.cxx.macros import Expander, ExpansionError, MacroTable, from_source
from ptxlint.frontends.cxx.statement_context import FunctionHeaders, RecoveredFunction
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_name
from ptxlint.lazy_regex import on_first_use

_DEVICE_WORDS = frozenset({"__device__", "__global__"})
_SPACE_WORDS = _DEVICE_WORDS | {"__host__"}
# Words of a declaration that are understood and are not device specifiers.
_KNOWN = frozenset(
    """static inline constexpr consteval extern virtual explicit friend template typename class
    struct union enum const volatile unsigned signed void int long short char bool float double
    auto decltype noexcept operator __host__ __forceinline__ __inline__ __inline __noinline__
    __attribute__ __restrict__ __restrict restrict always_inline noinline unused
    __declspec __cdecl __stdcall __fastcall _Bool _Noreturn __extension__ __thread
    thread_local register mutable typedef size_t""".split()
)
# Macro-looking words: ALL_CAPS, or __dunder__-style names that are not keywords above.
_MACRO_LIKE = on_first_use(r"^(?:_*[A-Z][A-Z0-9_]*|__\w+__|_[A-Z]\w*)$")
_CALL = on_first_use(r"([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(")
# A CUDA build: the default target, with every host CUDA does not build for undefined.
_TARGET = {**preproc.DEFAULT_TARGET, **dialect.OTHER_HOSTS}


def specifier_macros(words: Iterable[str]) -> tuple[str, ...]:
    """The words of a function's declaration that may be specifier macros, each once: the
    macro-looking ones (ALL_CAPS, ``__dunder__``) that are no keyword or specifier ptxlint
    knows, ``__device__`` and ``__global__`` aside."""
    macro_like = _MACRO_LIKE().match
    return tuple(dict.fromkeys(w for w in words if w not in _KNOWN and w not in _DEVICE_WORDS
                               and macro_like(w)))


def file_errors_for_cuda(text: str, guards: FileGuards) -> bool:
    """Some ``#error`` of the file is reached in a CUDA build (every guard around it holds).
    Its ``#error`` lines are the file's one reading of them (``FileGuards.directives``), which
    ``ptx.targets`` reads too."""
    for at in guards.directives.named("error"):
        conditions = guards.at(at, at + 1)[0]
        if conditions and preproc.evaluate_guards(conditions, _TARGET) is True:
            return True
    return False


class HostFunctions:
    """Answers, per function of one file, whether it is host-only (computed once per file)."""

    def __init__(
        self, parsed: ParsedSource, table: Callable[[], MacroTable], headers: FunctionHeaders
    ) -> None:
        """``headers``: the file's one reading of its functions' headers (the statements'
        contexts read it too)."""
        self.parsed = parsed
        self._table = table
        self._headers = headers
        self._called_from_device: set[str] | None = None
        self._verdicts: dict[int, str] = {}  # function start byte -> kind()'s answer
        self._expanded: dict[tuple[str, int], set[str] | None] = {}
        # a declaration's words -> its device word and macro words (``_words``)
        self._spelled: dict[tuple[str, ...], tuple[bool, tuple[str, ...]]] = {}
        # macro words and macro epoch -> what they say (``_by_macros``)
        self._by_spelling: dict[tuple[tuple[str, ...], int], str] = {}
        # the keywords and known specifiers the file itself #defines (``_redefined_keywords``)
        self._keywords_defined: frozenset[str] | None = None

    def host_only(self, fn: tree_sitter.Node) -> bool:
        if self._kind(fn) != "host":
            return False
        name = _name(self.parsed, fn)
        return name is not None and name not in self._device_calls()

    def kind(self, fn: tree_sitter.Node | RecoveredFunction) -> str:
        """device | host-device | host | unknown, from the words of the declaration:
        host-device where a specifier macro says ``__host__`` beside ``__device__``
        (``CUTLASS_HOST_DEVICE``). A function the tree lost (``RecoveredFunction``) is never
        host: its words are read from code tree-sitter could not parse."""
        if isinstance(fn, RecoveredFunction):
            key = -1 - fn.start_byte
            if key not in self._verdicts:
                device_word, macro_words = self._spelled_words(
                    self._headers.read_recovered(fn).declaration_words)
                verdict = "device" if device_word else (
                    self._by_macros(macro_words, fn) if macro_words else "unknown")
                self._verdicts[key] = verdict if verdict != "host" else "unknown"
            return self._verdicts[key]
        return self._kind(fn)

    def _kind(self, fn: tree_sitter.Node) -> str:
        key = fn.start_byte
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(fn)
        return self._verdicts[key]

    def _judge(self, fn: tree_sitter.Node) -> str:
        declarator = fn.child_by_field_name("declarator")
        if declarator is None:
            return "unknown"
        device_word, macro_words = self._words(fn)
        if device_word:
            return "device"
        verdict = self._by_macros(macro_words, fn) if macro_words else "host"
        if verdict == "host" and (redefined := self._redefined_keywords(fn)):
            # only a redefinition that says device changes the verdict: one ptxlint cannot
            # expand is no reason to lint a host function's asm
            by_keywords = self._by_macros(redefined, fn)
            verdict = by_keywords if by_keywords in ("device", "host-device") else verdict
        if verdict in ("device", "host-device"):
            return verdict
        if fn.has_error:
            return "unknown"  # tree-sitter's recovery from macros or #if: never call it host
        return verdict

    def _by_macros(
        self, macro_words: tuple[str, ...], fn: tree_sitter.Node | RecoveredFunction
    ) -> str:
        """What ``fn``'s macro-looking declaration words say: device where one expands to
        ``__device__``/``__global__``, unknown where one cannot be expanded, else host.
        Memoised by the words and the file's own directives before the function (all that
        each word's ``_expand`` reads there): the functions of a file repeat a few
        declarations between its few #defines (over the CUDA 13 headers' asm files, 2,497
        functions judged by their macros come to 177 answers, and ``_expand`` is asked 386
        times, not 5,167; CUTLASS include/'s 2,992 functions to 83 answers, ``_expand`` 96
        times, not 3,005). Bounded by the file's functions."""
        at = self.parsed.to_char(fn.start_byte)
        table = self._table()
        key = (macro_words, table.epoch(at))
        verdict = self._by_spelling.get(key)
        if verdict is None:
            device = host = unknown = False
            for word in macro_words:
                expanded = self._expand(word, at)
                if expanded is None:
                    unknown = True  # a macro from a header ptxlint cannot see
                    continue
                host = host or "__host__" in expanded
                device = device or bool(expanded & _DEVICE_WORDS)
            if device:
                verdict = "host-device" if host else "device"
            else:
                verdict = "unknown" if unknown else "host"
            self._by_spelling[key] = verdict
        return verdict

    def _redefined_keywords(self, fn: tree_sitter.Node) -> tuple[str, ...]:
        """The declaration's keywords and known specifiers that the file itself ``#define``s:
        the preprocessor replaces them like any macro (sppark's ``# define inline __device__
        __forceinline__`` makes each ``inline`` function of the header a device function).
        Asked only of a function nothing else makes device code."""
        if self._keywords_defined is None:  # once per file: most files define none
            self._keywords_defined = _KNOWN.intersection(self._table().own.defines)
        if not self._keywords_defined:
            return ()
        words = self._headers.read(fn).declaration_words
        return tuple(w for w in dict.fromkeys(words) if w in self._keywords_defined)

    def _words(self, fn: tree_sitter.Node) -> tuple[bool, tuple[str, ...]]:
        """Whether the declaration's words say ``__device__``/``__global__``, and its
        macro-looking words that may (each once), from the function's header as
        ``FunctionHeaders`` reads it (``FunctionHeader.declaration_words``). Memoised by those
        words: the functions of a file repeat a few declarations (the CUDA 13 headers' asm
        files judge 2,514 functions of 386 distinct spellings). What a macro means is still
        asked where the function stands (``_expand``). Bounded by the file's functions."""
        return self._spelled_words(self._headers.read(fn).declaration_words)

    def _spelled_words(self, words: tuple[str, ...]) -> tuple[bool, tuple[str, ...]]:
        found = self._spelled.get(words)
        if found is None:
            device = any(word in _DEVICE_WORDS for word in words)
            found = self._spelled[words] = (device, specifier_macros(words))
        return found

    def _expand(self, word: str, at: int) -> set[str] | None:
        """What ``word`` at offset ``at`` expands to, memoised per word and per the file's own
        directives before ``at`` (all that a look-up at ``at`` reads: a specifier macro costs
        one expansion per file, not one per function)."""
        table = self._table()
        key = (word, table.epoch(at))
        if key not in self._expanded:
            self._expanded[key] = self._expand_at(table, word, at)
        return self._expanded[key]

    def _expand_at(self, table: MacroTable, word: str, at: int) -> set[str] | None:
        if table.lookup(word, at) is None:
            return None
        # the execution-space words stay as spelled: host_defines.h defines each
        # (``__device__`` is ``__location__(device)``, an ``__attribute__``), and a header
        # that reaches it would read no device word in ``static __device__``
        toks = [t._replace(hide=_SPACE_WORDS) for t in from_source(word, list(tokens(word)))]
        try:
            out = Expander(table, at).expand(toks)
        except ExpansionError:
            return None
        words = {t.text for t in out if t.kind == "ident"}
        macro_like = _MACRO_LIKE().match
        if any(macro_like(w) and w not in _KNOWN and w not in _DEVICE_WORDS for w in words):
            return None  # expands to another macro it cannot see
        return words

    def _device_calls(self) -> set[str]:
        """Names called from the bodies of this file's device functions."""
        if self._called_from_device is None:
            names: set[str] = set()
            for fn in _functions(self.parsed.tree.root_node):
                if self._kind(fn) == "host":
                    continue  # unknown counts as device: its calls may run on the GPU
                body = fn.child_by_field_name("body")
                if body is None:
                    continue
                text = self.parsed.data[body.start_byte : body.end_byte].decode("utf-8", "replace")
                names.update(m.group(1) for m in _CALL().finditer(text))
            self._called_from_device = names
        return self._called_from_device


def _functions(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            out.append(node)
        stack.extend(node.children)
    return out


def _name(parsed: ParsedSource, fn: tree_sitter.Node) -> str | None:
    inner = own_function_name(fn)
    if inner is None:
        return None
    text = parsed.node_text(inner)
    return re.split(r"::|<", text)[-1].strip() if "::" in text else text.split("<")[0].strip()


def enclosing_function(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The function whose body holds ``node``; None inside a lambda (which may be a
    ``__device__`` lambda of a host function) or outside any function."""
    current = node
    while current is not None:
        if current.type == "lambda_expression":
            return None
        if current.type == "function_definition":
            return current
        current = current.parent
    return None
