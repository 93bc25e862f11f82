"""What the cheaper designs could save at most, measured on the asm-bearing files of real trees.

Usage:
    python benchmarks/ceilings.py [TREE ...]      (default: the CUDA include tree and CUTLASS's
                                                    include/, as benchmarks/bench.py finds them)

A goal once set was a lint of the asm-bearing files in at most their bare parse, and no file
over 1.5x its own. These figures bound what a change of design could give, before anyone builds
one:

- **Partial parse**: the bytes of function definitions that hold no asm keyword, the part a
  parser could skip (the rest must be read: the asm statements, the functions around them, the
  declarations their operands name, the preprocessor lines). A lint that parses the rest and
  does nothing else costs at least ``1 - skippable`` of the bare parse.
- **Whole-function memo**: the asm statements in a function whose text is byte for byte that of
  a function in an earlier file, whose outcomes a memo of whole functions could replay. The
  statement memo that exists (``rule_memo``) already keys on the statement.
- **The rest of the lint**: lint time less parse time per statement and per operand, in this
  process, one file at a time (the result memos of earlier files kept, as in a worker), and
  what it adds to the parse.

Each tree is walked once; each asm-bearing file parsed twice (once bare, once inside the
lint) and linted once. O(bytes of the asm-bearing files).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import bench  # noqa: E402

from ptxlint import collector  # noqa: E402
from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.frontends import tree_reuse  # noqa: E402
from ptxlint.frontends.cxx.extract import has_asm  # noqa: E402
from ptxlint.frontends.syntax_tree import parse  # noqa: E402
from ptxlint.model import SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402
from ptxlint.run.discover import discover, read_source  # noqa: E402

_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b")


def functions(root: object, data: bytes) -> list[tuple[int, int, int]]:
    """(start, end, asm keywords) of each outermost function definition under ``root``."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":  # type: ignore[attr-defined]
            start, end = node.start_byte, node.end_byte  # type: ignore[attr-defined]
            found.append((start, end, len(_ASM.findall(data, start, end))))
            continue
        stack.extend(node.children)  # type: ignore[attr-defined]
    return found


def measure(tree: str) -> None:
    rules = instantiate(load_rules().rules)
    context = RuleContext()
    collector.settle_after_each_file()  # as bench.per_file: a file is linted as a worker does
    files = total = skippable = 0
    statements_in_functions = repeated = 0
    parse_seconds = lint_seconds = 0.0
    statements = operands = 0
    seen: set[bytes] = set()
    for entry in discover([tree], max_file_size=bench.MAX_SIZE).files:
        text, decode_errors, _ = read_source(entry.path, bench.MAX_SIZE)
        if text is None or not has_asm(text):
            continue
        started = time.perf_counter()
        parsed = parse(entry.path, text)
        parse_seconds += time.perf_counter() - started
        data = parsed.data
        files += 1
        total += len(data)
        for start, end, keywords in functions(parsed.tree.root_node, data):
            if not keywords:
                skippable += end - start
                continue
            statements_in_functions += keywords
            digest = hashlib.sha1(data[start:end]).digest()
            if digest in seen:
                repeated += keywords
            seen.add(digest)
        del parsed
        tree_reuse.forget()
        started = time.perf_counter()
        with collector.paused(collect_young=True):
            result = lint_source(SourceFile(entry.path, text, decode_errors), rules, context)
        lint_seconds += time.perf_counter() - started
        tree_reuse.forget()
        statements += len(result.statements)
        operands += sum(len(s.operands) for s in result.statements)
    if not files:
        print(f"== {tree}: no asm-bearing file")
        return
    rest = lint_seconds - parse_seconds
    print(f"== {tree}")
    print(f"   asm-bearing files             : {files} ({total / 1e6:.1f} MB)")
    print(
        f"   partial parse, skippable      : {skippable / total:6.1%} of their bytes "
        "(functions with no asm keyword)"
    )
    print(f"   so a lint costs at least      : {1 - skippable / total:.2f}x their bare parse")
    share = repeated / statements_in_functions if statements_in_functions else 0.0
    print(
        f"   whole-function memo           : {share:6.1%} of {statements_in_functions} asm "
        "keywords in functions are in one seen before"
    )
    print(
        f"   lint {lint_seconds:.2f} s, bare parse {parse_seconds:.2f} s = "
        f"{lint_seconds / parse_seconds:.2f}x (1 core)"
    )
    if statements:
        print(
            f"   the rest of the lint          : {rest:.2f} s = {rest / parse_seconds:.2f}x "
            f"the parse, {1e6 * rest / statements:.0f} us a statement, "
            f"{1e6 * rest / max(operands, 1):.1f} us an operand "
            f"({statements} statements, {operands} operands)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*")
    args = parser.parse_args()
    trees = args.trees or [t for t in (bench.cuda_include(), bench.cutlass_include()) if t]
    if not trees:
        parser.error("no tree given, and neither the CUDA include tree nor CUTLASS was found")
    bench.warm_up()
    for tree in trees:
        measure(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
