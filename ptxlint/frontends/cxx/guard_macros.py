"""The file's own object-like macros that a statement's ``#if`` conditions use.

``#define __CVTA_PTR_64 1`` (under ``#if defined(__LP64__) || ...``) before ``#if __CVTA_PTR_64``
decides that the ``#else`` is a 32-bit branch; without the definition the condition is
unknown and both branches look possible. For each condition around a statement this collects
the definitions of the names it uses that come before the condition's directive (the file's
own, position-sensitive, after any ``#undef``; else those of the headers it includes by
relative path), each with the conditions it holds under that do not also enclose the
directive. :mod:`ptxlint.frontends.cxx.preproc` evaluates them; nothing here decides.

Left unknown: function-like macros, names the target fixes (``__CUDA_ARCH__``, ``__LP64__``:
a file does not redefine them), names defined nowhere ptxlint can see.
"""

from __future__ import annotations

from collections.abc import Callable

from ptxlint.frontends.cxx import preproc
from ptxlint.frontends.cxx.defines import MacroDef
from ptxlint.frontends.cxx.guards import UNREAD, Branch, FileGuards
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import GuardMacro

_NAME = on_first_use(r"\b[A-Za-z_]\w*\b")
# Names whose value is the compiler's or the target's, never a file's.
_FIXED = on_first_use(r"^(?:__CUDA|__CUDACC|__NVCC|__NVCOMPILER|CUDA_VERSION$|CUDART_VERSION$)")
MAX_NESTING = 8  # a macro whose body uses a macro whose body uses ...: deeper is unknown


def _fixed(name: str) -> bool:
    return name == "defined" or name in preproc.DEFAULT_TARGET or _FIXED().match(name) is not None


class GuardMacros:
    """Per file: the :class:`GuardMacro` definitions each statement's guards use. The answer
    depends only on the chain of #if branches around the statement, so statements of one
    branch share it."""

    def __init__(self, guards: FileGuards, table: Callable[[], MacroTable]) -> None:
        self.guards = guards
        self._table = table
        self._memo: dict[int, tuple[GuardMacro, ...]] = {-1: ()}
        # By the chain's conditions and where its branches start among the file's own
        # #define and #undef directives: all that ``_collect`` reads of a chain (below).
        # CUTLASS wraps each asm in a branch of its own under the same few conditions
        # (`#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)`): its 3,093 branches with asm come to
        # 191 collections. Bounded by the file's branches, as ``_memo``.
        self._by_conditions: dict[tuple[object, ...], tuple[GuardMacro, ...]] = {}
        self._headers: dict[str, list[GuardMacro]] = {}  # _from_headers by name
        self._keys: dict[int, tuple[object, ...]] = {-1: ()}  # ``_key`` by branch

    def at(self, start: int) -> tuple[GuardMacro, ...]:
        # the innermost branch decides the chain
        innermost = self.guards.innermost(start)
        found = self._memo.get(innermost)
        if found is None:
            key = self._key(self.guards.chain_end(innermost))
            found = self._by_conditions.get(key)
            if found is None:
                found = self._by_conditions[key] = self._collect(self.guards.chain(start))
            self._memo[innermost] = found
        return found

    def _key(self, last: int) -> tuple[object, ...]:
        """What ``_collect`` of the chain ending at branch ``last`` depends on: for each of
        its branches, outermost first, its conditions and how many of the file's own
        directives start before it. Each branch's conditions are read at its start against the
        own directives before it (``_definitions``: ``d.start < before``, ``u < before``), and
        an own definition's guards less those of the branches of the chain that enclose it
        (``_own``): with the branches nested, the one at depth ``i`` encloses a definition
        before a deeper branch exactly when it starts at or before the definition. Kept per
        branch, each its parent's with its own pair added: a statement's own branch under
        known ones costs one look-up of the directives, not one per level of the chain."""
        keys = self._keys
        found = keys.get(last)
        if found is None:
            guards = self.guards
            path = []  # from ``last`` up to the first branch known (-1 always is)
            i = last
            while i not in keys:
                path.append(i)
                i = guards.parent(i)
            found = keys[i]
            epoch = self._table().epoch
            for i in reversed(path):
                branch = guards.branch(i)
                found = keys[i] = (*found, (branch.conditions, epoch(branch.start)))
        return found

    def inside(self, start: int, conditions: tuple[str, ...]) -> tuple[GuardMacro, ...]:
        """The definitions the guards at ``start`` use, and those that ``conditions`` (of
        directives inside the statement at ``start``) use."""
        chain = self.guards.chain(start)
        extra = self._collect(chain, [(conditions, start, len(chain))])
        around = self.at(start)
        known = {m.name for m in around}
        return around + tuple(m for m in extra if m.name not in known)

    def _collect(
        self,
        chain: list[Branch],
        where: list[tuple[tuple[str, ...], int, int]] | None = None,
    ) -> tuple[GuardMacro, ...]:
        # Each branch's conditions are evaluated at its directive: a definition counts where
        # it precedes it (the branch's first line follows it), and the branches that enclose
        # the directive (``chain[:depth]``, never copied: 100,000 nested #if made that
        # quadratic) enclose the statement too.
        if where is None:
            where = [(b.conditions, b.start, depth) for depth, b in enumerate(chain)]
        out: list[GuardMacro] = []
        seen: set[str] = set()
        for conditions, before, depth in where:
            frontier = [
                (n, 0) for c in conditions for n in _NAME().findall(c) if not _fixed(n)
            ]
            while frontier:
                name, nesting = frontier.pop()
                if name in seen or nesting > MAX_NESTING:
                    continue
                seen.add(name)
                definitions = self._definitions(name, before, chain, depth)
                out.extend(definitions)
                for d in definitions:
                    frontier.extend(
                        (n, nesting + 1) for n in _NAME().findall(d.body) if not _fixed(n)
                    )
        return tuple(out)

    def _definitions(
        self, name: str, before: int, chain: list[Branch], depth: int
    ) -> list[GuardMacro]:
        """The definitions of ``name`` that a directive at ``before`` sees, which
        ``chain[:depth]`` encloses."""
        table = self._table()
        own = table.own.defines.get(name)
        if own:
            undefs = [u for u in table.own.undefs.get(name, ()) if u < before]
            last_undef = max(undefs) if undefs else -1
            live = [d for d in own if last_undef < d.start < before]
            if live or last_undef >= 0:
                return self._own(live, chain, depth)
        if table.own.undefs.get(name):
            return []  # #undef'd somewhere in the file: position matters, keep it unknown
        found = self._headers.get(name)
        if found is None:  # the same wherever it is asked (CUTLASS: a statement per #if block)
            found = self._headers[name] = _from_headers(table, name)
        return found

    def _own(
        self, definitions: list[MacroDef], chain: list[Branch], depth: int
    ) -> list[GuardMacro]:
        out = []
        for d in definitions:
            if d.params is not None:
                return []  # function-like: not a value
            # Own-file definitions: the guards of their own #if blocks, less those shared with
            # ``chain[:depth]``. Both chains run from the outermost block down, so the shared
            # ones are the common start; found by bisection, since a branch of one is in the
            # other only at the same place.
            own = self.guards.chain(d.start)
            low, high = 0, min(depth, len(own))
            while low < high:
                middle = (low + high + 1) // 2
                if own[middle - 1] is chain[middle - 1]:
                    low = middle
                else:
                    high = middle - 1
            conditions = tuple(c for b in own[low:] for c in b.conditions)
            if self.guards.unread(d.start):
                conditions += (UNREAD,)
            out.append(GuardMacro(d.name, _body(d), conditions))
        return out


def _from_headers(table: MacroTable, name: str) -> list[GuardMacro]:
    """A header's definitions hold under their guards, less the header's include guard
    (``#ifndef H`` / ``#define H``: true the first time the header is read)."""
    out = []
    for d in table.definitions(name):
        if d.path == table.path:
            continue  # the file's own, after the condition: not seen there
        if d.params is not None:
            return []
        out.append(GuardMacro(d.name, _body(d), _without_include_guard(table, d)))
    return out


def _without_include_guard(table: MacroTable, d: MacroDef) -> tuple[str, ...]:
    if not d.guards or not d.guards[0].startswith("!defined("):
        return d.guards
    guard = d.guards[0][len("!defined(") : -1].strip()
    header = table.header(d.path)
    if header is None:
        return d.guards
    if any(g.guards == (d.guards[0],) for g in header.defines.get(guard, ())):
        return d.guards[1:]
    return d.guards


def _body(d: MacroDef) -> str:
    return " ".join(t.text for t in d.body)
