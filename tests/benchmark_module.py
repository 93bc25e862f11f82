"""The benchmark scripts the tests share (``benchmarks/*.py`` are scripts, not a package):
loaded once per test run and kept in ``sys.modules``, so every test reads the same module and
its verdict caches."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: dataclasses look their module up
    spec.loader.exec_module(module)
    return module
