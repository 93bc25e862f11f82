"""A statement as the readers read it (``RawStatement``: before its context's verdict and its
operands' types), and the setters its objects are made with, slot by slot.

A reading was once kept per statement text and moved onto the next statement spelled the same
(flashinfer repeats whole statements about 4.5 times). It did not pay for itself: a hit still
made every object anew (two thirds of a read), and each kept reading outlived its file, for
the collector to traverse and for memory to hold. ``check -j 1 --no-cache``, three runs each
with and without it, on a busy machine: CPU on the CUDA 13 headers 3.13-3.35 s -> 3.04-3.30 s,
on CUTLASS's ``include/`` 4.42-4.91 s -> 4.28-4.63 s, on a flashinfer sample (58% of its plain
statements were hits) 3.05-3.16 s -> 2.99-3.10 s; peak memory 104-107 -> 93-96 MB,
274-277 -> 224 MB and 84-87 -> 76 MB.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxlint.model import Clobber, Operand, Qualifier, Template


@dataclass
class RawStatement:
    """A statement as read, before its context's verdict and its operands' types. Its
    operands are its own, made for this reading and shared with nothing: ``_finish`` sets
    their types in place (``_with_ctype``)."""

    qualifiers: tuple[Qualifier, ...]
    extended: bool
    template: Template
    operands: tuple[Operand, ...]
    clobbers: tuple[Clobber, ...]
    goto_labels: tuple[str, ...]
    colons: tuple[int, ...]
    open_paren: int
    end: int
    problems: tuple[str, ...]
    opaque_sections: bool
    missing_commas: tuple[tuple[int, int], ...]
