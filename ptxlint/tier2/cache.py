"""On-disk cache of per-translation-unit Tier-2 results.

Parsing a TU that includes ``cuda_runtime.h`` takes seconds; the CLI's repeated runs and the LSP
must not pay that again. The key is (schema, prelude, main file path and content hash, arguments);
the entry also lists the content hash of every file the TU read, checked on load, so editing a
project header invalidates every TU that includes it. Failures are cached too (a TU that does
not parse stays unparseable until one of its inputs or its flags change).

Location: ``tier2/`` in ptxlint's cache folder (``ptxlint.run.cache.root``: ``$PTXLINT_CACHE_DIR``
or the user cache folder). An entry is a few hundred KB (a TU including ``cuda_runtime.h``:
277 KB), and each edit of a TU's file makes a new one, so an editor running Tier 2 left one per
save, for good. The folder is bounded: after each write, the least recently used entries go
until it is under ``MAX_BYTES`` (``ptxlint.run.cache.prune_folder``; a write follows a TU parse of
a second or more, so the folder's scan is noise beside it).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from ptxlint.run.cache import location, prune_folder, touch_if_stale, write_quietly
from ptxlint.tier2.libclang_types import AsmRecord, MacroSite, OperandType, TuTypes

SCHEMA = 2
MAX_BYTES = 256 * 1024 * 1024


def default_root() -> Path:
    return location("tier2")


def file_hash(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


class Tier2Cache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_root()
        self.used: set[str] = set()  # the entries this process read or wrote: pruned last

    def key(self, path: str, args: Sequence[str], salt: str = "") -> str | None:
        content = file_hash(path)
        if content is None:
            return None
        blob = json.dumps([SCHEMA, salt, os.path.realpath(path), content, list(args)])
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> TuTypes | str | None:
        """The cached result, the cached failure message, or None on a miss or stale entry."""
        entry_path = self.root / key[:2] / f"{key}.json"
        try:
            entry = json.loads(entry_path.read_text(encoding="utf-8"))
            touch_if_stale(entry_path, entry_path.stat().st_mtime)
        except (OSError, ValueError):
            return None
        self.used.add(entry_path.name)
        deps = entry.get("deps", {})
        if any(file_hash(dep) != digest for dep, digest in deps.items()):
            return None
        if "error" in entry:
            return str(entry["error"])
        try:
            return _decode(entry["result"])
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, result: TuTypes | str, deps: Sequence[str]) -> None:
        entry: dict[str, object] = {"deps": {d: file_hash(d) for d in deps}}
        if isinstance(result, str):
            entry["error"] = result
        else:
            entry["result"] = asdict(result)
        path = self.root / key[:2] / f"{key}.json"
        # a read-only home must not stop linting
        if write_quietly(path, json.dumps(entry).encode("utf-8")):
            self.used.add(path.name)
            prune_folder(self.root, MAX_BYTES, self.used)


def _decode(raw: dict[str, object]) -> TuTypes:
    records = []
    for r in raw["records"]:  # type: ignore[attr-defined]
        operands = tuple(OperandType(**o) if o is not None else None for o in r["operands"])
        macro = MacroSite(**r["macro"]) if r["macro"] is not None else None
        offsets = tuple(r.get("operand_offsets", ()))
        records.append(
            AsmRecord(
                r["file"],
                r["offset"],
                operands,
                r["instantiation"],
                macro,
                offsets,
                r.get("template"),
            )
        )
    return TuTypes(
        str(raw["main_file"]),
        records,
        list(raw["dependencies"]),  # type: ignore[call-overload]
        list(raw["errors"]),  # type: ignore[call-overload]
    )
