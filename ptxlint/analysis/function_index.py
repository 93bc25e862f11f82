"""Where a file's functions are, for :class:`.function_flow.FileFlows`.

The functions are the definitions outside any function body (a local class's methods are part
of the function around them). Listing them walks the whole tree; most questions name one
point (is this statement's ``shfl.sync`` under a lane condition?), and the function around a
point is found by climbing from it instead: on CUTLASS ``include/`` the walk and naming every
function cost PTX601 0.2 s of its 0.34 s (``check -j 1 --no-cache``), where a climb per
statement costs microseconds. Each function's flow is made once, whichever way it is found,
so that the flows compare by identity.

Where the tree shows no function around a point (a head qualified by macros, a macro call
with no ``;`` before it: the definition lands in an ERROR node), the function the text shows
is taken, as the statements' contexts take it (``function_recovery``, the same scans): its
body is the block the tree has at its ``{``. The listing holds only the tree's."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import tree_sitter

from ptxlint.analysis.flow_syntax import callee_name
from ptxlint.analysis.function_shapes import FunctionShape, ShapeIndex
from ptxlint.frontends.cxx.function_recovery import RecoveredFunction, recovery_of
from ptxlint.lazy_regex import on_first_use

if TYPE_CHECKING:
    from ptxlint.analysis.function_flow import FunctionFlow

Node = tree_sitter.Node
# a byte of a word: a name spelled next to one is part of a longer name (``_spellings``)
_WORD_BYTE = on_first_use(rb"\w")
# a node of these kinds above a definition makes it part of another function
_INSIDE = frozenset({"compound_statement", "function_definition"})


class FunctionIndex:
    """The file's functions, each with the statements in it: all of them in order
    (:attr:`functions`) on first ask, or the one around a byte."""

    def __init__(self, shapes: ShapeIndex, make: Callable[[FunctionShape], FunctionFlow],
                 make_recovered: Callable[[RecoveredFunction, Node], FunctionFlow]) -> None:
        """``shapes``: the file's functions as its tree shows them, and its own statements
        (no macro's expansion), placed in the function that holds each; ``make``: a
        definition's flow; ``make_recovered``: the flow of a function the text shows, given
        its body's block."""
        self.parsed = shapes.parsed
        self.shapes = shapes
        self._make = make
        self._make_recovered = make_recovered
        self._recovered: dict[int, FunctionFlow | None] = {}
        self._made: dict[int, FunctionFlow] = {}
        self._all: list[FunctionFlow] | None = None
        self._starts: list[int] = []
        self._named: dict[str, list[FunctionFlow]] = {}
        self._calling: dict[frozenset[str], list[FunctionFlow]] = {}

    @property
    def functions(self) -> list[FunctionFlow]:
        """Every function of the file, in order."""
        if self._all is None:
            self._all = [self.of(shape) for shape in self.shapes.all]
            self._starts = [flow.start for flow in self._all]
        return self._all

    def made(self) -> list[FunctionFlow]:
        """The flows made so far (to let them go), without listing the rest."""
        return [flow for flow in (*self._made.values(), *self._recovered.values())
                if flow is not None]

    def named(self, name: str) -> list[FunctionFlow]:
        """The definitions called ``name`` (overloads, specialisations): only theirs are
        made (a header's other functions never are, for a file that calls none of them)."""
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = [self.of(shape) for shape in self.shapes.named(name)]
        return found

    def around(self, byte: int) -> FunctionFlow | None:
        """The function that holds ``byte``, ``None`` outside every one."""
        flow = self._in_tree(byte)
        return flow if flow is not None else self._in_text(byte)

    def calls_of(self, helper: FunctionFlow) -> list[tuple[FunctionFlow, int, int]]:
        """The calls of ``helper`` in the file's other functions' bodies (caller, call start,
        end), by name, found by climbing from each place that spells it: neither the file's
        functions nor a caller's body need be read (on flashinfer, reading each caller's body
        for its calls was half of PTX601's cost). None at all where another definition has
        the name: which one a call reaches is not known."""
        found: list[tuple[FunctionFlow, int, int]] = []
        for caller, call in self._spellings(helper.name, self.around):
            if caller is helper:
                continue
            if caller.name == helper.name:
                return []
            if call is not None:
                found.append((caller, call.start_byte, call.end_byte))
        return found

    def calling(self, names: set[str]) -> list[FunctionFlow]:
        """The functions of the tree whose body calls one of ``names`` (the callee as
        ``callee_name`` reads it, what a flow's calls are), in order, found by climbing from
        each place that spells one: a file's other functions are neither listed nor read.
        Memoised by the names: the statements of one function, and overloads of one name,
        ask alike."""
        key = frozenset(names)
        known = self._calling.get(key)
        if known is None:
            found = {caller.start: caller for name in names
                     for caller, call in self._spellings(name, self._in_tree) if call is not None}
            known = self._calling[key] = [found[start] for start in sorted(found)]
        return known

    def _spellings(self, name: str, climb: Callable[[int], FunctionFlow | None]
                   ) -> Iterator[tuple[FunctionFlow, Node | None]]:
        """Each place in a function (``climb``: the one around a byte) that spells ``name`` as
        a whole word, with the call whose callee it is there (None where it is none): found
        by ``find``, one climb per function, where a search of every position for
        ``\\b(?:name)\\b`` cost more on CCCL's generated tcgen05 wrappers than building every
        flow of the file."""
        data, word, word_byte = self.parsed.data, name.encode(), _WORD_BYTE().match
        caller: FunctionFlow | None = None
        at = data.find(word)
        while at >= 0:
            end = at + len(word)
            if not (at and word_byte(data, at - 1)) and not word_byte(data, end):
                if caller is None or not caller.start <= at < caller.end:
                    caller = climb(at)
                if caller is not None:
                    call = self._call_at(caller, at, end - at)
                    yield caller, (call if call is not None and
                                   callee_name(self.parsed, call) == name else None)
            at = data.find(word, end)

    def _call_at(self, caller: FunctionFlow, at: int, size: int) -> Node | None:
        """The call whose callee is spelled at ``[at, at + size)`` in ``caller``'s body."""
        body = caller.node if caller.recovered else caller.node.child_by_field_name("body")
        if body is None or not body.start_byte <= at < body.end_byte:
            return None
        node: Node | None = body.descendant_for_byte_range(at, at + size)
        while node is not None and node != body:
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                held = function is not None and function.start_byte <= at < function.end_byte
                return node if held else None  # an argument, not this call's callee
            node = node.parent
        return None

    def _in_tree(self, byte: int) -> FunctionFlow | None:
        if self._all is not None:
            k = bisect.bisect_right(self._starts, byte) - 1
            if k >= 0 and byte < self._all[k].end:
                return self._all[k]
            return None
        node: Node | None = self.parsed.tree.root_node.descendant_for_byte_range(byte, byte + 1)
        outermost: Node | None = None
        inside = False  # a body or definition above the outermost definition found
        while node is not None:
            if node.type in _INSIDE and outermost is not None:
                inside = True
            if node.type == "function_definition":
                outermost, inside = node, False
            node = node.parent
        if outermost is None or inside:
            return None
        shape = self.shapes.of(outermost)
        return None if shape is None else self.of(shape)

    def _in_text(self, byte: int) -> FunctionFlow | None:
        found, _ = recovery_of(self.parsed).around(byte)
        if found is None:
            return None
        if found.start_byte in self._recovered:
            return self._recovered[found.start_byte]
        body: Node | None = self.parsed.tree.root_node.descendant_for_byte_range(
            found.body_byte, found.body_byte + 1)
        while body is not None and not (body.type == "compound_statement"
                                        and body.start_byte == found.body_byte):
            body = body.parent
        flow = None if body is None else self._placed_in(self._make_recovered(found, body))
        self._recovered[found.start_byte] = flow
        return flow

    def _placed_in(self, flow: FunctionFlow) -> FunctionFlow:
        flow.statements.extend(self.shapes.statements_in(flow.start, flow.end))
        return flow

    def of(self, shape: FunctionShape) -> FunctionFlow:
        """The flow of the function ``shape``: one per function, however it is found."""
        flow = self._made.get(shape.start)
        if flow is None:
            flow = self._made[shape.start] = self._placed_in(self._make(shape))
        return flow
