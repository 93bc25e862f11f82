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
