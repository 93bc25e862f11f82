"""The language server's adapters, in process: suppress edits, fix-all edits, the linter."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

pytest.importorskip("lsprotocol", reason="the lsp extra (pygls, lsprotocol) is not installed")

from ptxlint.engine import INTERNAL_ERROR  # noqa: E402
from ptxlint.fix import apply_edits  # noqa: E402
from ptxlint.lsp import hover  # noqa: E402
from ptxlint.lsp.actions import minimal_edit, suppress_edit, wanted  # noqa: E402
from ptxlint.lsp.conversions import LineIndex  # noqa: E402
from ptxlint.lsp.diagnostics import to_diagnostic  # noqa: E402
from ptxlint.lsp.linting import Linter, is_config_file  # noqa: E402
from ptxlint.lsp.rule_docs import RuleDocs  # noqa: E402
from ptxlint.model import (  # noqa: E402
    AsmStatement,
    Edit,
    Finding,
    Fix,
    PtxInstruction,
    PtxOperand,
    Severity,
)
from ptxlint.rule import Rule, RuleContext  # noqa: E402
from ptxlint.run.cache import clean  # noqa: E402
from tests.conftest import lint_text  # noqa: E402

BAD_LINE = '  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));'
BAD = f"__device__ unsigned f(unsigned a) {{\n  unsigned d;\n{BAD_LINE}\n  return d;\n}}\n"


def apply(text: str, edit: Edit) -> str:
    return apply_edits(text, [Fix("t", (edit,))])[0]


def only_finding(text: str, rule: str = "PTX001") -> Finding:
    findings = [f for f in lint_text(text) if f.rule == rule]
    assert len(findings) == 1, findings
    return findings[0]


def test_suppress_appends_a_comment_to_the_statements_first_line() -> None:
    edit = suppress_edit(BAD, only_finding(BAD))
    assert edit is not None
    fixed = apply(BAD, edit)
    assert f"{BAD_LINE}  // ptxlint: ignore[PTX001]\n" in fixed
    assert not [f for f in lint_text(fixed) if f.rule == "PTX001"]


def test_suppress_on_a_multi_line_statement_goes_on_the_first_line() -> None:
    text = (
        "__device__ unsigned f(unsigned a) {\n  unsigned d;\n"
        '  asm("{\\n\\t"\n      "add.u32 %0, %1, %3;\\n\\t"\n      "}"\n'
        '      : "=r"(d) : "r"(a));\n  return d;\n}\n'
    )
    edit = suppress_edit(text, only_finding(text))
    assert edit is not None
    fixed = apply(text, edit)
    assert '  asm("{\\n\\t"  // ptxlint: ignore[PTX001]\n' in fixed
    assert not [f for f in lint_text(fixed) if f.rule == "PTX001"]


def test_suppress_merges_into_an_existing_directive() -> None:
    text = BAD.replace(BAD_LINE, BAD_LINE + "  // ptxlint: ignore[PTX101]")
    edit = suppress_edit(text, only_finding(text))
    assert edit is not None
    assert "// ptxlint: ignore[PTX101, PTX001]\n" in apply(text, edit)


def test_suppress_merges_into_a_directive_on_its_own_line_above() -> None:
    text = BAD.replace(BAD_LINE, "  // ptxlint: ignore[PTX101]\n" + BAD_LINE)
    edit = suppress_edit(text, only_finding(text))
    assert edit is not None
    assert "  // ptxlint: ignore[PTX101, PTX001]\n" + BAD_LINE in apply(text, edit)


def test_suppress_inside_a_macro_keeps_the_line_continuation() -> None:
    text = (
        "#define ADD(d, a) \\\n"
        '  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a)); \\\n'
        "  (void)0\n"
        "__device__ unsigned f(unsigned a) { unsigned d; ADD(d, a); return d; }\n"
    )
    finding = only_finding(text)
    edit = suppress_edit(text, finding)
    assert edit is not None
    fixed = apply(text, edit)
    assert '"r"(a)); /* ptxlint: ignore[PTX001] */ \\\n' in fixed
    assert not [f for f in lint_text(fixed) if f.rule == "PTX001"]


def test_suppress_never_writes_into_a_raw_string() -> None:
    text = (
        "__device__ unsigned f(unsigned a) {\n  unsigned d;\n"
        '  asm(R"(add.u32 %0,\n    %1, %3;)" : "=r"(d) : "r"(a));\n  return d;\n}\n'
    )
    edit = suppress_edit(text, only_finding(text))
    assert edit is not None
    fixed = apply(text, edit)
    assert '  // ptxlint: ignore[PTX001]\n  asm(R"(add.u32 %0,\n' in fixed
    assert not [f for f in lint_text(fixed) if f.rule == "PTX001"]


def test_minimal_edit_covers_only_the_change() -> None:
    before, after = "aaa\r\nbbb\r\nccc", "aaa\r\nbXb\r\nccc"
    edit = minimal_edit(before, after)
    assert (edit.span.start, edit.span.end, edit.new_text) == (6, 7, "X")
    assert apply(before, edit) == after
    assert apply("abc", minimal_edit("abc", "abc")) == "abc"
    edit = minimal_edit("x\r\n", "x\n")
    assert apply("x\r\n", edit) == "x\n"
    assert not (0 < edit.span.start < 3 and "x\r\n"[edit.span.start - 1] == "\r")


def test_kinds_are_hierarchical() -> None:
    assert wanted("source.fixAll.ptxlint", ["source.fixAll"])
    assert wanted("source.fixAll.ptxlint", ["source"])
    assert wanted("quickfix", None)
    assert not wanted("quickfix", ["source"])
    assert not wanted("source.fixAllx", ["source.fixAll"])


class Boom(Rule):
    id = "PTX999"
    name = "boom"
    severity = Severity.WARNING
    summary = "raises"
    docs = "## What it does\n## Why is this bad?\n## Example\n## Use instead\n"

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterable[Finding]:
        raise RuntimeError("kaboom")


def test_a_rule_exception_becomes_a_diagnostic(tmp_path) -> None:
    linter = Linter(rule_classes=(Boom,))
    result = linter.lint(str(tmp_path / "k.cu"), BAD)
    (finding,) = result.findings
    assert finding.rule == INTERNAL_ERROR and "kaboom" in finding.message
    diagnostic = to_diagnostic(finding, LineIndex(BAD), "utf-16", RuleDocs({"PTX999": Boom}))
    assert diagnostic.code == INTERNAL_ERROR and diagnostic.code_description is None
    assert diagnostic.range.start.line == 2


@pytest.mark.parametrize(
    "text",
    [
        '__device__ void f() { asm("add.u32 %0, %1;\n',  # unterminated string and call
        '__device__ void f() { asm("mov.u32 %0, \ufffd\ufffd;" : "=r"(x)); }\n',  # bad bytes
        '\x00\x01\x02 asm( :: ) }}}{{{ R"(',
        "",
    ],
)
def test_broken_documents_lint_without_raising(tmp_path, text: str) -> None:
    result = Linter().lint(str(tmp_path / "k.cu"), text)
    for finding in result.findings:
        to_diagnostic(finding, LineIndex(text), "utf-16", RuleDocs({}))


def test_configuration_is_found_per_folder_and_reloaded(tmp_path) -> None:
    source = tmp_path / "src" / "k.cu"
    source.parent.mkdir()
    told: list[str] = []
    linter = Linter(report=told.append)
    assert [f.rule for f in linter.lint(str(source), BAD).findings] == ["PTX001"]
    (tmp_path / "ptxlint.toml").write_text('ignore = ["PTX001"]\n')
    assert [f.rule for f in linter.lint(str(source), BAD).findings] == ["PTX001"]  # cached
    linter.invalidate()
    assert linter.lint(str(source), BAD).findings == []
    (tmp_path / "ptxlint.toml").write_text("ignore = [\n")
    linter.invalidate()
    assert [f.rule for f in linter.lint(str(source), BAD).findings] == ["PTX001"]  # defaults
    assert len(told) == 1 and "configuration error" in told[0]
    assert is_config_file(str(tmp_path / "pyproject.toml"))
    assert not is_config_file(str(source))
    # a selector that names no rule: the file and key, as `ptxlint check` says it
    (tmp_path / "ptxlint.toml").write_text('ignore = ["PTX00l"]\n')
    linter.invalidate()
    linter.lint(str(source), BAD)
    assert f"{tmp_path / 'ptxlint.toml'}: ignore: unknown rule selector(s): PTX00l" in told[-1]
    # a selection of a retired rule: reserved, so no error, and told as `ptxlint check` warns
    (tmp_path / "ptxlint.toml").write_text('select = ["PTX001", "PTX509"]\n')
    linter.invalidate()
    assert [f.rule for f in linter.lint(str(source), BAD).findings] == ["PTX001"]
    assert told[-1].startswith(f"{tmp_path / 'ptxlint.toml'}: selection 'PTX509' selects "
                               "nothing: PTX509 (att-dialect-braces) was retired in ptxlint ")


def test_rule_docs_link_is_a_template_or_a_written_page(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path))  # the one cache folder setting
    monkeypatch.delenv("PTXLINT_RULE_DOCS_URL", raising=False)
    docs = RuleDocs({"PTX999": Boom})
    href = docs.href("PTX999")
    assert href is not None and href.startswith("file://") and href.endswith("/PTX999.md")
    page = next(tmp_path.rglob("PTX999.md")).read_text()
    assert page.startswith("# PTX999 boom\n") and "## What it does" in page
    templated = RuleDocs({"PTX999": Boom}, "https://docs.example/{id}/{name}.html")
    assert templated.href("PTX999") == "https://docs.example/PTX999/boom.html"
    assert docs.href("PTX123") is None
    assert clean()[1] > 0 and not list(tmp_path.rglob("PTX999.md"))  # `ptxlint clean` too


def _instruction(opcode: str, *modifiers: str, operands: int = 3) -> PtxInstruction:
    parts = tuple(PtxOperand("register", f"%r{i}", 0, 0) for i in range(operands))
    return PtxInstruction(opcode, modifiers, parts, None, 0, 0, 0, 0, 0, True)


def test_instruction_hover_shows_the_tables_facts() -> None:
    text = hover.instruction_hover(_instruction("cp", "async", "ca", "shared", "global"))
    assert text is not None and "cp.async.ca.shared.global" in text and "sm_80" in text
    text = hover.instruction_hover(_instruction("add", "u32"))
    assert text is not None and "Add two values." in text
    assert "Operand types: `u32`, `u32`, `u32`." in text
    assert hover.instruction_hover(_instruction("movl")) is None  # x86, not PTX


def test_instruction_hover_degrades_without_the_table(monkeypatch) -> None:
    monkeypatch.setattr(hover, "_table_cache", [None])
    text = hover.instruction_hover(_instruction("cp", "async", "ca", "shared", "global"))
    # the summary and the derived constraints (the grammar's, not the table's) stay
    assert text is not None and "sm_80" not in text
    assert "(cp.async and friends)." in text and "Derived constraints" in text


def test_the_editor_hears_when_the_toolkit_cannot_compile_for_arch(tmp_path) -> None:
    source = tmp_path / "k.cu"
    (tmp_path / "ptxlint.toml").write_text('arch = "sm_70"\ncuda-version = "13.1"\n')
    told: list[str] = []
    Linter(report=told.append).lint(str(source), BAD)
    assert len(told) == 1 and "CUDA 13.1 does not compile for sm_70" in told[0]
    (tmp_path / "ptxlint.toml").write_text('arch = "sm_70"\ncuda-version = "12.6"\n')
    told.clear()
    Linter(report=told.append).lint(str(source), BAD)
    assert told == []


# Three PTX008 findings with safe fixes; the first fix turns '%%r1' into '%r1', a register the
# compiler numbers (PTX213): --fix refuses it, and the editor is not offered it either.
REFUSED = (
    "__device__ void f() {\n"
    '    asm volatile("mov.u32 %%r1, %%clock;");\n'
    "}\n"
    "__device__ void g() {\n"
    '    asm volatile("{ .reg .u32 t; mov.u32 t, %%clock; }");\n'
    "}\n"
)


def test_the_linter_tries_each_quick_fix_alone(tmp_path) -> None:
    linter = Linter()
    path = str(tmp_path / "k.cu")
    findings = [f for f in linter.lint(path, REFUSED).findings if f.rule == "PTX008"]
    fixes = [f.fix for f in findings if f.fix is not None]
    assert len(fixes) == 3
    reasons = linter.refusals(path, REFUSED, fixes)
    writes_r1 = REFUSED.index("%%r1")
    assert [(f.span.start == writes_r1, r) for f, r in zip(findings, reasons, strict=True)] == [
        (True, "its result has a new error: PTX213 (undeclared-register)"),
        (False, None),
        (False, None),
    ]


def test_quick_fix_verdicts_are_kept_while_the_text_stays(tmp_path, monkeypatch) -> None:
    # an editor asks for code actions at each move of the cursor: no lint for the same text
    import ptxlint.lsp.linting as linting

    linter = Linter()
    path = str(tmp_path / "k.cu")
    fixes = [f.fix for f in linter.lint(path, REFUSED).findings if f.fix is not None]
    first = linter.refusals(path, REFUSED, fixes)

    def no_lint(*args: object, **kwargs: object) -> None:
        raise AssertionError("linted again")

    monkeypatch.setattr(linting, "lint_source", no_lint)
    assert linter.refusals(path, REFUSED, fixes[::-1]) == first[::-1]
    with pytest.raises(AssertionError, match="linted again"):
        linter.refusals(path, REFUSED + "\n", fixes)


def test_a_refused_fix_is_no_quick_fix_but_its_finding_can_be_suppressed() -> None:
    import dataclasses

    from ptxlint.lsp.actions import ActionRequest, code_actions

    findings = [f for f in lint_text(REFUSED) if f.rule == "PTX008"]
    first = findings[0]
    assert first.fix is not None
    refused = dataclasses.replace(first, fix=dataclasses.replace(first.fix, refused="why"))
    index = LineIndex(REFUSED)

    def actions_for(finding: Finding) -> list[str]:
        request = ActionRequest(
            uri="file:///k.cu", text=REFUSED, index=index, encoding="utf-16",
            findings=[finding], start=finding.span.start, end=finding.span.end,
            diagnostics=[], only=None,
        )
        return [a.title for a in code_actions(request, RuleDocs({}), lambda: None)]

    assert actions_for(first) == [
        "Replace '%%' with '%' (PTX008)", "Suppress PTX008 on this line"]
    assert actions_for(refused) == ["Suppress PTX008 on this line"]
