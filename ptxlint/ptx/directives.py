"""Which PTX directives a function body cannot hold.

An asm statement's template is pasted into the body of the function nvcc writes for its
C++ function, so its directives are statement-level ones: ``.reg``, ``.local``, ``.shared``,
``.const``, ``.global`` and ``.param`` variables, ``.pragma``, ``.loc``, a labelled
``.callprototype``, ``.calltargets`` or ``.branchtargets``, and a function's prototype
(``.extern .func f;``). What belongs to the module or to a function's header is a ptxas error
there, checked with ptxas 13.0 in a kernel's body, each on its own:

* the module's own directives (``.version``, ``.address_size``, ``.file``, ``.section``) and a
  function's header directives (``.entry``, ``.maxnreg``, ``.maxntid``, ``.reqntid``,
  ``.minnctapersm``, ``.maxclusterrank``, ``.reqnctapercluster``, ``.explicitcluster``,
  ``.noreturn``, ``.abi_preserve``): "Parsing error ... syntax error";
* a variable declared with linkage (``.extern .shared .align 16 .b8 smem[];``, ``.visible``,
  ``.weak``, ``.common``): a variable with linkage is a module's, "syntax error";
* texture, surface and sampler variables (``.tex``, ``.texref``, ``.surfref``,
  ``.samplerref``): "must be at module or entry parameter scope";
* a declaration with no state space (``.b32 x;``, ``.pred p;``, ``.align 16 .b8 x;``,
  ``.v4 .b32 v;``): "No variable storage specified".

A directive name outside these lists is left alone: ``.target`` in a body assembles, and a
name this module does not know is no evidence (PTX204's "when unsure, stay silent").
"""

from __future__ import annotations

from ptxlint.model import PtxDirective

__all__ = ["misplaced"]

_MODULE = frozenset({".version", ".address_size", ".file", ".section"})
_FUNCTION_HEADER = frozenset({
    ".entry", ".maxnreg", ".maxntid", ".reqntid", ".minnctapersm", ".maxclusterrank",
    ".reqnctapercluster", ".explicitcluster", ".noreturn", ".abi_preserve",
})
_LINKAGE = frozenset({".extern", ".visible", ".weak", ".common"})
_STATE_SPACES = frozenset({".global", ".const", ".shared", ".local", ".param"})
_TEXTURES = frozenset({".tex", ".texref", ".surfref", ".samplerref"})
# words that begin a declaration which names no state space
_STORAGELESS = frozenset({
    ".align", ".v2", ".v4", ".v8", ".pred",
    ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64",
    ".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64",
})


def misplaced(directive: PtxDirective) -> str | None:
    """Why ptxas rejects ``directive`` in a function body, where every asm statement is; None
    where it takes it, or this module cannot tell."""
    name = directive.name
    if name in _MODULE:
        return (f"'{name}' is a directive of the PTX module, and an asm statement is pasted "
                "into a function's body, where ptxas rejects it (a syntax error)")
    if name in _FUNCTION_HEADER:
        return (f"'{name}' belongs to a function's header, and an asm statement is pasted into "
                "the function's body, where ptxas rejects it (a syntax error)")
    if name in _TEXTURES:
        return (f"'{name}' declares a texture, surface or sampler variable, which ptxas takes "
                "only at module or kernel-parameter scope, not in the function body an asm "
                "statement is pasted into")
    if name in _LINKAGE:
        words = directive.text.split()
        if len(words) > 1 and words[1] in _STATE_SPACES:
            return (f"'{name} {words[1]}' declares a variable with linkage, which only a PTX "
                    "module can hold: in the function body an asm statement is pasted into, "
                    "ptxas rejects it (a syntax error)")
        return None  # a function's prototype (.extern .func f;): a body takes it
    if name in _STORAGELESS:
        return (f"a declaration starting '{name}' names no state space: ptxas rejects it "
                "(\"No variable storage specified\"); write '.reg' (or '.local', '.shared') "
                "first")
    return None
