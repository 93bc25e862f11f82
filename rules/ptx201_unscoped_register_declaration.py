"""PTX201 unscoped-register-declaration."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.emission import declared_once
from ptxlint.analysis.split_scopes import inside_split_scope
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Fix, Severity
from ptxlint.ptx.layout import wrap_in_braces
from ptxlint.rule import Rule, RuleContext

from ._copies import second_copy


def wrap_fix(statement: AsmStatement, what: str) -> Fix | None:
    edits = wrap_in_braces(statement)
    if edits is None:
        return None
    return Fix(f"wrap the template in '{{ }}' so {what} is local to each copy", edits, safe=True)


class UnscopedRegisterDeclaration(Rule):
    id = "PTX201"
    name = "unscoped-register-declaration"
    pure = True  # reads the file's other statements only where the template declares unscoped
    scope = "file"  # a scope an earlier statement opens holds this one's declarations
    severity = Severity.WARNING
    needs = ("directives",)
    summary = "Register or variable declared outside '{ }' in an asm template"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags `.reg`, `.local`, `.shared` and `.param` declarations at brace depth 0 of an asm template,
that is, not inside a `{ }` scope of the template itself. Names spelled with `%=` (`t%=`), which
nvcc makes unique per emitted copy, are not flagged, nor is asm at file scope.

One defect, one finding: the missing braces. The finding names every such declaration of the
template, and its labels outside braces too (PTX202 is silent then: one set of braces scopes
them all).

Nor does it flag a statement that stands inside a scope an earlier statement of its function
opens and a later one closes, both `volatile` or without outputs (`asm("{");` ...
`asm(".reg .pred p;");` ... `asm("}");`, sppark's field arithmetic): that scope is the
braces, and each emitted copy of the function has its own (`ptxlint.analysis.split_scopes`).

A template with a hole (a macro ptxlint cannot read, a Python value built at run time) is read up
to its first hole: a declaration that ends before it stands at the depth the braces before it
give, whatever the hole holds. So does an LLVM-syntax declaration whose one name is the hole
(Numba's `f".reg .pred {temp_reg};"`, the name from a helper) where the compiler copies the
statement as built (llvmlite and Julia, whose functions LLVM inlines into each caller; Triton's
family, placed once per `pack` elements): a name a Python module builds is the same in every
such copy unless the template spells `${:uid}`, and a module that never spells it builds none
that does. A CuTe DSL helper is traced again at each call, its template built anew, so a name
its caller passes (`declare_ptx_idesc(op, var_name=...)`) says nothing; nor does a C++ macro as
the name (it may expand to a `%=` name), nor a declaration after the first hole (the hole may
open a scope).

Nor does it flag a statement emitted once into its PTX function
(`ptxlint.analysis.emission`): one of a `__global__` function's own body, outside every loop,
lambda and `goto` of it. A kernel is an entry, never inlined (a launch is no call), and each
instantiation of a kernel template is an entry of its own; nvcc 13.0 builds two kernels, or two
instantiations of one, that each declare `.reg .f32 v;` outside braces.

Two statements of one function, compiled together, that define one name outside braces collide
in its PTX however often it is emitted (both arms of a plain `if` are emitted; one arm of an
`if constexpr`, or of an `#if`, is not): the later one's finding names the earlier one, which
ptxas reads first, and in a kernel the earlier one is silent.

## Why is this bad?
The template is pasted into the enclosing function's PTX. A declaration outside braces lands in
the function's scope, so as soon as the statement is emitted twice — the function is inlined at
two call sites, or the loop around it is unrolled — ptxas sees the name declared twice and stops:
`error: Duplicate definition of variable 't'`. The code compiles today only as long as nobody
calls it twice.

## Example
```cuda
asm(".reg .b32 t;\\n\\t"
    "add.u32 t, %1, 1;\\n\\t"
    "mov.u32 %0, t;" : "=r"(r) : "r"(x));
```

## Use instead
```cuda
asm("{\\n\\t.reg .b32 t;\\n\\t"
    "add.u32 t, %1, 1;\\n\\t"
    "mov.u32 %0, t;\\n\\t}" : "=r"(r) : "r"(x));
```

## Fix safety
The fix inserts `{` after the opening quote of the first string piece and `}` before the closing
quote of the last, in the file's own line-break style. It is offered only when both ends are
string literals (not macros). It is safe: a name declared by this template is only visible to
later asm statements by accident of emission order. A template that declares names it never uses
itself (a declaration meant for *another* asm statement) gets no fix: scoping would break the
other statement. Nor does a template with a hole: the hole may hold a brace, or
use the name.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        found = analysis_of(statement).unscoped
        if found is None or not found.declarations:
            return
        if inside_split_scope(statement, context.file_statements):
            return
        if declared_once(statement, context):
            return  # a kernel's statement outside loops: its one copy in the entry
        # Names this template never uses are meant for another asm statement (a declaration,
        # or a label another statement branches to): scoping them would break that statement,
        # so no fix.
        fix = wrap_fix(statement, "the declaration") if found.all_used else None
        names: dict[str, list[str]] = {}
        for directive in found.declarations:
            names.setdefault(directive.name, []).extend(
                f"'{n}'" for n in found.names(directive))
        what = "; ".join(f"'{name}' declares {', '.join(listed)}" for name, listed in names.items())
        if found.labels:
            labels = ", ".join(f"'{label.name}'" for label in found.labels)
            what += f" (and label{'s' if len(found.labels) > 1 else ''} {labels})"
        first = found.declarations[0].start
        yield self.finding(
            statement,
            self.template_span(statement, first, first + len(found.declarations[0].name)),
            f"{what} outside '{{ }}': "
            + second_copy(statement, context)
            + " is a duplicate definition; wrap the template in braces",
            fix=fix,
        )

