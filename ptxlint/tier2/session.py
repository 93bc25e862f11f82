"""Tier 2 for one run: which TUs to parse for a file, the merged result, and how it reaches rules.

Public API
----------
``Tier2Session(db, clang_args, ...)``: built once per run (or per LSP workspace).
``session.types_for(path) -> Tier2Types``: parses (or loads from cache) the TUs that can see
``path``: its own compile command; for a header, every TU in the database; with only
``--clang-args``, the file itself. Never raises; problems become ``session.notes`` (one each).
``annotate(statements, types) -> list[AsmStatement]``: operands whose Tier-2 types agree across
every instantiation get ``ctype`` replaced by the Tier-2 ``CType`` (``tier=2``).
``Tier2Types.operand_types(statement, index) -> list[Instantiated]``: every type the operand has,
one per instantiation (``name`` is ``"f<short>"``, ``"C<char>::g"``, ``"MACRO@file.cu:12"``, or
None for ordinary code). PTX004 reports each instantiation whose type does not fit.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ptxlint.model import AsmStatement, CType, SourceFile, Template, TemplatePiece
from ptxlint.program_search import absolute_env_folder, which
from ptxlint.tier2 import prelude as prelude_mod
from ptxlint.tier2.cache import Tier2Cache
from ptxlint.tier2.compile_db import CompileDb
from ptxlint.tier2.flags import for_arch, is_cuda_command, translate
from ptxlint.tier2.libclang_types import (
    AsmRecord,
    OperandType,
    Tier2Unavailable,
    TuParseError,
    TuTypes,
    analyze,
    load_cindex,
)
from ptxlint.value_class import value_class


@value_class(slots=False)
class Instantiated:
    """An operand's type in one template instantiation or macro expansion (or in plain code)."""

    name: str | None  # the template instantiation or macro expansion; None for plain code
    ctype: CType


def _ctype(t: OperandType) -> CType:
    return CType(t.spelling, t.kind, t.size, tier=2)


@dataclass
class Tier2Types:
    """Records of every TU that was parsed for a file, indexed for statement lookups."""

    records: list[AsmRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._ordinals: dict[tuple[str, int], tuple[int, int]] = {}
        self._direct: dict[tuple[str, int], list[AsmRecord]] = {}
        self._macro: dict[str, list[AsmRecord]] = {}
        self._sites: dict[tuple[str, int], list[AsmRecord]] = {}  # by expansion site
        for r in self.records:
            if r.macro is None:
                self._direct.setdefault((r.file, r.offset), []).append(r)
            else:
                self._macro.setdefault(r.macro.def_file, []).append(r)
                self._sites.setdefault((r.file, r.offset), []).append(r)

    def __bool__(self) -> bool:
        return bool(self.records)

    def _macro_range(self, path: str, offset: int) -> tuple[int, int] | None:
        for r in self._macro.get(path, []):
            if r.macro is not None and r.macro.def_start <= offset < r.macro.def_end:
                return (r.macro.def_start, r.macro.def_end)
        return None

    def assign_ordinals(self, statements: Sequence[AsmStatement]) -> None:
        """Rank the statements of each ``#define`` body (``annotate`` calls this; a rule that
        calls ``statement_types`` afterwards gets the same answer)."""
        groups: dict[tuple[str, int], list[AsmStatement]] = {}
        expansions: dict[tuple[str, int], list[AsmStatement]] = {}
        for s in statements:
            path = os.path.realpath(s.source.path)
            if s.context.expansion is not None:
                at = _byte_offset(s.source, s.context.expansion.span.start)
                expansions.setdefault((path, at), []).append(s)
                continue
            offset = _byte_offset(s.source, s.span.start)
            if (path, offset) in self._direct:
                continue
            where = self._macro_range(path, offset)
            if where is not None:
                groups.setdefault((path, where[0]), []).append(s)
        for members in groups.values():
            members.sort(key=lambda s: s.span.start)
            # NV_IF_ELSE_TARGET(arch, asm(A), asm(B)) in a #define body: each parse sees one
            # branch, so ordinals cannot say which. When every statement of the body spells the
            # same operands with the same constraints, any branch's types are theirs (-1: any).
            alike = len({_operand_spelling(s) for s in members}) == 1
            for rank, s in enumerate(members):
                self._ordinals[_statement_key(s)] = (-1, 0) if alike else (rank, len(members))
        # A statement ptxlint expanded from an invocation: libclang's records of that
        # invocation (its expansion site), by rank among the statements it produced.
        for members in expansions.values():
            members.sort(key=lambda s: s.span.start)
            alike = len({_operand_spelling(s) for s in members}) == 1
            for rank, s in enumerate(members):
                self._ordinals[_statement_key(s)] = (-1, 0) if alike else (rank, len(members))

    def _records_for(self, statement: AsmStatement) -> list[AsmRecord]:
        path = os.path.realpath(statement.source.path)
        offset = _byte_offset(statement.source, statement.span.start)
        if statement.context.branch:
            return []  # one #if branch of a statement: libclang's parse may have taken another
        direct = self._direct.get((path, offset))
        if direct:
            return direct
        ranked = self._ordinals.get(_statement_key(statement))
        if ranked is None:
            return []
        ordinal, count = ranked
        expansion = statement.context.expansion
        if expansion is not None:
            site = (path, _byte_offset(statement.source, expansion.span.start))
            return [
                r
                for r in self._sites.get(site, [])
                if r.macro is not None
                and ((r.macro.ordinal, r.macro.count) == (ordinal, count) or ordinal == -1)
            ]
        return [
            r
            for r in self._macro.get(path, [])
            if r.macro is not None
            and r.macro.def_start <= offset < r.macro.def_end
            and ((r.macro.ordinal, r.macro.count) == (ordinal, count) or ordinal == -1)
        ]

    def statement_types(self, statement: AsmStatement) -> list[list[Instantiated]]:
        """Per operand index, the distinct (instantiation, type) pairs; [] where none is known.

        A statement in a ``#define`` body is matched by its rank in that body, so call
        ``assign_ordinals`` (or ``annotate``) with the file's statements first.
        """
        found: list[list[Instantiated]] = [[] for _ in statement.operands]
        for record in self._records_for(statement):
            if len(record.operands) != len(statement.operands):
                continue  # a different statement (or a preprocessor branch we did not see)
            name = record.instantiation
            if record.macro is not None:
                name = f"{name}: " if name else ""
                name += f"expansion at {record.macro.expansion}"
            for index, t in enumerate(record.operands):
                if t is None:
                    continue
                entry = Instantiated(name, _ctype(t))
                if entry not in found[index]:
                    found[index].append(entry)
        return found

    def operand_types(self, statement: AsmStatement, index: int) -> list[Instantiated]:
        per_operand = self.statement_types(statement)
        return per_operand[index] if 0 <= index < len(per_operand) else []


def agreed(types: Sequence[Instantiated]) -> CType | None:
    """The one type every instantiation agrees on, or None."""
    distinct = {t.ctype for t in types}
    return next(iter(distinct)) if len(distinct) == 1 else None


def _operand_spelling(statement: AsmStatement) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        (o.role, o.constraint.text, " ".join(o.expression.split())) for o in statement.operands
    )


def _statement_key(statement: AsmStatement) -> tuple[str, int]:
    return (os.path.realpath(statement.source.path), statement.span.start)


def annotate(statements: Sequence[AsmStatement], types: Tier2Types) -> list[AsmStatement]:
    """Statements with Tier-2 types on the operands whose instantiations all agree; a macro
    expansion whose template clang assembled differently takes clang's template."""
    if not types:
        return list(statements)
    types.assign_ordinals(statements)
    out = []
    for statement in statements:
        statement = _clang_expansion(statement, types)
        per_operand = types.statement_types(statement)
        operands = list(statement.operands)
        changed = False
        for i, found in enumerate(per_operand):
            ctype = agreed(found)
            if ctype is not None and ctype != operands[i].ctype:
                operands[i] = dataclasses.replace(operands[i], ctype=ctype)
                changed = True
        out.append(
            dataclasses.replace(statement, operands=tuple(operands)) if changed else statement
        )
    return out


def _clang_expansion(statement: AsmStatement, types: Tier2Types) -> AsmStatement:
    """The template of an expansion as clang's preprocessor produced it, when libclang can say
    (every parse agreeing) and ptxlint's own expansion differs: clang's text wins, mapped to
    the invocation as a whole (its characters have no exact positions here)."""
    expansion = statement.context.expansion
    if expansion is None:
        return statement
    texts = {r.template for r in types._records_for(statement) if r.template is not None}
    if len(texts) != 1:
        return statement
    text = texts.pop()
    if text == statement.template.text:
        return statement
    from ptxlint.ptx.parser import parse_template  # only when clang and ptxlint disagree

    span = expansion.span
    template = Template(
        text,
        (span.start,) * len(text),
        (span.end,) * len(text),
        (TemplatePiece("string", span, 0, len(text)),),
    )
    return dataclasses.replace(
        statement, template=template, ptx=parse_template(text, statement.extended)
    )


def _byte_offset(source: SourceFile, offset: int) -> int:
    text = source.text
    if text.isascii():
        return offset
    return len(text[:offset].encode("utf-8", "surrogatepass"))


def cuda_include_dir() -> str | None:
    """$CUDA_HOME/include, $CUDA_PATH/include, nvcc's sibling include, or /usr/local/cuda; never
    from the working folder (program_search: a relative variable or PATH entry names it)."""
    candidates = [absolute_env_folder("CUDA_HOME"), absolute_env_folder("CUDA_PATH")]
    nvcc = which("nvcc")
    if nvcc:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates.append("/usr/local/cuda")
    for home in candidates:
        if home and (Path(home) / "include" / "cuda_runtime.h").is_file():
            return str(Path(home) / "include")
    return None


class Tier2Session:
    """Parses TUs on demand; every failure falls back to Tier 1 with one note."""

    def __init__(
        self,
        db: CompileDb | None = None,
        clang_args: Sequence[str] = (),
        cache: Tier2Cache | None = None,
        cuda_include: str | None | bool = True,
        analyzer: Callable[[str, list[str]], TuTypes] = analyze,
        max_archs: int = 4,  # each architecture is one more parse of the TU
    ) -> None:
        self.db = db
        self.clang_args = tuple(clang_args)
        self.cache = cache or Tier2Cache()
        include = cuda_include_dir() if cuda_include is True else cuda_include
        self.include_dirs = (include,) if isinstance(include, str) else ()
        self.analyzer = analyzer
        self.notes: list[str] = []
        self._results: dict[tuple[str, tuple[str, ...]], TuTypes | None] = {}
        self.max_archs = max_archs
        self._available: bool | None = None
        self._failed_tus = 0

    @property
    def enabled(self) -> bool:
        return self.db is not None or bool(self.clang_args)

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _libclang_ok(self) -> bool:
        if self._available is None:
            try:
                load_cindex()
                self._available = True
            except Tier2Unavailable as exc:
                self._available = False
                self._note(f"Tier-2 types off, using Tier 1: {exc}")
        return self._available

    def types_for(self, path: str) -> Tier2Types:
        if not self.enabled or not self._libclang_ok():
            return Tier2Types()
        records: list[AsmRecord] = []
        for tu, argv, directory in self._tus_for(path):
            flags = translate(argv, directory, tu, self.clang_args, self.include_dirs)
            for arch in flags.archs[: self.max_archs]:
                result = self._parse(tu, for_arch(flags, arch))
                if result is not None:
                    records.extend(result.records)
        return Tier2Types(records)

    def _tus_for(self, path: str) -> list[tuple[str, Sequence[str], str]]:
        real = os.path.realpath(path)
        if self.db is not None:
            own = self.db.for_file(real)
            if own is not None:
                return [(own.file, own.arguments, own.directory)]
            # a header: every device TU may include it (results are cached per TU)
            return [
                (c.file, c.arguments, c.directory)
                for c in self.db.commands
                if is_cuda_command(c.arguments, c.file)
            ]
        return [(real, ("nvcc",), os.path.dirname(real))]

    def _parse(self, tu: str, flag_args: Sequence[str]) -> TuTypes | None:
        memo = (tu, tuple(flag_args))
        if memo in self._results:
            return self._results[memo]
        prelude, shims = prelude_mod.materialize(self.cache.root)
        args = [*flag_args, "-include", str(prelude), "-idirafter", str(shims)]
        key = self.cache.key(tu, args, prelude_mod.PRELUDE_DIGEST)
        cached = self.cache.get(key) if key else None
        result: TuTypes | None
        if isinstance(cached, TuTypes):
            result = cached
        elif isinstance(cached, str):
            result = self._failed(tu, cached)
        else:
            try:
                result = self.analyzer(tu, args)
                if key:
                    self.cache.put(key, result, result.dependencies)
            except (TuParseError, OSError) as exc:
                if key:
                    self.cache.put(key, str(exc), [tu])
                result = self._failed(tu, str(exc))
            except Exception as exc:  # libclang misbehaving must never stop a lint run
                result = self._failed(tu, f"{type(exc).__name__}: {exc}")
        self._results[memo] = result
        return result

    def _failed(self, tu: str, why: str) -> TuTypes | None:
        self._failed_tus += 1
        self._note(
            "Tier-2 types unavailable for some files, using Tier 1 there "
            f"(first: {os.path.basename(tu)}: {why.splitlines()[0] if why else 'parse failed'})"
        )
        return None


def make_type_lookup(
    session: Tier2Session, tier1: Callable[[object], Callable[[str, int], CType | None]]
) -> Callable[[object], Callable[[str, int], CType | None]]:
    """A drop-in ``make_type_lookup`` for ``extract``: Tier 2 where an operand's expression
    starts exactly where clang's operand does and every instantiation agrees, else Tier 1.

    It sees only (expression, offset), so macro-body statements stay Tier 1 here; ``annotate``
    after extraction covers those too. Prefer ``annotate``; this is for callers that can only
    swap the lookup.
    """

    def factory(parsed: object) -> Callable[[str, int], CType | None]:
        fallback = tier1(parsed)
        path = getattr(parsed, "path", None)
        if not isinstance(path, str):
            return fallback
        types = session.types_for(path)
        table = _expression_table(types, os.path.realpath(path))
        starts = sorted(table)

        def lookup(expression: str, offset: int) -> CType | None:
            to_byte = getattr(parsed, "to_byte", None)
            byte = to_byte(offset) if callable(to_byte) else offset
            i = bisect.bisect_left(starts, byte)
            if i < len(starts) and starts[i] == byte and table[byte] is not None:
                return table[byte]
            return fallback(expression, offset)

        return lookup

    return factory


def _expression_table(types: Tier2Types, path: str) -> dict[int, CType | None]:
    # Tier2 records carry operand types but not operand offsets; this table is filled by
    # ``AsmRecord``s' operand start offsets when present (see libclang_types.operand_offsets).
    table: dict[int, CType | None] = {}
    for record in types.records:
        if record.file != path or record.macro is not None:
            continue
        for start, t in zip(record.operand_offsets, record.operands, strict=False):
            ctype = _ctype(t) if t is not None else None
            if start in table and table[start] != ctype:
                table[start] = None  # instantiations disagree
            else:
                table[start] = ctype
    return table
