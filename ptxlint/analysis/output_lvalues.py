"""Which asm output expressions nvcc refuses to write, or writes into a ``const`` object.

An output operand (``=`` or ``+``) must name a modifiable lvalue. nvcc's front end (EDG, CUDA
13.0) reads the expression as follows, measured case by case with ``nvcc -arch=sm_90 -ptx``
(tests/test_nvcc_oracle_expressions.py holds the matrix, ``benchmarks/operand_expressions.py``
prints it):

* **rejected, "expression must be a modifiable lvalue"**: an rvalue: a literal, an arithmetic,
  logical or comparison expression (``x + 1``, ``-x``, ``!x``, ``&x``), a postfix ``x++``, a
  ``sizeof``, a braced temporary or a member of one (``int{}``, ``S{}.a``), ``std::move(x)``, a
  lambda called for a value (no reference return type), and a non-reference cast that converts
  (``(long)x`` or ``(float)x`` of an ``int``: another size or another class of type);
* **rejected, "a compound lvalue is not allowed as an asm output operand"**: a conditional
  ``c ? x : y``, a comma expression, a prefix ``++x``/``--x`` and a compound assignment
  ``x += 1``, although C++ calls each of them an lvalue;
* **accepted with warning #137 "expression must be a modifiable lvalue"**: an lvalue of
  ``const`` type: a ``const``/``constexpr`` variable, a ``const`` reference, an element behind a
  pointer to ``const``, a cast to a ``const`` reference, the built-in ``threadIdx``,
  ``blockIdx``, ``blockDim``, ``gridDim``. The asm then writes an object the compiler may
  assume never changes (a ``constexpr`` is folded);
* **accepted**: names, members, subscripts, dereferences (``*p++`` included), plain assignments
  (``x = y``), reference casts, a cast between integer types of one size (``(unsigned)i``,
  warning #1156 "nonstandard cast on lvalue ignored"), bit-fields, ``register`` variables,
  calls returning references.

Anything the text alone cannot settle (a call of a function whose return type is not in view,
a template-id, a dependent type, a member of a ``const`` object, which may be ``mutable``, a
cast whose operand's type is unknown) is no finding: silence over guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ptxlint import file_memos
from ptxlint.analysis.cxx_facts import FunctionFacts
from ptxlint.analysis.element_types import resolve_type
from ptxlint.analysis.file_constants import maybe_const_names
from ptxlint.frontends.cxx.c_types import BUILTIN_VARIABLES
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, CType, Operand

__all__ = ["OutputProblem", "classify", "output_problems", "writable"]

NOT_LVALUE = "expression must be a modifiable lvalue"
COMPOUND = "a compound lvalue is not allowed as an asm output operand"


class OutputProblem(NamedTuple):
    """An output operand nvcc rejects (``error``) or writes into a ``const`` object."""

    operand: Operand
    what: str  # e.g. "an arithmetic expression", "a conditional expression", "a const variable"
    nvcc: str  # nvcc's diagnostic text
    error: bool  # nvcc rejects the statement; False: nvcc warns and compiles


_TOKEN = on_first_use(
    r"""\s*(?:
      (?P<str>(?:u8|[uUL])?"(?:[^"\\]|\\.)*"|(?:u8|[uUL])?'(?:[^'\\]|\\.)*')
    | (?P<num>\.?[0-9](?:[0-9A-Za-z_.']|[eEpP][+-])*)
    | (?P<id>[A-Za-z_$][\w$]*)
    | (?P<op>->\*|<<=|>>=|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\*
             |[-+*/%&|^!~<>=?:,.()\[\]{};])
    )""",
    re.VERBOSE,
)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_BINARY = frozenset("+ - * / % << >> < > <= >= == != & | ^ && || .* ->*".split())
_COMPOUND_ASSIGN = frozenset("+= -= *= /= %= &= |= ^= <<= >>=".split())
_UNARY_RVALUE = {"-": "a negation", "+": "a unary plus", "~": "a bitwise complement",
                 "!": "a logical not", "&": "an address"}
_LITERAL_WORDS = frozenset({"true", "false", "nullptr", "NULL"})
_UNEVALUATED = frozenset({"sizeof", "alignof", "_Alignof", "__alignof__", "noexcept", "typeid"})
_NAMED_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"})
_TYPE_WORDS = frozenset(
    "void bool char short int long signed unsigned float double wchar_t char8_t char16_t "
    "char32_t __int128 const volatile".split()
)
_FIXED_WIDTH = on_first_use(r"(?:std::)?u?int(?:8|16|32|64|ptr)_t|size_t|ptrdiff_t")


class _Tok(NamedTuple):
    kind: str  # "str" | "num" | "id" | "op"
    text: str
    start: int  # offset in the expression

    @property
    def end(self) -> int:
        return self.start + len(self.text)


_COMMENT = on_first_use(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _tokens(text: str) -> list[_Tok] | None:
    if "/" in text:  # a comment reads as blanks (offsets kept)
        text = _COMMENT().sub(lambda m: " " * len(m.group()), text)
    out: list[_Tok] = []
    at = 0
    while at < len(text):
        match = _TOKEN().match(text, at)
        if match is None or match.end() == at:
            if text[at:].strip():
                return None  # a character the scanner does not know (a macro's #, a backslash)
            break
        kind = match.lastgroup or "op"
        out.append(_Tok(kind, match.group(kind), match.start(kind)))
        at = match.end()
    return out


def _closing(tokens: list[_Tok], at: int) -> int | None:
    """The index of the bracket closing the one at ``at``."""
    depth = 0
    for i in range(at, len(tokens)):
        t = tokens[i].text if tokens[i].kind == "op" else ""
        if t in _OPEN:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return i
    return None


def _top_level(tokens: list[_Tok]) -> list[int] | None:
    """Indices of the tokens outside any bracket; None when the brackets do not balance."""
    out: list[int] = []
    depth = 0
    for i, t in enumerate(tokens):
        text = t.text if t.kind == "op" else ""
        if text in _OPEN:
            if depth == 0:
                out.append(i)
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                out.append(i)
        elif depth == 0:
            out.append(i)
    return out if depth == 0 else None


def _operand_end(t: _Tok) -> bool:
    if t.kind in ("num", "str"):
        return True
    if t.kind == "id":
        return t.text not in _UNEVALUATED and t.text not in ("return", "new", "delete")
    return t.text in (")", "]", "}", "++", "--")


def _is_type(tokens: list[_Tok]) -> bool | None:
    """Whether the tokens spell a type: True (built-in words, fixed-width typedefs, a trailing
    ``*``/``&``), None when they could be a type or a value (``(T)``, ``(a)``)."""
    if not tokens:
        return False
    words = [t for t in tokens if t.kind == "id"]
    if any(t.kind in ("num", "str") for t in tokens):
        return False
    if tokens[-1].text in ("*", "&", "&&"):
        return True
    if words and all(w.text in _TYPE_WORDS or _FIXED_WIDTH().fullmatch(w.text) for w in words):
        return len(words) == len(tokens) or all(
            t.kind == "id" or t.text == "::" for t in tokens)
    return None


class _Cast(NamedTuple):
    type_text: str
    reference: bool
    const: bool
    rest: list[_Tok]  # the operand of the cast


def _cast(tokens: list[_Tok], text: str) -> _Cast | None | bool:
    """The named cast (``static_cast<T>(x)``) that is the whole of ``tokens``, ``None`` for
    none, ``False`` when it cannot be read (do not judge)."""
    head = tokens[0]
    if head.kind == "id" and head.text in _NAMED_CASTS and len(tokens) > 3 \
            and tokens[1].text == "<":
        depth, close = 0, None
        for i in range(1, len(tokens)):
            if tokens[i].text == "<":
                depth += 1
            elif tokens[i].text == ">":
                depth -= 1
                if depth == 0:
                    close = i
                    break
            elif tokens[i].text == ">>":
                return False
        if close is None or close + 1 >= len(tokens) or tokens[close + 1].text != "(":
            return False
        end = _closing(tokens, close + 1)
        if end != len(tokens) - 1:
            return None if end is not None else False  # a cast then more: judged as a whole
        inner = tokens[close + 2 : end]
        type_tokens = tokens[2:close]
        type_text = text[type_tokens[0].start : tokens[close].start].strip() if type_tokens \
            else ""
        if head.text == "const_cast":
            return False  # removes const: whatever it names is written as written
        return _Cast(type_text, type_tokens[-1].text in ("&", "&&") if type_tokens else False,
                     any(t.text == "const" for t in type_tokens), inner)
    return None


def _strip_parens(tokens: list[_Tok]) -> list[_Tok]:
    while tokens and tokens[0].text == "(" and _closing(tokens, 0) == len(tokens) - 1:
        tokens = tokens[1:-1]
    return tokens


class _Verdict(NamedTuple):
    """nvcc rejects the expression (or warns): what it is and what nvcc says."""

    what: str
    nvcc: str
    error: bool


class _CastOf(NamedTuple):
    """A non-reference cast of ``inner``: judged by the types on both sides."""

    type_text: str
    inner: str


class _Lvalue(NamedTuple):
    """An lvalue as far as the text says; whether it is ``const`` is its declaration's."""

    text: str


_Reading = _Verdict | _CastOf | _Lvalue


# A name, a member chain, subscripts without operators that matter here, an optional leading
# dereference: an lvalue without tokenizing (most outputs: `d[0]`, `acc.x`, `*p`; a GMMA's 128)
_PLAIN = on_first_use(
    r"\s*(?:\*\s*)?[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]?,=+-]*\])*\s*")


def _plain_name(text: str) -> bool:
    """``text`` (stripped) is a name that is an lvalue by itself: no literal (``true``) and no
    operator word (``sizeof``). Told without the regex, as most outputs are (a GMMA's 128)."""
    return (text.isidentifier() and text.isascii() and text not in _LITERAL_WORDS
            and text not in _UNEVALUATED)


def classify(expression: str) -> _Reading | None:
    """What nvcc makes of ``expression`` as an asm output, from its text alone: a verdict for an
    expression nvcc rejects; for a modifiable-looking lvalue, the text of the part whose
    declaration decides const-ness (``"cx"``, ``"*cp"``...); ``None``: do not judge."""
    if _plain_name(expression.strip()):
        return _Lvalue(expression.strip())
    if _PLAIN().fullmatch(expression):
        word = expression.strip().lstrip("*").strip()
        if word not in _LITERAL_WORDS and word not in _UNEVALUATED:
            return _Lvalue(expression.strip())
    tokens = _tokens(expression)
    if tokens is None:
        return None
    tokens = _strip_parens(tokens)
    if not tokens:
        return None
    top = _top_level(tokens)
    if top is None:
        return None
    top_texts = [tokens[i].text if tokens[i].kind == "op" else "" for i in top]
    if "," in top_texts:
        return _Verdict("a comma expression", COMPOUND, True)
    if "?" in top_texts:
        return _Verdict("a conditional (?:) expression", COMPOUND, True)
    head = tokens[0]
    if head.kind == "id" and head.text in _NAMED_CASTS:
        cast = _cast(tokens, expression)
        return _judge_cast(cast, expression) if isinstance(cast, _Cast) else None
    for i, text in zip(top, top_texts, strict=True):
        if text in _COMPOUND_ASSIGN:
            return _Verdict(f"a compound assignment ('{text}')", COMPOUND, True)
        if text == "=":
            return None  # `x = y` is accepted; what it writes is `x`, not judged further
        if text == "<" and i > 0 and tokens[i - 1].kind == "id":
            return None  # a template-id (Box<T>::k): not read here
    if head.kind == "op" and head.text == "[":
        return _lambda(tokens)
    prefix = _prefix(tokens)
    if prefix is None:
        return None
    ops, primary = prefix
    # a binary operator outside brackets, after an operand: the whole is an rvalue
    for i in top:
        t = tokens[i]
        if i > primary and t.kind == "op" and t.text in _BINARY and _operand_end(tokens[i - 1]):
            return _Verdict("an arithmetic, logical or comparison expression", NOT_LVALUE, True)
    if ops:
        first = ops[0]
        if isinstance(first, _Cast):
            return _judge_cast(first, expression)
        if first in ("++", "--"):
            return _Verdict(f"a prefix '{first}'", COMPOUND, True)
        if first in _UNARY_RVALUE:
            return _Verdict(_UNARY_RVALUE[first], NOT_LVALUE, True)
        return _Lvalue(expression.strip())  # `*...`: a dereference is an lvalue
    if head.kind == "op" and head.text != "::":
        return None
    last = tokens[-1]
    if last.kind == "op" and last.text in ("++", "--") and top and top[-1] == len(tokens) - 1:
        return _Verdict(f"a postfix '{last.text}'", NOT_LVALUE, True)
    if len(tokens) == 1 and (head.kind in ("num", "str") or head.text in _LITERAL_WORDS):
        return _Verdict("a literal", NOT_LVALUE, True)
    if head.kind == "id" and head.text in _UNEVALUATED:
        return _Verdict(f"a '{head.text}' expression", NOT_LVALUE, True)
    if head.kind == "id" and head.text in ("move", "std") and _is_move(tokens):
        return _Verdict("std::move(...), an xvalue", NOT_LVALUE, True)
    braced = _braced_temporary(tokens, top)
    if braced is not None:
        return braced
    if last.text == ")":
        return None  # a call: its return type is not in view
    return _Lvalue(expression.strip())


_UNARY = frozenset({"*", "&", "-", "+", "!", "~", "++", "--"})


def _prefix(tokens: list[_Tok]) -> tuple[list[str | _Cast], int] | None:
    """The unary operators and C-style casts that open the expression, outermost first, and
    the index of the token that starts its primary expression; None when a parenthesis could
    be a cast or a value (``(a) - b``, ``(T)-x``)."""
    ops: list[str | _Cast] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "op" and t.text in _UNARY:
            ops.append(t.text)
            i += 1
            continue
        if t.kind == "op" and t.text == "(":
            close = _closing(tokens, i)
            if close is None:
                return None
            if close == len(tokens) - 1:
                break  # `*(p + 1)`: the parenthesis is the primary
            verdict = _is_type(tokens[i + 1 : close])
            if verdict is None:
                return None
            if verdict is False:
                break
            inside = tokens[i + 1 : close]
            rest = tokens[close + 1 :]
            ops.append(_Cast(" ".join(x.text for x in inside).replace(" *", "*"),
                             inside[-1].text in ("&", "&&"),
                             any(x.text == "const" for x in inside), rest))
            i = close + 1
            continue
        break
    return ops, i


def _is_move(tokens: list[_Tok]) -> bool:
    texts = [t.text for t in tokens[:4]]
    return texts[:2] == ["move", "("] or texts[:4] == ["std", "::", "move", "("]


def _braced_temporary(tokens: list[_Tok], top: list[int]) -> _Verdict | None:
    """``int{}``, ``S{1}.a``, ``T{x}``: a temporary (or a member of one) is no lvalue."""
    for i in top:
        t = tokens[i]
        if t.kind == "op" and t.text == "{" and i > 0 and tokens[i - 1].kind == "id":
            return _Verdict("a braced temporary (or a member of one)", NOT_LVALUE, True)
    return None


def _lambda(tokens: list[_Tok]) -> _Verdict | None:
    """A lambda called in place: an lvalue only with a reference return type."""
    close = _closing(tokens, 0)
    if close is None:
        return None
    body = next((i for i in range(close + 1, len(tokens)) if tokens[i].text == "{"), None)
    if body is None:
        return None
    end = _closing(tokens, body)
    if end is None or end + 1 >= len(tokens) or tokens[end + 1].text != "(" \
            or _closing(tokens, end + 1) != len(tokens) - 1:
        return None
    header = [t.text for t in tokens[close + 1 : body]]
    if "->" in header:
        returned = header[header.index("->") + 1 :]
        if not returned or returned[-1] in ("&", "&&") or "decltype" in returned:
            return None
        return _Verdict("a lambda call returning by value", NOT_LVALUE, True)
    return _Verdict("a lambda call returning by value", NOT_LVALUE, True)


# --------------------------------------------------------------------------- casts


_CLASSES = {"integer": "integer", "enum": "integer", "bool": "bool", "floating": "floating"}


def _judge_cast(cast: _Cast, expression: str) -> _Reading | None:
    if cast.reference:
        if cast.const and not any(t.text == "volatile" for t in _tokens(cast.type_text) or []):
            return _Verdict(f"a cast to a const reference ({cast.type_text})", NOT_LVALUE, False)
        return None  # `(unsigned&)f`: an lvalue of the cast type
    if not cast.rest:
        return None
    inner_tokens = _strip_parens(cast.rest)
    if not inner_tokens:
        return None
    inner = expression[inner_tokens[0].start : inner_tokens[-1].end]
    reading = classify(inner)
    if isinstance(reading, _Verdict) and reading.error:
        return reading  # `(int)-x`: the operand is no lvalue already
    return _CastOf(cast.type_text, inner)


def _cast_target(type_text: str) -> CType | None:
    words = type_text.replace("std::", "").split()
    text = " ".join(w for w in words if w not in ("const", "volatile"))
    sizes = {
        "bool": ("bool", 1), "char": ("integer", 1), "signed char": ("integer", 1),
        "unsigned char": ("integer", 1), "short": ("integer", 2), "unsigned short": ("integer", 2),
        "int": ("integer", 4), "unsigned": ("integer", 4), "unsigned int": ("integer", 4),
        "signed": ("integer", 4), "long": ("integer", 8), "unsigned long": ("integer", 8),
        "long long": ("integer", 8), "unsigned long long": ("integer", 8),
        "float": ("floating", 4), "double": ("floating", 8),
        "int8_t": ("integer", 1), "uint8_t": ("integer", 1), "int16_t": ("integer", 2),
        "uint16_t": ("integer", 2), "int32_t": ("integer", 4), "uint32_t": ("integer", 4),
        "int64_t": ("integer", 8), "uint64_t": ("integer", 8), "size_t": ("integer", 8),
    }
    found = sizes.get(text)
    return CType(text, found[0], found[1]) if found is not None else None


# --------------------------------------------------------------------------- statements


def output_problems(
    statement: AsmStatement, facts_of: Callable[[], FunctionFacts | None],
    parsed: ParsedSource | None,
) -> tuple[OutputProblem, ...]:
    """Each output of ``statement`` that nvcc rejects or that writes a ``const`` object.
    ``facts_of`` gives the facts of the statement's function, asked only for an output whose
    name a ``const`` precedes somewhere in the file (``maybe_const_names``): building a file's
    scope tables for every statement with an output was 1 KB a statement of a file's peak
    (tests/test_bad_inputs.py's 2,400 statements: 5.4 KB a statement with PTX013, 4.4 without)."""
    found: list[OutputProblem] = []
    asked = False
    facts: FunctionFacts | None = None
    consts = maybe_const_names(statement.source.text)
    for operand in statement.outputs:
        text = operand.expression.strip()
        if operand.constraint.opaque or not text:
            continue
        if _plain_name(text):
            # classify's lvalue of itself (CUTLASS's GMMA wrappers: 120,000 outputs, for which
            # building the reading was most of the rule's CPU): const only where a const may
            # name it
            if text in consts:
                if not asked:
                    asked, facts = True, facts_of()
                problem = _const_problem(operand, text, facts)
                if problem is not None:
                    found.append(problem)
            continue
        verdict = classify(operand.expression)
        if isinstance(verdict, _Verdict):
            found.append(OutputProblem(operand, verdict.what, verdict.nvcc, verdict.error))
        elif isinstance(verdict, _CastOf):
            problem = _cast_problem(operand, verdict.type_text, verdict.inner, parsed)
            if problem is not None:
                found.append(problem)
        elif isinstance(verdict, _Lvalue) and _may_be_const(verdict.text, consts):
            if not asked:
                asked, facts = True, facts_of()
            problem = _const_problem(operand, verdict.text, facts)
            if problem is not None:
                found.append(problem)
    return tuple(found)


def _may_be_const(text: str, consts: frozenset[str]) -> bool:
    """Whether the output ``text`` may name a const object as far as the file shows: a
    built-in (``threadIdx.x``), or a base name among the file's ``maybe_const_names`` (a
    superset of ``_maybe_const``'s names of its function, so no verdict of ``_const_problem``
    changes)."""
    builtin = _BUILTIN_MEMBER().fullmatch(text)
    if builtin is not None and builtin.group(1) in BUILTIN_VARIABLES:
        return True
    match = _BASE().fullmatch(text)
    return match is not None and match.group(2) in consts


def writable(operand: Operand, facts: FunctionFacts | None) -> bool:
    """Whether ``operand``'s expression, written as an output, is an lvalue that nvcc accepts
    without a warning, as far as its text and its declarations in ``facts`` show: what a fix
    that turns an input into an output must know (PTX105's), judged as ``output_problems``
    judges an output, so that the fix never makes the output PTX013 reports. Anything not
    shown to be such an lvalue (a cast, a call, a template-id) is not writable."""
    verdict = classify(operand.expression)
    return isinstance(verdict, _Lvalue) and _const_problem(operand, verdict.text, facts) is None


def _cast_problem(operand: Operand, type_text: str, inner: str, parsed: ParsedSource | None
                  ) -> OutputProblem | None:
    """A non-reference cast of an lvalue: nvcc ignores it (#1156) between integer types of one
    size, and rejects it when it converts (another size, or another class of type). Judged
    only when both types are known; a dependent operand (``(int)t`` with ``T t``) is not."""
    if parsed is None:
        return None
    target = _cast_target(type_text)
    if target is None:
        return None
    offset = operand.expression_span.start + operand.expression.find(inner)
    source = resolve_type(parsed, inner, offset) if inner else None
    if source is None or source.size is None:
        return None
    kind_a, kind_b = _CLASSES.get(source.kind), _CLASSES.get(target.kind)
    if kind_a is None or kind_b is None:
        return None
    if kind_a == kind_b and source.size == target.size and kind_a != "floating":
        return None
    if kind_a == kind_b == "floating" and source.size == target.size:
        return None
    return OutputProblem(
        operand, f"a cast that converts '{inner}' ({source.spelling}) to {type_text}",
        NOT_LVALUE, True,
    )


_BASE = on_first_use(r"\s*(\*\s*)?\(?\s*([A-Za-z_]\w*)\s*\)?\s*(\[.*\])?\s*$", re.DOTALL)
_BUILTIN_MEMBER = on_first_use(r"\s*([A-Za-z_]\w*)\s*\.\s*[xyz]\s*$")


def _const_problem(operand: Operand, text: str, facts: FunctionFacts | None
                   ) -> OutputProblem | None:
    builtin = _BUILTIN_MEMBER().fullmatch(text)
    # CUDA's built-in variables are const (declared `extern const uint3 threadIdx` and so on)
    if builtin is not None and builtin.group(1) in BUILTIN_VARIABLES:
        if facts is None or facts.resolve(builtin.group(1), _byte(facts, operand)) is None:
            return OutputProblem(operand, f"the built-in '{builtin.group(1)}', which is const",
                                 NOT_LVALUE, False)
        return None
    match = _BASE().fullmatch(text)
    if match is None or facts is None:
        return None
    deref, name, subscript = match.group(1), match.group(2), match.group(3)
    if deref and subscript:
        return None
    if name not in _maybe_const(facts):
        return None  # no `const` before it in any declaration of the function: not const
    decl = facts.resolve(name, _byte(facts, operand), templates=False)
    if decl is None or not (decl.const or decl.constexpr):
        return None
    if deref or subscript:
        if not decl.indirect or decl.reference:
            return None
        ctype = operand.ctype
        if ctype is None or ctype.kind == "pointer" or ctype.kind == "aggregate":
            return None  # an element that is itself a pointer may be a `const T *` one
        return OutputProblem(operand, f"an element behind '{name}', a pointer or array of "
                             "const", NOT_LVALUE, False)
    if decl.indirect:
        return None  # `const int *p`: the pointer itself is not const
    what = "a constexpr variable" if decl.constexpr else (
        "a const reference" if decl.reference else "a const variable")
    return OutputProblem(operand, f"'{name}', {what}", NOT_LVALUE, False)


# The names a `const`/`constexpr` precedes within one declarator of a function (its parameters
# included): only these can be const, and only these are looked up (a GMMA wrapper's 128 `float&`
# outputs are not; resolving each parameter by name is most of the rule's cost otherwise).
_CONST_RUN = on_first_use(rb"\bconst(?:expr)?\b([^;{}(),=]*)")
_WORD = on_first_use(rb"[A-Za-z_]\w*")
_MAYBE_CONST: dict[tuple[int, int], tuple[FunctionFacts, frozenset[str]]] = {}
file_memos.register(_MAYBE_CONST.clear)  # a batch run lets go of each file after it


def _maybe_const(facts: FunctionFacts) -> frozenset[str]:
    key = (id(facts.parsed), facts.start)
    known = _MAYBE_CONST.get(key)
    if known is not None and known[0] is facts:
        return known[1]
    data = facts.parsed.data[facts.start : facts.end]
    names = frozenset(
        word.decode("ascii")
        for run in _CONST_RUN().finditer(data)
        for word in _WORD().findall(run.group(1))
    )
    if len(_MAYBE_CONST) >= 1024:
        _MAYBE_CONST.clear()
    _MAYBE_CONST[key] = (facts, names)
    return names


def _byte(facts: FunctionFacts, operand: Operand) -> int:
    return facts.parsed.to_byte(operand.expression_span.start)
