"""What the result cache knows about a file without reading it: one stat index per cache salt.

A warm run over an unchanged tree should cost about a stat per file. The index maps each file
(absolute path) to what the last run learnt from its bytes: their SHA-256 (the real key of a
result, ``cache.ResultCache``), the prefilter's verdict (most files of a tree hold no asm), and
the headers that verdict or result depends on (``include_graph``), and remembers each such
header and each watched folder the same way. A file whose stat matches is neither read nor
hashed; its result is looked up by the remembered digest once every header it depends on is
checked unchanged, by stat again.

What a match guarantees, and why: a record keeps a file's size, modification and status-change
times (nanoseconds), inode and device. Any write to a file moves its ctime to the time of the
write, and nothing but the kernel sets ctime (``touch -d`` and ``tar`` set mtime only), so an
equal ctime means an unchanged file, but for one trap: a write within the timestamp's
granularity after the file was read (1-2 s on some file systems, a clock tick elsewhere) leaves
the times equal. So, as git does with its racily clean entries, a stat is trusted only when the
file's times are more than ``RACY_MARGIN_NS`` older than the start of the run that read it;
otherwise the record keeps the digest but no stat, and the next run reads and hashes the file
again (and, finding the same bytes, keeps what it knew). A file whose stat changed but whose
bytes did not (``touch``, a checkout) is read and hashed once, not linted. An include's missed
candidates are watched by path (still no regular file); a folder holding a link to a header by
its modification time, which creating, removing or renaming an entry moves, trusted as files are.
On file systems whose ctime is not a change time (Windows reports the creation time) the
guarantee rests on the modification time alone. Not noticed: a folder on the way to a header
replaced by a link to another folder holding the very same file (same inode and times).

Costs: loading and saving are linear in the records (one pickle per salt, rewritten only when
something changed); a warm run stats each file once, each header and watched folder of the
include graph once, and walks the graph's edges once (``deps_valid`` marks what it proved).
The index is bounded: past ``MAX_FILES`` records, those the run did not see are dropped, and
only the ``KEEP_INDEXES`` most recently used indexes are kept.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ptxlint.frontends.cxx import headers
from ptxlint.graphs import components
from ptxlint.run import include_graph
from ptxlint.run.cache import write_quietly

# hashlib and pickle (4 ms together) are imported where they are used: the runner imports this
# module for every run, and only a run with the result cache opens an index.

FORMAT = 3  # 3: a missed include candidate is watched as a path (ABSENT), not by its folder
RACY_MARGIN_NS = 2_000_000_000
MAX_FILES = 200_000
KEEP_INDEXES = 8
# What a watched path's entry holds when the path was no regular file: it still is not one
# (``headers.find_header`` takes the first candidate that is a file), whatever else happens
# around it. A folder's entry holds its modification time.
ABSENT = -1

# verdicts
NO_ASM = 0  # the prefilter says no statement can be in the file (helpers not asked about)
MAY_HOLD_ASM = 1  # linted: its result is in the result cache under its digest
# No statement, but asked, for a run with a rule that needs ``helper-calls``, whether the file
# names an asm helper of a project header it includes (``prefilter.calls_included_helper``):
# it does (linted for such a rule), or not. A default run never asks, nor pays for the answer.
CALLS_HELPERS = 2
NO_HELPERS = 3

Sig = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device
# a file: (sig or None when not trusted, digest, verdict, not valid UTF-8,
#          headers it includes directly or None when it depends on none, folders it watches,
#          fingerprint of the headers it depends on: part of its result's key)
Record = tuple[Sig | None, bytes, int, bool, tuple[str, ...] | None, tuple[str, ...], bytes]
# a header: (sig or None, digest, headers it includes, folders it watches)
Node = tuple[Sig | None, bytes, tuple[str, ...], tuple[str, ...]]


def signature(st: os.stat_result) -> Sig:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def digest_of(data: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(data).digest()


class FileIndex:
    """The index of one cache salt, loaded for one run that started at ``started_ns``."""

    def __init__(self, path: Path, started_ns: int) -> None:
        self.path = path
        self.trusted_before = started_ns - RACY_MARGIN_NS
        self.files: dict[str, Record] = {}
        self.nodes: dict[str, Node] = {}
        self.dirs: dict[str, int | None] = {}
        self.changed = False
        import pickle

        try:
            with open(path, "rb") as handle:
                loaded = pickle.load(handle)
            if loaded[0] == FORMAT:
                _, self.files, self.nodes, self.dirs = loaded
        except Exception:  # missing, truncated or foreign: start empty
            pass
        self._stats: dict[str, os.stat_result | None] = {}
        self._seen: set[str] = set()
        self._proven: set[str] = set()  # headers whose whole closure is unchanged
        self._broken: set[str] = set()  # headers whose closure holds a change
        self._dirs_ok: dict[str, bool] = {}
        self._recorded: set[str] = set()  # headers recorded by this run
        self._fingerprints: dict[str, bytes] = {}

    # ------------------------------------------------------------------ stats

    def stat(self, path: str) -> os.stat_result | None:
        """``os.stat`` (following links), once per path and run."""
        if path in self._stats:
            return self._stats[path]
        try:
            st: os.stat_result | None = os.stat(path)
        except OSError:
            st = None
        self._stats[path] = st
        return st

    def _trusted(self, st: os.stat_result) -> Sig | None:
        if max(st.st_mtime_ns, st.st_ctime_ns) < self.trusted_before:
            return signature(st)
        return None

    def known(self, path: str) -> Record | None:
        """The record of ``path`` (absolute) when its stat shows it unchanged since."""
        record = self.files.get(path)
        if record is None or record[0] is None:
            return None
        st = self.stat(path)
        if st is None or signature(st) != record[0]:
            return None
        self._seen.add(path)
        return record

    def prior(self, path: str, digest: bytes) -> Record | None:
        """The record of ``path`` if its bytes are still ``digest`` (the stat moved, the
        contents did not)."""
        record = self.files.get(path)
        return record if record is not None and record[1] == digest else None

    # ------------------------------------------------------------------ dependencies

    def _dir_ok(self, watched: str) -> bool:
        """A watched path is as recorded: a missed include candidate is still no regular file
        (one stat: unrelated entries created beside it, in a busy folder such as /tmp or a
        home folder above the tree, change nothing), a folder holding a link to a header still
        has its modification time."""
        ok = self._dirs_ok.get(watched)
        if ok is None:
            recorded = self.dirs.get(watched)
            st = self.stat(watched)
            if recorded == ABSENT:
                ok = st is None or not stat.S_ISREG(st.st_mode)
            else:
                ok = (recorded is not None and st is not None and stat.S_ISDIR(st.st_mode)
                      and st.st_mtime_ns == recorded)
            self._dirs_ok[watched] = ok
        return ok

    def _node_ok(self, real: str) -> bool:
        """The header itself and the folders deciding its includes are unchanged."""
        node = self.nodes.get(real)
        if node is None:
            return False
        st = self.stat(real)
        if st is None:
            return False
        if node[0] is None or signature(st) != node[0]:
            # the stat moved: unchanged bytes still count (a touch, a checkout)
            if not node[1]:
                return False
            try:
                with open(real, "rb") as handle:
                    same = digest_of(handle.read()) == node[1]
                sig = self._trusted(os.stat(real))
            except OSError:
                return False
            if not same:
                return False
            self.nodes[real] = (sig, node[1], node[2], node[3])
            self.changed = True
        return all(self._dir_ok(folder) for folder in node[3])

    def deps_valid(self, record: Record) -> bool:
        """Whether every header ``record`` depends on, transitively, and every folder watching
        its includes is unchanged: a depth-first walk that stops at headers already proven
        (or found broken) in this run, so a run walks each edge about once."""
        includes, watch = record[4], record[5]
        if includes is None:
            return True
        if not all(self._dir_ok(folder) for folder in watch):
            return False
        walked: list[str] = []
        stack = list(includes)
        visiting: set[str] = set()
        ok = True
        while stack:
            real = stack.pop()
            if real in self._proven or real in visiting:
                continue
            if real in self._broken or not self._node_ok(real):
                self._broken.add(real)
                ok = False
                break
            visiting.add(real)
            walked.append(real)
            stack.extend(self.nodes[real][2])
        if ok:
            self._proven.update(walked)
        return ok

    # ------------------------------------------------------------------ recording

    def put(
        self,
        path: str,
        st: os.stat_result | None,
        digest: bytes,
        verdict: int,
        invalid_utf8: bool,
        deps: tuple[tuple[str, ...], tuple[str, ...]] | None,
        fingerprint: bytes | None = None,
    ) -> Record:
        """Remember what this run learnt from ``path``'s bytes (``st``: their stat, taken
        before they were read), recording the headers ``deps`` reach as this run read them
        (``fingerprint``: theirs when known to be unchanged)."""
        includes, watch = deps if deps is not None else (None, ())
        if includes is not None:
            self._record_dirs(watch)
            if fingerprint is None:
                self._record_graph(includes)
                fingerprint = self.fingerprint(includes)
        sig = self._trusted(st) if st is not None else None
        record: Record = (sig, digest, verdict, invalid_utf8, includes, watch, fingerprint or b"")
        self._seen.add(path)
        if self.files.get(path) != record:
            self.files[path] = record
            self.changed = True
        return record

    def fingerprint(self, includes: Iterable[str]) -> bytes:
        """A digest of the headers ``includes`` reach as recorded in this run: each header's
        path and bytes, over the include graph (a Merkle hash over its strongly connected
        components, so each header is hashed once per run however many files reach it)."""
        import hashlib

        h = hashlib.sha256()
        for real in includes:
            h.update(self._fingerprint(real))
        return h.digest()

    def _children(self, real: str) -> tuple[str, ...]:
        node = self.nodes.get(real)
        return node[2] if node is not None else ()

    def _fingerprint(self, root: str) -> bytes:
        """Tarjan's components (iterative): every member of a component gets the hash of its
        members' paths and digests and of the fingerprints of the components it includes."""
        done = self._fingerprints
        if root in done:
            return done[root]
        import hashlib

        for members in components(root, self._children, done):
            inside = set(members)
            outside = sorted({done[c] for m in members for c in self._children(m)
                              if c not in inside})
            h = hashlib.sha256()
            for member in sorted(members):
                recorded = self.nodes.get(member)
                h.update(member.encode("utf-8", "surrogatepass") + b"\0")
                h.update(recorded[1] if recorded is not None else b"?")
            for part in outside:
                h.update(part)
            value = h.digest()
            for member in members:
                done[member] = value
        return done[root]

    def _record_dirs(self, watched: Iterable[str]) -> None:
        for path in watched:
            st = self.stat(path)
            value: int | None
            if st is None or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                value = ABSENT
            elif stat.S_ISDIR(st.st_mode) and st.st_mtime_ns < self.trusted_before:
                value = st.st_mtime_ns
            else:  # a folder changed during the run, or a candidate that became a file
                value = None
            if self.dirs.get(path, -2) != value:
                self.dirs[path] = value
                self.changed = True

    def _record_graph(self, includes: Iterable[str]) -> None:
        """Record each header reachable from ``includes`` once per run, as this run's macro
        tables read it (a header read again here after a change is untrusted: its stat was
        taken after the run started, so its times fall inside the margin)."""
        stack = [r for r in includes if r not in self._recorded]
        while stack:
            real = stack.pop()
            if real in self._recorded:
                continue
            self._recorded.add(real)
            children, watch = include_graph.of_header(real)  # read now unless it was
            # The digest of the bytes this run's macro tables read, and a stat taken after that
            # read: a change before it shows in the times, a change after it in the next
            # run's stat (and then the digest, of what was read, no longer matches).
            digest = headers.header_digest(real) or b""
            try:
                sig = self._trusted(os.stat(real))
            except OSError:
                sig = None
            node: Node = (sig, digest, children, watch)
            if self.nodes.get(real) != node:
                self.nodes[real] = node
                self.changed = True
            self._record_dirs(watch)
            stack.extend(c for c in children if c not in self._recorded)

    # ------------------------------------------------------------------ saving

    def save(self) -> None:
        """Write the index when the run changed it (atomically: a reader sees the old or the
        new one); a failure costs the next run speed, never a wrong result."""
        if not self.changed:
            with contextlib.suppress(OSError):
                os.utime(self.path)  # recently used: the oldest indexes are dropped first
            return
        if len(self.files) > MAX_FILES:
            self.files = {p: r for p, r in self.files.items() if p in self._seen}
            reachable: set[str] = set()
            stack = [h for r in self.files.values() for h in (r[4] or ())]
            while stack:
                real = stack.pop()
                if real in reachable or real not in self.nodes:
                    continue
                reachable.add(real)
                stack.extend(self.nodes[real][2])
            self.nodes = {h: n for h, n in self.nodes.items() if h in reachable}
            watched = {d for r in self.files.values() for d in r[5]}
            watched.update(d for n in self.nodes.values() for d in n[3])
            self.dirs = {d: m for d, m in self.dirs.items() if d in watched}
        import pickle

        try:
            data = pickle.dumps(
                (FORMAT, self.files, self.nodes, self.dirs), protocol=pickle.HIGHEST_PROTOCOL
            )
        except Exception:  # the index only saves time: never the run's end
            data = None
        if data is not None and write_quietly(self.path, data):
            self.changed = False
        _drop_old_indexes(self.path.parent)


def _drop_old_indexes(folder: Path) -> None:
    try:
        found = [(e.stat().st_mtime, e.path) for e in os.scandir(folder)
                 if e.is_file() and not e.name.startswith(".")]
    except OSError:
        return
    found.sort(reverse=True)
    for _, path in found[KEEP_INDEXES:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def open_index(folder: Path, salt: str, started_ns: int) -> FileIndex:
    """The index of runs with this salt (version, code, rule set and include folders)."""
    import hashlib

    name = hashlib.sha256(salt.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return FileIndex(folder / name, started_ns)
