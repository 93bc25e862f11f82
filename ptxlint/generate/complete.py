"""What may come next in an opcode being typed: the grammar's modifiers in the ISA's order.

``cp.async.`` continues with the words the forms of ``cp`` admit right after ``.async``; a word
is offered when some form spells the words written so far as a prefix of one of its spellings:
each written word taken by a later slot than the word before it, every slot skipped on the way
optional. The next word is then one of the slots after the last one taken, up to and including
the first required one. The editor (``ptxlint.lsp.completion``) and the tests read this; it
knows nothing of editors.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxlint.ptx import grammar
from ptxlint.ptx.grammar import Form

__all__ = ["Continuation", "continuations", "opcodes"]


@dataclass(frozen=True)
class Continuation:
    """A word that may follow, with one complete spelling that starts with the prefix and it
    (the witness: each remaining required slot's first word), and that spelling's form."""

    word: str
    witness: tuple[str, ...]  # the modifiers of a whole spelling, prefix and word first
    form: Form


def opcodes() -> tuple[str, ...]:
    """Every opcode the grammar describes, sorted."""
    return tuple(sorted({f.opcode for f in grammar.forms()}))


def _placements(form: Form, words: tuple[str, ...], start: int = 0) -> list[int]:
    """The slot indices the last of ``words`` can take when the words fill slots of ``form`` in
    order from ``start``, skipping optional slots only; [-1] for no words."""
    if not words:
        return [start - 1]
    out: list[int] = []
    for k in range(start, len(form.slots)):
        slot = form.slots[k]
        if slot.find(words[0]) is not None:
            out.extend(_placements(form, words[1:], k + 1))
        if not slot.optional:
            break  # a required slot cannot be skipped
    return out


def _witness(form: Form, prefix: tuple[str, ...], word: str, slot: int) -> tuple[str, ...]:
    rest = tuple(s.values[0].word for s in form.slots[slot + 1:] if not s.optional)
    return (*prefix, word, *rest)


def continuations(opcode: str, written: tuple[str, ...]) -> list[Continuation]:
    """The words that may follow ``opcode.written``, each once, in the grammar's order."""
    seen: dict[str, Continuation] = {}
    for form in grammar.forms(opcode):
        for last in set(_placements(form, written)):
            for k in range(last + 1, len(form.slots)):
                slot = form.slots[k]
                for value in slot.values:
                    if value.word not in seen:
                        witness = _witness(form, written, value.word, k)
                        seen[value.word] = Continuation(value.word, witness, form)
                if not slot.optional:
                    break
    return list(seen.values())
