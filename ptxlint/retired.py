"""Rules taken out of ptxlint, whose ids and names stay reserved.

A rule id is a contract: users name it in ``--select``/``--ignore``, per-file-ignores,
configuration files and ``// ptxlint: ignore[...]`` comments, and SARIF consumers (code scanning
alerts) key on it. Deleting a rule would turn each of those into an "unknown rule" error or,
worse, let a later rule take the id and change what they mean. So, as ruff keeps its removed
rules for their documentation and messages, a retired rule stays here with the version it left
in, why, and the rule that does its job now where there is one:

* selecting it exactly (``--select``, ``extend-select``) is a warning, never an error, and
  selects nothing;
* ignoring it (``ignore``, ``per-file-ignores``, ``severity``, ``fixable``...) is valid and
  silent;
* a suppression comment naming it is valid and silent: PTX901 never reports it, as it never
  reports a code of a rule that did not run;
* ``ptxlint rule ID`` and ``docs/rules/ID.md`` say it is retired, and why;
* no rule, built in or plugin, may take its id or name (the registry refuses one that does).

This module is data only, imported by the configuration, the suppressions, the registry and the
documentation commands; it imports nothing of ptxlint.
"""

from __future__ import annotations

from typing import NamedTuple


class RetiredRule(NamedTuple):
    """A rule that no longer runs; its id and name are reserved for good."""

    id: str
    name: str
    version: str  # the ptxlint version it was retired in
    reason: str  # one line: why it went
    replaced_by: str | None  # the id of the rule that does its job now, if one does
    docs: str  # Markdown: the evidence behind the retirement, for docs/rules/ID.md


_PTX509_DOCS = """\
## What it did
Flagged `llvm.inline_asm(..., asm_dialect=llvm.AsmDialect.AD_ATT)` (CuTe DSL, JAX Mosaic GPU,
any MLIR Python binding) whose PTX template holds `{` or `}`: a scope block
(`{ .reg .b32 t; ... }`) or a register vector (`mov.b64 {$1, $0}, prod;`). It ran in preview
only, at info severity.

## Why it was retired
The argument changes nothing for NVPTX, so the rule flagged code that is harmless. LLVM's
source settles it (`llvm/lib/CodeGen/AsmPrinter/AsmPrinterInlineAsm.cpp`, `EmitInlineAsmStr`,
and `llvm/lib/Target/NVPTX/MCTargetDesc/NVPTXMCAsmInfo.cpp`):

- The asm printer tests the statement's dialect once: `AD_Intel` or not. `AD_ATT` is
  `llvm::InlineAsm`'s default (what a call without `asm_dialect=` gets), so the two spellings
  build the same statement.
- Under either dialect, `{`, `|` and `}` only end a run of literal text; the switch that
  follows has no case for them, so the next run starts with the brace and copies it into the
  output as written. LLVM's dialect alternatives are spelled `$(`, `$|` and `$)` (the form
  clang rewrites GCC's `{att|intel}` into), and PTX never writes those.
- NVPTX sets `UseIntegratedAssembler = false`, so the printed text goes to the PTX file
  unparsed; the one place that hands the dialect to an assembler parser does so for x86 only.

quack's pull request 98 blamed the argument for ptxas parse errors ("Parsing error near
'.reg': syntax error") at 12 call sites with nvidia-cutlass-dsl 4.4.1 and CUDA 13.0 on sm_121a,
reading `{` as an AT&T group delimiter. The printer above reads no such thing:
nvidia-cutlass-dsl 4.4.1 and 4.8.1 compiled braced `AD_ATT` templates (quack's `mul_wide_u32`
and `store_shared_remote_x4` among them) to the same PTX as without the argument, CUTLASS's own
CuTe DSL examples and flashinfer ship 249 such calls, and MLIR's own `nvvm.inline_ptx` lowering
emits `asm_dialect = att` around braced templates. quack's failing tensormap call also passed
three operands for two constraints, which PTX501 reports.

The dialect that does change the output is `AD_Intel`: the printer wraps the template in
`.intel_syntax` and `.att_syntax` lines, which are not PTX directives, and ptxas stops at the
first ("Parsing error near '.intel_syntax': syntax error", LLVM 14's `llc` and ptxas 13.0).
That is a different defect, with its own rule: PTX513 (`intel-asm-dialect`).

## What to do
Nothing: an `asm_dialect=AD_ATT` argument may stay or go. Suppressions and configuration that
name PTX509 or `att-dialect-braces` stay valid and do nothing.
"""

RETIRED: tuple[RetiredRule, ...] = (
    RetiredRule(
        "PTX509",
        "att-dialect-braces",
        "0.1.0",
        "asm_dialect=AD_ATT is LLVM's default dialect and changes nothing for NVPTX (the "
        "braces it flagged reach ptxas as written)",
        None,
        _PTX509_DOCS,
    ),
)


def find_retired(key: str) -> RetiredRule | None:
    """The retired rule whose id or name ``key`` is exactly (ids in any case), or None."""
    upper, lower = key.upper(), key.lower()
    for rule in RETIRED:
        if rule.id == upper or rule.name == lower:
            return rule
    return None


def retired_selector(selector: str) -> RetiredRule | None:
    """The retired rule a configuration selector names exactly (selectors are case-sensitive:
    ``PTX509`` or ``att-dialect-braces``), or None."""
    for rule in RETIRED:
        if selector in (rule.id, rule.name):
            return rule
    return None


def retired_codes() -> frozenset[str]:
    """Every retired rule's id and name: codes a suppression may name without effect."""
    return frozenset(code for rule in RETIRED for code in (rule.id, rule.name))


def selection_warning(selector: str) -> str | None:
    """What a selection in ``select``/``extend-select`` that names a retired rule is told (by
    ``check`` on stderr, by the language server as its other configuration problems), or None
    where ``selector`` names none: it is reserved, so no error, and selects nothing."""
    rule = retired_selector(selector)
    if rule is None:
        return None
    return f"selection {selector!r} selects nothing: {notice(rule)}"


def notice(rule: RetiredRule) -> str:
    """One line: the rule is retired, since when, why, and what replaces it."""
    replaced = f"; use {rule.replaced_by} instead" if rule.replaced_by else ""
    return (f"{rule.id} ({rule.name}) was retired in ptxlint {rule.version}: "
            f"{rule.reason}{replaced}")
