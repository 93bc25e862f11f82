"""Value flow of derived addresses: ``&p[i]``, ``p + i``, ``&p->m``, ``&s.m[i]`` are the address
their base designates plus an offset (C++'s [expr.sub], [expr.add]), in the base's window:
a shared-window address where the base holds one, generic where it is generic, unknown where
the base is (never "proven generic", whose PTX301 fix would convert a shared-window address a
second time)."""

from __future__ import annotations

import pytest

from ptxlint.analysis import value_flow
from ptxlint.analysis.value_flow import Value, operand_value
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

_FILE = """\
#include <cstdint>
struct Row { float x; float y; };
struct Holder { float buf[64]; float *ptr; float x; };
__shared__ float tile[64];
__shared__ float grid[2][64];
__shared__ Holder holder;
__device__ float shared_window(int i) {
  float v;
  float *p = reinterpret_cast<float *>(__cvta_generic_to_shared(tile));
  Row *r = reinterpret_cast<Row *>(__cvta_generic_to_shared(tile));
%(shared)s
  return v;
}
__device__ float generic(int i) {
  float v;
  float *ptrs[2] = {tile, tile};
%(generic)s
  return v;
}
__device__ float unknown(const float *q, int i) {
  float v;
%(unknown)s
  return v;
}
class Staged {
  float *ptr_;
  float buf_[64];
 public:
  __device__ explicit Staged(float *p) : ptr_(p) {
    asm("cvta.to.shared.u64 %%0, %%0;" : "+l"(ptr_));
  }
  __device__ float load(int i) const {
    float v;
%(member)s
    return v;
  }
};
"""

_LOAD = '  asm volatile("%s.f32 %%0, [%%1];" : "=f"(v) : "l"(%s));'

# expression -> its kind, by the function it is read in
_CASES = {
    "shared": {
        "&p[i]": Value.SHARED,
        "p + i": Value.SHARED,
        "&r->y": Value.SHARED,
        "&r[i].y": Value.SHARED,
        "&(*r).x": Value.SHARED,
        "&p[i] + 1": Value.SHARED,
    },
    "generic": {
        "&tile[i]": Value.GENERIC,
        "&grid[1][i]": Value.GENERIC,  # an element of an array of arrays: inside `grid`
        "&holder.buf[i]": Value.GENERIC,  # an array member: inside `holder`
        "&holder.x": Value.GENERIC,  # a member: inside `holder`
        "&ptrs[1][i]": None,  # `ptrs[1]` is a pointer loaded from the array: unknown
        "&holder.ptr[i]": None,  # a pointer member loaded from `holder`: unknown
    },
    "unknown": {
        "&q[i]": Value.POINTER,  # a parameter no call site explains
        "q + i": Value.POINTER,
    },
    "member": {
        "&ptr_[i]": Value.SHARED,  # the constructor converts the member last
        "&this->ptr_[i]": Value.SHARED,
        "&buf_[i]": Value.GENERIC,  # inside the object: `this`'s address
        "&this->buf_[i]": Value.GENERIC,
    },
}


def _text(opcode: str = "ld.shared") -> str:
    return _FILE % {
        where: "\n".join(
            ("  " if where == "member" else "") + _LOAD % (opcode, expression)
            for expression in cases
        )
        for where, cases in _CASES.items()
    }


def _values(text: str) -> dict[str, Value | None]:
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    value_flow._CACHE.clear()
    found = {}
    for statement in extracted.statements:
        if "ld." not in statement.template.text:
            continue
        operand = statement.operands[1]
        found[operand.expression.strip()] = operand_value(
            statement, operand, True, extracted.parsed, extracted.statements
        )
    return found


def test_a_derived_address_is_in_its_bases_window() -> None:
    expected = {e: kind for cases in _CASES.values() for e, kind in cases.items()}
    assert _values(_text()) == expected


def _ptx301(text: str) -> dict[str, tuple[str, bool | None]]:
    """expression -> (the finding's severity, whether its fix is safe; None: no fix)."""
    found = {}
    for finding in lint_text(text, select=("PTX301",)):
        if finding.rule != "PTX301":
            continue
        expression = finding.message.split("('", 1)[1].split("'", 1)[0]
        found[expression] = (
            str(finding.severity.value), finding.fix.safe if finding.fix is not None else None
        )
    return found


def test_ptx301_offers_a_safe_fix_only_for_an_address_proven_generic() -> None:
    """A shared-window address and what is derived from it is left alone in a shared load;
    a generic one is flagged with the conversion as a safe fix; one whose base is unknown is
    flagged, its fix unsafe (it may already be a shared-window address)."""
    found = _ptx301(_text())
    assert found == {
        "&tile[i]": ("warning", True),
        "&grid[1][i]": ("warning", True),
        "&holder.buf[i]": ("warning", True),
        "&holder.x": ("warning", True),
        "&buf_[i]": ("warning", True),
        "&this->buf_[i]": ("warning", True),
        "&ptrs[1][i]": ("warning", False),
        "&holder.ptr[i]": ("warning", False),
        "&q[i]": ("warning", False),
        "q + i": ("warning", False),
    }


@pytest.mark.parametrize("expression", sorted(_CASES["shared"]))
def test_a_shared_window_address_derived_is_an_error_in_a_global_load(expression: str) -> None:
    text = _FILE % {
        "shared": _LOAD % ("ld.global", expression),
        "generic": "",
        "unknown": "",
        "member": "",
    }
    found = _ptx301(text)
    assert found == {expression: ("error", None)}


def test_this_may_hold_a_shared_window_address_in_a_file_that_makes_such_pointers() -> None:
    """In a file whose helper returns ``cvta.to.shared``'s result as a pointer, an object may
    have been reached through one: a member's address (``this``'s plus an offset) is left
    alone, as a pointer parameter no call site explains is; a variable's stays generic."""
    maker = """\
__device__ float *to_shared(float *p) {
  asm("cvta.to.shared.u64 %0, %0;" : "+l"(p));
  return p;
}
"""
    values = _values(maker + _text())
    assert values["&buf_[i]"] is values["&this->buf_[i]"] is Value.MAYBE_SHARED
    assert values["&tile[i]"] is values["&holder.buf[i]"] is Value.GENERIC
    found = _ptx301(maker + _text())
    assert "&buf_[i]" not in found and "&this->buf_[i]" not in found
    assert found["&tile[i]"] == ("warning", True)


_ROWS = """\
__shared__ float tile[4][64];
__device__ float rows_of(int i) {
  float v;
  const float (*rows)[64] = %s;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(rows));
  return v;
}
"""


@pytest.mark.parametrize(
    ("initializer", "kind"),
    [
        ("reinterpret_cast<const float (*)[64]>(__cvta_generic_to_shared(tile))", Value.POINTER),
        ("tile", Value.GENERIC),
    ],
)
def test_a_pointer_to_an_array_holds_its_initializers_value(
    initializer: str, kind: Value | None
) -> None:
    """``T (*p)[64]`` declares a pointer (to an array), not an array: its value is what it is
    initialized with (a shared-window address cast to a type value flow does not read: a
    pointer of unknown origin, never the generic address of an array, whose conversion PTX301
    offered as a safe fix)."""
    text = _ROWS % initializer
    assert _values(text) == {"rows": kind}
    # flagged either way (a pointer in a shared access), the fix safe only where proven
    assert _ptx301(text) == {"rows": ("warning", kind is Value.GENERIC)}


_STEPPED = """\
#include <cstdint>
__shared__ float tile[64];
__device__ float stepped(int i) {
  float v;
  float *p = %s;
  p = p + 4;
  p = reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(p) + 8);
  p = &p[i];
  asm volatile("%s.f32 %%0, [%%1];" : "=f"(v) : "l"(p));
  return v;
}
"""


@pytest.mark.parametrize(
    ("initializer", "kind", "opcode", "finding"),
    [
        (
            "reinterpret_cast<float *>(__cvta_generic_to_shared(tile))",
            Value.SHARED, "ld.global", ("error", None),
        ),
        ("reinterpret_cast<float *>(__cvta_generic_to_shared(tile))", Value.SHARED, "ld.shared",
         None),
        ("tile", Value.GENERIC, "ld.shared", ("warning", True)),
    ],
)
def test_a_pointer_stepped_by_assignment_keeps_its_kind(
    initializer: str, kind: Value, opcode: str, finding: tuple[str, bool | None] | None
) -> None:
    """``p = p + 4``, ``p = (T*)((uintptr_t)p + 8)``, ``p = &p[i]`` add an offset, as ``p += 4``
    does: ``p`` keeps the kind its initializer gives (they read ``p`` itself, which was unknown)."""
    text = _STEPPED % (initializer, opcode)
    assert _values(text) == {"p": kind}
    assert _ptx301(text) == ({"p": finding} if finding is not None else {})


_REFERENCE_MEMBER = """\
__shared__ float tile[64];
struct View {
  float &first;
  float last;
  __device__ explicit View(float &f) : first(f), last(0) {}
  __device__ float load() {
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&first));
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&this->last));
    return v;
  }
};
__device__ float outside(View &w) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&w.first));
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&w.last));
  return v;
}
"""


def test_a_reference_members_address_is_not_one_inside_the_object() -> None:
    """``&first`` of a reference member is the address of what it is bound to (here whatever
    the constructor's caller passes), not the object's plus an offset: unknown, its fix unsafe;
    ``&last`` is inside the object, generic."""
    assert _values(_REFERENCE_MEMBER) == {
        "&first": None,
        "&this->last": Value.GENERIC,
        "&w.first": None,
        "&w.last": Value.GENERIC,
    }
    assert _ptx301(_REFERENCE_MEMBER) == {
        "&first": ("warning", False),
        "&this->last": ("warning", True),
        "&w.first": ("warning", False),
        "&w.last": ("warning", True),
    }
