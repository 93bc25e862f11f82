"""What may come next in an opcode being typed: the grammar's modifiers in the ISA's order.

``cp.async.`` continues with the words the forms of ``cp`` admit right after ``.async``; a word
is offered when some form spells the words written so far as a prefix of one of its spellings:
each written word taken by a later slot than the word before it, every slot skipped on the way
optional. The next word is then one of the slots after the last one taken, up to and including
the first required one. Only the forms the toolkit's ptxas takes count (``cuda_version``, as
the rules read it: a form new in a later toolkit, ``toolkit=13.3``, is one PTX204 reports for an
older one), so an opcode or word only newer forms spell is not offered. The editor
(``ptxlint.lsp.completion``) and the tests read this; it knows nothing of editors.
"""

from __future__ import annotations

from ptxlint.ptx import grammar
from ptxlint.ptx.grammar import Form
from ptxlint.ptx.toolkit import assembles
from ptxlint.value_class import value_class

__all__ = ["Continuation", "continuations", "opcodes"]


@value_class(slots=False)
class Continuation:
    """A word that may follow, with one complete spelling that starts with the prefix and it
    (the witness: each remaining required slot's first word), and that spelling's form."""

    word: str
    witness: tuple[str, ...]  # the modifiers of a whole spelling, prefix and word first
    form: Form


def opcodes(cuda_version: object = None) -> tuple[str, ...]:
    """Every opcode the grammar describes a form of that the toolkit ``cuda_version`` takes
    (``(major, minor)``; the rules' default when absent), sorted."""
    return tuple(sorted({f.opcode for f in grammar.forms() if assembles(f.toolkit, cuda_version)}))


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


def continuations(opcode: str, written: tuple[str, ...],
                  cuda_version: object = None) -> list[Continuation]:
    """The words that may follow ``opcode.written`` in a form the toolkit ``cuda_version``
    takes (as ``opcodes``), each once, in the grammar's order."""
    seen: dict[str, Continuation] = {}
    for form in grammar.forms(opcode):
        if not assembles(form.toolkit, cuda_version):
            continue
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
