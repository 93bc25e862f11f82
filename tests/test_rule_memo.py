"""The pure rules' memo (ptxlint.rule_memo): a statement linted before, in this file or another,
gets exactly the findings a lint without the memo gives it, placed on it; what the key does not
hold (another file's types, context, path, neighbours) never leaks from one copy to another."""

from __future__ import annotations

import dataclasses
import glob
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ptxlint import rule_memo
from ptxlint.engine import extract_statements, instantiate, lint_source
from ptxlint.model import Finding, Severity, SourceFile, Span, types_read
from ptxlint.registry import load_rules
from ptxlint.rule import Rule, RuleContext
from tests.conftest import FIXTURES

_RULES = instantiate(load_rules().rules)


def _placed(findings: list[Finding]) -> list[tuple[object, ...]]:
    """Everything of a finding, its statement by span and path (Finding's == ignores it)."""
    return [
        (
            *(getattr(f, n) for n in rule_memo.FINDING_FIELDS if n != "statement"),
            None if f.statement is None else (f.statement.source.path, f.statement.span),
        )
        for f in findings
    ]


def _lint(path: str, text: str, rules: list[Rule] | None = None,
          context: RuleContext | None = None) -> list[Finding]:
    return lint_source(SourceFile(path, text), rules or _RULES, context or RuleContext()).findings


@pytest.fixture
def no_memo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Lints in this block never find a stored outcome (a memo that keeps nothing)."""
    saved = rule_memo.MEMO
    monkeypatch.setattr(rule_memo, "MEMO", rule_memo.Memo(0))
    yield
    monkeypatch.setattr(rule_memo, "MEMO", saved)


@pytest.fixture
def fresh_memo(monkeypatch: pytest.MonkeyPatch) -> rule_memo.Memo:
    """An empty memo that keys every statement (the replays are the subject, not the policy)."""
    memo = rule_memo.Memo(adaptive=False)
    monkeypatch.setattr(rule_memo, "MEMO", memo)
    return memo


def _cold(path: str, text: str, **kw: object) -> list[tuple[object, ...]]:
    saved = rule_memo.MEMO
    rule_memo.MEMO = rule_memo.Memo(0)
    try:
        return _placed(_lint(path, text, **kw))  # type: ignore[arg-type]
    finally:
        rule_memo.MEMO = saved


def _fixture_texts() -> list[tuple[str, str]]:
    paths = sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.cu")))
    return [(p, Path(p).read_text(encoding="utf-8")) for p in paths]


def test_every_fixture_replayed_at_other_offsets_and_paths_is_what_a_cold_lint_says(
    fresh_memo: rule_memo.Memo,
) -> None:
    """Each rule fixture, linted once to fill the memo, then again moved down by a few lines and
    under another name (and as a .cpp file, whose asm is not known to be device code), gives
    exactly what a lint without the memo gives the moved copy: every span, edit, path and
    statement placed on the copy."""
    texts = _fixture_texts()
    for path, text in texts:
        _lint(path, text)
    assert fresh_memo.entries
    compared = 0
    for suffix, pad in ((".copy.cu", "// moved\n\n"), (".copy.cpp", "\n" * 3 + "int pad;\n")):
        misses = fresh_memo.misses
        for path, text in texts:
            moved = pad + text
            other = path + suffix
            warm = _placed(_lint(other, moved))
            assert warm == _cold(other, moved), other
            compared += len(warm)
        if suffix == ".copy.cu":
            # the same statements, settings and traits: every one replayed, but for those whose
            # extraction problems name an offset (the key holds them: a rule may quote them)
            placed = [
                s for path, text in texts
                for s in extract_statements(SourceFile(path, text)).statements
                if any("offset" in p for p in s.problems)
            ]
            assert fresh_memo.misses - misses == len(placed) and fresh_memo.hits > 400
    assert compared > 300


def test_the_same_statement_twice_in_one_file_gets_its_own_spans_and_fixes(
    fresh_memo: rule_memo.Memo,
) -> None:
    statement = 'asm("st.global.u32 [%0], %1;" :: "l"(p), "r"(v));'
    text = (
        "__device__ void f(unsigned *p, unsigned v) {\n"
        f"  {statement}\n"
        "}\n"
        "__device__ void g(unsigned *p, unsigned v) {\n"
        f"    if (v) {{ {statement} }}\n"
        "}\n"
    )
    found = [f for f in _lint("twice.cu", text) if f.rule in ("PTX101", "PTX102")]
    assert fresh_memo.hits >= 1
    assert _placed(found) == _cold("twice.cu", text)
    first, second = (text.index(statement), text.rindex(statement))
    spans = sorted({f.statement.span.start for f in found if f.statement is not None})
    assert spans == [first, second]
    for f in found:
        assert f.statement is not None
        base = f.statement.span.start
        assert base <= f.span.start and f.span.end <= base + len(statement)
        assert text[f.span.start : f.span.end] in statement
        if f.fix is not None:
            for edit in f.fix.edits:
                assert base <= edit.span.start <= base + len(statement)


def test_the_same_text_with_other_operand_types_is_judged_again(fresh_memo: rule_memo.Memo) -> None:
    body = '  asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(in));\n'
    wide = "__device__ void f(double in, unsigned &out) {\n" + body + "}\n"
    fits = "__device__ void f(unsigned in, unsigned &out) {\n" + body + "}\n"
    assert any(f.rule == "PTX004" for f in _lint("wide.cu", wide))
    assert not any(f.rule == "PTX004" for f in _lint("fits.cu", fits))
    assert _placed(_lint("wide2.cu", wide)) == _cold("wide2.cu", wide)


def test_the_same_text_in_another_context_is_judged_again(fresh_memo: rule_memo.Memo) -> None:
    statement = 'asm volatile(".reg .u32 t; mov.u32 t, 1;");\n'
    at_file_scope = statement  # emitted once into the module: its declarations are global
    in_function = "__device__ void f() {\n  " + statement + "}\n"
    assert not [f for f in _lint("top.cu", at_file_scope) if f.rule == "PTX201"]
    assert [f for f in _lint("fn.cu", in_function) if f.rule == "PTX201"]
    assert not [f for f in _lint("top2.cu", at_file_scope) if f.rule == "PTX201"]


def test_the_same_text_under_other_guards_is_judged_again(fresh_memo: rule_memo.Memo) -> None:
    statement = '  asm volatile("elect.sync %0|p, 0xffffffff;" : "=r"(r));\n'
    guarded = (
        "__device__ void f(unsigned &r) {\n#if __CUDA_ARCH__ >= 900\n"
        + statement + "#endif\n}\n"
    )
    loose = (
        "__device__ void f(unsigned &r) {\n#if __CUDA_ARCH__ >= 800\n"
        + statement + "#endif\n}\n"
    )
    assert not [f for f in _lint("g90.cu", guarded) if f.rule == "PTX401"]
    assert [f for f in _lint("g80.cu", loose) if f.rule == "PTX401"]
    assert _placed(_lint("g90b.cu", guarded)) == _cold("g90b.cu", guarded)


def test_the_file_name_counts_where_a_rule_reads_it(fresh_memo: rule_memo.Memo) -> None:
    """PTX204 speaks of an unknown opcode only in device code: a .cu file, for one."""
    text = (
        "inline void f(unsigned &r) {\n#ifdef __CUDA_ARCH__\n"
        '  asm("frobnicate.u32 %0;" : "=r"(r));\n#endif\n}\n'
    )
    assert [f for f in _lint("kernel.cu", text) if f.rule == "PTX204"]
    assert not [f for f in _lint("header.h", text) if f.rule == "PTX204"]
    assert [f for f in _lint("kernel2.cu", text) if f.rule == "PTX204"]


def test_settings_are_part_of_the_key(fresh_memo: rule_memo.Memo) -> None:
    text = '__device__ void f(unsigned &r) {\n  asm volatile("elect.sync %0|p, 0xffffffff;" : "=r"(r));\n}\n'
    old = RuleContext(arch=80)
    new = RuleContext(arch=90)
    assert [f for f in _lint("a.cu", text, context=old) if f.rule == "PTX401"]
    assert not [f for f in _lint("b.cu", text, context=new) if f.rule == "PTX401"]
    assert [f for f in _lint("c.cu", text, context=old) if f.rule == "PTX401"]


def test_an_outcome_that_read_a_neighbour_is_not_replayed(fresh_memo: rule_memo.Memo) -> None:
    """PTX203 forgives a scope opened here and closed by the next volatile asm: it read
    ``context.file_statements``, so the same statement without that neighbour is judged again."""
    opening = '  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 0;" :: "r"(x));\n'
    split = "__device__ void f(unsigned x) {\n" + opening + '  asm volatile("}");\n}\n'
    alone = "__device__ void f(unsigned x) {\n" + opening + "}\n"
    assert not [f for f in _lint("split.cu", split) if f.rule == "PTX203"]
    assert [f for f in _lint("alone.cu", alone) if f.rule == "PTX203"]
    assert not [f for f in _lint("split2.cu", split) if f.rule == "PTX203"]


def test_a_message_naming_a_neighbours_line_is_worked_out_for_each_copy(
    fresh_memo: rule_memo.Memo,
) -> None:
    """PTX107 names the line of the statement that reads the carry flag: a copy moved down by
    three lines names its own neighbour's line."""
    text = (
        "__device__ void f(unsigned &a, unsigned b, unsigned &c) {\n"
        '  asm("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b));\n'
        '  asm("addc.u32 %0, 0, 0;" : "=r"(c));\n'
        "}\n"
    )
    first = [f.message for f in _lint("carry.cu", text) if f.rule == "PTX107"]
    moved = [f.message for f in _lint("carry2.cu", "\n\n\n" + text) if f.rule == "PTX107"]
    assert any("line 3" in m for m in first) and any("line 6" in m for m in moved)
    assert _placed(_lint("carry3.cu", "\n" + text)) == _cold("carry3.cu", "\n" + text)


class _Counting(Rule):
    id = "PTX990"
    name = "counting"
    summary = "counts its calls"
    severity = Severity.WARNING
    docs = ""
    calls = 0

    def check(self, statement, context):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        yield self.finding(statement, statement.span, "seen")


class _PureCounting(_Counting):
    id = "PTX991"
    name = "pure-counting"
    pure = True
    calls = 0


class _PureButLooksElsewhere(_Counting):
    """Says it is pure, yet reports at the top of the file: outside its statement."""

    id = "PTX992"
    name = "looks-elsewhere"
    pure = True
    calls = 0

    def check(self, statement, context):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        yield self.finding(statement, Span(0, 1), "elsewhere")


_TWO = '__device__ void f() {\n  asm volatile("trap;");\n}\n'


def test_a_rule_that_does_not_say_it_is_pure_is_called_on_every_copy(
    fresh_memo: rule_memo.Memo,
) -> None:
    for cls in (_Counting, _PureCounting, _PureButLooksElsewhere):
        cls.calls = 0
    rules = [_Counting(), _PureCounting(), _PureButLooksElsewhere()]
    for name in ("one.cu", "two.cu", "three.cu"):
        found = _lint(name, _TWO, rules=rules)
        assert sorted((f.rule, f.path) for f in found) == [
            ("PTX990", name), ("PTX991", name), ("PTX992", name)
        ]
        assert all(f.statement is not None and f.statement.source.path == name for f in found)
    assert _Counting.calls == 3
    assert _PureCounting.calls == 1  # the memo is on: the other two copies replayed it
    assert _PureButLooksElsewhere.calls == 3  # reached outside the statement: never stored


def test_a_rule_that_raises_raises_on_every_copy(fresh_memo: rule_memo.Memo) -> None:
    class Raising(_PureCounting):
        id = "PTX993"
        name = "raising"

        def check(self, statement, context):  # type: ignore[no-untyped-def]
            raise RuntimeError("boom")

    for name in ("r1.cu", "r2.cu"):
        result = lint_source(SourceFile(name, _TWO), [Raising()], RuleContext())
        assert result.internal_errors == 1 and "PTX993" in result.findings[0].message


def test_a_patched_check_is_not_answered_from_the_memo(
    fresh_memo: rule_memo.Memo, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = [_PureCounting()]
    assert _lint("p1.cu", _TWO, rules=rules)

    def silent(self, statement, context):  # type: ignore[no-untyped-def]
        return iter(())

    monkeypatch.setattr(_PureCounting, "check", silent)
    assert not _lint("p2.cu", _TWO, rules=rules)


def test_macro_expansions_and_python_are_never_memoised(fresh_memo: rule_memo.Memo) -> None:
    text = (
        '#define LOAD(x) asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(p))\n'
        "__device__ void f(unsigned *p) { unsigned a, b; LOAD(a); LOAD(b); }\n"
    )
    source = SourceFile("m.cu", text)
    statements = extract_statements(source).statements
    expanded = [s for s in statements if s.context.expansion is not None]
    assert expanded
    keys = rule_memo.FileKeys((), RuleContext(), expanded[0].source)
    assert all(keys.key(s) is None for s in expanded)
    assert _placed(_lint("m.cu", text)) == _cold("m.cu", text)
    py = rule_memo.FileKeys((), RuleContext(), SourceFile("k.py", "x = 1\n"))
    assert not py.usable


def test_tier2_files_are_not_memoised() -> None:
    context = dataclasses.replace(RuleContext(), tier2=object())
    assert not rule_memo.FileKeys((), context, SourceFile("t.cu", "")).usable


def test_detach_knows_every_field_of_a_finding() -> None:
    """A new Finding field may hold an offset: detach and attach must be taught to move it."""
    assert tuple(f.name for f in dataclasses.fields(Finding)) == rule_memo.FINDING_FIELDS


def test_the_memo_is_bounded() -> None:
    memo = rule_memo.Memo(3)
    for k in range(10):
        memo.put(k, (0, ()))
        memo.get(0)  # used: stays
    assert len(memo.entries) == 3 and 0 in memo.entries and 9 in memo.entries


def test_a_watched_context_notices_file_level_reads() -> None:
    context = RuleContext(arch=90)
    watched = rule_memo.watch(context)
    assert watched.arch == 90 and not watched.touched
    assert watched.file_statements == ()
    assert watched.touched
    copy = dataclasses.replace(watched, arch=80)
    assert copy.arch == 80 and copy.cxx is None


class _PureSpelling(_Counting):
    """A pure rule that names each operand's expression and, where ``typed``, its type."""

    id = "PTX994"
    name = "pure-spelling"
    pure = True
    calls = 0
    typed = False

    def check(self, statement, context):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        for operand in statement.operands:
            said = operand.expression
            if self.typed:
                said += f": {operand.ctype.spelling if operand.ctype else '?'}"
            yield self.finding(statement, operand.span, said)


_BODY = '  asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(in));\n'
_INT = "__device__ void f(int in, unsigned &out) {\n" + _BODY + "}\n"
_DOUBLE = "__device__ void f(double in, unsigned &out) {\n" + _BODY + "}\n"


def test_a_copy_is_replayed_without_typing_it_where_the_rules_read_no_type(
    fresh_memo: rule_memo.Memo,
) -> None:
    _PureSpelling.calls = 0
    rules = [_PureSpelling()]
    first = lint_source(SourceFile("int.cu", _INT), rules, RuleContext())
    copy = lint_source(SourceFile("double.cu", _DOUBLE), rules, RuleContext())
    assert _PureSpelling.calls == 1  # the copy's types would not change what the rule says
    assert [f.message for f in copy.findings] == [f.message for f in first.findings]
    assert not types_read(copy.statements[0].operands)  # nothing worked its types out
    assert copy.statements[0].operands[1].ctype is not None  # ... until read


def test_a_copy_is_replayed_only_onto_the_types_the_rules_read(
    fresh_memo: rule_memo.Memo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_PureSpelling, "typed", True)
    _PureSpelling.calls = 0
    rules = [_PureSpelling()]
    said = {
        name: [f.message for f in _lint(name, text, rules=rules)]
        for name, text in (("int.cu", _INT), ("double.cu", _DOUBLE), ("int2.cu", _INT))
    }
    assert said["int.cu"] == ["out: unsigned int", "in: int"]
    assert said["double.cu"] == ["out: unsigned int", "in: double"]
    assert said["int2.cu"] == said["int.cu"]
    assert _PureSpelling.calls == 2  # the second int copy replayed the first
    assert _placed(_lint("double2.cu", _DOUBLE, rules=rules)) == _cold(
        "double2.cu", _DOUBLE, rules=rules
    )


def _distinct_statements(count: int) -> str:
    """A file of ``count`` asm statements, no two alike, of lengths spread over every residue."""
    body = "".join(
        f'  asm volatile("add.u32 %0, %0, {i};{" " * (i % rule_memo.SAMPLE)}" : "+r"(x));\n'
        for i in range(count)
    )
    return f"__device__ void f(unsigned x) {{\n{body}}}\n"


def test_where_statements_do_not_repeat_the_memo_keys_only_a_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memo = rule_memo.Memo()
    monkeypatch.setattr(rule_memo, "MEMO", memo)
    count = 2 * rule_memo.WINDOW
    text = _distinct_statements(count)
    _lint("distinct.cu", text)
    assert memo.sampling
    assert rule_memo.WINDOW <= memo.misses < count and memo.hits == 0
    # A copy repeats every statement: the first sampled one hits, and every one is keyed again.
    looked = memo.hits + memo.misses
    assert _placed(_lint("copy.cu", text)) == _cold("copy.cu", text)
    assert not memo.sampling and memo.hits >= 1
    assert memo.hits + memo.misses - looked > count - rule_memo.WINDOW


def test_a_memo_that_does_not_adapt_keys_every_statement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memo = rule_memo.Memo(adaptive=False)
    monkeypatch.setattr(rule_memo, "MEMO", memo)
    count = 2 * rule_memo.WINDOW
    _lint("distinct.cu", _distinct_statements(count))
    assert not memo.sampling and memo.misses == count


def test_the_language_server_keys_every_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    from ptxlint.lsp.linting import Linter

    monkeypatch.setattr(rule_memo, "MEMO", rule_memo.Memo())
    Linter(warm_up=False)
    assert not rule_memo.MEMO.adaptive
