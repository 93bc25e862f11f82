"""``line_diff.equal_runs`` against the line-by-line reading of the same rules (the module's
first version): the runs that the slices, counts and C searches find must be exactly these."""

from __future__ import annotations

import bisect
import random

from ptxlint.frontends import line_diff

Run = tuple[int, int, int]


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
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
    return chosen[::-1]


def _reference(old: list[str], new: list[str]) -> list[Run]:
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
        k = head
        while k < old_end:
            if old[k] == new[k]:
                first = k
                while k < old_end and old[k] == new[k]:
                    k += 1
                middle.append((first, first, k - first))
            else:
                k += 1
    if sum(r[2] for r in middle) < 0.9 * (old_end - head):
        in_old: dict[str, list[int]] = {}
        for k in range(head, old_end):
            in_old.setdefault(old[k], []).append(k)
        in_new: dict[str, list[int]] = {}
        for k in range(head, new_end):
            in_new.setdefault(new[k], []).append(k)
        pairs = []
        for line, where in in_old.items():
            there = in_new.get(line)
            if there is not None and len(there) == len(where) <= 8:
                pairs.extend(zip(where, there, strict=True))
        pairs.sort()
        anchored: list[Run] = []
        old_at, new_at = head, head
        for i, j in _increasing(pairs):
            if i < old_at or j < new_at:
                continue
            while i > old_at and j > new_at and old[i - 1] == new[j - 1]:
                i, j = i - 1, j - 1
            old_stop, new_stop = i, j
            while old_stop < old_end and new_stop < new_end and old[old_stop] == new[new_stop]:
                old_stop, new_stop = old_stop + 1, new_stop + 1
            anchored.append((i, j, old_stop - i))
            old_at, new_at = old_stop, new_stop
        if sum(r[2] for r in anchored) > sum(r[2] for r in middle):
            middle = anchored
    runs: list[Run] = [(0, 0, head)] if head else []
    runs.extend(middle)
    if tail:
        runs.append((old_end, new_end, tail))
    return runs


def _edited(rng: random.Random, lines: list[str], alphabet: int) -> list[str]:
    out = list(lines)
    for _ in range(rng.randrange(0, 8)):
        op = rng.randrange(4)
        if op == 0 and out:
            del out[rng.randrange(len(out))]
        elif op == 1:
            out.insert(rng.randrange(len(out) + 1), str(rng.randrange(alphabet)))
        elif op == 2 and out:
            out[rng.randrange(len(out))] = str(rng.randrange(2 * alphabet))
        elif op == 3 and len(out) > 4:  # a block moved
            at = rng.randrange(len(out))
            block = out[at : at + rng.randrange(1, 40)]
            del out[at : at + len(block)]
            to = rng.randrange(len(out) + 1)
            out[to:to] = block
    return out


def test_runs_are_the_line_by_line_runs() -> None:
    """Short and long texts, few distinct lines (every line repeated, more than 8 times or
    not) and many, edits, moved blocks and long equal stretches (the galloping compares)."""
    rng = random.Random(8)
    for _ in range(3000):
        alphabet = rng.choice([2, 3, 6, 20, 200, 10**6])
        old = [str(rng.randrange(alphabet)) for _ in range(rng.choice([0, 1, 2, 5, 30, 300, 900]))]
        new = _edited(rng, old, alphabet)
        if rng.random() < 0.3:
            old, new = new, old
        assert line_diff.equal_runs(old, new) == _reference(old, new), (old, new)
        assert line_diff.equal_runs(tuple(old), new) == _reference(old, new)  # any sequences
