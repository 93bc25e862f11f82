"""Where ptxlint keeps what it can reuse, and the per-file result cache of ``ptxlint check``.

One location setting for every cache: ``$PTXLINT_CACHE_DIR`` when set, else the user cache
folder as ``platformdirs`` names it: ``$XDG_CACHE_HOME/ptxlint`` or ``~/.cache/ptxlint`` on
Linux (worked out here, without the import), ``~/Library/Caches/ptxlint`` on macOS,
``%LOCALAPPDATA%\\ptxlint\\Cache`` on Windows. Inside it:

- ``results/``: what ``check`` found in one file (this module),
- ``index/``: per file, its stat, digest, prefilter verdict and the headers its result read
  (``ptxlint.run.file_index``),
- ``tier2/``: libclang's types per translation unit (``ptxlint.tier2.cache``; bounded, as the
  results are, by ``prune_folder``),
- ``verify/``: toolchain outcomes of ``--verify`` (``ptxlint.verify.runner``; bounded too),
- ``tests/``: the test suite's nvcc/ptxas oracle (``tests/toolchain_cache.py``),
- ``rules/``: rule pages the language server links to (``ptxlint.lsp.rule_docs``).

A result entry is keyed, as in ruff, by everything the result depends on: the file's bytes (a
SHA-256), the path it is reported under, ptxlint's version and a fingerprint of the code that
ran (every module of ptxlint and of the loaded rule packs, by size and modification time, so an
edited checkout never reads stale results), the rules enabled for that path with their
severities, and the settings rules read (the target architecture). A result is used only
while the headers it read are unchanged too: a C++ file's macro table reads its include
closure, and the prefilter's verdict on a file without an asm keyword depends on the same
headers, so both are looked up through ``file_index``, which checks that closure (and the
folders deciding which headers the includes find) by stat. Tier 2 and ``--fix`` runs
bypass it (their results depend on other files, or change the file). An entry holds the
file's text compressed (``packed_source``), as the run keeps it for the report. The folder is
bounded: after a run that wrote entries, the least recently used are removed until it is under
``MAX_RESULTS_BYTES``, the run's own entries last. ``ptxlint clean`` empties the location
(all but the test suite's oracle); ``check --no-cache`` neither reads nor writes results.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Collection, Iterable
from pathlib import Path

from ptxlint import __version__

# hashlib and pickle (4 ms together) are imported where they are used: every run imports this
# module, and a --no-cache run uses neither.

ENV = "PTXLINT_CACHE_DIR"
SCHEMA = 1
MAX_RESULTS_BYTES = 256 * 1024 * 1024
_PRUNE_TO = 0.8  # of the limit, so that a full cache is not pruned again on the next run
# A hit marks its entry used (for pruning) only when the mark is this old: a warm run then
# writes nothing.
_TOUCH_AFTER_S = 3600.0


def root() -> Path:
    """The one folder every ptxlint cache lives under."""
    configured = os.environ.get(ENV)
    if configured:
        return Path(configured).expanduser()
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not hasattr(
        sys, "getandroidapilevel"
    ):
        # The XDG rule platformdirs follows here, without importing it: the import was 6 ms of
        # a small file's 160 ms of CPU.
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
        return base / "ptxlint"
    import platformdirs  # macOS, Windows and the rest

    return Path(platformdirs.user_cache_dir("ptxlint", appauthor=False))


def usable_root() -> Path | None:
    """``root()``, or None where no cache folder can be named (no home folder, say): what
    would be kept there (the language server's rule pages) is then worked out afresh."""
    try:
        return root()
    except Exception:  # noqa: BLE001 - whatever platformdirs or the environment raise
        return None


def write_quietly(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, then a
    rename: a reader sees the old file or the new one), creating its folder. A read-only or
    full disk costs speed, never the run: False, and nothing left behind."""
    import tempfile  # with random: only when something is written (about 1 ms at start-up)

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def location(kind: str) -> Path:
    """The folder of one cache: ``results``, ``tier2``, ``verify`` or ``tests`` (the language
    server's rule pages are under ``rules``)."""
    return root() / kind


# The test suite's compiler oracle is slow to rebuild and no part of what ptxlint reuses; the
# benchmarks' corpora and git mirrors (scripts/locations.py) are slow to fetch again.
KEPT_BY_CLEAN = frozenset({"tests", "corpora", "mirrors"})


def clean() -> tuple[Path, int]:
    """Remove every cache ptxlint keeps (not the test suite's oracle): the location and the
    number of bytes freed."""
    where = root()
    freed = 0
    try:
        children = list(where.iterdir())
    except OSError:
        return where, 0
    for child in children:
        if child.name in KEPT_BY_CLEAN:
            continue
        if child.is_dir() and not child.is_symlink():
            for path in child.rglob("*"):
                with contextlib.suppress(OSError):
                    if path.is_file() and not path.is_symlink():
                        freed += path.stat().st_size
            import shutil  # `ptxlint clean` only

            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                freed += child.lstat().st_size
                child.unlink()
    return where, freed


def code_fingerprint(modules: Iterable[str]) -> str:
    """ptxlint's version and the size and modification time of the code ``modules`` come from:
    every file of their top-level package, or the module file itself outside a package."""
    import hashlib

    files: set[str] = set()
    folders: set[str] = set()
    for name in modules:
        module = sys.modules.get(name.split(".")[0])
        file = getattr(module, "__file__", None)
        if not file:
            continue
        file = os.path.abspath(file)
        if os.path.basename(file) == "__init__.py":
            folders.add(os.path.dirname(file))
        else:
            files.add(file)
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            files.update(
                os.path.join(dirpath, n) for n in filenames if n.endswith((".py", ".json"))
            )
    digest = hashlib.sha256(__version__.encode())
    for file in sorted(files):
        try:
            info = os.stat(file)
        except OSError:
            continue
        digest.update(f"{file}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def prune_folder(folder: Path, limit: int, used: Collection[str] = ()) -> int:
    """Remove the least recently used files of a cache folder (its files and those of its
    shards, the subfolders named by two hex digits) until it is under ``limit`` bytes; how
    many went.

    ``used`` names the files the run that just ended read or wrote. A hit refreshes its
    entry's time only now and then (``_TOUCH_AFTER_S``), so by time alone the oldest entries
    are often the ones the run has just read. Pruning those first made a tree whose results
    are near the limit lose a fifth of them after every run and lint that fifth again the next
    time. So every other file goes first, down to ``_PRUNE_TO`` of the limit, and the run's
    own go only when they alone are over it, and then only down to it.

    Linear in the folder's files (one stat each)."""
    entries: list[tuple[bool, float, int, str]] = []
    total = 0
    try:
        top = list(os.scandir(folder))
    except OSError:
        return 0
    files: list[os.DirEntry[str]] = []
    for item in top:
        try:
            if item.is_dir(follow_symlinks=False):
                if _is_shard(item.name):  # not Tier 2's prelude folder, say
                    with os.scandir(item.path) as shard:
                        files.extend(f for f in shard if f.is_file(follow_symlinks=False))
            elif item.is_file(follow_symlinks=False):
                files.append(item)
        except OSError:
            continue
    for entry in files:
        try:
            info = entry.stat()
        except OSError:  # removed meanwhile
            continue
        entries.append((entry.name in used, info.st_mtime, info.st_size, entry.path))
        total += info.st_size
    if total <= limit:
        return 0
    removed = 0
    entries.sort()
    for kept, _, size, path in entries:
        if total <= (limit if kept else limit * _PRUNE_TO):
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _is_shard(name: str) -> bool:
    """The caches shard their entries by the key's first two hex digits."""
    return len(name) == 2 and all(c in "0123456789abcdef" for c in name)


def touch_if_stale(path: Path | str, mtime: float) -> None:
    """Mark a cache entry read just now as recently used, at most once an hour: a warm run then
    writes nothing."""
    if time.time() - mtime > _TOUCH_AFTER_S:
        with contextlib.suppress(OSError):
            os.utime(path)


class ResultCache:
    """Pickled per-file outcomes under ``results/``, one file per key (a content hash: the
    same bytes under the same settings share an entry whatever their path's history). Which
    key a file has, and whether the headers its result read are unchanged, the run learns from
    ``file_index`` without reading the file when its stat is unchanged."""

    def __init__(self, folder: Path, salt: str) -> None:
        self.folder = folder
        self.salt = salt  # version, code and settings shared by every file of the run
        self.hits = 0
        self.writes = 0
        self.used: set[str] = set()  # the keys this process read or wrote

    def key(self, path: str, data: bytes, rules: str) -> str:
        import hashlib

        return self.key_of_digest(path, hashlib.sha256(data).digest(), rules)

    def key_of_digest(self, path: str, digest: bytes, rules: str) -> str:
        """The key of a file whose bytes have this SHA-256 (``file_index`` remembers it)."""
        import hashlib

        blob = f"{SCHEMA}\0{self.salt}\0{rules}\0{path}\0{digest.hex()}"
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / key

    def get(self, key: str, parts: int = 1) -> list[object] | None:
        """The first ``parts`` objects of an entry (``put`` writes them one after the other,
        so a reader that needs less never unpickles the rest), or None."""
        import pickle

        entry = self._entry(key)
        try:
            with open(entry, "rb") as handle:
                values = [pickle.load(handle) for _ in range(parts)]
                mtime = os.fstat(handle.fileno()).st_mtime
        except FileNotFoundError:
            return None
        except Exception:  # a truncated or foreign entry is a miss, never a failure
            return None
        touch_if_stale(entry, mtime)  # recently used: pruning removes the oldest first
        self.hits += 1
        self.used.add(key)
        return values

    def put(self, key: str, *values: object) -> None:
        import pickle

        try:  # one dump per value, as get() loads them
            data = b"".join(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL) for v in values)
        except Exception:  # a value that does not pickle costs speed, never the run
            return
        if write_quietly(self._entry(key), data):  # readers see a whole entry or none
            self.writes += 1
            self.used.add(key)

    def prune(self, limit: int | None = None, used: Collection[str] = ()) -> int:
        """Remove the least recently used entries until the folder is under ``limit`` (default
        ``MAX_RESULTS_BYTES``), the entries of the run that just ended (``used``: the keys it
        read or wrote) last (``prune_folder``)."""
        return prune_folder(self.folder, MAX_RESULTS_BYTES if limit is None else limit, used)
