"""Which definition of a helper a call follows where the others are empty stubs of an ``#if``.

A header often defines its asm helpers twice: the real body under ``#if __CUDA_ARCH__ >= 900``
and an empty one in the ``#else`` (uccl's ``tma_ops.h``: ``tma_wait(...) {}`` for older
targets), so that every target builds. The two take different protocol steps, and a call that
may reach either was not followed at all (which one is called is not known): every protocol
rule then went silent on the file. But the build that compiles the empty one takes no step of
it, so there is nothing to check in it; what the rules check is the build where the real one
is compiled, and the helpers a function calls are guarded alike there. So where exactly one
definition takes steps, and every other lies in another branch of the preprocessor and takes
none (no step, no call that is not followed, no asm ptxlint cannot read), the call follows
that one.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from ptxlint.analysis.flow_opaque import Opaque

_BRANCHES = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                       "preproc_elifdef"})


def _branch(node: Node) -> int | None:
    """The innermost preprocessor branch around ``node`` (its node's id), or None."""
    current = node.parent
    while current is not None:
        if current.type in _BRANCHES:
            return current.id
        current = current.parent
    return None


def stepped_definition(nodes: Sequence[Node], composed: Sequence[tuple[Sequence[object], Opaque]]
                       ) -> int | None:
    """Of the definitions ``nodes`` (each with its followed steps and unfollowed calls,
    ``composed``), the index of the one a call follows (see the module), or None."""
    stepped = [i for i, (steps, _) in enumerate(composed) if steps]
    if len(stepped) != 1:
        return None
    keep = stepped[0]
    branch = _branch(nodes[keep])
    if branch is None:
        return None
    for i, (_, opaque) in enumerate(composed):
        if i != keep and (not opaque.empty or _branch(nodes[i]) in (None, branch)):
            return None
    return keep
