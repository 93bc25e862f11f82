"""Value flow through the call sites of member functions: a parameter of a member function
(defined in its class's body or out of it) holds what the calls that may reach it pass, as a
free function's does (``analysis/method_calls.py``): ``o.f(x)`` of an object of the class,
``this->f(x)``, a plain ``f(x)`` in a member function, ``C::f(x)``; not a call through an
object of another class."""

from __future__ import annotations

import pytest

from ptxlint.analysis import value_flow
from ptxlint.analysis.value_flow import Value, operand_value
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

_SHARED = "reinterpret_cast<const float *>(__cvta_generic_to_shared(&tile[%s]))"

_FILE = """\
#include <cstdint>
__shared__ float tile[64];
struct Loader {
  __device__ float load(const float *p) {
    float v;
    asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(p));
    return v;
  }
  __device__ float load_global(uint32_t addr) {
    float v;
    asm volatile("ld.global.f32 %%0, [%%1];" : "=f"(v) : "r"(addr));
    return v;
  }
  template <int N>
  __device__ float load_at(const float *p) {
    float v;
    asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(p + N));
    return v;
  }
  __device__ float twice() { return load(%(a)s) + this->load(%(b)s) + this->load_at<1>(%(a)s); }
};
struct Other {
  __device__ float load(const float *p) { return *p; }
};
__global__ void k(float *out, Loader *pl) {
  Loader l;
  Other o;
  out[0] = l.load(%(c)s) + pl->load(%(a)s) + o.load(&tile[5]) + l.template load_at<2>(%(b)s);
  out[1] = l.load_global(static_cast<uint32_t>(__cvta_generic_to_shared(&tile[3])));
%(more)s}
"""


def _text(a: str, b: str, c: str, more: str = "") -> str:
    return _FILE % {"a": a, "b": b, "c": c, "more": more}


def _values(text: str) -> dict[str, Value | None]:
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    value_flow._CACHE.clear()
    found = {}
    for statement in extracted.statements:
        operand = statement.operands[1]
        found[operand.expression.strip()] = operand_value(
            statement, operand, True, extracted.parsed, extracted.statements
        )
    return found


def _ptx301(text: str) -> dict[str, tuple[str, bool | None]]:
    """expression -> (the finding's severity, whether its fix is safe; None: no fix)."""
    found = {}
    for finding in lint_text(text, select=("PTX301",)):
        if finding.rule == "PTX301":
            expression = finding.message.split("('", 1)[1].split("'", 1)[0]
            found[expression] = (
                str(finding.severity.value),
                finding.fix.safe if finding.fix is not None else None,
            )
    return found


def test_a_member_functions_parameter_holds_what_its_calls_pass() -> None:
    """Every call that may reach ``Loader::load`` (plain, through ``this``, a ``Loader`` and a
    ``Loader*``) passes a shared-window pointer: the shared load is right. ``Other::load``'s
    call passes a generic pointer and is not one of them. The 32-bit parameter every call
    binds to ``__cvta_generic_to_shared``'s result is an offset a global load misreads."""
    text = _text(_SHARED % 0, _SHARED % 1, _SHARED % 2)
    assert _values(text) == {
        "p": Value.SHARED,
        "addr": Value.SHARED,
        "p + N": Value.SHARED,
    }
    found = _ptx301(text)
    assert found == {"addr": ("error", None)}


def test_a_member_functions_generic_argument_is_flagged_with_a_safe_fix() -> None:
    text = _text("&tile[0]", "tile", "&tile[2]")
    assert _values(text)["p"] is Value.GENERIC
    assert _ptx301(text)["p"] == ("warning", True)


@pytest.mark.parametrize(
    "more",
    [
        # an object whose class is not read (a template parameter's) may be a Loader
        "}\ntemplate <typename T> __device__ float use(T &t) {\n"
        "  return t.load(&tile[4]);\n",
        # ... a data member's (its class not read), beside a free function of the name
        "}\n__device__ float load(const float *p) { return *p; }\n"
        "struct Holder {\n  Loader l_;\n"
        "  __device__ float use() { return l_.load(&tile[4]); }\n"
        "};\n__device__ void unused() {\n",
        # ... an object of a class derived from it that defines no `load` of its own
        "}\nstruct Derived : Loader {};\n__device__ float use(Derived &d) {\n"
        "  return d.load(&tile[4]);\n",
        # ... a call naming the class, in a derived class's member function
        "}\nstruct Derived : Loader {\n"
        "  __device__ float use() { return Loader::load(&tile[4]); }\n"
        "};\n__device__ void unused() {\n",
    ],
    ids=["template", "data-member", "derived", "qualified"],
)
def test_a_call_that_may_reach_the_member_function_counts(more: str) -> None:
    """Besides the calls passing shared-window pointers, one passes a generic pointer through
    an object of a class not read, or names the class: the parameter holds either, so it is
    flagged with an unsafe fix."""
    text = _text(_SHARED % 0, _SHARED % 1, _SHARED % 2, more)
    assert _values(text)["p"] is Value.POINTER
    assert _ptx301(text)["p"] == ("warning", False)


def test_another_classs_member_function_of_the_name_is_not_a_call_of_it() -> None:
    """Two classes define ``load``: each one's parameter reads its own class's calls only."""
    text = _text(_SHARED % 0, _SHARED % 1, _SHARED % 2).replace(
        "{ return *p; }",
        '{ float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }',
    )
    values = _values(text)
    assert values["p"] is Value.GENERIC  # the last statement read: Other::load's
    found = _ptx301(text)
    assert found == {"addr": ("error", None), "p": ("warning", True)}


_LAMBDA = """\
__shared__ float tile[64];
__device__ float load(const float *p) {
  float v;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(p));
  return v;
}
__global__ void k(float *out) {
  out[0] = load(%s);
  auto again = [&](int i) { return load(%s); };
  out[1] = again(1);
}
"""


def test_a_call_in_a_lambda_may_pass_anything() -> None:
    """Value flow does not read a lambda's names: a call of the helper inside one may pass
    anything, so the kernel's generic argument no longer proves the parameter generic (the
    lambda passes a shared-window pointer: converting again would be wrong)."""
    shared = "reinterpret_cast<const float *>(__cvta_generic_to_shared(&tile[i]))"
    text = _LAMBDA % ("&tile[0]", shared)
    assert _values(text) == {"p": Value.POINTER}
    assert _ptx301(text) == {"p": ("warning", False)}


_RETURNS = """\
#include <cstdint>
__shared__ float tile[64];
struct Stage {
  float *ptr_;
  __device__ uint32_t smem_addr() const {
    return static_cast<uint32_t>(__cvta_generic_to_shared(ptr_));
  }
  __device__ float load_global() const {
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(smem_addr()));
    return v;
  }
};
struct Other {
  __device__ uint32_t smem_addr() const { return 0; }
};
template <typename T>
__device__ float through(const T &t) {
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(t.smem_addr()));
  return v;
}
__global__ void k(float *out, Stage s, Other o) {
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(s.smem_addr()));
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(this_stage().smem_addr()));
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(o.smem_addr()));
  out[0] = v + through(s);
}
"""


def test_a_member_calls_value_is_what_its_classs_member_function_returns() -> None:
    """``s.smem_addr()`` and a plain ``smem_addr()`` in a member function of ``Stage`` return
    ``__cvta_generic_to_shared``'s result: an offset a global load misreads. ``o.smem_addr()``
    calls ``Other``'s; a call through a template parameter's object or a call's result, whose
    class is not known here, returns what no definition of the file says."""
    source = SourceFile("test.cu", _RETURNS)
    extracted = extract_statements(source)
    value_flow._CACHE.clear()
    found = [
        operand_value(st, st.operands[1], True, extracted.parsed, extracted.statements)
        for st in extracted.statements
    ]
    assert found == [Value.SHARED, None, Value.SHARED, None, None]
    messages = [f.message for f in lint_text(_RETURNS, select=("PTX301",)) if f.rule == "PTX301"]
    assert len(messages) == 2
    assert all("shared-memory offset" in m for m in messages)
    assert "'smem_addr()'" in messages[0] and "'s.smem_addr()'" in messages[1]
