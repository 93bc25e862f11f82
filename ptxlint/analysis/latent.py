"""Latent versus live: whether a statement can reach the compiler in a build of its file.

A defect in code that no build of the file compiles breaks nothing yet; it breaks once the code
is used. A maintainer triages "this breaks once instantiated" differently from "this breaks your
build", so every finding of such a statement carries the reason (``Finding.latent``; ``latent``
in JSON and SARIF, a ``[latent]`` tag in text). The findings are still reported: the code is
one ``#if`` or one call away from the build.

A statement is latent when:

- its ``#if`` branch is dead in every build: a guard the preprocessor decides false whatever is
  defined (``#if 0``, ``#if defined(X) && 0``), or one that every CUDA toolkit ptxlint knows
  leaves out (``#if CUDA_VERSION < 9000``);
- in a translation unit (``.cu``, ``.cpp``, ...; not a header, whose functions are for the
  files that include it), it lies in a function that the file cannot emit without a use, and
  that nothing in the file names: a template or a member of a class template (code exists
  only per instantiation), or a ``static``/``inline``/``__forceinline__`` function, a member
  defined in its class, or one in an anonymous namespace (internal or inline: nvcc emits it
  only where it is called). A kernel (``__global__``) is an entry point and always live; a
  plain external ``__device__`` function may be called from another translation unit
  (``-rdc``) and is live too.

"Names" is a whole-word match of the function's name anywhere else in the file, the other
declarations, comments and strings included: any mention keeps the function live. Silence
over guessing: whatever cannot be read (a macro body, a file without its tree) is live.
"""

from __future__ import annotations

import re

from ptxlint.frontends.cxx import preproc
from ptxlint.frontends.syntax_tree import ParsedSource, function_name_node
from ptxlint.model import AsmStatement
from ptxlint.ptx.targets import no_toolkit_compiles

__all__ = ["latent_reason"]

# Files that are translation units: what they define and do not use, no other file uses
# (a header's functions are for its includers).
_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c", ".cu.cc")
# Specifiers after which a function is emitted only where it is used.
_INTERNAL = frozenset({"static", "inline", "__inline__", "__forceinline__", "constexpr"})


def latent_reason(statement: AsmStatement, parsed: ParsedSource | None) -> str:
    """Why the statement reaches no build of its file, or "" where it is live (or unknown)."""
    context = statement.context
    if context.guards:
        if preproc.evaluate_guards(context.guards, {}, context.guard_macros) is False:
            dead = next((g for g in context.guards
                         if preproc.evaluate_guards((g,), {}, context.guard_macros) is False),
                        context.guards[-1])
            return f"in a dead #if branch ({_shown(dead)}): no build compiles it"
        if no_toolkit_compiles(context.guards):
            return "in an #if branch that no supported CUDA toolkit compiles"
    if parsed is None or context.macro is not None or context.embedded_in:
        return ""
    if not statement.source.path.endswith(_UNITS):
        return ""
    if parsed.text is not statement.source.text:
        return ""
    return _unused_function(statement, parsed)


def _shown(guard: str) -> str:
    text = " ".join(guard.split())
    return f"#if {text}" if len(text) <= 60 else f"#if {text[:57]}..."


def _unused_function(statement: AsmStatement, parsed: ParsedSource) -> str:
    byte = parsed.to_byte(statement.span.start)
    node = parsed.tree.root_node.descendant_for_byte_range(byte, byte)
    fn = None
    while node is not None:
        if node.type == "function_definition":
            fn = node  # the innermost: a lambda's body belongs to its function
            break
        node = node.parent
    if fn is None:
        return ""
    specifiers = statement.context.function_specifiers
    if "__global__" in specifiers:
        return ""  # an entry point
    name_node = function_name_node(fn)
    if name_node is None:
        return ""
    name = parsed.node_text(name_node).rsplit("::", 1)[-1].strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return ""  # an operator, a destructor, a template-id: not one name to look for
    template = kind = ""
    in_class = False
    current = fn.parent
    while current is not None:
        if current.type == "template_declaration" and not template:
            template = "template"
        elif current.type in ("field_declaration_list",) and not in_class:
            in_class = True
        elif current.type == "namespace_definition" and current.child_by_field_name(
            "name"
        ) is None:
            kind = kind or "internal"
        current = current.parent
    if template:
        kind = "template"
    elif _INTERNAL & set(specifiers) or in_class:
        kind = kind or "internal"
    if not kind:
        return ""  # external linkage: another translation unit may call it
    if _named_elsewhere(parsed, name, name_node.start_byte, fn.start_byte, fn.end_byte):
        return ""
    if kind == "template":
        return f"in template '{name}', which nothing in this file instantiates"
    return f"in helper '{name}', which nothing in this file calls"


def _named_elsewhere(
    parsed: ParsedSource, name: str, own: int, start: int, end: int
) -> bool:
    """``name`` occurs as a word in the file outside the definition ``[start, end)`` (its body
    calling itself is no use) and other than at ``own``, its own declarator."""
    pattern = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
    data = parsed.data
    for match in pattern.finditer(data):
        at = match.start()
        if at == own or start <= at < end:
            continue
        return True
    return False

