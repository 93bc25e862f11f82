"""Which lane a ``shfl`` reads, from the PTX ISA's semantics of ``shfl.sync`` (and of the
deprecated ``shfl``, the same but for the member mask).

The ISA's pseudocode ("Parallel Synchronization and Communication Instructions: shfl.sync"):
``c`` packs the clamp value ``cval = c[4:0]`` and the segment mask ``segmask = c[12:8]``;
``maxLane = (lane & segmask) | (cval & ~segmask)`` and ``minLane = lane & segmask``; then

* ``.up``:   ``j = lane - b``, in range when ``j >= maxLane``;
* ``.down``: ``j = lane + b``, in range when ``j <= maxLane``;
* ``.bfly``: ``j = lane ^ b``, in range when ``j <= maxLane``;
* ``.idx``:  ``j = minLane | (b & ~segmask)``, in range when ``j <= maxLane``;

and a lane whose ``j`` is out of range copies its own ``a``. So the clamp means opposite
things: for ``.up`` it is the lowest lane a value may come from (CUDA's ``__shfl_up_sync``
passes ``c = (32 - width) << 8``), for the others the highest (``((32 - width) << 8) | 0x1f``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MODES", "conventional_clamp", "moves_data", "source_lane"]

MODES = frozenset({"up", "down", "bfly", "idx"})
WARP = range(32)


def source_lane(mode: str, lane: int, b: int, c: int) -> int | None:
    """The lane whose ``a`` lane ``lane`` receives, or None where ``j`` is out of range (the
    lane keeps its own value and the predicate is false)."""
    bval, cval, segmask = b & 0x1F, c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (cval & ~segmask & 0x1F)
    if mode == "up":
        j = lane - bval
        return j if j >= max_lane else None
    if mode == "down":
        j = lane + bval
    elif mode == "bfly":
        j = lane ^ bval
    else:
        j = (lane & segmask) | (bval & ~segmask & 0x1F)
    return j if j <= max_lane else None


def moves_data(mode: str, offsets: Iterable[int], c: int, lanes: Iterable[int] = WARP) -> bool:
    """Whether, for some ``b`` of ``offsets``, a lane of ``lanes`` receives another lane's
    value."""
    members = tuple(lanes)
    return any(
        (j := source_lane(mode, lane, b, c)) is not None and j != lane
        for b in offsets for lane in members)


def conventional_clamp(mode: str, c: int) -> int:
    """``c`` with the clamp CUDA's own shuffles pass for ``mode`` and the same segment mask:
    0 for ``.up``, 0x1f otherwise."""
    return (c & ~0x1F) | (0 if mode == "up" else 0x1F)
