"""What every worker of a forked pool needs, made once in the main process before the fork.

A worker started by fork inherits this process's memory. Before, each worker made for itself,
in its initializer and its first files, what every worker makes alike: the engine's imports,
the rules' instances and their modules (loaded on first use, ``ptxlint.lazy_rule``), and the
grammar's forms (compiled per opcode family on first use, ``ptxlint.ptx.forms``). Forked from a
process where ``warm`` ran, a worker starts with all of it (``rules_for``).

Measured on a 2-core machine: a worker's initializer and its first small file took 58 + 28 ms
of CPU when forked cold, 12 + 13 ms when forked from a warmed process; ``warm`` takes about
0.1 s once, of which the engine's and the rules' imports (about 45 ms) are what this process
needs anyway when it merges a file linted in parts. What is left in a worker's first file is
what no other process could have made for it (the headers its file includes, per-file memos).
Where workers are spawned, nothing is made here (``pool.Feed``: ``prepare`` runs only where
the start method is fork).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.rule import Rule

# The rules made by ``warm``, by the ids they were made for: one entry, the pool's.
_RULES: dict[tuple[str, ...], list[Rule]] = {}


def warm(rule_ids: tuple[str, ...]) -> None:
    """Make, in this process, what a worker linting with the rules ``rule_ids`` would make at
    start-up and on its first files."""
    from ptxlint.engine import instantiate
    from ptxlint.ptx.forms import forms
    from ptxlint.registry import load_rules

    rules = instantiate([r for r in load_rules().rules if r.id in rule_ids])
    for rule in rules:
        _ = rule.check  # a stand-in's real instance, its module imported with what it imports
    forms()  # every opcode family's forms compiled: about 14 ms
    _RULES.clear()
    _RULES[rule_ids] = rules


def rules_for(rule_ids: tuple[str, ...]) -> list[Rule] | None:
    """The rules ``warm`` made for ``rule_ids`` in this process (or the one it was forked
    from), or None."""
    return _RULES.get(rule_ids)
