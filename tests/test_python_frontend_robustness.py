"""Bad Python never crashes the Python front end or a rule: sampled mutations of the Python
fixtures (cut, duplicated and inserted characters that matter to it: quotes, braces, `$`, `%`,
commas, backslashes) are linted with every rule, and no internal error may come out. A small,
seeded sample for the test suite; a fuzz harness can run the same loop for longer."""

from __future__ import annotations

import glob
import os
import random
from pathlib import Path

from ptxlint.engine import INTERNAL_ERROR, instantiate, lint_source
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from tests.conftest import FIXTURES

_PIECES = ['"', "'", '"""', "{", "}", "$", "${", "%", ",", "\\", "(", ")", "[", "]", "f'", "\n", "+="]


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        kind = rng.randrange(3)
        if kind == 0 and text:
            end = min(len(text), at + rng.randint(1, 12))
            text = text[:at] + text[end:]
        elif kind == 1 and text:
            end = min(len(text), at + rng.randint(1, 40))
            text = text[:at] + text[at:end] + text[at:]
        else:
            text = text[:at] + rng.choice(_PIECES) + text[at:]
    return text


def test_mutated_python_sources_never_raise_or_report_internal_errors() -> None:
    rules = instantiate(load_rules().rules)
    paths = sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.py")))
    paths.append(os.path.join(FIXTURES, "example-triton", "triton_kernels.py"))
    sources = [Path(path).read_text(encoding="utf-8") for path in paths]
    rng = random.Random(19)
    for n in range(240):
        text = mutate(rng.choice(sources), rng)
        result = lint_source(SourceFile(f"m{n}.py", text), rules, RuleContext())
        internal = [f.message for f in result.findings if f.rule == INTERNAL_ERROR]
        assert not internal, (internal, text)
