"""Tier-1 syntactic type resolution for asm operand expressions.

The rules that consume these types (constraint-size-mismatch, non-scalar-operand) report errors,
so this module prefers silence over guessing: whenever a name is unknown, depends on a template
parameter, comes from a macro, or has conflicting declarations (``#if`` branches, overloads,
namespaces), the answer is ``None``. Only what the file itself spells out is used; types from
other headers are known only through the small built-in tables below (CUDA vector types,
``__half``, fixed-width integers, a handful of intrinsics).

Everything is computed on the tree-sitter tree the caller already has, and nothing is redone per
operand (CUTLASS's ``mma_sm90_gmma_ext.hpp`` has 736 statements with 48,000 operands in
functions of up to 130 parameters):

- File-wide indexes (type names, namespace-scope variables and functions, enumerators, macros)
  are built once per resolver. Type names, enumerators and macros come from the keywords that
  begin their declarations (``_keyword_captures``: a search of the bytes per keyword and one
  descent per match), not from a pass over every node of the tree. Macros are read first
  (every name is checked against them); ``enum`` on the first look-up that needs an enum or
  an enumerator (``_enum_names``: a name no scope declares), the other five keywords on the
  first that needs a type name that is not built in or a class (``_type_names``). Of 257
  flashinfer files (41.6 MB), 125 never read the enums and 220 (36.7 MB) never the rest.
- Every scope (block, function parameters, class body, template parameters, ``for``/``if``
  initializers) gets one symbol table, ``name -> declarations``, built in one pass over that
  scope's own children the first time a lookup passes through it and cached by node id (a
  block's ``T x`` and ``T x = v`` read inline: ``_add_declaration``).
- An operand expression is typed from its node in the file's tree (found by its byte range);
  the expression is parsed on its own only when the file's tree does not hold it exactly (a
  parse error around it).
- Answers are memoised per (expression, chain of scopes), each with the range of byte offsets
  it holds for (``_memoised``): the same expression in the same scope is typed once, and a
  plain name (most operands) is looked up from its statement's chain of scopes without a
  tree-sitter call. Parameter lists of the same text share one table (``_parameter_table``).
- Values whose type provably ignores part of their text share a key: ``a[i][j + 1]`` is keyed
  by the name and the number of subscripts (``_subscript_key``), a cast ``*(T*)&x`` or
  ``reinterpret_cast<T>(x)`` by ``T`` (``_cast_key``; file-wide when ``T`` is made of words
  such as ``unsigned long long``), and an answer that read nothing of where it is written (a
  literal, a cast of words: ``_Expr.located``) serves its text anywhere in the file.
- The type of a declaration, of a record's convertibility and of a function's out-of-line class
  are memoised, so the operands of one function share all of that work; so is each node's chain
  of declaring scopes, so an operand climbs only to its statement's node.

Complexity: O(N) for the file (each scope's children are visited once, each type specifier is
resolved once, a search of the bytes per index keyword) plus, per distinct key (expression, or
the shared keys above, and scope) and range between declarations of its names, O(size of the
expression x nesting depth of its scope); every other operand costs a few dictionary look-ups
(a shared key: the tree-sitter steps down to the name or the cast's type). Nothing grows with
statements x parameters.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import tree_sitter
import tree_sitter_cuda

from ptxlint.frontends.syntax_tree import WALK_LIMIT, nodes_of_kinds, shared_parent
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import CType

Node = tree_sitter.Node

# --------------------------------------------------------------------------- internal types


@dataclass(frozen=True)
class _Ty:
    """A richer type than ``CType``: enough structure to follow ``*``, ``[]``, ``.`` and ``->``."""

    spelling: str
    kind: str  # CType kinds plus "function"
    size: int | None
    rank: int = 0  # integer conversion rank; 0 for everything that is not an integer
    unsigned: bool = False
    # pointer: pointee; array: element; vector: component; enum: underlying; function: return
    target: _Ty | None = None
    array: bool = False
    lanes: int = 0  # components of a CUDA vector type (x, y, z, w)
    scoped: bool = False  # enum class: no implicit conversion to int
    bodies: tuple[Node, ...] = field(default=(), compare=False, hash=False)  # record bodies

    def same(self, other: _Ty) -> bool:
        return (self.spelling, self.kind, self.size) == (other.spelling, other.kind, other.size)


def _may_convert(record: _Ty) -> bool:
    """Whether a record might convert implicitly: body unseen, bases, or a conversion operator."""
    if not record.bodies:
        return True
    for body in record.bodies:
        owner = body.parent
        if owner is not None and any(c.type == "base_class_clause" for c in owner.children):
            return True
        stack = list(body.named_children)
        while stack:
            node = stack.pop()
            if node.type == "operator_cast":
                return True
            stack.extend(node.named_children)
    return False


# Canonical integer spellings: (size, rank, unsigned). LP64: long is 8 bytes.
_INTEGERS: dict[str, tuple[int, int, bool]] = {
    "char": (1, 2, False),  # signed on every target nvcc supports
    "signed char": (1, 2, False),
    "unsigned char": (1, 2, True),
    "short": (2, 3, False),
    "unsigned short": (2, 3, True),
    "char16_t": (2, 3, True),
    "int": (4, 4, False),
    "unsigned int": (4, 4, True),
    "wchar_t": (4, 4, False),
    "char32_t": (4, 4, True),
    "long": (8, 5, False),
    "unsigned long": (8, 5, True),
    "long long": (8, 6, False),
    "unsigned long long": (8, 6, True),
    "__int128": (16, 7, False),
    "unsigned __int128": (16, 7, True),
}
_FLOATS = {"float": 4, "double": 8, "long double": 16}
# one value per spelling: _promote and literals ask for these per operand
_INTEGER_TYPES = {
    spelling: _Ty(spelling, "integer", size, rank, unsigned)
    for spelling, (size, rank, unsigned) in _INTEGERS.items()
}
_FLOAT_TYPES = {spelling: _Ty(spelling, "floating", size) for spelling, size in _FLOATS.items()}


def _int(spelling: str) -> _Ty:
    return _INTEGER_TYPES[spelling]


def _float(spelling: str) -> _Ty:
    return _FLOAT_TYPES[spelling]


_BOOL = _Ty("bool", "bool", 1, rank=1, unsigned=True)
_INT = _int("int")
_UINT = _int("unsigned int")
_ULONG = _int("unsigned long")
_LONG = _int("long")
_HALF = _Ty("__half", "half", 2)
_BF16 = _Ty("__nv_bfloat16", "half", 2)

# Names that resolve without any declaration in the file: C/C++ typedefs from the standard
# headers (as glibc defines them on x86-64/aarch64 Linux) and CUDA's own types.
_SCALAR_NAMES: dict[str, _Ty] = {
    **{name: _int(name) for name in _INTEGERS},
    **{name: _float(name) for name in _FLOATS},
    "bool": _BOOL,
    "_Bool": _BOOL,
    "signed": _INT,
    "unsigned": _UINT,
    "int8_t": _int("signed char"),
    "uint8_t": _int("unsigned char"),
    "int16_t": _int("short"),
    "uint16_t": _int("unsigned short"),
    "int32_t": _INT,
    "uint32_t": _UINT,
    "int64_t": _LONG,
    "uint64_t": _ULONG,
    "size_t": _ULONG,
    "ssize_t": _LONG,
    "ptrdiff_t": _LONG,
    "intptr_t": _LONG,
    "uintptr_t": _ULONG,
    "intmax_t": _LONG,
    "uintmax_t": _ULONG,
    "clock_t": _LONG,
    "half": _HALF,
    "__half": _HALF,
    "__nv_bfloat16": _BF16,
    "nv_bfloat16": _BF16,
}


def _vector(spelling: str, component: _Ty, lanes: int) -> _Ty:
    size = component.size * lanes if component.size is not None else None
    return _Ty(spelling, "aggregate", size, target=component, lanes=lanes)


_VECTOR_COMPONENTS = {
    "char": "signed char",
    "uchar": "unsigned char",
    "short": "short",
    "ushort": "unsigned short",
    "int": "int",
    "uint": "unsigned int",
    "long": "long",
    "ulong": "unsigned long",
    "longlong": "long long",
    "ulonglong": "unsigned long long",
    "float": "float",
    "double": "double",
}
_AGGREGATE_NAMES: dict[str, _Ty] = {
    f"{prefix}{n}": _vector(f"{prefix}{n}", _float(c) if c in _FLOATS else _int(c), n)
    for prefix, c in _VECTOR_COMPONENTS.items()
    for n in (1, 2, 3, 4)
}
_AGGREGATE_NAMES.update(
    {
        "dim3": _vector("dim3", _UINT, 3),
        "half2": _vector("__half2", _HALF, 2),
        "__half2": _vector("__half2", _HALF, 2),
        "__nv_bfloat162": _vector("__nv_bfloat162", _BF16, 2),
        "nv_bfloat162": _vector("__nv_bfloat162", _BF16, 2),
    }
)
_BUILTIN_TYPES: dict[str, _Ty] = {**_SCALAR_NAMES, **_AGGREGATE_NAMES}

_BUILTIN_VARIABLES: dict[str, _Ty] = {
    "threadIdx": _AGGREGATE_NAMES["uint3"],
    "blockIdx": _AGGREGATE_NAMES["uint3"],
    "blockDim": _AGGREGATE_NAMES["dim3"],
    "gridDim": _AGGREGATE_NAMES["dim3"],
    "clusterIdx": _AGGREGATE_NAMES["uint3"],
    "clusterDim": _AGGREGATE_NAMES["dim3"],
    "warpSize": _INT,
}

_VOID_PTR = _Ty("void *", "pointer", 8)
_SIZE_T = _ULONG
# Return types of CUDA intrinsics that operands are commonly wrapped in. Overloaded or templated
# ones (__shfl_sync, __ldg, min, max) are deliberately absent.
_INTRINSICS: dict[str, _Ty] = {
    "__cvta_generic_to_shared": _SIZE_T,
    "__cvta_generic_to_global": _SIZE_T,
    "__cvta_generic_to_constant": _SIZE_T,
    "__cvta_generic_to_local": _SIZE_T,
    "__cvta_generic_to_grid_constant": _SIZE_T,
    "__cvta_shared_to_generic": _VOID_PTR,
    "__cvta_global_to_generic": _VOID_PTR,
    "__cvta_constant_to_generic": _VOID_PTR,
    "__cvta_local_to_generic": _VOID_PTR,
    "__float_as_uint": _UINT,
    "__float_as_int": _INT,
    "__uint_as_float": _float("float"),
    "__int_as_float": _float("float"),
    "__double_as_longlong": _int("long long"),
    "__longlong_as_double": _float("double"),
    "__double2hiint": _INT,
    "__double2loint": _INT,
    "__hiloint2double": _float("double"),
    "__half_as_ushort": _int("unsigned short"),
    "__half_as_short": _int("short"),
    "__bfloat16_as_ushort": _int("unsigned short"),
    "__bfloat16_as_short": _int("short"),
    "__ushort_as_half": _HALF,
    "__short_as_half": _HALF,
    "__ushort_as_bfloat16": _BF16,
    "__short_as_bfloat16": _BF16,
    "__half2float": _float("float"),
    "__bfloat162float": _float("float"),
    "__float2half": _HALF,
    "__float2half_rn": _HALF,
    "__float2bfloat16": _BF16,
    "__float2bfloat16_rn": _BF16,
    "__float2int_rn": _INT,
    "__float2int_rz": _INT,
    "__float2uint_rn": _UINT,
    "__float2uint_rz": _UINT,
    "__int2float_rn": _float("float"),
    "__uint2float_rn": _float("float"),
    "__popc": _INT,
    "__popcll": _INT,
    "__clz": _INT,
    "__clzll": _INT,
    "__ffs": _INT,
    "__ffsll": _INT,
    "__brev": _UINT,
    "__brevll": _int("unsigned long long"),
    "__byte_perm": _UINT,
    "__funnelshift_l": _UINT,
    "__funnelshift_lc": _UINT,
    "__funnelshift_r": _UINT,
    "__funnelshift_rc": _UINT,
    "__mul24": _INT,
    "__umul24": _UINT,
    "__mulhi": _INT,
    "__umulhi": _UINT,
    "__mul64hi": _int("long long"),
    "__umul64hi": _int("unsigned long long"),
    "__sad": _INT,
    "__usad": _UINT,
    "__activemask": _UINT,
    "__ballot_sync": _UINT,
    "__any_sync": _INT,
    "__all_sync": _INT,
    "__syncthreads_count": _INT,
    "__syncthreads_and": _INT,
    "__syncthreads_or": _INT,
    "__isShared": _UINT,
    "__isGlobal": _UINT,
    "__isConstant": _UINT,
    "__isLocal": _UINT,
    "clock": _LONG,
    "clock64": _int("long long"),
    "__clock64": _int("long long"),
    "__globaltimer": _int("unsigned long long"),
}

_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "bit_cast"})
# Namespaces whose spelling of a built-in name means the built-in (std::uint32_t, ::size_t);
# _CUDA_VSTD is the macro libcu++ spells cuda::std with, too common in CUDA's headers to miss.
_STD_SCOPES = frozenset({"", "std", "cuda::std", "_CUDA_VSTD", "_CUDA_VSTD_NOVERSION"})
_RECORD_SPECIFIERS = frozenset({"struct_specifier", "class_specifier", "union_specifier"})
_PREPROC_BLOCKS = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
)
# Statements whose children are still in the enclosing block's scope.
_TRANSPARENT_STATEMENTS = _PREPROC_BLOCKS | {"case_statement", "labeled_statement"}
_TYPE_PARAMETERS = frozenset(
    {
        "type_parameter_declaration",
        "variadic_type_parameter_declaration",
        "optional_type_parameter_declaration",
        "template_template_parameter_declaration",
    }
)
_VALUE_PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration"})
# Statements whose header declares names into the statement (`for (int i...)`, `if (auto p = q)`)
_STATEMENT_SCOPES = frozenset(
    {"for_statement", "for_range_loop", "if_statement", "while_statement", "switch_statement"}
)
# every node kind ``TypeResolver._lookup_in`` finds declarations in
_DECLARING_SCOPES = _STATEMENT_SCOPES | _RECORD_SPECIFIERS | {
    "compound_statement", "function_definition", "lambda_expression", "catch_clause",
    "template_declaration",
}
_NAME_NODES = frozenset({"identifier", "field_identifier", "type_identifier"})
# Where an operand's expression sits in the file's tree when tree-sitter read the asm statement.
_OPERAND_VALUE_PARENTS = frozenset({"gnu_asm_output_operand", "gnu_asm_input_operand"})
_OPERAND_LISTS = frozenset({"gnu_asm_output_operand_list", "gnu_asm_input_operand_list"})
_FAR = 1 << 62  # past any byte offset
_NON_ASCII = on_first_use(r"[^\x00-\x7f]")
# How an operand value may begin when a node that declares (``_DECLARING_SCOPES``) starts where
# it starts. The node tree-sitter finds at an expression's first byte lies on the chain of the
# first children down from the expression's node, each starting at that byte; when none of them
# declares, both nodes have the same chain of scopes and the same declaring ancestors (what
# ``this_type`` and ``_is_template_parameter`` climb to). In an expression without a parse
# error a declaring node is a lambda (``[``), a statement or class body (``{``, inside one of
# those or in parentheses), a class specifier (its keyword: in a cast or sizeof it follows a
# parenthesis) or a statement, template or catch clause inside a body; a function definition
# only inside a class body.
_SCOPE_OPENING = on_first_use(
    rb"[\[{]|(?:struct|class|union|for|if|while|switch|template|catch)(?![A-Za-z0-9_$\x80-\xff])"
)
# An operand value spelled ``name[i]...[k]`` with one word in each pair of brackets: without a
# parse error it is a chain of subscripts of the name with one index each (the common case of
# ``TypeResolver._subscript_key``, read from the text).
_SUBSCRIPTS = on_first_use(rb"([A-Za-z_][A-Za-z0-9_]*)(?:\[[ \t]*[A-Za-z0-9_]+[ \t]*\])+")
_CAST_KINDS = frozenset({"cast_expression", "call_expression", "pointer_expression"})
# type specifiers whose type does not depend on where they are written
_PLACELESS_SPECIFIERS = frozenset({"primitive_type", "sized_type_specifier"})
# Scopes a name is looked up through (clang's default limit on nested brackets is 256)
MAX_SCOPES = 256
_MAX_DEPTH = 24  # typedef chains and nested expressions deeper than this are given up on

_WRAP_PREFIX = b"void __ptxlint_f(void) { __ptxlint_v = __ptxlint_g("
_WRAP_SUFFIX = b"); }\n"

_TYPE_QUERY_SOURCE = """
(type_definition) @typedef
(alias_declaration) @alias
(struct_specifier name: (type_identifier) @record)
(class_specifier name: (type_identifier) @record)
(union_specifier name: (type_identifier) @record)
(enum_specifier name: (type_identifier) @enum)
(enumerator name: (identifier) @enumerator)
(preproc_def name: (identifier) @macro)
(preproc_function_def name: (identifier) @macro)
"""


# the walk that stands in for the query on small files: node kind -> (kind of its name, capture)
_INDEX_NAMES = {
    "struct_specifier": ("type_identifier", "record"),
    "class_specifier": ("type_identifier", "record"),
    "union_specifier": ("type_identifier", "record"),
    "enum_specifier": ("type_identifier", "enum"),
    "enumerator": ("identifier", "enumerator"),
    "preproc_def": ("identifier", "macro"),
    "preproc_function_def": ("identifier", "macro"),
}
_INDEX_KINDS = frozenset({"type_definition", "alias_declaration", *_INDEX_NAMES})
# the keyword tokens that begin the nodes the index reads (see _keyword_captures), and the kinds
# of parent that make one such a node; ``define`` is the end of tree-sitter's ``#define`` token
# One pattern per word: a literal prefix is searched for by fast search, an alternation is tried at
# every byte (three times slower over a whole file).
_INDEX_KEYWORDS = tuple(
    re.compile(word + rb"(?![A-Za-z0-9_])")
    for word in (b"define", b"typedef", b"using", b"struct", b"class", b"union", b"enum")
)
# macros are needed by every name, the rest by fewer look-ups (TypeResolver._type_names)
_MACRO_KEYWORDS = _INDEX_KEYWORDS[:1]
_TYPE_KEYWORDS = _INDEX_KEYWORDS[1:6]
_ENUM_KEYWORDS = _INDEX_KEYWORDS[6:]
_KEYWORD_OWNERS = {
    "#define": frozenset({"preproc_def", "preproc_function_def"}),
    "typedef": frozenset({"type_definition"}),
    "using": frozenset({"alias_declaration"}),
    "struct": frozenset({"struct_specifier"}),
    "class": frozenset({"class_specifier"}),
    "union": frozenset({"union_specifier"}),
    "enum": frozenset({"enum_specifier"}),
}
_ENUMERATOR = frozenset({"enumerator"})


class _Language:
    """The CUDA grammar, its parser and the index query, built once per process."""

    _instance: _Language | None = None

    def __init__(self) -> None:
        self.language = tree_sitter.Language(tree_sitter_cuda.language())
        self.parser = tree_sitter.Parser(self.language)
        self._type_query: tree_sitter.Query | None = None

    @property
    def type_query(self) -> tree_sitter.Query:
        if self._type_query is None:  # compiled on first use: 50 ms, needed for big files only
            self._type_query = tree_sitter.Query(self.language, _TYPE_QUERY_SOURCE)
        return self._type_query

    @classmethod
    def get(cls) -> _Language:
        if cls._instance is None:
            cls._instance = _Language()
        return cls._instance


class _Stop(Exception):
    """Lookup hit a scope that may hide the name (an unknown base class): the answer is None."""


# A declared entity, found by name: its declarator, the specifier its type starts from, and
# whether it is a function parameter (arrays decay there). A tuple: tables of a big kernel's
# declarations make thousands.
class _Entry(NamedTuple):
    name_end: int
    declarator: Node | None
    specifier: Node | None
    parameter: bool = False


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    text = node.text
    return "" if text is None else text.decode("utf-8", "replace")


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def _declarator_name(decl: Node | None) -> Node | None:
    """The identifier a (possibly nested) declarator declares."""
    depth = 0
    while decl is not None and depth < _MAX_DEPTH:
        depth += 1
        if decl.type in _NAME_NODES:
            return decl
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            # reference, parenthesized and attributed declarators carry it unnamed
            named = [c for c in _named(decl) if c.type not in ("type_qualifier", "attribute")]
            inner = named[0] if decl.type != "array_declarator" and named else None
        decl = inner
    return None


def _utf8_length(text: str) -> int:
    # text decoded with surrogateescape maps back to its original bytes; other lone surrogates
    # cannot come from valid UTF-8 but must not crash the run
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass"))


def _split_qualified(node: Node) -> tuple[str, Node | None]:
    """``cuda::std::int32_t`` -> ("cuda::std", <int32_t>); a leading ``::`` is dropped."""
    parts: list[str] = []
    leaf: Node | None = node
    while leaf is not None and leaf.type == "qualified_identifier":
        scope = leaf.child_by_field_name("scope")
        if scope is not None:
            parts.append(_text(scope).replace(" ", ""))
        leaf = leaf.child_by_field_name("name")
    return "::".join(parts), leaf


def _is_reference(decl: Node | None) -> bool:
    """Whether a declarator declares a reference, such as ``(&out)[4]``."""
    depth = 0
    while decl is not None and depth < _MAX_DEPTH:
        depth += 1
        if decl.type == "reference_declarator":
            return True
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            named = _named(decl)
            inner = named[0] if named and decl.type.endswith("declarator") else None
        decl = inner
    return False


def _fits(value: int, ty: _Ty) -> bool:
    assert ty.size is not None
    bits = ty.size * 8 - (0 if ty.unsigned else 1)
    return value < (1 << bits)


def _integer_value(text: str) -> int | None:
    """The value of an integer literal, suffix and digit separators ignored."""
    body = text.replace("'", "").lower().rstrip("ul")
    try:
        if body.startswith("0x"):
            return int(body[2:], 16)
        if body.startswith("0b"):
            return int(body[2:], 2)
        if len(body) > 1 and body.startswith("0"):
            return int(body[1:], 8)
        return int(body, 10)
    except ValueError:
        return None  # C++23 size_t suffixes, user-defined literals


def _number_type(text: str) -> _Ty | None:
    s = text.replace("'", "").lower()
    hexadecimal = s.startswith("0x")
    if (hexadecimal and "p" in s) or (not hexadecimal and ("." in s or "e" in s)):
        if s.endswith("f"):
            return _float("float")
        if s.endswith("l"):
            return _float("long double")
        return _float("double") if s[-1].isdigit() or s[-1] == "." else None
    body = s.rstrip("ul")
    suffix = s[len(body) :]
    value = _integer_value(body)
    if value is None:
        return None
    decimal = not (hexadecimal or s.startswith("0") and len(body) > 1)
    unsigned = suffix.count("u")
    longs = suffix.count("l")
    if unsigned > 1 or longs > 2 or (longs == 2 and "ll" not in suffix):
        return None
    if unsigned:
        names = ["unsigned int", "unsigned long", "unsigned long long"][min(longs, 2) :]
    else:
        signed = ["int", "long", "long long"][min(longs, 2) :]
        names = []
        for name in signed:
            names.append(name)
            if not decimal:
                names.append("unsigned " + name)
    for name in names:
        if _fits(value, _int(name)):
            return _int(name)
    return None


def _pointer(target: _Ty | None, fallback: str = "?") -> _Ty:
    base = target.spelling if target is not None else fallback
    joiner = "" if base.endswith("*") else " "
    return _Ty(f"{base}{joiner}*", "pointer", 8, target=target)


def _array(element: _Ty | None, length: int | None, fallback: str = "?") -> _Ty:
    base = element.spelling if element is not None else fallback
    dims = f"[{length if length is not None else ''}]"
    if element is not None and element.array and "[" in base:
        at = base.index("[")
        spelling = base[:at] + dims + base[at:]
    else:
        spelling = base + dims
    size = None
    if element is not None and element.size is not None and length is not None:
        size = element.size * length
    return _Ty(spelling, "aggregate", size, target=element, array=True)


def _promote(ty: _Ty) -> _Ty | None:
    """Integer promotion; unscoped enums promote through their underlying type."""
    if ty.kind == "enum":
        if ty.scoped or ty.target is None:
            return None
        ty = ty.target
    if ty.kind == "floating":
        return ty
    if ty.kind not in ("integer", "bool"):
        return None
    if ty.rank < _INT.rank:
        return _INT  # every narrower type fits in int
    return _int(ty.spelling) if ty.spelling in _INTEGERS else ty


def _arithmetic(left: _Ty, right: _Ty) -> _Ty | None:
    """The usual arithmetic conversions."""
    a, b = _promote(left), _promote(right)
    if a is None or b is None:
        return None
    if a.kind == "floating" or b.kind == "floating":
        candidates = [t for t in (a, b) if t.kind == "floating"]
        return max(candidates, key=lambda t: t.size or 0)
    if a.same(b):
        return a
    if a.unsigned == b.unsigned:
        return a if a.rank > b.rank else b
    u, s = (a, b) if a.unsigned else (b, a)
    if u.rank >= s.rank:
        return u
    if s.size is not None and u.size is not None and s.size > u.size:
        return s
    return _int("unsigned " + s.spelling) if ("unsigned " + s.spelling) in _INTEGERS else None


def _agree(types: list[_Ty | None]) -> _Ty | None:
    """One answer from several declarations: all must name the same type."""
    if not types or types[0] is None:
        return None
    first = types[0]
    for other in types[1:]:
        if other is None or not first.same(other):
            return None
    return first


class _Scope:
    """A node that declares names (``_DECLARING_SCOPES``), with what lookups read of it."""

    __slots__ = ("kind", "node", "record", "single", "table")

    def __init__(self, node: Node, kind: str) -> None:
        self.node = node
        self.kind = kind
        self.table: dict[str, list[_Entry]] | None = None  # blocks, statements: name -> entries
        self.single: dict[str, _Entry] | None = None  # parameters, template values
        self.record: tuple[_Ty | None, bool] | None = None  # record scopes: type, has bases


class _SharedParameters:
    """A parameter list's table, for the lists of the same text, and the template parameter
    names around the function it was read in, when a parameter's type names a type (else
    None). A plain class: a data class costs about 0.3 ms of CPU to create at every start."""

    __slots__ = ("table", "templates")

    def __init__(self, table: dict[str, _Entry], templates: frozenset[str] | None) -> None:
        self.table = table
        self.templates = templates


# --------------------------------------------------------------------------- the resolver


class TypeResolver:
    """Resolves the C++ type of asm operand expressions in one parsed file."""

    def __init__(self, source_text: str, tree: tree_sitter.Tree, source_bytes: bytes) -> None:
        self._text = source_text
        self._tree = tree
        self._root = tree.root_node
        self._bytes = source_bytes
        self._ctypes: dict[tuple[str, str, int | None], CType] = {}
        # the operand values of the last statement asked about (see _operand_value)
        self._statement: Node | Sequence[Node] | None = None
        self._values: dict[tuple[int, int], tuple[Node, str, tuple[_Scope | None, ...]]] = {}
        self._lang = _Language.get()
        self._ascii = len(source_text) == len(source_bytes)
        self._length = len(source_text)
        self._byte_marks: list[int] | None = None
        self._wide: tuple[list[int], list[int]] | tuple[()] | None = None  # see _byte_offset
        self._indexed = False  # the macros (_ensure_index)
        self._types_indexed = False  # typedefs, aliases, records (_type_names)
        self._enums_indexed = False  # enums and enumerators (_enum_names)
        self._typedefs: dict[str, list[Node]] = {}
        self._records: dict[str, list[Node]] = {}  # record specifiers by name (bodies or not)
        self._enums: dict[str, list[Node]] = {}
        self._enumerators: dict[str, list[Node]] = {}
        self._macros: set[str] = set()
        self._globals: dict[str, list[_Entry]] | None = None
        self._scopes: dict[int, dict[str, list[_Entry]]] = {}
        self._template_params: dict[int, tuple[frozenset[str], list[Node]]] = {}
        # symbol tables of parameter lists, for/if initializers and template value parameters,
        # by the id of the node that owns them
        self._parameters: dict[int, dict[str, _Entry]] = {}
        # parameter lists by (owner kind, text), for the lists of the same text (_share)
        self._shared_parameters: dict[tuple[str, bytes], _SharedParameters | None] = {}
        self._template_names: dict[int, frozenset[str]] = {}
        self._statement_scopes: dict[int, dict[str, list[_Entry]]] = {}
        self._template_values: dict[int, dict[str, _Entry]] = {}
        self._owners: dict[int, tuple[_Ty | None, bool]] = {}  # out-of-line class, raises
        self._entry_types: dict[tuple[int, bool], _Ty | None] = {}
        self._chains: dict[int, tuple[_Scope | None, ...]] = {}  # see _scope_chain
        # node id -> parent, for the file's tree: shared with extraction's climbs (see
        # share_parents), since a tree-sitter parent step is a descent from the root
        self._parents: dict[int, Node] = {}
        self._value_field: int | None = None  # the id of the field "value" in the tree's grammar
        # the ids of the fields "declarator" and "type" (see _add_declaration)
        self._declaration_fields: tuple[int | None, int | None] | None = None
        self._convertible: dict[tuple[int, ...], bool] = {}
        self._depth = 0
        # named types by name (they do not depend on where the name is used once template
        # parameters are ruled out): each typedef chain is followed once, and a cycle or a
        # malformed chain (typedef A B; typedef B A;) is unknown instead of exponential
        self._named: dict[str, _Ty | None] = {}
        # answers by (expression or name, id of a chain of scopes[, parsed alone]): the range
        # of byte offsets [lo, hi) each holds for, and the answer (see _memoised)
        self._memo: dict[tuple[object, ...], tuple[int, int, CType | None]] = {}
        self._lo = -1
        self._hi = _FAR
        self._lookups: dict[tuple[str, int], tuple[int, int, _Ty | None, bool]] = {}
        self._alone: dict[str, Node | None] = {}  # see _parse_alone
        # answers of operand values (in the file's tree) that did not read where they are
        self._free: dict[str, tuple[CType | None]] = {}

    # ----------------------------------------------------------------- public API

    def resolve(
        self, expression: str, offset: int, statement: Node | Sequence[Node] | None = None
    ) -> CType | None:
        """The type of ``expression`` written at character ``offset``, or None when unsure.
        ``statement``: the keyword node of the asm statement whose operand this is, when the
        caller has it (see ``_operand_value``), or the keyword's nearest ancestors (the asm
        expression first) where the caller has read them: its parent steps are not made again.

        Answers are memoised per (expression, chain of scopes where it is written), with the
        range of byte offsets the answer holds for (see ``_memoised``): an operand whose
        expression was typed in the same scope costs two dictionary look-ups. A plain name that
        is an operand's whole value in the file's tree (most operands) is typed from its
        statement's chain of scopes without a tree-sitter call (``_name_type``)."""
        if not self._indexed:
            self._ensure_index()
        ascii_offset = self._ascii and 0 <= offset <= self._length
        b = offset if ascii_offset else self._byte_offset(offset)
        if statement is not None:
            if expression.isascii():
                data = expression.encode()
            else:
                data = expression.encode("utf-8", "surrogatepass")
            e = b + len(data)
            node = None
            if self._bytes[b:e] == data:
                if statement is not self._statement:
                    self._statement = statement
                    self._values = self._operand_values(statement)
                found = self._values.get((b, e))
                if found is None:
                    node = self._expression_node(expression, b)
                else:
                    value, kind, tail = found
                    if kind == "identifier" and e > b:
                        # a leaf spanning [b, e): it is the node at byte b, and its chain of
                        # scopes is its statement's (see _operand_value)
                        return self._name_type(expression, tail, b)
                    node = self._value_node(value, kind, tail)
                    if node is not None and _SCOPE_OPENING().match(data) is None:
                        # typed from its own node instead of the one at byte b: see
                        # _SCOPE_OPENING for why the two have the same scopes
                        return self._value_type(expression, data, value, kind, tail, b)
        else:
            node = self._expression_node(expression, b)
        alone = node is None
        if node is None:
            node = self._parse_alone(expression)
            if node is None:
                return None
        where = self._root.descendant_for_byte_range(b, b) or self._root
        chain = self._scope_chain(where)
        if node.type == "identifier":
            return self._name_type(_text(node), chain, b)
        if chain and chain[-1] is None:
            # in a #define body: this_type and the template parameters are read from
            # ``where``'s ancestors past the cut, which the chain does not stand for
            return self._typed(_Expr(self, where, b, chain), node)
        key = (expression, id(chain), alone)
        return self._memoised(key, b, lambda: self._typed(_Expr(self, where, b, chain), node))

    def share_parents(self, parents: dict[int, Node]) -> None:
        """Climb the file's tree through ``parents`` (node id -> parent node, of this tree), and
        record the parent steps made here in it: extraction climbs from each asm keyword to its
        function first (``statement_context.Ancestors``), and the climb to a statement's scopes
        (``_scope_chain``) and to its template parameters (``_template_names_at``) passes the
        same nodes, so each parent step is made once per file, not once per climber."""
        parents.update(self._parents)
        self._parents = parents

    __call__ = resolve  # a TypeResolver is extraction's type look-up (engine.type_lookup)

    def resolve_operands(
        self, operands: Sequence[tuple[str, int]], statement: Sequence[Node]
    ) -> list[CType | None]:
        """``[resolve(expression, offset, statement) for expression, offset in operands]`` for
        the operands of one asm statement, ``statement`` being its keyword's nearest ancestors
        (see ``resolve``): one call per statement instead of one per operand, whose loop takes
        the paths ``resolve`` takes for an operand that is a value of the statement in the
        file's tree (a name: ``_name_type``; another value: ``_value_type``), with their memo
        hits inline, and leaves every other operand to ``resolve``.

        Complexity: a few dictionary look-ups per operand typed before in its scope, plus
        ``resolve``'s cost for the others."""
        if not self._indexed:
            self._ensure_index()
        if statement is not self._statement:
            self._statement = statement
            self._values = self._operand_values(statement)
        values = self._values
        source = self._bytes
        memo = self._memo
        free = self._free
        chains = self._chains
        handlers = _Expr._HANDLERS
        length = self._length if self._ascii else -1
        out: list[CType | None] = []
        for expression, offset in operands:
            b = offset if 0 <= offset <= length else self._byte_offset(offset)
            if expression.isascii():
                data = expression.encode()
            else:
                data = expression.encode("utf-8", "surrogatepass")
            e = b + len(data)
            found = values.get((b, e))
            if found is None or source[b:e] != data:
                out.append(self.resolve(expression, offset, statement))
                continue
            value, kind, tail = found
            if kind == "identifier" and e > b:
                hit = memo.get((expression, id(tail)))
                if hit is not None and hit[0] <= b < hit[1]:
                    out.append(hit[2])
                else:
                    out.append(self._name_type(expression, tail, b))
                continue
            if (
                value.has_error
                or value.is_missing
                or kind not in handlers
                or _SCOPE_OPENING().match(data) is not None
            ):
                out.append(self.resolve(expression, offset, statement))
                continue
            key = value.id  # what _value_node records (a value kind declares nothing)
            if key not in chains:
                chains[key] = tail
            answer = free.get(expression)
            if answer is not None:
                out.append(answer[0])
                continue
            hit = memo.get((expression, id(tail), False))
            if hit is not None and hit[0] <= b < hit[1]:
                out.append(hit[2])
                continue
            out.append(self._value_type(expression, data, value, kind, tail, b))
        return out

    def _value_type(
        self,
        expression: str,
        data: bytes,
        value: Node,
        kind: str,
        tail: tuple[_Scope | None, ...],
        b: int,
    ) -> CType | None:
        """The type of an operand's value node of the file's tree, typed under its statement's
        chain of scopes and memoised (see ``_memoised``) per spelling, and for subscripts and
        casts also per shared key (``_subscript_key``, ``_cast_key``), looked at only when the
        spelling is new: a key costs more than a look-up. An answer that read nothing of where
        it is (``_Expr.located``) serves the spelling anywhere in the file."""
        free = self._free.get(expression)
        if free is not None:
            return free[0]
        memo = self._memo
        key = (expression, id(tail), False)
        hit = memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        shared: tuple[object, ...] | None = None
        if kind == "subscript_expression":
            shared = self._subscript_key(value, data, tail)
        elif kind in _CAST_KINDS:
            shared = self._cast_key(value, kind, data, tail)
        if shared is not None:
            hit = memo.get(shared)
            if hit is not None and hit[0] <= b < hit[1]:
                memo[key] = hit
                return hit[2]
        self._lo = -1
        self._hi = _FAR
        try:
            named = None if shared is None or kind != "subscript_expression" else (
                self._subscripted_name(value, shared, tail, b)
            )
            if named is not None:
                answer, located = named
            else:
                typer = _Expr(self, value, b, tail)
                answer = self._typed(typer, value)
                located = typer.located
        except RecursionError:
            return None
        memo[key] = hit = (self._lo, self._hi, answer)
        if shared is not None:
            memo[shared] = hit
        if not located:
            self._free[expression] = (answer,)
        return answer

    def _subscripted_name(
        self, value: Node, shared: tuple[object, ...], chain: tuple[_Scope | None, ...], b: int
    ) -> tuple[CType | None, bool] | None:
        """What ``_typed`` makes of ``name[i]...[k]`` (``shared``: its ``_subscript_key``), and
        whether it read where it is (``_Expr.located``), without ``_Expr``'s walk: the name's
        type as ``_Expr._identifier`` reads it, then ``_Expr._element`` once per pair. None
        where the value is not that chain of subscripts down to an identifier (then ``_Expr``
        types it). The key already says each pair holds one index; only the chain's kinds
        down to the name are read here, one field step per pair.

        Complexity: O(pairs) tree-sitter steps plus the name's memoised look-up, against
        ``_Expr``'s O(pairs) handler calls, index reads and list copies."""
        spelled, pairs = shared[0], shared[1]
        if not isinstance(spelled, bytes) or not isinstance(pairs, int) or not 0 < pairs <= 8:
            return None
        node: Node | None = value
        for _ in range(pairs):
            if node is None or node.type != "subscript_expression":
                return None
            node = node.child_by_field_name("argument")
        if node is None or node.type != "identifier":
            return None
        name = spelled.decode("utf-8", "replace")
        located = False
        if name in self._macros:
            ty = None
        else:
            ty = _BUILTIN_VARIABLES.get(name)
            if ty is None:
                located = True
                self._depth = 0
                try:
                    ty = self._lookup_chain(chain, name, b)
                except _Stop:
                    return None, True
                if ty is not None and ty.kind == "function":
                    ty = None
        for _ in range(pairs):
            ty = _Expr._element(ty)
        return self._ctype(ty), located

    def _subscript_key(
        self, value: Node, data: bytes, chain: tuple[_Scope | None, ...]
    ) -> tuple[object, ...] | None:
        """A memo key for an operand value that is a name with subscripts, ``a[i][j + 1]``:
        ``_Expr._subscript`` types each pair of brackets as the element of what it follows and
        reads no index (only that there is one), so every such value with the same name and
        number of pairs has the same type in one scope. None for any other value."""
        simple = _SUBSCRIPTS().fullmatch(data)
        if simple is not None:
            return (simple[1], data.count(b"["), id(chain))
        node: Node | None = value
        pairs = 0
        while node is not None and node.type == "subscript_expression":
            indices = node.child_by_field_name("indices")
            if indices is None or len(_named(indices)) != 1:
                return None
            pairs += 1
            node = node.child_by_field_name("argument")
        if node is None or node.type != "identifier":
            return None
        return (self._bytes[node.start_byte : node.end_byte], pairs, id(chain))

    def _cast_key(
        self, value: Node, kind: str, data: bytes, chain: tuple[_Scope | None, ...]
    ) -> tuple[object, ...] | None:
        """A memo key for an operand value that is a cast, ``(T)x`` or ``xxx_cast<T>(x)``,
        or ``*`` of one: ``_Expr`` types it from ``T`` alone, never from ``x``. ``T`` depends
        on where it is written only through the template parameters around it (a name may be
        one), and those are the template scopes of ``chain``; a type of words (``unsigned
        long long*``) depends on nothing. None for any other value."""
        node = value
        star = kind == "pointer_expression"
        if star:
            if not data.startswith(b"*"):  # a prefix operator: the value's first byte
                return None
            argument = value.child_by_field_name("argument")
            if argument is None:
                return None
            node, kind = argument, argument.type
        if kind == "cast_expression":
            desc = node.child_by_field_name("type")
        elif kind == "call_expression":
            fn = node.child_by_field_name("function")  # as _Expr._call reads a cast
            if fn is None or fn.type != "template_function":
                return None
            if _text(fn.child_by_field_name("name")) not in _CASTS:
                return None
            args = fn.child_by_field_name("arguments")
            targets = _named(args) if args is not None else []
            if len(targets) != 1 or targets[0].type != "type_descriptor":
                return None
            desc = targets[0]
        else:
            return None
        if desc is None or desc.type != "type_descriptor":
            return None
        spec = desc.child_by_field_name("type")
        scope = None if spec is not None and spec.type in _PLACELESS_SPECIFIERS else id(chain)
        return (kind, star, self._bytes[desc.start_byte : desc.end_byte], scope)

    def _name_type(self, name: str, chain: tuple[_Scope | None, ...], b: int) -> CType | None:
        """What ``_Expr._identifier`` and ``resolve`` make of the name ``name`` used at byte
        ``b`` under ``chain``; memoised per (name, chain) (see ``_memoised``)."""
        key = (name, id(chain))
        hit = self._memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        if name in self._macros:
            answer = None
            self._memo[key] = (-1, _FAR, answer)
            return answer
        builtin = _BUILTIN_VARIABLES.get(name)
        if builtin is not None:
            answer = self._ctype(builtin)
            self._memo[key] = (-1, _FAR, answer)
            return answer
        self._lo = -1
        self._hi = _FAR
        self._depth = 0
        try:
            # not through _lookup_chain's memo: this one has the same key
            answer = self._ctype(self._lookup_scopes(chain, name, b))
        except _Stop:
            answer = None
        except RecursionError:
            return None
        self._memo[key] = (self._lo, self._hi, answer)
        return answer

    def _typed(self, typer: _Expr, node: Node) -> CType | None:
        self._depth = 0
        try:
            ty = typer.type_of(node)
        except _Stop:
            return None
        return self._ctype(ty)

    def _memoised(
        self, key: tuple[object, ...], b: int, compute: Callable[[], CType | None]
    ) -> CType | None:
        """``compute()``, memoised under ``key`` for the byte offsets ``[lo, hi)`` it holds for.

        Typing an expression under one chain of scopes depends on the byte offset ``b`` only
        through which declarations of a looked-up name are visible: a block-scope or
        namespace-scope entry counts where ``name_end <= b`` (``_lookup_in``,
        ``_fallback_names``). Every such test narrows ``[self._lo, self._hi)`` to the offsets
        that give it the same outcome, so any ``b`` in the range makes every lookup stop at
        the same scope with the same entries: the same answer. A later declaration shadowing
        the name in an inner block ends the range at that declaration's name.

        The chain is part of every key by ``id``: chains live in ``self._chains`` as long as
        the resolver, so an id is never reused for another chain. A RecursionError (the
        answer could depend on the caller's stack) is not memoised."""
        hit = self._memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        self._lo = -1
        self._hi = _FAR
        try:
            answer = compute()
        except RecursionError:
            return None
        self._memo[key] = (self._lo, self._hi, answer)
        return answer

    def _ctype(self, ty: _Ty | None) -> CType | None:
        if ty is None or ty.kind == "function":
            return None
        if ty.kind == "aggregate" and not ty.lanes and not ty.array and self._may_convert(ty):
            # nvcc converts a class with a conversion operator to the operand's scalar type, so
            # "aggregate" is only claimed for records whose whole body is seen and plain
            return None
        # one CType per distinct answer (a frozen value): 48,000 operands, a dozen answers
        key = (ty.spelling, ty.kind, ty.size)
        ctype = self._ctypes.get(key)
        if ctype is None:
            ctype = CType(spelling=ty.spelling, kind=ty.kind, size=ty.size, tier=1)
            self._ctypes[key] = ctype
        return ctype

    def _expression_node(self, expression: str, b: int) -> Node | None:
        """The node of the file's tree that spans exactly ``expression`` at byte ``b``."""
        data = expression.encode("utf-8", "surrogatepass")
        e = b + len(data)
        if self._bytes[b:e] != data:
            return None
        node: Node | None = self._root.descendant_for_byte_range(b, e)
        if node is None:
            return None
        # the smallest node may be a wrapper's child: climb while the span stays the same
        parent = node.parent
        while parent is not None and parent.start_byte == b and parent.end_byte == e:
            node = parent
            parent = node.parent
        if node.start_byte != b or node.end_byte != e:
            return None
        if node.has_error or node.is_missing or node.type not in _Expr._HANDLERS:
            return None
        if parent is None or parent.type not in _OPERAND_VALUE_PARENTS:
            return None  # not an asm operand's value in this tree: read it on its own
        return node

    def _operand_value(self, expression: str, b: int, statement: Node) -> Node | None:
        """``_expression_node(expression, b)`` for an operand of the asm statement whose
        keyword is ``statement``, read from the statement's operand values, gathered once per
        statement, instead of from two descents and the parent steps from the expression to
        its scopes (each a descent from the root in tree-sitter: in a file of many functions
        they cost more than the rest of the typing).

        The same node: a value child of an operand that spans ``[b, e)`` is the outermost node
        of that span (its operand also holds the constraint before it), and every node of that
        span lies under it. Its chain of scopes is the statement's, plus itself where it
        declares (a lambda), since operands and their lists declare nothing."""
        data = expression.encode("utf-8", "surrogatepass")
        e = b + len(data)
        if self._bytes[b:e] != data:
            return None
        if statement is not self._statement:
            self._statement = statement
            self._values = self._operand_values(statement)
        found = self._values.get((b, e))
        if found is None:
            return self._expression_node(expression, b)
        return self._value_node(*found)

    def _value_node(
        self, node: Node, kind: str, tail: tuple[_Scope | None, ...]
    ) -> Node | None:
        """An operand's value node from ``_operand_values``, unless tree-sitter could not read
        it (then it is parsed alone), with its chain of scopes recorded for ``_scope_chain``."""
        if node.has_error or node.is_missing or kind not in _Expr._HANDLERS:
            return None
        key = node.id
        if key not in self._chains:
            self._chains[key] = (_Scope(node, kind), *tail) if kind in _DECLARING_SCOPES else tail
        return node

    def _operand_values(
        self, statement: Node | Sequence[Node]
    ) -> dict[tuple[int, int], tuple[Node, str, tuple[_Scope | None, ...]]]:
        """The value nodes of the operands of the asm statement of ``statement`` (its keyword,
        or the keyword's nearest ancestors: see ``resolve``), by byte span, with their kind and
        the statement's chain of scopes."""
        values: dict[tuple[int, int], tuple[Node, str, tuple[_Scope | None, ...]]] = {}
        if isinstance(statement, Node):
            asm = statement.parent
            ups: Sequence[Node] = ()
        else:
            asm = statement[0] if statement else None
            ups = statement[1:]
        if asm is None or asm.type != "gnu_asm_expression":
            return values
        tail = self._scope_chain(asm, ups)
        field = self._value_field
        if field is None:  # by id: a look-up by name compares the grammar's field names
            field = self._value_field = self._tree.language.field_id_for_name("value")
            if field is None:
                return values
        for section in asm.named_children:
            if section.type not in _OPERAND_LISTS:
                continue
            for operand in section.named_children:
                if operand.type not in _OPERAND_VALUE_PARENTS:
                    continue
                value = operand.child_by_field_id(field)
                if value is not None:
                    values[(value.start_byte, value.end_byte)] = (value, value.type, tail)
        return values

    def _parse_alone(self, expression: str) -> Node | None:
        """``expression`` parsed on its own, memoised per text: operands the file's tree does
        not hold repeat a few spellings (the CUDA 13 headers: 4,107 parses of 227 texts, from
        statements inside macro arguments). The memo keeps the snippets' trees alive, so their
        node ids are not reused while the resolver keeps them."""
        if expression in self._alone:
            return self._alone[expression]
        wrapped = _WRAP_PREFIX + expression.encode("utf-8") + _WRAP_SUFFIX
        snippet = self._lang.parser.parse(wrapped)
        node = None if snippet.root_node.has_error else self._unwrap(snippet.root_node)
        self._alone[expression] = node
        return node

    def _may_convert(self, record: _Ty) -> bool:
        key = tuple(body.id for body in record.bodies)
        cached = self._convertible.get(key)
        if cached is None:
            cached = _may_convert(record)
            self._convertible[key] = cached
        return cached

    # ----------------------------------------------------------------- positions

    def _byte_offset(self, offset: int) -> int:
        """The byte offset of character ``offset`` (clamped to the text): the offset plus the
        extra bytes of the non-ASCII characters before it, found by a bisect over their
        positions (read by one regex scan per file), where encoding the text up to the offset
        cost up to 4 KB of encoding per operand. A text that ``surrogateescape`` cannot encode
        (a lone surrogate that no decoding made) is measured chunk by chunk as before, since
        its fallback encoding is not additive per character."""
        offset = max(0, min(offset, len(self._text)))
        if self._ascii:
            return offset
        if self._wide is None:
            self._wide = self._wide_characters()
        if self._wide:
            where, extra = self._wide
            k = bisect_left(where, offset)
            return offset + (extra[k - 1] if k else 0)
        chunk = 4096
        if self._byte_marks is None:
            # byte offset at every chunk boundary, so each query encodes at most one chunk
            marks = [0]
            for start in range(0, len(self._text), chunk):
                marks.append(marks[-1] + _utf8_length(self._text[start : start + chunk]))
            self._byte_marks = marks
        index = offset // chunk
        return self._byte_marks[index] + _utf8_length(self._text[index * chunk : offset])

    def _wide_characters(self) -> tuple[list[int], list[int]] | tuple[()]:
        """(positions of the non-ASCII characters, extra bytes up to and including each), or
        () where the text holds a surrogate ``surrogateescape`` cannot encode."""
        where: list[int] = []
        extra: list[int] = []
        total = 0
        lengths: dict[str, int] = {}
        for match in _NON_ASCII().finditer(self._text):
            char = match.group()
            length = lengths.get(char)
            if length is None:
                try:
                    length = len(char.encode("utf-8", "surrogateescape"))
                except UnicodeEncodeError:
                    return ()
                lengths[char] = length
            total += length - 1
            where.append(match.start())
            extra.append(total)
        return where, extra

    @staticmethod
    def _unwrap(root: Node) -> Node | None:
        fn = root.named_children[0] if root.named_children else None
        body = fn.child_by_field_name("body") if fn is not None else None
        if body is None:
            return None
        statements = _named(body)
        if len(statements) != 1 or not statements[0].named_children:
            return None
        assign = statements[0].named_children[0]
        call = assign.child_by_field_name("right")
        args = call.child_by_field_name("arguments") if call is not None else None
        if args is None:
            return None
        values = _named(args)
        return values[0] if len(values) == 1 else None

    # ----------------------------------------------------------------- file-wide indexes

    def _ensure_index(self) -> None:
        """The macro names: every name an operand spells is checked against them."""
        if self._indexed:
            return
        self._indexed = True
        captures = self._keyword_captures(_MACRO_KEYWORDS)
        self._macros = {_text(name) for name, _ in captures.get("macro", [])}

    def _type_names(self) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
        """(typedefs and aliases, records) by name, read on the first look-up that needs them (a
        type name that is not built in, a class): five of the seven keyword searches
        (``_keyword_captures``), which a file whose operands name only built-in types and
        declared variables never needs."""
        if not self._types_indexed:
            self._types_indexed = True
            captures = self._keyword_captures(_TYPE_KEYWORDS)
            for _, node in captures.get("typedef", []):
                for decl in node.children_by_field_name("declarator"):
                    name = _declarator_name(decl)
                    if name is not None:
                        self._typedefs.setdefault(_text(name), []).append(node)
            for _, node in captures.get("alias", []):
                name_node = node.child_by_field_name("name")
                self._typedefs.setdefault(_text(name_node), []).append(node)
            for name, owner in captures.get("record", []):
                self._records.setdefault(_text(name), []).append(owner)
        return self._typedefs, self._records

    def _enum_names(self) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
        """(enums, enumerators) by name, read on the first look-up that needs them: most often
        a name no scope declares (``_fallback_names``), which needs only the ``enum`` search."""
        if not self._enums_indexed:
            self._enums_indexed = True
            captures = self._keyword_captures(_ENUM_KEYWORDS)
            for name, owner in captures.get("enum", []):
                self._enums.setdefault(_text(name), []).append(owner)
            for name, owner in captures.get("enumerator", []):
                self._enumerators.setdefault(_text(name), []).append(owner)
        return self._enums, self._enumerators

    def _keyword_captures(
        self, patterns: tuple[re.Pattern[bytes], ...] = _INDEX_KEYWORDS
    ) -> dict[str, list[tuple[Node, Node]]]:
        """What ``_index_captures`` finds, as (captured node, the node that declares it), found
        from the keywords that begin each declaration instead of from the whole tree.

        Every node ``_TYPE_QUERY_SOURCE`` names has its keyword token as a child (``typedef``,
        ``using``, ``struct``, ``class``, ``union``, ``enum``, and ``#define`` for both macro
        kinds), and a keyword token is a whole word of the text. So a search of the bytes for
        each word finds every candidate, and the token tree-sitter has there (one
        descent each) with its parent tells which are declarations; a word in a comment, a
        string or an identifier is a different token. Enumerators are read from their enum
        specifier's subtree; an ``enum`` token outside an enum specifier (a parse error) may
        have left enumerators anywhere, and then the enumerators come from the whole tree
        (``_index_captures``).

        Complexity: a search of the file per keyword plus O(depth) per match, and
        the size of each enum; against a query or walk over every node of the file (as much as
        a third of the parse)."""
        root = self._root
        out: dict[str, list[tuple[Node, Node]]] = {}
        enumerators: list[tuple[Node, Node]] = []
        seen: set[int] = set()
        stray = False
        matches = (m for pattern in patterns for m in pattern.finditer(self._bytes))
        for match in matches:
            token = root.descendant_for_byte_range(*match.span())
            if token is None:
                continue
            word = token.type
            want = _KEYWORD_OWNERS.get(word)
            if want is None:
                continue
            owner = token.parent
            if owner is None or owner.type not in want:
                if word == "enum":
                    stray = True
                continue
            key = owner.id
            if key in seen:
                continue
            seen.add(key)
            kind = owner.type
            if kind == "type_definition":
                out.setdefault("typedef", []).append((owner, owner))
                continue
            if kind == "alias_declaration":
                out.setdefault("alias", []).append((owner, owner))
                continue
            if kind == "enum_specifier":
                for enumerator in nodes_of_kinds(owner, _ENUMERATOR).get("enumerator", ()):
                    if enumerator.id not in seen:
                        seen.add(enumerator.id)
                        name = enumerator.child_by_field_name("name")
                        if name is not None and name.type == "identifier":
                            enumerators.append((name, enumerator))
            name = owner.child_by_field_name("name")
            if name is None:
                continue
            want_name, capture = _INDEX_NAMES[kind]
            if name.type == want_name:
                out.setdefault(capture, []).append((name, owner))
        if stray:
            enumerators = []
            for name in self._index_captures().get("enumerator", ()):
                assert name.parent is not None
                enumerators.append((name, name.parent))
        if enumerators:
            out["enumerator"] = enumerators
        for found in out.values():
            found.sort(key=lambda pair: pair[0].start_byte)
        return out

    def _index_captures(self) -> dict[str, list[Node]]:
        """What ``_TYPE_QUERY_SOURCE`` captures over the file, each capture's nodes in document
        order: by the query for a big file, by a walk for a small one (compiling the query costs
        about 50 ms once per process, the walk about 5 us per node)."""
        root = self._tree.root_node
        if len(self._bytes) > WALK_LIMIT:
            captured = tree_sitter.QueryCursor(self._lang.type_query).captures(root)
            # in document order, as the walk finds them: the query's own order follows its
            # matching (macros in nested #if blocks come out interleaved), and the first of
            # several agreeing declarations is the one whose spelling is reported
            return {c: sorted(nodes, key=lambda n: n.start_byte) for c, nodes in captured.items()}
        by_kind = nodes_of_kinds(root, _INDEX_KINDS)
        out: dict[str, list[Node]] = {}
        kinds = ("type_definition", "alias_declaration", "struct_specifier", "class_specifier",
                 "union_specifier", "enum_specifier", "enumerator", "preproc_def",
                 "preproc_function_def")
        named = [n for kind in kinds for n in by_kind.get(kind, ())]
        named.sort(key=lambda n: n.start_byte)  # one document order across kinds, as captured
        for node in named:
            kind = node.type
            if kind == "type_definition":
                out.setdefault("typedef", []).append(node)
                continue
            if kind == "alias_declaration":
                out.setdefault("alias", []).append(node)
                continue
            name = node.child_by_field_name("name")
            if name is None:
                continue
            want, capture = _INDEX_NAMES[kind]
            if name.type == want:
                out.setdefault(capture, []).append(name)
        for names in out.values():
            names.sort(key=lambda n: n.start_byte)
        return out

    def _global_entries(self) -> dict[str, list[_Entry]]:
        """Namespace-scope variables and functions, through namespaces, extern "C", #if."""
        if self._globals is None:
            table: dict[str, list[_Entry]] = {}
            self._collect(self._tree.root_node, table, namespace=True)
            self._globals = table
        return self._globals

    def _scope_entries(self, scope: Node) -> dict[str, list[_Entry]]:
        cached = self._scopes.get(scope.id)
        if cached is None:
            cached = {}
            if scope.type == "field_declaration_list":
                self._collect_members(scope, cached)
            else:
                self._collect(scope, cached, namespace=False)
            self._scopes[scope.id] = cached
        return cached

    def _collect(self, scope: Node, table: dict[str, list[_Entry]], namespace: bool) -> None:
        # In document order, through nested #if blocks and namespaces by a stack of the
        # children still to read, not by recursion: #if nested 2,000 deep raised
        # RecursionError, uncached, once per statement of the block.
        pending: list[Iterator[Node]] = [iter(scope.named_children)]
        while pending:
            child = next(pending[-1], None)
            if child is None:
                pending.pop()
                continue
            kind = child.type
            if kind == "declaration":
                self._add_declaration(child, table)
            elif kind == "function_definition" and namespace:
                self._add_declarator(child, child.child_by_field_name("declarator"), table)
            elif kind == "template_declaration" and namespace:
                # function templates: a concrete return type is still usable
                for inner in child.named_children:
                    if inner.type == "function_definition":
                        decl = inner.child_by_field_name("declarator")
                        self._add_declarator(inner, decl, table)
                    elif inner.type == "declaration":
                        self._add_declaration(inner, table)
            elif kind in _TRANSPARENT_STATEMENTS:
                pending.append(iter(child.named_children))
            elif namespace and kind in ("namespace_definition", "linkage_specification"):
                body = child.child_by_field_name("body")
                if body is not None:
                    pending.append(iter(body.named_children))

    def _add_declaration(self, decl: Node, table: dict[str, list[_Entry]]) -> None:
        """``_add_declarator`` for each declarator of ``decl``, with the two common shapes
        (``T x`` and ``T x = v``) read inline: a block table reads every declaration of its
        block, and the calls, field names and ``Node.text`` were most of its cost."""
        fields = self._declaration_fields
        if fields is None:
            language = self._tree.language
            fields = self._declaration_fields = (
                language.field_id_for_name("declarator"),
                language.field_id_for_name("type"),
            )
        declarator_field, type_field = fields
        if declarator_field is None or type_field is None:
            for declarator in decl.children_by_field_name("declarator"):
                self._add_declarator(decl, declarator, table)
            return
        declarators = decl.children_by_field_id(declarator_field)
        if not declarators:
            return
        spec = decl.child_by_field_id(type_field)
        source = self._bytes
        for declarator in declarators:
            kind = declarator.type
            name: Node | None = declarator
            if kind == "init_declarator":
                name = declarator.child_by_field_id(declarator_field)
                if name is None or name.type != "identifier":
                    name = _declarator_name(declarator)
            elif kind != "identifier":
                name = _declarator_name(declarator)
            if name is None or name.type == "type_identifier":
                continue
            end = name.end_byte
            entry = _Entry(end, declarator, spec)
            text = source[name.start_byte : end].decode("utf-8", "replace")
            found = table.get(text)
            if found is None:
                table[text] = [entry]
            else:
                found.append(entry)

    def _add_declarator(
        self,
        owner: Node,
        declarator: Node | None,
        table: dict[str, list[_Entry]],
        spec: Node | None = None,
    ) -> None:
        name = _declarator_name(declarator)
        if name is None or name.type == "type_identifier":
            return
        if spec is None:
            spec = owner.child_by_field_name("type")
        entry = _Entry(name.end_byte, declarator, spec)
        table.setdefault(_text(name), []).append(entry)

    def _collect_members(self, body: Node, table: dict[str, list[_Entry]]) -> None:
        for child in body.named_children:
            kind = child.type
            if kind in ("field_declaration", "declaration"):
                declarators = child.children_by_field_name("declarator")
                spec = child.child_by_field_name("type")
                if not declarators and spec is not None and spec.type in _RECORD_SPECIFIERS:
                    inner = spec.child_by_field_name("body")
                    if inner is not None and spec.child_by_field_name("name") is None:
                        self._collect_members(inner, table)  # anonymous union/struct members
                for declarator in declarators:
                    self._add_declarator(child, declarator, table)
            elif kind == "function_definition":
                self._add_declarator(child, child.child_by_field_name("declarator"), table)
            elif kind in _PREPROC_BLOCKS:
                self._collect_members(child, table)

    # ----------------------------------------------------------------- template parameters

    def _templates(self, node: Node) -> tuple[frozenset[str], list[Node]]:
        """Type parameter names and value parameter declarations of one template."""
        cached = self._template_params.get(node.id)
        if cached is None:
            types: set[str] = set()
            values: list[Node] = []
            params = node.child_by_field_name("parameters")
            for param in params.named_children if params is not None else []:
                if param.type in _TYPE_PARAMETERS:
                    for c in param.named_children:
                        if c.type == "type_identifier":
                            types.add(_text(c))
                        elif c.type in _TYPE_PARAMETERS:  # template <class> class TT
                            types.update(
                                _text(t) for t in c.named_children if t.type == "type_identifier"
                            )
                elif param.type in _VALUE_PARAMETERS or param.type.startswith("variadic"):
                    values.append(param)
            cached = (frozenset(types), values)
            self._template_params[node.id] = cached
        return cached

    def _is_template_parameter(self, name: str, where: Node | None) -> bool:
        """Whether a template around ``where`` (itself included) has a type parameter
        ``name``: a set look-up in ``_template_names_at``, whose climb is memoised per node,
        where a climb to the root per named type (each parent step a descent from the root in
        tree-sitter) cost 4% of the CUDA headers' typing."""
        return where is not None and name in self._template_names_at(where)

    # ----------------------------------------------------------------- types from declarations

    def type_of_specifier(self, spec: Node | None, where: Node) -> _Ty | None:
        """The type a type specifier names; ``where`` (a node of the file's tree) scopes it."""
        if spec is None:
            return None
        self._depth += 1
        try:
            if self._depth > _MAX_DEPTH:
                return None
            return self._specifier(spec, where)
        finally:
            self._depth -= 1

    def _specifier(self, spec: Node, where: Node) -> _Ty | None:
        kind = spec.type
        if kind == "primitive_type":
            return _BUILTIN_TYPES.get(_text(spec))
        if kind == "sized_type_specifier":
            words = [
                _text(c) for c in spec.children if c.type in ("unsigned", "signed", "long", "short")
            ]
            base = spec.child_by_field_name("type")
            unsigned = "unsigned" in words
            longs = words.count("long")
            short = "short" in words
            core = _text(base) if base is not None else "int"
            if core == "__int128":
                return _int("unsigned __int128" if unsigned else "__int128")
            if core == "double":
                return _float("long double") if longs == 1 and not unsigned else None
            if core == "char":
                if longs or short:
                    return None
                return _int("unsigned char" if unsigned else "signed char" if words else "char")
            if core != "int":
                return None
            spelled = "short" if short else ["int", "long", "long long"][min(longs, 2)]
            return _int(f"unsigned {spelled}" if unsigned else spelled)
        if kind == "type_identifier":
            return self.named_type(_text(spec), where)
        if kind == "qualified_identifier":
            scope, name = _split_qualified(spec)
            if name is None or name.type not in ("type_identifier", "primitive_type"):
                return None
            return _SCALAR_NAMES.get(_text(name)) if scope in _STD_SCOPES else None
        if kind in _RECORD_SPECIFIERS:
            name = spec.child_by_field_name("name")
            if name is None:
                body = spec.child_by_field_name("body")
                bodies = (body,) if body is not None else ()
                word = kind.split("_")[0]
                return _Ty(f"{word} <anonymous>", "aggregate", None, bodies=bodies)
            if name.type != "type_identifier":
                return None  # S<int>: would need template instantiation
            # straight to the record: `typedef struct S {...} S;` must not loop through the typedef
            return self._record(_text(name))
        if kind == "enum_specifier":
            name = spec.child_by_field_name("name")
            if name is None:
                return self._enum_type(spec, "<anonymous enum>")
            enums = self._enum_names()[0].get(_text(name), [])
            return _agree([self._enum_type(e, _text(name)) for e in enums])
        return None  # auto, decltype, typename T::x, S<T>, ...

    def named_type(self, name: str, where: Node) -> _Ty | None:
        if self._is_template_parameter(name, where):
            return None
        builtin = _BUILTIN_TYPES.get(name)
        if builtin is not None:
            return builtin
        if name in self._named:
            return self._named[name]
        self._named[name] = None  # while in progress: a cycle back to this name is unknown
        result = self._named_type_uncached(name)
        self._named[name] = result
        return result

    def _named_type_uncached(self, name: str) -> _Ty | None:
        typedefs, records = self._type_names()
        candidates: list[_Ty | None] = []
        for node in typedefs.get(name, []):
            candidates.append(self._typedef_type(node, name))
        if name in records:
            candidates.append(self._record(name))
        for node in self._enum_names()[0].get(name, []):
            candidates.append(self._enum_type(node, name))
        # an enum declared twice (forward declaration + definition) agrees with itself
        return _agree(candidates)

    def _record(self, name: str) -> _Ty | None:
        records = self._type_names()[1].get(name)
        if not records:
            return None
        bodies = tuple(b for r in records if (b := r.child_by_field_name("body")) is not None)
        return _Ty(name, "aggregate", None, bodies=bodies)

    def _enum_type(self, node: Node, name: str) -> _Ty | None:
        base_node = node.child_by_field_name("base")
        scoped = any(c.type in ("class", "struct") for c in node.children)
        if base_node is not None:
            base = self.type_of_specifier(base_node, node)
            if base is None or base.kind not in ("integer", "bool"):
                return None
        else:
            # an unfixed underlying type is int unless an enumerator does not fit; such enums are
            # rare enough in device code that int is the answer
            base = _INT
        return _Ty(name, "enum", base.size, target=base, scoped=scoped)

    def _typedef_type(self, node: Node, name: str) -> _Ty | None:
        if node.type == "alias_declaration":
            return self.descriptor(node.child_by_field_name("type"), node)
        base = self.type_of_specifier(node.child_by_field_name("type"), node)
        spec_text = _text(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            found = _declarator_name(decl)
            if found is not None and _text(found) == name:
                ty = self._apply(base, decl, spec_text, function_scope=False)
                if ty is not None and ty.spelling.endswith("<anonymous>") and ty.bodies:
                    ty = _Ty(name, ty.kind, ty.size, bodies=ty.bodies)  # typedef struct {...} S;
                return ty
        return None

    def descriptor(self, desc: Node | None, where: Node) -> _Ty | None:
        """The type of a ``type_descriptor`` (cast target, template argument, alias)."""
        if desc is None or desc.type != "type_descriptor":
            return None
        spec = desc.child_by_field_name("type")
        base = self.type_of_specifier(spec, where)
        return self._apply(base, desc.child_by_field_name("declarator"), _text(spec), False)

    def _apply(
        self, base: _Ty | None, decl: Node | None, spec_text: str, function_scope: bool
    ) -> _Ty | None:
        """Wrap ``base`` in what the declarator adds, outside in (C's inside-out reading)."""
        ty = base
        known = base is not None  # a pointer to an unknown type is still a pointer
        depth = 0
        while decl is not None:
            depth += 1
            kind = decl.type
            if depth > _MAX_DEPTH:
                return None
            if kind in _NAME_NODES or kind in ("qualified_identifier", "operator_name"):
                break
            if kind in ("pointer_declarator", "abstract_pointer_declarator"):
                ty = _pointer(ty, spec_text)
                known = True
                decl = decl.child_by_field_name("declarator")
            elif kind in ("array_declarator", "abstract_array_declarator"):
                size_node = decl.child_by_field_name("size")
                length = None
                if size_node is not None and size_node.type == "number_literal":
                    length = _integer_value(_text(size_node))
                ty = _array(ty, length, spec_text)
                known = True
                decl = decl.child_by_field_name("declarator")
            elif kind in ("function_declarator", "abstract_function_declarator"):
                if function_scope:
                    return None  # inside a body this is usually `S s(a, b);`, not a function
                if ty is None:
                    return None
                ty = _Ty(ty.spelling + " ()", "function", None, target=ty)
                decl = decl.child_by_field_name("declarator")
            elif kind in (
                "reference_declarator",
                "abstract_reference_declarator",
                "parenthesized_declarator",
                "abstract_parenthesized_declarator",
                "attributed_declarator",
                "init_declarator",
            ):
                inner = decl.child_by_field_name("declarator")
                if inner is None:
                    named = [
                        c for c in _named(decl) if c.type not in ("type_qualifier", "attribute")
                    ]
                    inner = named[0] if named and kind != "init_declarator" else None
                decl = inner
            else:
                return None
        return ty if known else None

    def entry_type(self, entry: _Entry, function_scope: bool) -> _Ty | None:
        if self._depth:  # inside a type's resolution the depth limit may cut it short
            return self._entry_type(entry, function_scope)
        key = (id(entry), function_scope)  # entries live as long as the tables that hold them
        if key not in self._entry_types:
            self._entry_types[key] = self._entry_type(entry, function_scope)
        return self._entry_types[key]

    def _entry_type(self, entry: _Entry, function_scope: bool) -> _Ty | None:
        spec = entry.specifier
        if spec is None:
            return None
        base = self.type_of_specifier(spec, spec)
        ty = self._apply(base, entry.declarator, _text(spec), function_scope)
        if entry.parameter and ty is not None and ty.array and not _is_reference(entry.declarator):
            ty = _pointer(ty.target, _text(spec))  # array parameters are pointers
        return ty

    # ----------------------------------------------------------------- name lookup

    def macro(self, name: str) -> bool:
        return name in self._macros

    def lookup(self, name: str, where: Node, b: int) -> _Ty | None:
        """The type of the variable (or function) ``name`` used at byte ``b`` in ``where``."""
        return self._lookup_chain(self._scope_chain(where), name, b)

    def _lookup_chain(
        self, chain: tuple[_Scope | None, ...], name: str, b: int
    ) -> _Ty | None:
        """``lookup`` under ``chain``, memoised per (name, chain) like ``_memoised``: the answer
        (or the _Stop) with the byte range it holds for, which also narrows the range of the
        answer being memoised around it (``a[0]``, ``a[1]`` and ``a`` look ``a`` up once)."""
        if self._depth:  # inside a type's resolution the depth limit may cut answers short
            return self._lookup_scopes(chain, name, b)
        key = (name, id(chain))
        hit = self._lookups.get(key)
        if hit is not None:
            lo, hi, ty, stop = hit
            if lo <= b < hi:
                if lo > self._lo:
                    self._lo = lo
                if hi < self._hi:
                    self._hi = hi
                if stop:
                    raise _Stop
                return ty
        outer_lo, outer_hi = self._lo, self._hi
        self._lo = -1
        self._hi = _FAR
        stop = False
        try:
            ty = self._lookup_scopes(chain, name, b)
        except _Stop:
            ty = None
            stop = True
        lo, hi = self._lo, self._hi
        self._lookups[key] = (lo, hi, ty, stop)
        self._lo = max(outer_lo, lo)
        self._hi = min(outer_hi, hi)
        if stop:
            raise _Stop
        return ty

    def _lookup_scopes(
        self, chain: tuple[_Scope | None, ...], name: str, b: int
    ) -> _Ty | None:
        for scope in chain:
            if scope is None:
                return None  # a macro body: names bind where it expands, not here
            found = self._lookup_in(scope, name, b)
            if found is not None:
                return _agree(found)
        return self._fallback_names(name, b)

    def _scope_chain(self, where: Node, ups: Sequence[Node] = ()) -> tuple[_Scope | None, ...]:
        """The ancestors of ``where`` (itself included) that can declare a name, innermost
        first, cut at a ``#define`` body (marked ``None``). Memoised per node: each operand
        climbs only to its statement's node, whose chain the first operand already built
        (a parent step costs a descent from the root in tree-sitter). ``ups``: ``where``'s
        nearest ancestors, innermost first, where the caller has read them: the climb takes
        them instead of stepping up."""
        chains = self._chains
        parents = self._parents
        climbed: list[tuple[Node, str]] = []
        node: Node | None = where
        tail: tuple[_Scope | None, ...] = ()
        step = 0
        while node is not None:
            key = node.id
            known = chains.get(key)
            if known is not None:
                tail = known
                break
            kind = node.type
            if kind in ("preproc_def", "preproc_function_def"):
                tail = (None,)
                chains[key] = tail
                break
            climbed.append((node, kind))
            if step < len(ups):
                node = ups[step]
                step += 1
            else:
                node = shared_parent(parents, node, key)
        for node, kind in reversed(climbed):
            if kind in _DECLARING_SCOPES:
                if len(tail) >= MAX_SCOPES:
                    # Past this many scopes, the outer ones are unknown (as from a macro
                    # body): each chain is a tuple of its own, and 20,000 nested blocks
                    # made them take the square of that (1.7 GB).
                    tail = (None,)
                tail = (_Scope(node, kind), *tail)
            chains[node.id] = tail
        return tail

    def _lookup_in(self, scope: _Scope, name: str, b: int) -> list[_Ty | None] | None:
        """Types ``name`` has in ``scope``'s own scope; None when it is not declared there.
        What a scope declares is read once, on the first lookup through it, and kept on it."""
        kind = scope.kind
        if kind == "compound_statement" or kind in _STATEMENT_SCOPES:
            table = scope.table
            if table is None:
                if kind == "compound_statement":
                    table = self._scope_entries(scope.node)
                else:
                    table = self._statement_entries(scope.node)
                scope.table = table
            found = table.get(name)
            if not found:
                return None
            visible = []
            for entry in found:
                end = entry.name_end
                if end <= b:
                    visible.append(self.entry_type(entry, True))
                    if end > self._lo:
                        self._lo = end
                elif end < self._hi:
                    self._hi = end
            return visible or None
        if kind in ("function_definition", "lambda_expression", "catch_clause"):
            single = scope.single
            if single is None:
                single = scope.single = self._parameter_table(scope.node)
            parameter = single.get(name)
            if parameter is not None:
                return [self.entry_type(parameter, False)]
            if kind == "function_definition":
                owner = self._out_of_line_class(scope.node)
                if owner is not None:
                    return self._member_types(owner, name, stop_if_missing=True)
            return None
        if kind in _RECORD_SPECIFIERS:
            if scope.record is None:
                node = scope.node
                body = node.child_by_field_name("body")
                if body is None:
                    scope.record = (None, False)
                else:
                    scope.record = (
                        _Ty(
                            _text(node.child_by_field_name("name")),
                            "aggregate",
                            None,
                            bodies=(body,),
                        ),
                        any(c.type == "base_class_clause" for c in node.children),
                    )
            known, has_bases = scope.record
            if known is None:
                return None
            return self._member_types(known, name, stop_if_missing=has_bases)
        if kind == "template_declaration":
            single = scope.single
            if single is None:
                single = scope.single = self._template_value_table(scope.node)
            value = single.get(name)
            return [self.entry_type(value, False)] if value is not None else None
        return None

    def _statement_entries(self, node: Node) -> dict[str, list[_Entry]]:
        """What a ``for``, range-``for``, ``if``, ``while`` or ``switch`` header declares."""
        cached = self._statement_scopes.get(node.id)
        if cached is not None:
            return cached
        table: dict[str, list[_Entry]] = {}
        kind = node.type
        if kind == "for_statement":
            init = node.child_by_field_name("initializer")
            if init is not None and init.type == "declaration":
                self._add_declaration(init, table)
        elif kind == "for_range_loop":
            decl = node.child_by_field_name("declarator")
            found = _declarator_name(decl)
            if found is not None:
                entry = _Entry(found.end_byte, decl, node.child_by_field_name("type"))
                table[_text(found)] = [entry]
        else:
            # `if (int n = f())` and `if (auto p = q; p)` declare into the whole statement
            clause = node.child_by_field_name("condition")
            for part in ("initializer", "value"):
                value = clause.child_by_field_name(part) if clause is not None else None
                if value is not None and value.type == "declaration":
                    self._add_declaration(value, table)
        self._statement_scopes[node.id] = table
        return table

    def _template_value_table(self, node: Node) -> dict[str, _Entry]:
        cached = self._template_values.get(node.id)
        if cached is None:
            cached = {}
            for param in self._templates(node)[1]:
                decl = param.child_by_field_name("declarator")
                found = _declarator_name(decl)
                if found is not None:
                    # the first declaration of a name wins, as the linear scan found it first
                    cached.setdefault(
                        _text(found),
                        _Entry(found.end_byte, decl, param.child_by_field_name("type")),
                    )
            self._template_values[node.id] = cached
        return cached

    def _parameter_table(self, node: Node) -> dict[str, _Entry]:
        """The parameters of a function, lambda or catch clause, by name (one pass, cached).

        Parameter lists repeat (CUTLASS's GMMA header: 736 functions, 110 distinct lists), so
        a later list of the same text whose types cannot depend on where it is (see
        ``_share``) gets the first one's table itself, without visiting its nodes: each of its
        parameters is the first list's entry, typed once. A parameter's name offset
        (``_Entry.name_end``) is never read: parameters are visible in the whole body."""
        cached = self._parameters.get(node.id)
        if cached is not None:
            return cached
        if node.type == "catch_clause":
            params = node.child_by_field_name("parameters")
        else:
            decl = node.child_by_field_name("declarator")
            params = None
            depth = 0
            while decl is not None and params is None and depth < _MAX_DEPTH:
                depth += 1
                params = decl.child_by_field_name("parameters")
                inner = decl.child_by_field_name("declarator")
                if inner is None:
                    named = _named(decl)
                    inner = named[0] if named and decl.type.endswith("declarator") else None
                decl = inner
        key: tuple[str, bytes] | None = None
        if params is not None and not params.has_error:
            key = (node.type, self._bytes[params.start_byte : params.end_byte])
            shared = self._shared_parameters.get(key)
            if shared is not None:
                cached = self._from_shared(shared, node)
                if cached is not None:
                    self._parameters[node.id] = cached
                    return cached
        cached = {}
        for param in params.named_children if params is not None else ():
            if param.type not in _VALUE_PARAMETERS:
                continue
            declarator = param.child_by_field_name("declarator")
            found = _declarator_name(declarator)
            if found is not None:
                # the first parameter of a name wins, as the linear scan found it first
                cached.setdefault(
                    _text(found),
                    _Entry(found.end_byte, declarator, param.child_by_field_name("type"), True),
                )
        self._parameters[node.id] = cached
        if key is not None and params is not None and key not in self._shared_parameters:
            self._shared_parameters[key] = self._share(cached, node)
        return cached

    def _share(self, table: dict[str, _Entry], node: Node) -> _SharedParameters | None:
        """``table`` for the lists of the same text, or None where a parameter's type may
        depend on more than the text: an unnamed struct or enum (typed from its own body).
        A type name depends on the template parameters around the function as well
        (``_is_template_parameter``): those are kept, and a list elsewhere shares only under
        the same ones. Everything else a type comes from is the text or the whole file."""
        needs_templates = False
        for entry in table.values():
            spec = entry.specifier
            kind = spec.type if spec is not None else ""
            if kind in _RECORD_SPECIFIERS or kind == "enum_specifier":
                if spec is not None and spec.child_by_field_name("name") is None:
                    return None
            elif kind == "type_identifier":
                needs_templates = True
        templates = self._template_names_at(node) if needs_templates else None
        return _SharedParameters(table, templates)

    def _from_shared(self, shared: _SharedParameters, node: Node) -> dict[str, _Entry] | None:
        if shared.templates is not None and self._template_names_at(node) != shared.templates:
            return None
        return shared.table

    def _template_names_at(self, node: Node) -> frozenset[str]:
        """The type parameter names of every template around ``node`` (what
        ``_is_template_parameter`` asks about), memoised per node on the way up."""
        known = self._template_names
        climbed: list[Node] = []
        current: Node | None = node
        names: frozenset[str] = frozenset()
        parents = self._parents
        ids: list[int] = []
        while current is not None:
            key = current.id
            found = known.get(key)
            if found is not None:
                names = found
                break
            climbed.append(current)
            ids.append(key)
            current = shared_parent(parents, current, key)
        for current, key in zip(reversed(climbed), reversed(ids), strict=True):
            if current.type == "template_declaration":
                names = names | self._templates(current)[0]
            known[key] = names
        return names

    def _out_of_line_class(self, fn: Node) -> _Ty | None:
        """The class of ``int S::f() {...}``; raises _Stop when it is not in this file."""
        cached = self._owners.get(fn.id)
        if cached is None:
            try:
                cached = (self._find_out_of_line_class(fn), False)
            except _Stop:
                cached = (None, True)
            self._owners[fn.id] = cached
        if cached[1]:
            raise _Stop
        return cached[0]

    def _find_out_of_line_class(self, fn: Node) -> _Ty | None:
        decl = fn.child_by_field_name("declarator")
        depth = 0
        while decl is not None and decl.type != "function_declarator" and depth < _MAX_DEPTH:
            depth += 1
            named = _named(decl)
            decl = decl.child_by_field_name("declarator") or (named[0] if named else None)
        if decl is None:
            return None
        name = decl.child_by_field_name("declarator")
        if name is None or name.type != "qualified_identifier":
            return None
        scope = name.child_by_field_name("scope")
        if scope is None:
            raise _Stop
        scope_name = _text(
            scope.child_by_field_name("name") if scope.type == "template_type" else scope
        )
        records = self._type_names()[1].get(scope_name.split("::")[-1], [])
        bodies = tuple(b for r in records if (b := r.child_by_field_name("body")) is not None)
        if scope.type not in ("namespace_identifier", "template_type") or not bodies:
            raise _Stop  # members of a class we cannot see may hide any outer name
        return _Ty(scope_name, "aggregate", None, bodies=bodies)

    def _member_types(
        self, record: _Ty, name: str, stop_if_missing: bool
    ) -> list[_Ty | None] | None:
        found: list[_Ty | None] = []
        for body in record.bodies:
            entries = self._scope_entries(body).get(name, [])
            found.extend(self.entry_type(e, False) for e in entries)
            owner = body.parent
            if (
                not entries
                and owner is not None
                and any(c.type == "base_class_clause" for c in owner.children)
            ):
                stop_if_missing = True
        if not found and stop_if_missing:
            raise _Stop
        return found or None

    def member(self, record: _Ty, name: str) -> _Ty | None:
        if record.lanes:
            if name in "xyzw"[: record.lanes] and len(name) == 1:
                return record.target
            return None
        if not record.bodies or record.array:
            return None
        found = self._member_types(record, name, stop_if_missing=False)
        return _agree(found) if found else None

    def this_type(self, where: Node) -> _Ty | None:
        node: Node | None = where
        while node is not None:
            if node.type in _RECORD_SPECIFIERS:
                body = node.child_by_field_name("body")
                name = _text(node.child_by_field_name("name"))
                return _pointer(_Ty(name, "aggregate", None, bodies=(body,) if body else ()))
            if node.type == "function_definition":
                owner = self._out_of_line_class(node)
                if owner is not None:
                    return _pointer(owner)
            node = node.parent
        return None

    def _fallback_names(self, name: str, b: int) -> _Ty | None:
        entries = []
        for entry in self._global_entries().get(name, ()):
            end = entry.name_end
            if end <= b:
                entries.append(entry)
                if end > self._lo:
                    self._lo = end
            elif end < self._hi:
                self._hi = end
        if entries:
            return _agree([self.entry_type(e, False) for e in entries])
        enums = self._enum_names()[1].get(name, [])
        if enums:
            types: list[_Ty | None] = []
            for enumerator in enums:
                spec = enumerator.parent.parent if enumerator.parent is not None else None
                if spec is None or spec.type != "enum_specifier":
                    return None
                if any(c.type in ("class", "struct") for c in spec.children):
                    return None  # scoped enumerators need E:: in front
                spec_name = spec.child_by_field_name("name")
                types.append(self._enum_type(spec, _text(spec_name) or "<anonymous enum>"))
            return _agree(types)
        return None

    def scoped_enumerator(self, enum_name: str, name: str, where: Node) -> _Ty | None:
        ty = self.named_type(enum_name, where)
        if ty is None or ty.kind != "enum":
            return None
        for spec in self._enum_names()[0].get(enum_name, []):
            body = spec.child_by_field_name("body")
            if body is not None and any(
                _text(e.child_by_field_name("name")) == name for e in body.named_children
            ):
                return ty
        return None

    def function_return(
        self, name: str, where: Node, b: int, chain: tuple[_Scope | None, ...] | None = None
    ) -> _Ty | None:
        """The result of calling ``name(...)``: a declared function, function pointer or cast."""
        if self.macro(name):
            return None
        if name in _INTRINSICS:
            # checked before scopes: a class with unseen bases would otherwise hide them
            return _INTRINSICS[name]
        if chain is None:
            chain = self._scope_chain(where)
        found = self._lookup_chain(chain, name, b)
        if found is not None:
            if found.kind == "function":
                return found.target
            pointee = found.target if found.kind == "pointer" else None
            if pointee is not None and pointee.kind == "function":
                return pointee.target
            return None
        return self.named_type(name, where)  # a functional cast such as half(x) or u32(x)


# --------------------------------------------------------------------------- expressions


class _Expr:
    """Types one parsed operand expression in the scope of a node of the file's tree."""

    def __init__(
        self,
        resolver: TypeResolver,
        where: Node,
        b: int,
        chain: tuple[_Scope | None, ...] | None = None,
    ) -> None:
        self.r = resolver
        self._where = where
        self._b = b
        # where's chain of scopes (resolve has it at hand)
        self._chain = resolver._scope_chain(where) if chain is None else chain
        self.depth = 0
        # whether the answer read where the expression is (see TypeResolver._free)
        self.located = False

    # Everything that depends on where the expression is written goes through these three, so
    # an answer computed without reading them is the same wherever the text is typed.
    @property
    def where(self) -> Node:
        self.located = True
        return self._where

    @property
    def b(self) -> int:
        self.located = True
        return self._b

    @property
    def chain(self) -> tuple[_Scope | None, ...]:
        self.located = True
        return self._chain

    def type_of(self, node: Node | None) -> _Ty | None:
        if node is None:
            return None
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH * 4:
                return None
            handler = self._HANDLERS.get(node.type)
            return handler(self, node) if handler is not None else None
        finally:
            self.depth -= 1

    def _identifier(self, node: Node) -> _Ty | None:
        name = _text(node)
        if self.r.macro(name):
            return None
        if name in _BUILTIN_VARIABLES:
            return _BUILTIN_VARIABLES[name]
        ty = self.r._lookup_chain(self.chain, name, self.b)
        if ty is not None and ty.kind == "function":
            return None
        return ty

    def _number(self, node: Node) -> _Ty | None:
        return _number_type(_text(node))

    def _char(self, node: Node) -> _Ty | None:
        # plain 'a' and '\n' only: prefixed and multi-character literals have other types
        if _text(node).startswith("'") and len(_named(node)) == 1:
            return _int("char")
        return None

    def _bool(self, node: Node) -> _Ty | None:
        return _BOOL

    def _paren(self, node: Node) -> _Ty | None:
        inner = _named(node)
        return self.type_of(inner[0]) if len(inner) == 1 else None

    def _cast(self, node: Node) -> _Ty | None:
        return self._descriptor(node.child_by_field_name("type"))

    def _descriptor(self, desc: Node | None) -> _Ty | None:
        spec = desc.child_by_field_name("type") if desc is not None else None
        if spec is not None and spec.type in _PLACELESS_SPECIFIERS:
            # its type is read from its words alone (TypeResolver._specifier)
            return self.r.descriptor(desc, self._where)
        return self.r.descriptor(desc, self.where)

    def _sizeof(self, node: Node) -> _Ty | None:
        return _SIZE_T

    def _call(self, node: Node) -> _Ty | None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "qualified_identifier":
            scope, leaf = _split_qualified(fn)
            if scope not in _STD_SCOPES or leaf is None or leaf.type != "template_function":
                return None
            fn = leaf
        if fn.type == "template_function":
            if _text(fn.child_by_field_name("name")) not in _CASTS:
                return None  # f<T>(x): the result may depend on T
            args = fn.child_by_field_name("arguments")
            targets = _named(args) if args is not None else []
            if len(targets) != 1:
                return None
            target = targets[0]
            if target.type == "type_descriptor":
                return self._descriptor(target)
            if target.type == "identifier":  # static_cast<S>(x) read as an expression
                return self.r.named_type(_text(target), self.where)
            return None
        if fn.type == "primitive_type":
            return _BUILTIN_TYPES.get(_text(fn))
        if fn.type in ("identifier", "type_identifier"):
            name = _text(fn)
            if name in ("unsigned", "signed"):
                return _SCALAR_NAMES[name]
            return self.r.function_return(name, self.where, self.b, self.chain)
        return None

    def _field(self, node: Node) -> _Ty | None:
        field_node = node.child_by_field_name("field")
        if field_node is None or field_node.type != "field_identifier":
            return None
        operator = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if arg is None:
            return None
        base = self.r.this_type(self.where) if arg.type == "this" else self.type_of(arg)
        if base is None:
            return None
        if _text(operator) == "->":
            if base.kind != "pointer" or base.target is None:
                return None
            base = base.target
        elif base.kind == "pointer":
            return None
        if base.kind != "aggregate":
            return None
        ty = self.r.member(base, _text(field_node))
        return ty if ty is None or ty.kind != "function" else None

    def _subscript(self, node: Node) -> _Ty | None:
        indices = node.child_by_field_name("indices")
        if indices is None or len(_named(indices)) != 1:
            return None
        return self._element(self.type_of(node.child_by_field_name("argument")))

    @staticmethod
    def _element(ty: _Ty | None) -> _Ty | None:
        if ty is None:
            return None
        if ty.kind == "pointer" or ty.array:
            target = ty.target
            return target if target is not None and target.kind != "function" else None
        return None

    def _pointer_expr(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        if operator == "*":
            return self._element(self.type_of(arg))
        if operator == "&":
            inner = self.type_of(arg)
            if inner is None:
                # &x of a name we cannot type is still an address, unless x is a macro
                if arg is None or arg.type not in (
                    "identifier",
                    "subscript_expression",
                    "field_expression",
                ):
                    return None
                if arg.type == "identifier" and self.r.macro(_text(arg)):
                    return None
                return _pointer(None)
            return _pointer(inner)
        return None

    def _unary(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        operand = self.type_of(node.child_by_field_name("argument"))
        if operand is None:
            return None
        if operator == "!":
            scalar = ("integer", "bool", "floating", "pointer")
            return _BOOL if operand.kind in scalar or _promote(operand) else None
        promoted = _promote(operand)
        if promoted is None:
            return None
        if operator == "~" and promoted.kind != "integer":
            return None
        return promoted if operator in ("-", "+", "~") else None

    def _binary(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        left = self.type_of(node.child_by_field_name("left"))
        right = self.type_of(node.child_by_field_name("right"))
        if left is None or right is None:
            return None
        lp, rp = self._decay(left), self._decay(right)
        if operator in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
            ok = all(t.kind == "pointer" or _promote(t) is not None for t in (lp, rp))
            return _BOOL if ok else None
        if operator in ("+", "-") and (lp.kind == "pointer" or rp.kind == "pointer"):
            if lp.kind == "pointer" and rp.kind == "pointer":
                return _LONG if operator == "-" else None  # ptrdiff_t
            pointer, other = (lp, rp) if lp.kind == "pointer" else (rp, lp)
            if operator == "-" and pointer is rp:
                return None
            promoted = _promote(other)
            return pointer if promoted is not None and promoted.kind == "integer" else None
        if operator in ("<<", ">>"):
            a, b = _promote(lp), _promote(rp)
            if a is None or b is None or a.kind != "integer" or b.kind != "integer":
                return None
            return a
        if operator in ("+", "-", "*", "/", "%", "&", "|", "^"):
            result = _arithmetic(lp, rp)
            if result is None:
                return None
            if operator in ("%", "&", "|", "^") and result.kind != "integer":
                return None
            return result
        return None

    @staticmethod
    def _decay(ty: _Ty) -> _Ty:
        return _pointer(ty.target) if ty.array else ty

    def _conditional(self, node: Node) -> _Ty | None:
        a = self.type_of(node.child_by_field_name("consequence"))
        b = self.type_of(node.child_by_field_name("alternative"))
        if a is None or b is None or not a.same(b):
            return None
        return a

    def _assignment(self, node: Node) -> _Ty | None:
        return self.type_of(node.child_by_field_name("left"))

    def _update(self, node: Node) -> _Ty | None:
        ty = self.type_of(node.child_by_field_name("argument"))
        return ty if ty is not None and ty.kind in ("integer", "floating", "pointer") else None

    def _comma(self, node: Node) -> _Ty | None:
        return self.type_of(node.child_by_field_name("right"))

    def _this(self, node: Node) -> _Ty | None:
        return self.r.this_type(self.where)

    def _qualified(self, node: Node) -> _Ty | None:
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        if scope is None or name is None or name.type != "identifier":
            return None
        return self.r.scoped_enumerator(_text(scope), _text(name), self.where)

    _HANDLERS: dict[str, Callable[[_Expr, Node], _Ty | None]] = {
        "identifier": _identifier,
        "number_literal": _number,
        "char_literal": _char,
        "true": _bool,
        "false": _bool,
        "parenthesized_expression": _paren,
        "cast_expression": _cast,
        "sizeof_expression": _sizeof,
        "alignof_expression": _sizeof,
        "call_expression": _call,
        "field_expression": _field,
        "subscript_expression": _subscript,
        "pointer_expression": _pointer_expr,
        "unary_expression": _unary,
        "binary_expression": _binary,
        "conditional_expression": _conditional,
        "assignment_expression": _assignment,
        "update_expression": _update,
        "comma_expression": _comma,
        "this": _this,
        "qualified_identifier": _qualified,
    }

# resolve types an operand's value in the file's tree under its statement's chain of scopes:
# none of the values it can type declares names itself
assert not _DECLARING_SCOPES & _Expr._HANDLERS.keys()
