"""Three-valued evaluation of ``#if`` conditions for the default target (64-bit Linux).

Only what must be known is assumed known (``__LP64__`` is defined, ``_MSC_VER`` is not, nor is
a documentation generator's ``DOXYGEN_SHOULD_SKIP_THIS``); every other macro is unknown, and an
unknown condition stays ``None`` so callers stay silent.

Arithmetic is 64-bit, as in a C preprocessor (``intmax_t``): every result wraps to a signed
64-bit value, division truncates toward zero, and what C leaves undefined (a shift by a negative
count or by 64 or more, ``INT64_MIN / -1``, a literal wider than 64 bits) is unknown. Python's
unbounded integers would let ``#if (1<<4000000000)*(1<<4000000000)`` take gigabytes and minutes.
Nesting deeper than ``MAX_DEPTH`` is unknown too, not a RecursionError.

A file's own object-like macros (``#define __CVTA_PTR_64 1`` before ``#if __CVTA_PTR_64``) come
as :class:`~ptxlint.model.GuardMacro` definitions: a name takes the value of its last
definition whose conditions hold; a name any of whose definitions may or may not hold, or none
of which holds (it may come from ``-D``), stays unknown, never 0. ``defines`` wins over them:
what the target fixes (``__LP64__``, ``__CUDA_ARCH__``) is not the file's to redefine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from ptxlint.frontends.cxx.lexer import tokens
from ptxlint.model import GuardMacro

# Macros whose state on 64-bit Linux device compilation with nvcc is fixed.
DEFAULT_TARGET: Mapping[str, int | None] = {
    "__LP64__": 1,
    "_LP64": 1,
    "__linux__": 1,
    "__CUDACC__": 1,
    "__NVCC__": 1,
    "__cplusplus": 201703,
    "_MSC_VER": None,
    "_WIN32": None,
    "_WIN64": None,
    "__CUDACC_RTC__": None,
    "_NVHPC_CUDA": None,
    "__APPLE__": None,
}
# None in DEFAULT_TARGET means "known to be undefined"; absence means unknown.


def _documentation_only(name: str) -> bool:
    """A macro only the documentation generator defines: Doxygen's ``PREDEFINED`` setting
    names them (``DOXYGEN_SHOULD_SKIP_THIS`` in CUB, ``_CCCL_DOXYGEN_INVOKED`` in CCCL,
    ``EIGEN_PARSED_BY_DOXYGEN``), and no compile does. Undefined unless the file itself
    defines it: CUB defines ``CUB_USE_COOPERATIVE_GROUPS`` for CUDA 9 and newer inside
    ``#ifndef DOXYGEN_SHOULD_SKIP_THIS``, and with the name unknown its old-toolkit
    ``#else`` (``shfl`` without ``.sync``) looked like a branch a current build takes."""
    return "DOXYGEN" in name

Tri = bool | None
MAX_DEPTH = 40  # parentheses and unary operators; each level costs about 13 frames
_BITS = 64
_MASK = (1 << _BITS) - 1
_SIGN = 1 << (_BITS - 1)


class _TooDeep(Exception):
    pass


def _wrap(value: int) -> int:
    """``value`` as a signed 64-bit integer (two's complement wrap-around)."""
    value &= _MASK
    return value - (1 << _BITS) if value & _SIGN else value


Macros = Mapping[str, Sequence[GuardMacro]]
_NO_MACROS: Macros = {}


class _Parser:
    def __init__(
        self,
        toks: Sequence[str],
        defines: Mapping[str, int | None],
        macros: Macros = _NO_MACROS,
        hidden: frozenset[str] = frozenset(),
    ) -> None:
        self.toks = toks  # the tokens' texts
        self.pos = 0
        self.defines = defines
        self.macros = macros
        self.hidden = hidden  # macros being expanded (a body that names itself is unknown)
        self.depth = 0

    def peek(self) -> str:
        return self.toks[self.pos] if self.pos < len(self.toks) else ""

    def take(self) -> str:
        text = self.peek()
        self.pos += 1
        return text

    # Grammar, lowest precedence first: ternary is rare in guards and yields unknown.
    def expr(self) -> int | None:
        return self.binary(0)

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("||",),
        ("&&",),
        ("|",),
        ("^",),
        ("&",),
        ("==", "!="),
        ("<", ">", "<=", ">="),
        ("<<", ">>"),
        ("+", "-"),
        ("*", "/", "%"),
    )

    def binary(self, lowest: int) -> int | None:
        """An operand and the operators after it that bind at least as tightly as level
        ``lowest``, all left-associative (precedence climbing: a call per operator, where a
        call per level and operand, eleven for each name or number, made CUTLASS's
        ``#if`` conditions 59,000 calls for 950 evaluations)."""
        left = self.unary()
        precedence = _PRECEDENCE.get
        while True:
            op = self.peek()
            level = precedence(op)
            if level is None or level < lowest:
                return left
            self.take()
            left = _apply(op, left, self.binary(level + 1))

    def unary(self) -> int | None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep
        try:
            return self._unary()
        finally:
            self.depth -= 1

    def _unary(self) -> int | None:
        tok = self.peek()
        if tok == "!":
            self.take()
            value = self.unary()
            return None if value is None else int(not value)
        if tok == "-":
            self.take()
            value = self.unary()
            return None if value is None else _wrap(-value)
        if tok == "+":
            self.take()
            return self.unary()
        if tok == "~":
            self.take()
            value = self.unary()
            return None if value is None else _wrap(~value)
        return self.primary()

    def primary(self) -> int | None:
        tok = self.take()
        if tok == "(":
            value = self.expr()
            if self.peek() == ")":
                self.take()
            return value
        if tok == "defined":
            paren = self.peek() == "("
            if paren:
                self.take()
            name = self.take()
            if paren and self.peek() == ")":
                self.take()
            if name not in self.defines:
                if self._defined(name):
                    return 1
                return 0 if self._documentation_only(name) else None
            return int(self.defines[name] is not None)
        if tok[:1].isdigit():
            return _int_literal(tok)
        if tok in self.defines:
            value = self.defines[tok]
            return 0 if value is None else _wrap(value)
        if tok in _BOOLEANS and not self.macros.get(tok):
            return _BOOLEANS[tok]
        macro = self._macro(tok)
        if macro is None or not macro.body.strip():
            return 0 if macro is None and self._documentation_only(tok) else None
        return _value(macro.body, self.defines, self.macros, self.hidden | {tok})

    def _documentation_only(self, name: str) -> bool:
        """``name`` is the documentation generator's, and the file does not define it."""
        return _documentation_only(name) and not self.macros.get(name)

    def _defined(self, name: str) -> bool:
        """``name`` is certainly defined: a definition of it certainly holds, or one guarded
        against a definition before it (``#if C && !defined(X)`` / ``#define X``) holds where
        ``C`` does, for ``X`` is defined there either way."""
        if self._macro(name) is not None:
            return True
        candidates = self.macros.get(name)
        if not candidates or name in self.hidden:
            return False
        undefined = {**self.defines, name: None}
        return any(evaluate_guards(c.conditions, undefined) is True for c in candidates)

    def _macro(self, name: str) -> GuardMacro | None:
        """The definition of ``name`` that certainly holds, else None (unknown)."""
        candidates = self.macros.get(name)
        if not candidates or name in self.hidden:
            return None
        live = None
        for candidate in candidates:
            held = evaluate_guards(candidate.conditions, self.defines)
            if held is None:
                return None
            if held:
                live = candidate  # a later definition replaces an earlier one
        return live


# C++ evaluates ``true`` and ``false`` in ``#if`` as 1 and 0 ([cpp.cond]), as C23 does; to
# older C both are identifiers no macro defines (0), unless <stdbool.h> makes them 1 and 0
_BOOLEANS: Mapping[str, int] = {"true": 1, "false": 0}

# binary operator -> its level in ``_Parser._LEVELS`` (higher binds tighter)
_PRECEDENCE: dict[str, int] = {
    op: level for level, ops in enumerate(_Parser._LEVELS) for op in ops
}


def _int_literal(text: str) -> int | None:
    digits = text.rstrip("uUlL").replace("'", "")  # C++14 digit separators
    if len(digits) > 70:  # wider than 64 bits in any base: never parse a megabyte number
        return None
    try:
        value = (
            int(digits, 0)
            if not (digits.startswith("0") and digits[1:].isdigit())
            else int(digits, 8)
        )
    except ValueError:
        return None
    return _wrap(value) if value <= _MASK else None


def _apply(op: str, left: int | None, right: int | None) -> int | None:
    if op == "||":
        if left or right:
            return 1
        return None if left is None or right is None else 0
    if op == "&&":
        if left == 0 or right == 0:
            return 0
        return None if left is None or right is None else 1
    if left is None or right is None:
        return None
    if op in ("<<", ">>"):
        if not 0 <= right < _BITS:
            return None  # undefined in C
        return _wrap(left << right) if op == "<<" else left >> right
    if op in ("/", "%"):
        if right == 0 or (left == -_SIGN and right == -1):
            return None
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return quotient if op == "/" else left - quotient * right  # C truncates toward zero
    try:
        return _wrap({
            "|": lambda: left | right,
            "^": lambda: left ^ right,
            "&": lambda: left & right,
            "==": lambda: int(left == right),
            "!=": lambda: int(left != right),
            "<": lambda: int(left < right),
            ">": lambda: int(left > right),
            "<=": lambda: int(left <= right),
            ">=": lambda: int(left >= right),
            "+": lambda: left + right,
            "-": lambda: left - right,
            "*": lambda: left * right,
        }[op]())
    except (ZeroDivisionError, ValueError):
        return None


def _value(
    text: str, defines: Mapping[str, int | None], macros: Macros, hidden: frozenset[str]
) -> int | None:
    toks = _lexed(text)[0]
    if not toks:
        return None
    parser = _Parser(toks, defines, macros, hidden)
    try:
        value = parser.expr()
    except _TooDeep:
        return None
    return value if parser.pos == len(toks) else None


def integer_value(expression: str) -> int | None:
    """The value of a C integer expression of literals and operators, with this module's
    64-bit arithmetic; None where it names anything, uses an operator a ``#if`` does not
    know, or meets what C leaves undefined. For a reader outside ``#if`` lines (value flow's
    constants), which must never hand a file's text to Python's own evaluator."""
    return _value(expression, {}, _NO_MACROS, frozenset())


def macro_map(macros: Sequence[GuardMacro]) -> Macros:
    """Definitions by name, in definition order."""
    out: dict[str, list[GuardMacro]] = {}
    for m in macros:
        out.setdefault(m.name, []).append(m)
    return out


def evaluate(
    condition: str,
    defines: Mapping[str, int | None] = DEFAULT_TARGET,
    macros: Macros = _NO_MACROS,
) -> Tri:
    """``True``/``False`` when the condition is decided by ``defines`` (and the file's
    ``macros``), else ``None``.

    Without ``macros`` it is memoised on the condition and the values ``defines`` gives the
    names in it (the result depends on nothing else): headers test the same few conditions
    thousands of times, for every statement and every candidate target."""
    if macros:
        value = _value(condition, defines, macros, frozenset())
        return None if value is None else bool(value)
    names = _names(condition)
    key = (condition, tuple(defines.get(n, _ABSENT) for n in names))
    if key in _RESULTS:
        return _RESULTS[key]
    value = _value(condition, defines, macros, frozenset())
    result = None if value is None else bool(value)
    if len(_RESULTS) >= _MAX_MEMO:
        _RESULTS.clear()
    _RESULTS[key] = result
    return result


_ABSENT = object()  # a name ``defines`` does not mention (unknown), unlike None (undefined)
_MAX_MEMO = 65536
_RESULTS: dict[tuple[str, tuple[object, ...]], Tri] = {}


def _names(condition: str) -> tuple[str, ...]:
    """The names a condition can look up."""
    return _lexed(condition)[1]


def condition_names(condition: str) -> tuple[str, ...]:
    """The names ``evaluate`` may look up in ``defines`` or ``macros`` for ``condition``
    (every other token is an operator, a literal or ``defined``'s parenthesis): a condition
    none of whose names the file's macros define evaluates alike with them and without."""
    return _lexed(condition)[1]


# C++'s alternative spellings of operators ([lex.digraph]): in a ``#if`` as anywhere in C++,
# ``defined(__CUDA_ARCH__) and (__CUDA_ARCH__ >= 1000)`` is ``&&`` (nvcc compiles CUDA as C++,
# and C's <iso646.h> defines the same names as these operators). Never a macro's name.
_ALTERNATIVES: Mapping[str, str] = {
    "and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|", "xor": "^",
    "compl": "~", "not_eq": "!=",
}  # fmt: skip


@lru_cache(maxsize=16384)
def _lexed(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The texts of the tokens of a condition (or of a macro body in one), an alternative
    spelling as its operator (``and`` as ``&&``), and the names it can look up, sorted: lexed
    once for both, and once for every evaluation of the same condition with other values
    (each candidate target's ``__CUDA_ARCH__``). Over CUTLASS's ``include/`` the ``#if``
    evaluations (950 of 1,780 not answered by ``evaluate``'s memo) took 49 ms of CPU with one
    recursive function per precedence level and a lexing per evaluation, 24 ms with
    ``_Parser.binary``'s climbing alone, 12 ms so."""
    toks = list(tokens(text))
    alternative = _ALTERNATIVES.get
    names = tuple(sorted({t.text for t in toks if t.kind == "ident" and not alternative(t.text)}))
    texts = tuple(alternative(t.text, t.text) if t.kind == "ident" else t.text for t in toks)
    return texts, names


def evaluate_guards(
    guards: tuple[str, ...],
    defines: Mapping[str, int | None] = DEFAULT_TARGET,
    macros: Sequence[GuardMacro] | Macros = (),
) -> Tri:
    """All guards together (a conjunction); a guard ``!(c)`` is the else-branch of ``c``."""
    if not macros and defines is DEFAULT_TARGET and type(guards) is tuple:
        return _default_guards(guards)  # macro look-ups ask this of the same guards again
    by_name = macros if isinstance(macros, Mapping) else macro_map(macros)
    return _conjunction(guards, defines, by_name)


@lru_cache(maxsize=16384)
def _default_guards(guards: tuple[str, ...]) -> Tri:
    return _conjunction(guards, DEFAULT_TARGET, _NO_MACROS)


def _conjunction(
    guards: tuple[str, ...], defines: Mapping[str, int | None], by_name: Macros
) -> Tri:
    result: Tri = True
    for guard in guards:
        value = evaluate(guard, defines, by_name)
        if value is False:
            return False
        if value is None:
            result = None
    return result
