#!/usr/bin/env python3
"""Write rules/manifest.py, the built-in rules' metadata that a run reads without importing them
(ptxlint.lazy_rule), from the rule classes.

Run after adding a rule or changing its id, name, severity, summary, tags, precision, scope,
needs, pure or preview: ``python scripts/gen_rule_manifest.py``; tests/test_rule_manifest.py
fails while the manifest is stale.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "rules" / "manifest.py"


def expected() -> str:
    """The manifest's text for the rule classes of this source tree."""
    import importlib.util

    sys.path.insert(0, str(ROOT))
    from ptxlint.lazy_rule import render_manifest

    # the source tree's rules/, as ptxlint_rules (what an editable install maps it to)
    spec = importlib.util.spec_from_file_location(
        "ptxlint_rules", ROOT / "rules" / "__init__.py",
        submodule_search_locations=[str(ROOT / "rules")],
    )
    assert spec is not None and spec.loader is not None
    package = sys.modules.get("ptxlint_rules")
    if package is None:
        package = importlib.util.module_from_spec(spec)
        sys.modules["ptxlint_rules"] = package
        spec.loader.exec_module(package)
    return render_manifest(package.real_rules())


def main() -> int:
    text = expected()
    # whole or not at all: a half-written manifest would break every run from this tree
    fd, temp = tempfile.mkstemp(dir=MANIFEST.parent, prefix=".manifest-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, MANIFEST)
    print(f"wrote {MANIFEST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
