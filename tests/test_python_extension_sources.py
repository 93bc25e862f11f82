"""CUDA C++ that PyTorch's ``torch.utils.cpp_extension.load_inline`` (``cuda_sources``, a
string or a list of them), PyCUDA's ``SourceModule`` and Warp's ``@wp.func_native`` compile from
Python strings: linted by the C++ front end, positions in the ``.py`` file. ``cpp_sources`` is
host C++ (the host compiler builds it), and a function of the same name from elsewhere is no
such call."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

_KERNEL = (
    "__global__ void k(unsigned *out) {\n"
    "    unsigned lane;\n"
    '    asm("mov.u32 %0, %%laneid;" : "=r"(lane));\n'
    "    out[threadIdx.x] = lane;\n"
    "}\n"
)
_BROKEN = (
    "__global__ void t(unsigned long long *out) {\n"
    '    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(*out));\n'
    "}\n"
)


def _statements(text: str) -> list[AsmStatement]:
    return extract_python(SourceFile("k.py", text), parse_template).statements


def test_load_inline_cuda_sources_string_is_linted_in_the_py_file() -> None:
    text = (
        "from torch.utils.cpp_extension import load_inline\n"
        f"SRC = r'''\n{_KERNEL}'''\n"
        "mod = load_inline(name='m', cpp_sources='void f();', cuda_sources=SRC,\n"
        "                  functions=['f'])\n"
    )
    (s,) = _statements(text)
    assert s.syntax == "gnu" and s.context.embedded_in == "python"
    k = s.template.text.index("%laneid")
    span = s.template.source_span(k, k + 7)
    assert text[span.start : span.end] == "%laneid"


def test_load_inline_cuda_sources_list_each_string_is_linted() -> None:
    text = (
        "import torch.utils.cpp_extension as ext\n"
        f"A = r'''\n{_KERNEL}'''\n"
        f"B = r'''\n{_BROKEN}'''\n"
        "mod = ext.load_inline('m', 'void f();', [A, B])\n"
    )
    assert [s.template.text.split()[0] for s in _statements(text)] == ["mov.u32", "mov.u64"]
    # the defect of the second string is found where it is (a '%' not doubled before a
    # special register's name)
    lines = {text[: f.span.start].count("\n") + 1 for f in lint_text(text, path="k.py")
             if f.rule == "PTX008"}
    assert lines == {text[: text.index("%globaltimer")].count("\n") + 1}


def test_pycuda_source_module_is_linted() -> None:
    text = (
        "from pycuda.compiler import SourceModule\n"
        f"mod = SourceModule(r'''\n{_KERNEL}''')\n"
    )
    (s,) = _statements(text)
    assert s.syntax == "gnu"


def test_host_sources_and_unrelated_callees_are_not_read() -> None:
    text = (
        "from torch.utils.cpp_extension import load_inline\n"
        "from mylib import SourceModule\n"
        f"H = r'''\n{_KERNEL}'''\n"
        "load_inline(name='m', cpp_sources=H)\n"
        "SourceModule(H)\n"
    )
    assert _statements(text) == []


def test_warp_func_native_snippets_are_linted() -> None:
    """Each snippet of ``@wp.func_native`` (the forward body, its adjoint) is device C++."""
    text = (
        "import warp as wp\n"
        "@wp.func_native(\n"
        "    '''unsigned int v;\n"
        '    asm volatile("mov.u32 %0, %laneid;" : "=r"(v));\n'
        "    return v;''',\n"
        "    adj_snippet='asm volatile(\"mov.u32 %0, %clock;\" : \"=r\"(adj_ret));')\n"
        "def lane() -> wp.uint32: ...\n"
    )
    assert [s.template.text.split()[-1] for s in _statements(text)] == ["%laneid;", "%clock;"]
    found = [f for f in lint_text(text, path="k.py") if f.rule == "PTX008"]
    assert [text[f.span.start : f.span.end] for f in found] == ["%laneid", "%clock"]


def test_a_func_native_not_from_warp_is_not_read() -> None:
    text = (
        "from mylib import func_native\n"
        "@func_native('asm volatile(\"mov.u32 %0, %laneid;\" : \"=r\"(v));')\n"
        "def lane(): ...\n"
    )
    assert _statements(text) == []
