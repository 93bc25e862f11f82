"""A Python function's parameters, and a call's arguments bound to them as Python binds them.

Read by ``helpers`` (a same-module helper's body evaluated with one call's arguments),
``wrappers`` (each use of a same-module wrapper around an API call, read with the arguments
that use gives), ``frontend`` (an API call's arguments by the API's parameter names),
``values`` (a name that is a parameter holds the caller's value, not a module constant; the
fields of ``str.format``) and ``triton_types`` (the ``dtype`` a tensor is built or cast with).
None of them parses a parameter list or binds an argument list itself; each keeps its own
policy for what a binding leaves open (a splat, a parameter no argument gives, a call Python
rejects).

``read_signature`` reads a ``def`` (or ``lambda``) into ``inspect.Parameter``'s five kinds: the
parameters before ``/`` are positional-only, those after ``*`` or ``*args`` keyword-only.
``bind`` follows the language reference's rules for calls, as ``inspect.Signature.bind`` does:
positional arguments fill the positional parameters in order and the rest go to ``*args``;
a keyword argument binds the positional-or-keyword or keyword-only parameter of its name, or
goes to ``**kwargs`` (so does the name of a positional-only parameter); what Python would
reject is listed in ``Binding.errors``, not guessed past. What a splat holds is not known
here: ``*xs`` gives an unknown number of positions, so no positional argument after it binds a
known parameter, and ``**kw`` may give any parameter no argument names.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter

from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.value_class import value_class


class Kind(enum.Enum):
    """A parameter's kind, as ``inspect.Parameter.kind`` names them."""

    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "*args"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "**kwargs"


_POSITIONAL = (Kind.POSITIONAL_ONLY, Kind.POSITIONAL_OR_KEYWORD)
_BY_KEYWORD = (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)
_VARIADIC = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


@value_class(slots=False)
class Parameter:
    name: str
    kind: Kind
    default: tree_sitter.Node | None = None  # the default's expression, where it has one

    @property
    def variadic(self) -> bool:
        """Whether it is ``*args`` or ``**kwargs``: a collection of arguments, not one."""
        return self.kind in _VARIADIC


@value_class(slots=False)
class Signature:
    """A function's parameters in the order of its ``def``."""

    parameters: tuple[Parameter, ...]

    def get(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    @property
    def variadic(self) -> bool:
        """Whether it takes ``*args`` or ``**kwargs``."""
        return any(p.variadic for p in self.parameters)


def api_signature(positional: Iterable[str], var_positional: str | None = None) -> Signature:
    """The signature of a callable known by a table of its parameter names, not by a ``def``
    in the file: ``positional`` as positional-or-keyword parameters, then ``*var_positional``
    where given, and ``**kwargs`` for what the table does not name (``loc=``, ``_builder=``)."""
    parameters = [Parameter(name, Kind.POSITIONAL_OR_KEYWORD) for name in positional]
    if var_positional is not None:
        parameters.append(Parameter(var_positional, Kind.VAR_POSITIONAL))
    parameters.append(Parameter("**kwargs", Kind.VAR_KEYWORD))
    return Signature(tuple(parameters))


def read_signature(parsed: ParsedSource, definition: tree_sitter.Node) -> Signature | None:
    """The parameters of a ``function_definition`` or ``lambda``; None where its parameter list
    holds a form this does not know (a syntax error) or is not one Python accepts."""
    node = definition.child_by_field_name("parameters")
    if node is None:
        return Signature(()) if definition.type == "lambda" else None
    found: list[Parameter] = []
    star = False  # after ``*`` or ``*args``: keyword-only
    for child in node.named_children:
        kind = child.type
        if kind == "comment":
            continue
        if kind == "positional_separator":
            if star or not found or any(p.kind != Kind.POSITIONAL_OR_KEYWORD for p in found):
                return None
            found = [Parameter(p.name, Kind.POSITIONAL_ONLY, p.default) for p in found]
            continue
        if kind == "keyword_separator":
            if star:
                return None
            star = True
            continue
        # ``x: int``, ``*args: int``: the annotation wraps what it annotates
        typed = kind == "typed_parameter" and bool(child.named_children)
        inner = child.named_children[0] if typed else child
        if inner.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            name = _pattern_name(parsed, inner)
            if name is None:
                return None
            if inner.type == "list_splat_pattern":
                if star:
                    return None
                star = True
                found.append(Parameter(name, Kind.VAR_POSITIONAL))
            else:
                found.append(Parameter(name, Kind.VAR_KEYWORD))
            continue
        if any(p.kind == Kind.VAR_KEYWORD for p in found):
            return None  # nothing follows ``**kwargs``
        if kind in ("default_parameter", "typed_default_parameter"):
            ident = child.child_by_field_name("name")
            default = child.child_by_field_name("value")
            if ident is None or ident.type != "identifier" or default is None:
                return None
            name, value = parsed.node_text(ident), default
        elif kind == "identifier" or kind == "typed_parameter" and inner.type == "identifier":
            name, value = parsed.node_text(inner), None
        else:
            return None  # an ERROR node, a tuple pattern: not a parameter list Python 3 takes
        if not star and value is None and any(p.default is not None for p in found):
            return None  # a parameter without a default after one with: a syntax error
        kind_of = Kind.KEYWORD_ONLY if star else Kind.POSITIONAL_OR_KEYWORD
        found.append(Parameter(name, kind_of, value))
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        return None  # a duplicate argument name: a syntax error
    return Signature(tuple(found))


def _pattern_name(parsed: ParsedSource, pattern: tree_sitter.Node) -> str | None:
    names = [c for c in pattern.named_children if c.type != "comment"]
    if len(names) != 1 or names[0].type != "identifier":
        return None
    return parsed.node_text(names[0])


@dataclass
class Binding:
    """A call's arguments as they bind a signature's parameters."""

    # parameter -> the argument that surely gives it (not one of ``*args``/``**kwargs``)
    given: dict[str, tree_sitter.Node] = field(default_factory=dict)
    var_positional: list[tree_sitter.Node] = field(default_factory=list)  # bound to ``*args``
    var_keyword: dict[str, tree_sitter.Node] = field(default_factory=dict)  # to ``**kwargs``
    # a ``*xs`` or ``**kw`` in the call: a parameter not in ``given`` may still be given, and
    # positional arguments after a ``*xs`` bind no known parameter
    splat: bool = False
    # why Python would reject the call, with a TypeError or as a SyntaxError (a parameter no
    # argument gives is ``missing``'s: a partial application leaves some to later calls)
    errors: list[str] = field(default_factory=list)

    def missing(self, signature: Signature) -> list[str]:
        """The parameters without a default that no argument gives; none is counted where a
        splat may give it (any, as what the splat holds is not known here)."""
        if self.splat:
            return []
        return [
            p.name
            for p in signature.parameters
            if not p.variadic and p.default is None and p.name not in self.given
        ]

    def value(self, signature: Signature, name: str) -> tree_sitter.Node | None:
        """The argument that gives parameter ``name``, else its default."""
        if name in self.given:
            return self.given[name]
        parameter = signature.get(name)
        return parameter.default if parameter is not None else None


def bind(
    parsed: ParsedSource, signature: Signature, arguments: tree_sitter.Node, skip: int = 0
) -> Binding:
    """The call's ``arguments`` (an ``argument_list``, or the ``generator_expression`` that is
    a call's only argument) bound to ``signature``, after its first ``skip`` arguments (those
    ``functools.partial`` is given before the function's own)."""
    binding = Binding()
    if arguments.type == "generator_expression":
        items = [arguments]
    else:
        items = [a for a in arguments.named_children if a.type != "comment"]
    positional = [p for p in signature.parameters if p.kind in _POSITIONAL]
    var_positional = any(p.kind == Kind.VAR_POSITIONAL for p in signature.parameters)
    var_keyword = any(p.kind == Kind.VAR_KEYWORD for p in signature.parameters)
    position = 0
    after_list_splat = after_keyword = False
    for arg in items[skip:]:
        if arg.type in ("list_splat", "dictionary_splat"):
            binding.splat = True
            after_list_splat = after_list_splat or arg.type == "list_splat"
            after_keyword = after_keyword or arg.type == "dictionary_splat"
            continue
        if arg.type == "keyword_argument":
            after_keyword = True
            key = arg.child_by_field_name("name")
            value = arg.child_by_field_name("value")
            if key is None or value is None:
                binding.errors.append("a keyword argument that is not one")
                continue
            _bind_keyword(binding, signature, parsed.node_text(key), value, var_keyword)
            continue
        if after_keyword:
            binding.errors.append("positional argument follows keyword argument")
            continue  # a SyntaxError: the call never runs
        if after_list_splat:
            continue  # its position follows an unknown number of others
        if position < len(positional):
            binding.given[positional[position].name] = arg
        elif var_positional:
            binding.var_positional.append(arg)
        else:
            binding.errors.append("too many positional arguments")
        position += 1
    return binding


def _bind_keyword(
    binding: Binding, signature: Signature, name: str, value: tree_sitter.Node, var_keyword: bool
) -> None:
    parameter = signature.get(name)
    if parameter is not None and parameter.kind in _BY_KEYWORD:
        if name in binding.given:
            binding.errors.append(f"multiple values for argument {name!r}")
        else:
            binding.given[name] = value
    elif var_keyword:
        if name in binding.var_keyword:
            binding.errors.append(f"multiple values for keyword argument {name!r}")
        binding.var_keyword[name] = value
    elif parameter is not None and parameter.kind == Kind.POSITIONAL_ONLY:
        binding.errors.append(f"positional-only argument {name!r} passed as keyword")
    else:
        binding.errors.append(f"unexpected keyword argument {name!r}")
