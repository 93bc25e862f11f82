"""The README's example runs on the fixtures show what ptxlint prints for them today: a rule
that starts finding something in fixtures/example or fixtures/example-triton (PTX108 on the
Triton pack=2 call did) must show in the README too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptxlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# "$ ptxlint check fixtures/..." and what follows it, to the end of the console block
EXAMPLES = re.findall(r"```console\n\$ ptxlint (check fixtures/\S+)\n(.*?)```", README, re.S)
SECONDS = re.compile(r"\d+\.\d\ds\)")


def test_the_readme_has_its_examples() -> None:
    assert [command for command, _ in EXAMPLES] == [
        "check fixtures/example", "check fixtures/example-triton"]


@pytest.mark.parametrize("command,shown", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_an_example_prints_what_the_readme_shows(command: str, shown: str, capsys,
                                                 monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main([*command.split(), "--no-cache", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert SECONDS.sub("s)", printed) == SECONDS.sub("s)", shown)
