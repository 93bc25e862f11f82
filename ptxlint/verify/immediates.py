"""The values an ``"n"`` operand takes, as far as its file says.

ptxas judges the immediate itself (``cp.async.cg`` wants 16, a shift amount a range), so a probe
that stands a made-up value in for ``"n"(N)`` can agree with a finding the real code never
triggers. The value comes from the file: a literal, a constant (``constexpr``, ``#define``, an
enumerator), or a template parameter with the arguments the file gives it (explicit template
arguments at calls of the function, its default, ``static_assert(N == 16)``). Nothing in the file
is ever executed: a C++ expression is valued by the preprocessor's C integer evaluator
(``preproc.integer_value``: 64-bit, ``/`` and ``%`` truncating toward zero, ``~ ! < == && ||``),
as nvcc values it (``_c_value`` says where it cannot); a Python DSL's by walking its syntax tree
over integers (``tl.constexpr`` arithmetic is Python's).

A ``#define`` is the macro table's (``frontends.cxx.macros.MacroTable``, the lint's one reading
of the file's and its own headers' definitions): the one in force at the statement, so that a
definition in a comment, under ``#if 0`` or after an ``#undef`` gives no value. The C++
constants and ``static_assert``s the patterns here find count only in code (``_in_code``: the
file's one walk of its directives, and the lexer), not in a comment, a string or ``#if 0``.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterable
from functools import lru_cache

from ptxlint.analysis.flow_syntax import function_name
from ptxlint.frontends.cxx.guards import guards_of
from ptxlint.frontends.cxx.lexer import tokens
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.preproc import evaluate_guards, integer_value
from ptxlint.model import AsmStatement, Operand

MAX_VALUES = 4  # configurations probed per statement; more is a sign of a table, not a template
_INT = r"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*"
_INT_LITERAL = re.compile(rf"\s*\(?\s*(-?{_INT})\s*\)?\s*")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_CXX_ONLY = re.compile(r"::|->|\[|\.|sizeof|alignof|\"|'")
_INT_TYPES = r"(?:unsigned|signed|int|long|short|char|bool|size_t|u?int(?:8|16|32|64)_t|auto)"


def literal(text: str) -> int | None:
    match = _INT_LITERAL.fullmatch(text)
    if match is None:
        return None
    return integer_value(match[1])  # C's: `017` is octal


def _binary_literals(text: str) -> str:
    # C++ suffixes and ' digit separators: Python's parser knows neither
    return re.sub(rf"\b({_INT})", lambda m: str(int(m[1].rstrip("uUlL"), 0)),
                  text.replace("'", ""))


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
        ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else None,
        ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
        ast.BitXor: lambda a, b: a ^ b, ast.Mod: lambda a, b: a % b if b else None,
        ast.FloorDiv: lambda a, b: int(a / b) if b else None,
        ast.Div: lambda a, b: int(a / b) if b else None}


def evaluate(text: str, names: dict[str, int], cxx: bool = True) -> int | None:
    """The integer value of a constant expression of literals, operators and ``names``: C++'s
    (``_c_value``), or with ``cxx=False`` a Python DSL's (+ - * / % << >> & | ^ only)."""
    if _CXX_ONLY.search(text) or len(text) > 200:
        return None
    if cxx:
        return _c_value(text, names)
    try:
        tree = ast.parse(_binary_literals(text).strip(), mode="eval")
    except (SyntaxError, ValueError):
        return None

    def walk(node: ast.AST) -> int | None:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return names.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = walk(node.operand)
            return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = walk(node.left), walk(node.right)
            if left is None or right is None or abs(left) > 1 << 62 or abs(right) > 1 << 62:
                return None
            return _OPS[type(node.op)](left, right)
        return None

    return walk(tree)


# Operators whose result modulo 2**32 depends only on their operands' modulo 2**32: on them a
# 32-bit unsigned operand and its 64-bit signed stand-in give the same bits.
_RING = frozenset(("+", "-", "*", "&", "|", "^", "~", "<<", "(", ")"))
_INT_MAX = (1 << 31) - 1


def _c_value(text: str, names: dict[str, int]) -> int | None:
    """The value nvcc gives a C++ integer constant expression, from the preprocessor's
    evaluator with each name's value spelled in its place. That evaluator is signed 64-bit
    throughout; C++ is not where an operand is unsigned or wider than ``int`` (a literal with a
    ``u`` suffix or beyond ``INT_MAX``, or a name, whose type is not read here): ``-1u / 2`` is
    2147483647 to nvcc, 0 at 64 bits. There the value is taken only where the two cannot
    differ: every operator in ``_RING``, or no ``-`` or ``~`` spelled (nor a negative value),
    so that no operand is negative. nvcc writes an ``"n"`` value into the PTX as a signed
    number of its type's width (``-1u`` as -1, ``1ull << 63`` as -9223372036854775808), as the
    evaluator's wrap does for 64-bit types; a 32-bit unsigned value past ``INT_MAX`` comes out
    as its 64-bit value, the same bits in a 32-bit operand. Left as the evaluator values it: a
    32-bit unsigned intermediate that wraps past 2**32 before a ``/``, ``%`` or ``>>``."""
    spelled: list[str] = []
    maybe_unsigned = negative = beyond_ring = False
    for tok in tokens(text):
        if tok.kind == "ident":
            value = names.get(tok.text)
            if value is None or tok.text == "defined":
                return None
            spelled.append(f"({value})")
            maybe_unsigned = True
            negative = negative or value < 0
            continue
        if tok.kind == "number":
            number = integer_value(tok.text)
            if number is None:
                return None
            maybe_unsigned = maybe_unsigned or "u" in tok.text.lower() or number > _INT_MAX
        elif tok.text in ("-", "~"):
            negative = True
        elif tok.text not in _RING:
            beyond_ring = True
        spelled.append(tok.text)
    if not spelled or (maybe_unsigned and negative and beyond_ring):
        return None
    return integer_value(" ".join(spelled))


_CONST_KEYWORD = re.compile(r"\bconst(?:expr)?\b")
_ENUM = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")
_ENUMERATOR = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*([^,]+)")
_STATIC_ASSERT = re.compile(r"static_assert\s*\(\s*([A-Za-z_]\w*)\s*==\s*([^,)]+)")


def _value_of(text: str, cxx: bool = True) -> int | None:
    text = " ".join(t.text for t in tokens(text))  # comments left out
    if cxx:
        return evaluate(text, {})
    value = evaluate(text.strip().strip("()"), {}, cxx=False)
    return literal(text) if value is None else value


def _in_code(text: str, offset: int) -> bool:
    """Whether a token the compiler may see starts at ``offset`` of ``text``: not in a comment
    or a string, nor in an ``#if`` branch that cannot hold (``#if 0``). The file's one walk of
    its directives and its hidden spans (``guards_of``, which its statements' guards and its
    ``#define``s are read from) and the lexer answer, where the patterns here read raw text."""
    file_guards = guards_of(text)
    if file_guards.comments.hides(offset):
        return False
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    if not any(t.start == offset
               for t in tokens(text, line_start, len(text) if line_end < 0 else line_end)):
        return False
    return evaluate_guards(file_guards.conditions_at(offset)) is not False


def _constants(text: str, cxx: bool, name: str) -> list[int]:
    """The values the file gives C++ constant ``name``: constexpr/const, then enumerator. In
    a C++ file only those in code (``_in_code``): a Python DSL's text has no directives to
    walk."""
    return _declared(text, cxx, name) + _enumerators(text, cxx).get(name, [])


@lru_cache(maxsize=1024)
def _declared(text: str, cxx: bool, name: str) -> list[int]:
    """The values of ``name``'s constant declarations: ``const``/``constexpr``, then no
    ``;=(){}`` up to ``name = value;`` (the value holding no ``;,{}``). Found from the name:
    each ``name =`` the file spells (a fixed-string search), its declarator read back to the
    last ``;=(){}``. The same declarations as the whole-file pattern
    ``\\bconst(?:expr)?\\b[^;=(){}]*?\\b(\\w+)\\s*=\\s*([^;,{}]+);`` finds, which took 204 ms
    of CPU over CUTLASS's 2.8 MB ``mma_sm90_gmma_ext.hpp`` (anchored at each ``const``
    keyword: 153 ms); five names so, 6 ms."""
    out: list[int] = []
    for assigned in _assignment(name).finditer(text):
        at = assigned.start()
        if at and (text[at - 1].isalnum() or text[at - 1] == "_"):
            continue  # the end of a longer name
        initializer = _INITIALIZER.match(text, assigned.end())
        if initializer is None:
            continue
        start = max(text.rfind(c, 0, at) for c in ";=(){}") + 1
        keyword = _CONST_KEYWORD.search(text, start, at)
        if keyword is None or (cxx and not _in_code(text, keyword.start())):
            continue
        value = _value_of(initializer[1], cxx)
        if value is not None:
            out.append(value)
    return out


@lru_cache(maxsize=256)
def _assignment(name: str) -> re.Pattern[str]:
    # the name first: a literal prefix, which re's search skips to. The initializer is matched
    # apart: one that ran on past a longer name's ``x_name = ...`` would hide the next.
    return re.compile(re.escape(name) + r"\s*=")


_INITIALIZER = re.compile(r"\s*([^;,{}]+);")


@lru_cache(maxsize=16)
def _enumerators(text: str, cxx: bool) -> dict[str, list[int]]:
    """Every enumerator the file gives a value, by name. One pass per file (a header of
    thousands of statements asks for hundreds of names)."""
    out: dict[str, list[int]] = {}
    for enum in _enums(text):
        if cxx and not _in_code(text, enum.start()):
            continue
        body = enum.start(1)
        for m in _ENUMERATOR.finditer(enum[1]):
            if cxx and not _in_code(text, body + m.start(1)):
                continue
            value = _value_of(m[2], cxx)
            if value is not None:
                out.setdefault(m[1], []).append(value)
    return out


def _enums(text: str) -> list[re.Match[str]]:
    """``_ENUM.finditer(text)``'s matches, tried only where ``enum`` is spelled (a
    fixed-string search): the pattern tried at every offset took 63 ms of CPU over CUTLASS's
    2.8 MB ``mma_sm90_gmma_ext.hpp``."""
    out: list[re.Match[str]] = []
    end = 0
    at = text.find("enum")
    while at >= 0:
        if at >= end and not (at and (text[at - 1].isalnum() or text[at - 1] == "_")):
            enum = _ENUM.match(text, at)
            if enum is not None:
                out.append(enum)
                end = enum.end()  # as finditer: matches do not overlap
        at = text.find("enum", at + 1)
    return out


@lru_cache(maxsize=16)
def _asserted(text: str, cxx: bool) -> dict[str, list[int]]:
    """``static_assert(N == 16, ...)`` values, by name (in a C++ file, those in code)."""
    out: dict[str, list[int]] = {}
    for match in _STATIC_ASSERT.finditer(text):
        if cxx and not _in_code(text, match.start()):
            continue
        value = evaluate(match[2], {})
        if value is not None:
            out.setdefault(match[1], []).append(value)
    return out


@lru_cache(maxsize=64)
def _explicit_arguments(text: str, function: str) -> tuple[tuple[str, ...], ...]:
    """The explicit template argument lists of every ``function<...>`` in the file's code
    (``_in_code``: a call in a comment or under ``#if 0`` instantiates nothing)."""
    out = []
    for match in re.finditer(rf"\b{re.escape(function)}\s*<", text):
        if not _in_code(text, match.start()):
            continue
        args = _angle_args(text, match.end() - 1)
        if args is not None:
            out.append(tuple(args))
    return tuple(out)


def _constant(statement: AsmStatement, name: str) -> list[int]:
    """Values the file gives ``name`` as a constant: the ``#define`` in force at the statement
    (a macro hides any C++ name it spells), else constexpr/const, enumerator."""
    source = statement.source
    cxx = statement.syntax == "gnu"  # C++: a Python DSL's `# define` is a comment
    if cxx:
        defined = _defined(_macros(source.path, source.text), name, statement.span.start)
        if defined is not None:
            return defined
    return _constants(source.text, cxx, name)


@lru_cache(maxsize=16)
def _macros(path: str, text: str) -> MacroTable:
    return MacroTable(path, text)


def _defined(table: MacroTable, name: str, at: int) -> list[int] | None:
    """The values of the object-like ``#define``s of ``name`` in force at offset ``at``; None
    where none is (the name is no macro there)."""
    one = table.lookup(name, at)
    # no one definition: none in force, or #if/#else alternatives that differ, each the value
    # of one configuration
    in_force = [one] if one is not None else table.alternatives(name, at)
    if not in_force:
        return None
    out: list[int] = []
    for definition in in_force:
        if definition.params is not None:
            return None  # a function-like macro: `N` alone is no use of it
        value = _value_of(" ".join(t.text for t in definition.body))  # comments left out
        if value is not None:
            out.append(value)
    return out


def _template_header(text: str, before: int) -> str | None:
    """The last ``template <...>`` parameter list that starts before offset ``before``."""
    start = text.rfind("template", 0, before)
    while start >= 0:
        open_at = text.find("<", start)
        if open_at >= 0 and not text[start + 8:open_at].strip():
            depth, i = 0, open_at
            while i < len(text):
                depth += text[i] == "<"
                depth -= text[i] == ">"
                if depth == 0:
                    return text[open_at + 1:i]
                i += 1
            return None
        start = text.rfind("template", 0, start)
    return None


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "<([{"
        depth -= ch in ">)]}"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _template_values(statement: AsmStatement, name: str) -> list[int]:
    if statement.syntax != "gnu":
        return []  # a Python DSL's statement: no C++ template around it
    text = statement.source.text
    header = _template_header(text, statement.span.start)
    if header is None:
        return []
    params = _split_top(header)
    position = None
    default = None
    for n, param in enumerate(params):
        match = re.fullmatch(rf"(?:{_INT_TYPES}\s+)+{re.escape(name)}\s*(?:=\s*(.+))?", param,
                             re.S)
        if match:
            position = n
            default = match[1]
    if position is None:
        return []
    out: list[int] = []
    function = function_name(statement.context.function or "")
    if function.isidentifier():
        for args in _explicit_arguments(text, function):
            if position < len(args):
                value = evaluate(args[position], {})
                if value is not None:
                    out.append(value)
    out += _asserted(text, True).get(name, [])
    if default is not None and not out:
        value = evaluate(default.strip(), {})
        if value is not None:
            out.append(value)
    return out


def _angle_args(text: str, open_at: int) -> list[str] | None:
    depth, i = 0, open_at
    while i < len(text) and i < open_at + 400:
        ch = text[i]
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
            if depth == 0:
                return _split_top(text[open_at + 1:i]) if ch == ">" else None
        elif ch in ";{}":
            return None
        i += 1
    return None


def values(statement: AsmStatement, operand: Operand) -> tuple[int, ...]:
    """The distinct values of ``operand``'s expression the file gives (at most MAX_VALUES, in
    order of appearance); () when some name in it has no value the file fixes."""
    expression = operand.expression
    direct = literal(expression)
    if direct is not None:
        return (direct,)
    names = sorted(set(_IDENT.findall(expression)))  # none in `-7 / 2`: valued all the same
    if _CXX_ONLY.search(expression):
        return ()
    choices: list[list[int]] = []
    for name in names:
        found = list(dict.fromkeys(_constant(statement, name)
                                   or _template_values(statement, name)))
        if not found:
            return ()
        choices.append(found[:MAX_VALUES])
    out: list[int] = []
    cxx = statement.syntax == "gnu"  # else a Python DSL's expression: Python's arithmetic
    for combo in itertools.product(*choices):
        value = evaluate(expression, dict(zip(names, combo, strict=True)), cxx)
        if value is None:
            return ()
        out.append(value)
    return tuple(dict.fromkeys(out))[:MAX_VALUES]


def immediates(statement: AsmStatement) -> Iterable[Operand]:
    """The statement's ``"n"`` operands."""
    return (o for o in statement.operands
            if not o.constraint.opaque and "n" in o.constraint.letters)
