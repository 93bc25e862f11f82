"""Where ``#include "name"`` from a file finds its header: next to the file, in a folder above
it or that folder's ``include/``, or in the project's include folders (``candidates``), each
(folder, name) looked for once per process, with as few file-system probes as the climb allows,
and the real path of what it finds."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence

from ptxlint.frontends.cxx.defines import MAX_ANCESTORS

_FOUND: dict[tuple[str, str], str | None] = {}  # ``find_header``'s
# (folder, include name) -> the real path ``#include name`` from a file in that folder reads
# (``find_header``, then ``real_path``), None where none is found: a header's include lines
# and a file's resolved with one look-up each once their (folder, name) has been met.
_RESOLVED: dict[tuple[str, str], str | None] = {}


def resolved(base: str, name: str) -> str | None:
    key = (base, name)
    real = _RESOLVED.get(key, _UNASKED)
    if real is _UNASKED:
        found = find_header(base, name)
        real = _RESOLVED[key] = None if found is None else real_path(found)
    return real


_REALPATHS: dict[str, str] = {}


def real_path(path: str) -> str:
    """``os.path.realpath(path)``, memoised, and through the memoised real path of its folder
    where its last component is no symbolic link (what realpath then returns): one ``lstat``
    per header instead of one per component of its path."""
    real = _REALPATHS.get(path)
    if real is None:
        folder, name = os.path.split(path)
        if folder and name not in ("", ".", "..") and folder != path and not _is_in(
            folder, name, path, os.path.islink, os.DirEntry.is_symlink
        ):
            real = os.path.join(real_path(folder), name)
        else:
            real = os.path.realpath(path)
        _REALPATHS[path] = real
    return real


# A project's own include folders (``-I`` of its compile_commands.json that lie inside the
# linted tree; never system or toolkit folders), searched after the including file's folders.
_INCLUDE_DIRS: tuple[str, ...] = ()


def set_include_dirs(folders: Sequence[str]) -> bool:
    """Search ``folders`` too for includes; whether that changed them (what was found
    before is then forgotten)."""
    global _INCLUDE_DIRS
    folders = tuple(folders)
    if folders == _INCLUDE_DIRS:
        return False
    _INCLUDE_DIRS = folders
    _FOUND.clear()
    _RESOLVED.clear()
    return True


def forget() -> None:
    """Look again from now on: a run finds its headers as they are when it starts."""
    for memo in (_FOUND, _RESOLVED, _HOLDERS, _HEIGHTS, _IS_FILE, _REALPATHS, _FOLDERS,
                 _LISTINGS, _FIRST_FILE, _NAME_PARTS):
        memo.clear()
    _HELD[0] = 0


def candidates(base: str, name: str) -> Iterator[str]:
    """Where ``#include "name"`` from a file in ``base`` is looked for, in order: next to it,
    as the compiler looks first, else in a folder above it or that folder's ``include/``
    (``#include "cutlass/cutlass.h"`` from deep inside a tree whose root, or whose root's
    ``include/``, is on the include path), else in the project's include folders. The first
    that is a file is the header (``find_header``)."""
    folder = base
    for _ in range(MAX_ANCESTORS + 1):
        yield os.path.normpath(os.path.join(folder, name))
        yield os.path.normpath(os.path.join(folder, "include", name))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for folder in _INCLUDE_DIRS:
        yield os.path.normpath(os.path.join(folder, name))


def find_header(base: str, name: str) -> str | None:
    """The header ``#include "name"`` from a file in ``base`` reads: the first of
    ``candidates`` that is a file, memoised per (folder, name)."""
    key = (base, name)
    if key in _FOUND:
        return _FOUND[key]
    found = _found_above(base, name, MAX_ANCESTORS)
    if found is None:
        found = next(
            (c for c in (os.path.normpath(os.path.join(f, name)) for f in _INCLUDE_DIRS)
             if os.path.isfile(c)),
            None,
        )  # fmt: skip
    _FOUND[key] = found
    return found


def _found_above(folder: str, name: str, above: int) -> str | None:
    """The first of ``candidates``' paths from ``folder`` up, ``above`` more folders at most,
    that is a file. A name's folder part is looked for once per folder (``_holders``: the
    folders up the climb that hold it), so a look-up asks whether a file is there only in the
    few folders that can hold it. The CUDA 13 headers' include graph, as the prefilter walks
    it (4,436 look-ups, each climbing up to nine folders): 25,100 probes of a folder and a
    name (7,328 ``stat`` calls) and 11,100 ``dirname`` calls became 3,944 probes of a folder
    and 6,685 ``stat`` calls, and the look-ups' CPU went 38-44 ms -> 30-31 ms. A name is
    then looked for once per holders tuple (``_FIRST_FILE``) rather than once per folder, and
    names and probed paths are not split again per look-up: the prefilter alone over the CUDA
    13 headers (``check``'s include check of their 1,681 files, instructions counted by
    cachegrind) 1,812 M -> 1,758 M."""
    parts = _NAME_PARTS.get(name)
    if parts is None:
        parts = _NAME_PARTS[name] = os.path.split(name)
    folder_part, leaf = parts
    if leaf in ("", ".", ".."):
        return _odd_found_above(folder, name, above)
    holders = _holders(folder, folder_part)
    # keyed by the holders' identity: ``_HOLDERS`` keeps each tuple (and so its id) until
    # ``forget``, which clears this memo with it
    key = (id(holders), leaf)
    hit = _FIRST_FILE.get(key, _UNPROBED)
    if hit is _UNPROBED:
        hit = _FIRST_FILE[key] = _first_file(holders, leaf)
    if hit is None or hit[0] < _height(folder) - above:
        return None  # (holders come highest first: none after it is within the climb)
    return hit[1]


def _first_file(holders: _Holders, leaf: str) -> tuple[int, str] | None:
    """The first of ``holders`` that holds the file ``leaf``, with its height and that
    file's path; None where none does."""
    is_file = _IS_FILE
    for height, holder, folder in holders:
        path = holder + leaf
        found = is_file.get(path)
        if found is None:
            found = is_file[path] = _is_in(folder, leaf, path, os.path.isfile,
                                           os.DirEntry.is_file)
        if found:
            return height, path
    return None


def _odd_found_above(folder: str, name: str, above: int) -> str | None:
    """``_found_above`` for a name ending in "/", "." or "..": no file, unless the platform
    says otherwise; each candidate asked as written."""
    while True:
        for candidate in (os.path.join(folder, name), os.path.join(folder, "include", name)):
            path = os.path.normpath(candidate)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(folder)
        if above <= 0 or parent == folder:
            return None
        folder, above = parent, above - 1


# (folder, folder part of an include name) -> the folders that hold that part (each ending in
# a separator), as the climb from ``folder`` meets them, each with the height of the folder it
# was looked for from: ``folder/part`` then ``folder/include/part``, then the same from the
# parent, up to the top (the look-up applies the climb's bound, through the heights). One
# entry per folder of the include graph and folder part asked, each made from its parent's.
# (height, the folder with a separator after it, the folder)
_Holders = tuple[tuple[int, str, str], ...]
_HOLDERS: dict[tuple[str, str], _Holders] = {}
_HEIGHTS: dict[str, int] = {}  # folder -> how many folders lie above it (``os.path.dirname``)
_IS_FILE: dict[str, bool] = {}  # a probed path -> whether it is a file
# (id of a ``_HOLDERS`` tuple, an include name's last component) -> the first of those holders
# that holds that file, as (height, path), or None (``_first_file``). Most folders of a tree
# hold none of an include's folder part themselves and share their parent's holders tuple, so
# a name is looked for once per tuple, not once per folder it is included from, and each
# folder's answer is that one cut to its climb's bound.
_FIRST_FILE: dict[tuple[int, str], tuple[int, str] | None] = {}
_UNPROBED = (-1, "")  # ``_FIRST_FILE``'s "not asked yet"
# an include name or a folder part of one -> ``os.path.split`` of it: the same names are
# included from folder after folder
_NAME_PARTS: dict[str, tuple[str, str]] = {}


def _height(folder: str) -> int:
    height = _HEIGHTS.get(folder)
    if height is not None:
        return height
    below = []  # from ``folder`` up to the first folder whose height is known, or the top
    while height is None:
        below.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            height = -1
        else:
            folder = parent
            height = _HEIGHTS.get(folder)
    for folder in reversed(below):
        height += 1
        _HEIGHTS[folder] = height
    return height


def _holders(folder: str, folder_part: str) -> _Holders:
    key = (folder, folder_part)
    found = _HOLDERS.get(key)
    if found is not None:
        return found
    climbed = []  # folders whose entry is made here, from the top of the climb down
    step = folder
    while True:
        climbed.append(step)
        parent = os.path.dirname(step)
        if parent == step:
            above: _Holders = ()
            break
        known = _HOLDERS.get((parent, folder_part))
        if known is not None:
            above = known
            break
        step = parent
    under_include = os.path.join("include", folder_part)
    for step in reversed(climbed):
        height = _height(step)
        own = tuple(
            # with a separator after: ``holder + leaf``
            (height, os.path.join(holder, ""), holder)
            for holder in (_holder(step, folder_part), _holder(step, under_include))
            if holder is not None
        )
        above = _HOLDERS[(step, folder_part)] = own + above if own else above
    return above


def _holder(folder: str, folder_part: str) -> str | None:
    """``os.path.normpath(os.path.join(folder, folder_part))`` where that is a folder, else
    None; asked once per (folder, folder part): most probes are of folders that do not exist
    (an include of ``cuda/std/...`` looked for next to each header and above it).

    A part whose last component is a plain name is a folder only inside a folder: where its
    parent part is none (asked the same way, so once per folder and parent part), it is none
    either, without a probe. Most parts asked share their first component (``cuda/``,
    ``include/``), so a folder is probed once for it instead of once per part: the CUDA 13
    headers' include graph asked 3,944 parts of folders, 934 distinct first components."""
    key = (folder, folder_part)
    holder = _FOLDERS.get(key, _UNASKED)
    if holder is _UNASKED:
        parts = _NAME_PARTS.get(folder_part)
        if parts is None:
            parts = _NAME_PARTS[folder_part] = os.path.split(folder_part)
        parent, last = parts
        if parent and last not in ("", ".", "..") and _holder(folder, parent) is None:
            holder = None
        else:
            holder = os.path.normpath(os.path.join(folder, folder_part))
            holder = holder if _is(holder, os.path.isdir, os.DirEntry.is_dir) else None
        _FOLDERS[key] = holder
    return holder


# (folder, folder part of an include name) -> that folder, normalised, where it is one, else
# None (``_holder``).
_FOLDERS: dict[tuple[str, str], str | None] = {}
_UNASKED = ""  # neither a path nor None: a memo's "not asked yet"


# --------------------------------------------------------------------------- folders listed

def is_file(path: str) -> bool:
    """``os.path.isfile(path)``, answered from its folder's listing while a walk lists
    folders (``_is``), memoised until ``forget``."""
    found = _IS_FILE.get(path)
    if found is None:
        found = _IS_FILE[path] = _is(path, os.path.isfile, os.DirEntry.is_file)
    return found


def list_folders(on: bool) -> None:
    """While on, answer look-ups from folder listings (``_is``): a walk of the tree is under
    way, which takes the tree as it is when walked; off, forget the listings (a process that
    lints on, as the language server does, sees a header created since)."""
    _LISTING[0] = on
    if not on:
        _LISTINGS.clear()
        _HELD[0] = 0


_LISTING = [False]
if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    # a pool's worker, forked while the walk goes on, may outlive it: it probes each path
    os.register_at_fork(after_in_child=lambda: list_folders(False))


# A folder -> its entries by name, listed once per walk (``_is``); None where it cannot be
# listed, holds more than ``MAX_LISTED`` entries, may find a name in another case, or the
# listings already hold ``MAX_LISTINGS_HELD`` entries in all.
_LISTINGS: dict[str, dict[str, os.DirEntry[str]] | None] = {}
MAX_LISTED = 10_000
MAX_LISTINGS_HELD = 200_000
_HELD = [0]  # entries held in ``_LISTINGS``


def _is(path: str, probe: Callable[[str], bool], kind: Callable[[os.DirEntry[str]], bool]) -> bool:
    """``probe(path)`` (``os.path.isfile``, ``isdir`` or ``islink``), answered from the
    listing of the folder that holds ``path`` (``kind`` of its entry; none: False) while a
    walk lists folders (``list_folders``), where that folder can be listed and ``path``'s last
    component names an entry only as spelled.

    Most look-ups ask for a name that is not there (an include looked for next to each
    header and in the folders above it), and a ``stat`` that finds nothing costs the most on
    layered file systems; a folder is listed once instead, and a listing's entry tells a
    file, a folder and a link apart without a system call (but for a link, which is
    followed). The CUDA 13 headers' prefilter: 3,744 ``stat`` (1,715 finding nothing) and
    2,839 ``lstat`` calls became 134 listings, 133 ``lstat`` calls (a listed folder's case,
    ``_listed``) and 10 ``stat`` calls; the system CPU of a walk that asks the prefilter of
    each file went 0.15-0.18 s -> 0.11-0.14 s."""
    if not _LISTING[0]:
        return probe(path)
    folder, name = os.path.split(path)
    return _is_in(folder, name, path, probe, kind)


def _is_in(
    folder: str,
    name: str,
    path: str,
    probe: Callable[[str], bool],
    kind: Callable[[os.DirEntry[str]], bool],
) -> bool:
    """``_is`` of ``path``, which is ``name`` in ``folder`` (``os.path.split`` of it)."""
    if not _LISTING[0] or not _plain(name):
        return probe(path)
    listing = _LISTINGS.get(folder, _UNLISTED)
    if listing is _UNLISTED:
        listing = _LISTINGS[folder] = _listed(folder)
    if listing is None:
        return probe(path)
    entry = listing.get(name)
    if entry is None:
        return False
    try:
        return kind(entry)
    except OSError:
        return probe(path)


_UNLISTED: dict[str, os.DirEntry[str]] = {}  # the memo's "not listed yet"


def _plain(name: str) -> bool:
    """Whether ``name`` names a folder's entry only as spelled, whatever the platform: ASCII
    (no Unicode normalisation), and none of Windows' short names (``~``), streams (``:``) or
    trailing dots and blanks."""
    return (
        bool(name) and name.isascii() and name not in (".", "..")
        and "~" not in name and ":" not in name and name[-1] not in ". "
    )


def _listed(folder: str) -> dict[str, os.DirEntry[str]] | None:
    """``folder``'s entries by name, where it can be listed and finds names only in the case
    they are spelled in (a case-insensitive folder finds an entry's name with its letters'
    case swapped: one probe tells), else None."""
    room = min(MAX_LISTED, MAX_LISTINGS_HELD - _HELD[0])
    try:
        with os.scandir(folder or os.curdir) as entries:
            listing: dict[str, os.DirEntry[str]] = {}
            for entry in entries:
                listing[entry.name] = entry
                if len(listing) > room:
                    return None
    except OSError:
        return None
    for name in listing:
        swapped = name.swapcase()
        if swapped != name and _plain(name):
            # two entries one case apart: the folder tells case apart
            if swapped not in listing and os.path.lexists(os.path.join(folder, swapped)):
                return None
            break
    # (no name with a letter: a name with one matches nothing in any case)
    _HELD[0] += len(listing)
    return listing
