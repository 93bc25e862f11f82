"""What the fuzzer checks on one input: the pure functions, in this process, no I/O.

Each check raises ``Failure`` (or any exception: a crash) when ptxlint misbehaves:

* extraction and the PTX parser never raise, whatever the bytes;
* linting with every rule produces no ``internal-error`` finding (a rule that raised);
* ``--fix`` (unsafe fixes included) settles and is idempotent: fixing the fixed text again
  changes nothing;
* LSP positions round-trip: offset -> (line, character) -> offset, in UTF-8/16/32, and an edit
  applied through positions lands where the offsets say;
* ``#if`` evaluation never raises;
* the Python front end (Triton, CuTe DSL, ...) never raises on a ``.py`` input.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ptxlint.engine import INTERNAL_ERROR, instantiate, lint_source, parse_template
from ptxlint.fix import fix_text
from ptxlint.frontends.cxx.preproc import evaluate
from ptxlint.lsp.conversions import ENCODINGS, LineIndex, apply_change, sanitize
from ptxlint.model import Finding, SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext


class Failure(AssertionError):
    """ptxlint did something wrong on this input (not a crash: a broken promise)."""


@dataclass
class Checker:
    fix_every: int = 16  # the fix check re-lints several times: on one input in this many

    def __post_init__(self) -> None:
        self.rules = instantiate(load_rules().rules)
        self.context = RuleContext()
        self.count = 0

    def lint(self, path: str, text: str) -> list[Finding]:
        return lint_source(SourceFile(path, text), self.rules, self.context).findings

    def check(self, data: bytes, path: str, rng: random.Random) -> None:
        self.count += 1
        text = sanitize(data.decode("utf-8", "replace"))
        # lint_source turns an exception anywhere (extraction, a rule) into an internal-error
        # finding naming where it was raised: that is the crash check, at the cost of one lint
        findings = self.lint(path, text)
        broken = [f for f in findings if f.rule == INTERNAL_ERROR]
        if broken:
            raise Failure(broken[0].message)
        if not path.endswith(".py"):
            # memoised (the engine's cache): mutants of one fixture share most templates, and a
            # raise is never cached, so every new text is still parsed once
            for statement in _templates(text)[:4]:
                parse_template(statement, True)
                parse_template(statement, False)
            for condition in _conditions(text)[:4]:
                evaluate(condition)
        if self.count % self.fix_every == 0 and any(f.fix for f in findings):
            self.check_fix(path, text)
        self.check_positions(text, rng)

    def check_fix(self, path: str, text: str) -> None:
        def relint(current: str) -> list[Finding]:
            return self.lint(path, current)

        first = fix_text(text, relint, unsafe=True)
        if not first.converged:
            raise Failure("--fix did not settle")
        second = fix_text(first.text, relint, unsafe=True)
        if second.text != first.text:
            raise Failure("--fix is not idempotent: a second run changed the text again")

    def check_positions(self, text: str, rng: random.Random) -> None:
        index = LineIndex(text)
        offsets = {0, len(text), *(rng.randrange(len(text) + 1) for _ in range(4))}
        for encoding in ENCODINGS:
            for offset in offsets:
                line, character = index.position(offset, encoding)
                back = index.offset(line, character, encoding)
                again = index.position(back, encoding)
                if again != (line, character):
                    raise Failure(f"{encoding} position of offset {offset} does not round-trip: "
                                  f"{(line, character)} -> {back} -> {again}")
        a, b = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        start, end = index.position(a), index.position(b)
        a, b = index.offset(*start), index.offset(*end)  # snapped to code point boundaries
        changed = apply_change(text, start, end, "X")
        if changed != text[:a] + "X" + text[b:]:
            raise Failure(f"an edit at {start}-{end} did not land at offsets {a}-{b}")


def _templates(text: str) -> list[str]:
    """String literals after an asm keyword (cheap, no C++ parse): parser inputs."""
    out = []
    at = text.find("asm")
    while at != -1 and len(out) < 8:
        quote = text.find('"', at)
        close = text.find('"', quote + 1) if quote != -1 else -1
        if close == -1:
            break
        out.append(text[quote + 1 : close].replace("\\n", "\n").replace("\\t", "\t"))
        at = text.find("asm", close)
    return out


def _conditions(text: str) -> list[str]:
    return [line.split("if", 1)[1] for line in text.splitlines()
            if line.lstrip().startswith(("#if", "#elif")) and "if" in line][:8]


def checker_factory() -> Callable[[], Checker]:
    return Checker
