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

Time is O(n log n) in the lines of both texts, dictionary and list operations only.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from typing import TypeVar

Line = TypeVar("Line", bound=Hashable)

Run = tuple[int, int, int]  # (first line in old, first line in new, lines)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (ordered by their first item) whose second items
    increase."""
    tails: list[int] = []
    tail_at: list[int] = []
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
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


def _same_place(old: Sequence[Line], new: Sequence[Line], lo: int, hi: int) -> list[Run]:
    """Runs of lines equal at the same index in ``[lo, hi)`` of both."""
    runs: list[Run] = []
    k = lo
    while k < hi:
        if old[k] == new[k]:
            first = k
            while k < hi and old[k] == new[k]:
                k += 1
            runs.append((first, first, k - first))
        else:
            k += 1
    return runs


# A line that occurs more often than this (a lone "}", an empty line) is never an anchor: it
# joins a run only by growing one.
_MAX_ANCHOR_COUNT = 8


def _anchored(
    old: Sequence[Line], new: Sequence[Line], old_lo: int, old_hi: int, new_lo: int, new_hi: int
) -> list[Run]:
    """Runs grown from anchors: the k-th occurrence of a line in ``old[old_lo:old_hi]`` paired
    with its k-th in ``new[new_lo:new_hi]``, for lines that occur equally often on both sides
    (once, in a patience diff; up to ``_MAX_ANCHOR_COUNT`` times here, so that a file made of
    repeated blocks still has anchors), kept in the order both sides agree on."""
    in_old: dict[Line, list[int]] = {}
    for k in range(old_lo, old_hi):
        in_old.setdefault(old[k], []).append(k)
    in_new: dict[Line, list[int]] = {}
    for k in range(new_lo, new_hi):
        in_new.setdefault(new[k], []).append(k)
    pairs: list[tuple[int, int]] = []
    for line, where in in_old.items():
        there = in_new.get(line)
        if there is not None and len(there) == len(where) <= _MAX_ANCHOR_COUNT:
            pairs.extend(zip(where, there, strict=True))
    pairs.sort()
    runs: list[Run] = []
    old_at, new_at = old_lo, new_lo
    for i, j in _increasing(pairs):
        if i < old_at or j < new_at:
            continue  # inside the run grown from the anchor before
        while i > old_at and j > new_at and old[i - 1] == new[j - 1]:
            i, j = i - 1, j - 1
        old_stop, new_stop = i, j
        while old_stop < old_hi and new_stop < new_hi and old[old_stop] == new[new_stop]:
            old_stop, new_stop = old_stop + 1, new_stop + 1
        runs.append((i, j, old_stop - i))
        old_at, new_at = old_stop, new_stop
    return runs


def matched(runs: list[Run]) -> int:
    """The lines ``runs`` cover."""
    return sum(run[2] for run in runs)


def equal_runs(old: Sequence[Line], new: Sequence[Line]) -> list[Run]:
    """Runs of equal lines, in increasing order on both sides and not overlapping."""
    n, m = len(old), len(new)
    head = 0
    while head < n and head < m and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and old[n - 1 - tail] == new[m - 1 - tail]:
        tail += 1
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
