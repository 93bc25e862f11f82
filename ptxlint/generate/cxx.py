"""The CUDA C++ wrapper of a derived statement, and a kernel that calls it.

The wrapper is a ``__device__ __forceinline__`` function. One scalar result is its return
value; several results, and every vector, are reference parameters (arrays by reference, so
the length is part of the type). Immediates are template parameters, checked with a
``static_assert`` against the values the form admits. Its body is compiled where the guard
(:mod:`ptxlint.generate.guard`) admits the target, and traps elsewhere: a call compiled for an
older target fails loudly at run time instead of computing garbage.
"""

from __future__ import annotations

import re

from .derive import AsmOperand, Derived, Parameter
from .guard import condition, described

__all__ = ["function_name", "kernel", "source", "statement", "wrapper"]

_WIDTH = 100  # the operand lists are wrapped to this many columns


def function_name(mnemonic: str) -> str:
    return mnemonic.replace("::", "_").replace(".", "_")


def _returned(derived: Derived) -> Parameter | None:
    """The one scalar result the wrapper returns, if there is exactly one."""
    outs = [p for p in derived.params if p.kind == "out"]
    if len(outs) == 1 and outs[0].count == 0:
        return outs[0]
    return None


def _const_pointer(derived: Derived) -> bool:
    """Whether addresses may be ``const void*``: the instruction only reads memory, or does
    not access it through them (the effects table)."""
    from ptxlint.ptx.effects import lookup

    found = lookup(derived.selected.opcode, derived.selected.modifiers)
    return found is not None and found.memory in ("", "read")


def _declaration(p: Parameter, const_pointer: bool) -> str:
    if p.kind == "addr":
        return f"{'const ' if const_pointer else ''}void* {p.name}"
    if p.count:
        const = "const " if p.kind == "in" else ""
        return f"{const}{p.cxx} (&{p.name})[{p.count}]"
    return f"{p.cxx} {p.name}" if p.kind == "in" else f"{p.cxx}& {p.name}"


def _static_assert(p: Parameter, mnemonic: str) -> str:
    assert p.values is not None
    values = p.values
    if values.choices:
        test = " || ".join(f"{p.name} == {v}" for v in sorted(values.choices))
    else:
        tests = []
        if values.low is not None:
            tests.append(f"{p.name} >= {values.low}")
        if values.high is not None:
            tests.append(f"{p.name} <= {values.high}")
        if values.step > 1:
            tests.append(f"{p.name} % {values.step} == 0")
        test = " && ".join(tests) or "true"
    return f'  static_assert({test}, "{mnemonic}: {p.name} must be {values.describe()}");'


def _operand_list(operands: tuple[AsmOperand, ...], pad: str) -> str:
    """The operands comma-separated, as many on a line as fit in ``_WIDTH`` columns."""
    lines: list[str] = []
    for item in (f'"{o.constraint}"({o.expression})' for o in operands):
        if lines and len(pad) + 2 + len(lines[-1]) + 2 + len(item) <= _WIDTH:
            lines[-1] += ", " + item
        else:
            lines.append(item)
    return f",\n{pad}  ".join(lines)


def _asm(derived: Derived) -> list[str]:
    keyword = "asm volatile(" if derived.volatile else "asm("
    if derived.braces:
        pieces = ['"{\\n\\t"', *(f'"{line}\\n\\t"' for line in derived.lines), '"}"']
    else:
        pieces = [f'"{derived.lines[0]}"']
    pad = " " * (2 + len(keyword))
    out = [f"  {keyword}{pieces[0]}", *(f"{pad}{piece}" for piece in pieces[1:])]
    out.append(f"{pad}: {_operand_list(derived.outputs, pad)}")
    inputs = _operand_list(derived.inputs, pad)
    if derived.memory:
        out.append(f"{pad}: {inputs}")
        out.append(f'{pad}: "memory");')
    else:
        out.append(f"{pad}: {inputs});")
    return [line.rstrip() for line in out]


def wrapper(derived: Derived, name: str | None = None) -> str:
    selected = derived.selected
    name = name or function_name(selected.mnemonic)
    const_pointer = _const_pointer(derived)
    returned = _returned(derived)
    immediates = [p for p in derived.params if p.kind == "imm"]
    arguments = [_declaration(p, const_pointer) for p in derived.params
                 if p.kind != "imm" and p is not returned]
    lines = []
    if immediates:
        lines.append("template <" + ", ".join(f"{p.cxx} {p.name}" for p in immediates) + ">")
    result = returned.cxx if returned is not None else "void"
    lines.append(f"__device__ __forceinline__ {result} {name}({', '.join(arguments)})")
    lines.append("{")
    lines.extend(_static_assert(p, selected.mnemonic) for p in immediates)
    if returned is not None:
        lines.append(f"  {returned.cxx} {returned.name}{{}};")
    lines.append(f"#if {condition(selected.need)}")
    lines.extend(f"  {line}" for line in derived.before)
    lines.extend(_asm(derived))
    lines.extend(f"  {line}" for line in derived.after)
    lines.append("#else")
    lines.append("  __trap();  // the guard's targets and toolkits only")
    lines.append("#endif")
    if returned is not None:
        lines.append(f"  return {returned.name};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def kernel(derived: Derived, name: str | None = None) -> str:
    """A ``__global__`` kernel that calls the wrapper with values of the right types: inputs
    read from and results written to global memory, shared addresses inside a ``__shared__``
    buffer, local ones in a local array, so the statement reaches ptxas."""
    selected = derived.selected
    name = name or function_name(selected.mnemonic)
    returned = _returned(derived)
    params: list[str] = []
    body: list[str] = []
    call: list[str] = []
    shared = [p for p in derived.params if p.kind == "addr" and p.space.startswith("shared")]
    if shared:
        body.append(f"  __shared__ alignas(1024) unsigned char smem[{1024 * len(shared)}];")
    for p in derived.params:
        if p.kind == "imm":
            continue
        if p.kind == "addr":
            if p.space.startswith("shared"):
                call.append(f"smem + {1024 * shared.index(p)}")
            elif p.space == "local":
                body.append(f"  unsigned char {p.name}_local[64];")
                call.append(f"{p.name}_local")
            else:
                params.append(f"void* {p.name}")
                call.append(p.name)
            continue
        element = "int" if p.cxx == "bool" else p.cxx
        if p.kind in ("in", "inout"):
            params.append(f"const {element}* {p.name}_in")
            if p.count:
                body.append(f"  {p.cxx} {p.name}[{p.count}];")
                body.append(f"  for (int i_ = 0; i_ < {p.count}; ++i_) {p.name}[i_] = "
                            f"{p.name}_in[i_];")
            else:
                body.append(f"  {p.cxx} {p.name} = {p.name}_in[threadIdx.x];")
            call.append(p.name)
            if p.kind == "in":
                continue
        params.append(f"{element}* {p.name}_out")
        if p is not returned and p.kind == "out":
            body.append(f"  {p.cxx} {p.name}{f'[{p.count}]' if p.count else ''};")
            call.append(p.name)
    immediates = [str(p.example) for p in derived.params if p.kind == "imm"]
    template = f"<{', '.join(immediates)}>" if immediates else ""
    invocation = f"{name}{template}({', '.join(call)})"
    if returned is not None:
        body.append(f"  {returned.cxx} {returned.name} = {invocation};")
    else:
        body.append(f"  {invocation};")
    for p in derived.params:
        if p.kind not in ("out", "inout"):
            continue
        if p.count:
            body.append(f"  for (int i_ = 0; i_ < {p.count}; ++i_) {p.name}_out[i_] = "
                        f"{p.name}[i_];")
        else:
            body.append(f"  {p.name}_out[threadIdx.x] = {p.name};")
    head = f"__global__ void {name}_kernel({', '.join(params)})"
    return "\n".join([head, "{", *body, "}"]) + "\n"


def source(derived: Derived, name: str | None = None, with_kernel: bool = False) -> str:
    """The whole file ``ptxlint new`` prints: a header comment, the includes, the wrapper and,
    when asked for, the kernel."""
    selected = derived.selected
    form = selected.form.spec.split(";")[0].strip()
    effects = (("volatile" if derived.volatile else "pure")
               + (', "memory"' if derived.memory else ""))
    header = [
        f"// {selected.mnemonic}: written by `ptxlint new` from the instruction grammar",
        f"// form: {form}",
        f"// needs: {described(selected.need)}; effects: {effects}",
        "#include <cstdint>",
        "",
    ]
    parts = ["\n".join(header), wrapper(derived, name)]
    if with_kernel:
        parts.append(kernel(derived, name))
    return "\n".join(parts)


def statement(derived: Derived, snippet: bool = False) -> str:
    """The asm statement alone (with the C++ lines the predicates need), for an editor to
    insert where the cursor is. ``snippet``: in LSP snippet syntax, each parameter a tab stop
    (``${1:addr}``) and ``$``, ``}`` and ``\\`` escaped."""
    lines = [*derived.before, *(line[2:] for line in _asm(derived)), *derived.after]
    text = "\n".join(lines)
    if not snippet:
        return text
    text = text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")
    names = [p.name for p in derived.params]
    for stop, name in enumerate(names, 1):
        text = re.sub(rf"\b{re.escape(name)}\b(?!_bits)", f"${{{stop}:{name}}}", text)
    return text
