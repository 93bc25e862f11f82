"""``value_class`` behaves as ``dataclass(frozen=True)`` does: each class below is declared
twice, once with each decorator, and every comparison, hash and repr is checked against the
twin's."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from ptxlint.model import CType, Span
from ptxlint.value_class import value_class


@value_class
class Pair:
    a: int
    b: str = "x"


@dataclass(frozen=True, slots=True)
class PairTwin:
    a: int
    b: str = "x"


@value_class
class One:
    a: int


@dataclass(frozen=True, slots=True)
class OneTwin:
    a: int


@value_class
class Empty:
    pass


@dataclass(frozen=True, slots=True)
class EmptyTwin:
    pass


@value_class(slots=False)
class Partial:
    a: int
    note: str = field(default="", compare=False)
    shown: int = field(default=0, repr=False)
    unhashed: int = field(default=0, hash=False)


@dataclass(frozen=True)
class PartialTwin:
    a: int
    note: str = field(default="", compare=False)
    shown: int = field(default=0, repr=False)
    unhashed: int = field(default=0, hash=False)


@value_class
class OwnEq:
    a: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEq) and other.a % 2 == self.a % 2


@dataclass(frozen=True, slots=True)
class OwnEqTwin:
    a: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEqTwin) and other.a % 2 == self.a % 2


@value_class
class OwnRepr:
    a: int

    def __repr__(self) -> str:
        return "mine"


@value_class
class Child(Pair):
    c: int = 0


@dataclass(frozen=True, slots=True)
class ChildTwin(PairTwin):
    c: int = 0


def _renamed(text: str) -> str:
    return text.replace("Twin", "")


CASES = [
    (Pair, PairTwin, [(1,), (1, "y"), (2,), (1, "x")]),
    (One, OneTwin, [(1,), (2,), (1,)]),
    (Empty, EmptyTwin, [(), ()]),
    (Partial, PartialTwin, [(1,), (1, "n"), (1, "", 5), (1, "", 0, 7), (2,)]),
    (OwnEq, OwnEqTwin, [(1,), (3,), (2,)]),
    (Child, ChildTwin, [(1,), (1, "x", 2), (1, "y", 2)]),
]


@pytest.mark.parametrize(("made", "twin", "argsets"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_as_the_dataclass_twin(made: type, twin: type, argsets: list[tuple[object, ...]]) -> None:
    ours = [made(*args) for args in argsets]
    theirs = [twin(*args) for args in argsets]
    for i, (x, tx) in enumerate(zip(ours, theirs, strict=True)):
        assert repr(x) == _renamed(repr(tx))
        for y, ty in zip(ours, theirs, strict=True):
            assert (x == y) is (tx == ty)
            assert (x != y) is (tx != ty)
            # the same fields hashed: equal hashes exactly where the twin's are equal
            assert (hash(x) == hash(y)) is (hash(tx) == hash(ty))
        assert hash(x) == hash(copy.copy(x)) == hash(pickle.loads(pickle.dumps(x)))
        assert pickle.loads(pickle.dumps(x)) == x, i


def test_unhashed_and_uncompared_fields() -> None:
    assert Partial(1, note="a") == Partial(1, note="b")
    assert hash(Partial(1, note="a")) == hash(Partial(1, note="b"))
    # hash=False: compared but not hashed
    assert Partial(1, unhashed=1) != Partial(1, unhashed=2)
    assert hash(Partial(1, unhashed=1)) == hash(Partial(1, unhashed=2))
    assert "shown" not in repr(Partial(1, shown=3))


def test_other_classes_compare_unequal() -> None:
    assert Pair(1) != PairTwin(1)
    assert Pair(1).__eq__(PairTwin(1)) is NotImplemented
    assert Child(1) != Pair(1)  # a subclass is another class, as with dataclass


def test_own_methods_kept() -> None:
    assert OwnEq(1) == OwnEq(3)
    assert hash(OwnEq(1)) == hash(OwnEq(1))  # a class that spells __eq__ alone gets the hash
    assert repr(OwnRepr(1)) == "mine"


def test_still_a_frozen_dataclass() -> None:
    pair = Pair(1)
    with pytest.raises(FrozenInstanceError):
        pair.a = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del pair.a  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(pair)] == ["a", "b"]
    assert dataclasses.replace(pair, b="z") == Pair(1, "z")
    assert dataclasses.asdict(pair) == {"a": 1, "b": "x"}
    assert Pair.__match_args__ == ("a", "b")
    assert not hasattr(pair, "__dict__")
    assert hasattr(Partial(1), "__dict__")
    assert Pair.__eq__.__qualname__ == "Pair.__eq__"


def test_the_model_is_made_of_value_classes() -> None:
    assert Span(1, 2) == Span(1, 2) and hash(Span(1, 2)) == hash(Span(1, 2))
    assert repr(Span(1, 2)) == "Span(start=1, end=2)"
    # CType's signedness and pointee are left out of equality and hashing
    assert CType("int", "integer", 4, unsigned=False) == CType("int", "integer", 4)
    assert hash(CType("int", "integer", 4, unsigned=False)) == hash(CType("int", "integer", 4))
