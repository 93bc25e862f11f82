"""Runs of equal lines between two texts, for parsing one file as an edit of a near-duplicate.

Any set of runs is correct for the parser (the lines between runs become edits); better runs
only mean more of the old tree is reused. So this is the cheap part of a patience diff, not a
minimal one:

- the common first and last lines;
- between them, when both sides have as many lines, the lines equal at the same place (generated
  variants of one kernel mostly differ by a constant or a name inside a line);
- otherwise, lines that occur once on each side, kept in the order both agree on (a longest
  increasing subsequence), each grown over its equal neighbours.

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


def _once(lines: Sequence[Line], lo: int, hi: int) -> dict[Line, int]:
    """Each line of ``lines[lo:hi]`` that occurs there once, with its index."""
    seen: dict[Line, int] = {}
    for k in range(lo, hi):
        line = lines[k]
        seen[line] = -1 if line in seen else k
    return seen


def equal_runs(old: Sequence[Line], new: Sequence[Line]) -> list[Run]:
    """Runs of equal lines, in increasing order on both sides and not overlapping."""
    n, m = len(old), len(new)
    head = 0
    while head < n and head < m and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and old[n - 1 - tail] == new[m - 1 - tail]:
        tail += 1
    runs: list[Run] = [(0, 0, head)] if head else []
    old_end, new_end = n - tail, m - tail
    if old_end - head == new_end - head:
        k = head
        while k < old_end:
            if old[k] == new[k]:
                first = k
                while k < old_end and old[k] == new[k]:
                    k += 1
                runs.append((first, first, k - first))
            else:
                k += 1
    else:
        in_old = _once(old, head, old_end)
        in_new = _once(new, head, new_end)
        anchors = sorted(
            (i, j) for line, i in in_old.items() if i >= 0 and (j := in_new.get(line, -1)) >= 0
        )
        old_at, new_at = head, head
        for i, j in _increasing(anchors):
            if i < old_at or j < new_at:
                continue  # inside the run grown from the anchor before
            while i > old_at and j > new_at and old[i - 1] == new[j - 1]:
                i, j = i - 1, j - 1
            old_stop, new_stop = i, j
            while old_stop < old_end and new_stop < new_end and old[old_stop] == new[new_stop]:
                old_stop, new_stop = old_stop + 1, new_stop + 1
            runs.append((i, j, old_stop - i))
            old_at, new_at = old_stop, new_stop
    if tail:
        runs.append((old_end, new_end, tail))
    return runs
