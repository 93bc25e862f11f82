"""The error path's two searches, the closest form (``grammar._matches``) and the nearest
spelling (``nearest.nearest_spelling``), skip the forms that cannot come near by the family's
word index (``forms.forms_listing``): they answer what matching and measuring every form
answers, on seeded mutations of each family's spellings (a word dropped, two swapped, one
misspelled, replaced or added)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ptxlint.ptx import grammar, nearest
from ptxlint.ptx.forms import _specs, family_vocabulary, forms, forms_listing

_PER_FAMILY = 24  # mutations checked per family: the whole grammar in a few seconds


def _mutations(opcode: str) -> list[tuple[str, ...]]:
    rng = random.Random(opcode + "nearest")
    vocabulary = sorted(family_vocabulary(opcode))
    found: set[tuple[str, ...]] = set()
    for form in forms(opcode):
        spelling = [rng.choice(s.values).word for s in form.slots
                    if not s.optional or rng.random() < 0.5]
        if not spelling:
            continue
        k = rng.randrange(len(spelling))
        word = spelling[k]
        changed = list(spelling)
        what = rng.randrange(5)
        if what == 0:
            del changed[k]
        elif what == 1:
            j = rng.randrange(len(changed))
            changed[k], changed[j] = changed[j], changed[k]
        elif what == 2:
            changed[k] = word[1:] + word[:1]  # most often a word no form has
        elif what == 3:
            changed[k] = rng.choice(vocabulary)
        else:
            changed.insert(k, rng.choice(vocabulary))
        found.add(tuple(changed))
    ordered = sorted(found)
    return rng.sample(ordered, min(_PER_FAMILY, len(ordered)))


def _spelled(opcode: str) -> Callable[[tuple[str, ...]], bool]:
    def spelled(candidate: tuple[str, ...]) -> bool:
        unknown, exact, _ = grammar._modifier_matches(opcode, candidate)
        return unknown is None and bool(exact)
    return spelled


def _every_form_nearest(opcode: str, modifiers: tuple[str, ...],
                        spelled: Callable[[tuple[str, ...]], bool]) -> tuple[str, ...] | None:
    """The nearest spelling with every form filled and measured in full."""
    found: dict[tuple[str, ...], bool] = {}
    best = nearest.MOST_CHANGED
    for form in forms(opcode):
        candidate, chosen = nearest._filled(form, modifiers)
        distance = nearest.edit_distance(candidate, modifiers)
        if distance == 0 or distance > best or not spelled(candidate):
            continue
        if distance < best:
            best, found = distance, {}
        found[candidate] = found.get(candidate, False) or chosen
    if len(found) != 1:
        return None
    [(candidate, chosen)] = found.items()
    return None if chosen else candidate


def _every_form_closest(opcode: str, modifiers: tuple[str, ...]) -> object:
    """The closest match with every form matched, by the grammar's order of closeness."""
    def closeness(match: grammar._Match) -> tuple[int, ...]:
        added = grammar._types_added(match, modifiers)
        return (match.cost + bool(match.misordered) + added,
                grammar._head_moved(match.form, modifiers),
                sum(modifiers[i] not in grammar._REFINING for i in match.unused), added,
                bool(match.misordered), len(match.unused))

    matches = sorted((grammar._match_modifiers(f, modifiers) for f in forms(opcode)),
                     key=closeness)
    return _fields(matches[0])


def _fields(match: grammar._Match | None) -> object:
    if match is None:
        return None
    return (match.form, list(match.binding.items()), match.need, match.unused, match.missing,
            match.misordered)


@pytest.mark.parametrize("opcode", sorted(_specs()))
def test_the_indexed_searches_answer_as_the_search_of_every_form(opcode: str) -> None:
    spelled = _spelled(opcode)
    vocabulary = family_vocabulary(opcode)
    for modifiers in _mutations(opcode):
        assert nearest.nearest_spelling(opcode, modifiers, spelled) == \
            _every_form_nearest(opcode, modifiers, spelled), modifiers
        if not all(word in vocabulary for word in modifiers):
            continue  # an unknown word: no closest form is looked for
        unknown, exact, closest = grammar._matches.__wrapped__(opcode, modifiers)
        if not exact:
            assert _fields(closest) == _every_form_closest(opcode, modifiers), modifiers


def test_the_mutations_reach_both_searches() -> None:
    """The mutations above are wrong spellings the searches answer, not only exact ones or
    unknown words: over cp, fabric and tcgen05 some get a nearest form and some none."""
    offered = missed = closest = 0
    for opcode in ("cp", "fabric", "tcgen05"):
        for modifiers in _mutations(opcode):
            found = nearest.nearest_spelling(opcode, modifiers, _spelled(opcode))
            offered += found is not None
            missed += found is None
            closest += grammar._matches.__wrapped__(opcode, modifiers)[2] is not None
    assert offered >= 10 and missed >= 10 and closest >= 20


@pytest.mark.parametrize("opcode", ["cp", "fabric", "mbarrier", "ld", "mma"])
def test_forms_listing_counts_the_written_words_each_form_lists_none_of(opcode: str) -> None:
    family = forms(opcode)
    for modifiers in _mutations(opcode):
        for bound in (0, 1, 3, len(modifiers)):
            unlisted = [(sum(word not in form.words for word in modifiers), index)
                        for index, form in enumerate(family)]
            expected = [(index, count) for count, index in sorted(unlisted) if count <= bound]
            assert forms_listing(opcode, modifiers, bound) == expected, (modifiers, bound)


def test_a_distance_within_a_bound_is_the_edit_distance_or_past_the_bound() -> None:
    rng = random.Random(5)
    words = ["a", "b", "c", "d"]
    for _ in range(3000):
        a = tuple(rng.choices(words, k=rng.randrange(7)))
        b = tuple(rng.choices(words, k=rng.randrange(7)))
        bound = rng.randrange(5)
        expected = min(nearest.edit_distance(a, b), bound + 1)
        assert nearest._distance_within(a, b, bound) == expected, (a, b, bound)
