"""Whether a file makes shared-window addresses, and whether it makes shared-window pointers:
the two file-wide questions value flow (``value_flow``) asks before, and while, following a
value.

* A shared-window value is made by a call of a helper of ``SHARED_ADDRESS_HELPERS`` or by a
  template's ``cvta.to.shared``, spelt in the file itself (``spells_shared_makers``): a file
  that spells neither holds no shared-window address value flow could find.
* A file makes shared-window *pointers* (``makes_shared_pointers``) where some function declared
  to return a pointer returns ``cvta.to.shared``'s result: every return of it is one, or (read
  off the file's statements, whose instructions and operands the front end reads through macros
  where the tree errs) it returns the variable an asm statement writes with ``cvta.to.shared``
  (NvCloth's ``asm("cvta.to.shared." POINTER_TYPE " %0, %0;" : "+" POINTER_CONSTRAINT(ptr));
  return ptr;``). A pointer there whose origin is not known may hold one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import tree_sitter

from ptxlint import file_memos
from ptxlint.analysis.name_search import IDENTIFIER
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.address_values import SHARED_ADDRESS_HELPERS

__all__ = ["FileReader", "makes_shared_pointers", "spells_shared_makers"]

# Looked for as plain substrings (a name inside a longer word counts too: it only costs a
# question of the value flow): a regular expression of the alternatives took 1.5 ms a file.
_SHARED_MAKERS = (*sorted(SHARED_ADDRESS_HELPERS), "cvta.to.shared")
# The last file asked about and whether it spells a maker: the engine lints a file's
# statements in turn.
_MAKERS: list[tuple[SourceFile, bool]] = []
file_memos.register(_MAKERS.clear)


def spells_shared_makers(source: SourceFile) -> bool:
    """``source`` spells a helper of ``SHARED_ADDRESS_HELPERS`` or ``cvta.to.shared``."""
    for last in _MAKERS[:1]:  # one read (threads share it): the entry, or none
        if last[0] is source:
            return last[1]
    text = source.text
    found = any(maker in text for maker in _SHARED_MAKERS)
    _MAKERS[:] = [(source, found)]
    return found


class FileReader(Protocol):
    """What the question needs of value flow's file facts."""

    parsed: ParsedSource
    data: bytes
    statements: Sequence[AsmStatement] | None  # the file's linted statements, when known

    def node_at(self, start: int, end: int) -> tree_sitter.Node | None: ...

    def pointer_function(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The function definition around ``node``, where it is declared to return a
        pointer."""
        ...

    def returns_shared(self, function: tree_sitter.Node) -> bool:
        """Every return of ``function`` is a shared-window address."""
        ...

    def returned(self, function: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The expressions ``function``'s own ``return`` statements return."""
        ...


def makes_shared_pointers(reader: FileReader) -> bool:
    """Some function of the file declared to return a pointer returns ``cvta.to.shared``'s
    result (see the module's docstring)."""
    if _returns_converted(reader):
        return True
    for m in re.finditer(rb"cvta\.to\.shared", reader.data):
        node = reader.node_at(m.start(), m.end())
        function = reader.pointer_function(node) if node is not None else None
        if function is not None and reader.returns_shared(function):
            return True
    return False


def _returns_converted(reader: FileReader) -> bool:
    """A function declared to return a pointer returns a variable that one of its asm
    statements writes as the destination of ``cvta.to.shared`` (``"=l"`` or ``"+l"``)."""
    for statement in reader.statements or ():
        if "cvta" not in statement.template.text or statement.syntax != "gnu":
            continue
        for instruction in statement.ptx.instructions:
            if (
                instruction.opcode != "cvta"
                or "to" not in instruction.modifiers
                or not any(m.split("::")[0] == "shared" for m in instruction.modifiers)
                or not instruction.operands
            ):
                continue
            index = instruction.operands[0].ref
            if index is None or index >= len(statement.operands):
                continue
            operand = statement.operands[index]
            name = operand.expression.strip()
            if operand.role != "output" or IDENTIFIER().fullmatch(name.encode()) is None:
                continue
            start = reader.parsed.to_byte(statement.span.start)
            node = reader.node_at(start, start + 1)
            function = reader.pointer_function(node) if node is not None else None
            if function is not None and any(
                r.type == "identifier" and reader.parsed.node_text(r) == name
                for r in reader.returned(function)
            ):
                return True
    return False
