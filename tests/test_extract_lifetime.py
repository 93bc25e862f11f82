"""A file's extraction objects go by reference counting once nothing holds its result: no
cycle among them waits for the collector (each such cycle kept a file's tree, guards, macro
table and host-code verdicts alive until the next collection)."""

from __future__ import annotations

import collections
import gc

from ptxlint.engine import parse_template
from ptxlint.frontends.cxx.extract import extract
from ptxlint.model import SourceFile

# Guards whose macro the file defines (guard macros read the macro table), a function whose
# specifier is a macro (host-code verdicts read it too), a host function, a macro's expansion.
_TEXT = """
#define MY_DEVICE __device__
#if defined(__LP64__)
#define PTR64 1
#endif
#if PTR64
MY_DEVICE void f(unsigned *p, unsigned v) { asm volatile("st.u32 [%0], %1;" :: "l"(p), "r"(v)); }
#endif
void h() { asm volatile("trap;"); }
#define LOAD(x) asm volatile("ld.u32 %0, [%1];" : "=r"(x) : "l"(&x))
MY_DEVICE void g(unsigned v) { LOAD(v); }
"""


def _left_for_the_collector(text: str) -> tuple[int, collections.Counter[str]]:
    """The statements extracted from ``text`` (no types asked), and the kinds of objects that
    only the cyclic collector frees once the result is dropped."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = extract(SourceFile("k.cu", text), parse_template)
        count = len(result.statements)
        del result
        gc.collect()
        kinds = collections.Counter(
            f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    return count, kinds


def test_extraction_leaves_no_cycle_for_the_collector() -> None:
    count, kinds = _left_for_the_collector(_TEXT)
    assert count == 3  # f's, the #define body's and g's expansion (h's is host code)
    assert not kinds, kinds
