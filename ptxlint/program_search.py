"""Where ptxlint may look for a program it runs (nvcc, ptxas, a host compiler, nvidia-smi) or a
folder it reads tools from: never in the working folder or in a tree being linted.

A checkout being linted is data. Under ``python -m`` or ``python -c`` the working folder is on
``sys.path``, an empty or relative ``PATH`` entry names the working folder, and a relative
``$CUDA_HOME`` points into it: a checkout that ships ``nvidia/cu13/bin/nvcc``, ``bin/ptxas`` or
``./nvcc`` would be run by a search that trusted any of those. So:

- ``PATH`` entries are used only when absolute, and never when they resolve to the working
  folder or inside it, or inside a folder being linted, unless they lie inside the Python
  environment ptxlint itself runs from and that environment lies in the tree (a project's own
  ``.venv``: its code already runs as ptxlint);
- the ``nvidia-cuda-nvcc`` wheel is looked for only in the site-packages folders of that
  environment (as the interpreter defines them, never ``sys.path``, which ``-m``, ``-c`` and
  ``PYTHONPATH`` extend);
- ``$CUDA_HOME``/``$CUDA_PATH`` are used only when absolute.
"""

from __future__ import annotations

import contextlib
import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Iterator

from ptxlint.value_class import value_class


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@value_class(slots=False)
class Distrusted:
    """The folders a program must not come from: the working folder and the linted folders,
    with the running environment's own prefix as the one exception inside them."""

    roots: tuple[str, ...]
    environment: str

    @classmethod
    def here(cls, linted: Iterable[str] = ()) -> Distrusted:
        # A linted *file* names no tree: its parent may be the home folder, which holds
        # ~/.local/bin and conda's prefix. Only folders named for linting are trees.
        try:
            here = [os.getcwd()]
        except OSError:  # the working folder was removed: nothing there can be found either
            here = []
        folders = [*here, *(p for p in linted if p != "-" and os.path.isdir(p))]
        return cls(tuple(dict.fromkeys(_real(f) for f in folders)), _real(sys.prefix))

    def refuses(self, folder: str) -> bool:
        """Whether a program in ``folder`` must not be run: a relative folder (resolved against
        the working folder) or one inside a distrusted root and outside the environment."""
        if not folder or not os.path.isabs(folder):
            return True
        real = _real(folder)
        for root in self.roots:
            if not _within(real, root):
                continue
            # a project's own .venv inside the tree runs ptxlint itself; a tree that lies
            # inside the environment (a checkout under /usr) gains nothing from it
            if not (_within(self.environment, root) and _within(real, self.environment)):
                return True
        return False


def _names(name: str) -> list[str]:
    if sys.platform != "win32" or os.path.splitext(name)[1]:
        return [name]
    extensions = os.environ.get("PATHEXT", ".EXE;.BAT;.CMD").split(os.pathsep)
    return [name + ext for ext in extensions if ext]


def executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def path_folders(distrusted: Distrusted) -> Iterator[str]:
    """The ``PATH`` entries a program may be taken from, in order."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not distrusted.refuses(folder):
            yield folder


def which(name: str, distrusted: Distrusted | None = None) -> str | None:
    """``shutil.which`` without the folders ``distrusted`` refuses (the working folder above all:
    ``shutil.which`` treats an empty ``PATH`` entry as it, and on Windows always looks there)."""
    distrusted = distrusted or Distrusted.here()
    for folder in path_folders(distrusted):
        for candidate in _names(name):
            path = os.path.join(folder, candidate)
            if executable(path):
                return path
    return None


def skipped_path_hits(name: str, distrusted: Distrusted) -> list[str]:
    """``PATH`` entries holding ``name`` that ``distrusted`` made the search pass over: said in
    ``doctor`` and in the no-toolchain error, so that a refusal is never silent."""
    return [
        folder
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep)
        if distrusted.refuses(folder)
        and any(executable(os.path.join(folder or os.curdir, n)) for n in _names(name))
    ]


def environment_site_folders() -> list[str]:
    """The running environment's site-packages folders, as the interpreter defines them (never
    ``sys.path``): where ``pip install`` put this environment's packages."""
    folders: list[str] = []
    for key in ("purelib", "platlib"):
        try:
            folders.append(sysconfig.get_paths()[key])
        except KeyError:
            continue
    # some embedded interpreters' and old virtualenvs' `site` modules lack it
    with contextlib.suppress(AttributeError):
        folders.extend(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [f for f in dict.fromkeys(folders) if os.path.isabs(f) and os.path.isdir(f)]


def absolute_env_folder(variable: str) -> str | None:
    """``$CUDA_HOME``-style variable's folder, or None when unset or relative (a relative one
    names a folder of the working folder)."""
    value = os.environ.get(variable)
    return value if value and os.path.isabs(value) else None
