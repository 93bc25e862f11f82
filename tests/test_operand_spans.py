"""Operand and constraint spans made when first read (ptxlint.model: ``set_operand_place``,
``set_constraint_place``): the plain reader leaves them to be made, and every way of reading an
operand (attributes, ==, hash, repr, copies, pickles, ``dataclasses.replace``) sees the values
an operand made with its spans has."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from ptxlint.frontends.cxx.plain_reader import read_plain
from ptxlint.model import (
    Constraint,
    CType,
    MadeOnRead,
    Operand,
    OperandTypes,
    SourceFile,
    Span,
    constraint_start,
    expression_start,
    expressions,
    operand_offsets,
    types_read,
)
from ptxlint.model_slots import slot_setters

_STATEMENT = 'asm volatile("add.s32 %0, %1, %2;" : "=r"(d) : [x] "r"( a + 1 ), "n"(N));'


def _made(value: object, owner: type, name: str) -> bool:
    """Whether the slot ``name`` of ``value`` holds something (not left to be made)."""
    field = owner.__dict__[name]
    if isinstance(field, MadeOnRead):
        return field.made(value)
    try:
        field.__get__(value, owner)
    except AttributeError:
        return False
    return True


def _read(text: str, prefix: str = "") -> tuple[str, tuple[Operand, ...]]:
    whole = prefix + text
    raw = read_plain(SourceFile("t.cu", whole), len(prefix), "asm")
    assert raw is not None
    return whole, raw.operands


def _eager(operand: Operand) -> Operand:
    """The same operand made through the constructors, every span given."""
    constraint = operand.constraint
    return Operand(
        operand.index,
        operand.role,
        Constraint(constraint.text, constraint.modifiers, constraint.letters,
                   Span(constraint.span.start, constraint.span.end), constraint.opaque),
        operand.expression,
        Span(operand.expression_span.start, operand.expression_span.end),
        Span(operand.span.start, operand.span.end),
        operand.symbolic_name,
        operand.ctype,
    )  # fmt: skip


def test_plain_operands_leave_their_spans_to_be_made() -> None:
    _, operands = _read(_STATEMENT)
    for operand in operands:
        assert not _made(operand, Operand, "span")
        assert not _made(operand, Operand, "expression_span")
        assert not _made(operand.constraint, Constraint, "span")


def test_plain_operands_leave_their_type_slot_empty_and_read_none_until_left() -> None:
    """The plain reader sets no type: an operand it made that extraction never leaves to an
    ``OperandTypes`` reads None, as one given None, and counts as read where it has an
    expression (another reading of its text may type it)."""
    _, operands = _read(_STATEMENT)
    assert not any(_made(o, Operand, "ctype") for o in operands)
    assert types_read(operands)
    assert [o.ctype for o in operands] == [None, None, None]
    assert not types_read([dataclasses.replace(operands[0], expression="")])


class _Fixed(OperandTypes):
    """Types given up front, counting the settles asked of it."""

    __slots__ = ("operands", "ctypes", "settled")

    def __init__(self, operands: tuple[Operand, ...], ctypes: list[CType | None]) -> None:
        self.operands, self.ctypes, self.settled = operands, ctypes, 0

    def settle(self) -> None:
        self.settled += 1
        if self.settled == 1:
            self.give(self.operands, self.ctypes)


def test_operands_left_to_their_types_whether_made_with_a_type_or_without() -> None:
    """``leave`` takes a plain reading's operands (type slot empty) and the constructors'
    (type given, None) alike: each reads its statement's worked-out type, settled once."""
    ctypes = [CType("unsigned int", "integer", 4), None, CType("int", "integer", 4)]
    plain = _read(_STATEMENT)[1]
    made_whole = tuple(_eager(o) for o in _read(_STATEMENT)[1])
    assert not any(_made(o, Operand, "ctype") for o in plain)
    for operands in (plain, made_whole):
        types = _Fixed(operands, ctypes)
        types.leave(operands)
        assert not types_read(operands)
        assert [o.ctype for o in operands] == ctypes and types.settled == 1
        assert types_read(operands)
    with pytest.raises(ValueError):
        OperandTypes.give(plain, ctypes[:2])


def test_spans_made_on_first_read_cover_what_they_name() -> None:
    text, operands = _read(_STATEMENT, prefix="int pad;\n  ")
    spelled = [
        (text[o.span.start : o.span.end], text[o.constraint.span.start : o.constraint.span.end],
         text[o.expression_span.start : o.expression_span.end])
        for o in operands
    ]  # fmt: skip
    assert spelled == [
        ('"=r"(d)', '"=r"', "d"),
        ('[x] "r"( a + 1 )', '"r"', "a + 1"),
        ('"n"(N)', '"n"', "N"),
    ]
    assert all(_made(o, Operand, "span") and _made(o.constraint, Constraint, "span")
               for o in operands)  # fmt: skip
    # a second read is the object the first one made
    assert operands[1].span is operands[1].span


def test_every_way_of_reading_sees_the_values_of_an_operand_made_whole() -> None:
    for operand in _read(_STATEMENT)[1]:
        eager = _eager(operand)
        lazy = _read(_STATEMENT)[1][operand.index]
        assert lazy == eager and hash(lazy) == hash(eager)
        for read in (
            lambda o: o,
            copy.copy,
            copy.deepcopy,
            lambda o: pickle.loads(pickle.dumps(o)),
            lambda o: dataclasses.replace(o),
        ):
            assert read(_read(_STATEMENT)[1][operand.index]) == eager
        assert repr(_read(_STATEMENT)[1][operand.index]) == repr(eager)
        assert dataclasses.asdict(_read(_STATEMENT)[1][operand.index]) == dataclasses.asdict(eager)


def test_offsets_are_read_without_making_a_span() -> None:
    text, operands = _read(_STATEMENT)
    operand = operands[1]
    assert text[expression_start(operand) :].startswith("a + 1")
    start, end, at = operand_offsets(operand)
    assert text[start:end] == '[x] "r"( a + 1 )' and at == expression_start(operand)
    assert text[constraint_start(operand.constraint) or 0 :].startswith('"r"')
    pairs = expressions(operands)
    assert not any(_made(o, Operand, "expression_span") or _made(o, Operand, "span")
                   for o in operands)  # fmt: skip
    assert pairs == [(o.expression, o.expression_span.start) for o in operands]
    # and the same answers for operands made with their spans
    eager = _eager(operand)
    assert operand_offsets(eager) == (start, end, at) and expression_start(eager) == at
    assert expressions([_eager(o) for o in operands]) == pairs
    assert constraint_start(eager.constraint) is None


def test_other_missing_attributes_still_raise() -> None:
    operand = _read(_STATEMENT)[1][0]
    with pytest.raises(AttributeError):
        operand.no_such_field  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        operand.constraint.no_such_field  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(operand, "no_such_field")


def test_operands_and_constraints_read_their_other_fields_as_plain_slots() -> None:
    """Only the fields left to be made are made on read: neither class has a ``__getattr__``,
    which would keep the interpreter from specializing every other field's read (the rules
    read a constraint's letters, modifiers and opaque flag, an operand's constraint and role,
    millions of times)."""
    lazy = {Constraint: {"span"}, Operand: {"span", "expression_span", "ctype"}}
    for cls, made_on_read in lazy.items():
        assert "__getattr__" not in vars(cls)
        for field in dataclasses.fields(cls):
            kind = type(vars(cls)[field.name])
            assert (kind is MadeOnRead) == (field.name in made_on_read), (cls, field.name)
            assert kind is MadeOnRead or kind.__name__ == "member_descriptor", field.name
    operand = _read(_STATEMENT)[1][0]
    for value in (operand, operand.constraint):
        with pytest.raises(AttributeError):
            value.no_such_field  # type: ignore[union-attr]  # noqa: B018


def test_slot_makers_fill_a_field_made_on_read_in_its_slot() -> None:
    """``slot_setters`` hands out the slot's own setter for a field made on read (the
    wrapper's is a Python call a field), and a value set so is read back as it is."""
    names = tuple(f.name for f in dataclasses.fields(Operand))
    setters = dict(zip(names, slot_setters(Operand, names), strict=True))
    assert all(type(s).__name__ == "method-wrapper" for s in setters.values())
    operand = object.__new__(Operand)
    setters["ctype"](operand, None)
    setters["span"](operand, Span(1, 2))
    assert operand.ctype is None and operand.span == Span(1, 2)
