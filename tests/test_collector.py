"""The cyclic collector around a file's lint (``ptxlint.collector``): a file's objects die of
their reference counts once its outcome is let go, and a process that settles after each file
collects the young generation only where a reference cycle still holds the file's syntax tree."""

from __future__ import annotations

import collections
import gc
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from ptxlint import collector
from ptxlint.config import Config, RuleSelector
from ptxlint.engine import instantiate
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.run import runner

FIXTURES = Path(__file__).parent.parent / "fixtures" / "rules"


class _Leftovers:
    """Per fixture file: its findings, its syntax trees still alive once its outcome is
    dropped, and the kinds of the objects that only the cyclic collector would free."""

    def __init__(self) -> None:
        self.findings: dict[str, int] = {}
        self.watched: dict[str, int] = {}
        self.trees_alive: dict[str, int] = {}
        self.garbage: dict[str, collections.Counter[str]] = {}


@pytest.fixture(scope="module")
def leftovers() -> _Leftovers:
    """Every rule fixture linted as the command line lints a file (``runner.lint_path``, every
    rule, the preview ones included), with the collector off throughout, so that nothing but
    reference counts frees the file's objects."""
    classes = list(load_rules().rules)
    selector = RuleSelector(Config(), [(r.id, r.name) for r in classes])
    rules = instantiate(classes)
    found = _Leftovers()
    made: list[weakref.ref[ParsedSource]] = []
    enabled = gc.isenabled()
    with pytest.MonkeyPatch.context() as patch:
        # every syntax tree made, whoever makes it (ParsedSource.__post_init__ reports it)
        patch.setattr(collector, "watch", lambda sentinel: made.append(weakref.ref(sentinel)))
        gc.collect()
        gc.disable()
        try:
            for path in sorted(FIXTURES.glob("PTX*.*")):
                made.clear()
                text = path.read_text(encoding="utf-8")
                outcome = runner.lint_path(str(path), rules, RuleContext(), selector, 1 << 24)
                name = path.name
                found.findings[name] = len(outcome.findings)
                del outcome
                trees = [ref() for ref in made]
                # trees of the file's own text: headers a rule read may be kept on purpose
                # for the next file (analysis.included_helpers)
                found.watched[name] = len(trees)
                found.trees_alive[name] = sum(1 for t in trees if t is not None and t.text == text)
                del trees
                gc.set_debug(gc.DEBUG_SAVEALL)
                gc.collect(0)  # the file's objects are all young: the collection it had
                gc.set_debug(0)
                found.garbage[name] = collections.Counter(
                    f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage
                )
                gc.garbage.clear()
                gc.collect(0)  # what the list held, freed now, is not counted for the next file
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            if enabled:
                gc.enable()
    return found


def test_a_linted_file_s_tree_dies_with_its_outcome_without_the_collector(
    leftovers: _Leftovers,
) -> None:
    """No reference cycle holds a file's syntax tree (a closure over ``cxx_facts._Builder``
    stored in the function's facts was one): in a process that settles, the young collection
    after each file is skipped because of it."""
    assert sum(leftovers.findings.values()) > 100  # the rules ran
    assert sum(leftovers.watched.values()) > len(leftovers.watched) // 2  # trees were made
    alive = {name: n for name, n in leftovers.trees_alive.items() if n}
    assert not alive


def test_a_linted_file_leaves_nothing_for_the_collector(leftovers: _Leftovers) -> None:
    garbage = {name: kinds.most_common(6) for name, kinds in leftovers.garbage.items() if kinds}
    assert not garbage


# ``gc.set_threshold`` keeps automatic collections out: each count below is the pause's own.
_SETTLING = """
import gc, weakref
from ptxlint import collector
from ptxlint.frontends.syntax_tree import parse

gc.set_threshold(10**9)
collector.keep_for_good()
if {settles}:
    collector.settle_after_each_file()

class Node:
    pass

def a_file(cycle):
    with collector.paused(collect_young=True):
        tree = parse("k.cu", "__device__ void f() {{ asm volatile(\\"trap;\\"); }}")
        first, second = Node(), Node()
        first.other, second.other = second, first
        if cycle:
            first.tree = tree  # a reference cycle holds the file's syntax tree
        refs = weakref.ref(tree), weakref.ref(first)
        del tree, first, second
    return refs

for cycle in (False, True):
    young = gc.get_stats()[0]["collections"]
    tree, other = a_file(cycle)
    print(tree() is None, other() is None, gc.get_stats()[0]["collections"] - young, end=" ")
parse("k.cu", "int x;")  # outside a pause: nothing watched
print(len(collector._Watched.refs))
"""


def _run(settles: bool) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _SETTLING.format(settles=settles)],
        capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def test_a_settling_process_collects_only_where_a_cycle_holds_the_file_s_tree() -> None:
    """In a process of its own (freezing is for processes that end with the run): without a
    cycle through the tree, the tree dies of its reference count and no collection runs (a
    cycle elsewhere is set aside as it is); with one, the young collection runs and frees it."""
    assert _run(settles=True) == "True False 0 True True 1 0"


def test_a_host_that_lives_on_collects_after_each_file_as_before() -> None:
    """The language server and test runs do not settle: the young collection runs after each
    file, a sentinel alive or not."""
    assert _run(settles=False) == "True True 1 True True 1 0"
