"""The typed-operand count of `check`: made only for the report that shows it (JSON), because
counting reads every operand's type and so types statements no selected rule asked about."""

from __future__ import annotations

import json

from ptxlint.cli import main
from ptxlint.frontends.cxx import types
from ptxlint.run import file_parts, runner
from ptxlint.run.outcome import FileOutcome

# Operands whose types the counting must work out: a pointer, a local, a parameter.
SOURCE = """__device__ unsigned f(unsigned a, float* p) {
  unsigned d;
  asm volatile("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a));
  asm volatile("st.global.f32 [%0], %1;" :: "l"(p), "f"(1.0f) : "memory");
  return d;
}
"""


def _count_typing(monkeypatch) -> list[int]:
    calls = [0]
    real = types.TypeResolver.resolve_operands

    def counting(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(types.TypeResolver, "resolve_operands", counting)
    return calls


def _check(capsys, *args: str) -> str:
    main(["check", *args, "--no-compile-commands", "--fail-on", "never"])
    return capsys.readouterr().out


def test_text_output_types_no_operand_the_selected_rules_do_not_read(
    tmp_path, capsys, monkeypatch
):
    (tmp_path / "k.cu").write_text(SOURCE)
    calls = _count_typing(monkeypatch)
    _check(capsys, str(tmp_path / "k.cu"), "--no-cache", "--select", "PTX001")
    assert calls[0] == 0
    doc = json.loads(_check(capsys, str(tmp_path / "k.cu"), "--no-cache", "--select", "PTX001",
                            "--format", "json"))
    assert calls[0] > 0
    assert doc["stats"]["typed_operands"] > 0


def test_json_counts_are_those_of_every_rule_whatever_the_selection(tmp_path, capsys):
    (tmp_path / "k.cu").write_text(SOURCE)
    path = str(tmp_path / "k.cu")
    chosen = json.loads(_check(capsys, path, "--no-cache", "--select", "PTX001",
                               "--format", "json"))["stats"]
    every = json.loads(_check(capsys, path, "--no-cache", "--format", "json"))["stats"]
    assert (chosen["typed_operands"], chosen["typed_operands_tier2"]) == (
        every["typed_operands"], every["typed_operands_tier2"])


def test_a_cached_result_without_counts_is_linted_again_for_json(
    tmp_path, capsys, cache_dir, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(SOURCE)
    _check(capsys, "k.cu", "--select", "PTX001")  # stored without counts
    linted = []
    real = runner.lint_path

    def counting(*args, **kwargs):
        linted.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "lint_path", counting)
    first = json.loads(_check(capsys, "k.cu", "--select", "PTX001", "--format", "json"))
    assert linted == ["k.cu"] and first["stats"]["typed_operands"] > 0
    # stored again with its counts: a text run and a JSON run both read it now
    _check(capsys, "k.cu", "--select", "PTX001")
    again = json.loads(_check(capsys, "k.cu", "--select", "PTX001", "--format", "json"))
    assert linted == ["k.cu"]
    assert again["stats"]["typed_operands"] == first["stats"]["typed_operands"]


def test_a_file_linted_in_parts_counts_only_when_every_part_did():
    total = FileOutcome("k.cu")
    file_parts._add_counts(total, FileOutcome("k.cu", typed_operands=2, typed_tier2=0))
    file_parts._add_counts(total, FileOutcome("k.cu", typed_operands=3, typed_tier2=1))
    assert (total.typed_operands, total.typed_tier2) == (5, 1)
    file_parts._add_counts(total, FileOutcome("k.cu", typed_operands=None, typed_tier2=None))
    file_parts._add_counts(total, FileOutcome("k.cu", typed_operands=4, typed_tier2=0))
    assert (total.typed_operands, total.typed_tier2) == (None, None)
