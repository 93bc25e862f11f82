"""From an opcode string (``cp.async.ca.shared.global``) to the grammar form it spells.

The string is the full opcode with its modifiers, as the PTX ISA writes it. It must pick one
form of the grammar exactly: every word taken by a slot of that form, every required slot
filled. What is missing or wrong is said in terms of the ISA's words (``add.u32``'s type, a
modifier no form of the family has), never as a guess at what was meant.
"""

from __future__ import annotations

import difflib
from dataclasses import field

from ptxlint.ptx import grammar
from ptxlint.ptx.grammar import Form, Need
from ptxlint.ptx.instructions import ptx_requirement
from ptxlint.value_class import value_class

__all__ = ["Selected", "SelectionError", "select", "spelling"]


class SelectionError(ValueError):
    """The opcode string names no form the generator can write (a usage error)."""


@value_class(slots=False)
class Selected:
    """One form, spelled: the opcode, its modifiers in the user's order, the slot variables
    they bind (``T`` -> ``f32``) and the target the spelling needs."""

    opcode: str
    modifiers: tuple[str, ...]
    form: Form
    need: Need
    binding: dict[str, str] = field(default_factory=dict)

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.modifiers))


def _words(text: str) -> tuple[str, tuple[str, ...]]:
    text = text.strip().rstrip(";").strip()
    if not text or any(c.isspace() for c in text):
        raise SelectionError(f"expected one opcode with its modifiers (cp.async.ca.shared."
                             f"global), got {text!r}")
    opcode, *modifiers = text.split(".")
    if any(not word for word in modifiers):
        raise SelectionError(f"an empty modifier in {text!r}")
    return opcode, tuple(modifiers)


def _fill(form: Form, modifiers: tuple[str, ...]) -> tuple[dict[str, str], list[int], list[int]]:
    """Each modifier given to the first free slot of ``form`` that admits it: the variables
    bound, the modifiers no slot took, and the required slots left empty (by index)."""
    binding: dict[str, str] = {}
    filled = [False] * len(form.slots)
    unused: list[int] = []
    for i, word in enumerate(modifiers):
        for k, slot in enumerate(form.slots):
            if not filled[k] and slot.find(word) is not None:
                filled[k] = True
                if slot.var:
                    binding[slot.var] = word
                break
        else:
            unused.append(i)
    missing = [k for k, slot in enumerate(form.slots) if not slot.optional and not filled[k]]
    return binding, unused, missing


def select(text: str) -> Selected:
    """The form ``text`` spells; :class:`SelectionError` naming what is missing or unknown."""
    opcode, modifiers = _words(text)
    if not grammar.covered(opcode):
        from ptxlint.ptx.isa_table import FAMILIES

        known = sorted({f.opcode for f in grammar.forms()})
        close = difflib.get_close_matches(opcode, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        what = ("the grammar does not describe its forms yet" if opcode in FAMILIES
                else "not a PTX opcode")
        raise SelectionError(f"'{opcode}': {what}{hint}")
    vocabulary = grammar.family_vocabulary(opcode)
    for word in modifiers:
        if word not in vocabulary:
            close = difflib.get_close_matches(word, sorted(vocabulary), n=1)
            hint = f"; did you mean '.{close[0]}'?" if close else ""
            raise SelectionError(f"no form of '{opcode}' has the modifier '.{word}'{hint}")
    if not grammar.judged(opcode, modifiers):
        raise SelectionError(f"the grammar does not describe the forms of '{text}' yet: "
                             "nothing to derive the operands from")
    found = grammar.lightest(opcode, modifiers)
    if found is None:
        raise SelectionError(_why_not(opcode, modifiers))
    form, need = found
    if form.undocumented:
        documented = _documented(opcode, modifiers)
        hint = f" (the ISA spells it '{documented}')" if documented else ""
        toolkit = "ptxas 13.0" if form.toolkit is None else \
            f"ptxas {form.toolkit[0]}.{form.toolkit[1]}"
        raise SelectionError(f"'{text}' is a form {toolkit} accepts but the PTX ISA does not "
                             f"document: ptxlint new writes documented forms only{hint}")
    if form.rejected:
        raise SelectionError(f"'{text}': {form.rejected}")
    binding, _, _ = _fill(form, modifiers)
    # a modifier can need a newer PTX ISA than the form states (``.b128`` with ``.sys``: 8.4,
    # ``REQUIREMENTS``): the guard must keep the toolkits whose ptxas rejects it out
    ptx = ptx_requirement(opcode, modifiers)[0]
    if ptx > need.ptx:
        need = need._replace(ptx=ptx)
    return Selected(opcode, modifiers, form, need, binding)


def _documented(opcode: str, modifiers: tuple[str, ...]) -> str | None:
    """A documented spelling with the same words and fixed ones the ISA adds (``.aligned``):
    the form that takes every word given and lacks only one-word slots, in its slot order."""
    for form in grammar.forms(opcode):
        if form.undocumented or form.rejected:
            continue
        taken: dict[int, str] = {}
        for word in modifiers:
            free = [k for k, slot in enumerate(form.slots)
                    if k not in taken and slot.find(word) is not None]
            if not free:
                break
            taken[free[0]] = word
        else:
            words = []
            for k, slot in enumerate(form.slots):
                if k in taken:
                    words.append(taken[k])
                elif not slot.optional:
                    if len(slot.values) != 1:
                        break
                    words.append(slot.values[0].word)
            else:
                return ".".join((opcode, *words))
    return None


def _why_not(opcode: str, modifiers: tuple[str, ...]) -> str:
    """Why ``opcode.modifiers`` spells no form: the required choices the closest form still
    needs, or the words no single form takes together."""
    spelled = ".".join((opcode, *modifiers))
    fits: list[tuple[int, int, Form, list[int]]] = []
    for form in grammar.forms(opcode):
        _, unused, missing = _fill(form, modifiers)
        fits.append((len(unused), len(missing), form, missing))
    least = min(f[:2] for f in fits)
    closest = [f for f in fits if f[:2] == least]
    if least[0] == 0:
        # every form that takes all the words given: the words its first empty slot admits
        words: list[str] = []
        for _, _, form, missing in closest:
            for value in form.slots[missing[0]].values:
                if value.word not in words:
                    words.append(value.word)
        shown = "|".join(f".{w}" for w in words[:12])
        more = f"|... ({len(words)} in all)" if len(words) > 12 else ""
        return f"'{spelled}' does not fix the whole instruction: it needs one of {shown}{more}"
    form = closest[0][2]
    return (f"no form of '{opcode}' takes these modifiers together: '{spelled}' "
            f"(closest: {form.spec.split(';')[0].split(' ')[0]})")


def spelling(form: Form) -> str:
    """The plainest spelling of ``form``: each required slot's first word, in slot order,
    no optional slot (the benchmark writes every form this way)."""
    words = [slot.values[0].word for slot in form.slots if not slot.optional]
    return ".".join((form.opcode, *words))
