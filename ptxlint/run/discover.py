"""Finding the files to lint and reading them.

Decisions (documented here because the CLI and the docs lean on them):

* A file named on the command line is always linted, whatever its extension, and even if
  ``exclude`` or a ``.gitignore`` would skip it (like ruff without ``force-exclude``): the user
  asked for it by name. Folders are walked recursively in sorted order and files are kept by
  extension.
* Extensions match case-sensitively, but the all-upper-case spelling of a configured extension is
  accepted too (``.CU``, ``.H``), because Windows tooling and old code bases produce them.
  Mixed case (``.Cu``) is not accepted. Configured extensions without a leading dot get one.
* While walking, ``.gitignore`` files are honored in the walked folder and its subfolders, and in
  its ancestors up to the git root (the nearest folder holding ``.git``; without one, ancestors are
  not consulted, since git itself would not read them). ``.git/info/exclude`` of that root is
  honored too. Each file's patterns are anchored at its own folder; a deeper file overrides a
  shallower one and within a file the last match wins, as in git. Like git, a file inside an
  ignored folder cannot be re-included, because ignored folders are not entered.
* Folders always skipped while walking: VCS metadata and tool caches that never hold user sources
  (see ``ALWAYS_SKIPPED_DIRS``). Other hidden folders are walked: CUDA projects keep sources in
  ``.cuda/`` or ``.github/`` style folders often enough that hiding them would surprise.
* ``exclude`` holds gitignore-style patterns anchored at the current directory. Paths outside the
  current directory are matched by their absolute path without the leading ``/``, so unanchored
  patterns (``build/``, ``*.gen.cu``) still apply to them while anchored ones cannot.
* Symlinks to files and folders are followed. A folder whose real path was already walked is not
  walked again, which ends symlink loops; a file whose real path was already listed is not listed
  again, so ``ptxlint src src/a.cu`` lints ``src/a.cu`` once (first spelling wins).
* A dangling symlink, or a loop of symlinks, met while walking is a note (for a source's name);
  a named path that does not exist is an error.
* Binary (NUL byte in the first 8 KiB) and oversized files are notes, unreadable ones errors.
  ``max_file_size <= 0`` disables the size limit.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from ptxlint import leftovers

if TYPE_CHECKING:
    import re

    import pathspec

    from ptxlint.run.file_index import FileIndex

CXX_EXTENSIONS: tuple[str, ...] = (
    ".cu",
    ".cuh",
    ".h",
    ".hpp",
    ".hh",
    ".hxx",
    ".inl",
    ".cc",
    ".cpp",
    ".cxx",
    ".c",
    # C++ fragments a source #includes in the middle of its own code (ginkgo's CUDA/HIP
    # "memory.nvidia.hpp.inc", desul's atomics); the parse judges what a file holds, not its name
    ".inc",
)
# Triton/CuTe DSL/Numba/CuPy sources too; the Python front end parses only those that mention
# one of its APIs (ptxlint.frontends.python.apis.PREFILTER).
DEFAULT_EXTENSIONS: tuple[str, ...] = (*CXX_EXTENSIONS, ".py", ".jl")
# CUTLASS ships 2.7 MB headers (cute/arch/mma_sm90_gmma_ext.hpp): the limit only keeps out
# generated monsters and stray data files.
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024
ALWAYS_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)
BINARY_SNIFF_BYTES = 8 * 1024
_UTF8_BOM = b"\xef\xbb\xbf"

# Reasons that make a path an error (exit code 2) rather than a note; see ``is_error_reason``.
REASON_MISSING = "does not exist"
REASON_UNREADABLE_PREFIX = "unreadable: "
REASON_DANGLING = "dangling symlink"
REASON_LINK_LOOP = "symlink loop (the link leads back to itself)"
REASON_BINARY = "binary file (NUL byte)"


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class DiscoveredFile:
    """A file to lint, named as the report will show it."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path  # as displayed: relative to how the user spelled the argument, or absolute


class Skipped:
    """A path discovery did not lint, and why: a note (binary, too large) or an error (missing,
    unreadable)."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason


class Discovery:
    """What ``discover`` found under the command-line paths: the files to lint, in order, and the
    paths left out."""

    __slots__ = ("files", "skipped", "errors")

    def __init__(
        self, files: tuple[DiscoveredFile, ...], skipped: tuple[Skipped, ...],
        errors: tuple[Skipped, ...],
    ) -> None:
        self.files = files
        self.skipped = skipped  # notes only
        self.errors = errors  # unreadable or nonexistent paths: exit code 2


def is_error_reason(reason: str) -> bool:
    """Whether a reason from ``read_source`` is an error (exit 2) rather than a note."""
    return reason == REASON_MISSING or reason.startswith(REASON_UNREADABLE_PREFIX)


# --------------------------------------------------------------------------- patterns


@functools.cache
def _pattern_factory() -> Callable[[str], pathspec.Pattern]:
    # The pattern class of pathspec's GitIgnoreSpec, whose regexes mark where a match goes
    # through a folder (the ``ps_d`` group): 1.x's GitIgnoreSpecPattern (its "gitignore" class
    # follows the documentation rather than git, and the name "gitwildmatch" is deprecated),
    # 0.12's GitWildMatchPattern.
    try:
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
    except ImportError:
        from pathspec.patterns.gitwildmatch import GitWildMatchPattern

        return GitWildMatchPattern
    return GitIgnoreSpecPattern


def compile_patterns(lines: Iterable[str], *, strict: bool = False) -> tuple[pathspec.Pattern, ...]:
    """Compile gitignore-style lines one by one.

    Git silently drops a malformed ``.gitignore`` line, so by default so do we; configuration
    passes ``strict=True`` to turn a malformed pattern into an error the user can fix.
    """
    compiled: list[pathspec.Pattern] = []
    for line in lines:
        if not line.strip():
            continue
        import pathspec  # a third of a small run's start-up: only when there are patterns

        try:
            compiled.extend(pathspec.PathSpec.from_lines(_pattern_factory(), [line]).patterns)
        except Exception as exc:  # pathspec raises re.error, ValueError or its own error types
            if strict:
                raise ValueError(f"invalid pattern {line!r}: {exc}") from exc
    return tuple(p for p in compiled if p.include is not None)


_FOLDER_MARK = "ps_d"  # the group pathspec's git patterns put on the ``/`` after a folder
_ANY_FOLDER = f"(?P<{_FOLDER_MARK}>/)"  # pathspec 1.x's regex for ``*/`` and ``**/``


def match_patterns(patterns: Sequence[pathspec.Pattern], rel: str, is_dir: bool) -> bool | None:
    """Git's verdict for ``rel`` (``/``-separated, relative to the patterns' base folder).

    True: ignored; False: re-included by a negation; None: no pattern matched.

    pathspec's GitIgnoreSpec reading: a pattern's regex is searched in the path (the ones for
    ``*``, ``**``, ``*/``, ``**/`` are not anchored), and a match that goes through a folder
    above the path (``ps_d``) ranks below one of the path itself: a later negation that
    matches only a folder (``!*/``) re-includes that folder, not the files in it that an
    earlier pattern excludes, and a pattern that excludes a folder excludes what is in it.
    """
    candidate = rel + "/" if is_dir else rel
    verdict: bool | None = None
    rank = 0
    for pattern in patterns:
        regex = getattr(pattern, "regex", None)
        if regex is None or (match := regex.search(candidate)) is None:
            continue
        if is_dir and match.groupdict().get(_FOLDER_MARK) is None and not regex.search(rel):
            continue  # ``foo/**`` matches what is in foo, not foo
        include = bool(pattern.include)
        through_folder = _through_folder(regex, match, candidate, is_dir)
        if (include and through_folder) or (1 if through_folder else 2) >= rank:
            verdict, rank = include, 1 if through_folder else 2
    return verdict


def _through_folder(
    regex: re.Pattern[str], match: re.Match[str], candidate: str, is_dir: bool
) -> bool:
    """Whether ``match`` matched a folder above ``candidate`` rather than ``candidate`` itself
    (a folder's candidate ends in ``/``: the mark on that ``/`` is the folder itself)."""
    if match.groupdict().get(_FOLDER_MARK) is None:
        return False
    if not is_dir:
        return True
    return regex.pattern != _ANY_FOLDER and match.end(_FOLDER_MARK) != len(candidate)


def _to_posix(rel: str) -> str:
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


class _IgnoreFile:
    """The patterns of one ``.gitignore`` (or ``.git/info/exclude``), with the folder they are
    anchored at. (This and ``_Walker`` are plain classes: a data class costs 0.3 ms of CPU to
    create at every start, and nothing compares or prints these.)"""

    __slots__ = ("base", "patterns", "prefix")

    def __init__(self, base: str, patterns: tuple[pathspec.Pattern, ...]) -> None:
        self.base = base  # absolute folder the patterns are anchored at
        self.patterns = patterns
        self.prefix = base if base.endswith(os.sep) else base + os.sep


def _read_ignore_file(path: str, base: str) -> _IgnoreFile | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            patterns = compile_patterns(handle.read().splitlines())
    except OSError:
        return None  # an unreadable .gitignore should not stop linting
    return _IgnoreFile(base, patterns) if patterns else None


def _ignored_by_stack(stack: Sequence[_IgnoreFile], abspath: str, is_dir: bool) -> bool:
    # Deeper files come later in the stack and override shallower ones, as in git.
    for ignore in reversed(stack):
        # The walk meets each path under the folders of the ignore files on its stack, both
        # spelled from the same absolute root: the relative path is the rest of the string.
        # (``os.path.relpath``, which normalises both paths, was 35% of a walk's CPU over
        # the CUDA 13 headers and CUTLASS's include/ in a git checkout.)
        prefix = ignore.prefix
        if abspath.startswith(prefix):
            rel = _to_posix(abspath[len(prefix):])
        else:
            rel = _to_posix(os.path.relpath(abspath, ignore.base))
        verdict = match_patterns(ignore.patterns, rel, is_dir)
        if verdict is not None:
            return verdict
    return False


def find_git_root(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that holds ``.git`` (a folder or a file)."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _ancestor_ignores(folder: str) -> list[_IgnoreFile]:
    """Ignore files above ``folder`` (exclusive) up to its git root, lowest precedence first."""
    root = find_git_root(folder)
    if root is None:
        return []
    ancestors: list[str] = []
    current = folder
    while current != root:
        current = os.path.dirname(current)
        ancestors.append(current)
    # info/exclude ranks below every .gitignore, so it goes first (including root/.gitignore,
    # which the walk pushes itself when the walked folder is the root).
    candidates = [(os.path.join(root, ".git", "info", "exclude"), root)]
    candidates += [(os.path.join(a, ".gitignore"), a) for a in reversed(ancestors)]
    loaded = (_read_ignore_file(path, base) for path, base in candidates)
    return [ignore for ignore in loaded if ignore is not None]


# --------------------------------------------------------------------------- walking


def _normalize_extensions(extensions: Collection[str]) -> frozenset[str]:
    normalized: set[str] = set()
    for ext in extensions:
        dotted = ext if ext.startswith(".") else "." + ext
        normalized.add(dotted)
        normalized.add(dotted.upper())
    return frozenset(normalized)


_SUFFIXES: dict[frozenset[str], tuple[str, ...]] = {}


def has_extension(name: str, extensions: frozenset[str]) -> bool:
    # endswith rather than splitext so that multi-dot extensions (".cu.inc") can be configured.
    # One str.endswith over them all (a tuple, in C); a name that is itself an extension
    # (".cu") takes the slow way, which wants something before the extension.
    suffixes = _SUFFIXES.get(extensions)
    if suffixes is None:
        suffixes = _SUFFIXES[extensions] = tuple(extensions)
    if not name.endswith(suffixes):
        return False
    return name not in extensions or any(
        name.endswith(ext) and len(name) > len(ext) for ext in extensions
    )


def _display_join(base: str, name: str) -> str:
    if base in (".", "./", "." + os.sep):
        return name  # "./a.cu" is noise; ruff shows "a.cu"
    stripped = base.rstrip("/" + os.sep)
    if not stripped:  # the filesystem root
        return base + name
    return stripped + os.sep + name


class _Walker:
    """One discovery run: the settings it walks with, what it has found so far, and the files and
    folders already seen (so symlinks and repeated arguments count once)."""

    def __init__(
        self,
        extensions: frozenset[str],
        exclude: tuple[pathspec.Pattern, ...],
        respect_gitignore: bool,
        max_file_size: int,
        cwd: str,
        probe: Callable[[str, int], str | None],
        on_file: Callable[[DiscoveredFile], None] | None = None,
    ) -> None:
        self.extensions = extensions
        self.exclude = exclude
        self.respect_gitignore = respect_gitignore
        self.max_file_size = max_file_size
        self.cwd = cwd
        self.probe = probe
        self.on_file = on_file
        self.files: list[DiscoveredFile] = []
        self.skipped: list[Skipped] = []
        self.errors: list[Skipped] = []
        self.seen_files: set[str] = set()
        self.seen_dirs: set[str] = set()

    def excluded(self, abspath: str, is_dir: bool) -> bool:
        if not self.exclude:
            return False
        rel = os.path.relpath(abspath, self.cwd)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            rel = abspath.lstrip("/" + os.sep)
        return bool(match_patterns(self.exclude, _to_posix(rel), is_dir))

    def add_file(self, display: str, realpath: str, named: bool = False) -> None:
        """``named``: given on the command line, where a file over ``max-file-size`` is an
        error (the input asked for was not linted), as standard input over it is; one met
        while walking a folder is skipped with a note."""
        if realpath in self.seen_files:
            return
        self.seen_files.add(realpath)
        reason = self.probe(display, self.max_file_size)
        if reason is None:
            found = DiscoveredFile(display)
            self.files.append(found)
            if self.on_file is not None:
                self.on_file(found)
        elif is_error_reason(reason) or (named and reason == too_large(self.max_file_size)):
            self.errors.append(Skipped(display, reason))
        else:
            self.skipped.append(Skipped(display, reason))

    def add_argument(self, arg: str) -> None:
        if os.path.isdir(arg):
            self.walk_root(arg)
        elif os.path.exists(arg):
            realpath = os.path.realpath(arg)
            leftovers.clean_folder(os.path.dirname(realpath))  # as walking the folder would
            self.add_file(arg, realpath, named=True)
        elif os.path.islink(arg):
            self.errors.append(Skipped(arg, f"{REASON_MISSING} ({REASON_DANGLING})"))
        else:
            self.errors.append(Skipped(arg, REASON_MISSING))

    def walk_root(self, display: str) -> None:
        absolute = os.path.abspath(display)
        stack = _ancestor_ignores(absolute) if self.respect_gitignore else []
        self.walk(display, absolute, stack)

    def walk(
        self, display: str, absolute: str, stack: list[_IgnoreFile], real: str | None = None
    ) -> None:
        """``real``: ``absolute``'s real path, where the caller knows it."""
        real = os.path.realpath(absolute) if real is None else real
        if real in self.seen_dirs:
            return  # symlink loop, or a folder reached twice
        self.seen_dirs.add(real)
        if self.respect_gitignore:
            own = _read_ignore_file(os.path.join(absolute, ".gitignore"), absolute)
            if own is not None:
                stack = [*stack, own]
        try:
            entries = sorted(os.scandir(absolute), key=lambda entry: entry.name)
        except OSError as exc:
            self.errors.append(Skipped(display, _unreadable(exc)))
            return
        for entry in entries:
            self.visit(entry, display, stack, real)

    def visit(
        self,
        entry: os.DirEntry[str],
        parent_display: str,
        stack: list[_IgnoreFile],
        parent_real: str,
    ) -> None:
        display = _display_join(parent_display, entry.name)
        try:
            is_dir = entry.is_dir()  # follows symlinks
            is_file = not is_dir and entry.is_file()
        except OSError as exc:
            if exc.errno == errno.ELOOP and entry.is_symlink():
                # links that lead back to themselves resolve to nothing, as a dangling one:
                # a note for a source's name, else nothing (a stale link is no unreadable input)
                if has_extension(entry.name, self.extensions):
                    self.skipped.append(Skipped(display, REASON_LINK_LOOP))
                return
            self.errors.append(Skipped(display, _unreadable(exc)))
            return
        if not is_dir and not is_file:
            # Only dangling links that look like sources deserve a note; others are noise.
            dangling = entry.is_symlink() and not os.path.exists(entry.path)
            if dangling and has_extension(entry.name, self.extensions):
                self.skipped.append(Skipped(display, REASON_DANGLING))
            return  # sockets, fifos, devices: reading them could block or make no sense
        if is_dir and entry.name in ALWAYS_SKIPPED_DIRS:
            return
        if is_file and leftovers.is_leftover_name(entry.name):
            # a killed --fix's temporary file: gone at the next run that walks here
            leftovers.remove_if_abandoned(entry.path)
            return
        if is_file and not has_extension(entry.name, self.extensions):
            return
        absolute = entry.path  # absolute, because walk() scans absolute paths
        if self.excluded(absolute, is_dir):
            return
        if self.respect_gitignore and _ignored_by_stack(stack, absolute, is_dir):
            return
        if is_dir:
            # a folder that is no link: its real path is its real parent's and its name, as
            # for a plain file below (no ``lstat`` per component of its path)
            real = None if entry.is_symlink() else os.path.join(parent_real, entry.name)
            self.walk(display, absolute, stack, real)
        elif entry.is_symlink():
            self.add_file(display, os.path.realpath(absolute))
        else:
            # a plain file's real path is its real folder's plus its name: no lstat per component
            self.add_file(display, os.path.join(parent_real, entry.name))


def discover(
    paths: Sequence[str],
    *,
    extensions: Collection[str] = DEFAULT_EXTENSIONS,
    exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    probe: Callable[[str, int], str | None] | None = None,
    on_file: Callable[[DiscoveredFile], None] | None = None,
) -> Discovery:
    """Expand ``paths`` into the files to lint, in argument order, folders sorted. ``probe``
    (default ``probe_file``, which reads a file's head) says why a file cannot be linted: the
    runner answers from its file index for files whose stat it knows. ``on_file`` is called
    with each file to lint the moment it is found: the runner's workers start on the first
    files while the walk goes on."""
    walker = _Walker(
        extensions=_normalize_extensions(extensions),
        exclude=compile_patterns(exclude),
        respect_gitignore=respect_gitignore,
        max_file_size=max_file_size,
        cwd=os.getcwd(),
        probe=probe or probe_file,
        on_file=on_file,
    )
    # headers read for the files found so far (their macros, the prefilter's include check)
    # are handed to this walk when it reaches them, not read again (``ReadingProbe``)
    ahead = isinstance(probe, ReadingProbe) and probe.index is None
    if ahead:
        from ptxlint.frontends.cxx import headers

        headers.keep_read_ahead(True)
    # while a run's walk goes on, its include look-ups read folders' listings (each listed
    # once), where a file not there cost a probe of the file system
    listing = isinstance(probe, ReadingProbe)
    if listing:
        from ptxlint.frontends.cxx import include_lookup

        include_lookup.list_folders(True)
    try:
        for arg in paths:
            walker.add_argument(arg)
    finally:
        if ahead:
            headers.keep_read_ahead(False)
        if listing:
            include_lookup.list_folders(False)
    return Discovery(tuple(walker.files), tuple(walker.skipped), tuple(walker.errors))


# --------------------------------------------------------------------------- reading


def _format_size(size: int) -> str:
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def too_large(max_file_size: int) -> str:
    return f"larger than {_format_size(max_file_size)} (max-file-size)"


def _unreadable(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return REASON_MISSING
    if exc.errno is not None and exc.strerror:
        return f"{REASON_UNREADABLE_PREFIX}[Errno {exc.errno}] {exc.strerror}"
    return f"{REASON_UNREADABLE_PREFIX}{exc}"


# A pipe (``ptxlint <(gen)``) has no size to check up front: without a configured limit, stop
# reading it here rather than at the end of memory; and give up on one that sends nothing.
PIPE_HARD_LIMIT = 256 * 1024 * 1024
PIPE_IDLE_TIMEOUT_S = 10.0


def _open(path: str) -> tuple[int, os.stat_result]:
    """Open without blocking (a FIFO with no writer blocks ``open()`` forever) and refuse what
    is neither a regular file nor a pipe: ``/dev/zero`` never ends."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    info = os.fstat(fd)
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        os.close(fd)
        kind = ("a character device" if stat.S_ISCHR(info.st_mode)
                else "a block device" if stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a file")
        raise OSError(f"{kind}, not a regular file or pipe")
    if stat.S_ISREG(info.st_mode):
        os.set_blocking(fd, True)
    return fd, info


def _read_pipe(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of a pipe, waiting at most PIPE_IDLE_TIMEOUT_S for each chunk."""
    import select

    chunks: list[bytes] = []
    size = 0
    while size < limit:
        try:  # read first: a FIFO without a writer reads as end of file but never polls ready
            chunk = os.read(fd, min(1 << 20, limit - size))
        except BlockingIOError:
            ready, _, _ = select.select([fd], [], [], PIPE_IDLE_TIMEOUT_S)
            if not ready:
                raise OSError(f"a pipe that sent nothing for {PIPE_IDLE_TIMEOUT_S:.0f} s") from None
            continue
        if not chunk:
            if not chunks:  # never block in open() waiting for one: say so instead
                raise OSError("a pipe with nothing to read (a FIFO with no writer?)")
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_limited(
    path: str, max_file_size: int
) -> tuple[bytes | None, str | None, os.stat_result | None]:
    """The bytes of ``path``, or why not, and its stat taken before reading (None for a pipe).
    Reads at most one byte past the limit."""
    limited = max_file_size > 0
    info: os.stat_result | None = None
    try:
        fd, info = _open(path)
        try:
            # st_size is meaningless for pipes (``ptxlint <(...)``), so check what was read too.
            if limited and stat.S_ISREG(info.st_mode) and info.st_size > max_file_size:
                return None, too_large(max_file_size), None
            if stat.S_ISFIFO(info.st_mode):
                cap = max_file_size + 1 if limited else PIPE_HARD_LIMIT + 1
                data = _read_pipe(fd, cap)
                if not limited and len(data) > PIPE_HARD_LIMIT:
                    return None, too_large(PIPE_HARD_LIMIT), None
                info = None
            else:
                data = _read_regular(fd, info.st_size, max_file_size + 1 if limited else None)
        finally:
            os.close(fd)
    except OSError as exc:
        return None, _unreadable(exc), None
    if limited and len(data) > max_file_size:
        return None, too_large(max_file_size), None
    return data, None, info


def _read_regular(fd: int, size: int, cap: int | None) -> bytes:
    """The bytes of the regular file open at ``fd``, ``cap`` at most (None: to its end), whose
    stat gave ``size``: read through the descriptor, as many bytes as the stat gives and one
    more, and on to the end (or ``cap``) only where that read found the file another size
    than its stat (``defines.read_header_bytes`` reads headers so). A buffered file's
    ``read(cap)`` made a buffer of ``cap`` bytes per file (the size limit and one: 16 MB) and
    shrank it: the CUDA 13 headers' 1,799 files read so took 49-56 ms of CPU, 11 ms so."""
    data = os.read(fd, size + 1 if cap is None else min(size + 1, cap))
    if len(data) == size or (cap is not None and len(data) >= cap):
        return data
    chunks = [data]
    total = len(data)
    while cap is None or total < cap:
        chunk = os.read(fd, 1 << 20 if cap is None else min(1 << 20, cap - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def probe_file(path: str, max_file_size: int) -> str | None:
    """Why ``path`` cannot be linted (size, binary, unreadable), reading only its head."""
    try:
        fd, info = _open(path)
        try:
            if max_file_size > 0 and stat.S_ISREG(info.st_mode) and info.st_size > max_file_size:
                return too_large(max_file_size)
            if not stat.S_ISREG(info.st_mode):
                return None  # never read a pipe twice: read_source decides for those
            head = os.read(fd, BINARY_SNIFF_BYTES)
        finally:
            os.close(fd)
    except OSError as exc:
        return _unreadable(exc)
    return REASON_BINARY if b"\0" in head else None


def decode_source(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 without ever failing; report whether bytes had to be replaced.

    A leading BOM is dropped so that it cannot end up inside the first token; columns on the
    first line are therefore counted from after the BOM (what editors show, too).
    ``\\r\\n`` is kept: spans are offsets into the text as it is on disk, minus the BOM.
    """
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def read_bytes(path: str, max_file_size: int) -> tuple[bytes | None, str | None]:
    """``(data, reason)``: the raw bytes of a lintable file, or why it cannot be linted."""
    data, reason, _ = read_bytes_stat(path, max_file_size)
    return data, reason


def read_bytes_stat(
    path: str, max_file_size: int
) -> tuple[bytes | None, str | None, os.stat_result | None]:
    """``read_bytes`` and the file's stat, taken before its bytes were read (None for a pipe
    or when not read): what the result cache's file index records."""
    data, reason, info = _read_limited(path, max_file_size)
    if data is None:
        return None, reason, None
    if _has_nul(data):
        return None, REASON_BINARY, None
    return data, None, info


class ReadingProbe:
    """Discovery's probe (why a file cannot be linted), which reads the whole file: the
    runner, handed that file next (``on_file``), takes those bytes (``take``) rather than
    opening it again. A probe of the file's head cost an open, a stat and a read more per file
    (5,248 opens for the CUDA headers' and CUTLASS's 2,624 files instead of 2,624). A file whose
    stat the index knows is not read at all: it was read whole before, so neither too large
    then nor binary. Without an index, a file already read in this walk as another file's
    header is taken from those bytes (``headers.take_read_ahead``): the CUDA 13 headers'
    walk reads 1,468 of its 1,799 files so, CUTLASS include/'s 569 of 825. (With an index,
    the stat it records must come from before the bytes were read: those files are read
    again.)"""

    def __init__(self, index: FileIndex | None = None) -> None:
        self.index = index
        self._kept: tuple[str, int, bytes, os.stat_result | None] | None = None

    def __call__(self, path: str, max_file_size: int) -> str | None:
        index = self.index
        if index is not None:
            record = index.known(os.path.abspath(path))
            if record is not None and record[0] is not None and (
                max_file_size <= 0 or record[0][0] <= max_file_size
            ):
                return None
        data = None
        if index is None:
            from ptxlint.frontends.cxx import headers

            data = headers.take_read_ahead(os.path.abspath(path))
        if data is not None:
            reason = _reason_against(data, max_file_size)
            st = None
        else:
            data, reason, st = read_bytes_stat(path, max_file_size)
        if data is None or reason is not None:
            return reason
        self._kept = (path, max_file_size, data, st)
        return None

    def take(
        self, path: str, max_file_size: int
    ) -> tuple[bytes | None, str | None, os.stat_result | None]:
        """``read_bytes_stat(path, max_file_size)``: what the probe of ``path`` read, if it was
        the last probed, else read now."""
        kept, self._kept = self._kept, None
        if kept is not None and kept[0] == path and kept[1] == max_file_size:
            return kept[2], None, kept[3]
        return read_bytes_stat(path, max_file_size)


def _reason_against(data: bytes, max_file_size: int) -> str | None:
    """What ``read_bytes_stat`` says of a regular file whose bytes are ``data``."""
    if max_file_size > 0 and len(data) > max_file_size:
        return too_large(max_file_size)
    if _has_nul(data):
        return REASON_BINARY
    return None


def _has_nul(data: bytes) -> bool:
    """A NUL among the first ``BINARY_SNIFF_BYTES`` bytes: found in place, where ``in`` of a
    slice copied them and made and dropped a TypeError (``bytes.__contains__`` asks its
    operand for an integer first)."""
    return data.find(b"\0", 0, BINARY_SNIFF_BYTES) >= 0


def is_valid_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_source(path: str, max_file_size: int) -> tuple[str | None, bool, str | None]:
    """``(text, had_decode_errors, reason)``: ``reason`` is set exactly when ``text`` is None.

    Use ``is_error_reason(reason)`` to tell errors (unreadable, missing) from notes (binary,
    too large).
    """
    data, reason = read_bytes(path, max_file_size)
    if data is None:
        return None, False, reason
    text, replaced = decode_source(data)
    return text, replaced, None
