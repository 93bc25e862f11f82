"""What the pure rules (``Rule.pure``) said of a statement, kept for the next statement that is the
same: across flashinfer's 275,000 asm statements, four in five are one that the same worker
linted before (a header copied into many projects' folders, the same helper in thousands of
generated kernels), mostly in another file.

A pure rule's outcome is a function of:
- the statement's own text, from its keyword to its closing parenthesis, and the keyword and
  qualifiers it stands for (a keyword macro's use, ``ASM(...)``, spells them in the macro);
- what the extractor read from elsewhere: the operands' C++ types, a constraint a macro spells,
  extraction problems, and the ``Context`` (guards, specifiers, macro, branch, dialect; of the
  enclosing function only whether there is one);
- the file's settings (``RuleContext.arch``, ``arch_suffix``, ``targets``, ``targets_from``,
  ``options``) and traits (ptxlint.file_traits).

The key holds exactly these (the types only where the rules may have read them: ``Key``), so
a stored outcome is replayed only onto a statement that reads the same, with every offset moved
by the distance between the two statements' starts.

Which statements: those read from the file's own text. Not an expansion of a macro (its spans
point into the invocation and the ``#define``), nor a statement whose template has a macro
piece with known text (its characters map into a ``#define`` elsewhere), nor LLVM-syntax calls
or C++ embedded in Python (the decoding depends on the literal around it), nor any statement
of a file with Tier 2 types (per-instantiation types that the key does not hold).

What is stored, per pure rule: nothing, or its findings with offsets relative to the statement
and no reference to the statement or its file. An outcome is not stored, and the rule is called
again on every repeat, where it raised, where it read what lies beyond the statement
(``context.file_statements``, ``parsed``, ``cxx``: ``WatchedContext`` notices), or where a
finding or an edit reaches outside the statement's text.

The memo is one per process, least recently used first out, at most ``MEMO_SIZE`` statements
(safe to share between threads: each step is one dictionary operation, and a lost race costs a
miss). Over flashinfer split between two workers, 4,096 entries already find 79.5% of the
statements (an unbounded memo, 79.9%). Its keys hold the statements' texts, about 7 MB at
8,192 entries; nothing of a file stays alive through it. A hit costs about 10 us (the key half
of it), against about 50 us of pure rules on an average flashinfer statement; the rule phase of
flashinfer's 150-file sample takes 22% less CPU (tests/test_rule_memo.py holds the replays to
what a lint without the memo says). Where statements rarely repeat it buys nothing (over the
CUDA 13 headers, ``check -j 1``, 57 of 3,513 statements hit), so there it keys only a sample of
them (``Memo``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence

from ptxlint.file_traits import traits
from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.lru import Lru
from ptxlint.model import (
    HOLE,
    AsmStatement,
    Context,
    Edit,
    Finding,
    Fix,
    Operand,
    SourceFile,
    Span,
    operand_types,
    piece_count,
    types_read,
)
from ptxlint.rule import RuleContext

MEMO_SIZE = 8192

# A stored outcome that says "call the rule again" (see the module's docstring).
RERUN = None

# Finding's fields, as ``detach``/``attach`` know them: a new field may hold an offset, so a
# change here must be looked at there (tests/test_rule_memo.py compares).
FINDING_FIELDS = (
    "rule", "name", "severity", "path", "span", "message", "fix", "statement", "expansion",
    "spelled_at", "branch", "latent",
)
_CONTEXT_FIELDS = tuple(f.name for f in dataclasses.fields(Context))
_MACRO = ("macro",)


class WatchedContext(RuleContext):
    """A ``RuleContext`` that notes a read of the fields that reach beyond the statement (every
    statement of the file, its syntax tree, its per-function C++ facts): an outcome that read
    one is not a function of its statement. Made by ``watch``; ``touched`` is reset by the
    engine before each rule."""

    touched: bool

    @staticmethod
    def _watched(name: str) -> property:
        def get(self: WatchedContext) -> object:
            fields = self.__dict__
            fields["touched"] = True
            return fields[name]

        def put(self: WatchedContext, value: object) -> None:
            self.__dict__[name] = value  # dataclasses.replace builds a copy through __init__

        return property(get, put)


for _name in ("file_statements", "parsed", "cxx"):
    setattr(WatchedContext, _name, WatchedContext._watched(_name))


def watch(context: RuleContext) -> WatchedContext:
    watched = object.__new__(WatchedContext)
    watched.__dict__.update(context.__dict__)
    watched.__dict__["touched"] = False
    return watched


# (features, ((place among the pure rules called, findings or RERUN), ...)): see Memo.
Entry = tuple[int, tuple[tuple[int, object], ...]]

# While keying every statement, the memo looks at its last WINDOW look-ups: fewer than one hit
# in PAYS, and it keys only one statement in SAMPLE from then on (``Memo.keyed``), until one of
# those hits.
WINDOW = 512
PAYS = 32
SAMPLE = 16


class Memo(Lru[Hashable, Entry]):
    """Statement key -> (the statement's features, (place among the pure rules called, what
    ``detach`` kept or ``RERUN``) for each pure rule that said something or must be called
    again).

    Adaptive (``adaptive``): a key and a stored outcome cost about 10 us a statement, which buy
    nothing where statements do not repeat. So where fewer than one look-up in ``PAYS`` hits
    over ``WINDOW`` of them, the memo keys only the statements whose text length is a multiple
    of ``SAMPLE``: the copies of a statement have its length, so the sampled ones hit where the
    others would, and at the first hit among them the memo keys every statement again. Over the
    CUDA 13 headers (``-j 1``) it keys 669 statements of 3,513 instead of all (6 hits instead of
    57), over CUTLASS's include/ 650 of 3,138 (3 hits instead of 40): 0.03-0.05 s less of the
    CUDA headers' 0.7 s of rules; over flashinfer's sample it keys every one (1,880 hits of
    3,929, as before). A language server lints a document again after each edit, where every
    statement repeats: it keys them all (``adaptive = False``)."""

    def __init__(self, size: int = MEMO_SIZE, adaptive: bool = True) -> None:
        super().__init__(size)
        self.adaptive = adaptive
        self.sampling = False
        self._window = (0, 0)  # (hits, misses) when the current window began

    def keyed(self, statement: AsmStatement) -> bool:
        """Whether ``statement`` is worth a key now (see the class's docstring)."""
        if not self.sampling:
            return True
        span = statement.span
        return (span.end - span.start) % SAMPLE == 0

    def get(self, key: Hashable) -> Entry | None:
        """The stored entry, or None; each look-up counts towards the keying policy."""
        entry = super().get(key)
        if not self.adaptive:
            return entry
        if self.sampling:
            if entry is not None:
                self.sampling = False
                self._window = (self.hits, self.misses)
            return entry
        hits, misses = self._window
        looked = self.hits - hits + self.misses - misses
        if looked >= WINDOW:
            self.sampling = (self.hits - hits) * PAYS < looked
            self._window = (self.hits, self.misses)
        return entry

    def put(self, key: Hashable, entry: Entry) -> None:
        """Store ``entry`` under ``key``, once the rules have run: a ``Key`` keeps then what
        they may have read of the operands' types (``Key.seal``)."""
        if isinstance(key, Key):
            key.seal()
        super().put(key, entry)

    def clear(self) -> None:
        super().clear()
        self.sampling = False
        self._window = (0, 0)


MEMO = Memo()


class _Interned:
    """Small numbers for values that many keys share (a file's settings, a context), so that
    a key hashes them once. Numbers are never reused: after a ``clear`` a value gets a new one
    and the keys made with the old one are simply never found again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.numbers: dict[Hashable, int] = {}
        self.next = 0

    def number(self, value: Hashable) -> int:
        found = self.numbers.get(value)
        if found is None:
            if len(self.numbers) >= self.size:
                self.numbers.clear()
            found = self.numbers[value] = self.next
            self.next += 1
        return found


_SETTINGS = _Interned(256)
_CONTEXTS = _Interned(4096)


class FileKeys:
    """Memo keys for the statements of one file (one per ``RulePlan`` and file)."""

    def __init__(
        self, pure: tuple[Hashable, ...], context: RuleContext, source: SourceFile
    ) -> None:
        self.source = source
        self.context = context
        self.usable = context.tier2 is None and not _embedding(source)
        self.settings = 0
        if self.usable:
            try:
                options = repr(sorted(context.options.items()))
            except TypeError:  # option names that do not sort: the order as given
                options = repr(list(context.options.items()))
            self.settings = _SETTINGS.number(
                (pure, context.arch, context.arch_suffix, context.targets, context.targets_from,
                 options, traits(source))
            )
        self.watched = watch(context)
        # Context objects are shared by the statements of a function (frontends.cxx.extract): each
        # is numbered once, by identity (held, so that the identity stays its own).
        self._contexts: dict[int, tuple[Context, int]] = {}

    def key(self, statement: AsmStatement) -> Key | None:
        """The statement's memo key, or None where its outcomes are not memoised."""
        context = statement.context
        if (
            not self.usable
            or statement.source is not self.source
            or context.expansion is not None
            or statement.llvm is not None
        ):
            return None
        template = statement.template
        # counted first: a plain template's pieces are made only where read (model.SourceMap)
        for piece in template.pieces if piece_count(template, _MACRO) else ():
            if piece.kind == "macro" and (
                piece.text_end != piece.text_start + 1 or template.text[piece.text_start] != HOLE
            ):
                return None  # a macro's text: its characters map into the #define
        known = self._contexts.get(id(context))
        if known is None or known[0] is not context:
            number = _CONTEXTS.number(
                tuple(
                    getattr(context, name) if name != "function" else context.function is None
                    for name in _CONTEXT_FIELDS
                )
            )
            known = self._contexts[id(context)] = (context, number)
        operands = statement.operands
        span = statement.span
        return Key(
            (
                self.settings,
                known[1],
                self.source.text[span.start : span.end],
                # the keyword and qualifiers: a keyword macro (``ASM(...)``) spells them elsewhere
                statement.keyword,
                tuple(q.name for q in statement.qualifiers),
                # a constraint's text: a macro may spell it (an unresolved one is in the text)
                tuple(None if o.constraint.opaque else o.constraint.text for o in operands),
                statement.problems,
                statement.syntax,
            ),
            operands,
        )


class Key:
    """A statement's key with its hash worked out once: the memo looks a key up, then stores or
    moves it, and a tuple would hash its text each time.

    The operands' C++ types are part of the key only where the rules may have read them: a
    statement's types are worked out when first read (``model.OperandTypes``), and reading
    them for every key would type every statement. So ``parts`` leaves them out, and a key
    holds its statement's operands until the memo stores it (``seal``). Then it keeps their
    types where ``types_read`` says the rules may have read them, or ``UNREAD``: the rules
    took a path that no type decides, which they take again on a statement whose other
    parts are the same, whatever its types. A stored key with types matches a statement with
    the same parts and the same types (read then: a hit types the statement looked up).

    A key read every operand's type, so it typed every statement it was made for; now the
    rules' reads alone decide (with every default rule, PTX004, PTX005 and PTX301 still read
    every register operand's type; without them, 150 of the CUDA 13 headers' 3,546 statements
    are typed)."""

    __slots__ = ("hash", "parts", "operands", "types")

    def __init__(self, parts: tuple[object, ...], operands: tuple[Operand, ...] = ()) -> None:
        self.parts = parts
        self.hash = hash(parts)
        self.operands: tuple[Operand, ...] | None = operands  # until sealed
        self.types: object = UNREAD

    def seal(self) -> None:
        """Keep the operands' types, where the rules may have read them, and let go of the
        operands (they hold the statement's file until their types are read)."""
        operands = self.operands
        if operands is None:
            return
        self.operands = None
        if types_read(operands):
            self.types = operand_types(operands)

    def _types(self) -> object:
        if self.operands is None:
            return self.types
        return operand_types(self.operands)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not (isinstance(other, Key) and self.hash == other.hash and self.parts == other.parts):
            return False
        if self.operands is None and self.types is UNREAD:
            return True
        if other.operands is None and other.types is UNREAD:
            return True
        return self._types() == other._types()


# A sealed key's types where no rule may have read them (see ``Key``).
UNREAD = object()


def _embedding(source: SourceFile) -> bool:
    return source.path.endswith(PYTHON_EXTENSIONS)


def _relative(span: Span, start: int, end: int) -> Span | None:
    if start <= span.start and span.end <= end:
        return Span(span.start - start, span.end - start)
    return None


def detach(found: Sequence[Finding], statement: AsmStatement) -> tuple[Finding, ...] | None:
    """``found`` with offsets relative to the statement's start and without the statement or its
    path; None where a finding cannot be replayed onto another statement (it reaches outside
    this one's text, or carries what only the engine sets)."""
    start, end = statement.span.start, statement.span.end
    path = statement.source.path
    out: list[Finding] = []
    for finding in found:
        if (
            type(finding) is not Finding
            or finding.statement is not statement
            or finding.path != path
            or finding.expansion is not None
            or finding.spelled_at is not None
            or finding.branch
            or finding.latent  # the engine's, set after the rules (ptxlint.analysis.latent)
        ):
            return None
        span = _relative(finding.span, start, end)
        if span is None:
            return None
        fix = finding.fix
        if fix is not None:
            edits = []
            for edit in fix.edits:
                moved = _relative(edit.span, start, end)
                if moved is None:
                    return None
                edits.append(Edit(moved, edit.new_text))
            fix = Fix(fix.description, tuple(edits), fix.safe)
        out.append(dataclasses.replace(finding, path="", span=span, fix=fix, statement=None))
    return tuple(out)


def attach(stored: Sequence[Finding], statement: AsmStatement) -> list[Finding]:
    """Findings ``detach`` kept, placed on ``statement``."""
    base = statement.span.start
    path = statement.source.path
    out = []
    for f in stored:
        fix = f.fix
        if fix is not None:
            fix = Fix(
                fix.description,
                tuple(
                    Edit(Span(e.span.start + base, e.span.end + base), e.new_text)
                    for e in fix.edits
                ),
                fix.safe,
            )
        out.append(
            Finding(
                rule=f.rule,
                name=f.name,
                severity=f.severity,
                path=path,
                span=Span(f.span.start + base, f.span.end + base),
                message=f.message,
                fix=fix,
                statement=statement,
            )
        )
    return out
