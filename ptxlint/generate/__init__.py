"""``ptxlint new``: write a correct inline-asm statement for one PTX instruction form.

The grammar that judges statements (``ptxlint.ptx.grammar``) also writes them. The pieces,
each a small module:

* :mod:`.select`: the opcode string (``cp.async.ca.shared.global``) -> the form it spells;
* :mod:`.derive`: the form -> parameters, constraints, template, ``volatile``/``"memory"``;
* :mod:`.guard`: the form's need -> the ``#if`` that admits its targets and toolkits;
* :mod:`.cxx`: the CUDA C++ wrapper (and a kernel calling it);
* :mod:`.triton`: the Triton ``inline_asm_elementwise`` call.

The idea is PTX.jl's (``ptx"cp.async.ca.shared.global"(dst, src, Val(16))``).
"""

from __future__ import annotations

from .derive import Derived, NotExpressible, derive
from .select import Selected, SelectionError, select, spelling

__all__ = ["Derived", "NotExpressible", "Selected", "SelectionError", "derive", "generate",
           "select", "spelling"]


def generate(opcode: str, dialect: str = "cuda", name: str | None = None,
             kernel: bool = False) -> str:
    """The source ``ptxlint new OPCODE`` prints; :class:`SelectionError` or
    :class:`NotExpressible` (both ``ValueError``) say why there is none."""
    derived = derive(select(opcode))
    if dialect == "triton":
        from .triton import source as triton_source

        return triton_source(derived, name)
    from .cxx import source as cxx_source

    return cxx_source(derived, name, kernel)
