"""The rule plugin API: a rule is a small class with an id, a name, docs and ``check``."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING, ClassVar

from ptxlint.analysis.carry import PRODUCERS
from ptxlint.analysis.operand_summary import SUMMARY_NEEDS, summary_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span, piece_count
from ptxlint.ptx.isa_table import ADVISED, DEPRECATED
from ptxlint.ptx.layout import STRING_PIECES
from ptxlint.value_class import value_class

if TYPE_CHECKING:
    from ptxlint.analysis.statement import StatementAnalysis


@value_class(slots=False)
class RuleContext:
    """What a rule may know beyond the statement: the target and rule options."""

    arch: int | None = None  # e.g. 90 for sm_90; None when unknown
    arch_suffix: str = ""  # "a" for sm_90a, "f" for sm_100f
    options: dict[str, object] = field(default_factory=dict)
    # Every linted statement of the current file, in source order, for the few rules whose
    # verdict depends on a neighbour (a scope opened in one asm and closed in the next). A
    # tuple, or for a file linted in parts a sequence that reads the others on first use.
    file_statements: Sequence[AsmStatement] = ()
    # Tier-2 (libclang) types of this file, when a compile database was given: a
    # ptxlint.tier2.Tier2Types with operand_types(statement, index) -> per-instantiation types.
    tier2: object | None = None
    # The file's tree-sitter tree (a frontends.syntax_tree.ParsedSource) when the extractor made
    # one, for rules that follow values through the file (analysis.value_flow) without a reparse.
    parsed: object | None = None
    # Per-function C++ facts of this file (an analysis.cxx_facts.FileFacts, built lazily): read
    # them through ptxlint.analysis.cxx_facts.facts_for(context, statement).
    cxx: object | None = None
    # Every target the build compiles for (``arch`` as a list), in ascending target order, as
    # (sm, suffix) pairs; empty: none named. With one, ``arch`` and ``arch_suffix`` are it;
    # with several they stay None and "", so a reader that judges one target takes the path of
    # a run without ``arch`` unless it asks ``one_arch`` or reads the list.
    targets: tuple[tuple[int, str], ...] = ()
    # Where ``targets`` come from, as a finding names it: "" for the configuration or --arch,
    # "compile_commands.json" for a file's own compile command where none is configured.
    targets_from: str = ""

    @property
    def listed_targets(self) -> tuple[tuple[int, str], ...]:
        """The targets named (``targets``, else ``arch`` alone), lowest first; empty: none."""
        if self.targets:
            return self.targets
        return ((self.arch, self.arch_suffix),) if self.arch is not None else ()

    def one_arch(self, analysis: StatementAnalysis) -> int | None:
        """The one target's ``sm`` for a reader that judges one: ``arch`` where one target is
        named; with several, the lowest listed one the statement is certainly compiled for (its
        guards decide, as ``StatementAnalysis.compiled_for_arch``), whose build sees it first;
        None where none is named or none certainly compiles it (the guards decide, as without
        ``arch``)."""
        if len(self.targets) <= 1:
            return self.arch
        from ptxlint.ptx.targets import Target

        return next((sm for sm, suffix in self.targets
                     if analysis.compiled_for_arch(Target(sm, suffix))), None)


# Instructions after which the next one in the text need not run.
_BRANCHING = frozenset({"bra", "brx", "ret", "exit", "trap"})
# Opcodes the PTX ISA deprecates or removes some form of (``isa_table.DEPRECATED``), or ptxas
# advises against (``isa_table.ADVISED``): PTX402 speaks only of an instruction with one.
_DEPRECATED_OPCODES = frozenset(entry[0] for entry in (*DEPRECATED, *ADVISED))

# The statement features read off the statement and its PTX parse (not its operand list or
# ``%`` tokens: ``SUMMARY_NEEDS``), found together by ``parse_features``.
PARSE_NEEDS = (
    "clobbers", "missing-commas", "llvm", "instructions", "branches", "directives", "labels",
    "braces", "addresses", "string-pieces", "template-problems", "carry-arithmetic",
    "deprecated-opcodes", "collectives", "cta-groups", "unterminated-last", "never",
    "helper-calls", "left-out",
)
# The need of a rule that speaks about the steps a file takes through calls of the asm helpers
# its project headers define (the protocol rules' flows, ptxlint.analysis.function_flow).
HELPER_CALLS = "helper-calls"
# The need of a rule that speaks about the statements extraction left out for what their
# reading found (``ExtractionResult.left_out``): the engine asks it about those alone.
LEFT_OUT = "left-out"


def parse_features(
    statement: AsmStatement, wanted: Collection[str] = PARSE_NEEDS
) -> list[str]:
    """The names of ``PARSE_NEEDS`` that hold for ``statement`` (of ``wanted`` at least: a
    cheap one may be named though not wanted). One call per statement for every rule, where a
    test per feature was a call each: the engine asks it of every statement, and the features
    it reads off the instructions (carry arithmetic, a deprecated opcode) come from one set of
    the statement's opcodes."""
    found: list[str] = []
    ptx = statement.ptx
    instructions = ptx.instructions
    if instructions:
        found.append("instructions")
        opcodes = {i.opcode for i in instructions}
        if not opcodes.isdisjoint(_BRANCHING) or any(
            i.predicate is not None for i in instructions
        ):
            found.append("branches")  # an instruction guarded, branching or ending the thread
        if not opcodes.isdisjoint(PRODUCERS):
            found.append("carry-arithmetic")  # add, sub, mad and their carry forms
        if not opcodes.isdisjoint(_DEPRECATED_OPCODES):
            found.append("deprecated-opcodes")
        if not instructions[-1].terminated:
            found.append("unterminated-last")  # the template's last instruction has no ';'
        if "collectives" in wanted and any(
            i.opcode == "bar" or "aligned" in i.modifiers or "sync" in i.modifiers
            for i in instructions
        ):
            found.append("collectives")  # what the warp may have to reach together (PTX601)
        if "tcgen05" in opcodes and any(
            m.startswith("cta_group") for i in instructions if i.opcode == "tcgen05"
            for m in i.modifiers
        ):
            found.append("cta-groups")  # a tcgen05 instruction naming its .cta_group (PTX614)
    if statement.clobbers:
        found.append("clobbers")
    if statement.missing_commas:
        found.append("missing-commas")
    if statement.syntax == "llvm" or statement.llvm is not None:
        # LLVM inline asm (Triton, CuTe DSL, llvmlite): its syntax, or the call it came from
        found.append("llvm")
    if ptx.directives:
        found.append("directives")
    if ptx.labels:
        found.append("labels")
    if ptx.braces:
        found.append("braces")
    if ptx.problems:
        found.append("template-problems")  # the parser noted a problem (a missing ';'...)
    if "[" in statement.template.text:
        found.append("addresses")  # the parser makes an address operand only of a bracket
    if "string-pieces" in wanted and piece_count(statement.template, STRING_PIECES) > 1:
        found.append("string-pieces")  # two string literals at least: a boundary between
    return found


def _summarized(name: str) -> Callable[[AsmStatement], bool]:
    def holds(statement: AsmStatement) -> bool:
        return name in summary_of(statement).holds

    holds.__name__ = name
    return holds


def _parsed(name: str) -> Callable[[AsmStatement], bool]:
    def holds(statement: AsmStatement) -> bool:
        return name in parse_features(statement, (name,))

    holds.__name__ = name
    return holds


# What a rule may need of a statement (``Rule.needs``); each test is O(operands) at most and
# runs once per statement for all the rules. Those of the operand list and the ``%`` tokens are
# answered together, in one pass over each (ptxlint.analysis.operand_summary), and so are those
# of the statement's parse (``parse_features``).
NEEDS: dict[str, Callable[[AsmStatement], bool]] = {
    **{name: _summarized(name) for name in SUMMARY_NEEDS},
    # "operands", "outputs", "inputs", "percents": the statement has some
    # "write-only-outputs": an output declared '=' without '+' (only such a one can be read
    #   before it is written: PTX106)
    # "immediate-operand": an "n" operand
    # "several-letters": a constraint of several letters, not a tie (PTX003)
    # "tied-operands": a constraint that is an output's number ("0")
    # "foreign-letters": a constraint letter nvcc does not take ("m", "x"; clang's "i", "c")
    # "foreign-clobbers": a clobber other than "memory"
    # "misplaced-modifiers": an output without '=' or '+', an input with one, a modifier on an
    #   immediate letter (PTX006)
    # "indexed-operands": three or more operands indexing an array ("d"(A[0])) or naming a
    #   vector member ("r"(v.x))
    # "unreferenced-operands": an operand no %N names
    # "stray-references": a %N past the last operand, or a symbolic %[name]
    # "modified-references": a %N with a GCC operand modifier (%H1)
    # "percent-escapes": a %% escape, a bare %name, a trailing %, a malformed $
    **{name: _parsed(name) for name in PARSE_NEEDS},
    # "clobbers", "missing-commas", "instructions", "directives", "labels", "braces": the
    #   statement has some; "llvm": LLVM inline asm (its syntax, or the call it came from)
    # "branches": a guarded, branching or thread-ending instruction
    # "addresses": a '[' in the template; "string-pieces": two string literals at least;
    # "template-problems": a problem the PTX parser noted (a missing ';' before an instruction)
    # "carry-arithmetic": add, sub, mad or a carry form (addc, subc, madc)
    # "deprecated-opcodes": an opcode the ISA deprecates some form of (PTX402)
    # "collectives": an instruction the warp may have to reach together, a `bar` or one
    #   spelling `.aligned` or `.sync` (PTX601)
    # "cta-groups": a tcgen05 instruction that names its .cta_group::N (PTX614)
    # "unterminated-last": the template's last instruction has no ';' (PTX205)
    # "never": the rule speaks once per file, not per statement (PTX901)
    # "helper-calls": no statement has it; the rule also speaks about the calls of asm helpers
    #   of the project headers a file includes, so a file with no asm of its own that names
    #   one is linted while such a rule is enabled for it (ptxlint.run.prefilter), and the
    #   engine asks the rule about those calls (ptxlint.analysis.helper_carrier)
    # "left-out": no statement linted has it; the engine asks the rule about each statement
    #   extraction left out for what its reading found, a template literal broken by a line
    #   end (``ExtractionResult.left_out``, ``left_out_outcomes``), and about nothing else
}


class Rule:
    """Base class for rules. Subclasses set the class attributes and implement ``check``.

    ``docs`` is Markdown with the sections *What it does*, *Why is this bad?*, *Example* and
    *Use instead* (and *Fix safety* where the rule has a fix); ``ptxlint rule ID`` prints it.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    docs: ClassVar[str]
    tags: ClassVar[tuple[str, ...]] = ()
    precision: ClassVar[str] = "high"  # SARIF's precision: very-high | high | medium | low
    # What a verdict reads, for the language server's re-lint after an edit inside one
    # statement's template (ptxlint.lsp.incremental): "statement" for the statement itself, the
    # file's C++ code and the options; "values" for those and, of the other asm statements,
    # only what ptxlint.analysis.value_flow reads of them (a template spelling one of its
    # TEMPLATE_WORDS: the address a `cvta` made); "file" when other asm statements count in
    # any other way (a brace opened in the previous one), and for any rule that does not say.
    # "file" rules are checked again on every statement after every edit, "values" rules only
    # after an edit of a template that spells one of those words before or after it.
    scope: ClassVar[str] = "file"
    # The statement features (names of ``NEEDS``) of which at least one must hold for
    # ``check`` to say anything: the engine does not call the rule for a statement that has
    # none of them (36 rules x 23,000 statements of flashinfer were 850,000 calls, most of
    # them to return at once). Empty: every statement. A rule must say nothing, and raise
    # nothing, where none of its needs holds (tests/test_rule_needs.py), so that calling it
    # directly gives what the engine gives.
    needs: ClassVar[tuple[str, ...]] = ()
    # True: what ``check`` says of a statement is a function of that statement alone, so the
    # engine works it out once per distinct statement and replays it, moved, on every copy
    # (ptxlint.rule_memo; four in five of flashinfer's statements are copies). It may read:
    # the statement and what it holds (template, PTX parse, operands with their types, context),
    # the source text inside the statement's span, the RuleContext's arch, arch_suffix,
    # targets, targets_from and options, and its file through ptxlint.file_traits only; not the
    # path, not the file's text elsewhere, not line numbers. It may also read
    # context.file_statements, parsed or cxx: the engine notices, and that one outcome is not
    # memoised. A plugin rule that does not say is never memoised.
    pure: ClassVar[bool] = False
    # True: a new rule whose precision on public trees is not reviewed yet. It runs only with
    # --preview (or ``preview = true``), whatever --select says, as ruff's preview rules do.
    preview: ClassVar[bool] = False

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    # Helpers that keep rules short and their findings uniform.
    def finding(
        self,
        statement: AsmStatement,
        span: Span,
        message: str,
        fix: Fix | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        return Finding(
            rule=self.id,
            name=self.name,
            severity=severity or self.severity,
            path=statement.source.path,
            span=span,
            message=message,
            fix=fix,
            statement=statement,
        )

    def template_span(self, statement: AsmStatement, start: int, end: int) -> Span:
        """Source span of template characters ``[start, end)``."""
        return statement.template.source_span(start, end)

    def template_edit(
        self, statement: AsmStatement, start: int, end: int, new_text: str
    ) -> Edit | None:
        """An edit replacing template characters ``[start, end)``, or ``None`` where the source
        does not spell them literally (an escape sequence or a macro sits there)."""
        span = statement.template.source_span(start, end)
        if statement.source.text[span.start : span.end] != statement.template.text[start:end]:
            return None
        return Edit(span, new_text)


_RULE_ID = re.compile(r"^[A-Z]+[0-9]{3}$")
_RULE_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
REQUIRED_DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")


def first_of_each(groups: Iterable[Sequence[Finding]], what: str) -> Iterator[Finding]:
    """One finding per group of a statement's instructions that one change mends (PTX401: a
    target, PTX204: a newer toolkit): the group's first finding speaks and counts the others
    ("; 2 more instructions of the statement need {what} too")."""
    for findings in groups:
        first, more = findings[0], len(findings) - 1
        if more:
            others = f"{more} more instruction{'s' if more > 1 else ''} of the statement"
            verb = "need" if more > 1 else "needs"
            first = replace(first, message=f"{first.message}; {others} {verb} {what} too")
        yield first


def validate_rule_class(rule: type[Rule], docs: bool = True) -> list[str]:
    """Problems with a rule class's metadata, for the registry and for tests. ``docs=False``
    leaves the docs unread: a built-in rule's stand-in (ptxlint.lazy_rule) would import its
    module for them, and tests/test_rule_manifest.py checks the real classes' docs."""
    problems: list[str] = []
    for attr in ("id", "name", "severity", "summary", "docs")[: 5 if docs else 4]:
        if not hasattr(rule, attr):
            problems.append(f"{rule.__name__}: missing {attr}")
    if problems:
        return problems
    if not _RULE_ID.match(rule.id):
        problems.append(f"{rule.__name__}: id {rule.id!r} is not like PTX123")
    if not _RULE_NAME.match(rule.name):
        problems.append(f"{rule.__name__}: name {rule.name!r} is not kebab-case")
    for section in REQUIRED_DOC_SECTIONS if docs else ():
        if section not in rule.docs:
            problems.append(f"{rule.id}: docs lack {section!r}")
    needs = getattr(rule, "needs", ())
    if not isinstance(needs, tuple) or any(n not in NEEDS for n in needs):
        problems.append(f"{rule.id}: needs {needs!r} is not a tuple of {sorted(NEEDS)}")
    if not isinstance(getattr(rule, "pure", False), bool):
        problems.append(f"{rule.id}: pure must be True or False")
    if not isinstance(getattr(rule, "preview", False), bool):
        problems.append(f"{rule.id}: preview must be True or False")
    return problems
