"""Which element of an object an operand expression names, read from its tree: the one fact
PTX012's walks and the vector element order read."""

from __future__ import annotations

import pytest

from ptxlint.analysis.operand_elements import member_element, subscript_element
from ptxlint.analysis.vector_order import _element as vector_element
from rules.ptx012_repeated_indexed_operand import _element as walk_element


@pytest.mark.parametrize(("expression", "before", "index", "after"), [
    ("A[2]", "A[", 2, "]"),
    ("a [ 3u ]", "a[", 3, "]"),
    ("buf[0x4]", "buf[", 4, "]"),
    ("data[3].w", "data[", 3, "].w"),
    ("frag.x[1]", "frag.x[", 1, "]"),
    ("a[i][2]", "a[i][", 2, "]"),
    ("__as_u32(accum[3])", "__as_u32(accum[", 3, "])"),
    ("reinterpret_cast<uint32_t &>(p[0])", "reinterpret_cast<uint32_t&>(p[", 0, "])"),
    ("prob_stride[2] >> 4", "prob_stride[", 2, "]>>4"),
    ("(tile[5])", "tile[", 5, "]"),
])
def test_a_literal_subscript_and_the_text_around_it(expression, before, index, after):
    element = subscript_element(expression)
    assert element is not None
    assert (element.before, element.index, element.after, element.member) == \
        (before, index, after, False)


@pytest.mark.parametrize("expression", [
    "a[i]", "a[1] + b[i]", "a[1.5]", "a", "f(x)", "a[", "\"s[1]\"", "x[1][j]",
])
def test_no_literal_subscript_element(expression):
    assert subscript_element(expression) is None


@pytest.mark.parametrize(("expression", "base", "index"), [
    ("v.x", "v", 0), ("p->w", "p", 3), ("(uint32_t)v.y", "(uint32_t)v", 1),
    ("a.b.z", "a.b", 2), ("data[3].w", "data[3]", 3), ("( v . y )", "v", 1),
])
def test_a_vector_member(expression, base, index):
    element = member_element(expression)
    assert element is not None and element.member
    assert (element.base, element.index) == (base, index)


@pytest.mark.parametrize("expression", ["v.xy", "v.r", "v.x + 1", "x", "f(v.x)"])
def test_no_vector_member(expression):
    assert member_element(expression) is None


def test_each_reader_takes_its_view():
    # a walk reads the subscript first; the vector order the member first, and a subscript
    # only where nothing follows it
    assert walk_element("data[3].w").spelled(2) == "data[2].w"  # type: ignore[union-attr]
    assert walk_element("v.y").spelled(3) == "v.w"  # type: ignore[union-attr]
    assert vector_element("data[3].w") == ("data[3]", 3)
    assert vector_element("a[2]") == ("a", 2)
    assert vector_element("__as_u32(a[2])") is None
    assert vector_element("a[2] + 1") is None
