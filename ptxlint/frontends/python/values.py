"""What a Python expression's value is, where the source makes it knowable.

Strings are followed through literals, implicit and ``+`` concatenation, names bound in the
enclosing function or at module level (``+=`` chains included), ``tl.constexpr(...)`` and its
``.value``, f-strings, ``str.format``/``str.join`` with knowable pieces, and one call deep into
a function of the same module (:mod:`.helpers`). A binding made under an
``if``/loop/``try`` that does not also hold the use becomes a hole, never a guess; the front
end then reads the call once per branch of such an ``if`` (``choices``), as a C++ statement is
read once per ``#if`` branch, and once per entry of a dict literal the template is looked up in
by a key the program computes (``asm_by_op[op]``).
"""

from __future__ import annotations

import re

import tree_sitter

from ptxlint.frontends.sourced import Sourced, join
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import HOLE, Span
from ptxlint.value_class import value_class

from . import helpers, pystrings
from .signatures import api_signature, bind, read_signature

_MAX_DEPTH = 24
# Resolution steps per file: names that double at every step (`a = b + b; b = c + c; ...`)
# would otherwise cost 2**depth; past the budget a value is a hole.
_MAX_STEPS = 50_000
_UNKNOWN = object()  # a value ``_literal`` cannot know (None is a value it knows)
_SCOPES = ("function_definition", "lambda", "class_definition")
_CONDITIONAL = (
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "match_statement",
    "conditional_expression",
    "list_comprehension",
    "generator_expression",
)
# Constructs that run their body again or bind names around it: a binding inside one, after the
# use, may still be the one the use reads.
_REPEATING = frozenset({
    "for_statement",
    "while_statement",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
})
_CONSTEXPR = re.compile(r"^(?:\w+\.)*constexpr$")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)\}")
_FORMAT = api_signature((), "args")  # str.format(*args, **kwargs)
# A condition that is true on AMD's ROCm/HIP build (`torch.version.hip`, `is_hip()`), or on
# the CUDA build (`torch.version.cuda`): a platform choice, not a runtime value.
_HIP_TEST = re.compile(r"^\s*(?:[\w.]*\bversion\.hip|[\w.]*\bis_(?:hip|rocm)\s*\(\s*\))\s*$")
_CUDA_TEST = re.compile(r"^\s*(?:[\w.]*\bversion\.cuda|[\w.]*\bis_cuda\s*\(\s*\))\s*$")


@value_class(slots=False)
class _Event:
    """One binding of a name inside a scope: ``x = v``, ``x += v`` or anything else."""

    kind: str  # "assign" | "augment" | "other"
    node: tree_sitter.Node  # the statement
    value: tree_sitter.Node | None  # the right-hand side


# Methods that change a list (or dict) in place: a binding they follow is no longer its value.
_MUTATORS = frozenset(
    "append extend insert pop remove clear reverse sort update setdefault __iadd__".split()
)


class Values:
    """Resolves expressions of one parsed Python file; bindings are indexed once per scope."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        self.root = parsed.tree.root_node
        self._events: dict[int, dict[str, list[_Event]]] = {}
        self._params: dict[int, set[str] | None] = {}  # None: not a parameter list Python takes
        self._steps = 0
        self._in_helper = False
        self._shared_names: dict[str, bool] = {}  # (``_shared``: one walk of the module a name)
        # `if` statements read one branch at a time (if_statement id -> branch index: 0 the
        # body, then each elif/else in order, len(branches) none taken), and those whose
        # branches bind a string the last resolution met: the front end reads each branch
        self.choices: dict[int, int] = {}
        self.branch_points: list[tree_sitter.Node] = []
        # a wrapper's parameters as the use being read gives them ((function node id, name)
        # -> the argument at the use, ``wrappers.Use.arguments``): what they hold in its body
        self.arguments: dict[tuple[int, str], tree_sitter.Node] = {}

    # ------------------------------------------------------------------ positions

    def span(self, node: tree_sitter.Node) -> Span:
        return Span(self.parsed.to_char(node.start_byte), self.parsed.to_char(node.end_byte))

    def text(self, node: tree_sitter.Node) -> str:
        return self.parsed.node_text(node)

    # ------------------------------------------------------------------ strings

    def string(self, node: tree_sitter.Node, depth: int = 0) -> Sourced:
        """The string value of ``node`` with its source map; unknown parts are holes."""
        value = self._string(node, depth)
        return value if value is not None else Sourced.hole(self.span(node))

    def _string(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        self._steps += 1
        if depth > _MAX_DEPTH or self._steps > _MAX_STEPS:
            return None
        kind = node.type
        if kind == "string":
            if "b" in pystrings.prefix_of(self.parsed, node):
                return None
            return pystrings.decode(self.parsed, node, lambda field: self._field(field, depth + 1))
        if kind == "concatenated_string":
            return join(
                self.string(child, depth + 1)
                for child in node.named_children
                if child.type != "comment"
            )
        if kind == "parenthesized_expression":
            inner = _only_child(node)
            return self._string(inner, depth + 1) if inner is not None else None
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if operator is None or left is None or right is None or operator.type != "+":
                return None
            return self.string(left, depth + 1) + self.string(right, depth + 1)
        if kind == "identifier":
            return self._name_string(node, depth)
        if kind == "call":
            return self._call_string(node, depth)
        if kind == "conditional_expression":
            return self._conditional(node, depth)
        if kind == "subscript":
            return self._table_entry(node, depth)
        if kind == "attribute":
            return self._constexpr_value(node, depth)
        return None

    def _constexpr_value(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        """``C.value`` where ``C`` is surely ``tl.constexpr(x)``: Triton's constexpr holds the
        value it wraps in ``.value`` (``asm=_CVT.value`` given a module-level
        ``_CVT = tl.constexpr("...")``). Any other ``.value`` stays unknown."""
        attribute = node.child_by_field_name("attribute")
        owner = node.child_by_field_name("object")
        if attribute is None or owner is None or self.text(attribute) != "value":
            return None
        bound = owner if owner.type == "call" else (
            self._single_binding(owner) if owner.type == "identifier" else None
        )
        inner = self.constexpr_argument(bound) if bound is not None else None
        return self._string(inner, depth + 1) if inner is not None else None

    def table_entries(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The entries (``pair`` nodes) of the table a subscript ``node`` looks up: a dict
        literal, spelt there or bound once to the name it subscripts, every entry a ``key:
        value`` (a ``**`` spread has keys no one can list). Empty for anything else."""
        table = node.child_by_field_name("value")
        if table is not None and table.type == "identifier":
            table = self._single_binding(table)
        if table is None or table.type != "dictionary":
            return []
        entries = [c for c in table.named_children if c.type != "comment"]
        return entries if all(e.type == "pair" for e in entries) else []

    def _table_entry(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        """``table[key]`` of a dict literal (:meth:`table_entries`): a known key's entry (a
        string literal, through names); a key the program computes is one entry per reading
        (``choices``: the front end reads the call once per entry, as once per branch of an
        ``if``), a hole until chosen."""
        entries = self.table_entries(node)
        keys = node.children_by_field_name("subscript")
        if not entries or len(keys) != 1:
            return None
        chosen = self.choices.get(node.id)
        if chosen is not None:
            value = entries[chosen].child_by_field_name("value")
            return self._string(value, depth + 1) if value is not None else None
        # a key known here: a literal, a name bound once, a wrapper's parameter as the use
        # being read gives it
        wanted = self.string(keys[0], depth + 1)
        if not wanted.has_holes:
            for entry in entries:
                key = entry.child_by_field_name("key")
                value = entry.child_by_field_name("value")
                if key is None or value is None or key.type != "string":
                    continue
                spelt = self.string(key, depth + 1)
                if not spelt.has_holes and spelt.text == wanted.text:
                    return self._string(value, depth + 1)
            return None
        # a key that names an object (`{Float32: "f32", Int32: "s32"}[dtype]` after `dtype =
        # Float32 if ... else Int32`, the side chosen for this reading), every entry's key
        # another name the module imports or defines: the entry spelt with that name is the
        # one Python's lookup finds (two such names taken for two objects)
        named = self._key_name(keys[0], depth + 1)
        if named is not None:
            spelt_keys = [entry.child_by_field_name("key") for entry in entries]
            names = [self._module_name(key) if key is not None and key.type == "identifier"
                     else None for key in spelt_keys]
            if None not in names:
                for entry, name in reversed(list(zip(entries, names, strict=True))):
                    value = entry.child_by_field_name("value")
                    if name == named:
                        return self._string(value, depth + 1) if value is not None else None
                return None
        if node not in self.branch_points:
            self.branch_points.append(node)
        return None

    def _key_name(self, node: tree_sitter.Node, depth: int) -> str | None:
        """The module-level name ``node`` evaluates to (``_module_name``), through local names
        bound once, a wrapper's parameter as the use being read gives it, and the side of a
        conditional expression its condition or this reading chooses; None otherwise."""
        while depth <= _MAX_DEPTH:
            depth += 1
            if node.type == "parenthesized_expression":
                inner = _only_child(node)
                if inner is None:
                    return None
                node = inner
            elif node.type == "conditional_expression":
                parts = [c for c in node.named_children if c.type != "comment"]
                if len(parts) != 3:
                    return None
                known = self.truth(parts[1], depth)
                chosen = self.choices.get(node.id)
                if known is not None:
                    node = parts[0] if known else parts[2]
                elif chosen is not None:
                    node = parts[0] if chosen == 0 else parts[2]
                else:
                    if node not in self.branch_points:
                        self.branch_points.append(node)
                    return None
            elif node.type == "identifier":
                bound = self._single_binding(node)
                if bound is None:
                    return self._module_name(node)
                node = bound
            else:
                return None
        return None

    def _module_name(self, node: tree_sitter.Node) -> str | None:
        """``node``'s name where it surely names the one object the module imports or defines
        under it (once: an import, a class, a function; an assignment may alias another name),
        no function around ``node`` binding or taking it."""
        name = self.text(node)
        current = node.parent
        while current is not None:
            if current.type in ("function_definition", "lambda") and (
                    self._scope_events(current).get(name) or self._is_parameter(current, name)):
                return None
            current = current.parent
        events = self._scope_events(self.root).get(name, [])
        defining = ("import_statement", "import_from_statement", "class_definition",
                    "function_definition")
        return name if len(events) == 1 and events[0].node.type in defining else None

    def _conditional(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        """``A if torch.version.hip else B``: a choice between platforms, like C++'s ``#if``
        on ``__HIP_PLATFORM_AMD__``. ptxlint lints the CUDA build, so the CUDA side is the value.
        A condition that is a knowable int or bool chooses as Python does; any other condition
        makes each side one reading (``choices``: 0 the value before ``if``, 1 the one after
        ``else``), as the branches of an ``if`` statement, a hole until chosen."""
        parts = [c for c in node.named_children if c.type != "comment"]
        if len(parts) != 3:
            return None
        then, condition, other = parts
        test = self.text(condition)
        if _HIP_TEST.search(test) and not test.lstrip().startswith("not"):
            return self._string(other, depth + 1)
        if _CUDA_TEST.search(test) and not test.lstrip().startswith("not"):
            return self._string(then, depth + 1)
        # a condition whose value is knowable (a literal, through names: a wrapper's flag or
        # string as the use being read gives it) picks its side as Python does, by truth value
        known = self.truth(condition, depth + 1)
        if known is not None:
            return self._string(then if known else other, depth + 1)
        chosen = self.choices.get(node.id)
        if chosen is not None:
            return self._string(then if chosen == 0 else other, depth + 1)
        if node not in self.branch_points:
            self.branch_points.append(node)
        return None

    def conditional_arms(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The two values of a conditional expression (``A if c else B``): ``[A, B]``."""
        parts = [c for c in node.named_children if c.type != "comment"]
        return [parts[0], parts[2]] if len(parts) == 3 else []

    def _field(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        scalar = self.scalar(node, depth)
        if isinstance(scalar, bool) or scalar is None:
            return self._string(node, depth) if scalar is None else None
        if isinstance(scalar, int):
            text = str(scalar)
            span = self.span(node)
            return Sourced(text, [span.start] * len(text), [span.end] * len(text), [])
        return None

    def _name_string(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        name = self.text(node)
        at = node.start_byte  # byte offsets throughout: tree-sitter's
        scope = self.scope_of(node)
        return self._lookup_string(name, scope, at, depth)

    def _lookup_string(
        self, name: str, scope: tree_sitter.Node, at: int, depth: int
    ) -> Sourced | None:
        events = [
            e
            for e in self._scope_events(scope).get(name, [])
            if e.node.end_byte <= at and not self._excluded(e.node, scope, at)
        ]
        if not events:
            if scope == self.root:  # the module (an ERROR node when the file does not parse)
                return None
            if self._is_parameter(scope, name):
                # a parameter: its value comes from the caller, known for the use being read
                given = self.arguments.get((scope.id, name))
                return self._string(given, depth + 1) if given is not None else None
            return self._lookup_string(name, self.root, len(self.parsed.data) + 1, depth + 1)
        value: Sourced | None = None
        for event in events:
            unconditional = self._reaches(event.node, scope, at)
            if event.kind == "other" or event.value is None:
                value = None
                continue
            piece = self.string(event.value, depth + 1)
            if event.kind == "assign":
                if not unconditional:
                    branch = self._branch_statement(event.node, scope, at)
                    if branch.type == "if_statement" and branch not in self.branch_points:
                        self.branch_points.append(branch)
                value = piece if unconditional else Sourced.hole(self.span(event.node))
            elif value is None:
                return None  # `x += ...` on something unknown
            elif unconditional:
                value = value + piece
            else:
                branch = self._branch_statement(event.node, scope, at)
                hole = Sourced.hole(self.span(branch))
                if not (value.pieces and value.pieces[-1].span == hole.pieces[0].span):
                    value = value + hole  # one hole per `if` however many `+=` it holds
        return value

    def _call_string(self, node: tree_sitter.Node, depth: int) -> Sourced | None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        inner = self.constexpr_argument(node)
        if inner is not None:
            return self._string(inner, depth + 1)
        args = [a for a in arguments.named_children if a.type != "comment"]
        if function.type == "identifier" and not self._in_helper:
            # one call deep into a function of this module (never from inside one)
            self._in_helper = True
            try:
                return helpers.helper_string(self, node)
            finally:
                self._in_helper = False
        if function.type != "attribute":
            return None
        receiver = function.child_by_field_name("object")
        method = function.child_by_field_name("attribute")
        if receiver is None or method is None:
            return None
        if self.text(method) == "format":
            return self._format(receiver, arguments, depth)
        if self.text(method) == "join" and len(args) == 1:
            separator = self._string(receiver, depth + 1)
            items = self._sequence(args[0], depth + 1)
            if separator is None or items is None:
                return None
            parts: list[Sourced] = []
            for k, item in enumerate(i for i in items.named_children if i.type != "comment"):
                if k:
                    parts.append(separator)
                parts.append(self.string(item, depth + 1))
            return join(parts)
        return None

    def _sequence(self, node: tree_sitter.Node, depth: int) -> tree_sitter.Node | None:
        """The ``list`` or ``tuple`` display a ``join`` reads: written there, or bound once to
        a name (``"\\n".join(LINES)`` with ``LINES = [...]``), a list only where the module
        does nothing else with the name (:meth:`_shared`)."""
        if node.type in ("list", "tuple"):
            return node
        if node.type != "identifier":
            return None
        bound = self.definition(node, depth)
        if bound is None or bound.type not in ("list", "tuple"):
            return None
        if bound.type == "list" and self._shared(self.text(node)):
            return None
        return bound

    def _shared(self, name: str) -> bool:
        """Whether the module uses ``name`` otherwise than as a binding's target or a
        ``join``'s argument: a method call, an item assignment or a call it is passed to may
        change a list, and a read is not worth telling from those."""
        known = self._shared_names.get(name)
        if known is None:
            known = self._shared_names[name] = self._used_otherwise(name)
        return known

    def _used_otherwise(self, name: str) -> bool:
        stack = [self.root]
        while stack:
            current = stack.pop()
            if current.type == "identifier" and self.text(current) == name:
                parent = current.parent
                if parent is None:
                    return True
                if parent.type in ("assignment", "augmented_assignment") \
                        and parent.child_by_field_name("left") == current:
                    continue
                call = parent.parent if parent.type == "argument_list" else None
                function = call.child_by_field_name("function") if call is not None else None
                attribute = (function.child_by_field_name("attribute")
                             if function is not None and function.type == "attribute" else None)
                if attribute is None or self.text(attribute) != "join" \
                        or len(parent.named_children) != 1:
                    return True
                continue
            stack.extend(current.named_children)
        return False

    def _format(
        self, receiver: tree_sitter.Node, arguments: tree_sitter.Node, depth: int
    ) -> Sourced | None:
        template = self._string(receiver, depth + 1)
        if template is None or template.has_holes:
            return None
        leftover = _FORMAT_FIELD.sub("", template.text)
        if "{" in leftover or "}" in leftover:
            return None  # `{0:x}`, `{a!r}`, `{a[0]}`: formatted, not substituted
        binding = bind(self.parsed, _FORMAT, arguments)
        if binding.splat or binding.errors:
            return None
        positional, keywords = binding.var_positional, binding.var_keyword
        out = Sourced()
        last = 0
        auto = 0
        for m in _FORMAT_FIELD.finditer(template.text):
            out = out + template.slice(last, m.start())
            last = m.end()
            if m.group(1) is None:  # `{{` or `}}`: one brace spelled by both characters
                brace = template.slice(m.start(), m.start() + 1)
                brace.ends = [template.ends[m.end() - 1]]
                out = out + brace
                continue
            name = m.group(1).strip()
            field_span = Span(template.starts[m.start()], template.ends[m.end() - 1])
            target: tree_sitter.Node | None = None
            if name == "":
                target = positional[auto] if auto < len(positional) else None
                auto += 1
            elif name.isdigit():
                index = int(name)
                target = positional[index] if index < len(positional) else None
            elif name.isidentifier():
                target = keywords.get(name)
            substituted = self._field(target, depth + 1) if target is not None else None
            out = out + (substituted if substituted is not None else Sourced.hole(field_span))
        return out + template.slice(last, len(template.text))

    # ------------------------------------------------------------------ scalars and nodes

    def scalar(self, node: tree_sitter.Node, depth: int = 0) -> int | bool | str | None:
        """An int/bool literal (through names and ``constexpr(...)``), or ``None``."""
        target = self.definition(node, depth)
        if target is None:
            return None
        kind = target.type
        if kind == "integer":
            try:
                return int(self.text(target).replace("_", ""), 0)
            except ValueError:
                return None
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "unary_operator" and self.text(target).startswith("-"):
            inner = target.child_by_field_name("argument")
            value = self.scalar(inner, depth + 1) if inner is not None else None
            return -value if isinstance(value, int) and not isinstance(value, bool) else None
        return None

    def truth(self, node: tree_sitter.Node, depth: int = 0) -> bool | None:
        """The truth value Python gives ``node`` where it is knowable: an int/bool literal
        (``scalar``), ``None``, or a string whose text is known to be empty or not (a wrapper's
        ``constraints`` as the use being read gives it: ``",".join(("=r", c)) if c else
        "=r"``); ``None`` otherwise."""
        target = self.definition(node, depth)
        if target is None:
            return None
        if target.type == "not_operator":
            inner = target.child_by_field_name("argument")
            truth = self.truth(inner, depth + 1) if inner is not None else None
            return None if truth is None else not truth
        if target.type == "comparison_operator":
            return self._compared(target, depth + 1)
        value = self._value_of(target, depth)
        if isinstance(value, Sourced):
            if value.text.replace(HOLE, ""):
                return True  # a known character: not empty, whatever the holes hold
            return None if value.has_holes else False
        return None if value is _UNKNOWN else bool(value)

    def _compared(self, node: tree_sitter.Node, depth: int) -> bool | None:
        """``a == b``, ``a != b``, ``a is None``, ``a is not None`` where both sides are
        knowable literals (a string with no unknown part, an int or bool, None)."""
        sides = [c for c in node.named_children if c.type != "comment"]
        operators = [" ".join(self.text(c).split()) for c in node.children if not c.is_named]
        if len(sides) != 2 or len(operators) != 1:
            return None  # a chain (`a < b < c`)
        operator = operators[0]
        left, right = (self._literal(side, depth) for side in sides)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        if operator in ("is", "is not"):
            if left is not None and right is not None:
                return None  # identity of two values: only None's is knowable
            same = left is right
            return same if operator == "is" else not same
        if operator in ("==", "!="):
            same = left == right  # as Python compares them: True == 1, "1" != 1, None != ""
            return same if operator == "==" else not same
        return None

    def _literal(self, node: tree_sitter.Node, depth: int) -> object:
        """The value of ``node`` where it is a knowable literal (through names): a string
        with no unknown part, an int or bool, None; ``_UNKNOWN`` otherwise."""
        target = self.definition(node, depth)
        value = _UNKNOWN if target is None else self._value_of(target, depth)
        if isinstance(value, Sourced):
            return _UNKNOWN if value.has_holes else value.text
        return value

    def _value_of(self, target: tree_sitter.Node, depth: int) -> object:
        """What the expression ``target`` (names already followed: ``definition``) holds: None,
        a string (its text, holes where a part is unknown), an int or bool; ``_UNKNOWN`` for
        anything else."""
        if target.type == "none":
            return None
        if target.type in ("string", "concatenated_string"):
            value = self._string(target, depth + 1)
            return _UNKNOWN if value is None else value
        known = self.scalar(target, depth)
        return _UNKNOWN if known is None or isinstance(known, str) else known

    def definition(self, node: tree_sitter.Node, depth: int = 0) -> tree_sitter.Node | None:
        """Follow names and ``constexpr(x)`` to the expression that surely gives the value."""
        while depth <= _MAX_DEPTH and self._steps <= _MAX_STEPS:
            depth += 1
            self._steps += 1
            if node.type == "parenthesized_expression":
                inner = _only_child(node)
                if inner is None:
                    return None
                node = inner
                continue
            if node.type == "call":
                inner = self.constexpr_argument(node)
                if inner is not None:
                    node = inner
                    continue
                return node
            if node.type != "identifier":
                return node
            bound = self._single_binding(node)
            if bound is None:
                return None
            node = bound
        return None

    def constexpr_argument(
        self, call: tree_sitter.Node, spelled: re.Pattern[str] = _CONSTEXPR
    ) -> tree_sitter.Node | None:
        """``x`` of ``constexpr(x)`` (a call of a function ``spelled`` matches, with one
        argument): a value the DSL fixes when it traces the kernel. None for anything else."""
        if call.type != "call":
            return None
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None or not spelled.match(self.text(function)):
            return None
        args = [a for a in arguments.named_children if a.type != "comment"]
        return args[0] if len(args) == 1 else None

    def _single_binding(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        name = self.text(node)
        at = node.start_byte  # byte offsets throughout: tree-sitter's
        scope = self.scope_of(node)
        if self._rebound_around(node, scope, name):
            return None
        while True:
            events = [
                e
                for e in self._scope_events(scope).get(name, [])
                if e.node.end_byte <= at and not self._excluded(e.node, scope, at)
            ]
            if events:
                last = events[-1]
                if last.kind != "assign" or not self._reaches(last.node, scope, at):
                    return None
                if any(e.kind != "assign" for e in events):
                    return None
                return last.value
            if scope == self.root:
                return None
            if self._is_parameter(scope, name):
                return self.arguments.get((scope.id, name))
            scope = self.root
            at = len(self.parsed.data) + 1

    # ------------------------------------------------------------------ scopes

    def scope_of(self, node: tree_sitter.Node) -> tree_sitter.Node:
        current = node.parent
        while current is not None:
            if current.type in ("function_definition", "lambda"):
                return current
            current = current.parent
        return self.root

    def rebinds(self, scope: tree_sitter.Node, name: str) -> bool:
        """Whether the body of ``scope`` binds ``name`` anywhere (an assignment, ``+=``, a
        loop or ``with`` target...): a parameter it never rebinds holds the caller's value."""
        return bool(self._scope_events(scope).get(name))

    def holds_one_value(self, scope: tree_sitter.Node, name: str) -> bool:
        """Whether ``name`` keeps one value through the body of ``scope``: a parameter it
        never rebinds, or a local it binds once."""
        count = len(self._scope_events(scope).get(name, []))
        return count == 0 if self._is_parameter(scope, name) else count == 1

    def bound_values(self, scope: tree_sitter.Node, name: str) -> list[tree_sitter.Node]:
        """The right-hand sides of the bindings of ``name`` in the body of ``scope`` (``x =
        v``, ``x += v``), in file order."""
        return [e.value for e in self._scope_events(scope).get(name, []) if e.value is not None]

    def _is_parameter(self, scope: tree_sitter.Node, name: str) -> bool:
        """Whether ``name`` is a parameter of the function ``scope`` (its value is the
        caller's); any name may be where its parameter list is not one Python takes."""
        key = scope.id
        if key not in self._params:
            signature = read_signature(self.parsed, scope)
            self._params[key] = (
                None if signature is None else {p.name for p in signature.parameters}
            )
        names = self._params[key]
        return names is None or name in names

    def _scope_events(self, scope: tree_sitter.Node) -> dict[str, list[_Event]]:
        key = scope.id
        if key in self._events:
            return self._events[key]
        table: dict[str, list[_Event]] = {}
        body = scope.child_by_field_name("body") if scope != self.root else scope
        stack = [body] if body is not None else []
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in _SCOPES and node is not body:
                name = node.child_by_field_name("name")
                if name is not None and kind != "lambda":
                    table.setdefault(self.text(name), []).append(_Event("other", node, None))
                continue
            if kind in ("assignment", "augmented_assignment"):
                self._record_assignment(node, table)
            elif kind == "call":
                # `operands.extend(...)`: the list bound earlier no longer says what it holds
                function = node.child_by_field_name("function")
                owner = function.child_by_field_name("object") if function is not None else None
                method = (
                    function.child_by_field_name("attribute") if function is not None else None
                )
                if (
                    owner is not None
                    and owner.type == "identifier"
                    and method is not None
                    and self.text(method) in _MUTATORS
                ):
                    table.setdefault(self.text(owner), []).append(_Event("other", node, None))
            elif kind in ("for_statement", "for_in_clause"):
                left = node.child_by_field_name("left")
                if left is not None:
                    for ident in _identifiers(left):
                        table.setdefault(self.text(ident), []).append(_Event("other", node, None))
            elif kind in ("as_pattern", "named_expression"):
                for ident in _identifiers(node.named_children[-1] if node.named_children else node):
                    table.setdefault(self.text(ident), []).append(_Event("other", node, None))
            elif kind in (
                "global_statement",
                "nonlocal_statement",
                "import_statement",
                "import_from_statement",
            ):
                for ident in _identifiers(node):
                    table.setdefault(self.text(ident), []).append(_Event("other", node, None))
            stack.extend(reversed(node.named_children))
        for events in table.values():
            events.sort(key=lambda e: e.node.start_byte)
        self._events[key] = table
        return table

    def _record_assignment(self, node: tree_sitter.Node, table: dict[str, list[_Event]]) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None:
            return
        if left.type == "identifier":
            name = self.text(left)
            if node.type == "augmented_assignment":
                operator = node.child_by_field_name("operator")
                kind = (
                    "augment" if operator is not None and self.text(operator) == "+=" else "other"
                )
            else:
                kind = "assign" if right is not None and right.type != "assignment" else "other"
            table.setdefault(name, []).append(_Event(kind, node, right))
            return
        for ident in _identifiers(left):
            table.setdefault(self.text(ident), []).append(_Event("other", node, None))

    def _rebound_around(self, use: tree_sitter.Node, scope: tree_sitter.Node, name: str) -> bool:
        """Whether a binding of ``name`` that does not end before ``use`` may still reach it:
        the target of a loop or comprehension that holds the use (``for x in ...: f(x)`` sees
        the loop's ``x``, not an ``x`` bound before the loop or at module level), or a binding
        later in a loop that holds the use (the next iteration reads it: in
        ``for ...: f(x); x = y.to(tl.bfloat16)`` the ``x`` before the loop is only the first
        iteration's; Triton unrolls ``tl.static_range`` loops, so the type may change too)."""
        events = self._scope_events(scope).get(name)
        if not events:
            return False
        at = use.start_byte
        later = [e.node for e in events if e.node.end_byte > at]
        if not later:
            return False
        current = use.parent
        while current is not None and current != scope:
            if current.type in _REPEATING:
                start, end = current.start_byte, current.end_byte
                if any(start <= n.start_byte and n.end_byte <= end for n in later):
                    return True
            current = current.parent
        return False

    def _reaches(self, event: tree_sitter.Node, scope: tree_sitter.Node, at: int) -> bool:
        """Whether the binding surely happens before byte ``at``: no conditional statement
        between it and its scope, unless that statement also holds ``at``."""
        return self._branch_statement(event, scope, at) is event

    def _branch_statement(
        self, event: tree_sitter.Node, scope: tree_sitter.Node, at: int
    ) -> tree_sitter.Node:
        """The outermost conditional statement holding ``event`` but not ``at`` (or ``event``)."""
        found = event
        current = event.parent
        at_byte = at
        while current is not None and current != scope:
            if (
                current.type in _CONDITIONAL
                and not (current.start_byte <= at_byte < current.end_byte)
                # a chosen `if`, or one whose condition the use decides: its branch is taken
                and self._choice(current) is None
            ):
                found = current
            current = current.parent
        return found

    def _choice(self, node: tree_sitter.Node) -> int | None:
        """The branch of ``if`` statement ``node`` the reading takes: the one chosen for it,
        else the one its conditions pick where their truth is knowable (``if constraints:``
        with the string the use being read gives), -1 where they all fail and there is no
        ``else``; None for anything else."""
        chosen = self.choices.get(node.id)
        if chosen is not None or node.type != "if_statement":
            return chosen
        owners = [node, *(c for c in branches(node)[1:] if c.type == "elif_clause")]
        for index, owner in enumerate(owners):
            condition = owner.child_by_field_name("condition")
            truth = self.truth(condition) if condition is not None else None
            if truth is None:
                return None
            if truth:
                return index
        return len(owners) if len(branches(node)) > len(owners) else -1

    def _excluded(self, event: tree_sitter.Node, scope: tree_sitter.Node, at: int) -> bool:
        """The binding sits in a branch of a chosen ``if`` (or one its conditions decide)
        other than the one taken."""
        child = event
        current = event.parent
        while current is not None and current != scope:
            chosen = self._choice(current)
            if (
                chosen is not None
                and not (current.start_byte <= at < current.end_byte)
                and branch_index(current, child) != chosen
            ):
                return True
            child = current
            current = current.parent
        return False


def branches(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """An ``if`` statement's branches: its body, then each ``elif``/``else`` clause."""
    body = node.child_by_field_name("consequence")
    out = [body] if body is not None else []
    out.extend(node.children_by_field_name("alternative"))
    return out


def branch_index(node: tree_sitter.Node, child: tree_sitter.Node) -> int | None:
    """Which branch of ``if`` statement ``node`` its direct child ``child`` is (None: the
    condition)."""
    for k, branch in enumerate(branches(node)):
        if branch.id == child.id:
            return k
    return None


def never_passes(point: tree_sitter.Node, branch: tree_sitter.Node) -> bool:
    """Whether control that takes ``branch`` of ``if`` statement ``point`` never runs past
    ``point``: the branch ends in a ``return`` or ``raise`` (or in an ``if`` with an ``else``
    whose every branch does). A use after ``point`` then never sees what that branch binds
    (``else: return`` after ``op = ""`` leaves the ``""`` to no call). Not where the function
    runs code on the way out between ``point`` and its scope: a ``try`` (an ``except`` or
    ``finally`` clause may run the use), nor a ``raise`` inside a ``with`` (its context
    manager may swallow the exception)."""
    raises_leave = True
    current = point.parent
    while current is not None and current.type not in _SCOPES:
        if current.type == "try_statement":
            return False
        if current.type == "with_statement":
            raises_leave = False
        current = current.parent
    return _ends_leaving(branch, raises_leave)


def _ends_leaving(branch: tree_sitter.Node, raises_leave: bool) -> bool:
    """Whether the block of ``branch`` (an ``if`` body, an ``elif`` or ``else`` clause) ends
    in a statement after which control cannot run on."""
    block = branch if branch.type == "block" else (
        branch.child_by_field_name("consequence") or branch.child_by_field_name("body"))
    if block is None:
        return False
    statements = [c for c in block.named_children if c.type != "comment"]
    if not statements:
        return False
    last = statements[-1]
    if last.type == "return_statement" or (raises_leave and last.type == "raise_statement"):
        return True
    if last.type != "if_statement":
        return False
    arms = branches(last)
    return (any(arm.type == "else_clause" for arm in arms)
            and all(_ends_leaving(arm, raises_leave) for arm in arms))


def _only_child(node: tree_sitter.Node) -> tree_sitter.Node | None:
    children = [c for c in node.named_children if c.type != "comment"]
    return children[0] if len(children) == 1 else None


def _identifiers(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    if node.type == "identifier":
        return [node]
    out: list[tree_sitter.Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            out.append(current)
        elif current.type not in ("attribute", "subscript"):
            stack.extend(current.named_children)
    return out
