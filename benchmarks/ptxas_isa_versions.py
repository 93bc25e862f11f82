"""Does ptxlint know the PTX ISA version each instruction form needs? ptxas 13.0 says.

Every valid case of ``benchmarks/ptxas_agreement.py`` (one instance per modifier combination of
every grammar form) is assembled for the lowest of its targets under ``.version 3.0``: ptxas
names, on each line, every feature that version lacks ("Feature '.tile::scatter4' requires PTX
ISA .version 8.6 or later", "Modifier '.evict_last' on 'ld' requires PTX ISA .version 7.4 or
later"). A target the declared version predates is one more error, on the ``.target`` line,
and leaves the lines' own errors standing, so a form of sm_100a is measured below PTX ISA 8.6
too. Each line is assembled again under the highest version it was told, until it has no error
of its own: that version is the form's need by ptxas. ptxlint's is
``instruction_ptx_requirement`` (its modifiers' forms, and those of its operand count), the
number rule PTX403 compares with the oldest toolkit a statement's ``#if`` guards admit. Then
each case is assembled under the version ptxlint predicts: it must have no error of its own
there.

A prediction below ptxas's is *too low* (PTX403 misses it: CCCL's
``cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group`` under
``__cccl_ptx_isa >= 800``, which needs 8.6); one above it is *too high* (a false PTX403), counted
only where the case's target could be assembled under a lower version than ptxlint's (a form of
sm_100a needs PTX ISA 8.6 by its target, whatever ptxas checks of the form itself). Below PTX
ISA 6.0 (CUDA 9.0, the oldest toolkit ptxlint's table knows) no toolkit is ever asked about, so
both sides count from 6.0. Cases ptxas rejects under ``.version 9.0`` (the agreement
benchmark's verdict) and forms of a newer toolkit (``toolkit=13.1``) are left out.

Verdicts (each line's errors under each version) are cached by content hash beside the
agreement benchmark's, under the tests' cache folder.

    python benchmarks/ptxas_isa_versions.py                 # every valid case
    python benchmarks/ptxas_isa_versions.py --family cp,ld --grep scatter
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ptxas_agreement as agreement  # noqa: E402

from ptxlint.ptx.instructions import instruction_ptx_requirement  # noqa: E402
from ptxlint.ptx.parser import parse_template  # noqa: E402

LOWEST = 30  # .version 3.0: below 2.3 the header's .address_size is an error of its own
COUNTED_FROM = 60  # PTX ISA 6.0, CUDA 9.0: the oldest toolkit ptxlint's version table knows
# the PTX ISA versions ptxas 13.0 knows, to find the lowest one a target takes
KNOWN = (30, 31, 32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76,
         77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90)
# What ptxas 13.0 asks a version for that ``instruction_ptx_requirement`` cannot say: a feature
# of the operands that their count does not tell, and one where ptxas 13.0 asks more than the
# toolkit that introduced the spelling took. A line whose version comes from these alone is
# "left alone".
LEFT_ALONE: tuple[tuple[str, str], ...] = (
    (r"igonre-src on cp\.async", "the ignore-src predicate operand, not a modifier"),
    (r"with count argument and without '\.noComplete'", "the count operand, not a modifier"),
    (r"Texture instruction with optional predicate result",
     "tex's residency predicate (d|p), an operand, not a modifier (its forms' ptx=71)"),
    (r"Feature '\.block32' requires",
     "block_scale without a scale vector: ptxas 13.0 reads it as .block32 (PTX ISA 8.8), but "
     "code built with CUDA 12.8 (PTX ISA 8.7) writes it"),
)
_REQUIRES = re.compile(r"requires PTX ISA \.version (\d+)\.(\d+) or later")
_TARGET = re.compile(r"does not support \.target")
_LINE = re.compile(r"line (\d+); (?:error|fatal)\s*:\s*(.*)")


def version_text(version: int) -> str:
    return f"{version // 10}.{version % 10}"


def _header(target: str, version: int) -> str:
    return agreement.HEADER.replace(".version 9.0", f".version {version_text(version)}") \
        .format(target=target)


class LineOracle(agreement.Oracle):
    """The errors ptxas gives each line under a declared PTX ISA version (``()``: none of its
    own; the header's and the ``.target`` line's are not the line's), cached like the
    agreement benchmark's verdicts, in a file of their own beside them."""

    def __init__(self, ptxas: str | None = None) -> None:
        super().__init__()
        self.ptxas = ptxas or agreement.PTXAS
        if ptxas is not None:  # another toolkit's: its verdicts are keyed by its version
            done = subprocess.run([ptxas, "--version"], capture_output=True, text=True)
            self.version = hashlib.sha256(done.stdout.encode()).hexdigest()[:16]
        self.path = os.path.join(os.path.dirname(agreement.cache_path()), "isa-versions.json")
        self.cache = {}
        if os.path.exists(self.path):
            with open(self.path) as f:
                self.cache = json.load(f)

    def isa_key(self, target: str, version: int, text: str) -> str:
        return hashlib.sha256(
            f"isa1\0{self.version}\0{target}\0{version}\0{text}".encode()).hexdigest()[:24]

    def errors(self, target: str, version: int, texts: Sequence[str]) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        todo = []
        for text in dict.fromkeys(texts):
            cached = self.cache.get(self.isa_key(target, version, text))
            if cached is None:
                todo.append(text)
            else:
                out[text] = tuple(json.loads(cached))
        for start in range(0, len(todo), 1500):
            for text, found in self._lines(target, version, todo[start:start + 1500]).items():
                out[text] = found
                self.cache[self.isa_key(target, version, text)] = json.dumps(list(found))
        return out

    def floor(self, target: str) -> int:
        """The lowest PTX ISA version ptxas takes for ``target`` (an empty kernel assembles)."""
        key = hashlib.sha256(f"isa-floor1\0{self.version}\0{target}".encode()).hexdigest()[:24]
        if key not in self.cache:
            found = next((v for v in KNOWN if self._run(target, v, [])[2] == 0), 0)
            self.cache[key] = json.dumps(found)
        return int(json.loads(self.cache[key]))

    def _lines(self, target: str, version: int, texts: list[str]) -> dict[str, tuple[str, ...]]:
        """A line is clean only once a run of all the clean ones has no line error at all (an
        error that ends parsing would hide the lines after it); a line with an error that is
        no version (ptxas sometimes places another line's error there) is judged alone."""
        out: dict[str, tuple[str, ...]] = {}
        pending = list(texts)
        while pending:
            errors, unplaced, _ = self._run(target, version, pending)
            if not errors and not unplaced:
                out.update({t: () for t in pending})
                break
            if not errors:  # an error of no line (a crash): one line at a time
                if len(pending) == 1:
                    out[pending[0]] = (unplaced,)
                    break
                for text in pending:
                    out.update(self._lines(target, version, [text]))
                break
            for index, messages in errors.items():
                text = pending[index]
                if len(pending) > 1 and any(not _REQUIRES.search(m) for m in messages):
                    out.update(self._lines(target, version, [text]))
                else:
                    out[text] = tuple(messages)
            pending = [t for i, t in enumerate(pending) if i not in errors]
        return out

    def _run(self, target: str, version: int, texts: list[str]  # type: ignore[override]
             ) -> tuple[dict[int, list[str]], str, int]:
        assert self.ptxas is not None
        header = _header(target, version)
        body = header + "".join(f"{t};\n" for t in texts) + agreement.FOOTER
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "isa.ptx")
            with open(path, "w") as f:
                f.write(body)
            proc = subprocess.run([self.ptxas, f"-arch={target}", path, "-o", os.devnull],
                                  capture_output=True, text=True)
        self.runs += 1
        first = header.count("\n")
        errors: dict[int, list[str]] = defaultdict(list)
        unplaced = ""
        for line in proc.stderr.splitlines():
            m = _LINE.search(line)
            if m is None:
                if "fatal" in line and "aborted due to errors" not in line:
                    unplaced = line.strip()
                continue
            index = int(m.group(1)) - first - 1
            if 0 <= index < len(texts):
                errors[index].append(m.group(2).strip())
            elif int(m.group(1)) > first and not _TARGET.search(m.group(2)):
                unplaced = m.group(2).strip()  # the footer's: about no line of ours
        if proc.returncode < 0:
            unplaced = f"{agreement.CRASHED} (signal {-proc.returncode})"
        return dict(errors), unplaced, proc.returncode


def required(messages: Sequence[str]) -> int | None:
    """The highest version the messages ask for; ``None`` when one of them is no version."""
    found = [_REQUIRES.search(m) for m in messages]
    if any(m is None for m in found):
        return None
    return max(int(m.group(1)) * 10 + int(m.group(2)) for m in found if m is not None)


def predicted(text: str) -> tuple[int, str]:
    [instruction] = parse_template(text + ";", extended=False).instructions
    return instruction_ptx_requirement(instruction)


@dataclass
class Measure:
    text: str
    family: str
    target: str
    floor: int  # the lowest version the target takes
    ptxas: int | None  # the version ptxas needs for the line; None: unsettled
    predicted: int  # instruction_ptx_requirement's
    feature: str  # the spelling it names
    told: tuple[str, ...]  # ptxas's version messages on the way
    at_predicted: tuple[str, ...] = ()  # the line's errors under the predicted version
    why: str = ""  # ptxas's error that is no version, on the way (or for an unsettled line)
    older: str = ""  # an older toolkit's ptxas rejecting a line ptxas 13.0 takes lower

    @property
    def left_alone(self) -> str:
        """The reason ptxlint leaves ptxas's version of this line alone, or ``""``."""
        said = [t for t in self.told if self.ptxas is not None and required([t]) == self.ptxas]
        reasons = {reason for t in said for pattern, reason in LEFT_ALONE if re.search(pattern, t)}
        return next(iter(reasons)) if said and len(reasons) == 1 and all(
            any(re.search(p, t) for p, _ in LEFT_ALONE) for t in said) else ""

    @property
    def verdict(self) -> str:
        if self.ptxas is None:
            return "unsettled"
        need, said = max(self.ptxas, COUNTED_FROM), max(self.predicted, COUNTED_FROM)
        if said < need:
            return "left alone" if self.left_alone else "too low"
        if said > max(need, self.floor):
            return "older toolkit" if self.older else "too high"
        return "agree"


def valid_cases(families: set[str] | None = None) -> list[tuple[agreement.Case, str]]:
    """The valid cases ptxlint accepts, each with the lowest target its need admits."""
    out = []
    for case in agreement.generate(families):
        if case.kind != "valid":
            continue
        prediction = agreement.predict(case.text)
        if prediction.status != "accept":
            continue  # a form of a newer toolkit, a form ptxas 13.0 rejects
        target = next((f"sm_{sm}{suffix}" for sm, suffix in agreement.TARGETS
                       if prediction.need.admits(sm, suffix)), None)
        if target is not None:
            out.append((case, target))
    return out


def measure(cases: Sequence[tuple[agreement.Case, str]], oracle: LineOracle,
            assembled: agreement.Oracle | None = None) -> list[Measure]:
    by_target: dict[str, list[agreement.Case]] = defaultdict(list)
    for case, target in cases:
        by_target[target].append(case)
    own = assembled is None
    assembled = assembled or agreement.Oracle()
    out: list[Measure] = []
    for target, group in by_target.items():
        verdicts = assembled.verdicts(target, [c.text for c in group])
        group = [c for c in group if verdicts[c.text] == ""]  # ptxas takes it under 9.0
        floor = oracle.floor(target)
        current = {c.text: LOWEST for c in group}
        told: dict[str, list[str]] = defaultdict(list)
        settled: dict[str, int | None] = {}
        why: dict[str, str] = {}
        while current:
            by_version: dict[int, list[str]] = defaultdict(list)
            for text, version in current.items():
                by_version[version].append(text)
            following: dict[str, int] = {}
            for version, texts in sorted(by_version.items()):
                for text, messages in oracle.errors(target, version, texts).items():
                    if not messages:
                        settled[text] = version
                        continue
                    told[text] += messages
                    needed = required(messages)
                    if needed is None:
                        # an error that names no version ("State space incorrect for
                        # instruction 'cvta'" under 3.0): the next version up is tried
                        why.setdefault(text, next(m for m in messages
                                                  if not _REQUIRES.search(m)))
                        needed = next((v for v in KNOWN if v > version), None)
                    if needed is None or needed <= version:
                        settled[text] = None
                        why.setdefault(text, messages[0])
                    else:
                        following[text] = needed
            current = following
        for case in group:
            need, feature = predicted(case.text)
            out.append(Measure(case.text, case.family, target, floor, settled[case.text], need,
                               feature, tuple(told[case.text]), why=why.get(case.text, "")))
        # under the version ptxlint predicts (the target's own where ptxlint's is lower)
        at: dict[int, list[Measure]] = defaultdict(list)
        for m in out:
            if m.target == target:
                at[max(m.predicted, LOWEST)].append(m)
        for version, measures in at.items():
            errors = oracle.errors(target, version, [m.text for m in measures])
            for m in measures:
                m.at_predicted = errors[m.text]
    oracle.save()
    if own:
        assembled.save()
    _ask_older(out)
    return out


# The older toolkit asked where ptxas 13.0 takes a form under a lower version than ptxlint
# says: ptxas 13.0 asks no version of some spellings that older ones reject whatever the
# version (``st.v8.b16``: CUDA 12.4's ptxas says "Illegal vector size: 8" under .version 8.4),
# so a PTX403 finding there is true. Its highest PTX ISA version and the targets it knows.
OLDER_TOOLKIT, OLDER_PTX, OLDER_TARGETS = "12.4", 84, ("sm_75", "sm_80", "sm_90", "sm_90a")


def askable(m: Measure) -> bool:
    """Whether the older toolkit can judge a prediction ptxas 13.0 calls too high."""
    return m.verdict == "too high" and m.predicted > OLDER_PTX and m.target in OLDER_TARGETS


def older_ptxas() -> str | None:
    import toolkits

    return toolkits.found().get(OLDER_TOOLKIT)


def _ask_older(measures: Sequence[Measure]) -> None:
    """``older`` set where CUDA 12.4's ptxas (``benchmarks/toolkits.py`` fetches it) rejects,
    under its own highest version, a line ptxlint says needs a newer one than that."""
    asked = [m for m in measures if askable(m)]
    ptxas = older_ptxas() if asked else None
    if ptxas is None:
        return
    oracle = LineOracle(ptxas)
    by_target: dict[str, list[Measure]] = defaultdict(list)
    for m in asked:
        by_target[m.target].append(m)
    for target, group in by_target.items():
        errors = oracle.errors(target, OLDER_PTX, [m.text for m in group])
        for m in group:
            if errors[m.text]:
                m.older = f"CUDA {OLDER_TOOLKIT}'s ptxas: {errors[m.text][0]}"
    oracle.save()


def _reason(m: Measure) -> str:
    """ptxas's messages that name the version it needs (the feature that imposes it)."""
    if m.ptxas is None:
        return ""
    said = [t for t in dict.fromkeys(m.told) if required([t]) == m.ptxas]
    if said:
        return ": " + " | ".join(said)
    return f": the lowest version that takes it ({m.why} below)" if m.why else ""


def summarize(measures: Sequence[Measure], out: object = sys.stdout) -> dict[str, int]:
    def line(text: str = "") -> None:
        print(text, file=out)  # type: ignore[call-overload]

    groups: dict[str, list[Measure]] = defaultdict(list)
    for m in measures:
        groups[m.verdict].append(m)
    # the predicted version must assemble the line wherever ptxas's own need is no higher
    failing = [m for m in measures if m.at_predicted and m.ptxas is not None
               and m.predicted >= m.ptxas]
    line(f"valid cases measured: {len(measures)}; agree {len(groups['agree'])}, too low "
         f"{len(groups['too low'])}, too high {len(groups['too high'])} (and "
         f"{len(groups['older toolkit'])} that ptxas 13.0 takes lower but CUDA {OLDER_TOOLKIT}'s "
         f"rejects), left alone {len(groups['left alone'])}, unsettled "
         f"{len(groups['unsettled'])}; errors under the predicted version where it is enough: "
         f"{len(failing)}")
    for title in ("too low", "too high", "older toolkit", "left alone", "unsettled"):
        line(f"\n{title} ({len(groups[title])}):")
        for m in groups[title]:
            ptxas = version_text(m.ptxas) if m.ptxas is not None else m.why
            line(f"  [{m.target}] {m.text};  ptxas {ptxas}, ptxlint "
                 f"{version_text(m.predicted)} ({m.feature or '-'})" + _reason(m)
                 + (f"; {m.older}" if m.older else "")
                 + (f"; left alone: {m.left_alone}" if title == "left alone" else ""))
    line(f"\nerrors under the predicted version ({len(failing)}):")
    for m in failing:
        line(f"  [{m.target}] {m.text};  {version_text(m.predicted)}: {m.at_predicted[0]}")
    return {"measured": len(measures), "agree": len(groups["agree"]),
            "older_toolkit": len(groups["older toolkit"]),
            "left_alone": len(groups["left alone"]),
            "too_low": len(groups["too low"]), "too_high": len(groups["too high"]),
            "unsettled": len(groups["unsettled"]), "failing": len(failing)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", help="comma-separated opcodes (default: all covered)")
    parser.add_argument("--grep", help="only the cases whose instruction text matches this regex")
    parser.add_argument("--json", help="write the summary here")
    args = parser.parse_args(argv)
    if agreement.PTXAS is None:
        print("ptxas not found on PATH", file=sys.stderr)
        return 2
    cases = valid_cases(set(args.family.split(",")) if args.family else None)
    if args.grep:
        pattern = re.compile(args.grep)
        cases = [(c, t) for c, t in cases if pattern.search(c.text)]
    oracle = LineOracle()
    summary = summarize(measure(cases, oracle))
    print(f"\nptxas runs: {oracle.runs}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if summary["too_low"] == summary["too_high"] == summary["failing"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
