"""Parse one translation unit with libclang and record every asm operand's exact type.

The result is plain data (``TuTypes``) so it can be cached as JSON and consumed without libclang.
Statements are identified the way ptxlint's extractor sees them:

* a statement written in a function body: (file, byte offset of the ``asm`` keyword);
* a statement written in a ``#define`` body: (file of the ``#define``, the definition's byte range,
  the ordinal of the statement among those one expansion produced). Clang 18's
  ``clang_getSpellingLocation`` returns the expansion site, so we find the macro through the
  preprocessing record (``MACRO_INSTANTIATION`` at the expansion site -> its definition).

Templates: libclang's visitor never enters implicit instantiations, but a call's ``referenced``
cursor is the instantiated function whose body holds the instantiated asm. We follow calls from
every body we walk (a worklist), and label each record with the instantiation's name.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from ptxlint.value_class import value_class

_HALF_RECORDS = frozenset({"__half", "__nv_bfloat16"})


class Tier2Unavailable(Exception):
    """libclang cannot be imported or loaded."""


class TuParseError(Exception):
    """The translation unit could not be parsed (missing header, bad flag, libclang failure)."""


@value_class(slots=False)
class OperandType:
    """An asm operand's type as libclang reports it, in ``CType``'s terms."""

    spelling: str
    kind: str  # model.CType kinds
    size: int | None


@value_class(slots=False)
class MacroSite:
    """For an asm statement written in a ``#define``: the definition, which of the expansion's
    statements it is, and the invocation it was expanded from."""

    def_file: str
    def_start: int  # byte offsets of the definition (name to end of body)
    def_end: int
    ordinal: int  # which asm of this expansion, in source order
    count: int  # how many asm this expansion produced (for this architecture and instantiation)
    expansion: str  # "file:line" of the invocation, names the "instantiation" of the macro


@value_class(slots=False)
class AsmRecord:
    """One asm statement as libclang saw it: where it is, its operands' types, and the template
    instantiation or macro expansion it comes from."""

    file: str  # where the asm keyword is (the expansion site for macro statements)
    offset: int  # byte offset of the keyword in ``file``
    operands: tuple[OperandType | None, ...]  # by operand index; None: not typed
    instantiation: str | None = None  # "f<short>", "C<char>::g"; None outside templates
    macro: MacroSite | None = None
    # byte offset of each operand expression in ``file`` (only for statements not from a macro)
    operand_offsets: tuple[int, ...] = ()
    # the template as clang's preprocessor and parser assembled it (macros expanded, pieces
    # concatenated), where libclang has clang_Cursor_getGCCAssemblyTemplate (LLVM 21+)
    template: str | None = None


@dataclass
class TuTypes:
    """What parsing one translation unit with libclang recorded: every asm statement's operand
    types, the files it read and its error diagnostics."""

    main_file: str
    records: list[AsmRecord] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)  # every file the TU read
    errors: list[str] = field(default_factory=list)  # error diagnostics (not fatal)


def load_cindex() -> Any:
    """The ``clang.cindex`` module with a working library, or ``Tier2Unavailable``."""
    try:
        import clang.cindex as cindex
    except ImportError as exc:
        raise Tier2Unavailable("libclang is not installed (pip install 'ptxlint[clang]')") from exc
    _pin_library(cindex)
    try:
        cindex.Index.create()
    except Exception as exc:  # a wheel without its shared library, a broken LIBCLANG path
        raise Tier2Unavailable(f"libclang cannot be loaded: {exc}") from exc
    return cindex


def _pin_library(cindex: Any) -> None:
    """Never load a libclang from the working folder: a relative ``LIBCLANG_LIBRARY_PATH`` (or
    one set by a caller) would make cindex load ``./libclang.so`` of the checkout being linted.
    Such a folder is replaced by the wheel's own ``native`` folder, beside cindex itself."""
    config = cindex.Config
    if getattr(config, "loaded", False) or getattr(config, "library_file", None):
        return  # already loaded, or a file the embedding program chose on purpose
    folder = getattr(config, "library_path", None)
    if folder is None or os.path.isabs(folder):
        return
    native = os.path.join(os.path.dirname(os.path.realpath(cindex.__file__)), "native")
    config.library_path = native if os.path.isdir(native) else None


def analyze(path: str, args: list[str] | tuple[str, ...]) -> TuTypes:
    """Parse ``path`` with ``args`` and collect asm operand types. Raises ``TuParseError``."""
    ci = load_cindex()
    index = ci.Index.create()
    # the preprocessing record lets us find the #define a macro-expanded asm came from
    options = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    try:
        tu = index.parse(path, args=list(args), options=options)
    except ci.TranslationUnitLoadError as exc:
        raise TuParseError(f"libclang could not parse {path}: {exc}") from exc
    errors: list[str] = []
    for diag in tu.diagnostics:
        if diag.severity >= ci.Diagnostic.Fatal:
            raise TuParseError(f"{_diag_text(diag)}")
        if diag.severity >= ci.Diagnostic.Error:
            if diag.location.file is None:  # a command-line problem, e.g. an unknown flag
                raise TuParseError(f"{diag.spelling}")
            errors.append(_diag_text(diag))
    walker = _Walker(ci, tu)
    walker.run()
    included = {_real(inc.include.name) for inc in tu.get_includes() if inc.include}
    deps = sorted(included | {_real(path)})
    return TuTypes(_real(path), walker.records, deps, errors)


def _diag_text(diag: Any) -> str:
    loc = diag.location
    where = f"{loc.file.name}:{loc.line}:{loc.column}: " if loc.file else ""
    return f"{where}{diag.spelling}"


def _real(name: str) -> str:
    return os.path.realpath(name)


class _Walker:
    def __init__(self, ci: Any, tu: Any) -> None:
        self.ci = ci
        self.tu = tu
        self.K = ci.CursorKind
        self.records: list[AsmRecord] = []
        self.macro_sites = self._macro_sites()
        self._seen_functions: set[tuple[str, int, str, str]] = set()
        self._function_kinds = {
            self.K.FUNCTION_DECL,
            self.K.CXX_METHOD,
            self.K.CONSTRUCTOR,
            self.K.DESTRUCTOR,
            self.K.CONVERSION_FUNCTION,
        }

    def _macro_sites(self) -> dict[tuple[str, int], tuple[str, int, int]]:
        """(file, offset) of each macro expansion -> (definition file, start, end)."""
        sites: dict[tuple[str, int], tuple[str, int, int]] = {}
        for cursor in self.tu.cursor.get_children():
            if cursor.kind != self.K.MACRO_INSTANTIATION:
                continue
            start = _file_location(self.ci, cursor.extent.start)
            if start is None:
                continue
            definition = cursor.referenced
            if definition is None or definition.extent.start.file is None:
                continue
            extent = definition.extent
            sites[(start[0], start[1])] = (
                _real(extent.start.file.name),
                extent.start.offset,
                extent.end.offset,
            )
        return sites

    def run(self) -> None:
        pending: list[tuple[Any, str | None]] = [(self.tu.cursor, None)]
        while pending:
            root, name = pending.pop()
            self._walk(root, name, pending)
        # each expansion's asm count: a #define body whose asm sit in NV_IF_ELSE_TARGET branches
        # yields fewer statements than it spells, and then ordinals do not identify them
        counts: dict[tuple[str, int, str | None], int] = {}
        for r in self.records:
            if r.macro is not None:
                key = (r.file, r.offset, r.instantiation)
                counts[key] = counts.get(key, 0) + 1
        self.records = [
            r
            if r.macro is None
            else dataclasses.replace(
                r,
                macro=dataclasses.replace(
                    r.macro, count=counts[(r.file, r.offset, r.instantiation)]
                ),
            )
            for r in self.records
        ]

    def _walk(
        self, root: Any, instantiation: str | None, pending: list[tuple[Any, str | None]]
    ) -> None:
        ordinals: dict[tuple[str, int], int] = {}
        stack = [root]
        K = self.K
        while stack:
            cursor = stack.pop()
            kind = cursor.kind
            if kind == K.ASM_STMT:
                self._record(cursor, instantiation, ordinals)
            elif kind in (K.CALL_EXPR, K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
                target = cursor.referenced
                if target is not None and target.kind in self._function_kinds:
                    name = self._instantiation_name(target)
                    if name is not None:
                        self._queue(target, name, pending)
            # reversed, so the stack pops children in source order (ordinals depend on it)
            stack.extend(reversed(list(cursor.get_children())))

    def _queue(self, function: Any, name: str, pending: list[tuple[Any, str | None]]) -> None:
        if not function.is_definition():
            definition = function.get_definition()
            if definition is None:
                return
            function = definition
        start = function.extent.start
        key = (start.file.name if start.file else "", start.offset, name, function.displayname)
        if key in self._seen_functions:
            return
        self._seen_functions.add(key)
        pending.append((function, name))

    def _instantiation_name(self, function: Any) -> str | None:
        """``f<short>`` or ``C<char>::g`` for an instantiated function; None for ordinary ones."""
        parent = function.semantic_parent
        owner = ""
        if parent is not None and parent.kind in (
            self.K.STRUCT_DECL,
            self.K.CLASS_DECL,
            self.K.UNION_DECL,
        ):
            spelled = parent.type.get_canonical().spelling
            if parent.type.get_num_template_arguments() > 0 or "<" in spelled:
                owner = spelled
        count = function.get_num_template_arguments()
        own = ""
        if count > 0:
            parts = []
            for i in range(count):
                kind = function.get_template_argument_kind(i)
                if kind == self.ci.TemplateArgumentKind.TYPE:
                    parts.append(function.get_template_argument_type(i).get_canonical().spelling)
                elif kind == self.ci.TemplateArgumentKind.INTEGRAL:
                    parts.append(str(function.get_template_argument_value(i)))
                else:
                    parts.append("?")
            own = f"{function.spelling}<{', '.join(parts)}>"
        if not owner and not own:
            return None
        return f"{owner}::{own or function.spelling}" if owner else own

    def _record(
        self, cursor: Any, instantiation: str | None, ordinals: dict[tuple[str, int], int]
    ) -> None:
        where = _file_location(self.ci, cursor.extent.start)
        if where is None:
            return
        file_name, offset, line = where
        children = list(cursor.get_children())
        operands = tuple(_operand_type(self.ci, child) for child in children)
        macro = None
        # an asm spelled in a macro *argument* (NV_IF_TARGET(..., asm(...))) has its own file
        # location; one spelled in a macro *body* sits at the expansion site of that macro
        site = self.macro_sites.get((file_name, offset))
        if site is not None:
            key = (file_name, offset)
            ordinal = ordinals.get(key, 0)
            ordinals[key] = ordinal + 1
            macro = MacroSite(
                site[0], site[1], site[2], ordinal, 0, f"{os.path.basename(file_name)}:{line}"
            )
        offsets: tuple[int, ...] = ()
        if macro is None:
            starts = [_file_location(self.ci, c.extent.start) for c in children]
            offsets = tuple(s[1] if s is not None and s[0] == file_name else -1 for s in starts)
        self.records.append(
            AsmRecord(
                _real(file_name),
                offset,
                operands,
                instantiation,
                macro,
                offsets,
                gcc_asm_template(self.ci, cursor),
            )
        )


_TEMPLATE_API: dict[int, Any] = {}


def gcc_asm_template(ci: Any, cursor: Any) -> str | None:
    """clang's own template string of an asm statement, or None when the loaded libclang does
    not have ``clang_Cursor_getGCCAssemblyTemplate`` (it arrived in LLVM 21)."""
    lib = ci.conf.lib
    key = id(lib)
    if key not in _TEMPLATE_API:
        function = getattr(lib, "clang_Cursor_getGCCAssemblyTemplate", None)
        if function is not None:
            function.argtypes = [ci.Cursor]
            function.restype = ci._CXString
        _TEMPLATE_API[key] = function
    function = _TEMPLATE_API[key]
    if function is None:
        return None
    try:
        return str(ci._CXString.from_result(function(cursor)))
    except Exception:  # a binding that differs from the documented one: no template
        return None


def _file_location(ci: Any, location: Any) -> tuple[str, int, int] | None:
    """clang_getFileLocation: the spelling of macro-argument tokens, else the expansion site
    (cindex's ``SourceLocation`` attributes give the expansion site only)."""
    file = ci.c_object_p()
    line, column, offset = ci.c_uint(), ci.c_uint(), ci.c_uint()
    ci.conf.lib.clang_getFileLocation(
        location, ci.byref(file), ci.byref(line), ci.byref(column), ci.byref(offset)
    )
    if not file:
        return None
    return ci.File(file).name, offset.value, line.value


def _operand_type(ci: Any, expr: Any) -> OperandType | None:
    """The canonical type of one operand expression, or None when clang could not type it."""
    TK = ci.TypeKind
    # an expression that failed to type-check (RecoveryExpr) or depends on a template parameter
    # has a dependent type somewhere inside: nothing in it can be trusted
    for node in expr.walk_preorder():
        if node.type.kind in (TK.DEPENDENT, TK.INVALID) and node.kind.is_expression():
            return None
    canonical = expr.type.get_canonical()
    kind = _classify(ci, canonical)
    if kind is None:
        return None
    size = canonical.get_size()
    return OperandType(_unqualified(canonical), kind, size if size > 0 else None)


def _classify(ci: Any, ty: Any) -> str | None:
    TK = ci.TypeKind
    k = ty.kind
    if k == TK.BOOL:
        return "bool"
    if k in _kinds(TK, _INTEGER_KINDS):
        return "integer"
    if k in _kinds(TK, "FLOAT DOUBLE LONGDOUBLE FLOAT128 HALF FLOAT16 BFLOAT16 IBM128"):
        return "floating"
    if k == TK.ENUM:
        return "enum"
    if k in _kinds(TK, "POINTER NULLPTR BLOCKPOINTER MEMBERPOINTER"):
        return "pointer"
    if k == TK.RECORD:
        return "half" if _unqualified(ty) in _HALF_RECORDS else "aggregate"
    if k in _kinds(TK, "CONSTANTARRAY INCOMPLETEARRAY VARIABLEARRAY VECTOR EXTVECTOR COMPLEX"):
        return "aggregate"
    return None


_INTEGER_KINDS = (
    "CHAR_U UCHAR CHAR16 CHAR32 USHORT UINT ULONG ULONGLONG UINT128 CHAR_S SCHAR WCHAR SHORT "
    "INT LONG LONGLONG INT128"
)


def _kinds(TK: Any, names: str) -> frozenset[Any]:
    # getattr: the kinds known differ between binding versions (FLOAT16 is missing from 18's)
    return frozenset(k for n in names.split() if (k := getattr(TK, n, None)) is not None)


def _unqualified(ty: Any) -> str:
    spelling: str = ty.spelling
    for qualifier in ("const ", "volatile ", "restrict "):
        while spelling.startswith(qualifier):
            spelling = spelling[len(qualifier) :]
    for qualifier in (" const", " volatile", " restrict", " __restrict"):
        while spelling.endswith(qualifier):
            spelling = spelling[: -len(qualifier)]
    return spelling
