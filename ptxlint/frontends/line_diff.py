"""Runs of equal lines between two texts, for parsing one file as an edit of a near-duplicate.

Any set of runs is correct for the parser (the lines between runs become edits); better runs
only mean more of the old tree is reused. So this is the cheap part of a patience diff, not a
minimal one:

- the common first and last lines;
- between them, when both sides have as many lines, the lines equal at the same place (generated
  variants of one kernel mostly differ by a constant or a name inside a line);
- where that leaves more than a tenth unmatched, anchors: lines that occur as often on each
  side (up to 8 times), the k-th occurrence paired with the k-th, kept in the order both agree
  on (a longest increasing subsequence), each grown over its equal neighbours.

Time is O(n log n) in the lines of both texts, nearly all of it in C: lines are counted by
``Counter``, compared by slices (a run is measured by galloping over slices, not a step per
line), and anchors that occur once on each side, most of them, are paired through ``map`` and
``compress``; a Python step is taken per run, per anchor and per repeated line only. The runs
are exactly those of the first, line-by-line version (tests/test_line_diff.py holds them to
it): on the 306 diffs that tree_reuse makes over flashinfer's include/ and csrc/{gdn,
cake_fmha,kda} (1.7 M lines, replayed by a script), 0.55 s -> 0.40 s of CPU.
"""

from __future__ import annotations

import bisect
import operator
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import compress
from typing import TypeVar

Line = TypeVar("Line", bound=Hashable)

Run = tuple[int, int, int]  # (first line in old, first line in new, lines)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (ordered by their first item) whose second items
    increase. Where they all do (a near-duplicate without moved blocks: the usual case), that
    is all of them, found by one sort in C instead of a bisection per pair."""
    seconds = [j for _, j in pairs]
    if seconds == sorted(seconds):  # each line of ``new`` is paired once: no two are equal
        return pairs
    tails: list[int] = []
    tail_at: list[int] = []
    before = [-1] * len(pairs)
    for k, j in enumerate(seconds):
        place = bisect.bisect_left(tails, j)
        if place == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[place] = j
            tail_at[place] = k
        before[k] = tail_at[place - 1] if place else -1
    chosen: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        chosen.append(pairs[k])
        k = before[k]
    chosen.reverse()
    return chosen


# Runs are measured by comparing slices (in C) of a growing length, then halving the slice
# that differs down to this many lines, which are compared one by one.
_GALLOP = 8


def _forward(old: list[Line], i: int, new: list[Line], j: int, most: int) -> int:
    """How many lines from ``old[i]`` and ``new[j]`` on are equal, at most ``most``."""
    n = 0
    step = _GALLOP
    while n < most:
        k = min(step, most - n)
        if old[i + n : i + n + k] == new[j + n : j + n + k]:
            n += k
            step += step
            continue
        hi = n + k  # a line in [n, hi) differs
        while hi - n > _GALLOP:
            mid = (n + hi) // 2
            if old[i + n : i + mid] == new[j + n : j + mid]:
                n = mid
            else:
                hi = mid
        while old[i + n] == new[j + n]:
            n += 1
        return n
    return n


def _backward(old: list[Line], i: int, new: list[Line], j: int, most: int) -> int:
    """How many lines before ``old[i]`` and ``new[j]`` are equal, at most ``most``."""
    n = 0
    step = _GALLOP
    while n < most:
        k = min(step, most - n)
        if old[i - n - k : i - n] == new[j - n - k : j - n]:
            n += k
            step += step
            continue
        hi = n + k  # a line in [n, hi) before the ends differs
        while hi - n > _GALLOP:
            mid = (n + hi) // 2
            if old[i - mid : i - n] == new[j - mid : j - n]:
                n = mid
            else:
                hi = mid
        while old[i - n - 1] == new[j - n - 1]:
            n += 1
        return n
    return n


def _same_place(old: list[Line], new: list[Line], lo: int, hi: int) -> list[Run]:
    """Runs of lines equal at the same index in ``[lo, hi)`` of both: the comparisons made in C
    (``map``), then one ``index`` search per run boundary."""
    equal = list(map(operator.eq, old[lo:hi], new[lo:hi]))
    runs: list[Run] = []
    k, n = 0, hi - lo
    while k < n:
        try:
            first = equal.index(True, k)
        except ValueError:
            break
        try:
            k = equal.index(False, first)
        except ValueError:
            k = n
        runs.append((lo + first, lo + first, k - first))
    return runs


# A line that occurs more often than this (a lone "}", an empty line) is never an anchor: it
# joins a run only by growing one.
_MAX_ANCHOR_COUNT = 8


def _anchored(
    old: list[Line], new: list[Line], old_lo: int, old_hi: int, new_lo: int, new_hi: int
) -> list[Run]:
    """Runs grown from anchors: the k-th occurrence of a line in ``old[old_lo:old_hi]`` paired
    with its k-th in ``new[new_lo:new_hi]``, for lines that occur equally often on both sides
    (once, in a patience diff; up to ``_MAX_ANCHOR_COUNT`` times here, so that a file made of
    repeated blocks still has anchors), kept in the order both sides agree on.

    The lines are counted in C (``Counter``, the items views' intersection); a line that occurs
    once on each side, most of them, is paired in C too (its place is its last one, which a
    ``dict`` of the lines finds); only the lines repeated on both sides are placed line by
    line."""
    old_part, new_part = old[old_lo:old_hi], new[new_lo:new_hi]
    both = Counter(old_part).items() & Counter(new_part).items()  # (line, count) on each side
    once = {line for line, count in both if count == 1}
    in_order = list(map(once.__contains__, old_part))
    new_place = dict(zip(new_part, range(new_lo, new_hi), strict=True))
    pairs = list(
        zip(
            compress(range(old_lo, old_hi), in_order),
            map(new_place.__getitem__, compress(old_part, in_order)),
            strict=True,
        )
    )
    repeated = {line for line, count in both if 1 < count <= _MAX_ANCHOR_COUNT}
    if repeated:
        in_old: dict[Line, list[int]] = {}
        for k in compress(range(old_lo, old_hi), map(repeated.__contains__, old_part)):
            in_old.setdefault(old[k], []).append(k)
        in_new: dict[Line, list[int]] = {}
        for k in compress(range(new_lo, new_hi), map(repeated.__contains__, new_part)):
            in_new.setdefault(new[k], []).append(k)
        for line, where in in_old.items():
            pairs.extend(zip(where, in_new[line], strict=True))
        pairs.sort()
    runs: list[Run] = []
    old_at, new_at = old_lo, new_lo
    for i, j in _increasing(pairs):
        if i < old_at or j < new_at:
            continue  # inside the run grown from the anchor before
        back = _backward(old, i, new, j, min(i - old_at, j - new_at))
        i, j = i - back, j - back
        length = _forward(old, i, new, j, min(old_hi - i, new_hi - j))
        runs.append((i, j, length))
        old_at, new_at = i + length, j + length
    return runs


def matched(runs: list[Run]) -> int:
    """The lines ``runs`` cover."""
    return sum(run[2] for run in runs)


def equal_runs(old: Sequence[Line], new: Sequence[Line]) -> list[Run]:
    """Runs of equal lines, in increasing order on both sides and not overlapping."""
    if not isinstance(old, list) or not isinstance(new, list):
        old, new = list(old), list(new)  # slices of one type compare in C
    n, m = len(old), len(new)
    head = _forward(old, 0, new, 0, min(n, m))
    tail = _backward(old, n, new, m, min(n, m) - head)
    old_end, new_end = n - tail, m - tail
    middle: list[Run] = []
    if old_end - head == new_end - head:
        middle = _same_place(old, new, head, old_end)
    if matched(middle) < 0.9 * (old_end - head):  # lines were added or removed
        anchored = _anchored(old, new, head, old_end, head, new_end)
        if matched(anchored) > matched(middle):
            middle = anchored
    runs: list[Run] = [(0, 0, head)] if head else []
    runs.extend(middle)
    if tail:
        runs.append((old_end, new_end, tail))
    return runs
