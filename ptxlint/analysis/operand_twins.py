"""Inputs that hand the template a value another input of the same statement already hands it.

An argument list may pass one value twice (lmdeploy's FP4 decode passes its byte selector as
``$1`` and again as ``$4`` and names only ``$4``): the template reads that value through the
twin the template names, so a ``$N`` numbering cannot have lost it, and the unnamed copy is no
unused operand (PTX009). Two expressions are one value only where evaluating the text again
gives the same result: a variable, a member or an element by a literal or a name
(``sel``, ``p->lo``, ``self.scale``, ``v[2]``). A call, an increment or any other operator may
give something else the second time, and a packed Triton tensor is another case: each of its
registers holds its own elements, and any register of the tensor named counts."""

from __future__ import annotations

from collections.abc import Iterable, Set

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import Operand

__all__ = ["has_named_twin"]

# an access path whose second evaluation reads what the first read: names joined by '.', '->'
# or '::', and subscripts by one word (a literal or a name)
_SAME_EACH_TIME = on_first_use(
    r"\s*[A-Za-z_]\w*(?:\s*(?:\.|->|::)\s*[A-Za-z_]\w*|\s*\[\s*\w+\s*\])*\s*")


def has_named_twin(operand: Operand, operands: Iterable[Operand], named: Set[int],
                   packed: bool) -> bool:
    """Whether the input ``operand``, which no ``%N`` names, passes a value that another input
    of ``operands`` passes and the template names (an index in ``named``). ``packed``: the
    statement is a Triton call with ``pack`` above 1, whose registers of one tensor share its
    expression; there an input without an expression is given the benefit of the doubt, since
    its register's tensor is not known."""
    expression = operand.expression
    if packed:
        return not expression or any(
            o.index in named for o in operands if o.expression == expression)
    if not expression or not _SAME_EACH_TIME().fullmatch(expression):
        return False
    key = "".join(expression.split())
    return any(
        o.index in named
        and o.role == "input"
        and o.constraint.letters == operand.constraint.letters
        and "".join(o.expression.split()) == key
        for o in operands
    )
