"""The bounded memo map (``ptxlint.lru``): a hit makes an entry the most recently used, the least
recently used goes first, and hits and misses are counted."""

from __future__ import annotations

from ptxlint.lru import Lru


def test_a_hit_keeps_an_entry_and_the_least_recently_used_goes_first():
    lru: Lru[str, int] = Lru(3)
    for i, key in enumerate("abc"):
        lru.put(key, i)
    assert lru.get("a") == 0  # now the most recently used: "b" is the oldest
    lru.put("d", 3)
    assert list(lru.entries) == ["c", "a", "d"]
    assert lru.get("b") is None
    assert (lru.hits, lru.misses) == (1, 1)
    lru.put("c", 9)  # replacing keeps one entry
    assert lru.get("c") == 9 and len(lru.entries) == 3
    lru.clear()
    assert not lru.entries and (lru.hits, lru.misses) == (0, 0)
