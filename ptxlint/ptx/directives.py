"""Which PTX directives there are, and which of them a function body cannot hold.

An asm statement's template is pasted into the body of the function nvcc writes for its
C++ function, so its directives are statement-level ones: ``.reg``, ``.local``, ``.shared``,
``.const``, ``.global`` and ``.param`` variables, ``.pragma``, ``.loc``, a labelled
``.callprototype``, ``.calltargets`` or ``.branchtargets``, ``.alias``, and a function's
prototype (``.extern .func f;``). What belongs to the module or to a function's header is a
ptxas error there, checked with ptxas 13.0 in a kernel's body, each on its own:

* the module's own directives (``.version``, ``.address_size``, ``.file``, ``.section``) and a
  function's header directives (``.entry``, ``.maxnreg``, ``.maxntid``, ``.reqntid``,
  ``.minnctapersm``, ``.maxnctapersm``, ``.maxclusterrank``, ``.reqnctapercluster``,
  ``.explicitcluster``, ``.blocksareclusters``, ``.noreturn``, ``.abi_preserve``,
  ``.abi_preserve_control``): "Parsing error ... syntax error";
* a variable declared with linkage (``.extern .shared .align 16 .b8 smem[];``, ``.visible``,
  ``.weak``, ``.common``): a variable with linkage is a module's, "syntax error";
* texture, surface and sampler variables (``.tex``, ``.texref``, ``.surfref``,
  ``.samplerref``): "must be at module or entry parameter scope";
* ``.sreg``, the special registers' state space, which declares nothing: "syntax error";
* a declaration with no state space (``.b32 x;``, ``.pred p;``, ``.align 16 .b8 x;``,
  ``.v4 .b32 v;``): "No variable storage specified".

:func:`unknown` names a directive the PTX ISA does not have (``.regg``, ``.shraed``, ``.REG``,
``.L1:``, whose name PTX cannot start with a dot): ptxas 13.0 rejects each ("Parsing error
near '.regg': syntax error"). The ISA's directives are the table of its "Directive
Statements" section (ISA 9.x) and those its Directives chapter adds beyond it
(``.abi_preserve``, ``.abi_preserve_control``, ``.blocksareclusters``, ``.attribute``); the
words that begin a declaration (types, ``.v4``, ``.align``) are the declarations' own.
``.target`` in a body assembles (without its ';'): a known name outside these lists is left
alone.
"""

from __future__ import annotations

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE, PtxDirective

__all__ = ["DIRECTIVES", "misplaced", "unknown"]

_MODULE = frozenset({".version", ".address_size", ".file", ".section"})
_FUNCTION_HEADER = frozenset({
    ".entry", ".maxnreg", ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
    ".maxclusterrank", ".reqnctapercluster", ".explicitcluster", ".blocksareclusters",
    ".noreturn", ".abi_preserve", ".abi_preserve_control",
})
_LINKAGE = frozenset({".extern", ".visible", ".weak", ".common"})
_STATE_SPACES = frozenset({".global", ".const", ".shared", ".local", ".param"})
_TEXTURES = frozenset({".tex", ".texref", ".surfref", ".samplerref"})
# the PTX ISA's directives: the "PTX Directives" table of its Syntax chapter (ISA 9.x), and the
# ones its Directives chapter adds beyond that table
DIRECTIVES = frozenset({
    ".address_size", ".alias", ".align", ".branchtargets", ".callprototype", ".calltargets",
    ".common", ".const", ".entry", ".explicitcluster", ".extern", ".file", ".func", ".global",
    ".loc", ".local", ".maxclusterrank", ".maxnctapersm", ".maxnreg", ".maxntid",
    ".minnctapersm", ".noreturn", ".param", ".pragma", ".reg", ".reqnctapercluster", ".reqntid",
    ".section", ".shared", ".sreg", ".target", ".tex", ".version", ".visible", ".weak",
    ".abi_preserve", ".abi_preserve_control", ".blocksareclusters", ".attribute",
})
# A directive's name as PTX spells one: a dot, then an identifier's characters; what a macro,
# an f-string field or a "C" operand fills in ('.%1', '.{space}') is not a name yet.
_NAME = on_first_use(r"\.[A-Za-z_][A-Za-z0-9_]*\Z")
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
    if name == ".sreg":
        return ("'.sreg' is the state space of the special registers (%tid, %laneid...), "
                "which PTX declares itself: ptxas rejects a declaration there (a syntax "
                "error)")
    if name in _STORAGELESS:
        return (f"a declaration starting '{name}' names no state space: ptxas rejects it "
                "(\"No variable storage specified\"); write '.reg' (or '.local', '.shared') "
                "first")
    return None


def unknown(directive: PtxDirective) -> str | None:
    """Why ptxas rejects ``directive``'s name, one the PTX ISA does not have, with the nearest
    known name where one is close; None for a known name (or a word that begins a declaration:
    a type, ``.v4``, ``.align``) and for a name not yet whole (a hole or '%' right after it)."""
    name = directive.name
    if name in DIRECTIVES or name in _STORAGELESS or name in _TEXTURES:
        return None
    rest = directive.text[len(name):len(name) + 1]
    if not _NAME().match(name) or rest in (HOLE, "%", "$", "{"):
        return None
    from ptxlint.ptx.grammar import POSITIONAL_TYPES  # only for a name outside the table

    if name[1:] in POSITIONAL_TYPES:
        return None
    if rest == ":" and directive.text[len(name) + 1:len(name) + 2] != ":":
        return (f"'{name}:' is not a PTX label: a PTX identifier cannot start with '.', and "
                "ptxas reads the line as a directive it does not know (a syntax error)")
    return (f"'{name}' is not a PTX directive: ptxas rejects it (a syntax error)"
            f"{_nearest(name)}")


def _nearest(name: str) -> str:
    lowered = name.lower()
    if lowered != name and lowered in DIRECTIVES:
        return f" (did you mean '{lowered}'? directives are lower case)"
    import difflib  # only for an unknown name: most runs never ask it

    close = difflib.get_close_matches(lowered, sorted(DIRECTIVES), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""
