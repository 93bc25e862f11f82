"""The tree one part of a file linted in parts reads: the file parsed without the parameter
lists and bodies of the functions that hold only other parts' statements; and the tree a
whole-file lint reads where most of a big file is functions without asm (``whole_file_tree``:
the whole file's share, whose functions hold every statement).

Each part of a big file (``ptxlint.engine_parts``) parsed the whole file, though it reads the
tree only around its own statements: CUTLASS's GMMA headers' parse was 0.33 s of a part's
0.5 s, paid once per part. Here a part leaves out the interiors of the parameter lists and
bodies of the functions that none of its statements lies in, so its parse costs about its
share of the file (a third of the GMMA header: 0.31 s -> 0.16 s).

What the part reads outside its own functions stays as the whole parse gives it:

- the tree's structure around the interiors left out: a function's parameter list and body
  are brackets whose insides parse on their own; the part's tree must show each left-out
  interior as exactly a function definition's parameter list and body, under no error node
  (``_verified``), or the whole file is parsed;
- the declarations a file-wide index reads (records, enums, typedefs, aliases, macros), the
  local classes whose member functions a latent mark reads, and ``#if`` structure: a function
  whose interiors hold any of them is kept (``FunctionSpan.plain``);
- what the statements' names lead to across functions (value flow follows a call into its
  callee and a parameter to its callers; a latent mark looks for uses of a function's name):
  a function is kept where its name is written in one of the part's functions, or one of
  those functions' names is written in it. Value flow may go further (a caller's argument
  that calls a third function, an overload set, a helper returning a shared-window pointer):
  where it meets what was left out it says so (``ParsedSource.reads``), and the part is
  linted again with the whole tree (``ptxlint.engine_parts``);
- text read from the file's bytes (the calls in a device function's body, a latent mark's
  search for a name) reads the whole file's bytes, which a part keeps;
- the last part's macro invocations, which it expands: their functions are kept;
- the file's other statements (``RuleContext.file_statements``): a part whose rules ask for
  them is linted again with the whole tree (``ptxlint.engine_parts``).
"""

from __future__ import annotations

import bisect
from functools import cache

from ptxlint.frontends.cxx import macro_uses
from ptxlint.frontends.cxx.function_spans import scan
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
from ptxlint.frontends.extraction import WHOLE, Share
from ptxlint.frontends.syntax_tree import (
    ParsedSource,
    ancestors_of,
    own_parameter_list,
    parse,
    parse_leaving_out,
)
from ptxlint.model import SourceFile

__all__ = ["part_tree", "whole_file_tree"]

# The bytes searched for the file's function names (one search of the file per distinct
# name), at most: about 60 ms; a file asking more is parsed whole.
MAX_NAME_SEARCH = 64 << 20
# Less than this share of the file to leave out: parsed whole (the scan and the check cost
# more than they save).
MIN_LEFT_OUT = 0.1
_KEYWORDS = ("asm", "__asm", "__asm__")  # as whole words: what ``extract`` reads as keywords
# A whole-file lint leaves functions out only of a file of at least WHOLE_MIN_BYTES with at
# least WHOLE_BYTES_PER_ASM bytes per "asm" in its text (see ``whole_file_tree``).
WHOLE_MIN_BYTES = 128 << 10
WHOLE_BYTES_PER_ASM = 32 << 10


def whole_file_tree(source: SourceFile) -> ParsedSource | None:
    """The tree for a whole-file lint of ``source`` (``engine.lint_kept``): the file parsed
    without the interiors of the functions no asm statement needs, as ``part_tree`` gives it
    for the whole file's share; None (the caller parses the whole file) where the file is
    too small or its asm too dense for that to pay, judged before any scan.

    It pays only where most of a big file is functions without asm: ``lint_kept``'s CPU
    (least of three runs), whole tree against this tree made for every one of the 59 asm
    files of 64 KB or more of the CUDA 13 headers, CUTLASS's include/ and flashinfer, is
    229 ms more in all; the scan and the check cost up to 65 ms on a 2.8 MB GMMA header
    whose functions each hold asm. The gate (a file of 128 KB or more with 32 KB of text or
    more per "asm") keeps six of them: CUTLASS's cute/arch/mma_sm90.hpp (363 KB, 3 asm
    statements) 94 -> 27 ms, flashinfer's fmha/softmax.h (149 KB, 1) 23 -> 19 ms, and four
    that lose 0.5-3 ms each (CUDA's cuda_bf16.h, whose scan gives up at once; flashinfer's
    xqa/mha.cu, attention/prefill.cuh, comm/mixed_comm.cuh): 66 ms less in all."""
    text = source.text
    if len(text) < WHOLE_MIN_BYTES or text.count("asm") * WHOLE_BYTES_PER_ASM > len(text):
        return None
    return part_tree(source, WHOLE)


def part_tree(source: SourceFile, share: Share) -> ParsedSource:
    """The tree for ``share`` of ``source``: the file parsed without the interiors no
    statement of the share needs (see the module's docstring), or the whole file where that
    cannot be shown."""
    text = source.text
    # the macros the whole file's parse may leave out (``extract``), judged alike
    specifiers = SpecifierMacros(cache(lambda: MacroTable(source.path, text)))
    unread = _unread(source, share)
    if not unread:
        return parse(source.path, text, specifiers)
    parsed = parse_leaving_out(source.path, text, [r for span in unread for r in span],
                               specifiers)
    if not _verified(parsed, unread):
        return parse(source.path, text, specifiers)
    return parsed


def _unread(source: SourceFile, share: Share) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The (parameters, body) interiors to leave out, in text order (byte offsets: the scan
    reads only ASCII files)."""
    text = source.text
    read = scan(text)
    if read is None or not read.functions:
        return []
    spans = read.functions
    # the share's asm keywords, in comments and literals too (``extract`` skips those later)
    own = [at for word in _KEYWORDS for at in _word_starts(text, word) if share.holds(at)]
    if share.end is None:
        own.extend(at for _, at in _macro_uses(source))
    own.sort()
    bodies = [s.body[0] for s in spans]
    mine: set[int] = set()
    for at in own:
        k = bisect.bisect_right(bodies, at) - 1
        if k >= 0 and at < spans[k].body[1]:
            mine.add(k)
        elif k + 1 < len(spans) and spans[k + 1].params[0] <= at < spans[k + 1].params[1]:
            mine.add(k + 1)
        elif not read.in_directive(at) and not read.in_comment_or_literal(at):
            # a statement outside the functions found: not followed here (one in a #define
            # body reads no function: neither its operands' types nor their values)
            return []
    most = sum(s.params[1] - s.params[0] + s.body[1] - s.body[0]
               for k, s in enumerate(spans) if k not in mine and s.plain)
    if most < MIN_LEFT_OUT * len(text):
        return []  # too little to leave out whatever the names say: no search for them
    names = {s.name for s in spans}
    if len(names) * len(text) > MAX_NAME_SEARCH:
        return []
    uses = {name: _word_starts(text, name) for name in names}
    # the part's functions' interiors, sorted and apart
    inside = sorted(r for k in mine for r in (spans[k].params, spans[k].body))
    starts = [r[0] for r in inside]
    own_uses = sorted(at for name in {spans[k].name for k in mine} for at in uses[name])
    # the names written in a function of the part: value flow may follow a call of one
    named = {name for name, found in uses.items()
             if any(_inside(at, starts, inside) for at in found)}
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for k, span in enumerate(spans):
        if k in mine or not span.plain:
            continue
        if span.name in named:
            continue  # called or named in a function of the part: value flow may follow it
        if _any_between(own_uses, *span.params) or _any_between(own_uses, *span.body):
            continue  # it names a function of the part: its callers' arguments are read
        out.append((span.params, span.body))
    left_out = sum(p[1] - p[0] + b[1] - b[0] for p, b in out)
    if left_out < MIN_LEFT_OUT * len(text):
        return []
    return out


def _inside(at: int, starts: list[int], ranges: list[tuple[int, int]]) -> bool:
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and at < ranges[k][1]


def _any_between(offsets: list[int], start: int, end: int) -> bool:
    k = bisect.bisect_left(offsets, start)
    return k < len(offsets) and offsets[k] < end


def _macro_uses(source: SourceFile) -> list[tuple[str, int]]:
    """Where the file writes an asm macro's name: the invocations the last part expands are
    among them (``extract._expand_macro_uses`` reads the same list)."""
    names = macro_uses.asm_macros(MacroTable(source.path, source.text))
    return list(macro_uses.find_uses(source.text, names)) if names else []


def _word_starts(text: str, word: str) -> list[int]:
    found: list[int] = []
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")) and (
            end == len(text) or not (text[end].isalnum() or text[end] == "_")
        ):
            found.append(at)
        at = text.find(word, end)
    return found


def _verified(
    parsed: ParsedSource, unread: list[tuple[tuple[int, int], tuple[int, int]]]
) -> bool:
    """Whether each left-out pair of interiors is, in ``parsed``'s tree, exactly the inside
    of one function definition's parameter list and of its body."""
    root = parsed.tree.root_node
    for (p_start, p_end), (b_start, b_end) in unread:
        body = root.descendant_for_byte_range(b_start - 1, b_end + 1)
        if body is None or body.type != "compound_statement" or body.start_byte != b_start - 1 \
                or body.end_byte != b_end + 1:
            return False
        function = body.parent
        if function is None or function.type != "function_definition":
            return False
        if any(up.type == "ERROR" for up in ancestors_of(root, function)):
            # recovering from an error around it, the parse may read what was left out
            # differently (CUDA's sm_32_intrinsics.hpp parses as one ERROR node)
            return False
        field_body = function.child_by_field_name("body")
        if field_body is None or field_body.id != body.id:
            return False
        # the function's own list: through a returned reference too, and not a returned
        # function pointer's
        params = own_parameter_list(function)
        if params is None or params.start_byte != p_start - 1 or params.end_byte != p_end + 1:
            return False
    return True
