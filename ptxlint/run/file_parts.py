"""A big C++ file linted in parts by several workers, merged in the collecting process.

Linted whole, one file is one worker's: over the CUDA 13 headers and CUTLASS's include/ at
``-j 16``, the run could not end before CUTLASS's two GMMA headers (736 asm statements each,
about 1.4 s of CPU apiece) while the other workers had nothing left. ``parts`` cuts such a file
when the pool is wide enough; each part parses the file without the functions none of its
statements reads (``frontends.cxx.part_tree``) and lints its share of the statements
(``ptxlint.engine_parts``: why the merge is exactly the whole file's lint), and ``Split``
collects the parts' outcomes in this process and merges them once all are in. A wide pool
gets the files of ``PART_BYTES`` or more before discovery reads the tree, cut or as one part
(``runner._Run.start_early``), so that the biggest work starts first.

How many parts (``parts``): a part's fixed cost is the scan for the functions it leaves out,
the parse of the rest and what is read once per file; only the statements' work divides. So a
file is cut only where both its statements and its bytes are many (big statements: a GMMA
header's are 3.8 KB each), into at most one part per ``PART_STATEMENTS`` asm keywords and per
``PART_BYTES``, and one per ``WORKERS_PER_PART`` workers, so that a part finds a worker free: a
pool of fewer than eight never cuts a file. Over the CUDA 13 headers and CUTLASS's include/
at ``-j 16`` that cuts the two 2.8-2.9 MB GMMA headers in three.

Why each part scans the file for its functions itself (``part_tree``: 50-57 ms of a GMMA
header's part on a 2-core machine, three times per header), rather than this process once,
handing each part the spans: this process meets the big files in ``_Run.start_early``, while
the workers have nothing else to do (at ``-j 16``, 13 of 16 hold no job then). Scanned here,
each cut file's parts would reach them 55-80 ms later (the scan and the parts' keyword
searches, serial), and discovery, which feeds the idle workers, would start 110-160 ms later
for the two GMMA headers; scanned in the parts, the same work runs on idle workers at once.
It would save the workers 0.2-0.25 s of CPU in all, about 15 ms of a 16-core run's wall time.

Measured on the 2.8 MB GMMA header (CPU per part on a 2-core machine; the whole file linted
alone: 0.7 s): in three parts 0.37-0.42 s each (1.16 s in all) where each part parsed the
whole file 0.48-0.60 s (1.52-1.67 s); in four, 0.33-0.36 s (1.34 s) against 0.45-0.50 s. On
the 16-core host at ``-j 16`` over CUDA and CUTLASS the three parts of each header take
0.8-1.2 s each, all workers busy until 1.4-1.5 s: the run is bound by the pool's total CPU,
not by the parts, and four parts cost the workers 1 s more CPU (19.6 s against 18.6 s) for
no shorter run. Cutting every file of 320 asm keywords or more instead (seven files, 21
parts) cost the workers 3.7 s more CPU (16.1 s against 12.3 s), when each part parsed the
whole file.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxlint import collector, file_memos
from ptxlint.model import SourceFile
from ptxlint.run import prefilter
from ptxlint.run.discover import decode_source
from ptxlint.run.outcome import FileOutcome, add_typed, file_outcome

if TYPE_CHECKING:
    from ptxlint.config import RuleSelector
    from ptxlint.rule import Rule, RuleContext

PART_STATEMENTS = 160
PART_BYTES = 900 * 1024
WORKERS_PER_PART = 4


def cxx(path: str) -> bool:
    """Whether ``path`` is read by the C++ front end, the one that lints a file in parts."""
    return prefilter.keywords_for(path) is prefilter.CXX_KEYWORDS


def parts(path: str, data: bytes, workers: int, keywords: int | None = None) -> int:
    """Into how many parts to cut the file ``path`` holding ``data`` for a pool of
    ``workers`` (1: lint it whole). Its asm keywords (``keywords``, where the caller counted
    them) stand for its statements."""
    most = min(workers // WORKERS_PER_PART, len(data) // PART_BYTES)
    if most < 2 or not cxx(path):
        return 1
    if keywords is None:
        keywords = prefilter.keyword_count(path, data)
    return max(1, min(most, keywords // PART_STATEMENTS))


def part_size(size: int, count: int) -> int:
    """What one of ``count`` parts of a file of ``size`` bytes weighs against whole files when
    the pool orders its work: a fixed quarter (a part of a GMMA header in three or four costs
    about a quarter of the whole file's lint plus its share of the rest) and its share of the
    rest."""
    return size // 4 + (size - size // 4) // count


def lint_part_job(
    path: str,
    part: int,
    count: int,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    max_file_size: int,
    count_types: bool = True,
) -> FileOutcome:
    """In a worker: part ``part`` of ``count`` of the file, as the merge reads it
    (``FileOutcome.part_rows``); its typed operands counted only with ``count_types``. The
    collector as ``runner.lint_path`` holds it."""
    from ptxlint.run.discover import read_bytes

    data, reason = read_bytes(path, max_file_size)
    if data is None:
        return FileOutcome(path, reason=reason or "could not be read")
    with collector.paused(collect_young=True):
        outcome = _lint_part(path, data, part, count, rules, context, selector, count_types)
        file_memos.release()  # before the pause ends: the memos hold the part's tree
    return outcome


def _lint_part(
    path: str,
    data: bytes,
    part: int,
    count: int,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    count_types: bool,
) -> FileOutcome:
    from ptxlint.engine import FileResult, unified_source
    from ptxlint.engine_parts import Part, lint_part, shares
    from ptxlint.frontends.cxx.guards import unread_note
    from ptxlint.run import statement_pickle

    text, decode_errors = decode_source(data)
    source = SourceFile(path, text, decode_errors)
    cut = shares(text, count)
    # fewer keywords than parts (the file changed since it was counted): the parts past
    # them have nothing
    done = lint_part(source, rules, context, selector, cut[part]) if part < len(cut) \
        else Part(FileResult(path, source=source))
    outcome = file_outcome(path, source, done.result, count_types)
    outcome.findings, outcome.source = [], None
    note = unread_note(s.context.guards for s in done.result.statements)
    if note is not None:
        outcome.file_notes.append(note)
    merged = (done.rules, done.rows, done.failed, done.result.findings, done.loose,
              zlib.crc32(data))
    outcome.part_rows = statement_pickle.dumps(merged, unified_source(source))
    return outcome


class Split:
    """One file being linted in parts: its bytes as this process read them, and the parts'
    outcomes as they come in."""

    def __init__(
        self, path: str, data: bytes, count: int, key: str | None, position: int | None
    ) -> None:
        self.path = path
        self.data = data
        self.key = key  # the result cache's key, the whole file's result stored under it here
        # the file's place in the run: None for a file started before discovery met it
        self.position = position
        self.outcomes: list[FileOutcome | None] = [None] * count
        self.result: FileOutcome | None = None  # merged, once every part is in

    def add(self, part: int, outcome: FileOutcome) -> bool:
        """Take part ``part``'s outcome; True once every part is in."""
        self.outcomes[part] = outcome
        return all(o is not None for o in self.outcomes)

    def merged(self, rules: Sequence[Rule], selector: RuleSelector) -> FileOutcome:
        """The file's outcome, as a whole-file lint of the bytes read here gives it."""
        outcomes = [o for o in self.outcomes if o is not None]
        failed = next((o for o in outcomes if o.reason is not None), None)
        if failed is not None:  # a part's worker died, or the file went: the file's outcome
            return failed
        from ptxlint.engine import FileResult, unified_source
        from ptxlint.engine_parts import Part, finish_parts
        from ptxlint.run import statement_pickle

        text, decode_errors = decode_source(self.data)
        source = SourceFile(self.path, text, decode_errors)
        read = unified_source(source)
        got: list[Part] = []
        for outcome in outcomes:
            assert outcome.part_rows is not None
            ids, rows, crashed, findings, loose, crc = statement_pickle.loads_value(
                outcome.part_rows, read)
            if crc != zlib.crc32(self.data):
                return _changed(self.path)
            got.append(Part(FileResult(self.path, findings=findings), ids, rows, crashed, loose))
        merged = FileOutcome(self.path, decode_errors=decode_errors)
        merged.findings = finish_parts(source, got, rules, selector)
        merged.source = source if merged.findings else None
        if any(p.failed for p in got):
            return merged  # as a whole-file lint whose extraction failed: nothing counted
        for outcome in outcomes:
            _add_counts(merged, outcome)
        return merged


def _changed(path: str) -> FileOutcome:
    return FileOutcome(path, reason="could not be read: it changed while it was being linted")


def _add_counts(total: FileOutcome, part: FileOutcome) -> None:
    """``part``'s counts added to ``total``'s, in the order the parts' statements come in the
    file (the last part's macro invocations after every part's statements)."""
    total.statements += part.statements
    total.skipped_statements += part.skipped_statements
    total.skipped.extend(part.skipped)
    total.asm_labels += part.asm_labels
    total.expansion_statements += part.expansion_statements
    total.expanded_macros |= part.expanded_macros
    total.unexpanded_macros.extend(part.unexpanded_macros)
    total.skipped_invocations.extend(part.skipped_invocations)
    total.branch_variants += part.branch_variants
    total.operands += part.operands
    total.typed_operands = add_typed(total.typed_operands, part.typed_operands)
    total.typed_tier2 = add_typed(total.typed_tier2, part.typed_tier2)
    for note in part.file_notes:
        if note not in total.file_notes:
            total.file_notes.append(note)
