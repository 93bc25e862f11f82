"""What a file declares ``const``, read from its text in one pass and kept for the file's last
text (its statements are asked in turn): PTX013's gate before it looks a declaration up, and
PTX210's constants written out element by element."""

from __future__ import annotations

from collections.abc import Callable

from ptxlint import file_memos
from ptxlint.lazy_regex import on_first_use

__all__ = ["initialised_constants", "maybe_const_names"]


def _per_text(compute: Callable[[str], frozenset[str]]) -> Callable[[str], frozenset[str]]:
    """``compute`` kept for the last text it was asked about (by identity), forgotten with the
    file (``file_memos``)."""
    last: list[tuple[str, frozenset[str]]] = []

    def of(text: str) -> frozenset[str]:
        if last and last[0][0] is text:
            return last[0][1]
        names = compute(text)
        last[:] = [(text, names)]
        return names

    file_memos.register(last.clear)
    of.__doc__ = compute.__doc__
    return of


_WORD = on_first_use(r"[A-Za-z_]\w*")
# No `\b` before `const`: a pattern that starts with a literal is searched for that literal
# (20 times faster over the CUDA 13 headers), and a run that starts inside a word (`myconst`)
# only adds names, which keeps the set a superset.
_CONST_RUN = on_first_use(r"const(?:expr)?\b([^;{}(),=]*)")


@_per_text
def maybe_const_names(text: str) -> frozenset[str]:
    """A superset of the names a ``const``/``constexpr`` precedes within one declarator of
    ``text``: only these can name a const object (PTX013 looks no other name up)."""
    return frozenset(_WORD().findall(";".join(_CONST_RUN().findall(text))))


# A `const`/`constexpr`/`__constant__` declaration's run up to the first `;{}()`, with the
# character that ends it; in it, each name followed by `=` (or by the `{` that ends the run)
# is a constant declared with an initializer. Exact, so `\b` stays: asked only of files with a
# store bound to a C++ vector.
_CONSTANT_RUN = on_first_use(r"\b(?:__constant__|constexpr|const)\b([^;{}()]*[{]?)")
_INITIALISED = on_first_use(r"\b([A-Za-z_]\w*)\s*(?:=|\{)")


@_per_text
def initialised_constants(text: str) -> frozenset[str]:
    """Every name ``text`` declares a constant with an initializer (a regex compiled and run
    over the whole file per store was 2% of the CUDA 13 headers' check)."""
    return frozenset(_INITIALISED().findall(";".join(_CONSTANT_RUN().findall(text))))
