"""The per-form PTX instruction grammar: which modifier combinations and operand lists exist.

The forms are data (:mod:`ptxlint.ptx.grammar_data`), written in a notation close to the
syntax blocks of the PTX ISA manual; this module compiles them once and matches instructions
against them. :func:`check` is the one entry point the rules (PTX204, PTX206, PTX207, PTX401),
hover, the data-flow rules and ``benchmarks/ptxas_agreement.py`` read.

Form notation (one string per form)::

    cp.async.(.ca).<S:.shared|.shared::cta>.global{.L2::64B|.L2::128B@80}  [A], [A], i:4|8|16

* the mnemonic: the opcode, then slots. ``.word`` is a required fixed modifier, ``(.a|.b)`` a
  required choice, ``{.a|.b}`` an optional choice, ``<T:.a|.b>`` a required choice that binds
  the variable ``T`` (operand types refer to it), ``<T?:...>`` an optional one. A value may carry
  its own minimum target: ``.bf16@90`` (sm_90), ``@90a`` (the sm_90a feature target), ``@100f``
  (the sm_100 family), ``@100a-103`` (the sm_100 feature, not on sm_103a). ptxas reads modifiers
  in any order (``ld.f32.global`` assembles), so a slot is filled by any modifier it lists,
  wherever that modifier sits; it warns only where the vector qualifier is not right before the
  type (``ld.global.u64.v2``: an issue of kind ``order``, :func:`canonical_order` the ISA's).
* operands, comma-separated: ``d:T`` a written register of type ``T`` (a variable or a PTX
  type), ``d_:T`` the same or the sink ``_``; ``r:T`` a register read; ``a:T`` a register or an
  immediate; ``i:VALUES`` an immediate only (``16``, ``4|8|16``, ``0..15``, ``..%32``, ``*``;
  ``..%32~0`` any multiple of 32 but 0);
  ``ai:T:VALUES`` a register of ``T`` or an integer immediate within VALUES (``ai:u64``: any
  integer, no floating-point literal); ``a:T:(0..1]`` a register or a floating-point
  literal whose value lies in that interval (``(``/``)`` leave the bound out); ``a:T:<=#N``
  a register or an immediate whose constant value is at most operand N's;
  ``af:T`` a register or a floating-point bit pattern (never an integer); ``[A]`` an address;
  ``[A:b32]`` an address whose base register is of that type (tensor memory);
  ``{d:T*N}`` a vector of N (a number, or a variable bound to ``.v2``/``.v4``/``.v8``),
  ``{d:T*N}_`` the same or the sink ``_`` for all of it;
  ``d:T|p`` a register with a predicate half; ``a_:T`` a value read or the sink ``_`` (an
  element of a 256-bit store's vector); ``L`` a label; ``?`` before an operand makes it (and
  everything after it) optional. ``d:T!`` (``r:``, ``a:``) takes a register of exactly ``T``'s
  size, a float one for a float ``T`` only and a packed one (``.f16x2``) for a packed or bit
  ``T`` only (mma's ``.s32`` accumulators); ``r:b32!!`` an untyped (``.b32``) register of that
  size only (cvt.rs's random bits).

Form-level keys after ``;``: ``sm=90a`` (the target the whole form needs), ``ptx=80``,
``toolkit=13.1`` (ptxas from CUDA 13.1 on takes the form, older ones do not),
``undocumented`` (ptxas accepts it, the ISA does not say so: at most a warning),
``strict`` (operand types by exact size, even in ld/st/cvt: st.async), ``lax_vectors`` (a
vector where the form has a scalar abstains: ptxas's st.async reads some), ``positional`` (ptxas
reads the type words, the layouts ``.row/.col`` and the bit operations ``.and/.xor/.popc`` by
position within their kind, in the order the form lists their slots:
``mma...f32.bf16.bf16.f32`` is d, a, b, c, so ``.bf16.bf16.f32.f32`` is an error).
A vector's length may follow a bound word: ``{d:f32*S/2}`` is n/2 registers for the shape
``S`` bound to ``.m64nNk16``; ``{d:b32*N*2}`` twice the ``.xN`` bound to ``N``.

A family (an opcode) is *covered* when the grammar lists its forms; then every spelling of it
that no form admits is an error (or, for undocumented forms, a warning). Families not covered
return ``Verdict.abstain``: the rules fall back to the generous vocabulary in
:mod:`ptxlint.ptx.isa_table` and never guess.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache

from ptxlint.model import PtxInstruction
from ptxlint.ptx.forms import (
    REJECTED,
    Form,
    Need,
    OperandSpec,
    Slot,
    Value,
    Values,
    _family,
    _judged,
    compile_form,
    covered,
    family_vocabulary,
    forms,
    forms_listing,
    judged,
    undescribed,
    word_masks,
)
from ptxlint.ptx.isa_table import GROUPS
from ptxlint.ptx.nearest import nearest_spelling
from ptxlint.ptx.operand_check import (
    Checked,
    RefClasses,
    c_operand_issue,
    check_operands,
    not_a_predicate,
    vector_count,
    vector_literal_issue,
)
from ptxlint.ptx.operand_classes import (
    ABSTAIN,
    TYPE_BITS,
    Issue,
    OperandClass,
    Resolver,
    Verdict,
    immediate_class,
    literal_fits,
    parse_immediate,
)

__all__ = [
    "REJECTED",
    "Value",
    "Values",
    "compile_form",
    "judged",
    "Need",
    "Form",
    "OperandSpec",
    "OperandClass",
    "Issue",
    "Verdict",
    "covered",
    "undescribed",
    "check",
    "forms",
    "family_vocabulary",
    "parse_immediate",
    "immediate_class",
    "literal_fits",
    "written_positions",
    "vector_count",
    "RefClasses",
    "c_operand_issue",
]


# ----------------------------------------------------------------------------- verdicts


@dataclass
class _Match:
    """How one form fits an instruction's modifiers: the variables bound, the target needed, and
    what is left over (``cost``: 0 for a form that spells the instruction)."""

    form: Form
    binding: dict[str, str] = field(default_factory=dict)
    need: Need = Need()
    unused: list[int] = field(default_factory=list)  # modifier indices no slot took
    missing: list[Slot] = field(default_factory=list)  # required slots left empty
    misordered: list[int] = field(default_factory=list)  # modifier indices out of position
    # the modifier index each variable of ``binding`` took its word from (``_rebound``)
    bound_at: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    # ``_accept``'s verdict, made once: the match is shared by every instruction that spells
    # it (``_modifier_matches``), and most of them are accepted
    accepted: Verdict | None = field(default=None, compare=False, repr=False)

    @property
    def cost(self) -> int:
        return len(self.unused) + len(self.missing) + len(self.misordered)


# The kinds of words ptxas reads by position in a `positional` form.
POSITIONAL_TYPES = frozenset(TYPE_BITS) | {"b1", "b4", "b6", "s4", "u4", "e4m3", "e5m2",
                                            "e2m1", "e2m3", "e3m2", "ue8m0", "ue4m3",
                                            "u2", "s2"}
_POSITIONAL_KINDS: tuple[frozenset[str], ...] = (
    POSITIONAL_TYPES,
    frozenset({"row", "col"}),
    frozenset({"and", "xor", "popc"}),
    # the destination's state space first, then the source's (cp.async.bulk, cvt's sibling
    # cp.async): cp.async.bulk.global.shared::cta is the store, not the load
    frozenset({"global", "shared", "shared::cta", "shared::cluster", "local", "const"}),
)


_SPACES = len(_POSITIONAL_KINDS) - 1  # the state spaces' index among them

# Which of _POSITIONAL_KINDS a word is of (they share no word).
_KIND_OF: dict[str, int] = {word: k for k, kind in enumerate(_POSITIONAL_KINDS) for word in kind}


def _misordered(taken: list[tuple[int, str]]) -> list[int]:
    """Modifier indices that break the slot order within a kind; ``taken`` lists, in slot
    order, the index of the modifier each slot took and its word. One pass over ``taken``
    (a word's kind looked up), the indices listed kind by kind."""
    last = [-1] * len(_POSITIONAL_KINDS)
    found: list[tuple[int, int]] | None = None  # (kind, index), in the order met
    for index, word in taken:
        k = _KIND_OF.get(word)
        if k is None:
            continue
        if index < last[k]:
            if found is None:
                found = []
            found.append((k, index))
        else:
            last[k] = index
    if found is None:
        return []
    return [index for k in range(len(_POSITIONAL_KINDS)) for kind, index in found if kind == k]


def _match_modifiers(form: Form, modifiers: tuple[str, ...]) -> _Match:
    """How ``form``'s slots take ``modifiers``: its head slots the first words in order, then
    each other slot the first word not taken that it lists (after the last one taken, in an
    ``ordered`` form). Worked out in locals and made into one ``_Match`` at the end, the
    positional kinds' order checked in one pass (``_misordered``): a spelling met the first
    time matches every candidate form (CUTLASS's include/ 2,096 times). Working out the
    spellings of CUTLASS's include/ from cold memos (its families compiled): 189 M -> 166 M
    instructions (cachegrind); the CUDA 13 headers' 222 M -> 205 M."""
    slots = form.slots
    count = len(modifiers)
    head = form.head
    # a head out of its place: the slots match anywhere, and each head word taken elsewhere
    # is out of place (`mul.u32.lo`), one not written missing (`mul.u32`)
    in_place = 0  # the head words written first, in order
    while in_place < head and in_place < count \
            and modifiers[in_place] == slots[in_place].values[0].word:
        in_place += 1
    broken = in_place < head
    start = 0 if broken else head
    taken = [True] * start + [False] * (count - start)
    last = start - 1
    binding: dict[str, str] = {}
    bound_at: dict[str, int] = {}
    need = form.need
    missing: list[Slot] = []
    took: list[tuple[int, str]] = []
    moved: list[int] = []
    ordered = form.ordered
    positional = form.positional
    for j, slot in enumerate(slots[start:], start):
        by_word = slot.by_word
        for i in range(last if ordered and last > 0 else 0, count):
            if taken[i]:
                continue
            word = modifiers[i]
            value = by_word.get(word)
            if value is None or value.need is not None and not need.meets(value.need):
                continue  # not a word of this slot, or of none with the form's other words
            taken[i] = True
            last = i
            if in_place <= j < head:
                moved.append(i)
            if positional:
                took.append((i, word))
            if slot.var:
                binding[slot.var] = word
                bound_at[slot.var] = i
            if value.need is not None:
                need = need.join(value.need)
            break
        else:
            if not slot.optional:
                missing.append(slot)
    unused = [] if all(taken) else [i for i, t in enumerate(taken) if not t]
    misordered = _misordered(took) if positional else []
    if moved:
        misordered = moved + misordered
    return _Match(form, binding, need, unused, missing, misordered, bound_at)


_Matches = tuple[int | None, tuple[_Match, ...], _Match | None]


@lru_cache(maxsize=16384)
def _modifier_matches(opcode: str, modifiers: tuple[str, ...]) -> _Matches:
    """For ``opcode.modifiers``: the first modifier no form of the opcode has (else None); the
    forms that spell it exactly, in table order; and when none does, the closest form (for
    the message). A pure function of its key, memoised: generated headers spell the same
    mnemonic hundreds of times. The matches are never mutated after this.

    A spelling is matched as the spelling of its words' classes (``word_classes``), whose
    matches are those of any spelling of the same classes with the words it binds put back
    (``_rebound``): the generated headers spell one form with each of its cache hints, sizes
    and types. The CUDA 13 headers' 2,852 spellings are 927 spellings of classes, CUTLASS's
    include/ 1,824 are 509. Working out the spellings (``_spelling``) from cold memos
    (families compiled, best of 9, two runs): the CUDA headers' 36.6-38.0 -> 24.5-25.2 ms of
    CPU, CUTLASS's 26.0-26.1 -> 17.9 ms."""
    classes = word_classes(opcode)
    spelled = tuple([classes.get(word, word) for word in modifiers])
    if spelled == modifiers:
        return _matches(opcode, modifiers)
    unknown, exact, closest = _matches(opcode, spelled)
    return (unknown, tuple([_rebound(m, modifiers) for m in exact]),
            None if closest is None else _rebound(closest, modifiers))


def _rebound(match: _Match, modifiers: tuple[str, ...]) -> _Match:
    """``match`` (of a spelling of classes) binding the words of ``modifiers`` where it bound
    their classes, each variable to the modifier at the index it took; the match itself where
    those are the words it binds."""
    binding = match.binding
    if not binding:
        return match
    bound = {var: modifiers[i] for var, i in match.bound_at.items()}
    if bound == binding:
        return match
    return _Match(match.form, bound, match.need, match.unused, match.missing, match.misordered,
                  match.bound_at)


@cache
def word_classes(opcode: str) -> dict[str, str]:
    """Each word of the family's vocabulary, the first word of its class: words that every slot
    of the family lists alike (both or neither, each with the same target), that are of the same
    positional kind (``_KIND_OF``) and that no form's head spells. The matcher reads a word only
    so (which slots list it, its value's need, its kind; a head word by its spelling), but for
    the variable a slot binds it to: two spellings whose words are of the same classes match
    the same forms, the same way, binding the same variables to their own words. Slot objects
    are shared between forms (``forms._slot``), so a word's class is read off the family's
    distinct slots (the 59 families the CUDA headers spell: 1.8 ms of CPU, once per process;
    one table per opcode of the grammar)."""
    family = _family(opcode)
    slots: dict[int, Slot] = {}
    pinned: set[str] = set()
    for form in family:
        for k, slot in enumerate(form.slots):
            slots.setdefault(id(slot), slot)
            if k < form.head:
                pinned.add(slot.values[0].word)
    places: dict[str, list[tuple[int, Need | None]]] = {}
    for n, slot in enumerate(slots.values()):
        for word, value in slot.by_word.items():
            places.setdefault(word, []).append((n, value.need))
    first: dict[Hashable, str] = {}
    out: dict[str, str] = {}
    for word, where in places.items():
        key: Hashable = word if word in pinned else (tuple(where), _KIND_OF.get(word))
        out[word] = first.setdefault(key, word)
    return out


@lru_cache(maxsize=16384)
def _matches(opcode: str, modifiers: tuple[str, ...]) -> _Matches:
    """``_modifier_matches`` of a spelling, matched as spelled: kept (bounded, as the spellings
    are) for the other spellings of its classes, which is what ``_modifier_matches``' figure
    is."""
    masks = word_masks(opcode)  # its keys are the family's vocabulary
    for i, word in enumerate(modifiers):
        if word not in masks:
            return i, (), None
    family = _family(opcode)
    # Only a form that has every word of the spelling and lacks none of its own fixed words
    # can match exactly: try those first; the closest match (for the message) needs them all.
    # The forms that have every word are the bits set in each word's mask (word_masks), in
    # table order: a spelling seen the first time no longer compares sets with each of the
    # family's forms (151 for multimem).
    words = frozenset(modifiers)
    having = (1 << len(family)) - 1
    for word in words:
        having &= masks[word]  # every word is in the vocabulary (above)
    candidates = []
    while having:
        low = having & -having
        form = family[low.bit_length() - 1]
        if form.required_words <= words:
            candidates.append(form)
        having ^= low
    exact = tuple(m for m in _candidate_matches(candidates, modifiers) if m.cost == 0)
    if exact:
        return None, exact, None
    # of the forms as near, the one that reads every word written: a word left out of a form
    # (a scope after `.relaxed`) is likelier than a word written by mistake. Words out of
    # place count one more (a swap moves two words). ptxas reads an instruction by its
    # operation, types, state spaces, layouts and shape, and judges the words that refine
    # it (rounding, .ftz/.sat/.approx..., cache hints, the completion mechanism) against
    # them: of the forms as near, the one that leaves out only such refining words
    # (`cvt.rz.bf16x2.ue8m0x2` is the .rn conversion with the wrong rounding, ptxas 13.0:
    # "Illegal rounding modifier for instruction 'cvt'", not the bf16x2-from-f32 one without
    # its .ue8m0x2; `div.approx.f64`: "Illegal modifier '.approx' for instruction 'div'"),
    # then the one that adds no type to those written (`fma.rn.sat.bf16` is the bf16 fma
    # with a .sat it does not take, "Illegal modifier '.sat'", not the sm_100 f32-from-bf16
    # one without its .f32; a type added counts as a word too: `fma.rz.f16` is the f16 fma
    # with a rounding it does not take, "Illegal rounding modifier for instruction 'fma'",
    # not fma.rz.f32.f16), then one with no word out of place
    # (`cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes` is the store, whose
    # completion is .bulk_group: "Illegal modifier '.mbarrier::complete_tx::bytes' for
    # instruction 'cp.async.bulk'"; but `cvt.rz.satfinite.bf16x2.ue8m0x2`, which the other
    # reading leaves without its .ue8m0x2, is the ue8m0x2 conversion with its types swapped)
    # Of the forms as close, the first in table order. A form leaves each written word it
    # does not list unused (``forms_listing``, by how many), and each word it always spells
    # that none written is missing: its first figure is at least their sum, and no form
    # whose sum is past the closest one's is matched. Matching every form, a spelling of cp
    # (247 forms) or fabric (204) no form has cost 2.7-3.4 ms of CPU, 0.05-0.33 ms so (45
    # wrong spellings of the families: 68 -> 3.5 ms).
    closest: tuple[tuple[int, ...], int, _Match] | None = None
    for index, unlisted in forms_listing(opcode, modifiers, len(modifiers)):
        form = family[index]
        if closest is not None and unlisted + len(form.required_words - words) > closest[0][0]:
            if unlisted > closest[0][0]:
                break  # the forms after it leave more unused
            continue
        match = _match_modifiers(form, modifiers)
        added = _types_added(match, modifiers)
        key = (match.cost + bool(match.misordered) + added, _head_moved(match.form, modifiers),
               sum(modifiers[i] not in _REFINING for i in match.unused), added,
               bool(match.misordered), len(match.unused))
        if closest is None or (key, index) < closest[:2]:
            closest = (key, index, match)
    assert closest is not None  # a covered opcode has forms
    return None, (), closest[2]


def _head_moved(form: Form, modifiers: tuple[str, ...]) -> bool:
    """The words of ``form``'s name (its head) are not the first ones written: a form of
    another instruction, which ptxas reads first (`mbarrier.complete_tx.release...` is
    complete_tx with a .release it does not take, "Illegal modifier '.release' for
    instruction 'mbarrier.complete_tx'", not an arrive without its .arrive)."""
    count = len(modifiers)
    return any(k >= count or modifiers[k] != form.slots[k].values[0].word
               for k in range(form.head))


def _types_added(match: _Match, modifiers: tuple[str, ...]) -> int:
    """How many more type words ``match``'s form lacks than it leaves unused: the types it
    adds to those written (one in place of a written one adds none)."""
    missing = sum(all(v.word in POSITIONAL_TYPES for v in slot.values) for slot in match.missing)
    return max(0, missing - sum(modifiers[i] in POSITIONAL_TYPES for i in match.unused))


# The words that refine an instruction ptxas has read by its other words (their messages:
# "Illegal rounding modifier", "Illegal modifier '.approx'"...): the ISA table's rounding,
# floating-point, cache and mbarrier-completion groups
_REFINING = frozenset(" ".join(
    (GROUPS["rnd"], GROUPS["fmod"], GROUPS["cache"], GROUPS["mbar"], "cc noftz bulk_group")
).split())


def _candidate_matches(candidates: list[Form], modifiers: tuple[str, ...]) -> list[_Match]:
    """``_match_modifiers`` of each candidate form, matched once for the forms that spell one
    mnemonic (their slots are one tuple: ``forms._slots``) under the same reading (head, order,
    position) and need, whose matches differ only in the form: CUTLASS's spellings have 3,236
    candidate forms, of 2,095 such kinds (wgmma's register-A and descriptor forms). Matching
    its 1,824 spellings: 284 M -> 210 M instructions (valgrind; the CUDA headers' 285 -> 270)."""
    out: list[_Match] = []
    seen: dict[tuple[int, int, bool, bool], _Match] = {}
    for form in candidates:
        key = (id(form.slots), form.head, form.ordered, form.positional)
        known = seen.get(key)
        if known is not None and known.form.slots is form.slots and known.form.need == form.need:
            out.append(_Match(form, known.binding, known.need, known.unused, known.missing,
                              known.misordered, known.bound_at))
            continue
        match = _match_modifiers(form, modifiers)
        seen[key] = match
        out.append(match)
    return out


def check(
    instruction: PtxInstruction, resolve: Resolver, relaxed_types: bool | None = None
) -> Verdict:
    """Match ``instruction`` against its family's forms. ``resolve`` says what each operand
    is (the constraint of a ``%N``, a declared register...). Never raises."""
    verdict = _check_forms(instruction, resolve, relaxed_types)
    if verdict.form is not None and verdict.form.vector_slot is not None:
        order = _vector_order(instruction, verdict.form)
        if order is not None:
            verdict = verdict._replace(issues=(*verdict.issues, order))
    if instruction.predicate is None or not verdict.speaks:
        return verdict
    issue = _guard_issue(instruction, resolve)
    if issue is None:
        return verdict
    return verdict._replace(status="error", issues=(issue, *verdict.issues))


def _vector_order(instruction: PtxInstruction, form: Form) -> Issue | None:
    """The vector qualifier of ``instruction``, which ``form`` spells, where the type is not the
    word right after it (``ld.global.u64.v2``, ``ld.global.v2.cs.u64``): ptxas 13.0 assembles
    the instruction as if it were (the same code), with a warning, "Vector Type not specified
    properly" (kind ``order``, a warning). Any other order of the modifiers it takes silently
    (``ld.u64.global``, ``ld.v2.u64.global``)."""
    assert form.vector_slot is not None
    modifiers = instruction.modifiers
    vectors, types = form.slots[form.vector_slot].by_word, form.slots[form.vector_slot + 1].by_word
    at = next((i for i, word in enumerate(modifiers) if word in vectors), None)
    if at is None or at + 1 < len(modifiers) and modifiers[at + 1] in types:
        return None
    vector = modifiers[at]
    typed = next((i for i, word in enumerate(modifiers) if word in types), None)
    if typed is None:
        return None  # (an exact spelling of the form has its type)
    where = "follows" if typed < at else "is not directly before"
    canonical = canonical_order(instruction.opcode, modifiers)
    isa = "" if canonical is None else f": '{'.'.join((instruction.opcode, *canonical))}'"
    start, end = _modifier_span(instruction, at)
    return Issue("order", f"'.{vector}' {where} the type '.{modifiers[typed]}': ptxas warns "
                 "\"Vector Type not specified properly\" (and builds the same code); the PTX "
                 f"ISA writes the vector qualifier right before the type{isa}",
                 start, end, "warning", about=vector)


def vector_order(instruction: PtxInstruction) -> Issue | None:
    """``_vector_order`` of an instruction the verdicts leave out, its operands not known (a
    hole among them: an f-string field, a macro operand) but its spelling written: the first
    form that spells it exactly says where its vector qualifier and type are."""
    form = form_of(instruction.opcode, instruction.modifiers)
    if form is None or form.vector_slot is None:
        return None
    return _vector_order(instruction, form)


def canonical_order(opcode: str, modifiers: tuple[str, ...]) -> tuple[str, ...] | None:
    """``modifiers`` in the order of the slots of the forms that spell them exactly, which is
    the order the ISA's syntax blocks list the qualifiers in (``ld.global.v2.u64`` for
    ``ld.u64.v2.global``); None where no form spells them, where the forms order them
    differently, or where a word could fill two slots of a form (its place is not one):
    cp.async.bulk's two state spaces. A word of two slots one of which binds a variable is
    placed by what the match bound: the result and coordinate types of tex (``<T:...>.f32``,
    read by position), each where the match took it."""
    unknown, exact, _ = _modifier_matches(opcode, modifiers)
    if unknown is not None or not exact:
        return None
    found: set[tuple[str, ...]] = set()
    for match in exact:
        form_slots = match.form.slots
        bound = {at: next(k for k, slot in enumerate(form_slots) if slot.var == var)
                 for var, at in match.bound_at.items()}
        places: list[int] = []
        for at, word in enumerate(modifiers):
            slots = [k for k, slot in enumerate(form_slots) if word in slot.by_word]
            if len(slots) > 1:
                # the variable slot that took this word, or the one slot no variable took
                slots = [bound[at]] if at in bound else [
                    k for k in slots if not form_slots[k].var]
            if len(slots) != 1:
                return None
            places.append(slots[0])
        if len(set(places)) != len(places):
            return None
        found.add(tuple(word for _, word in sorted(zip(places, modifiers, strict=True))))
    return found.pop() if len(found) == 1 else None


def _guard_issue(instruction: PtxInstruction, resolve: Resolver) -> Issue | None:
    """A guard ``@p`` whose register is known to be no predicate (ptxas 13.0: "Predicate
    expression expected", whatever the instruction)."""
    assert instruction.predicate is not None
    return not_a_predicate(instruction.predicate.register, resolve,
                           f"the guard of '{instruction.mnemonic}'")


def _check_forms(
    instruction: PtxInstruction, resolve: Resolver, relaxed_types: bool | None
) -> Verdict:
    if instruction.opaque:
        return ABSTAIN
    modifiers = instruction.modifiers
    judges, unknown, exact, ungated, gated, closest, _, _ = _spelling(instruction.opcode,
                                                                      modifiers)
    if not judges:
        # no form to judge the operands by, but a vector that mixes an integer literal with a
        # float register is refused whatever the instruction (tex.grad's gradients)
        mixed = vector_literal_issue(instruction, resolve)
        return ABSTAIN if mixed is None else Verdict("error", (mixed,))
    if unknown is not None:
        start, end = _modifier_span(instruction, unknown)
        word = modifiers[unknown]
        what = f"unknown modifier '.{word}'" if word else "empty modifier ('..')"
        return Verdict("error", (Issue(
            "modifier", f"{what} in '{instruction.mnemonic}': no form of "
            f"'{instruction.opcode}' has {'it' if word else 'one'}", start, end, word=word),))
    if not exact:
        assert closest is not None
        return Verdict("error", (_combination_issue(instruction, closest),))
    # Operands: the first form whose operands fit decides; otherwise report against the
    # closest one.
    relaxed = relaxed_types if relaxed_types is not None else instruction.opcode in _RELAXED
    # the closest form: fewest operands in error (a vector whose every element has the wrong
    # type is one), then one that takes a vector and an address where the instruction writes
    # one (a misread immediate is closer than a misread vector), then one whose operand count
    # fits
    best: tuple[tuple[int, int, bool], list[Issue], _Match] | None = None
    checked: Checked | None = {} if len(exact) > 1 else None  # one form: nothing to share
    if gated:  # the forms every toolkit takes first: a newer one's is the fallback
        exact = ungated
        if not exact:
            return _newer_only(instruction, gated, resolve, relaxed, checked)
    for m in exact:
        issues, abstain = check_operands(instruction, m.form, m.binding, resolve,
                                         relaxed and not m.form.strict, checked)
        if m.form.rejected and not abstain and not any(i.severity == "error" for i in issues):
            return _accept(m)
        if abstain:
            return Verdict("abstain", form=m.form, need=m.need, written=_written(m.form))
        if not issues:
            return _accept(m)
        errors = [i for i in issues if i.severity == "error"]
        if not errors:
            return Verdict("ok", tuple(issues), m.form, m.need, _written(m.form))
        count = len(instruction.operands)
        rank = (_operands_in_error(instruction, errors), _shape_misfits(instruction, m.form),
                not m.form.required_operands <= count <= len(m.form.operands))
        if best is None or rank < best[0]:
            best = (rank, issues, m)
    for m in gated:
        issues, abstain = check_operands(instruction, m.form, m.binding, resolve,
                                         relaxed and not m.form.strict, checked)
        if abstain or any(i.severity == "error" for i in issues) or best is None:
            continue
        # what the older toolkits say, marked as theirs: cuda-version decides
        assert m.form.toolkit is not None
        newer = f"{m.form.toolkit[0]}.{m.form.toolkit[1]}"
        marked = tuple(i._replace(
            message=f"{i.message} (ptxas before {newer}; {newer} and newer accept it)",
            toolkit=m.form.toolkit) for i in best[1])
        return Verdict("error", marked, m.form, m.need, _written(m.form))
    if best is None:
        return ABSTAIN  # only a newer toolkit's forms spell it, and they do not fit either
    return Verdict("error", tuple(best[1]), best[2].form, best[2].need, _written(best[2].form))


# a register wider than the type is fine here (the surface loads and stores too: ptxas 13.0
# takes 'suld.b.2d.b32 %rd1, ...' and '.b8' data in 32-bit registers, no narrower one)
_RELAXED = frozenset({"ld", "ldu", "st", "cvt", "ld_global_nc", "suld", "sust"})


def _operands_in_error(instruction: PtxInstruction, errors: list[Issue]) -> int:
    """How many of the instruction's operands the errors fall in (an error in none, such as a
    wrong operand count, counts by itself): `wgmma ... {%0,%1,%2,%3}` with four .f32
    registers where the form takes .b32 ones is one wrong operand, not four, and no closer
    to a form it fits worse."""
    spans = [(operand.start, operand.end) for operand in instruction.operands]
    hit: set[int] = set()
    elsewhere = 0
    for error in errors:
        for k, (start, end) in enumerate(spans):
            if start <= error.start < end:
                hit.add(k)
                break
        else:
            elsewhere += 1
    return len(hit) + elsewhere


def _shape_misfits(instruction: PtxInstruction, form: Form) -> int:
    """How many of the instruction's operands are a vector or an address where ``form`` takes
    none there, or the other way round: `tcgen05.mma ... p, 16` reads as enable-input-d and an
    out-of-range scale-input-d, not as a disable-output-lane vector written as `p`; or an
    address of other comma-separated parts than the form's (`tex ... [t, s, {x, y}]` with a
    sampler of the wrong type reads as the sampler form's, not as `[t, {x, y}]` misspelt)."""
    return sum(1 for operand, spec in zip(instruction.operands, form.operands, strict=False)
               if (operand.kind == "vector") != (spec.kind == "vec")
               or (operand.kind == "address") != (spec.kind == "addr")
               or (spec.kind == "addr" and (spec.element is not None or spec.parts)
                   and len(operand.parts) != (2 if spec.element is not None
                                              else len(spec.parts))))


def _newer_only(
    instruction: PtxInstruction, gated: tuple[_Match, ...], resolve: Resolver,
    relaxed: bool | None,
    checked: Checked | None,
) -> Verdict:
    """An instruction only forms of a newer toolkit's ptxas spell (``toolkit=``): an error for
    the older ones, which the issue says (the rules compare its toolkit with cuda-version);
    operand errors are errors for every toolkit."""
    best: tuple[list[Issue], _Match] | None = None
    for m in gated:
        issues, abstain = check_operands(instruction, m.form, m.binding, resolve,
                                         bool(relaxed) and not m.form.strict, checked)
        if abstain:
            return Verdict("abstain", form=m.form, need=m.need, written=_written(m.form))
        errors = [i for i in issues if i.severity == "error"]
        if not errors:
            assert m.form.toolkit is not None
            newer = f"{m.form.toolkit[0]}.{m.form.toolkit[1]}"
            issue = Issue("combination", f"'{instruction.mnemonic}' is new in ptxas {newer}: "
                          f"older ones reject it (form '{m.form.spec.split(' ')[0]}')",
                          instruction.opcode_start, instruction.opcode_end, "error",
                          m.form.toolkit)
            return Verdict("error", (issue,), m.form, m.need, _written(m.form))
        if best is None or len(errors) < len(best[0]):
            best = (errors, m)
    assert best is not None
    return Verdict("error", tuple(best[0]), best[1].form, best[1].need, _written(best[1].form))


def _accept(m: _Match) -> Verdict:
    """The verdict on an instruction whose operands fit ``m``'s form: a function of ``m``."""
    if m.accepted is None:
        m.accepted = _accepted(m)
    return m.accepted


def _accepted(m: _Match) -> Verdict:
    if m.form.rejected:
        # a warning: such forms sit in branches only a 32-bit build compiles, and nvcc 13
        # builds none
        issue = Issue("combination", m.form.rejected, 0, 0, "warning")
        return Verdict("ok", (issue,), m.form, m.need, _written(m.form))
    if m.form.undocumented:
        issue = Issue("combination", "ptxas 13.0 accepts this form, but the PTX ISA does not "
                      f"document it (form '{m.form.spec.split(' ')[0]}')", 0, 0, "warning")
        return Verdict("ok", (issue,), m.form, m.need, _written(m.form))
    return Verdict("ok", (), m.form, m.need, _written(m.form))


def _written(form: Form) -> tuple[int, ...]:
    return form.written_positions


def _modifier_span(instruction: PtxInstruction, index: int) -> tuple[int, int]:
    offset = instruction.opcode_start + len(instruction.opcode)
    for modifier in instruction.modifiers[:index]:
        offset += 1 + len(modifier)
    return offset, offset + 1 + len(instruction.modifiers[index])


def _slot_words(slot: Slot) -> str:
    words = [f"'.{v.word}'" for v in slot.values]
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words[:6]) + (", ..." if len(words) > 6 else "")


def _combination_issue(instruction: PtxInstruction, match: _Match) -> Issue:
    mnemonic, opcode = instruction.mnemonic, instruction.opcode
    if match.misordered and not match.unused and not match.missing:
        i = match.misordered[0]
        start, end = _modifier_span(instruction, i)
        heads = [s.values[0].word for s in match.form.slots[:match.form.head]]
        if instruction.modifiers[i] in heads:
            return Issue("combination", f"'.{instruction.modifiers[i]}' is out of place: it is "
                         f"part of the instruction's name, '{opcode}.{'.'.join(heads)}', "
                         f"before the other words (the form "
                         f"'{match.form.spec.split(' ')[0].rstrip(';')}')", start, end,
                         about=instruction.modifiers[i])
        what = ("the state spaces, the destination's first,"
                if _KIND_OF.get(instruction.modifiers[i]) == _SPACES else "the types (and layouts)")
        return Issue("combination", f"'.{instruction.modifiers[i]}' is out of place: ptxas "
                     f"reads {what} of '{instruction.opcode}' by position, in "
                     f"the order of the form '{match.form.spec.split(' ')[0].rstrip(';')}'",
                     start, end, about=instruction.modifiers[i])
    if match.unused:
        i = match.unused[0]
        start, end = _modifier_span(instruction, i)
        word = instruction.modifiers[i]
        others = [w for j, w in enumerate(instruction.modifiers) if j != i]
        partner = _conflicting(instruction.opcode, word, others)
        tail = f" to '.{partner}'" if partner else " in this combination"
        return Issue("combination", f"'.{word}' does not apply{tail}: no form of "
                     f"'{opcode}' spells '{mnemonic}'{_nearest(opcode, instruction.modifiers)}",
                     start, end, about=word)
    slot = match.missing[0]
    end = instruction.opcode_end
    form = match.form
    k = form.slots.index(slot) if slot in form.slots[:form.head] else -1
    if k >= 0:
        # a head word: the forms that differ from this one in it alone list the others
        # (mul.hi and mul.lo: "lacks one of '.hi', '.lo'")
        words = dict.fromkeys(f.slots[k].values[0].word for f in _family(opcode)
                              if f.head > k and f.slots[k + 1:] == form.slots[k + 1:]
                              and f.slots[:k] == form.slots[:k])  # in table order
        choices = [f"'.{w}'" for w in words]
        if len(choices) > 1:
            return Issue("combination", f"'{mnemonic}' lacks one of {', '.join(choices)}: no "
                         f"form of '{opcode}' goes without it"
                         f"{_nearest(opcode, instruction.modifiers)}",
                         instruction.opcode_start, end)
    return Issue("combination", f"'{mnemonic}' lacks {_slot_words(slot)}: no form of "
                 f"'{opcode}' goes without it{_nearest(opcode, instruction.modifiers)}",
                 instruction.opcode_start, end)


@lru_cache(maxsize=256)  # a generated header repeats one misspelling in a whole family
def _nearest(opcode: str, modifiers: tuple[str, ...]) -> str:
    """`` (the nearest form: 'mma...')`` where one known spelling is a word or two away."""
    def spelled(candidate: tuple[str, ...]) -> bool:
        unknown, exact, _ = _modifier_matches(opcode, candidate)
        return unknown is None and bool(exact)

    found = nearest_spelling(opcode, modifiers, spelled)
    if found is None:
        return ""
    return f" (the nearest form: '{'.'.join((opcode, *found))}')"


def _conflicting(opcode: str, word: str, others: list[str]) -> str | None:
    """The other modifier that no form combines with ``word``, preferring a type word."""
    with_word = [f for f in forms(opcode) if any(s.find(word) for s in f.slots)]
    candidates = []
    for other in others:
        if not any(any(s.find(other) for s in f.slots) for f in with_word):
            candidates.append(other)
    for other in candidates:
        if other in TYPE_BITS or other in ("b1", "s4", "u4"):
            return other
    return candidates[0] if candidates else None


@lru_cache(maxsize=4096)
def lightest(opcode: str, modifiers: tuple[str, ...]) -> tuple[Form, Need] | None:
    """The form with the weakest need among those that spell ``opcode.modifiers`` exactly
    (operands aside), with that need; ``None`` when none does. The forms are the spelling's
    exact matches (``_exact``), which the verdicts and the destinations made already, where
    every form of the family was matched again (ld's 103 for each spelling): ``requirement``
    of the CUDA 13 headers' 2,852 spellings (PTX403 asks it of every instruction), their
    matches known, went from 786-826 ms to 7-8 ms of CPU."""
    matches = _exact(opcode, modifiers)
    if not matches:
        return None
    best = min(matches, key=_weakness)
    return best.form, best.need


def _weakness(match: _Match) -> tuple[int, bool, bool]:
    """How much a match's need asks, least first: its sm_ number, then whether it needs a
    suffix, then whether it is open to every later target (one limited to listed targets
    sorts first), as ``lightest`` has always ranked the forms of a spelling."""
    return match.need.sm, match.need.suffix != "", len(match.need.only) == 0


def arity_need(opcode: str, modifiers: tuple[str, ...], count: int) -> Need | None:
    """The weakest need among the forms that spell ``opcode.modifiers`` exactly and take
    ``count`` operands; ``None`` when none does. Some forms differ from their spelling's
    lighter ones by their operands alone: three-input ``max.f32 d, a, b, c`` needs sm_100 and
    PTX ISA 8.8 where ``max.f32 d, a, b`` needs neither (ptxas 12.9 under ``.version 8.7``:
    "Feature 'max.f32 with 3 input operands' requires PTX ISA .version 8.8 or later")."""
    fitting = [m for m in _exact(opcode, modifiers)
               if m.form.required_operands <= count <= len(m.form.operands)]
    if not fitting:
        return None
    return min(fitting, key=lambda m: (m.need.ptx, *_weakness(m))).need


def modifier_need(opcode: str, modifiers: tuple[str, ...]) -> Need | None:
    """The weakest need among the forms that spell ``opcode.modifiers`` exactly (operands
    aside); ``None`` when none does."""
    found = lightest(opcode, modifiers)
    return found[1] if found is not None else None


def form_of(opcode: str, modifiers: tuple[str, ...]) -> Form | None:
    """The first form that spells ``opcode.modifiers`` exactly (operands aside)."""
    if not judged(opcode, modifiers):
        return None
    exact = _exact(opcode, modifiers)
    return exact[0].form if exact else None


def _exact(opcode: str, modifiers: tuple[str, ...]) -> tuple[_Match, ...]:
    """The matches of the forms that spell ``opcode.modifiers`` exactly (operands aside), in
    table order, judged or not: ``_modifier_matches``' exact matches are every form whose match
    costs nothing (only a form that has every word of the spelling and lacks none of its own
    fixed words can; a word no form has leaves none)."""
    if not covered(opcode):
        return ()
    return _modifier_matches(opcode, modifiers)[1]




def written_positions(instruction: PtxInstruction, resolve: Resolver) -> tuple[int, ...] | None:
    """The operand positions the matched form writes, or ``None`` when no form matches.

    ``check`` answers with a form exactly when the spelling is judged and some form spells it
    (``_modifier_matches``'s exact matches), and then the form is one of those; so when they
    all write the same positions (every spelling in CUDA's and CUTLASS's headers), the answer
    depends on ``opcode.modifiers`` alone and no operand is looked at
    (``_written_by_spelling``). Only a spelling whose forms disagree runs the full check."""
    if instruction.opaque:
        return None
    decided, positions = _written_by_spelling(instruction.opcode, instruction.modifiers)
    if decided:
        return positions
    verdict = check(instruction, resolve)
    if verdict.form is None:
        return None
    return verdict.written


def _written_by_spelling(
    opcode: str, modifiers: tuple[str, ...]
) -> tuple[bool, tuple[int, ...] | None]:
    """``(True, positions)`` when ``written_positions`` of a non-opaque instruction spelled
    ``opcode.modifiers`` is ``positions`` whatever its operands; ``(False, None)`` when the
    forms that spell it write different positions and the operands decide."""
    found = _spelling(opcode, modifiers)
    return found[6], found[7]


# What ``check`` and ``written_positions`` read of a spelling (``_spelling``): whether the
# grammar judges it; the first unknown modifier; the forms that spell it exactly, all of them,
# those every toolkit takes and those only a newer ptxas takes (``toolkit=``); the closest form
# when none does; and whether its written positions are decided without the operands, and
# which.
_Spelling = tuple[bool, int | None, tuple[_Match, ...], tuple[_Match, ...], tuple[_Match, ...],
                  _Match | None, bool, tuple[int, ...] | None]


@lru_cache(maxsize=16384)
def _spelling(opcode: str, modifiers: tuple[str, ...]) -> _Spelling:
    """The facts of ``opcode.modifiers`` that ``check`` and ``written_positions`` read, worked
    out once per spelling and read in one look-up: each asked ``covered``, ``_judged`` and
    ``_modifier_matches`` in turn (three look-ups, each hashing the spelling) and ``check``
    split the exact matches by toolkit for every instruction it judged. Judging every
    instruction the rules ask about (recorded from a lint run, cold verdicts, the spellings
    known; valgrind): the CUDA 13 headers 399 M -> 383 M instructions, CUTLASS's include/
    897 M -> 882 M."""
    if not covered(opcode) or not _judged(opcode, modifiers):
        return False, None, (), (), (), None, True, None  # check abstains without a form
    unknown, exact, closest = _modifier_matches(opcode, modifiers)
    gated = tuple(m for m in exact if m.form.toolkit is not None)
    ungated = tuple(m for m in exact if m.form.toolkit is None) if gated else exact
    if unknown is not None or not exact:
        # an unknown modifier or no form that spells it: no form, whatever the operands
        return True, unknown, exact, ungated, gated, closest, True, None
    written = {_written(m.form) for m in exact}
    if len(written) == 1:
        return True, unknown, exact, ungated, gated, closest, True, written.pop()
    return True, unknown, exact, ungated, gated, closest, False, None


@lru_cache(maxsize=16384)
def operand_counts(opcode: str, modifiers: tuple[str, ...]) -> tuple[int, int] | None:
    """The fewest and the most operands that a form spelling ``opcode.modifiers`` takes (as
    ``check_operands`` counts them); None where the grammar does not judge the spelling or no
    form spells it."""
    found = _spelling(opcode, modifiers)
    exact = found[2]
    if not found[0] or not exact:
        return None
    return (min(m.form.required_operands for m in exact),
            max(len(m.form.operands) for m in exact))


def issues_of(verdict: Verdict, kinds: Iterable[str]) -> list[Issue]:
    wanted = set(kinds)
    return [i for i in verdict.issues if i.kind in wanted]
