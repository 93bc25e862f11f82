"""Where the scripts, benchmarks and corpus tests find what is not part of the repository.

Nothing here names a folder of one particular machine. Each location comes from an environment
variable, else a folder under ptxlint's cache folder (``$PTXLINT_CACHE_DIR``, else
``~/.cache/ptxlint`` on Linux; see ``ptxlint.run.cache``):

- ``PTXLINT_CORPORA``: the real-code corpora, ``src/<name>/`` for source distributions
  (``scripts/fetch_corpora.py DIR``) and ``git/<name>/`` for pinned checkouts
  (``scripts/corpus_precision.py DIR --fetch``); default ``<cache>/corpora``.
- ``PTXLINT_MIRRORS``: bare git mirrors with full history, ``<owner>+<name>/repo``, read by
  ``scripts/fixed_bugs.py``; default ``<cache>/mirrors``.
- the CUDA toolkit: ``$CUDA_HOME``, ``$CUDA_PATH``, else the toolkit of the ``nvcc`` on ``PATH``.

``ptxlint clean`` leaves ``corpora/`` and ``mirrors/`` alone: they are slow to fetch again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CORPORA_ENV = "PTXLINT_CORPORA"
MIRRORS_ENV = "PTXLINT_MIRRORS"


def _under_cache(env: str, name: str) -> Path:
    configured = os.environ.get(env)
    if configured:
        return Path(configured).expanduser()
    from ptxlint.run.cache import root

    return root() / name


def corpora_root() -> Path:
    """The corpora folder: ``$PTXLINT_CORPORA``, else ``corpora/`` in ptxlint's cache folder."""
    return _under_cache(CORPORA_ENV, "corpora")


def mirrors_root() -> Path:
    """The git mirrors folder: ``$PTXLINT_MIRRORS``, else ``mirrors/`` in the cache folder."""
    return _under_cache(MIRRORS_ENV, "mirrors")


def cutlass_include() -> Path | None:
    """CUTLASS's ``include/`` as shipped in flash-attn's source distribution in the corpora."""
    candidate = corpora_root() / "src" / "flash-attn" / "csrc" / "cutlass" / "include"
    return candidate if candidate.is_dir() else None


def cuda_include() -> Path | None:
    """The include folder of ``$CUDA_HOME``, ``$CUDA_PATH`` or the toolkit of the ``nvcc`` on
    ``PATH`` (asked with ``--dryrun`` where ``nvcc`` is a wrapper script), holding
    ``cuda_runtime.h``."""
    candidates = [
        Path(home) / "include"
        for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"))
        if home
    ]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(os.path.realpath(nvcc)).parent.parent / "include")
        try:
            out = subprocess.run(
                [nvcc, "--dryrun", "-c", "-x", "cu", os.devnull, "-o", os.devnull],
                capture_output=True, text=True, timeout=30, check=False,
            ).stderr
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            if "TOP=" in line:
                candidates.append(Path(line.split("TOP=", 1)[1].strip()) / "include")
    for path in candidates:
        if (path / "cuda_runtime.h").is_file():
            return path
    return None
