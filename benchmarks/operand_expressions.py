"""Does the C++ front end read asm output expressions as nvcc does? (PTX013's matrix)

Compiles each case of tests/operand_expression_cases.py with ``nvcc -std=c++17 -arch=sm_90
-ptx`` (one translation unit per case; verdicts cached by content hash like the tests') and
lints it with PTX013, then prints one line per case (nvcc's verdict, ptxlint's, and nvcc's
diagnostic) and the agreement: nvcc rejects -> error, nvcc warns #137 (a const object written)
-> warning, nvcc accepts -> nothing; the cases listed as abstentions (nvcc diagnoses what the
text around the asm cannot show) must get nothing.

    python benchmarks/operand_expressions.py            # the whole matrix
    python benchmarks/operand_expressions.py --grep cast
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.conftest import lint_text  # noqa: E402
from tests.operand_expression_cases import ABSTAIN, CASES  # noqa: E402
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, parallel_map, run_cached  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grep", default="", help="only cases whose text contains this")
    args = parser.parse_args()
    if NVCC is None:
        print("nvcc not found", file=sys.stderr)
        return 2
    cases = [c for c in CASES if args.grep in str(c)]

    def nvcc(case: object) -> tuple[str, str]:
        run = run_cached(NVCC, ["-std=c++17", "-arch=sm_90", "-ptx", INPUT, "-o", OUTPUT],
                         case.source)  # type: ignore[attr-defined]
        lines = [line.split(": ", 1)[-1] for line in (run.stdout + run.stderr).splitlines()
                 if "error" in line or "#137" in line or "#1156" in line]
        if not run.ok:
            return "error", " | ".join(lines)
        return ("warning" if any("#137" in line for line in lines) else ""), " | ".join(lines)

    verdicts = parallel_map(nvcc, cases)
    tally: Counter[str] = Counter()
    for case, (theirs, said) in zip(cases, verdicts, strict=True):
        found = lint_text(case.source, "oracle.cu", select=("PTX013",))
        ours = found[0].severity.value if found else ""
        if case.expression in ABSTAIN:
            outcome = "abstains" if not ours else "WRONG"
        else:
            outcome = "agrees" if ours == theirs else "WRONG"
        tally[outcome] += 1
        print(f"{outcome:8} nvcc={theirs or 'ok':7} ptxlint={ours or '-':7} {case}   {said[:120]}")
    print(f"\n{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 1 if tally["WRONG"] else 0


if __name__ == "__main__":
    sys.exit(main())
