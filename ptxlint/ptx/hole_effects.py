"""What an instruction does when part of its mnemonic is text the front end could not read.

A Python front end reads ``f"st.global.{dtype} [$1], $2;"`` with a hole where ``{dtype}`` is
(``model.HOLE``), the C++ one a macro whose text is unknown, and extended asm may splice an
operand into a modifier (``cta_group::%0``). The parser marks such an instruction ``opaque``:
its spelling is unknown, so no rule judges it. What it *does* may still be known: a store is a
store whatever its type, an ``mbarrier.arrive`` arrives on a barrier whatever its scope.

:func:`effects_with_holes` answers the :func:`ptxlint.ptx.effects.lookup` of every spelling the
instruction may have, merged into what all of them share. The spellings are the instruction
grammar's (:mod:`ptxlint.ptx.forms`): each form of the opcode that takes every word written
around the holes, each word in a slot of its own, its other slots left for the holes. A hole
inside a word completes that word (``b`` + hole is one of the form's words that starts with
``b``: ``b16``, ``b32``...); a hole that is a word of its own, or that starts or ends one
(``global`` + hole: ``.nc`` may follow), may add whole words, so any slot the written words
leave free may hold any of its words. Only the words that decide the effects are told apart
(``decisive_words``: the effect table's words for the opcode and the memory-ordering
qualifiers its ``ordering`` reads); a type, a vector width or a shape changes nothing, and
every other word stands for all of them.

Nothing is known where the opcode itself holds a hole, where the first modifier (the
sub-instruction the table keys on: ``mbarrier.<op>``) starts with one, where no form takes the
words written around the holes, where the grammar leaves a decisive word of the family
undescribed (``PARTIAL``: ``fence.proxy::async``), or where the spellings disagree on the
memory access or the proxy. Where they disagree on the memory-ordering semantics only (a store
whose ``.sem`` may be in the hole), the merged effects keep what all share: every such store
writes memory and has a side effect, but whether it releases is not known, so the merged
effects do not claim it (``ordering`` keeps the semantics and kind all share, with no scope
where the scopes differ, or is ``None``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product

from ptxlint.model import HOLE
from ptxlint.ptx.effects import EFFECTS, Effects, Ordering, Writes, lookup
from ptxlint.ptx.forms import Form, forms

__all__ = ["decisive_words", "effects_with_holes"]

_SEMS = frozenset({"weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio"})
_SCOPES = frozenset({"cta", "cluster", "gpu", "sys"})
_ORDERED = _SEMS | _SCOPES

# The words ``effects.ordering`` reads, by opcode (tests/test_hole_effects.py checks that no
# other word of a family's grammar changes ``lookup``).
_ORDERING_WORDS: dict[str, frozenset[str]] = {
    "ld": _ORDERED | {"nc", "const", "param", "async", "bulk"},
    "st": _ORDERED | {"async", "bulk"},
    "cp": frozenset({"async", "bulk", "commit_group", "wait_group", "wait_all", "mbarrier"}),
    "multimem": _ORDERED | {"ld_reduce", "st", "red"},
    "atom": _ORDERED | {"async"},
    "red": _ORDERED | {"async"},
    "fence": _ORDERED | {"proxy", "mbarrier_init"},
    "membar": frozenset({"cta", "gl", "sys"}),
    "mbarrier": _ORDERED | {"arrive", "arrive_drop", "test_wait", "try_wait"},
    "barrier": _ORDERED | {"cluster", "arrive", "wait"},
}

# Sub-instructions that ``ordering`` reads wherever they are written, which the ISA's syntax
# puts right after the opcode (``st.async``, ``st.bulk``, ``red.async``): a hole after the
# first modifier never holds one.
_FIRST_ONLY: dict[str, frozenset[str]] = {
    "st": frozenset({"async", "bulk"}),
    "red": frozenset({"async"}),
}

# the effect table's words after the opcode, by opcode
_TABLE_WORDS: dict[str, frozenset[str]] = {}
for _pattern in EFFECTS:
    _opcode, *_words = _pattern.split(".")
    _TABLE_WORDS[_opcode] = _TABLE_WORDS.get(_opcode, frozenset()) | frozenset(_words)

# more spellings than this: the effects stay unknown (none of the families comes near it)
_MOST_SPELLINGS = 20000
_MOST_PLACEMENTS = 4096


def decisive_words(opcode: str) -> frozenset[str]:
    """The modifier words that may change ``lookup(opcode, ...)``: the table's and those the
    memory-ordering semantics are read from. A ``::`` word counts by its head as well
    (``param::entry``, ``proxy::async``): see :func:`_decisive`."""
    return _TABLE_WORDS.get(opcode, frozenset()) | _ORDERING_WORDS.get(opcode, frozenset())


def _decisive(word: str, words: frozenset[str]) -> bool:
    return word in words or word.partition("::")[0] in words or word.startswith("proxy")


def effects_with_holes(opcode: str, modifiers: tuple[str, ...], open_tail: bool = False
                       ) -> Effects | None:
    """What every spelling of ``opcode.modifiers`` does, where some modifiers hold holes
    (``model.HOLE``); ``None`` where that is not known (module docstring). ``open_tail``: a
    hole follows the mnemonic (the first operand starts with one), which may hold modifiers."""
    if HOLE in opcode:
        return None
    return _merged(opcode, modifiers, open_tail)


@lru_cache(maxsize=1024)
def _merged(opcode: str, modifiers: tuple[str, ...], open_tail: bool) -> Effects | None:
    spellings = _spellings(opcode, modifiers, open_tail)
    if not spellings:
        return None
    found = [lookup(opcode, spelling) for spelling in spellings]
    if any(e is None for e in found):
        return None
    return _merge([e for e in found if e is not None])


class _Hole:
    """One modifier word that holds a hole: the words it may be, and whether it may add others."""

    __slots__ = ("pattern", "whole", "adds")

    def __init__(self, word: str) -> None:
        pieces = word.split(HOLE)
        self.whole = not "".join(pieces)  # nothing but holes: any word, or several
        self.pattern = re.compile("[^.]*".join(re.escape(p) for p in pieces))
        self.adds = self.whole or word.startswith(HOLE) or word.endswith(HOLE)


def _spellings(opcode: str, modifiers: tuple[str, ...], open_tail: bool
               ) -> set[tuple[str, ...]] | None:
    """The spellings the instruction may have, each reduced to its first word and its decisive
    ones, sorted; None where they cannot be listed."""
    if modifiers[0].startswith(HOLE) if modifiers else open_tail:
        return None  # the sub-instruction is unknown: a hole may be it
    family = forms(opcode)
    decisive = decisive_words(opcode)
    if not family or _undescribed_decisive(opcode, decisive):
        return None
    holes = {at: _Hole(m) for at, m in enumerate(modifiers) if HOLE in m}
    # the words written, and those a hole completes, by their place among the modifiers
    written = [(at, m) for at, m in enumerate(modifiers) if at not in holes]
    partial = [(at, h) for at, h in holes.items() if not h.whole]
    adds = open_tail or any(h.adds for h in holes.values())
    first_only = _FIRST_ONLY.get(opcode, frozenset())
    out: set[tuple[str, ...]] = set()
    for form in family:
        placements = _placements(form, written, partial, decisive, first_only)
        if len(placements) > _MOST_PLACEMENTS:
            return None  # not all listed: what the others do is not known
        for taken in placements:
            if not _heads_first(form, taken, adds):
                continue
            options: list[list[str | None]] = []
            for i, slot in enumerate(form.slots):
                if i in taken:
                    continue
                if adds:
                    options.append([None, *(w for w in slot.by_word if _decisive(w, decisive)
                                            and w not in first_only)])
                elif slot.optional:
                    options.append([None])
                else:
                    break  # a required word that nothing written can be
            else:
                words = sorted(taken.values())
                first = words[0][1] if words and words[0][0] == 0 else None
                if modifiers and first is None:
                    return None
                spelled = [w for _, w in words[1:]] if first is not None else []
                for extra in product(*options):
                    rest = sorted({w for w in (*spelled, *extra)
                                   if w is not None and _decisive(w, decisive)})
                    out.add(((first,) if first is not None else ()) + tuple(rest))
                if len(out) > _MOST_SPELLINGS:
                    return None
    return out


def _heads_first(form: Form, taken: dict[int, tuple[int, str]], adds: bool) -> bool:
    """A form's sub-instruction (its ``head`` slots) is its first words, in order: the first
    modifier is the first of them, and a hole that may add words may hold the others
    (``tcgen05.ld`` + hole: ``.red``)."""
    if not form.head:
        return True
    if taken.get(0, (-1, ""))[0] != 0:
        return False
    heads = [taken[i][0] for i in range(form.head) if i in taken]
    if len(heads) < form.head and not adds:
        return False
    rest = [at for i, (at, _) in taken.items() if i >= form.head]
    return heads == sorted(heads) and (not rest or max(heads) < min(rest))


def _placements(form: Form, written: list[tuple[int, str]], partial: list[tuple[int, _Hole]],
                decisive: frozenset[str], first_only: frozenset[str]
                ) -> list[dict[int, tuple[int, str]]]:
    """Every way of giving each written word, and each word a hole completes, a slot of
    ``form`` of its own: slot -> (the word's place among the modifiers, the word). A word a
    hole completes is each decisive word of the slot its pattern matches, and one of the
    others for all of them. More than ``_MOST_PLACEMENTS`` where the list stops short."""
    out: list[dict[int, tuple[int, str]]] = []
    items: list[tuple[int, str | _Hole]] = [*written, *partial]

    def place(index: int, taken: dict[int, tuple[int, str]]) -> None:
        if len(out) > _MOST_PLACEMENTS:
            return
        if index == len(items):
            out.append(dict(taken))
            return
        at, item = items[index]
        for i, slot in enumerate(form.slots):
            if i in taken:
                continue
            if isinstance(item, str):
                words = [item] if item in slot.by_word else []
            else:
                words, plain = [], False
                for word in slot.by_word:
                    if at > 0 and word in first_only:
                        continue
                    if item.pattern.fullmatch(word) and (
                            _decisive(word, decisive) or at == 0 or not plain):
                        plain = plain or not _decisive(word, decisive)
                        words.append(word)
            for word in words:
                taken[i] = (at, word)
                place(index + 1, taken)
                del taken[i]

    place(0, {})
    return out


@lru_cache(maxsize=64)
def _undescribed_decisive(opcode: str, decisive: frozenset[str]) -> bool:
    """The grammar leaves out spellings of the family with a decisive word (``PARTIAL``): a
    hole may be such a word, and no form says what it combines with."""
    from ptxlint.ptx.grammar_data import PARTIAL

    for entry in PARTIAL.get(opcode, ()):
        words = entry.split("+")
        # a word no form has, or a combination of two words the forms may never combine
        # (``tcgen05.mma`` with a type of ``mma+b6x16_p32``: the forms have ``mma``)
        if sum(_decisive(word, decisive) for word in words) > (1 if len(words) > 1 else 0):
            return True
    return False


def _merge(found: list[Effects]) -> Effects | None:
    """What every one of ``found`` does; None where they disagree on the memory access's
    direction or on the proxy that performs it."""
    first = found[0]
    if all(e == first for e in found):
        return first
    memories = {e.memory for e in found}
    if len(memories) == 1:
        memory = first.memory
    elif "" in memories:
        memory = ""  # some spelling accesses no memory C++ may change (ld.global.nc)
    elif memories <= {"write", "readwrite"}:
        memory = "write"
    elif memories <= {"read", "readwrite"}:
        memory = "read"
    else:
        return None
    if len({e.asynchronous for e in found}) > 1 or len({e.async_proxy for e in found}) > 1:
        return None
    return Effects(
        side_effect=all(e.side_effect for e in found),
        memory=memory,
        orders_memory=all(e.orders_memory for e in found),
        collective=all(e.collective for e in found),
        asynchronous=first.asynchronous,
        async_proxy=first.async_proxy,
        writes=first.writes if all(e.writes is first.writes for e in found) else Writes.UNKNOWN,
        isa=first.isa,
        ordering=_common_ordering([e.ordering for e in found]),
    )


def _common_ordering(orderings: list[Ordering | None]) -> Ordering | None:
    """The semantics and kind every spelling shares, the scope where they share it too. An
    ``.mmio`` access is a relaxed one (the ISA spells it ``.mmio.relaxed.sys``): where the
    spellings differ in that word alone, they share ``relaxed``."""
    known = [o for o in orderings if o is not None]
    if len(known) < len(orderings):
        return None
    sems = {o.sem for o in known}
    if len(sems) > 1 and sems == {"relaxed", "mmio"}:
        sems = {"relaxed"}
    if len(sems) > 1 or len({o.kind for o in known}) > 1:
        return None
    scopes = {o.scope for o in known}
    return Ordering(sems.pop(), scopes.pop() if len(scopes) == 1 else "", known[0].kind)
