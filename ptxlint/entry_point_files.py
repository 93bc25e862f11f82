"""One entry-point group, read straight from the installed distributions' metadata folders.

``importlib.metadata.entry_points(group=...)`` imports ``importlib.metadata`` (with ``email``,
``zipfile`` and ``csv``: about 20 ms) and then parses every distribution's ``entry_points.txt``,
each line into an ``EntryPoint`` object, to keep one group. ``read_group`` finds the same
entry points in the same order by walking the same folders the same way, and parses only the
files that name the group: one ``open`` per distribution. A small file's first check in an
environment of 72 distributions took 145 ms with the metadata scan and 123 ms without it; an
environment of hundreds of distributions (a machine learning host's system Python) paid more.

What it follows, as ``importlib.metadata`` does on Python 3.10 to 3.13:

* distributions come from ``sys.meta_path``'s finders that answer ``find_distributions``;
  the standard ``PathFinder`` searches each ``sys.path`` entry in order for children whose
  names end in ``.dist-info`` or ``.egg-info`` (in any case), in the folder's listing order;
* a distribution's name is its folder's name up to the first ``-``, normalized as PEP 503
  with ``_`` (``Foo.Bar-1.0.dist-info`` is ``foo_bar``); the first distribution of a name wins,
  the later ones (an older copy in another folder) are not read;
* ``entry_points.txt`` is read as UTF-8; lines are stripped, empty lines and those starting with
  ``#`` skipped, ``[...]`` opens a group (the brackets stripped), and ``name = value`` is split at
  the first ``=``.

Where a layout asks for more than that (another distribution finder on ``sys.meta_path``, a
zip file or ``.egg`` on ``sys.path``, a folder whose name does not give the distribution's name,
an undecodable or malformed file naming the group) ``read_group`` answers None and the caller
asks ``importlib.metadata`` itself: the answer is the same, or the same error. One difference
is kept on purpose: a malformed ``entry_points.txt`` that does not name the group (a line without
``=``) makes ``importlib.metadata`` raise for every group; here it is not read.
"""

from __future__ import annotations

import os
import re
import sys

_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_SEPARATORS = re.compile(r"[-_.]+")


class _NotModelled(Exception):
    """A layout or file that only ``importlib.metadata`` reads exactly."""


def _normalized(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower().replace("-", "_")


def _only_the_path_finder() -> bool:
    """Whether the standard path finder is the only one that lists distributions."""
    import importlib.machinery

    return all(
        finder is importlib.machinery.PathFinder
        or getattr(finder, "find_distributions", None) is None
        for finder in sys.meta_path
    )


def _children(root: object) -> list[str]:
    if not isinstance(root, str):
        raise _NotModelled  # a path-like entry: rare, and importlib reads it its own way
    if os.path.basename(root).lower().endswith(".egg"):
        raise _NotModelled  # a legacy egg's name is read from its metadata
    try:
        return os.listdir(root or ".")
    except (OSError, ValueError):  # importlib passes over any error here
        if os.path.isfile(root or "."):
            raise _NotModelled from None  # a zip file on sys.path
        return []  # missing or unreadable: importlib finds nothing there either


def _group_in(text: str, group: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    current: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line.strip("[]")
            continue
        if current is None:
            continue
        name, equals, value = line.partition("=")
        if not equals:
            raise _NotModelled  # importlib raises on it: let it say so
        if current == group:
            found.append((name.strip(), value.strip()))
    return found


def _read(folder: str, group: str, marker: bytes) -> list[tuple[str, str]]:
    try:
        with open(os.path.join(folder, "entry_points.txt"), "rb") as handle:
            data = handle.read()
    except OSError:  # none (most distributions), or an .egg-info that is a file
        return []
    if marker not in data:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _NotModelled from None
    # text mode's newline translation, as importlib reads it: splitlines ends lines the same way
    return _group_in(text, group)


def read_group(group: str) -> list[tuple[str, str]] | None:
    """``(name, value)`` of each entry point in ``group``, in ``importlib.metadata``'s order;
    None where only ``importlib.metadata`` can say (see the module's docstring)."""
    if not _only_the_path_finder():
        return None
    marker = group.encode("utf-8")
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    try:
        for root in list(sys.path):
            for child in _children(root):
                if not child.lower().endswith(_METADATA_SUFFIXES):
                    continue
                stem, suffix = os.path.splitext(child)
                name = _normalized(stem.partition("-")[0])
                if suffix not in _METADATA_SUFFIXES or not name:
                    raise _NotModelled  # importlib reads this one's name from its metadata
                if name in seen:
                    continue
                seen.add(name)
                found.extend(_read(os.path.join(root, child), group, marker))
    except _NotModelled:
        return None
    return found
