"""Where a Python-embedded asm call sits in its function (inside a loop, after a barrier), and
whether an argument it passes is a compile-time constant.

A pure asm (Triton's ``is_pure=True``, CuTe DSL's ``has_side_effects=False``) is a function of
its inputs to the optimizer: it may be hoisted out of a loop and merged with an identical call.
For a load, whether that is harmless depends on what can change the memory between two
executions of it. Inside a loop, the same call runs again and a hoisted load returns the first
iteration's value for ever (a spin-wait never ends); after a barrier, the load is meant to see
what other threads wrote before it, and a load merged with one before the barrier, or moved
above it, does not. PTX505 ranks its findings with these facts.

Triton passes each argument of ``inline_asm_elementwise`` to LLVM as a value; an argument that
is a compile-time constant (a literal, a ``tl.constexpr``, an expression of those) becomes an
LLVM constant, which an ``"n"`` constraint takes, while a tensor or a runtime scalar becomes a
register, which it cannot. :func:`argument_kind` tells them apart (PTX010 reads it).

Read from the Python source with :mod:`ast` (once per file, on the first ask; only statements a
rule asks about pay for it). A source that does not parse, or a statement that is
not a Python call, has neither fact: silence over guessing.
"""

from __future__ import annotations

import ast
from itertools import accumulate

from ptxlint import file_memos
from ptxlint.model import AsmStatement, SourceFile

__all__ = ["Placement", "argument_kind", "placement_of"]

# A call whose last name says it is a barrier or a fence: the DSLs' own spellings
# (tl.debug_barrier, cute.arch.barrier, cute.arch.sync_threads, numba's cuda.syncthreads,
# fence_view_async_shared, mbarrier_wait, cluster_wait).
_BARRIER_WORDS = ("barrier", "syncthreads", "sync_threads", "fence", "cluster_wait",
                  "cluster_sync", "syncwarp")
# PTX opcodes that are a barrier or a fence, in an earlier asm call's template string.
_BARRIER_OPCODES = ("bar.sync", "bar.arrive", "barrier.", "bar.warp.sync", "fence.", "membar.",
                    "mbarrier.try_wait", "mbarrier.test_wait")


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Placement:
    """The statement's surroundings in its Python function."""

    __slots__ = ("in_loop", "after_barrier")

    def __init__(self, in_loop: bool, after_barrier: bool) -> None:
        # a for/while loop (or a comprehension) of its function holds the call
        self.in_loop = in_loop
        # an earlier call of its function is a barrier or a fence
        self.after_barrier = after_barrier


_NOWHERE = Placement(False, False)


class _Index:
    """A Python source's functions and loops, by character offsets."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        text = source.text
        self.tree: ast.Module | None
        try:
            self.tree = ast.parse(text)
        except (SyntaxError, ValueError):
            self.tree = None
        self._line_starts: list[int] | None = None

    def offset(self, line: int, column: int) -> int:
        """The character offset of ``ast``'s (1-based line, UTF-8 byte column)."""
        starts = self._line_starts
        if starts is None:
            # after each "\n", from the lengths of the lines between: a loop over every
            # character took 20 ms of CPU for the nine Python files of flashinfer that PTX505
            # asks about (870 KB; their ``ast.parse`` 170 ms), this a tenth of that
            starts = self._line_starts = [0]
            starts += accumulate(len(line) + 1 for line in self.source.text.split("\n")[:-1])
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.source.text)
        prefix = self.source.text[start:end].encode("utf-8")[:column]
        return start + len(prefix.decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.offset(end_line, end_col) if end_col is not None else start
        return start, end

    def function_at(self, at: int) -> ast.AST | None:
        """The innermost function around ``at`` (the module outside any)."""
        if self.tree is None:
            return None
        function: ast.AST = self.tree
        node: ast.AST = self.tree
        while True:
            inner = next(
                (c for c in ast.iter_child_nodes(node)
                 if hasattr(c, "lineno") and _holds(self.span(c), at)),
                None,
            )
            if inner is None:
                return function
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                function = inner
            node = inner

    def placement(self, at: int) -> Placement:
        if self.tree is None:
            return _NOWHERE
        # the innermost function around `at`, and the loops between it and `at`
        function: ast.AST = self.tree
        in_loop = False
        node: ast.AST = self.tree
        while True:
            inner = next(
                (c for c in ast.iter_child_nodes(node)
                 if hasattr(c, "lineno") and _holds(self.span(c), at)),
                None,
            )
            if inner is None:
                break
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                function, in_loop = inner, False  # a loop outside the function is not its own
            elif isinstance(inner, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
                in_loop = True
            node = inner
        return Placement(in_loop, self._barrier_before(function, at))

    def _barrier_before(self, function: ast.AST, at: int) -> bool:
        for node in _own_nodes(function):
            if not isinstance(node, ast.Call) or self.span(node)[1] > at:
                continue
            if _is_barrier(node):
                return True
        return False


def _holds(span: tuple[int, int], at: int) -> bool:
    return span[0] <= at < span[1]


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of ``function``'s body, not those of the functions defined inside it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _callee_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _is_barrier(call: ast.Call) -> bool:
    name = _callee_name(call).lower()
    if any(word in name for word in _BARRIER_WORDS):
        return True
    for arg in call.args:  # an earlier asm call whose template is a barrier or a fence
        if (isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                and any(op in arg.value for op in _BARRIER_OPCODES)):
            return True
    return False


_INDEXES: dict[int, _Index] = {}


def _index(statement: AsmStatement) -> _Index | None:
    source = statement.source
    if statement.llvm is None or not source.path.endswith((".py", ".pyi")):
        return None
    index = _INDEXES.get(id(source))
    if index is None or index.source is not source:
        _INDEXES.clear()  # one file at a time
        index = _INDEXES[id(source)] = _Index(source)
    return index


def placement_of(statement: AsmStatement) -> Placement:
    """Where the statement's call sits in its Python function; nothing known for C++."""
    index = _index(statement)
    if index is None or statement.llvm is None:
        return _NOWHERE
    return index.placement(statement.llvm.call_span.start)


# ---------------------------------------------------------------------------- constants

# Calls whose result is a tensor or a runtime value in a Triton function.
_RUNTIME_CALLS = frozenset({
    "load", "arange", "zeros", "full", "program_id", "num_programs", "where", "sum", "max",
    "min", "dot", "atomic_add", "atomic_cas", "inline_asm_elementwise", "cast", "to",
    "reshape", "broadcast_to", "expand_dims", "exp", "log", "sqrt", "abs", "maximum",
    "minimum", "zeros_like", "full_like", "rand", "randint",
})


def _is_constexpr_annotation(annotation: ast.AST | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.endswith("constexpr")  # "tl.constexpr" as a string
    name = annotation.attr if isinstance(annotation, ast.Attribute) else (
        annotation.id if isinstance(annotation, ast.Name) else "")
    return name == "constexpr"


class _Scope:
    """What the names of one function (and of its module) hold: ``constant`` or ``runtime``,
    from their annotations, their parameters and every assignment to them."""

    def __init__(self, function: ast.AST, module: ast.AST | None) -> None:
        self.assigned: dict[str, list[ast.AST]] = {}
        self.kinds: dict[str, str] = {}
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = function.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                # a parameter is a tensor or a runtime scalar unless it is a constexpr
                self.kinds[arg.arg] = (
                    "constant" if _is_constexpr_annotation(arg.annotation) else "runtime"
                )
        for node in _own_nodes(function) + (_module_level(module) if module is not None else []):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if _is_constexpr_annotation(node.annotation):
                    self.kinds.setdefault(node.target.id, "constant")
                elif node.value is not None:
                    self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
                    else:  # tuple unpacking and the like: what each name gets is not followed
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                self.kinds.setdefault(name.id, "")
            elif isinstance(node, (ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
                targets = [node.target] if not isinstance(node, ast.With) else [
                    item.optional_vars for item in node.items if item.optional_vars is not None]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.kinds.setdefault(name.id, "")

    def kind_of_name(self, name: str, seen: frozenset[str]) -> str:
        known = self.kinds.get(name)
        if known is not None:
            return known
        values = self.assigned.get(name)
        if not values or name in seen:
            return ""
        kinds = {self.kind(v, seen | {name}) for v in values}
        return kinds.pop() if len(kinds) == 1 else ("runtime" if "runtime" in kinds else "")

    def kind(self, node: ast.AST, seen: frozenset[str] = frozenset()) -> str:
        """``constant``, ``runtime`` or ``""`` (unknown) for an expression."""
        if isinstance(node, ast.Constant):
            return "constant" if isinstance(node.value, (int, bool)) else ""
        if isinstance(node, ast.Name):
            return self.kind_of_name(node.id, seen)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)):
            parts = [self.kind(c, seen) for c in ast.iter_child_nodes(node)
                     if isinstance(c, ast.expr)]
            if "runtime" in parts:
                return "runtime"
            return "constant" if parts and all(p == "constant" for p in parts) else ""
        if isinstance(node, ast.Call):
            name = _callee_name(node)
            if name == "constexpr" and node.args:
                return self.kind(node.args[0], seen)
            if name in _RUNTIME_CALLS:
                return "runtime"
        return ""


def _module_level(module: ast.AST) -> list[ast.AST]:
    """The module's own statements (not those inside its functions or classes)."""
    return [n for n in ast.iter_child_nodes(module)
            if isinstance(n, (ast.Assign, ast.AnnAssign))]


def argument_kind(statement: AsmStatement, text: str) -> str:
    """Whether the argument ``text`` of the statement's call is a compile-time ``constant``
    (a literal, a ``tl.constexpr`` parameter or local, an expression of those), a ``runtime``
    value (a tensor, a parameter that is not constexpr, a ``tl.load``), or ``""`` unknown."""
    index = _index(statement)
    if index is None or index.tree is None or statement.llvm is None:
        return ""
    try:
        expression = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return ""
    function = index.function_at(statement.llvm.call_span.start)
    if function is None:
        return ""
    module = index.tree if function is not index.tree else None
    return _Scope(function, module).kind(expression)


file_memos.register(_INDEXES.clear)
