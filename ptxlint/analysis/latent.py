"""Latent versus live: whether a statement can reach the compiler in a build of its file.

A defect in code that no build of the file compiles breaks nothing yet; it breaks once the code
is used. A maintainer triages "this breaks once instantiated" differently from "this breaks your
build", so every finding of such a statement carries the reason (``Finding.latent``; ``latent``
in JSON and SARIF, a ``[latent]`` tag in text). The findings are still reported: the code is
one ``#if`` or one call away from the build.

A statement is latent when:

- its ``#if`` branch is dead in every build: a guard the preprocessor decides false whatever is
  defined, the file's own macros not read (``#if 0``, ``#if defined(X) && 0``; a macro's value
  may hang on names the build sets with ``-D``), or one that every CUDA toolkit ptxlint knows
  leaves out (``#if CUDA_VERSION < 9000``);
- it lies in a template (a function template, a member of a class template) that nothing in
  its file names: nvcc compiles a template's body, its asm operands included, only per
  instantiation (nvcc 13.0 accepts `"=r"` on a `double` in an uninstantiated template and
  rejects it in a plain inline function); in a header as in a translation unit;
- it lies in the body of a macro that its translation unit defines and nothing in the file
  names outside the ``#define`` (nor a ``##`` may spell): no build expands it;
- in a translation unit (``.cu``, ``.cpp``, ...; not a header, whose functions are for the
  files that include it), it lies in a function that the file emits only where it is used,
  and that nothing in the file names: a ``static``/``inline``/``__forceinline__`` function, a
  member defined in its class, one in an anonymous namespace. nvcc's front end still reads
  such a function, so the operand contract it checks there (the PTX0xx rules) is live; what
  only ptxas or the running program would meet is latent. A kernel (``__global__``) is an
  entry point, and a plain external ``__device__`` function may be called from another
  translation unit (``-rdc``): both are live.

"Names" is a whole-word match of the function's name anywhere else in the file (comments and
strings included, other definitions of an overload set excluded): any mention keeps the
function live. Silence over guessing: whatever cannot be read (a macro body, a file without
its tree) is live.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import tree_sitter

from ptxlint import file_memos
from ptxlint.frontends.cxx import preproc
from ptxlint.frontends.cxx.host_code import specifier_macros
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_name
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement
from ptxlint.ptx.targets import no_toolkit_compiles

__all__ = ["Emission", "Latent", "emission", "latent_reason"]

# Files that are translation units: what they define and do not use, no other file uses
# (a header's functions are for its includers).
_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c", ".cu.cc")
# Specifiers after which a function is emitted only where it is used.
_INTERNAL = frozenset({"static", "inline", "__inline__", "__forceinline__", "constexpr"})


# How the reason of a statement no build compiles begins (the preprocessor decides its
# guards false): what reads findings (scripts/fixed_bugs.py) tells dead code from live by it.
DEAD_BRANCH = "in a dead #if branch"


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Latent:
    """Why a statement reaches no build of its file. ``front_end_reads``: nvcc's front end
    still reads the code (an uncalled inline helper), so the defects it checks there (the
    operand contract, PTX0xx) are live all the same."""

    __slots__ = ("reason", "front_end_reads")

    def __init__(self, reason: str, front_end_reads: bool = False) -> None:
        self.reason = reason
        self.front_end_reads = front_end_reads

    def covers(self, rule: str) -> bool:
        """Whether a finding of ``rule`` on the statement is latent."""
        return not (self.front_end_reads and rule.startswith("PTX0"))


def latent_reason(statement: AsmStatement, parsed: ParsedSource | None) -> Latent | None:
    """Why the statement reaches no build of its file, or None where it is live (or
    unknown)."""
    context = statement.context
    if context.guards:
        # decided false with nothing defined and no macro read: a macro's definition may
        # hang on names the build sets with -D (flashinfer's IS_MLA tests HEAD_ELEMS), which
        # the preprocessor would read as 0 here
        if preproc.evaluate_guards(context.guards, {}, ()) is False:
            dead = next((g for g in context.guards
                         if preproc.evaluate_guards((g,), {}, ()) is False),
                        context.guards[-1])
            if statement.syntax == "llvm":  # a Python DSL's call: its guards are `if` tests
                said = "; ".join(_SAID().findall(dead)) or " ".join(dead.split())
                return Latent(f"in an if branch that no run takes ({said})")
            return Latent(f"{DEAD_BRANCH} ({_shown(dead)}): no build compiles it")
        if no_toolkit_compiles(context.guards):
            return Latent("in an #if branch that no supported CUDA toolkit compiles")
    if parsed is None:
        return None
    if context.macro is not None:
        return _uninvoked_macro(statement, parsed)
    return _unused_function(statement, parsed)


def _uninvoked_macro(statement: AsmStatement, parsed: ParsedSource) -> Latent | None:
    """A statement in the body of a macro that its translation unit defines and never names
    outside the ``#define``: no other file sees the macro, so no build expands it (not even
    nvcc's front end reads the body). A header's macro is for its includers: live."""
    name = statement.context.macro
    if (
        name is None
        or not statement.source.path.endswith(_UNITS)
        or statement.context.embedded_in
        or parsed.text is not statement.source.text
    ):
        return None
    byte = parsed.to_byte(statement.span.start)
    node = parsed.tree.root_node.descendant_for_byte_range(byte, byte)
    while node is not None and node.type not in ("preproc_def", "preproc_function_def"):
        node = node.parent
    if node is None:
        return None
    own = node.child_by_field_name("name")
    if own is None or parsed.node_text(own) != name:
        return None
    if _named_elsewhere(parsed, name, node.start_byte, node.end_byte) or _pasted(
        parsed.data, name
    ):
        return None
    return Latent(f"in macro '{name}', which nothing in this file invokes")


_PASTED = on_first_use(rb"([A-Za-z_]\w*)\s*##|##\s*([A-Za-z_]\w*)")


def _pasted(data: bytes, name: str) -> bool:
    """Whether a ``##`` of the file may spell ``name`` from a piece of it (``CP_ ## X``):
    an invocation the search for the whole word does not see."""
    if b"##" not in data:
        return False
    encoded = name.encode()
    return any(
        (piece := match.group(1) or match.group(2)) and piece in encoded
        for match in _PASTED().finditer(data)
    )


# what a Python front end's guard says in words (``0 /* use_native = False */``)
_SAID = on_first_use(r"/\* (.*?) \*/")


def _shown(guard: str) -> str:
    text = " ".join(guard.split())
    return f"#if {text}" if len(text) <= 60 else f"#if {text[:57]}..."


class Emission(NamedTuple):
    """Where the definition around a statement sits, which decides where a compiler emits it:
    a template's body only per instantiation, a function defined in its class or declared
    ``static``/``inline``/``__forceinline__``/``constexpr``, or in an anonymous namespace
    (``internal``) only where it is used; any other definition in every file that has it."""

    function: tree_sitter.Node
    template: bool
    internal: bool
    # a macro-looking word in the header (``CUTLASS_HOST_DEVICE``): it may say ``inline`` too,
    # so whether the definition is ordinary is not known
    macro_words: bool


def _declares_parameters(template: tree_sitter.Node) -> bool:
    """Whether ``template`` has parameters: an explicit specialization (``template <>``) is
    no template ([temp.expl.spec]): its members are ordinary functions, compiled, and their
    contract checked by nvcc's front end, whether or not anything uses them."""
    parameters = template.child_by_field_name("parameters")
    return parameters is None or parameters.named_child_count > 0


def emission(statement: AsmStatement, parsed: object) -> Emission | None:
    """The innermost function definition around ``statement`` (a lambda's body belongs to its
    function) and where it is emitted; None outside one, or where ``parsed`` is not the tree
    of the statement's text (a macro's body, text held in a Python string, no tree)."""
    context = statement.context
    if (not isinstance(parsed, ParsedSource) or context.macro is not None
            or context.embedded_in or parsed.text is not statement.source.text):
        return None
    byte = parsed.to_byte(statement.span.start)
    node = parsed.tree.root_node.descendant_for_byte_range(byte, byte)
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return None
    template = in_class = anonymous = False
    current = node.parent
    while current is not None:
        if current.type == "template_declaration" and _declares_parameters(current):
            template = True
        elif current.type == "field_declaration_list":
            in_class = True
        elif current.type == "namespace_definition" and current.child_by_field_name(
            "name"
        ) is None:
            anonymous = True
        current = current.parent
    declarator = node.child_by_field_name("declarator")
    start = parsed.header_start(node.start_byte)  # with the specifier macros left out
    header = parsed.data[start : declarator.start_byte if declarator is not None else start]
    words = {w.decode() for w in _WORD.findall(header)}
    internal = anonymous or in_class or bool(_INTERNAL & (set(context.function_specifiers)
                                                           | words))
    return Emission(node, template, internal, bool(specifier_macros(words)))


_WORD = re.compile(rb"[A-Za-z_]\w*")


def _unused_function(statement: AsmStatement, parsed: ParsedSource) -> Latent | None:
    found = emission(statement, parsed)
    if found is None:
        return None
    fn, template, internal, _ = found
    if "__global__" in statement.context.function_specifiers:
        return None  # an entry point
    name_node = own_function_name(fn)
    if name_node is None:
        return None
    name = parsed.node_text(name_node).rsplit("::", 1)[-1].strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None  # an operator, a destructor, a template-id: not one name to look for
    unit = statement.source.path.endswith(_UNITS)
    if not template and not (unit and internal):
        return None  # external linkage, or a header's helper: its callers may be elsewhere
    if _named_elsewhere(parsed, name, fn.start_byte, fn.end_byte):
        return None
    if template:
        return Latent(f"in template '{name}', which nothing in this file instantiates: "
                      "it breaks once instantiated")
    return Latent(f"in helper '{name}', which nothing in this file calls", front_end_reads=True)


def _no_use_at(parsed: ParsedSource, at: int) -> bool:
    """Whether the word at byte ``at`` is no use of the name: a function definition's own name
    (an overload set's other member), or a word inside a string literal or a comment. The
    compiler never reads an asm template, so ``"multimem.st.global [%0]"`` in an overload's
    asm names no function ``st``, and the preprocessor expands no macro inside a string
    ([lex.pptoken], [cpp.replace]). Each such place holds the byte, so it lies on the path
    from the root down to it: one descent, instead of a walk over the whole tree for every
    definition (latent marks over the CUDA headers: 0.042 s -> 0.026 s; CUTLASS include/:
    0.009 s -> 0.003 s)."""
    cursor = parsed.tree.root_node.walk()
    while cursor.goto_first_child_for_byte(at) is not None:
        node = cursor.node
        if node is None or node.start_byte > at:
            return False  # ``at`` lies between two children: no node below holds it
        kind = node.type
        if kind in _NOT_CODE:
            return True
        if kind == "function_definition":
            inner = own_function_name(node)
            if inner is not None:
                text = parsed.node_text(inner)
                last = text.rsplit("::", 1)[-1].strip()
                if inner.start_byte + len(text.encode("utf-8")) - len(last.encode("utf-8")) == at:
                    return True
    return False


# The nodes whose words name nothing the compiler reads: literals, comments, an include's
# <path>.
_NOT_CODE = frozenset({
    "string_literal", "raw_string_literal", "char_literal", "comment", "system_lib_string",
})


# The bytes a pattern's ``[\w$]`` matches in a bytes pattern (ASCII letters, digits, _ and $).
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")


def _named_elsewhere(parsed: ParsedSource, name: str, start: int, end: int) -> bool:
    """``name`` occurs as a word in the file outside the definition ``[start, end)`` (its body
    calling itself is no use) and other than where a word is no use of it (``_no_use_at``).

    The uses of a name found so far, and where the search for more stopped, are kept for the
    current file (``_USES``): each member of an overload set asks about the one name, and the
    file is read for it once, from the start to its first use outside the asking definition,
    then on from there for the next that needs it. Over the CUDA 13 headers, 222 questions
    about 23 names searched their files 222 times and descended the tree 5,262 times for
    353 occurrences (355 descents now; the latent marks' CPU there 0.043 s -> 0.016 s,
    instrumented per call)."""
    known = _USES.get(name)
    if known is None or known[0] is not parsed:
        if not _USES_IN or _USES_IN[0] is not parsed:  # another file: forget the last one's
            _USES_IN[:] = [parsed]
            _USES.clear()
        known = (parsed, (), 0)
    _, found, resume = known
    if any(not start <= at < end for at in found):
        return True
    if resume < 0:
        return False  # every occurrence read: each use lies in the definition
    # The word's start is tested by hand, not by a look-behind: a pattern that opens with the
    # name's literal bytes is searched for them directly, one that opens with a look-behind is
    # tried at every byte (20x slower; 7% of the CUDA headers' -j 1 CPU).
    pattern = re.compile(re.escape(name.encode()) + rb"(?![\w$])")
    data = parsed.data
    uses: list[int] = []
    answer = False
    for match in pattern.finditer(data, resume):
        at = match.start()
        if (at and data[at - 1] in _WORD_BYTES) or _no_use_at(parsed, at):
            continue
        uses.append(at)
        if not start <= at < end:
            answer, resume = True, match.end()
            break
    else:
        resume = -1
    # one new entry, never changed in place: a reader in another thread sees the uses with
    # the position they were found up to
    _USES[name] = (parsed, found + tuple(uses), resume)
    return answer


# By name, for the file in ``_USES_IN``: the file, the uses of the name found so far, and
# where the search stopped (-1: at the end). At most one entry per name asked about.
_USES: dict[str, tuple[ParsedSource, tuple[int, ...], int]] = {}
_USES_IN: list[ParsedSource] = []


def _forget() -> None:
    _USES.clear()
    _USES_IN.clear()


file_memos.register(_forget)
