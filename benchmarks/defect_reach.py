#!/usr/bin/env python3
"""How often ptxlint notices a defect put into real asm statements: mutate one statement of a
real file at a time, in ways the PTX ISA or the C++ asm rules make a defect by construction,
and ask whether a new finding appears.

The fixtures show each rule flags its defect in the code it was written for; they do not show
how often the facts a rule needs (operand types, instruction effects, register classes) are
there in real code: a 64-bit pointer bound with ``"r"`` is only PTX004's when the front end
knows the expression's type. Each mutation below is a defect whatever the code around it is:

* ``drop-memory``: the ``"memory"`` clobber removed from a statement whose template stores to
  memory (``st``, ``atom``, ``red``, ``stmatrix``; not ``st.async``/``red.async``, whose write
  C++ reads only after an mbarrier wait): the compiler may keep a value of that memory in a
  register across the statement (PTX102).
* ``drop-volatile``: ``volatile`` removed from a statement with outputs whose template has a
  side effect (a store, an atomic, a barrier, a fence, an async copy, an mbarrier step): GCC's
  rules let the compiler delete or merge it when its outputs are unused or equal (PTX101).
* ``l-to-r``: an input bound with ``"l"`` that the template uses as an address (``[%N]``) bound
  with ``"r"`` instead: a 64-bit value under a 32-bit letter, which nvcc rejects, or an
  address cut to 32 bits (PTX004).
* ``widen-type``: the type of an instruction whose ``%N`` operands are all bound with ``"r"``
  (``.u32``, ``.s32``, ``.b32``) or ``"f"`` (``.f32``) made 64-bit: ptxas rejects the 32-bit
  registers ("Arguments mismatch for instruction", PTX206).
* ``drop-separator``: the ``;`` after the first of several instructions deleted: ptxas reads
  the two as one (PTX205).

Only statements whose words sit in this file's string literals are mutated (not a macro's
expansion, not Python). A site is *noticed* when some finding appears that the unmutated file
does not have; the report names the rule each class was meant for, how often another rule
spoke instead and how often more than one rule spoke (one defect, two findings), and lists
every site with the rules that spoke (``--jsonl``), to find the facts the rules lack.

Usage: ``python benchmarks/defect_reach.py TREE... [--per-class N] [--seed S] [--jsonl FILE]``
(``--per-class``: at most N sites of each class, sampled with ``random.Random(S)``). Nothing in
the trees is written or executed. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.model import AsmStatement, PtxInstruction, SourceFile  # noqa: E402
from ptxlint.registry import load_rules, preview_ids  # noqa: E402
from ptxlint.rule import Rule, RuleContext  # noqa: E402

SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hxx", ".inl", ".cc", ".cpp")
EXPECTED = {
    "drop-memory": "PTX102",
    "drop-volatile": "PTX101",
    "l-to-r": "PTX004",
    "widen-type": "PTX206",
    "drop-separator": "PTX205",
}
_STORES = {"st", "atom", "red", "stmatrix"}
_SIDE_EFFECTS = _STORES | {
    "bar", "barrier", "membar", "fence", "cp", "mbarrier", "griddepcontrol", "trap",
    "nanosleep", "tcgen05", "wgmma",
}
_WIDER = {"u32": "u64", "s32": "s64", "b32": "b64", "f32": "f64"}
_LETTER_OF = {"u32": "r", "s32": "r", "b32": "r", "f32": "f"}


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Site:
    path: str
    kind: str
    line: int
    edit: Edit
    statement: str


def _source_range(statement: AsmStatement, start: int, end: int) -> tuple[int, int] | None:
    """Source offsets of template characters ``start:end``, where they are one run of a
    string literal in the file (no escape, no piece boundary between them)."""
    template = statement.template
    if end <= start or end > len(template.text):
        return None
    first, last = template.char_starts[start], template.char_ends[end - 1]
    if last - first != end - start:
        return None
    return first, last


def _plain(statement: AsmStatement) -> bool:
    return (statement.context.expansion is None and statement.syntax == "gnu"
            and not statement.opaque_sections and bool(statement.template.pieces)
            and all(piece.kind == "string" for piece in statement.template.pieces))


def _stores(instruction: PtxInstruction) -> bool:
    # (``st.async``/``red.async`` only issue a write of the asynchronous proxy: C++ reads it
    # after an mbarrier wait, which is the statement that needs the clobber)
    return instruction.opcode in _STORES and "async" not in instruction.modifiers


def _side_effect(instruction: PtxInstruction) -> bool:
    # (``multimem.ld_reduce`` only loads: its value is its effect)
    return instruction.opcode in _SIDE_EFFECTS or (
        instruction.opcode == "multimem" and instruction.modifiers[:1] in (("st",), ("red",)))


def drop_memory(statement: AsmStatement, text: str) -> Iterator[Edit]:
    memory = [c for c in statement.clobbers if c.name == "memory"]
    if len(memory) != 1 or not any(_stores(i) for i in statement.ptx.instructions):
        return
    span = memory[0].span
    start = span.start
    before = text.rfind(",", statement.colons[-1] if statement.colons else start, start)
    if before >= 0:
        start = before
    yield Edit(start, span.end, "")


def drop_volatile(statement: AsmStatement, text: str) -> Iterator[Edit]:
    volatile = [q for q in statement.qualifiers if "volatile" in q.name]
    outputs = [o for o in statement.operands if o.role == "output"]
    if len(volatile) != 1 or not outputs:
        return
    if any(_side_effect(i) for i in statement.ptx.instructions):
        yield Edit(volatile[0].span.start, volatile[0].span.end, "")


def l_to_r(statement: AsmStatement, text: str) -> Iterator[Edit]:
    addressed: set[int] = set()
    for instruction in statement.ptx.instructions:
        for operand in instruction.operands:
            if operand.kind == "address":
                addressed.update(p.ref for p in operand.parts if p.ref is not None)
    for operand in statement.operands:
        constraint = operand.constraint
        if (operand.role == "input" and constraint.letters == "l" and not constraint.opaque
                and operand.index in addressed):
            at = text.find("l", constraint.span.start, constraint.span.end)
            if at >= 0:
                yield Edit(at, at + 1, "r")
                return


def widen_type(statement: AsmStatement, text: str) -> Iterator[Edit]:
    letters = {o.index: o.constraint.letters.lstrip("=+&") for o in statement.operands}
    for instruction in statement.ptx.instructions:
        if instruction.opaque or not instruction.modifiers:
            continue
        kind = instruction.modifiers[-1]
        if kind not in _WIDER or instruction.opcode in ("cvt", "cvta", "mov", "ld", "st"):
            continue
        refs = [o.ref for o in instruction.operands]
        if not refs or any(ref is None or letters.get(ref) != _LETTER_OF[kind] for ref in refs):
            continue
        end = instruction.opcode_end
        found = _source_range(statement, end - len(kind), end)
        if found is not None:
            yield Edit(found[0], found[1], _WIDER[kind])
            return


def drop_separator(statement: AsmStatement, text: str) -> Iterator[Edit]:
    instructions = [i for i in statement.ptx.instructions if not i.opaque]
    if len(statement.ptx.instructions) < 2 or len(instructions) < 2:
        return
    first = statement.ptx.instructions[0]
    if not first.terminated:
        return
    found = _source_range(statement, first.end - 1, first.end)
    if found is not None and text[found[0]:found[1]] == ";":
        yield Edit(found[0], found[1], "")


MUTATIONS: dict[str, Callable[[AsmStatement, str], Iterator[Edit]]] = {
    "drop-memory": drop_memory,
    "drop-volatile": drop_volatile,
    "l-to-r": l_to_r,
    "widen-type": widen_type,
    "drop-separator": drop_separator,
}


def _files(trees: Sequence[str]) -> Iterator[str]:
    for tree in trees:
        for folder, dirs, files in os.walk(tree):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    yield os.path.join(folder, name)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    return text if "asm" in text else None


def sites(trees: Sequence[str], rules: list[Rule]) -> Iterator[Site]:
    for path in _files(trees):
        text = _read(path)
        if text is None:
            continue
        result = lint_source(SourceFile(path, text), rules, RuleContext())
        for statement in result.statements:
            if not _plain(statement):
                continue
            line = text.count("\n", 0, statement.span.start) + 1
            for kind, mutate in MUTATIONS.items():
                for edit in mutate(statement, text):
                    shown = " ".join(text[statement.span.start:statement.span.end].split())
                    yield Site(path, kind, line, edit, shown[:160])


def findings(path: str, text: str, rules: list[Rule]) -> Counter[tuple[str, int]]:
    """The findings as (rule, line): a mutation keeps every line where it was, and a finding
    the file had already whose words change with it (PTX102's on a statement no longer
    volatile) is no new one."""
    result = lint_source(SourceFile(path, text), rules, RuleContext())
    return Counter((f.rule, text.count("\n", 0, f.span.start)) for f in result.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--per-class", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jsonl", help="one JSON line per site")
    args = parser.parse_args()
    classes = load_rules().rules
    preview = preview_ids(classes)
    rules = [r for r in instantiate(classes) if r.id not in preview]
    by_kind: dict[str, list[Site]] = defaultdict(list)
    for site in sites(args.trees, rules):
        by_kind[site.kind].append(site)
    chosen: list[Site] = []
    for kind in MUTATIONS:
        found = by_kind.get(kind, [])
        if args.per_class and len(found) > args.per_class:
            found = random.Random(args.seed).sample(found, args.per_class)
        chosen.extend(found)
    chosen.sort(key=lambda s: (s.path, s.edit.start))
    texts: dict[str, tuple[str, Counter[tuple[str, int]]]] = {}
    rows: list[str] = []
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    for site in chosen:
        if site.path not in texts:
            text = _read(site.path) or ""
            texts = {site.path: (text, findings(site.path, text, rules))}
        text, before = texts[site.path]
        mutant = text[:site.edit.start] + site.edit.text + text[site.edit.end:]
        new = sorted({rule for rule, _ in findings(site.path, mutant, rules) - before})
        expected = EXPECTED[site.kind]
        tally[site.kind]["sites"] += 1
        tally[site.kind]["expected" if expected in new else "other" if new else "missed"] += 1
        tally[site.kind]["echoed"] += len(new) > 1
        rows.append(json.dumps({"kind": site.kind, "path": site.path, "line": site.line,
                                "statement": site.statement, "new": new}))
    if args.jsonl:
        with open(args.jsonl, "w") as handle:
            handle.write("".join(row + "\n" for row in rows))
    for kind in MUTATIONS:
        counts = tally.get(kind, Counter())
        n = counts["sites"]
        print(f"{kind:15} {n:5} sites: {counts['expected']:5} by {EXPECTED[kind]}, "
              f"{counts['other']:4} by another rule only, {counts['missed']:4} missed "
              f"({100 * (n - counts['missed']) / max(n, 1):.1f}% noticed; "
              f"{counts['echoed']} by more than one rule; {len(by_kind.get(kind, []))} found)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
