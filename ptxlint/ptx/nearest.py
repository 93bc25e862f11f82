"""The spelling of a known form nearest to an instruction no form spells: what a combination
error offers as "the nearest form" (``grammar._combination_issue``).

A form's slots are filled from the instruction's own words where a slot takes the word in
turn, with the slot's word where a required slot takes none of them and admits one word only,
and optional slots left out otherwise. The candidate must be a spelling the grammar accepts
exactly, and it is offered only when at most ``MOST_CHANGED`` words are substituted, inserted or
dropped (beyond that the nearest form is a different instruction, not a repair) and when it is
the only one that near: where a required slot could take any of several words (a scope, a type)
or two forms come as near, the grammar cannot tell which one was meant, and says nothing
(``st.relaxed.global.u32`` lacks a scope: the message lists the scopes).

lmdeploy's turbomind ``mma.h`` spells ``mma.sync.aligned.m16n8k8.row.col.bf16.bf16.bf16.bf16``
(ptxas 13.0: "Unexpected instruction types specified for 'mma'"); the nearest form is
``...row.col.f32.bf16.bf16.f32``, bf16 ``mma`` accumulating in f32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptxlint.ptx.forms import Form, Slot, forms, forms_listing

__all__ = ["MOST_CHANGED", "edit_distance", "nearest_spelling"]

MOST_CHANGED = 2


def nearest_spelling(
    opcode: str,
    modifiers: tuple[str, ...],
    spelled: Callable[[tuple[str, ...]], bool],
) -> tuple[str, ...] | None:
    """The modifiers of the one spelling nearest to ``opcode.modifiers`` among the opcode's
    forms (``spelled``: whether the grammar accepts a spelling exactly); None where none is
    within ``MOST_CHANGED`` words, or where the nearest is not the only one that near.

    The answer is the set of spellings as near as the nearest, whatever the order the forms
    are read in: they are read by the written words they do not list, fewest first
    (``forms_listing``), and a form is filled and measured only while that many words, or
    the words it always spells but nobody wrote, are no more than the nearest so far;
    a distance is worked out only as far as that (``_distance_within``). Filling and
    measuring every form, a wrong spelling of cp (247 forms) or fabric (204) cost 1.8-5.0 ms
    of CPU, 0.04-1.0 ms so (58 wrong spellings of cp, fabric, mbarrier, tcgen05, wgmma,
    ld/st...: 88 -> 8 ms); ``tests/test_grammar_nearest.py`` holds the answers to those of
    the search of every form.
    """
    family = forms(opcode)
    nearest: dict[tuple[str, ...], bool] = {}  # candidate -> whether a slot had a choice
    best = MOST_CHANGED
    count = len(modifiers)
    written = frozenset(modifiers)
    for index, unlisted in forms_listing(opcode, modifiers, best):
        if unlisted > best:
            break  # the forms after it list no more of the words
        form = family[index]
        # a word the form always spells but nobody wrote is an edit too
        if len(form.required_words - written) > best:
            continue
        candidate, chosen = _filled(form, modifiers)
        if abs(len(candidate) - count) > best:
            continue
        distance = _distance_within(candidate, modifiers, best)
        if distance == 0 or distance > best or not spelled(candidate):
            continue
        if distance < best:
            best, nearest = distance, {}
        nearest[candidate] = nearest.get(candidate, False) or chosen
    if len(nearest) != 1:
        return None
    [(candidate, chosen)] = nearest.items()
    return None if chosen else candidate


def _filled(form: Form, modifiers: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The form spelled with the instruction's words where its slots take them, and whether a
    required slot that took none had several words to choose from."""
    words: list[str] = []
    chosen = False
    at = 0
    slots = form.slots
    for k, slot in enumerate(slots):
        if at < len(modifiers) and modifiers[at] in slot.by_word:
            words.append(modifiers[at])
            at += 1
        elif not slot.optional:
            words.append(slot.values[0].word)
            chosen = chosen or len(slot.by_word) > 1
            # the instruction's word here is one no later slot takes: this slot replaces it
            if at < len(modifiers) and not _taken_later(slots[k + 1:], modifiers[at]):
                at += 1
    return tuple(words), chosen


def _taken_later(slots: Sequence[Slot], word: str) -> bool:
    return any(word in slot.by_word for slot in slots)


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Items (words, or a string's characters) substituted, inserted or dropped to turn ``a``
    into ``b`` (Levenshtein)."""
    previous = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (word != other)))
        previous = current
    return previous[-1]


def _distance_within(a: Sequence[str], b: Sequence[str], bound: int) -> int:
    """``edit_distance(a, b)`` where it is at most ``bound``; otherwise ``bound + 1``. Only the
    cells within ``bound`` of the table's diagonal are worked out (a path through any other
    cell makes more than ``bound`` edits), the others read as ``bound + 1``, and the answer is
    known as soon as a whole row exceeds ``bound`` (the rows' least never decreases)."""
    far = bound + 1
    width = len(b)
    previous = [j if j <= bound else far for j in range(width + 1)]
    for i, word in enumerate(a, 1):
        low, high = max(1, i - bound), min(width, i + bound)
        current = [far] * (width + 1)
        if i <= bound:
            current[0] = i
        for j in range(low, high + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (word != b[j - 1]), far)
        if min(current) > bound:
            return far
        previous = current
    return previous[width]
