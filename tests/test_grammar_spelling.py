"""The facts of a spelling (``opcode.modifiers``) that the grammar works out once and every
reader shares: the forms that spell it exactly are those whose modifier match costs nothing,
whichever way they are found."""

from __future__ import annotations

import random

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.forms import Form, _specs, family_vocabulary, forms


def _spellings(opcode: str) -> list[tuple[str, ...]]:
    """Each form's spellings with every slot given its first word, optional slots left out and
    put in; a few with one word swapped for another of the family, and shuffled (seeded)."""
    rng = random.Random(opcode)
    vocabulary = sorted(family_vocabulary(opcode))
    found: list[tuple[str, ...]] = [()]
    for form in forms(opcode):
        required = [s.values[0].word for s in form.slots if not s.optional]
        every = [s.values[-1].word for s in form.slots]
        found += [tuple(required), tuple(every)]
        if every and vocabulary:
            swapped = list(every)
            swapped[rng.randrange(len(swapped))] = rng.choice(vocabulary)
            rng.shuffle(swapped)
            found.append(tuple(swapped))
    return found


def _every_exact(opcode: str, modifiers: tuple[str, ...]) -> list[Form]:
    """The forms that spell ``opcode.modifiers``, each family form matched on its own."""
    return [f for f in forms(opcode) if grammar._match_modifiers(f, modifiers).cost == 0]


@pytest.mark.parametrize("opcode", sorted(_specs()))
def test_exact_matches_are_the_forms_whose_match_costs_nothing(opcode: str) -> None:
    for modifiers in _spellings(opcode):
        expected = _every_exact(opcode, modifiers)
        assert [m.form for m in grammar._exact(opcode, modifiers)] == expected, modifiers
        first = grammar.form_of(opcode, modifiers)
        if grammar.judged(opcode, modifiers):
            assert first is (expected[0] if expected else None), modifiers
        else:
            assert first is None


@pytest.mark.parametrize("opcode", sorted(_specs()))
def test_lightest_is_the_weakest_need_among_the_forms_that_spell_it(opcode: str) -> None:
    for modifiers in _spellings(opcode):
        matches = [grammar._match_modifiers(f, modifiers) for f in _every_exact(opcode, modifiers)]
        found = grammar.lightest(opcode, modifiers)
        if not matches:
            assert found is None, modifiers
            continue
        best = min(matches, key=lambda m: (m.need.sm, m.need.suffix != "", not m.need.only))
        assert found == (best.form, best.need), modifiers


def test_an_opcode_the_grammar_does_not_list_has_no_form() -> None:
    assert grammar.lightest("nosuchop", ()) is None
    assert grammar.lightest("nosuchop", ("global", "b32")) is None
    assert grammar.form_of("nosuchop", ()) is None


def _fields(match: grammar._Match | None) -> object:
    if match is None:
        return None
    return (match.form, list(match.binding.items()), match.need, match.unused, match.missing,
            match.misordered)


def _class_spellings(opcode: str) -> list[tuple[str, ...]]:
    """``_spellings``, and each again with every word swapped for another of its class (seeded):
    the spellings that share their classes' matches."""
    rng = random.Random(opcode + "classes")
    classes = grammar.word_classes(opcode)
    members: dict[str, list[str]] = {}
    for word, first in classes.items():
        members.setdefault(first, []).append(word)
    found = _spellings(opcode)
    for modifiers in list(found):
        found.append(tuple(rng.choice(members.get(classes.get(w, w), [w])) for w in modifiers))
    return found


@pytest.mark.parametrize("opcode", sorted(_specs()))
def test_a_spelling_matches_as_the_spelling_of_its_word_classes(opcode: str) -> None:
    """The matches read through the words' classes are those of the spelling matched as it is,
    field by field (the variables bound to the spelling's own words, in the same order)."""
    for modifiers in _class_spellings(opcode):
        unknown, exact, closest = grammar._modifier_matches(opcode, modifiers)
        direct = grammar._matches.__wrapped__(opcode, modifiers)
        assert unknown == direct[0], modifiers
        assert [_fields(m) for m in exact] == [_fields(m) for m in direct[1]], modifiers
        assert _fields(closest) == _fields(direct[2]), modifiers


def test_words_of_one_class_share_their_matches() -> None:
    """ld's 64- and 128-byte prefetch sizes are one class, and so are its 32-bit types (bound
    to T): spellings that differ only in those match the same forms, each binding T to its own
    type."""
    classes = grammar.word_classes("ld")
    assert classes["L2::64B"] == classes["L2::128B"]
    assert classes["u32"] == classes["f32"] == classes["b32"]
    assert classes["global"] != classes["shared"]  # not listed by the same forms
    first = grammar._modifier_matches("ld", ("global", "L2::64B", "u32"))[1]
    second = grammar._modifier_matches("ld", ("global", "L2::128B", "f32"))[1]
    assert first and [m.form for m in first] == [m.form for m in second]
    assert [m.binding for m in first] == [{"T": "u32"}] * len(first)
    assert [m.binding for m in second] == [{"T": "f32"}] * len(second)


@pytest.mark.parametrize("opcode", sorted(_specs()))
def test_the_vocabulary_is_every_word_a_form_lists(opcode: str) -> None:
    listed = {v.word for f in forms(opcode) for s in f.slots for v in s.values}
    assert family_vocabulary(opcode) == listed
    assert grammar._modifier_matches(opcode, ("no-such-word",)) == (0, (), None)
