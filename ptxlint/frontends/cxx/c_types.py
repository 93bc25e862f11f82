"""C types as the Tier-1 typer sees them: the type value (:class:`Ty`), the built-in tables
(arithmetic types, CUDA vector types, ``__half``, fixed-width integers), the usual arithmetic
conversions, and the small tree-sitter helpers the typer's halves share."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import NamedTuple

import tree_sitter

# A function's own declarator is a fact of the syntax tree, which the front end's earlier
# stages read as well (re-exported: typing's modules import it from here).
from ptxlint.frontends.syntax_tree import grammar_language
from ptxlint.frontends.syntax_tree import inner_declarator as inner_declarator
from ptxlint.frontends.syntax_tree import own_function_declarator as own_function_declarator
from ptxlint.lazy_regex import on_first_use
from ptxlint.value_class import value_class

Node = tree_sitter.Node


# see ``_Ty.bindings``
Bindings = tuple[tuple[int, str, "_Ty | int"], ...]


@value_class(slots=False)
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
    # a class template instance's arguments: (template declaration's node id, parameter name,
    # its type or value), which its members' and bases' types are read under
    bindings: Bindings = field(default=(), compare=False, hash=False)
    # the resolver whose tree holds ``bodies`` (a header's definition is typed by its own:
    # ``header_types``), which their members are looked up with; weakly, as the resolver's
    # memos hold the type (a cycle would be left to the collector); None: the file's
    home: Callable[[], object] | None = field(default=None, compare=False, hash=False,
                                              repr=False)

    def home_resolver(self, asking: object) -> object | None:
        """The resolver to read this record's bodies with, where it is not ``asking``."""
        home = self.home() if self.home is not None else None
        return home if home is not asking else None

    def same(self, other: _Ty) -> bool:
        return (self.spelling, self.kind, self.size) == (other.spelling, other.kind, other.size)


def _may_convert(record: _Ty) -> bool:
    """Whether a record might convert implicitly by what its own bodies show: a body unseen, or
    a conversion operator declared in one (one its bases declare is the caller's to ask:
    ``TypeResolver`` follows them)."""
    if not record.bodies:
        return True
    for body in record.bodies:
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


BOOL = _Ty("bool", "bool", 1, rank=1, unsigned=True)


INT = _int("int")


UINT = _int("unsigned int")


_ULONG = _int("unsigned long")


LONG = _int("long")


HALF = _Ty("__half", "half", 2)


BF16 = _Ty("__nv_bfloat16", "half", 2)


# Names that resolve without any declaration in the file: C/C++ typedefs from the standard
# headers (as glibc defines them on x86-64/aarch64 Linux) and CUDA's own types.
SCALAR_NAMES: dict[str, _Ty] = {
    **{name: _int(name) for name in _INTEGERS},
    **{name: _float(name) for name in _FLOATS},
    "bool": BOOL,
    "_Bool": BOOL,
    "signed": INT,
    "unsigned": UINT,
    "int8_t": _int("signed char"),
    "uint8_t": _int("unsigned char"),
    "int16_t": _int("short"),
    "uint16_t": _int("unsigned short"),
    "int32_t": INT,
    "uint32_t": UINT,
    "int64_t": LONG,
    "uint64_t": _ULONG,
    "size_t": _ULONG,
    "ssize_t": LONG,
    "ptrdiff_t": LONG,
    "intptr_t": LONG,
    "uintptr_t": _ULONG,
    "intmax_t": LONG,
    "uintmax_t": _ULONG,
    "clock_t": LONG,
    "half": HALF,
    "__half": HALF,
    "__nv_bfloat16": BF16,
    "nv_bfloat16": BF16,
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


AGGREGATE_NAMES: dict[str, _Ty] = {
    f"{prefix}{n}": _vector(f"{prefix}{n}", _float(c) if c in _FLOATS else _int(c), n)
    for prefix, c in _VECTOR_COMPONENTS.items()
    for n in (1, 2, 3, 4)
}


AGGREGATE_NAMES.update(
    {
        "dim3": _vector("dim3", UINT, 3),
        "half2": _vector("__half2", HALF, 2),
        "__half2": _vector("__half2", HALF, 2),
        "__nv_bfloat162": _vector("__nv_bfloat162", BF16, 2),
        "nv_bfloat162": _vector("__nv_bfloat162", BF16, 2),
    }
)

BUILTIN_TYPES: dict[str, _Ty] = {**SCALAR_NAMES, **AGGREGATE_NAMES}

# The toolkit's typedef names that are not reserved to the implementation (cuda_fp16.h's
# ``typedef __half half;``, cuda_bf16.h's ``nv_bfloat16``): a file may declare one itself
# instead (Blender Cycles' ``typedef unsigned short half;``), and C++ name lookup then finds the
# file's declaration (the two cannot both be in scope: a redefinition), so the file's wins.
FILE_DECLARABLE = frozenset({"half", "half2", "nv_bfloat16", "nv_bfloat162"})


# Built-in names whose size is not the same on every 64-bit target CUDA compiles for: Windows
# (LLP64) has a 4-byte ``long`` and ``clock_t`` (a ``long``), a 2-byte ``wchar_t`` and an
# 8-byte ``long double``, where the tables above hold Linux's (LP64) sizes: the fewest bytes each
# holds on any of them.
_TARGET_SIZED = {"long": 4, "unsigned long": 4, "clock_t": 4, "wchar_t": 2, "long double": 8}


def certain_size(spelling: str) -> int | None:
    """The size in bytes of the built-in type ``spelling`` names (its words one space apart:
    ``unsigned char``, ``uint32_t``, ``float4``) where every target agrees; ``None`` for a
    size that differs between targets (``long``, ``long2``) and for a name not built in. A
    scalar is judged by its name, not its type's (``int64_t`` is a ``long`` on Linux only)."""
    ty = BUILTIN_TYPES.get(spelling)
    if ty is None or spelling in _TARGET_SIZED or \
            ty.lanes and ty.target is not None and ty.target.spelling in _TARGET_SIZED:
        return None
    return ty.size


def least_integer_size(spelling: str) -> int | None:
    """The fewest bytes the built-in integer type ``spelling`` names holds on any target
    (``long``: 4, Windows'); ``None`` where it names no built-in integer type."""
    ty = SCALAR_NAMES.get(spelling)
    if ty is None or ty.kind != "integer":
        return None
    return _TARGET_SIZED.get(spelling, ty.size)


BUILTIN_VARIABLES: dict[str, _Ty] = {
    "threadIdx": AGGREGATE_NAMES["uint3"],
    "blockIdx": AGGREGATE_NAMES["uint3"],
    "blockDim": AGGREGATE_NAMES["dim3"],
    "gridDim": AGGREGATE_NAMES["dim3"],
    "clusterIdx": AGGREGATE_NAMES["uint3"],
    "clusterDim": AGGREGATE_NAMES["dim3"],
    "warpSize": INT,
}


_VOID_PTR = _Ty("void *", "pointer", 8)


SIZE_T = _ULONG


# Return types of CUDA intrinsics that operands are commonly wrapped in. Overloaded or templated
# ones (__shfl_sync, __ldg, min, max) are deliberately absent.
INTRINSICS: dict[str, _Ty] = {
    "__cvta_generic_to_shared": SIZE_T,
    "__cvta_generic_to_global": SIZE_T,
    "__cvta_generic_to_constant": SIZE_T,
    "__cvta_generic_to_local": SIZE_T,
    "__cvta_generic_to_grid_constant": SIZE_T,
    "__cvta_shared_to_generic": _VOID_PTR,
    "__cvta_global_to_generic": _VOID_PTR,
    "__cvta_constant_to_generic": _VOID_PTR,
    "__cvta_local_to_generic": _VOID_PTR,
    "__float_as_uint": UINT,
    "__float_as_int": INT,
    "__uint_as_float": _float("float"),
    "__int_as_float": _float("float"),
    "__double_as_longlong": _int("long long"),
    "__longlong_as_double": _float("double"),
    "__double2hiint": INT,
    "__double2loint": INT,
    "__hiloint2double": _float("double"),
    "__half_as_ushort": _int("unsigned short"),
    "__half_as_short": _int("short"),
    "__bfloat16_as_ushort": _int("unsigned short"),
    "__bfloat16_as_short": _int("short"),
    "__ushort_as_half": HALF,
    "__short_as_half": HALF,
    "__ushort_as_bfloat16": BF16,
    "__short_as_bfloat16": BF16,
    "__half2float": _float("float"),
    "__bfloat162float": _float("float"),
    "__float2half": HALF,
    "__float2half_rn": HALF,
    "__float2bfloat16": BF16,
    "__float2bfloat16_rn": BF16,
    "__float2int_rn": INT,
    "__float2int_rz": INT,
    "__float2uint_rn": UINT,
    "__float2uint_rz": UINT,
    "__int2float_rn": _float("float"),
    "__uint2float_rn": _float("float"),
    "__popc": INT,
    "__popcll": INT,
    "__clz": INT,
    "__clzll": INT,
    "__ffs": INT,
    "__ffsll": INT,
    "__brev": UINT,
    "__brevll": _int("unsigned long long"),
    "__byte_perm": UINT,
    "__funnelshift_l": UINT,
    "__funnelshift_lc": UINT,
    "__funnelshift_r": UINT,
    "__funnelshift_rc": UINT,
    "__mul24": INT,
    "__umul24": UINT,
    "__mulhi": INT,
    "__umulhi": UINT,
    "__mul64hi": _int("long long"),
    "__umul64hi": _int("unsigned long long"),
    "__sad": INT,
    "__usad": UINT,
    "__activemask": UINT,
    "__ballot_sync": UINT,
    "__any_sync": INT,
    "__all_sync": INT,
    "__syncthreads_count": INT,
    "__syncthreads_and": INT,
    "__syncthreads_or": INT,
    "__isShared": UINT,
    "__isGlobal": UINT,
    "__isConstant": UINT,
    "__isLocal": UINT,
    "clock": LONG,
    "clock64": _int("long long"),
    "__clock64": _int("long long"),
    "__globaltimer": _int("unsigned long long"),
}


CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "bit_cast"})


# Namespaces whose spelling of a built-in name means the built-in (std::uint32_t, ::size_t);
# _CUDA_VSTD is the macro libcu++ spells cuda::std with, too common in CUDA's headers to miss.
STD_SCOPES = frozenset({"", "std", "cuda::std", "_CUDA_VSTD", "_CUDA_VSTD_NOVERSION"})


RECORD_SPECIFIERS = frozenset({"struct_specifier", "class_specifier", "union_specifier"})


PREPROC_BLOCKS = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
)


# Statements whose children are still in the enclosing block's scope.
TRANSPARENT_STATEMENTS = PREPROC_BLOCKS | {"case_statement", "labeled_statement"}


TYPE_PARAMETERS = frozenset(
    {
        "type_parameter_declaration",
        "variadic_type_parameter_declaration",
        "optional_type_parameter_declaration",
        "template_template_parameter_declaration",
    }
)


VALUE_PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration"})


# Statements whose header declares names into the statement (`for (int i...)`, `if (auto p = q)`)
STATEMENT_SCOPES = frozenset(
    {"for_statement", "for_range_loop", "if_statement", "while_statement", "switch_statement"}
)


# every node kind ``TypeResolver._lookup_in`` finds declarations in
DECLARING_SCOPES = STATEMENT_SCOPES | RECORD_SPECIFIERS | {
    "compound_statement", "function_definition", "lambda_expression", "catch_clause",
    "template_declaration",
}


NAME_NODES = frozenset({"identifier", "field_identifier", "type_identifier"})


# Where an operand's expression sits in the file's tree when tree-sitter read the asm statement.
OPERAND_VALUE_PARENTS = frozenset({"gnu_asm_output_operand", "gnu_asm_input_operand"})


OPERAND_LISTS = frozenset({"gnu_asm_output_operand_list", "gnu_asm_input_operand_list"})


FAR = 1 << 62  # past any byte offset


NON_ASCII = on_first_use(r"[^\x00-\x7f]")


# How an operand value may begin when a node that declares (``DECLARING_SCOPES``) starts where
# it starts. The node tree-sitter finds at an expression's first byte lies on the chain of the
# first children down from the expression's node, each starting at that byte; when none of them
# declares, both nodes have the same chain of scopes and the same declaring ancestors (what
# ``this_type`` and ``_is_template_parameter`` climb to). In an expression without a parse
# error a declaring node is a lambda (``[``), a statement or class body (``{``, inside one of
# those or in parentheses), a class specifier (its keyword: in a cast or sizeof it follows a
# parenthesis) or a statement, template or catch clause inside a body; a function definition
# only inside a class body.
SCOPE_OPENING = on_first_use(
    rb"[\[{]|(?:struct|class|union|for|if|while|switch|template|catch)(?![A-Za-z0-9_$\x80-\xff])"
)


# Comments and white space, as they may stand beside an operand's value inside its
# parentheses (``"r"(/*as_b32*/ *reinterpret_cast<const int32_t*>(&v[0]))``): C++ reads the
# value alone. Each alternative starts with its own character and a block comment ends at its
# first ``*/``, so a match cannot run past a comment into code.
BESIDE_VALUE = on_first_use(rb"(?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*)*")


# An operand value spelled ``name[i]...[k]`` with one word in each pair of brackets: without a
# parse error it is a chain of subscripts of the name with one index each (the common case of
# ``TypeResolver._subscript_key``, read from the text).
SUBSCRIPTS = on_first_use(rb"([A-Za-z_][A-Za-z0-9_]*)(?:\[[ \t]*[A-Za-z0-9_]+[ \t]*\])+")


CAST_KINDS = frozenset({"cast_expression", "call_expression", "pointer_expression"})


# type specifiers whose type does not depend on where they are written
PLACELESS_SPECIFIERS = frozenset({"primitive_type", "sized_type_specifier"})


# Scopes a name is looked up through (clang's default limit on nested brackets is 256)
MAX_SCOPES = 256


MAX_DEPTH = 24  # typedef chains and nested expressions deeper than this are given up on


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
INDEX_NAMES = {
    "struct_specifier": ("type_identifier", "record"),
    "class_specifier": ("type_identifier", "record"),
    "union_specifier": ("type_identifier", "record"),
    "enum_specifier": ("type_identifier", "enum"),
    "enumerator": ("identifier", "enumerator"),
    "preproc_def": ("identifier", "macro"),
    "preproc_function_def": ("identifier", "macro"),
}


INDEX_KINDS = frozenset({"type_definition", "alias_declaration", *INDEX_NAMES})


# the keyword tokens that begin the nodes the index reads (see _keyword_captures), and the kinds
# of parent that make one such a node; ``define`` is the end of tree-sitter's ``#define`` token
# One pattern per word: a literal prefix is searched for by fast search, an alternation is tried at
# every byte (three times slower over a whole file).
INDEX_KEYWORDS = tuple(
    re.compile(word + rb"(?![A-Za-z0-9_])")
    for word in (b"define", b"typedef", b"using", b"struct", b"class", b"union", b"enum")
)


# macros are needed by every name, the rest by fewer look-ups (TypeResolver._type_names)
MACRO_KEYWORDS = INDEX_KEYWORDS[:1]


TYPE_KEYWORDS = INDEX_KEYWORDS[1:6]


ENUM_KEYWORDS = INDEX_KEYWORDS[6:]


KEYWORD_OWNERS = {
    "#define": frozenset({"preproc_def", "preproc_function_def"}),
    "typedef": frozenset({"type_definition"}),
    "using": frozenset({"alias_declaration"}),
    "struct": frozenset({"struct_specifier"}),
    "class": frozenset({"class_specifier"}),
    "union": frozenset({"union_specifier"}),
    "enum": frozenset({"enum_specifier"}),
}


ENUMERATOR = frozenset({"enumerator"})


class _Language:
    """The CUDA grammar (the one the files are parsed with) and the index query, built once
    per process."""

    _instance: _Language | None = None

    def __init__(self) -> None:
        self.language = grammar_language("cuda")
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


class Stop(Exception):
    """Lookup hit a scope that may hide the name (an unknown base class): the answer is None."""


# A declared entity, found by name: its declarator, the specifier its type starts from,
# whether it is a function parameter (arrays decay there), and the offset where its scope
# ends before its block's does (a declaration in a macro's argument: the argument's end,
# ``DeclarationIndex._argument_declaration``). A tuple: tables of a big kernel's declarations
# make thousands.
class Entry(NamedTuple):
    name_end: int
    declarator: Node | None
    specifier: Node | None
    parameter: bool = False
    until: int = FAR


def _text(node: Node | None) -> str:
    if node is None:
        return ""
    text = node.text
    return "" if text is None else text.decode("utf-8", "replace")


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def declarator_name(decl: Node | None) -> Node | None:
    """The identifier a (possibly nested) declarator declares."""
    depth = 0
    while decl is not None and depth < MAX_DEPTH:
        depth += 1
        if decl.type in NAME_NODES:
            return decl
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            # reference, parenthesized and attributed declarators carry it unnamed
            named = [c for c in _named(decl) if c.type not in ("type_qualifier", "attribute")]
            inner = named[0] if decl.type != "array_declarator" and named else None
        decl = inner
    return None


def utf8_length(text: str) -> int:
    # text decoded with surrogateescape maps back to its original bytes; other lone surrogates
    # cannot come from valid UTF-8 but must not crash the run
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass"))


def split_qualified(node: Node) -> tuple[str, Node | None]:
    """``cuda::std::int32_t`` -> ("cuda::std", <int32_t>); a leading ``::`` is dropped."""
    parts: list[str] = []
    leaf: Node | None = node
    while leaf is not None and leaf.type == "qualified_identifier":
        scope = leaf.child_by_field_name("scope")
        if scope is not None:
            parts.append(_text(scope).replace(" ", ""))
        leaf = leaf.child_by_field_name("name")
    return "::".join(parts), leaf


def is_reference(decl: Node | None) -> bool:
    """Whether a declarator declares a reference, such as ``(&out)[4]``."""
    depth = 0
    while decl is not None and depth < MAX_DEPTH:
        depth += 1
        if decl.type == "reference_declarator":
            return True
        decl = inner_declarator(decl)
    return False


def trailing_type(function: Node) -> Node | None:
    """The type of a function declarator's trailing return type (``auto f() -> T``), the
    ``type_descriptor`` that names the function's return type in place of ``auto``."""
    for child in function.named_children:
        if child.type == "trailing_return_type":
            return next((c for c in child.named_children if c.type == "type_descriptor"), None)
    return None


def _fits(value: int, ty: _Ty) -> bool:
    assert ty.size is not None
    bits = ty.size * 8 - (0 if ty.unsigned else 1)
    return value < (1 << bits)


def integer_value(text: str) -> int | None:
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


def number_type(text: str) -> _Ty | None:
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
    value = integer_value(body)
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
    if ty.rank < INT.rank:
        return INT  # every narrower type fits in int
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


def agree(types: list[_Ty | None]) -> _Ty | None:
    """One answer from several declarations: all must name the same type."""
    if not types or types[0] is None:
        return None
    first = types[0]
    for other in types[1:]:
        if other is None or not first.same(other):
            return None
    return first


class Scope:
    """A node that declares names (``DECLARING_SCOPES``), with what lookups read of it."""

    __slots__ = ("kind", "node", "record", "single", "table")

    def __init__(self, node: Node, kind: str) -> None:
        self.node = node
        self.kind = kind
        self.table: dict[str, list[Entry]] | None = None  # blocks, statements: name -> entries
        self.single: dict[str, Entry] | None = None  # parameters, template values
        self.record: tuple[_Ty | None, bool] | None = None  # record scopes: type, has bases


class SharedParameters:
    """A parameter list's table, for the lists of the same text, and the template parameter
    names around the function it was read in, when a parameter's type names a type (else
    None). A plain class: a data class costs about 0.3 ms of CPU to create at every start."""

    __slots__ = ("table", "templates")

    def __init__(self, table: dict[str, Entry], templates: frozenset[str] | None) -> None:
        self.table = table
        self.templates = templates
