"""``ptxlint stats``: what was found and linted, and how many operands have a known type; with
``--list-skipped``, each statement left out and why."""

from __future__ import annotations

import argparse
import sys

from ptxlint.cli import settings
from ptxlint.cli.exits import EXIT_ERROR, EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    from ptxlint.frontends.python import PYTHON_EXTENSIONS
    from ptxlint.report.names import printable_name
    from ptxlint.run.runner import default_jobs, run

    config, selector, rule_classes, context = settings.configure(args)
    shown = settings.show(args)
    if shown is not None:
        return shown
    settings.apply_force_exclude(args)
    result = run(
        args.paths, config, selector, [], context, jobs=default_jobs(),
        tier2=settings.tier2(args, config), resolver=args.resolver,
    )
    typed = result.typed_operands
    share = f" ({100 * typed / result.operands:.1f}%)" if result.operands else ""
    found = result.statements + result.skipped_statements
    print(f"files read:                 {result.files}")
    print(f"files with asm:             {result.files_with_asm}")
    print(f"asm statements found:       {found}")
    opaque = result.opaque_macros
    print(f"  linted as PTX:            {result.statements}")
    print(f"    from macro invocations: {result.expansion_statements}")
    print(f"    extra #if branches:     {result.branch_variants}")
    print(f"  not linted (host/unsure): {result.skipped_statements}")
    print(f"asm macros never expanded:  {len(opaque)} (their templates stay opaque)")
    print(f"asm macro invocations not expanded: {len(result.skipped_invocations)}")
    print(f"asm labels (not statements): {result.asm_labels}")
    print(f"operands:                   {result.operands}")
    print(f"  with a known type:        {typed}{share}")
    print(f"    from this file (tier 1): {typed - result.typed_tier2}")
    print(f"    from libclang (tier 2):  {result.typed_tier2}")
    if result.python_calls:
        linted = result.python_calls - sum(
            1 for path, _, _ in result.skipped if path.endswith(PYTHON_EXTENSIONS)
        )
        print(f"Python calls found:         {result.python_calls}")
        print(f"  templates resolved:       {linted - result.python_opaque}")
        print(f"  with opaque pieces:       {result.python_opaque}")
        print(f"  not linted (not PTX):     {result.python_calls - linted}")
    print_undescribed()
    if args.list_skipped:
        for path, line, reason in result.skipped:
            print(f"{printable_name(path)}:{line}: not linted: {reason}")
        for path, line, reason in result.skipped_invocations:
            print(f"{printable_name(path)}:{line}: not expanded: {reason}")
        for path, line, macro in opaque:
            print(f"{printable_name(path)}:{line}: opaque: macro {macro} is never expanded in "
                  "these files")
    for path, reason in result.errors:
        print(f"ptxlint: error: {printable_name(path)}: {reason}", file=sys.stderr)
    return EXIT_ERROR if result.errors or result.internal_errors else EXIT_OK



def print_undescribed() -> None:
    """The instruction families the grammar abstains on (PTX204/206/207 stay silent there)."""
    from ptxlint.ptx.grammar import undescribed

    missing, partial = undescribed()
    print(f"PTX families without a form grammar (not judged): {len(missing)}")
    if missing:
        print("  " + " ".join(missing))
    print(f"PTX families with parts not described (not judged): {len(partial)}")
    for opcode, words in partial.items():
        print(f"  {opcode}: " + " ".join(f".{w}" if "+" not in w else w for w in words))
