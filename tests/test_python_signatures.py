"""A Python ``def``'s parameters and a call's arguments bound to them (``signatures``), checked
against Python's own binder: ``inspect.Signature.bind`` on the same ``def`` compiled here."""

from __future__ import annotations

import ast
import inspect

import pytest
import tree_sitter

from ptxlint.frontends.python.frontend import parse_python
from ptxlint.frontends.python.signatures import Kind, Signature, bind, read_signature
from ptxlint.frontends.syntax_tree import ParsedSource

DEFS = (
    "def f(a, b=2, *, c, d=4): pass",
    "def f(a, b, /, c=3, *args, d, **kwargs): pass",
    "def f(a, /, b=2, **kwargs): pass",
    "def f(a, /, b=2): pass",
    "def f(a: int, *args: int, b: str = 'x', **kw: int): pass",
    "def f(*, ptx, args=None): pass",
    "def f(a, b, *args): pass",
)
CALLS = (
    "f(1)",
    "f(1, 2)",
    "f(1, 2, 3)",
    "f(1, 2, 3, 4, 5)",
    "f(1, c=3)",
    "f(1, 2, c=3, d=5)",
    "f(a=1, c=3)",
    "f(1, a=2, c=3)",
    "f(1, 2, d=5)",
    "f(1, b=2, a=3)",
    "f(1, 2, c=3, e=6)",
    "f(ptx=1)",
    "f(ptx=1, args=2)",
    "f(1, ptx=2)",
    "f(1, 2, b=3)",
    "f(1, a=9)",
    "f(x for x in y)",
)


def _tree(source: str) -> tuple[ParsedSource, tree_sitter.Node, tree_sitter.Node]:
    parsed = parse_python(source)
    definition, statement = parsed.tree.root_node.named_children
    call = statement.named_children[0]
    arguments = call.child_by_field_name("arguments")
    assert definition.type == "function_definition" and arguments is not None
    return parsed, definition, arguments


def _python_binding(definition: str, call: str) -> dict[str, object] | None:
    """What Python binds: each parameter to the source text of its argument(s), or None where
    Python raises TypeError."""
    namespace: dict[str, object] = {}
    exec(definition, namespace)  # a test's own literal ``def``
    parsed_call = ast.parse(call, mode="eval").body
    assert isinstance(parsed_call, ast.Call)
    args = [ast.unparse(a) for a in parsed_call.args]
    kwargs = {k.arg: ast.unparse(k.value) for k in parsed_call.keywords if k.arg is not None}
    function = namespace["f"]
    assert callable(function)
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError:
        return None
    return {name: value for name, value in bound.arguments.items()}


def _our_binding(definition: str, call: str) -> dict[str, object] | None:
    parsed, node, arguments = _tree(f"{definition}\n{call}\n")
    signature = read_signature(parsed, node)
    assert signature is not None
    binding = bind(parsed, signature, arguments)
    assert not binding.splat
    if binding.errors or binding.missing(signature):
        return None
    found: dict[str, object] = {k: parsed.node_text(v) for k, v in binding.given.items()}
    for parameter in signature.parameters:
        if parameter.kind == Kind.VAR_POSITIONAL and binding.var_positional:
            found[parameter.name] = tuple(parsed.node_text(a) for a in binding.var_positional)
        if parameter.kind == Kind.VAR_KEYWORD and binding.var_keyword:
            found[parameter.name] = {k: parsed.node_text(v) for k, v in binding.var_keyword.items()}
    return found


@pytest.mark.parametrize("definition", DEFS)
@pytest.mark.parametrize("call", CALLS)
def test_binding_is_pythons(definition: str, call: str) -> None:
    # the arguments Python binds to each parameter (defaults left out, as ``bind`` leaves
    # them), or a TypeError where Python rejects the call; a generator argument compared by
    # its text (``inspect`` is handed the strings)
    assert _our_binding(definition, call) == _python_binding(definition, call)


def _signature(definition: str) -> Signature | None:
    parsed = parse_python(definition + "\n")
    return read_signature(parsed, parsed.tree.root_node.named_children[0])


def test_parameter_kinds_defaults_and_annotated_splats_are_read() -> None:
    signature = _signature("def f(a, b: int, /, c=1, *args: str, d, e: int = 5, **kw: int): pass")
    assert signature is not None
    assert [(p.name, p.kind) for p in signature.parameters] == [
        ("a", Kind.POSITIONAL_ONLY),
        ("b", Kind.POSITIONAL_ONLY),
        ("c", Kind.POSITIONAL_OR_KEYWORD),
        ("args", Kind.VAR_POSITIONAL),
        ("d", Kind.KEYWORD_ONLY),
        ("e", Kind.KEYWORD_ONLY),
        ("kw", Kind.VAR_KEYWORD),
    ]
    defaults = {p.name: p.default.text for p in signature.parameters if p.default is not None}
    assert defaults == {"c": b"1", "e": b"5"}
    assert signature.variadic


@pytest.mark.parametrize(
    "definition",
    [
        "def f(a=1, b): pass",  # a parameter without a default after one with
        "def f(a, a): pass",
        "def f(*, a, *b): pass",
        "def f(**kw, a): pass",
        "def f(*a, /): pass",
    ],
)
def test_a_parameter_list_python_rejects_is_not_read(definition: str) -> None:
    assert _signature(definition) is None


def test_a_list_splat_leaves_the_positions_after_it_unknown() -> None:
    parsed, definition, arguments = _tree("def f(a, b, c, *, d=0): pass\nf(1, *xs, 3, d=4)\n")
    signature = read_signature(parsed, definition)
    assert signature is not None
    binding = bind(parsed, signature, arguments)
    assert binding.splat and not binding.errors
    # ``3`` follows an unknown number of positions: it is ``b`` only where ``xs`` is empty
    assert {k: parsed.node_text(v) for k, v in binding.given.items()} == {"a": "1", "d": "4"}
    assert binding.missing(signature) == []  # ``xs`` may give ``b`` and ``c``


def test_a_dictionary_splat_may_give_any_parameter_not_named() -> None:
    parsed, definition, arguments = _tree("def f(a, b): pass\nf(1, **kw)\n")
    signature = read_signature(parsed, definition)
    assert signature is not None
    binding = bind(parsed, signature, arguments)
    assert binding.splat and binding.missing(signature) == []
    assert list(binding.given) == ["a"]


def test_a_default_is_the_value_of_a_parameter_no_argument_gives() -> None:
    parsed, definition, arguments = _tree("def f(a, *, b='x'): pass\nf(1)\n")
    signature = read_signature(parsed, definition)
    assert signature is not None
    binding = bind(parsed, signature, arguments)
    b = binding.value(signature, "b")
    assert b is not None and parsed.node_text(b) == "'x'"
    a = binding.value(signature, "a")
    assert a is not None and parsed.node_text(a) == "1"


@pytest.mark.parametrize("call", ["f(a=1, 2)", "f(**kw, 2)"])
def test_a_positional_argument_after_a_keyword_one_is_a_syntax_error(call: str) -> None:
    parsed, definition, arguments = _tree(f"def f(a, b=0): pass\n{call}\n")
    signature = read_signature(parsed, definition)
    assert signature is not None
    binding = bind(parsed, signature, arguments)
    assert binding.errors == ["positional argument follows keyword argument"]
    assert "b" not in binding.given
