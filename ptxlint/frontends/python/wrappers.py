"""Calls of a same-module wrapper that passes its own parameter on as (or into) the asm
template.

CuTe DSL and Triton code often puts the API call in a small function and gives it the template
at each use (``def _asm(res, ptx, constraints, args): return llvm.inline_asm(res, args, ptx,
constraints, has_side_effects=False)``, then ``_asm(T.i32(), "cvt.rn...", "=r,f", [x])``). The
call inside the wrapper spells no template: what runs is the wrapper's body with each use's
arguments, so each use of the wrapper in the module is read as one statement, the API call's
arguments that are the wrapper's parameters taken from the use (or the parameter's default),
the others from the wrapper's body. The statement sits at the use, where the asm ends up after
the DSL traces through the wrapper; the template keeps its exact source positions there.

The template may also be built from the wrapper's parameters (``f"{op}.bf16x2 $0, $1;"``,
``_LDQ + suffix + " {$0}, [$1];"``): each use is then read with those parameters bound to the
arguments it gives (``Use.arguments``, which ``Values`` reads where the wrapper's body names
them), as Python evaluates the expression on that call; a literal piece keeps its position in
the wrapper, a parameter's value its position at the use.

Followed only where it is sure: the template argument is a parameter of a module-level
``def`` that its body never rebinds (bare, or named in the expression that builds the
template), the name is bound only by that ``def``, the call is not inside an ``if`` arm, a
loop or a ``try`` of the wrapper (which of two calls a use reaches may depend on its other
arguments), and a use passes its arguments without ``*``/``**`` and as Python accepts them
(``signatures``); a use that does not bind the template is left out. A wrapper no use of the
module reaches stays a call with an unknown template, as before.
"""

from __future__ import annotations

import re

import tree_sitter

from ptxlint.value_class import value_class

from .helpers import module_function
from .signatures import Binding, Signature, bind, read_signature
from .values import Values

_MAX_USES = 64  # uses read per wrapper


@value_class(slots=False)
class Use:
    """One use of the wrapper: its call node, the API call's arguments as that use binds
    them (parameter name of the API -> node), and the wrapper's parameters that the API
    call's arguments are built from, as that use gives them ((wrapper node id, parameter
    name) -> node at the use)."""

    node: tree_sitter.Node
    bound: dict[str, tree_sitter.Node]
    arguments: dict[tuple[int, str], tree_sitter.Node]


def wrapper_uses(
    values: Values, call: tree_sitter.Node, bound: dict[str, tree_sitter.Node], asm_param: str
) -> list[Use] | None:
    """The uses of the wrapper around ``call`` whose template parameter ``bound[asm_param]``
    is, each with the API call's arguments it binds; None where ``call`` is no such wrapper's
    (or no use of the module binds its template)."""
    asm = bound.get(asm_param)
    if asm is None:
        return None
    wrapper = values.scope_of(call)
    if wrapper.type != "function_definition" or not _module_level(wrapper):
        return None
    if not _unconditional(call, wrapper):
        return None
    name_node = wrapper.child_by_field_name("name")
    if name_node is None:
        return None
    name = values.text(name_node)
    if module_function(values, name) != wrapper:
        return None
    signature = read_signature(values.parsed, wrapper)
    if signature is None:
        return None
    named = {p.name for p in signature.parameters if not p.variadic}
    forwarded = {
        api_param: values.text(node)
        for api_param, node in bound.items()
        if node.type == "identifier"
        and values.text(node) in named
        and values.scope_of(node) == wrapper
        and not values.rebinds(wrapper, values.text(node))
    }
    # a template built from parameters: the names its expression reads from the use
    bare = forwarded.get(asm_param) == values.text(asm)
    built = [] if bare else _names_in(values, asm, wrapper, named)
    if not bare and not built:
        return None
    # and the other arguments built from parameters, read as the use gives them too
    # (``",".join(("=r", constraints)) if constraints else "=r"``: which side is the
    # constraint string depends on the use's)
    for api_param, node in bound.items():
        if api_param != asm_param and api_param not in forwarded:
            built.extend(n for n in _names_in(values, node, wrapper, named) if n not in built)
    uses: list[Use] = []
    for site, skip in _call_sites(values, name, wrapper):
        binding = _bind(values, signature, site, skip)
        if binding is None:
            continue
        use_bound = dict(bound)
        for api_param, parameter in forwarded.items():
            value = binding.value(signature, parameter)
            if value is None:
                del use_bound[api_param]
            else:
                use_bound[api_param] = value
        arguments = {
            (wrapper.id, name): value
            for name in built
            if (value := binding.value(signature, name)) is not None
        }
        if asm_param in use_bound:
            uses.append(Use(site, use_bound, arguments))
        if len(uses) >= _MAX_USES:
            break
    return uses or None


# What may leave the call out of a use's run: which arm or iteration runs depends on the use
# (`if pure: llvm.inline_asm(..., has_side_effects=False) else: ...`: a use passing an impure
# template takes the other call).
_CONDITIONAL = frozenset(
    "if_statement elif_clause else_clause conditional_expression boolean_operator for_statement"
    " while_statement try_statement except_clause finally_clause match_statement case_clause"
    " list_comprehension set_comprehension dictionary_comprehension generator_expression"
    .split()
)


def _unconditional(call: tree_sitter.Node, wrapper: tree_sitter.Node) -> bool:
    """Whether every run of the wrapper makes the call, unless it raises first: no arm, loop
    or ``try`` holds it, and no ``return`` comes before it (``if not pure: return
    llvm.inline_asm(..., has_side_effects=True)`` ahead of the pure call)."""
    node = call.parent
    while node is not None and node != wrapper:
        if node.type in _CONDITIONAL:
            return False
        node = node.parent
    if node != wrapper:
        return False
    body = wrapper.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        current = stack.pop()
        if current.start_byte >= call.start_byte:
            continue
        if current.type == "return_statement" and current.end_byte <= call.start_byte:
            return False
        if current.type not in ("function_definition", "lambda", "class_definition"):
            stack.extend(current.named_children)
    return True


def _names_in(
    values: Values, node: tree_sitter.Node, wrapper: tree_sitter.Node, parameters: set[str]
) -> list[str]:
    """The wrapper's parameters that expression ``node`` reads in the wrapper's own scope
    (not in a lambda or comprehension of its own), itself or through the wrapper's locals
    (``ptx = f"{op}.f32 $0, $1;"``), and that the body never rebinds."""
    found: list[str] = []
    followed: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            name = values.text(current)
            if values.scope_of(current) != wrapper:
                continue
            if name in parameters:
                if name not in found and not values.rebinds(wrapper, name):
                    found.append(name)
            elif name not in followed:
                followed.add(name)
                stack.extend(values.bound_values(wrapper, name))
            continue
        stack.extend(current.named_children)
    return found


def _module_level(definition: tree_sitter.Node) -> bool:
    parent = definition.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    return parent is not None and parent.type == "module"


def _call_sites(
    values: Values, name: str, wrapper: tree_sitter.Node
) -> list[tuple[tree_sitter.Node, int]]:
    """The calls ``name(...)`` of the module outside the wrapper itself, in file order, and
    its partial applications (``partial(name, ptx_string="...")``: CUTLASS's multimem
    variants), each with how many of its leading arguments are not the wrapper's (the
    function ``partial`` is given)."""
    parsed = values.parsed
    sites: list[tuple[tree_sitter.Node, int]] = []
    for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\b", parsed.text):
        byte = parsed.to_byte(m.start())
        node = values.root.descendant_for_byte_range(byte, byte + len(name))
        if node is None or node.type != "identifier":
            continue
        site, skip = node.parent, 0
        if site is not None and site.type == "argument_list" and site.named_children[0] == node:
            site, skip = site.parent, 1
            function = site.child_by_field_name("function") if site is not None else None
            if function is None or values.text(function) not in ("partial", "functools.partial"):
                continue
        elif site is None or site.type != "call" or site.child_by_field_name("function") != node:
            continue
        if site is None or wrapper.start_byte <= site.start_byte < wrapper.end_byte:
            continue
        sites.append((site, skip))
    return sites


def _bind(
    values: Values, signature: Signature, site: tree_sitter.Node, skip: int = 0
) -> Binding | None:
    """The wrapper's parameters the use gives (after its first ``skip`` arguments); None where
    the use splats its arguments or is a call Python rejects. A parameter the use leaves out
    takes its default, or is not given (a partial application gives some only)."""
    arguments = site.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    binding = bind(values.parsed, signature, arguments, skip)
    return None if binding.splat or binding.errors else binding
