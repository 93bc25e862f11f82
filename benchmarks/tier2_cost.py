"""What Tier 2 (libclang) costs next to Tier 1, and how much it types.

    python benchmarks/tier2_cost.py [--cuda-include DIR]   # with libclang installed

For the fixture project (fixtures/tier2) and for a TU including cuda_fp16.h and cuda_bf16.h, at
one and at four architectures: the cold parse (empty cache), the warm run (disk cache hit), the
Tier-1 extraction of the same files, and the share of operands each tier types.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptxlint.engine import extract_statements  # noqa: E402
from ptxlint.model import AsmStatement, SourceFile  # noqa: E402
from ptxlint.tier2 import Tier2Session, annotate  # noqa: E402
from ptxlint.tier2.cache import Tier2Cache  # noqa: E402
from ptxlint.tier2.compile_db import load  # noqa: E402
from ptxlint.tier2.session import cuda_include_dir  # noqa: E402


def _statements(path: Path) -> tuple[list[AsmStatement], float]:
    started = time.perf_counter()
    found = extract_statements(SourceFile(str(path), path.read_text())).statements
    return [s for s in found if s.context.dialect == "ptx"], time.perf_counter() - started


def _coverage(statements: list[AsmStatement]) -> tuple[int, int, int]:
    total = sum(len(s.operands) for s in statements)
    tier1 = sum(1 for s in statements for o in s.operands if o.ctype is not None)
    return total, tier1, 0


def measure(db_path: Path, files: list[Path], cache_root: Path) -> dict[str, object]:
    runs = {}
    for label in ("cold", "warm"):
        session = Tier2Session(load(db_path), cache=Tier2Cache(cache_root))
        started = time.perf_counter()
        per_file = [session.types_for(str(f)) for f in files]
        runs[label] = round(time.perf_counter() - started, 3)
    total = tier1 = tier2 = 0
    tier1_seconds = 0.0
    for f, types in zip(files, per_file, strict=True):
        statements, seconds = _statements(f)
        tier1_seconds += seconds
        t, one, _ = _coverage(statements)
        total += t
        tier1 += one
        typed = annotate(statements, types)
        tier2 += sum(
            1 for s in typed for o in s.operands if o.ctype is not None and o.ctype.tier == 2
        )
    return {
        "tier2_cold_s": runs["cold"],
        "tier2_warm_s": runs["warm"],
        "tier1_extract_s": round(tier1_seconds, 3),
        "operands": total,
        "tier1_typed": tier1,
        "tier2_typed": tier2,
        "tier2_share": round(tier2 / total, 4) if total else None,
        "notes": session.notes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuda-include", default=cuda_include_dir())
    options = parser.parse_args()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        fixture = ROOT / "fixtures" / "tier2"
        results["fixture kernel.cu"] = measure(
            fixture / "compile_commands.json", [fixture / "kernel.cu"], work / "c0"
        )
        if options.cuda_include:
            include = Path(options.cuda_include)
            (work / "fp.cu").write_text("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n")
            headers = [include / "cuda_fp16.hpp", include / "cuda_bf16.hpp"]
            for archs in ((90,), (90, 80, 75, 52)):
                gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
                entry = {"directory": str(work), "file": "fp.cu"}
                db = work / f"db{len(archs)}" / "compile_commands.json"
                db.parent.mkdir()
                db.write_text(
                    json.dumps([{**entry, "arguments": ["nvcc", *gencode, "-c", "fp.cu"]}])
                )
                name = f"cuda_fp16.hpp + cuda_bf16.hpp, {len(archs)} arch(s)"
                results[name] = measure(db, headers, work / f"c{len(archs)}")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
