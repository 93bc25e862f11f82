"""``ptxlint clean``: empty the caches ptxlint keeps (results, Tier 2, verify)."""

from __future__ import annotations

from ptxlint.cli.exits import EXIT_OK


def cmd_clean() -> int:
    from ptxlint.run import cache

    where, freed = cache.clean()
    print(f"Removed the caches in {where} ({freed / 1e6:.1f} MB).")
    return EXIT_OK
