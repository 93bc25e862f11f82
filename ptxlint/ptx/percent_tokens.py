"""The ``%`` and ``$`` tokens of an inline-asm template (``PtxTemplate.percents``).

``parse_template`` (:mod:`ptxlint.ptx.parser`) reads them before it scans the statements, from
the template with its comments blanked (``masked``: same length and offsets as the text), and
documents what each kind means. Two readings:

* GCC syntax (``read_percents``). Extended asm: ``%N`` and ``%xN`` are ``"ref"``, ``%%``
  ``"escape"``, ``%=`` ``"unique"``, ``%[name]`` ``"named"``, ``%`` before any other identifier
  ``"bare"``, a last ``%`` ``"trailing"``, any other ``%`` ``"bare"`` with an empty name. Basic
  asm: only ``%%`` (``"escape"``) and ``%N`` (``"bare"``, the digits as name).
* LLVM syntax (``read_dollars``): ``$N``, ``${N}``, ``${N:mod}`` are ``"ref"``, ``${:uid}``
  ``"unique"``, ``$$`` ``"dollar"``, any other ``$`` ``"bad-dollar"``, comments included.

Tokens are immutable and compare by value, so one object serves every template that has the
same token at the same offset (``_RUNS``, ``_REF_TOKENS``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ptxlint.lazy_regex import POSSESSIVE as _P
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE, PercentToken
from ptxlint.model_slots import slot_setters

__all__ = ["read_dollars", "read_percents"]

# A wgmma names 130 operands: a frozen dataclass's __init__ sets each field through
# object.__setattr__; this fills the slots directly, with every field given, and makes tokens
# equal to the constructor's.
_new = object.__new__
_P_KIND, _P_START, _P_END, _P_INDEX, _P_MODIFIER, _P_NAME = slot_setters(
    PercentToken, ("kind", "start", "end", "index", "modifier", "name")
)


def _token(
    kind: str, start: int, end: int, index: int | None, modifier: str, name: str
) -> PercentToken:
    token = _new(PercentToken)
    _P_KIND(token, kind)
    _P_START(token, start)
    _P_END(token, end)
    _P_INDEX(token, index)
    _P_MODIFIER(token, modifier)
    _P_NAME(token, name)
    return token


_A = re.ASCII  # PTX is ASCII: \s and \w must not match the HOLE character

# GCC reads `%` + one optional modifier letter + digits as an operand reference, so `%r1` is
# modifier "r" on operand 1 (nvcc agrees) while `%rd1`, `%clock`, `%tid` fall through to "bare".
# A plain `%N` (no modifier) is read together with the plain ones that follow it with only
# blanks, commas, braces and brackets between them, as one match (group `run`): a wgmma's
# `{%0, %1, ..., %127}, [%128]` is one. Each `%` in a run is where a match of its own would
# start, and reads the same: nothing between them can start or end a percent token.
# The run's repeats are possessive (`*+`, `++`): what follows each can never match a character
# it would give back, so the engine keeps no backtracking state per `%N`. One pass of the
# pattern over the templates of the CUDA 13 headers, CUTLASS's include/ and flashinfer took
# 12.9-13.0 ms of CPU, 8.7 ms so (best of 7, two runs); parsing them all (cold tables), 2,690
# -> 2,606 million instructions (cachegrind). tests/test_possessive_patterns.py checks that it
# reads what the backtracking spelling reads.
PCT_EXTENDED = re.compile(
    rf"%(?:(?P<run>[0-9]+{_P}(?:[\s,{{}}\[\]]*{_P}%[0-9]+{_P})*{_P})|(?P<esc>%)|(?P<uniq>=)"
    r"|\[(?P<named>[\w$]*)(?P<close>\])?"
    r"|(?P<mod>[A-Za-z])(?P<idx>[0-9]+)|(?P<bare>[A-Za-z_$][\w$]*))?",
    _A,
)
_PCT_BASIC = on_first_use(r"%(?:(?P<esc>%)|(?P<idx>[0-9]+))?", _A)
_IDX = PCT_EXTENDED.groupindex["idx"]
_MOD = PCT_EXTENDED.groupindex["mod"]
_RUN_REF = re.compile(r"%([0-9]+)", _A)

# The tokens of a run of plain "%N" by (offset, the run's text), which decide them: one tuple
# serves every template that spells the run at that offset, and a run is one match and one
# look-up, not one of each per token. CUTLASS's GMMA templates spell the same numbered operand
# lists over and over: the 143,072 plain "%N" of CUTLASS's include/ templates are 7,103 runs,
# 2,062 of them distinct (CUDA 13's headers: 15,070 in 4,212 runs, 816 distinct). Reading the
# percent tokens of their templates (cold tables, best of 9) took 56-59 ms and 8.7-9.2 ms of
# CPU with a match and a look-up per token (``_REF_TOKENS`` alone), 32-33 ms and 7.3-8.1 ms
# with this table. Bounded: cleared when full.
_RUNS: dict[tuple[int, str], tuple[PercentToken, ...]] = {}
_RUNS_MAX = 8192
# A "%N" token by (offset, spelling): what a new run is made of (distinct runs at one place
# share most of their tokens: the 45,123 tokens of CUTLASS's distinct runs are 5,010 distinct),
# and the `%xN` tokens with a modifier. Bounded: cleared when full.
_REF_TOKENS: dict[tuple[int, str], PercentToken] = {}
_REF_TOKENS_MAX = 16384

Problem = Callable[[str, int, int], None]


def read_percents(
    masked: str, extended: bool, percents: list[PercentToken], problem: Problem
) -> None:
    """Append every percent token of ``masked`` to ``percents``, in text order: one pass of
    the token pattern, whose matches never overlap and each start at a "%". An unterminated
    ``%[`` is reported through ``problem(message, start, end)``."""
    add = percents.append
    if not extended:
        for m in _PCT_BASIC().finditer(masked):
            group = m.lastgroup  # which alternative matched; None for a lone "%"
            if group == "esc":
                add(_token("escape", m.start(), m.end(), None, "", ""))
            elif group == "idx":
                add(_token("bare", m.start(), m.end(), None, "", m.group("idx")))
        return
    runs = _RUNS
    if len(runs) >= _RUNS_MAX:
        runs.clear()
    refs = _REF_TOKENS
    if len(refs) >= _REF_TOKENS_MAX:
        refs.clear()
    extend = percents.extend
    n = len(masked)
    for m in PCT_EXTENDED.finditer(masked):
        group = m.lastgroup
        if group == "run":
            key = (m.start(), m.group())
            tokens = runs.get(key)
            if tokens is None:
                tokens = runs[key] = _run(key[1], key[0])
            extend(tokens)
            continue
        i, end = m.span()
        if group == "idx":
            key = (i, m.group())
            token = refs.get(key)
            if token is None:
                token = refs[key] = _token("ref", i, end, int(m.group(_IDX)), m.group(_MOD), "")
            add(token)
        elif group == "esc":
            add(_token("escape", i, end, None, "", ""))
        elif group == "uniq":
            add(_token("unique", i, end, None, "", ""))
        elif group in ("named", "close"):
            add(_token("named", i, end, None, "", m.group("named")))
            if group == "named":
                problem("unterminated '%['", i, end)
        elif group == "bare":
            add(_token("bare", i, end, None, "", m.group("bare")))
        elif end == n:
            add(_token("trailing", i, end, None, "", ""))
        else:
            add(_token("bare", i, end, None, "", ""))


def _run(run: str, start: int) -> tuple[PercentToken, ...]:
    """The tokens of the run of plain ``%N`` spelled ``run`` at ``start``."""
    layout = _LAYOUTS.get(run)
    if layout is None:
        if len(_LAYOUTS) >= _LAYOUTS_MAX:
            _LAYOUTS.clear()
        layout = _LAYOUTS[run] = tuple([(r.start(), r.group(), int(r.group(1)))
                                        for r in _RUN_REF.finditer(run)])
    refs = _REF_TOKENS
    made = []
    for offset, spelling, index in layout:
        key = (start + offset, spelling)
        token = refs.get(key)
        if token is None:
            token = refs[key] = _token("ref", key[0], key[0] + len(spelling), index, "", "")
        made.append(token)
    return tuple(made)


# A run's "%N" by its text: (offset in the run, spelling, index) each, what its tokens at any
# offset are made of. CUTLASS's include/ spells 2,069 distinct runs at their offsets in 771
# texts, the CUDA 13 headers 816 in 122: a run met at a new offset is no pattern's matches.
# Reading the percent tokens of their templates (cold tables, best of 9): CUTLASS 23.6 -> 21.6
# ms of CPU, CUDA 6.6 -> 5.7 ms. Bounded: cleared when full.
_LAYOUTS: dict[str, tuple[tuple[int, str, int], ...]] = {}
_LAYOUTS_MAX = 4096


# LLVM's operand syntax: `$$`, `$N`, `${N}`, `${N:modifier}`, `${:uid}`; any other `$` is an
# error in LLVM's AsmPrinter ("Bad $ operand number") and recorded as "bare".
_DOLLAR = on_first_use(
    r"\$(?:(?P<dollar>\$)|(?P<idx>[0-9]+)|\{(?P<bidx>[0-9]+)(?::(?P<mod>\w*))?\}"
    r"|\{:(?P<uniq>\w*)\}|(?P<brace>\{[^}]*\}?))?",
    _A,
)


def read_dollars(text: str, masked: str, percents: list[PercentToken]) -> str:
    """Append LLVM ``$`` tokens (comments included: LLVM replaces them there too) to
    ``percents``, and give back ``masked`` with the braces and colons of ``${...}`` blanked to
    ``$``, so that the scanner does not read them as PTX scopes, vectors or labels."""
    chars = list(masked)
    add = percents.append
    pos = text.find("$")
    while pos != -1:
        m = _DOLLAR().match(text, pos)
        assert m is not None  # the pattern matches any "$"
        end = m.end()
        group = m.lastgroup
        if group == "idx":
            add(PercentToken("ref", pos, end, index=int(m.group("idx"))))
        elif group in ("bidx", "mod"):
            index = int(m.group("bidx"))
            add(PercentToken("ref", pos, end, index=index, modifier=m.group("mod") or ""))
        elif group == "uniq":
            add(PercentToken("unique", pos, end, name=m.group("uniq")))
        elif group == "dollar":
            add(PercentToken("dollar", pos, end))
        elif text.startswith(HOLE, end):
            pass  # `f"${idx}"`: the operand number is text ptxlint cannot see
        else:
            add(PercentToken("bad-dollar", pos, end, name=m.group("brace") or ""))
        for k in range(pos + 1, end):
            if chars[k] in "{}:" and chars[pos] != " ":  # not inside a masked comment
                chars[k] = "$"
        pos = text.find("$", end)
    return "".join(chars)
