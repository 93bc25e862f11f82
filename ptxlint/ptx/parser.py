"""Parse an inline-asm template string into the PTX model of :mod:`ptxlint.model`.

``parse_template(text, extended)`` takes the template after C escape decoding (real newlines
and tabs; a macro whose text is unknown appears as one ``model.HOLE`` character) and returns a
:class:`~ptxlint.model.PtxTemplate`. Every offset in the result indexes ``text``.

Grammar handled, in the order the scan applies it:

* **Comments** ``// ... end of line`` and ``/* ... */`` are recorded and then blanked out, so
  nothing inside them counts: no braces, statements or percent tokens. An unterminated ``/*``
  runs to the end of the text and is a problem. So is a ``#`` line, which PTX has not (a
  problem of kind ``"hash-comment"``): read as the comment it was meant to be
  (:mod:`ptxlint.ptx.comments`).
* **Percent tokens** (``PtxTemplate.percents``, text order, everywhere outside comments).
  Extended asm (at least one colon) is processed by the C++ front end: ``%N`` and ``%xN``
  (one GCC modifier letter, then digits) are ``"ref"``; ``%%`` is ``"escape"``; ``%=`` is
  ``"unique"``; ``%[name]`` is ``"named"``; ``%`` followed by any other identifier (``%clock``,
  ``%tid``, ``%rd1``) is ``"bare"``; a ``%`` that is the last character is ``"trailing"``; a
  ``%`` followed by anything else is ``"bare"`` with an empty name. Basic asm is passed to
  ptxas untouched, so only two things are recorded there, both for rules that flag them:
  ``%%`` (``"escape"``, a ptxas syntax error) and ``%N`` (``"bare"`` with the digits as name:
  not an operand reference). ``%clock`` in basic asm is plain PTX and is not recorded.
* **Statements** are separated by ``;``, by scope braces ``{`` ``}`` and by labels; a newline
  does not end a statement. A ``{`` is a *vector* brace rather than a scope when it sits in
  operand position: inside ``[ ]`` or another vector, right after the mnemonic, or after
  ``,`` or ``=``. Scope braces go to ``PtxTemplate.braces`` with their depth.
* **Labels** ``name:`` at the start of a statement (``::`` never ends a label); in extended
  asm the name may contain ``%=`` (``L%=:``) and keeps its raw spelling.
* **Directives** are statements whose first word starts with ``.``; ``.reg``/``.pred``/
  ``.shared``/``.local``/``.param``/``.global``/``.const`` list the names they declare
  (``r<4>`` kept whole, array sizes dropped).
* **Instructions**: an optional guard ``@p``/``@!p``/``@%0``, a dotted mnemonic whose first
  word is the opcode and whose ``.``-separated rest are the modifiers (``::`` joins, so
  ``shared::cluster`` is one modifier; an empty part such as the one in ``ld..f32`` is kept as
  ``""``), then operands separated by top-level commas. Operand kinds: ``ref`` (``%0``,
  ``%n1``, ``%[name]`` with ``ref=None``), ``register``, ``special`` (PTX special registers,
  decided on the PTX spelling: ``%%clock`` in extended asm, ``%clock`` in basic asm),
  ``immediate`` (decimal, negative, hex, ``0f``/``0d`` bit patterns, decimal floats, optional
  ``U``), ``address`` (``[...]``: parts are the inner operands, with ``a+16``-style sums
  flattened into their terms), ``vector`` (``{...}``), ``pair`` (``p|q``), ``label`` (the
  target of ``bra``), ``opaque`` (holds a HOLE) and ``other`` (``_``, parenthesised lists,
  unparseable text). ``!p`` sets ``negated``. Operand ``text`` is always the text as written.

Limitations: PTX string literals (``.pragma "..."``) are not special (a ``;`` or brace inside
one splits the statement); a one-``%`` word in extended asm is read as GCC does (``%r1`` is
modifier ``r`` on operand 1); a label is seen only at a statement's start, so one after an
instruction missing its ``;`` is read as an operand (with a "missing ','" problem).

The parser never raises: malformed input yields ``PtxProblem`` entries instead. It is one
left-to-right scan with precompiled, backtracking-safe regular expressions, after one pass that
records the percent tokens; O(template). What each piece bought (templates recorded from lint
runs, parsed from cold tables): an operand list read once per distinct text and moved to where
a later template spells it (``_REGIONS``), CUDA 13's generated PTX headers with CUTLASS's GMMA
headers 0.76 -> 0.46 s of CPU; a run of ``%N`` tokens, a leaf operand and a whole statement
made once per value and place (``percent_tokens``, ``_WORDS``, ``_LEAVES``, ``_STATEMENTS``),
CUTLASS's include/ 0.35 -> 0.24 s, the CUDA 13 headers' 0.089 -> 0.077 s (memoising the percent
tokens line by line did not pay: making them is most of their cost); a run of plain ``%N`` read
as one piece, as percent tokens and as a vector operand (``_ref_vector``), CUTLASS's 200-215 ->
137-144 ms, CUDA's 66-68 -> 60-61 ms. The repeats that nothing after them could backtrack into
are possessive (``*+``, ``++``), which the regex engine runs without backtracking state
(tests/test_possessive_patterns.py checks that they read what the backtracking spellings read):
the CUDA headers', CUTLASS's and flashinfer's templates 2,606 -> 2,536 million instructions
(cachegrind). A template that is one instruction and its ';' (``_one_instruction``: 2,303 of
the CUDA headers' 3,263, 705 of CUTLASS's 3,015) is read by two matches, without the scan:
CUDA's 613 -> 515 million instructions, CUTLASS's 1,339 -> 1,301 M (check -j 1 --no-cache of
the CUDA headers 17,267 -> 17,178 M, of CUTLASS's include/ 27,350 -> 27,327 M).

The percent tokens are read by :mod:`ptxlint.ptx.percent_tokens`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from operator import attrgetter

from ptxlint.lazy_regex import POSSESSIVE as _P
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import (
    HOLE,
    PercentToken,
    PtxBrace,
    PtxDirective,
    PtxInstruction,
    PtxLabel,
    PtxOperand,
    PtxPredicate,
    PtxProblem,
    PtxTemplate,
)
from ptxlint.model_slots import slot_setters
from ptxlint.ptx.comments import mask_comments
from ptxlint.ptx.percent_tokens import read_dollars, read_percents
from ptxlint.ptx.separators import first_missing, last_split, splits

__all__ = ["parse_template"]


# Operands (a wgmma has 130), instructions and templates filled slot by slot, every field
# given, equal to the constructor's: a frozen dataclass's __init__ sets each field through
# object.__setattr__ (a third of the time of parsing CUTLASS's GMMA header).
_new = object.__new__
_O_KIND, _O_TEXT, _O_START, _O_END, _O_PARTS, _O_NEGATED, _O_REF = slot_setters(
    PtxOperand, ("kind", "text", "start", "end", "parts", "negated", "ref")
)
# An instruction's eleven fields through the dataclass's __init__ took 2.65 us, these 1.04 us
# (4,303 instructions in the CUDA headers' templates, 5,663 in CUTLASS's include/).
(_I_OPCODE, _I_MODIFIERS, _I_OPERANDS, _I_PREDICATE, _I_START, _I_END, _I_OPCODE_START,
 _I_OPCODE_END, _I_DEPTH, _I_TERMINATED, _I_OPAQUE) = slot_setters(
    PtxInstruction, ("opcode", "modifiers", "operands", "predicate", "start", "end",
                     "opcode_start", "opcode_end", "depth", "terminated", "opaque"))

(_T_INSTRUCTIONS, _T_DIRECTIVES, _T_LABELS, _T_BRACES, _T_COMMENTS, _T_PERCENTS,
 _T_PROBLEMS) = slot_setters(PtxTemplate, ("instructions", "directives", "labels", "braces",
                                          "comments", "percents", "problems"))

# Scope braces by (character, offset, depth): one object serves every template with that brace
# at that place; with the template filled slot by slot, parsing the CUDA 13 headers' templates
# 62.6-67.1 -> 58.5-64.8 ms of CPU (cold tables, best of 11). Bounded: cleared when full.
_BRACES: dict[tuple[str, int, int], PtxBrace] = {}
_BRACES_MAX = 4096


def _brace(char: str, offset: int, depth: int) -> PtxBrace:
    key = (char, offset, depth)
    brace = _BRACES.get(key)
    if brace is None:
        if len(_BRACES) >= _BRACES_MAX:
            _BRACES.clear()
        brace = _BRACES[key] = PtxBrace(char, offset, depth)
    return brace


def _make_operand(
    kind: str, text: str, start: int, end: int, parts: tuple[PtxOperand, ...] = (),
    negated: bool = False, ref: int | None = None,
) -> PtxOperand:
    operand = _new(PtxOperand)
    _O_KIND(operand, kind)
    _O_TEXT(operand, text)
    _O_START(operand, start)
    _O_END(operand, end)
    _O_PARTS(operand, parts)
    _O_NEGATED(operand, negated)
    _O_REF(operand, ref)
    return operand


# re.ASCII throughout: PTX is ASCII, and it keeps \s and \w from matching the HOLE character or
# other Unicode that a C++ source may carry.
_A = re.ASCII

_WS_CHARS = " \t\n\r\f\v"  # exactly re.ASCII's \s, so rstrip and the regexes agree
_WS = re.compile(r"\s*", _A)


def _skip_ws(text: str, pos: int, end: int) -> int:
    m = _WS.match(text, pos, end)
    return m.end() if m is not None else pos


# The characters that change the scanner's state; everything else is skipped by one search.
# Percent tokens are read before the scan (``read_percents``); the scanner only skips the two
# that hold a bracket or a second "%" (``%[name]``, ``%%``), exactly as
# ``percent_tokens.PCT_EXTENDED`` reads them.
_SCAN_EXTENDED = on_first_use(r"[{};\[\]]|%(?:%|\[[\w$]*\]?)")
_STRUCTURE = "{};[]"


def _structure(masked: str) -> list[int]:
    """The offsets of the characters that change the scanner's state (``_STRUCTURE``), in text
    order, each found by ``str.find`` (a memchr), not by one pattern testing every character:
    CUTLASS's templates 1,413 -> 1,367 M instructions (cachegrind), CUDA's 610 M either way."""
    found: list[int] = []
    find = masked.find
    for c in _STRUCTURE:
        i = find(c)
        while i != -1:
            found.append(i)
            i = find(c, i + 1)
    found.sort()
    return found


def _percent_scan(masked: str) -> list[int]:
    """``_structure`` for extended asm that spells ``%%`` or ``%[``: the structure characters
    outside those tokens, which ``_SCAN_EXTENDED``'s matches skip whole (recorded already)."""
    return [m.start() for m in _SCAN_EXTENDED().finditer(masked) if masked[m.start()] != "%"]
# Identifier-ish names; `%=` may sit inside one in extended asm (`L%=`, `r_%=`).
_NAME = rf"(?:[A-Za-z]|%=|[_$%](?=[\w$]|%=))(?:[\w$]|%=)*{_P}"
_LABEL = on_first_use(rf"({_NAME})\s*:(?!:)", _A)
_IDENT = on_first_use(_NAME, _A)

# Mnemonic characters include `%` (a "C"-constraint splice such as `ld.%2`) and the hole, so a
# mnemonic with either still parses into one word and the instruction can be marked opaque.
_MNCH = rf"[\w$%{HOLE}]"
# a word goes on after `.`, `::`, and a `:` before a digit (tcgen05's `.sp::2:4`, PTX ISA 9.4)
_SEP = r"(?:\.|::|:(?=[0-9]))"
_MNEMONIC_RE = rf"(?:[A-Za-z_${HOLE}]|%(?=[\w$%]))(?:{_MNCH})*{_P}(?:{_SEP}{_MNCH}*{_P})*{_P}"
_MNEMONIC = on_first_use(_MNEMONIC_RE, _A)
# ptxas also reads `prmt .b32 %0, ...` (CUTLASS writes it): modifiers after a space.
_MNEMONIC_TAIL = on_first_use(rf"\.[A-Za-z_]{{1}}(?:{_MNCH})*{_P}(?:{_SEP}{_MNCH}*{_P})*{_P}", _A)
# A template that is one instruction and its ';', no comment, guard, label (the mnemonic's first
# word ends at a '.') or brace but a vector's: its mnemonic, then its operands and ';' (two
# patterns, where Python 3.10's backtracking made one quadratic in the blanks after a mnemonic).
_ONE_MNEMONIC = re.compile(rf"\s*(?=[A-Za-z][\w$]*{_P}\.)({_MNEMONIC_RE})", _A)
_PLAIN = rf"[^;{{}}]*{_P}"
_ONE_OPERANDS = re.compile(rf"({_PLAIN}(?:\{{{_PLAIN}\}}{_PLAIN})*{_P});\s*{_P}", _A)
# A pending statement that is just `[guard] mnemonic`: a `{` after it opens a vector operand.
_MNEMONIC_ONLY = on_first_use(rf"(?:@\s*!?\s*[^\s{{}};]+\s+)?{_MNEMONIC_RE}\s*", _A)

_WORD_EXTENDED = rf"(?:%\[[\w$]*\]?|[^\s,\[\]{{}}()|!+\-;])+{_P}"
_WORD_BASIC = r"[^\s,\[\]{}()|!+\-;]+"
_PREDICATE_EXTENDED = on_first_use(rf"@\s*(!?)\s*({_WORD_EXTENDED})?", _A)
_PREDICATE_BASIC = on_first_use(rf"@\s*(!?)\s*({_WORD_BASIC})?", _A)

# A number must not run into a word character, so `16x` or `0f12zz` stay one "other" word.
_NUMBER = (
    r"(?:0[xX][0-9A-Fa-f]+|0[fFdD][0-9A-Fa-f]+|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?"
    r"|[0-9]+(?:[eE][+-]?[0-9]+)?)[uU]?"
    rf"(?![\w$.%{HOLE}])"
)
# One match per token, the blanks before it included (a token is the named group that
# matched); blanks at the end match nothing.
# Extended asm adds one token for a whole vector of plain `%N` (a wgmma's accumulator of up to
# 128): read as a token by itself, its elements' offsets found by one pass over its text, it
# is what the braces and words read one by one would give (``_ref_vector``).
_OPERAND_TOKEN_EXTENDED = re.compile(
    rf"\s*(?:(?P<refs>\{{\s*{_P}%[0-9]+{_P}(?:\s*{_P},\s*{_P}%[0-9]+{_P})*{_P}\s*{_P}\}})"
    rf"|(?P<num>{_NUMBER})|(?P<word>{_WORD_EXTENDED})|(?P<punct>\S))", _A
)
_OPERAND_TOKEN_BASIC = on_first_use(
    rf"\s*(?:(?P<num>{_NUMBER})|(?P<word>{_WORD_BASIC})|(?P<punct>\S))", _A
)

_REF = on_first_use(r"%([A-Za-z]?)([0-9]+)", _A)
_NAMED_REF = on_first_use(r"%\[[\w$]*\]?", _A)
_SPECIAL = on_first_use(
    r"%(?:clock(?:64|_hi)?|globaltimer(?:_lo|_hi)?|n?tid|n?ctaid|laneid|n?warpid|n?smid"
    r"|gridid|lanemask_(?:eq|le|lt|ge|gt)|pm[0-7](?:_64)?|envreg(?:[12]?[0-9]|3[01])"
    r"|(?:dynamic|total|aggr)_smem_size|reserved_smem_offset_(?:begin|end|cap|[01])"
    r"|n?clusterid|cluster_n?ctaid|cluster_n?ctarank|is_explicit_cluster|current_graph_exec)"
    r"(?:\.[xyzwrgba])?",  # a vector's element by either name set (ptxas 13.0: %tid.w, %tid.a)
    _A,
)

_DIRECTIVE_NAME = on_first_use(r"\.[\w$]*", _A)
# The directive's own dotted words and their numeric arguments (`.shared .align 16 .b8`).
_DECL_PREFIX = on_first_use(r"(?:\s*\.[\w$]*(?:\s+[0-9]+)?)*\s*", _A)
_DECLARATOR = on_first_use(rf"\s*((?:%%)?{_NAME})(?:\s*<\s*([0-9]+)\s*>)?", _A)
_DECLARING = frozenset(
    {".reg", ".pred", ".shared", ".local", ".param", ".global", ".const", ".sreg", ".tex"}
)

_CLOSERS = {"[": "]", "{": "}", "(": ")"}
_JOINING = frozenset("+-|")  # punctuation that joins an operand to the next term
# The binary operators of PTX constant expressions that are no operand syntax of their own
# (`+`, `-` make sums, `|` pairs). They read as words: `(0xf0 & 0xcc) ^ 0xaa` is one operand
# to ptxas 13.0, not three.
_CONSTANT_OPERATOR = on_first_use(r"(?:<<|>>|&&|[*/%&^])", _A)
_AGGREGATE_KIND = {"[": "address", "{": "vector", "(": "other"}
_MAX_NESTING = 32  # deeper operand nesting is not PTX; stop recursing and keep it opaque-ish

_Token = tuple[str, int, int]  # (kind: "num" | "word" | "punct", start, end)

# Operand lists by their text: (the offset they were read at, the operands). What
# ``_read_operands`` makes of a region is a function of its text (its patterns look neither
# before nor after it), ``branch`` and the syntax, every offset moved by the region's start; so
# a list seen before is moved, not read again (CUTLASS's GMMA headers spell one 130-operand list
# after many mnemonics), and kept, immutable, at each offset it was met at (CUTLASS's include/:
# 1,130 distinct lists spelled 5,663 times at 1,766 places; moving them 0.029 -> 0.015 s of CPU,
# the CUDA headers' 0.013 -> 0.005 s). A region that made a problem is not kept. Bounded:
# cleared when it holds _REGIONS_MAX lists (counted in _PLACES).
_REGIONS: dict[tuple[str, bool, bool, bool], dict[int, tuple[PtxOperand, ...]]] = {}
_REGIONS_MAX = 4096
_PLACES = [0]  # lists held, at all their offsets


def _room() -> bool:
    """Count one more list kept in ``_REGIONS``, clearing it first when full: False when it
    was cleared (a list about to be kept at one more offset then has no entry to go in)."""
    cleared = _PLACES[0] >= _REGIONS_MAX
    if cleared:
        _REGIONS.clear()
        _PLACES[0] = 0
    _PLACES[0] += 1
    return not cleared


def _moved(operands: tuple[PtxOperand, ...], delta: int) -> tuple[PtxOperand, ...]:
    """``operands`` with every offset (their parts' too) moved by ``delta``; a leaf is the
    object ``_LEAVES`` holds for its value where there is one."""
    out = []
    leaves = _LEAVES
    for o in operands:
        parts = o.parts
        if parts:
            out.append(_make_operand(o.kind, o.text, o.start + delta, o.end + delta,
                                     _moved(parts, delta), o.negated, o.ref))
            continue
        start = o.start + delta
        key = (start, o.text, o.kind, o.negated, o.ref)
        leaf = leaves.get(key)
        if leaf is None:
            leaf = leaves[key] = _make_operand(o.kind, o.text, start, o.end + delta, (),
                                               o.negated, o.ref)
        out.append(leaf)
    if len(leaves) >= _LEAVES_MAX:
        leaves.clear()
    return tuple(out)


# Leaf operands are immutable values: one object serves every template with the same leaf at
# the same offset. ``_WORDS``: what ``_word`` made of a word at an offset, by reading;
# ``_LEAVES``: what ``_moved`` made, by every field but ``end``. CUTLASS's include/ reads 150,776
# leaves, 6,404 distinct: reading its operands 0.205 -> 0.179 s of CPU. Bounded: cleared when full.
_WORDS: dict[tuple[int, str, bool, bool], PtxOperand] = {}
# Statements (their labels, and the directive or instruction they are), by text (';' included),
# offset, depth, ';' and reading, which alone decide them: one object serves every template with
# that statement at that place, and what is worked out per instruction downstream (destinations,
# verdicts) is worked out once for all (CUTLASS's 5,663 instructions are 3,529 so, the CUDA
# headers' 4,303 are 3,609). A statement that made a problem is not kept. Bounded.
_STATEMENTS: dict[tuple[str, int, int, bool, bool, bool],
                  tuple[tuple[PtxLabel, ...], PtxDirective | None, PtxInstruction | None]] = {}
_STATEMENTS_MAX = 8192
_WORDS_MAX = 16384
_LEAVES: dict[tuple[int, str, str, bool, int | None], PtxOperand] = {}
_LEAVES_MAX = 16384


def parse_template(text: str, extended: bool, syntax: str = "gnu") -> PtxTemplate:
    """Parse one inline-asm template (the grammar: the module docstring). Never raises.

    ``extended``: GCC extended asm (a colon), which decides how ``%`` is read; in basic asm
    ``%0`` is a ``"bare"`` percent token named ``"0"`` (no operand reference) and ``%%`` an
    ``"escape"``. ``syntax="llvm"`` reads LLVM inline asm (Triton, CuTe DSL, llvmlite): ``%`` is
    recorded as in basic asm (both ptxas errors), ``$N`` and ``${N}`` are ``"ref"`` tokens,
    ``${:uid}`` ``"unique"``, ``$$`` ``"dollar"``, comments included (LLVM replaces them there).
    """
    if syntax == "llvm":
        return _Parser(text, False, llvm=True).run()
    return _Parser(text, extended).run()


# ``{%N, ...}`` vectors by (offset, text, branch target), which alone decide them: one object
# serves every template with that vector at that place, whatever its operand list holds after
# it (GMMA's lists differ after their accumulator more often than in it). Parsing the CUDA 13
# headers', CUTLASS's and flashinfer's templates (cold tables): 2,536 -> 2,449 million
# instructions (cachegrind). Bounded: cleared when full.
_VECTORS: dict[tuple[int, str, bool], PtxOperand] = {}
_VECTORS_MAX = 4096
# A percent token's offset: what ``_ref_vector`` finds its elements by.
_START = attrgetter("start")
# LLVM's `$N` and `${N:modifier}` operand references.
_LLVM_REF = on_first_use(r"\$(?:([0-9]+)|\{([0-9]+)(?::\w*)?\})", _A)


class _Parser:
    """One template's parse state. Statements are parsed as the scan reaches their end."""

    def __init__(self, text: str, extended: bool, llvm: bool = False) -> None:
        self.text = text
        self.llvm = llvm
        self.masked = text  # text with comments blanked to spaces: same length and offsets
        self.n = len(text)
        self.extended = extended
        self.instructions: list[PtxInstruction] = []
        self.directives: list[PtxDirective] = []
        self.labels: list[PtxLabel] = []
        self.braces: list[PtxBrace] = []
        self.comments: list[tuple[int, int]] = []
        self.percents: list[PercentToken] = []
        self.problems: list[PtxProblem] = []
        self.depth = 0
        self.open_braces: list[int] = []
        # Operand parsing state, reset per instruction.
        self.tokens: list[_Token] = []
        self.puncts: list[str] = []
        self.k = 0
        self.region_end = 0
        self.branch = False
        self.open_closers: list[str] = []
        self.operand_token = _OPERAND_TOKEN_EXTENDED if extended else _OPERAND_TOKEN_BASIC()

    def run(self) -> PtxTemplate:
        self._mask_comments()
        if self.llvm and "$" in self.text:
            self.masked = read_dollars(self.text, self.masked, self.percents)
        if "%" in self.masked:
            read_percents(self.masked, self.extended, self.percents, self._problem)
        if self.llvm or self.masked is not self.text or not self._one_instruction():
            self._scan()
        for offset in self.open_braces:
            self._problem("unclosed '{'", offset, offset + 1)
        self.problems.sort(key=lambda p: (p.start, p.end))
        template = _new(PtxTemplate)
        _T_INSTRUCTIONS(template, tuple(self.instructions))
        _T_DIRECTIVES(template, tuple(self.directives))
        _T_LABELS(template, tuple(self.labels))
        _T_BRACES(template, tuple(self.braces))
        _T_COMMENTS(template, tuple(self.comments))
        _T_PERCENTS(template, tuple(sorted(self.percents, key=lambda t: t.start))
                    if self.llvm else tuple(self.percents))
        _T_PROBLEMS(template, tuple(self.problems))
        return template

    def _problem(self, message: str, start: int, end: int, kind: str = "syntax") -> None:
        self.problems.append(PtxProblem(message, start, max(start, min(end, self.n)), kind))

    # ------------------------------------------------------------------ comments and scanning

    def _mask_comments(self) -> None:
        if "/" not in self.text and "#" not in self.text:
            return  # most templates: no call, no lists (3,263 parses of the CUDA 13 headers)
        masked, self.comments, problems = mask_comments(self.text)
        if masked is not None:
            self.masked = masked
        for message, start, end, kind in problems:
            self._problem(message, start, end, kind)

    def _scan(self) -> None:
        masked = self.masked
        # A `%` matters to the scan only before a second `%` or a `[`: a template with neither
        # (all but 101 of 7,068 in three trees) has its structure characters found alone
        extended = self.extended and ("%%" in masked or "%[" in masked)
        segment = 0  # start of the pending statement
        vector = 0  # open vector braces in the pending statement
        bracket = 0  # open [ in the pending statement
        pos = 0
        for i in (_percent_scan(masked) if extended else _structure(masked)):
            c = masked[i]
            pos = i + 1
            if c == ";":
                self._statement(segment, i, terminated=True)
                segment, vector, bracket = pos, 0, 0
            elif c == "[":
                bracket += 1
            elif c == "]":
                if bracket:
                    bracket -= 1
            elif c == "{":
                if vector or bracket or self._opens_vector(segment, i):
                    vector += 1
                else:
                    self._statement(segment, i, terminated=False)
                    self.depth += 1
                    self.braces.append(_brace("{", i, self.depth))
                    self.open_braces.append(i)
                    segment, vector, bracket = pos, 0, 0
            elif vector:  # "}" closing a vector operand
                vector -= 1
            else:  # "}" closing a scope
                self._statement(segment, i, terminated=False)
                if self.depth:
                    self.braces.append(_brace("}", i, self.depth))
                    self.depth -= 1
                    self.open_braces.pop()
                else:
                    self.braces.append(_brace("}", i, 0))
                    self._problem("unmatched '}'", i, i + 1)
                segment, vector, bracket = pos, 0, 0
        self._statement(segment, self.n, terminated=False)

    def _one_instruction(self) -> bool:
        """Read a template that is one instruction and its ';' as the scan would, without it;
        False, having read nothing, for any other."""
        text = self.text
        m = _ONE_MNEMONIC.match(text)
        if m is None:
            return False
        rest = _ONE_OPERANDS.fullmatch(text, m.end())
        if rest is None:
            return False
        pos, mnemonic_end = m.span(1)
        semi = rest.end(1)
        after = _skip_ws(text, mnemonic_end, semi)
        if after > mnemonic_end and text[after] == ".":
            return False  # `prmt .b32`: the mnemonic goes on (_MNEMONIC_TAIL)
        brace = text.find("{", after, semi)
        while brace != -1:  # a vector where the scan reads one: first, or after ',' or '='
            j = brace - 1
            while j >= after and text[j] in _WS_CHARS:
                j -= 1
            if j >= after and text[j] not in ",=":
                return False
            brace = text.find("{", brace + 1, semi)
        key = (text[:semi + 1], 0, 0, True, self.extended, False)
        known = _STATEMENTS.get(key)  # what _statement kept: this one instruction
        if known is not None and known[2] is not None:
            self.instructions.append(known[2])
            return True
        if splits(text, pos, semi):
            return False  # two statements: the scan reads them
        problems = len(self.problems)
        instruction = self._make_instruction(m.group(1), None, pos, semi, semi + 1, pos,
                                             mnemonic_end, True)
        if len(self.problems) == problems:  # as _statement keeps it
            if len(_STATEMENTS) >= _STATEMENTS_MAX:
                _STATEMENTS.clear()
            _STATEMENTS[key] = ((), None, instruction)
        return True

    def _skip_labels(self, start: int, end: int, record: bool) -> int:
        masked = self.masked
        pos = _skip_ws(masked, start, end)
        while pos < end:
            m = _LABEL().match(masked, pos, end)
            if m is None:
                break
            if record:
                name = self.text[m.start(1) : m.end(1)]
                self.labels.append(PtxLabel(name, m.start(1), m.end(), self.depth))
            pos = _skip_ws(masked, m.end(), end)
        return pos

    def _opens_vector(self, segment: int, i: int) -> bool:
        """Whether a ``{`` at ``i`` (outside brackets and vectors) is in operand position."""
        masked = self.masked
        pos = self._skip_labels(segment, i, record=False)
        if pos >= i:
            return False
        j = i - 1
        while j > pos and masked[j] in _WS_CHARS:
            j -= 1
        if masked[j] in ",=":
            return True
        if _MNEMONIC_ONLY().fullmatch(masked, pos, i) is not None:
            return True
        # `setp.ne.u32 q, %1, 0` then `@q st.global.v2.u32 [%0], {%1, %2};` on the next line
        # (or glued to it): a ';' missing where the statement splits, and the brace the second
        # instruction's operand, as it is with the ';' (not a scope that would leave that
        # instruction without operands: one defect, reported once, by PTX205)
        m = last_split(masked, pos, i)
        return m is not None and _MNEMONIC_ONLY().fullmatch(
            masked, m.start("guard") if m.group("guard") else m.start("op"), i) is not None

    # ------------------------------------------------------------------ statements

    def _statement(self, start: int, end: int, terminated: bool) -> None:
        """Parse ``[start, end)``; ``terminated`` means a ``;`` sits at ``end``. What a statement
        reads as is kept by its text, offset, depth and reading (``_STATEMENTS``)."""
        # blank: most templates end with their last ';', where the scan's last segment is empty
        if start >= end or _skip_ws(self.masked, start, end) >= end:
            return
        reach = end + 1 if terminated else end
        text = self.text[start:reach]
        key: tuple[str, int, int, bool, bool, bool] | None = None
        if self.masked is self.text or self.masked[start:reach] == text:
            key = (text, start, self.depth, terminated, self.extended, self.llvm)
            known = _STATEMENTS.get(key)
            if known is not None:
                labels, directive, instruction = known
                if labels:
                    self.labels.extend(labels)
                if directive is not None:
                    self.directives.append(directive)
                if instruction is not None:
                    self.instructions.append(instruction)
                return
        counts = (len(self.labels), len(self.directives), len(self.instructions),
                  len(self.problems))
        self._read_statement(start, end, terminated)
        if key is None or len(self.problems) != counts[3]:
            return  # as _REGIONS: a statement that made a problem is read every time
        directives = self.directives[counts[1]:]
        instructions = self.instructions[counts[2]:]
        if len(directives) + len(instructions) == 1:
            if len(_STATEMENTS) >= _STATEMENTS_MAX:
                _STATEMENTS.clear()
            _STATEMENTS[key] = (tuple(self.labels[counts[0]:]),
                                directives[0] if directives else None,
                                instructions[0] if instructions else None)

    def _read_statement(self, start: int, end: int, terminated: bool) -> None:
        pos = self._skip_labels(start, end, record=True)
        if pos >= end:
            return
        # `cvta.to.shared.u64 p1, %1\n cvt.u32.u64 %0, p1;`: two statements missing their ';',
        # read as two (``ptxlint.ptx.separators``)
        m = first_missing(self.masked, pos, end)
        if m is not None:
            first_end = m.end("prev") if m.group("prev") else m.start()
            if m.group("directive"):
                after = m.start("directive")
                word = m.group("directive")
            else:
                after = m.start("guard") if m.group("guard") else m.start("op")
                word_end = _MNEMONIC().match(self.masked, m.start("op"), end)
                word = self.text[m.start("op") : word_end.end() if word_end else m.end("op")]
            self._statement(pos, first_end, terminated=False)
            where = ("on the next line" if m.group("prev") else
                     "on the same line" if self.masked[m.start()] in " \t" else "right after it")
            self._problem(f"missing ';' before '{word}' {where}", first_end - 1, after,
                          "separator")
            self._statement(after, end, terminated)
            return
        # An unterminated statement ends at its last non-blank character, not at the separator.
        stop = end + 1 if terminated else pos + len(self.masked[pos:end].rstrip(_WS_CHARS))
        if self.masked[pos] == ".":
            self._directive(pos, end, stop)
        else:
            self._instruction(pos, end, stop, terminated)

    def _directive(self, pos: int, end: int, stop: int) -> None:
        masked = self.masked
        m = _DIRECTIVE_NAME().match(masked, pos, end)
        assert m is not None  # masked[pos] == "."
        name = m.group()
        declared: tuple[str, ...] = ()
        if name in _DECLARING:
            prefix = _DECL_PREFIX().match(masked, pos, end)
            assert prefix is not None  # the pattern matches the empty string
            declared = self._declarators(prefix.end(), end)
        self.directives.append(
            PtxDirective(name, self.text[pos:stop], pos, stop, self.depth, declared)
        )

    def _declarators(self, pos: int, end: int) -> tuple[str, ...]:
        masked = self.masked
        names: list[str] = []
        nesting = 0
        piece = pos
        for i in range(pos, end + 1):
            c = masked[i] if i < end else ","
            if c in "[{(<":
                nesting += 1
            elif c in "]})>":
                nesting = max(0, nesting - 1)
            elif c == "," and (nesting == 0 or i == end):
                m = _DECLARATOR().match(masked, piece, i)
                if m is not None:
                    size = m.group(2)
                    name = self.text[m.start(1) : m.end(1)]
                    names.append(name + (f"<{size}>" if size is not None else ""))
                piece = i + 1
        return tuple(names)

    def _instruction(self, pos: int, end: int, stop: int, terminated: bool) -> None:
        masked = self.masked
        start = pos
        predicate: PtxPredicate | None = None
        if masked[pos] == "@":
            pattern = (_PREDICATE_EXTENDED if self.extended else _PREDICATE_BASIC)()
            g = pattern.match(masked, pos, end)
            assert g is not None  # masked[pos] == "@"
            if g.group(2) is None:
                self._problem("predicate guard '@' without a register", pos, g.end())
                register = _make_operand("other", "", g.end(), g.end())
            else:
                # a guard is a predicate register: not read as the branch target that the last
                # operand list read (a `bra`'s) would make it
                self.branch = False
                register = self._word(g.start(2), g.end(2))
            predicate = PtxPredicate(register, bool(g.group(1)), pos, g.end())
            pos = _skip_ws(masked, g.end(), end)
        mn = _MNEMONIC().match(masked, pos, end) if pos < end else None
        if mn is None:
            self._problem("expected an instruction or directive", start, max(stop, start + 1))
            return
        # read from the text: a mnemonic holds no comment, and LLVM's `${N}` is blanked in masked
        text = self.text
        mnemonic = text[mn.start():mn.end()]
        mnemonic_end = mn.end()
        after = _skip_ws(masked, mnemonic_end, end)
        if after > mnemonic_end and (tail := _MNEMONIC_TAIL().match(masked, after, end)):
            mnemonic += text[tail.start():tail.end()]
            mnemonic_end = tail.end()
        self._make_instruction(mnemonic, predicate, start, end, stop, mn.start(), mnemonic_end,
                               terminated)

    def _make_instruction(self, mnemonic: str, predicate: PtxPredicate | None, start: int,
                          end: int, stop: int, opcode_start: int, mnemonic_end: int,
                          terminated: bool) -> PtxInstruction:
        """The instruction ``mnemonic`` at ``opcode_start``, its operands read up to ``end``."""
        opcode, *modifiers = mnemonic.split(".")
        # A hole anywhere, or an operand splice inside the mnemonic (`%N` in extended asm, `$N`,
        # `${N}` or `${:uid}` in LLVM's, substituted as text there too), leaves the real
        # spelling unknown: rules must stay silent about it.
        opaque = (self.masked.find(HOLE, start, end) != -1
                  or (self.extended and "%" in mnemonic)
                  or (self.llvm and "$" in mnemonic and any(
                      t.kind in ("ref", "unique") and opcode_start <= t.start < mnemonic_end
                      for t in self.percents)))
        operands = self._operands(mnemonic_end, end, branch=opcode == "bra")
        instruction = _new(PtxInstruction)
        _I_OPCODE(instruction, opcode)
        _I_MODIFIERS(instruction, tuple(modifiers))
        _I_OPERANDS(instruction, operands)
        _I_PREDICATE(instruction, predicate)
        _I_START(instruction, start)
        _I_END(instruction, stop)
        _I_OPCODE_START(instruction, opcode_start)
        _I_OPCODE_END(instruction, mnemonic_end)
        _I_DEPTH(instruction, self.depth)
        _I_TERMINATED(instruction, terminated)
        _I_OPAQUE(instruction, opaque)
        self.instructions.append(instruction)
        return instruction

    # ------------------------------------------------------------------ operands

    def _operands(self, start: int, end: int, branch: bool) -> tuple[PtxOperand, ...]:
        """The operands of ``[start, end)``, read once per distinct operand text: see
        ``_REGIONS``."""
        region = self.masked[start:end]
        if self.masked is not self.text and self.text[start:end] != region:
            return self._read_operands(start, end, branch)  # a comment inside: not memoised
        key = (region, branch, self.extended, self.llvm)
        placed = _REGIONS.get(key)
        if placed is not None:
            operands = placed.get(start)
            if operands is None:
                base, first = next(iter(placed.items()))
                operands = _moved(first, start - base)
                if _room():
                    placed[start] = operands
            return operands
        problems = len(self.problems)
        operands = self._read_operands(start, end, branch)
        if len(self.problems) == problems:  # a region with problems is read every time
            _room()
            _REGIONS[key] = {start: operands}
        return operands

    def _read_operands(self, start: int, end: int, branch: bool) -> tuple[PtxOperand, ...]:
        # no token ends in the region's last blanks, where every start tried each blank to the end
        stop = start + len(self.masked[start:end].rstrip(_WS_CHARS))
        self.tokens = [
            (m.lastgroup, m.start(m.lastindex), m.end())  # type: ignore[arg-type,misc]
            for m in self.operand_token.finditer(self.masked, start, stop)
        ]
        if not self.tokens:
            return ()
        masked = self.masked
        # The punctuation character of each token ("" for words and numbers), plus a sentinel
        # for the end, so the recursive descent can peek with one list index.
        self.puncts = [masked[s] if kind == "punct" else "" for kind, s, _ in self.tokens]
        self.puncts.append("")
        self.k = 0
        self.region_end = end
        self.branch = branch
        self.open_closers = []
        items = self._list("", 0, flatten=False)
        self.tokens = []
        return tuple(items)

    def _here(self) -> int:
        return self.tokens[self.k][1] if self.k < len(self.tokens) else self.region_end

    def _list(self, closer: str, depth: int, flatten: bool) -> list[PtxOperand]:
        """Comma-separated operands up to (not including) ``closer`` or the region's end."""
        items: list[PtxOperand] = []
        want = True  # an operand is expected next
        comma = -1
        tokens = self.tokens
        while self.k < len(tokens):
            c = self.puncts[self.k]
            if c and c in ")]}":
                if c == closer or c in self.open_closers:
                    break  # ours, or an outer one: the caller reports what is left open
                self._problem(f"unexpected '{c}'", tokens[self.k][1], tokens[self.k][2])
                self.k += 1
                continue
            if c == ",":
                comma = tokens[self.k][1]
                if want:
                    self._problem("empty operand", comma, comma + 1, "operand-list")
                self.k += 1
                want = True
                continue
            if not want:
                here = self._here()
                self._problem("missing ',' between operands", here, here + 1, "operand-list")
            kind, start, end = tokens[self.k]
            if not c and self.puncts[self.k + 1] not in _JOINING and (
                    self.k + 1 >= len(tokens) or tokens[self.k + 1][0] != "word"):
                # A lone word or number (most operands, and a wgmma's 128 vector elements):
                # what _operand -> _unary -> _atom would build, without the three calls.
                self.k += 1
                if kind == "word":
                    items.append(self._word(start, end))
                elif kind == "num":
                    items.append(_make_operand("immediate", self.text[start:end], start, end))
                else:
                    items.append(self._ref_vector(start, end, depth))
            else:
                items.extend(self._operand(depth, flatten))
            if items and self.k < len(tokens) and tokens[self.k][0] == "word":
                items[-1] = self._constant_expression(items[-1], depth, flatten)
            want = False
        if want and comma >= 0:
            self._problem("missing operand after ','", comma, comma + 1, "operand-list")
        return items

    def _operand(self, depth: int, flatten: bool) -> list[PtxOperand]:
        """One operand: a sum of terms, or ``a|b`` pairs. Sums flatten inside addresses."""
        terms = [self._term(depth, flatten)]
        puncts = self.puncts
        while puncts[self.k] in ("+", "-"):
            if puncts[self.k] == "+":
                self.k += 1
            terms.append(self._term(depth, flatten))  # a "-" stays with its term: `a-4` -> a, -4
        if len(terms) > 1:
            if flatten:
                return terms
            first = self._span(terms[0].start, terms[-1].end, "other", tuple(terms))
            terms = [first]
        if puncts[self.k] != "|":
            return terms
        parts = [terms[0]]
        while puncts[self.k] == "|":
            self.k += 1
            parts.append(self._unary(depth))
        first = parts[0]
        if first.kind == "immediate" or (first.kind == "other" and first.text.startswith("(")):
            # a constant expression's bitwise or, `(0xF0 & 0xCC) | 0xAA` (lop3's immediate:
            # ptxas 13.0 takes it), not a `d|p` pair, whose halves are registers
            return [self._span(first.start, parts[-1].end, "other", tuple(parts))]
        return [self._span(first.start, parts[-1].end, "pair", tuple(parts))]

    def _term(self, depth: int, flatten: bool) -> PtxOperand:
        """One term of a sum, with the constant expression's operators that bind to it: `9*8`
        in `[a + 9*8 + 4]` (ptxas 13.0 takes it), after which the sum goes on."""
        term = self._unary(depth)
        if self.k < len(self.tokens) and self.tokens[self.k][0] == "word":
            term = self._constant_expression(term, depth, flatten)
        return term

    def _constant_expression(self, first: PtxOperand, depth: int, flatten: bool) -> PtxOperand:
        """``first`` and what follows it while the next word is a constant expression's binary
        operator (``a & b ^ c``, ``1 << 4``, ``2 *3``): one operand of kind "other"."""
        terms = [first]
        tokens = self.tokens
        while self.k < len(tokens):
            kind, start, end = tokens[self.k]
            operator = _CONSTANT_OPERATOR().match(self.text, start, end) if kind == "word" else None
            if operator is None:
                break
            self.k += 1
            if operator.end() < end:  # `*3`: the operator glued to its right operand
                terms.append(self._word(operator.end(), end))
            elif self.k < len(tokens) and self.puncts[self.k] not in (",", ";", ")", "]", "}"):
                terms.extend(self._operand(depth, flatten))
            else:
                self._problem(f"missing operand after '{operator.group()}'", start, end)
        if len(terms) == 1:
            return first
        return self._span(terms[0].start, terms[-1].end, "other", tuple(terms))

    def _unary(self, depth: int) -> PtxOperand:
        start = -1
        bangs = minuses = 0
        while (c := self.puncts[self.k]) in ("!", "-"):
            if start < 0:
                start = self.tokens[self.k][1]
            if c == "!":
                bangs += 1
            else:
                minuses += 1
            self.k += 1
        atom = self._atom(depth)
        if start < 0:
            return atom
        text = self.text[start : atom.end]
        if minuses == 0:
            return _make_operand(
                atom.kind, text, start, atom.end, atom.parts, negated=True, ref=atom.ref
            )
        if minuses == 1 and bangs == 0 and atom.kind == "immediate":
            return _make_operand("immediate", text, start, atom.end)
        return _make_operand("other", text, start, atom.end, (atom,))

    def _atom(self, depth: int) -> PtxOperand:
        if self.k >= len(self.tokens):
            here = self.region_end
            self._problem("missing operand", max(0, here - 1), here)
            return _make_operand("other", "", here, here)
        kind, start, end = self.tokens[self.k]
        if kind == "num":
            self.k += 1
            return _make_operand("immediate", self.text[start:end], start, end)
        if kind == "word":
            self.k += 1
            return self._word(start, end)
        if kind == "refs":
            self.k += 1
            return self._ref_vector(start, end, depth)
        c = self.masked[start]
        if c in _CLOSERS:
            return self._aggregate(c, start, depth)
        if c in ",)]}":  # after `|`, `+` or `-`: nothing to consume here, the list handles it
            self._problem("missing operand", start, end)
            return _make_operand("other", "", start, start)
        self.k += 1
        self._problem(f"unexpected '{c}'", start, end)
        return _make_operand("other", self.text[start:end], start, end)

    def _aggregate(self, opener: str, start: int, depth: int) -> PtxOperand:
        closer = _CLOSERS[opener]
        self.k += 1
        if depth >= _MAX_NESTING:
            # Not PTX; skip the balanced remainder without recursing further.
            self._problem("operand nesting too deep", start, start + 1)
            level = 1
            while self.k < len(self.tokens) and level:
                c = self.puncts[self.k]
                level += c in _CLOSERS
                level -= c != "" and c in ")]}"
                self.k += 1
            return self._span(start, self.tokens[self.k - 1][2], "other", ())
        self.open_closers.append(closer)
        items = self._list(closer, depth + 1, flatten=opener == "[")
        self.open_closers.pop()
        if self.puncts[self.k] == closer:
            end = self.tokens[self.k][2]
            self.k += 1
            if opener == "[" and self.k < len(self.tokens):
                # ld's address attribute, 'ld.global.b32 d, [a].unified;': part of the
                # address as written, not a second operand (the operand keeps its '[...]')
                kind, word_start, word_end = self.tokens[self.k]
                if self.text[word_start:word_end] == ".unified" and kind == "word":
                    self.k += 1
        else:
            self._problem(f"unterminated '{opener}'", start, start + 1)
            end = self.tokens[self.k - 1][2]
        return self._span(start, end, _AGGREGATE_KIND[opener], tuple(items))

    def _ref_vector(self, start: int, end: int, depth: int) -> PtxOperand:
        """A ``{%N, ...}`` token: the vector ``_aggregate`` makes of its braces and words."""
        if depth >= _MAX_NESTING:
            self._problem("operand nesting too deep", start, start + 1)
            return self._span(start, end, "other", ())
        text = self.text[start:end]
        plain = self.masked is self.text or self.masked[start:end] == text  # no comment inside
        key = (start, text, self.branch)
        if plain and (vector := _VECTORS.get(key)) is not None:
            return vector
        # its elements are the percent tokens read inside it, not a third pattern's matches:
        # CUTLASS's templates (cold tables) 1,676 -> 1,651 M instructions (cachegrind)
        percents = self.percents
        first = bisect_left(percents, start, key=_START)
        last = bisect_left(percents, end, first, key=_START)
        word = self._word
        elements = tuple([word(t.start, t.end) for t in percents[first:last]])
        vector = _make_operand("vector", text, start, end, elements)
        if plain:
            if len(_VECTORS) >= _VECTORS_MAX:
                _VECTORS.clear()
            _VECTORS[key] = vector
        return vector

    def _span(self, start: int, end: int, kind: str, parts: tuple[PtxOperand, ...]) -> PtxOperand:
        return _make_operand(kind, self.text[start:end], start, end, parts)

    def _word(self, start: int, end: int) -> PtxOperand:
        """Classify one operand word (no brackets, commas or spaces inside); one object per
        word, offset and reading (``_WORDS``)."""
        word = self.text[start:end]
        if self.llvm:
            return self._classify(word, start, end)
        key = (start, word, self.extended, self.branch)
        operand = _WORDS.get(key)
        if operand is None:
            if len(_WORDS) >= _WORDS_MAX:
                _WORDS.clear()
            operand = _WORDS[key] = self._classify(word, start, end)
        return operand

    def _classify(self, word: str, start: int, end: int) -> PtxOperand:
        if self.llvm and "$" in word:
            ref = _LLVM_REF().fullmatch(word)
            if ref is not None:
                return _make_operand("ref", word, start, end, ref=int(ref.group(1) or ref.group(2)))
        digits = word[1:]
        if self.extended and word[0] == "%" and digits.isdigit() and digits.isascii():
            return _make_operand("ref", word, start, end, ref=int(digits))  # fast path for %N
        if HOLE in word:
            return _make_operand("opaque", word, start, end)
        name = word
        if word.startswith("%"):
            if word.startswith("%%"):
                name = word[1:]  # the PTX spelling of `%%clock` is `%clock`
            elif self.extended:
                ref = _REF().fullmatch(word)
                if ref is not None:
                    return _make_operand("ref", word, start, end, ref=int(ref.group(2)))
                if _NAMED_REF().fullmatch(word):
                    return _make_operand("ref", word, start, end)
        if _SPECIAL().fullmatch(name):
            return _make_operand("special", word, start, end)
        if _IDENT().fullmatch(self.masked[start:end] if self.llvm and "${" in name else name):
            return _make_operand("label" if self.branch else "register", word, start, end)
        return _make_operand("other", word, start, end)
