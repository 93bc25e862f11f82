"""The toolkit-version tests a Python call site sits under, as the guards a C++ statement has.

CuTe DSL code chooses its PTX by the CUDA version the DSL was built on, which is the toolkit
whose ptxas assembles it (``cutlass.CUDA_VERSION``, a ``DSLCudaVersion`` of two ``int``s,
``major`` and ``minor``; ``cutlass.target_version(min_version="13.1")``, true when
``CUDA_VERSION >= DSLCudaVersion("13.1")``). flashinfer binds such a test to a module-level name
(``_HAS_DIRECT_FP4_TO_BF16_CVT = cutlass.CUDA_VERSION.major > 13 or (... .minor >= 2)``) and
picks the template by it; CUTLASS's own wrappers open with ``if not target_version(...): raise``.

Each test this module can read exactly becomes a condition in the C preprocessor's spelling
(``__CUDACC_VER_MAJOR__ > 13``, ``CUDA_VERSION >= 13010``) in ``Context.guards``, the one
guard model every rule reads (``ptxlint.ptx.targets``, ``ptxlint.ptx.toolkit``): PTX204,
PTX403 and the rest then judge the call as they judge C++ under ``#if CUDA_VERSION >= 13010``.
So does a literal that a condition reaches through names (``use_native = False`` ... ``if
use_native and ...``: ``0 /* use_native = False */``): an arm no run takes, whose findings are
latent (``analysis.latent``), as under ``#if 0``.
A condition it cannot read is left out, never guessed: a guard left out only weakens what the
statement's guards say, as an ``if`` whose condition is unknown. Nothing is executed.

Left out on purpose: ``torch.version.cuda`` (the CUDA PyTorch was built with, not the ptxas of
Triton's wheel or of the DSL) and device-capability tests (``get_device_capability()``, a
module's arch attribute): they do not say whether the target is ``sm_90`` or ``sm_90a``, which
an arch guard must.
"""

from __future__ import annotations

import re

import tree_sitter

from .values import Values, branches, never_passes

__all__ = ["branch_guards", "site_guards"]

# Where the DSL's CUDA version object and its range test are exported (CUTLASS's
# python/CuTeDSL/cutlass/__init__.py, base_dsl/__init__.py, base_dsl/version_info.py).
_VERSION_OBJECTS = frozenset({
    "cutlass.CUDA_VERSION",
    "cutlass.base_dsl.CUDA_VERSION",
    "cutlass.base_dsl.version_info.CUDA_VERSION",
})
_RANGE_TESTS = frozenset({
    "cutlass.target_version",
    "cutlass.cutlass_dsl.target_version",
    "cutlass.base_dsl.target_version",
    "cutlass.base_dsl.common.target_version",
})
_FIELD_MACROS = {"major": "__CUDACC_VER_MAJOR__", "minor": "__CUDACC_VER_MINOR__"}
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# DSLCudaVersion(str) reads the first two dot-separated fields as ints; fewer raise.
_VERSION_TEXT = re.compile(r"(\d+)\.(\d+)(?:\.\d+)*")
_CONSTEXPR = re.compile(r"^(?:\w+\.)*const_?expr$")  # CuTe DSL spells it const_expr too
_MAX_DEPTH = 12


class _Reader:
    """Reads one file's conditions; ``imports`` maps a local name to its dotted origin."""

    def __init__(self, values: Values, imports: dict[str, str]) -> None:
        self.values = values
        self.imports = imports
        self._assigned: dict[str, bool] = {}

    def condition(self, node: tree_sitter.Node, depth: int = 0) -> str | None:
        """``node`` as one C condition of the same truth value, or None where any part of it
        is not a toolkit-version test this module reads exactly."""
        if depth > _MAX_DEPTH:
            return None
        kind = node.type
        if kind == "parenthesized_expression":
            inner = _only_child(node)
            return self.condition(inner, depth + 1) if inner is not None else None
        if kind == "not_operator":
            argument = node.child_by_field_name("argument")
            value = self.condition(argument, depth + 1) if argument is not None else None
            return _negated(value) if value is not None else None
        if kind == "boolean_operator":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if left is None or right is None or operator is None:
                return None
            first = self.condition(left, depth + 1)
            second = self.condition(right, depth + 1) if first is not None else None
            if first is None or second is None:
                return None
            joiner = "&&" if self.values.text(operator) == "and" else "||"
            return f"({first}) {joiner} ({second})"
        if kind in ("true", "false", "integer"):
            # a literal (``if False:``): its truth value, as the preprocessor spells it
            truth = self.values.scalar(node)
            return None if truth is None else ("1" if truth else "0")
        if kind == "comparison_operator":
            return self._comparison(node)
        if kind == "call":
            inner = self._constexpr_argument(node)
            if inner is not None:
                return self.condition(inner, depth + 1)
            return self._range_test(node)
        if kind == "identifier":
            bound = self.values.definition(node)
            if bound is None or bound.type == "identifier":
                return None
            if bound.type in ("true", "false", "integer"):
                # a flag bound once to a literal (``use_native = False`` ... ``if use_native
                # and ...``): its truth value, the binding named for the reader
                truth = self.condition(bound, depth + 1)
                words = " ".join(f"{self.values.text(node)} = {self.values.text(bound)}".split())
                return None if truth is None else f"{truth} /* {words.replace('*/', '')} */"
            return self.condition(bound, depth + 1)
        return None

    def conjuncts(self, node: tree_sitter.Node, depth: int = 0) -> list[str]:
        """What holds where ``node`` is true, as separate conditions: each readable operand
        of an ``and`` (``if is_fp4 and CUDA_VERSION.major >= 13`` still says the toolkit is
        13.0 or newer), the whole condition otherwise."""
        if depth > _MAX_DEPTH:
            return []
        target = node
        while target.type == "parenthesized_expression":
            inner = _only_child(target)
            if inner is None:
                return []
            target = inner
        if target.type == "call":
            inner = self._constexpr_argument(target)
            if inner is not None:
                return self.conjuncts(inner, depth + 1)
        if target.type == "identifier":
            bound = self.values.definition(target)
            if bound is not None and bound.type in ("true", "false", "integer"):
                flag = self.condition(target, depth + 1)  # named as bound
                return [flag] if flag is not None else []
            if bound is not None and bound.type != "identifier":
                return self.conjuncts(bound, depth + 1)
            return []
        operator = target.child_by_field_name("operator")
        if (
            target.type == "boolean_operator"
            and operator is not None
            and self.values.text(operator) == "and"
        ):
            out: list[str] = []
            for side in ("left", "right"):
                part = target.child_by_field_name(side)
                if part is not None:
                    out.extend(self.conjuncts(part, depth + 1))
            return out
        whole = self.condition(target, depth + 1)
        return [whole] if whole is not None else []

    def negation(self, node: tree_sitter.Node) -> list[str]:
        """What holds where ``node`` is false: its negation where all of it is read."""
        whole = self.condition(node)
        return [_negated(whole)] if whole is not None else []

    # ------------------------------------------------------------------ the tests

    def _comparison(self, node: tree_sitter.Node) -> str | None:
        operands = [c for c in node.named_children if c.type != "comment"]
        operators = [self.values.text(c) for c in node.children if not c.is_named]
        if len(operands) != 2 or len(operators) != 1 or operators[0] not in _COMPARISONS:
            return None  # a chain (`12 <= v.major < 14`) or `in`/`is`: not read
        operator = operators[0]
        left, right = operands
        field = self._version_field(left)
        number = _integer(self.values, right)
        if field is None:
            field = self._version_field(right)
            number = _integer(self.values, left)
            operator = _FLIPPED[operator]
        if field is None or number is None:
            return None
        return f"{_FIELD_MACROS[field]} {operator} {number}"

    def _version_field(self, node: tree_sitter.Node) -> str | None:
        """``major`` or ``minor`` where ``node`` is that field of the DSL's CUDA version."""
        if node.type != "attribute":
            return None
        owner = node.child_by_field_name("object")
        field = node.child_by_field_name("attribute")
        if owner is None or field is None or self.values.text(field) not in _FIELD_MACROS:
            return None
        return self.values.text(field) if self._origin(owner) in _VERSION_OBJECTS else None

    def _range_test(self, node: tree_sitter.Node) -> str | None:
        """``target_version(exact)``, ``target_version(min_version=..., max_version=...)``."""
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or self._origin(function) not in _RANGE_TESTS:
            return None
        given = [a for a in arguments.named_children if a.type != "comment"]
        bounds: list[str] = []
        for argument in given:
            if argument.type == "keyword_argument":
                name = argument.child_by_field_name("name")
                value = argument.child_by_field_name("value")
                keyword = self.values.text(name) if name is not None else ""
            elif argument is given[0]:
                value, keyword = argument, "exact_version"
            else:
                return None
            operator = {"exact_version": "==", "min_version": ">=", "max_version": "<="}.get(
                keyword)
            version = _version_number(self.values, value) if value is not None else None
            if operator is None or version is None:
                return None
            bounds.append(f"CUDA_VERSION {operator} {version}")
        return " && ".join(bounds) if bounds else None

    def _constexpr_argument(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The argument of ``cutlass.const_expr(x)`` / ``constexpr(x)``: ``x`` itself, which
        the DSL evaluates in Python when it traces the kernel."""
        given = self.values.constexpr_argument(node, _CONSTEXPR)
        return given if given is not None and given.type != "keyword_argument" else None

    def _origin(self, node: tree_sitter.Node) -> str | None:
        """The dotted origin of a name or attribute chain through the file's imports
        (``cutlass.CUDA_VERSION``, or ``CUDA_VERSION`` after ``from cutlass import
        CUDA_VERSION``); None where its first name is not imported or also assigned."""
        text = self.values.text(node)
        if not re.fullmatch(r"\w+(?:\.\w+)*", text):
            return None
        head, _, rest = text.partition(".")
        origin = self.imports.get(head)
        if origin is None or self._is_assigned(head):
            return None
        return f"{origin}.{rest}" if rest else origin

    def _is_assigned(self, name: str) -> bool:
        known = self._assigned.get(name)
        if known is None:
            pattern = re.compile(rf"(?m)^[ \t]*{re.escape(name)}[ \t]*(?::[^=\n]*)?=(?!=)")
            known = self._assigned[name] = pattern.search(self.values.parsed.text) is not None
        return known


def site_guards(values: Values, imports: dict[str, str], node: tree_sitter.Node) -> tuple[str, ...]:
    """The toolkit-version conditions that hold where ``node`` (a call) runs, outermost first:
    those of the ``if``/``elif``/``else`` branches around it (an ``elif`` or ``else`` also
    holds the negation of each earlier condition), and, in its function, the negation of an
    earlier ``if`` whose body never runs on (``if not target_version(...): raise``)."""
    reader = _Reader(values, imports)
    found: list[str] = []
    child = node
    current = node.parent
    in_condition = False
    while current is not None:
        if current.type == "block" and current.parent is not None:
            found[:0] = _leaving_before(reader, current, child, node)
        elif current.type == "if_statement" and not in_condition:
            arms = branches(current)
            index = next((k for k, arm in enumerate(arms) if arm.id == child.id), None)
            if index is not None:
                found[:0] = _arm_conditions(reader, current, arms, index)
        # a call in an `elif`'s own condition runs before that condition is known
        in_condition = current.type == "elif_clause" and child.type != "block"
        child, current = current, current.parent
    return _unique(found)


def branch_guards(
    values: Values, imports: dict[str, str], point: tree_sitter.Node, index: int,
) -> tuple[str, ...]:
    """The toolkit-version conditions that hold in branch ``index`` of ``if`` statement
    ``point`` (or side ``index`` of a conditional expression, ``A if c else B``): a reading
    of a call after it with what that branch binds."""
    reader = _Reader(values, imports)
    if point.type == "conditional_expression":
        parts = [c for c in point.named_children if c.type != "comment"]
        if len(parts) != 3:
            return ()
        return _unique(reader.conjuncts(parts[1]) if index == 0 else reader.negation(parts[1]))
    return _unique(_arm_conditions(reader, point, branches(point), index))


def _arm_conditions(
    reader: _Reader, point: tree_sitter.Node, arms: list[tree_sitter.Node], index: int,
) -> list[str]:
    out: list[str] = []
    for k in range(index + 1):
        owner = point if k == 0 else arms[k]
        condition = owner.child_by_field_name("condition")
        if condition is None:
            continue  # `else`
        if k == index:
            out.extend(reader.conjuncts(condition))
        else:
            out.extend(reader.negation(condition))
    return out


def _leaving_before(
    reader: _Reader, block: tree_sitter.Node, child: tree_sitter.Node, site: tree_sitter.Node,
) -> list[str]:
    """The negations of the ``if`` statements before ``child`` in ``block`` whose body never
    runs on past them, within the function of ``site``: where control reaches ``child``,
    their condition was false."""
    if reader.values.scope_of(block).id != reader.values.scope_of(site).id:
        return []
    out: list[str] = []
    for statement in block.named_children:
        if statement.start_byte >= child.start_byte:
            break
        if statement.type != "if_statement":
            continue
        arms = branches(statement)
        condition = statement.child_by_field_name("condition")
        if arms and condition is not None and never_passes(statement, arms[0]):
            out.extend(reader.negation(condition))
    return out


def _integer(values: Values, node: tree_sitter.Node) -> int | None:
    if node.type != "integer":
        return None
    text = values.text(node).replace("_", "")
    return int(text) if text.isdigit() else None


def _version_number(values: Values, node: tree_sitter.Node) -> int | None:
    """``"13.1"`` as CUDA_VERSION spells it (13010); None for anything but a literal that
    ``DSLCudaVersion`` reads."""
    if node.type != "string":
        return None
    value = values.string(node)
    if value.has_holes:
        return None
    text = value.text
    match = _VERSION_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    major, minor = int(match.group(1)), int(match.group(2))
    return major * 1000 + minor * 10 if minor < 100 else None


def _negated(condition: str) -> str:
    """``!(condition)``, or what ``condition`` negates where it is itself a negation (``if not
    target_version(...): raise`` leaves ``CUDA_VERSION >= 13010`` to the code after it)."""
    if condition.startswith("!(") and condition.endswith(")"):
        depth = 0
        for position, char in enumerate(condition[1:], 1):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                if position == len(condition) - 1:
                    return condition[2:-1]
                break
    return f"!({condition})"


def _only_child(node: tree_sitter.Node) -> tree_sitter.Node | None:
    children = [c for c in node.named_children if c.type != "comment"]
    return children[0] if len(children) == 1 else None


def _unique(found: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(found))
