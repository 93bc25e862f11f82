"""Patterns seen in real kernels, as fixture pairs in fixtures/real_code/: each bad
fixture is flagged on exactly the lines it marks (``expect: PTXnnn``) by the rules its
``// rules:`` header names, and its clean twin is silent for those rules."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.model import SourceFile
from tests.conftest import FIXTURES, ROOT, lint_text

FOLDER = Path(FIXTURES) / "real_code"
_EXPECT = re.compile(r"expect:\s*((?:PTX\d{3}[ ,]*)+)")
_RULES = re.compile(r"^// rules:((?:\s+PTX\d{3})+)", re.MULTILINE)


def _rules(text: str) -> tuple[str, ...]:
    m = _RULES.search(text)
    assert m is not None, "a real_code fixture names its rules in a '// rules:' line"
    return tuple(m.group(1).split())


def _expected(text: str, rules: tuple[str, ...]) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            out.update((number, r) for r in re.findall(r"PTX\d{3}", m.group(1)) if r in rules)
    return out


def _names(suffix: str) -> list[str]:
    return sorted(p.name for p in FOLDER.glob(f"*_{suffix}.cu"))


@pytest.mark.parametrize("name", _names("bad"))
def test_bad_real_code_fixture_is_flagged_on_marked_lines(name: str) -> None:
    text = (FOLDER / name).read_text(encoding="utf-8")
    rules = _rules(text)
    findings = [f for f in lint_text(text, str(FOLDER / name)) if f.rule in rules]
    source = SourceFile(name, text)
    got = {(source.line_col(f.span.start).line, f.rule) for f in findings}
    assert got == _expected(text, rules), [(f.rule, f.message) for f in findings]


@pytest.mark.parametrize("name", _names("clean"))
def test_clean_real_code_fixture_is_silent(name: str) -> None:
    text = (FOLDER / name).read_text(encoding="utf-8")
    rules = _rules(text)
    findings = [f for f in lint_text(text, str(FOLDER / name)) if f.rule in rules]
    assert findings == [], [(f.rule, f.message) for f in findings]


def test_every_bad_fixture_has_a_clean_twin() -> None:
    assert [n.replace("_bad", "") for n in _names("bad")] == [
        n.replace("_clean", "") for n in _names("clean")
    ]


# --------------------------------------------------------------------------- item 7: messages


def test_unreferenced_output_is_one_finding_that_names_the_undefined_value() -> None:
    text = (FOLDER / "messages_bad.cu").read_text(encoding="utf-8")
    findings = [f for f in lint_text(text) if f.rule in ("PTX009", "PTX104")]
    spans = [f.span for f in findings]
    assert len(spans) == len(set(spans)), "two findings on one span"
    unused = [f for f in findings if f.rule == "PTX009"]
    assert len(unused) == 1 and "undefined value" in unused[0].message


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"},
    )


def _latin1_copy(tmp_path: Path) -> Path:
    """messages_bad.cu with a Latin-1 byte in a comment and a fixable finding (PTX101): linted,
    with the bytes replaced, and never rewritten."""
    data = (FOLDER / "messages_bad.cu").read_bytes() + (
        b'__device__ unsigned t() { unsigned c; asm("mov.u32 %0, %%clock;" : "=r"(c)); '
        b"return c; }\n"
    )
    path = tmp_path / "latin1.cu"
    path.write_bytes(b"// caf\xe9 (Latin-1, not UTF-8)\n" + data)
    return path


def test_a_linted_file_with_bad_bytes_is_not_called_skipped(tmp_path: Path) -> None:
    path = _latin1_copy(tmp_path)
    done = _cli("check", "--no-progress", path.name, cwd=tmp_path)
    assert "PTX009" in done.stdout  # it was linted
    assert "skipped" not in done.stderr
    assert "not valid UTF-8" in done.stderr
    # a plain check promised no edit, so there is nothing "not fixed" to report
    assert "not fixed" not in done.stderr


def test_not_fixed_is_said_only_under_fix(tmp_path: Path) -> None:
    path = _latin1_copy(tmp_path)
    before = path.read_bytes()
    done = _cli("check", "--no-progress", "--fix", "--unsafe-fixes", path.name, cwd=tmp_path)
    assert path.read_bytes() == before
    assert "not fixed: the file is not valid UTF-8" in done.stderr
    assert "skipped" not in done.stderr


def test_json_marks_which_notes_are_skipped_files(tmp_path: Path) -> None:
    path = _latin1_copy(tmp_path)
    (tmp_path / "blob.cu").write_bytes(b"\x00\x01\x02binary")
    done = _cli("check", "--format", "json", path.name, "blob.cu", cwd=tmp_path)
    notes = {n["path"]: n["skipped"] for n in json.loads(done.stdout)["notes"]}
    assert notes == {"latin1.cu": False, "blob.cu": True}


# --------------------------------------------------------------------------- item 6: info output


def test_text_output_counts_info_findings_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text((FOLDER / "clobbers_bad.cu").read_text(encoding="utf-8"))
    plain = _cli("check", "--no-progress", "k.cu", cwd=tmp_path)
    assert "[info]" not in plain.stdout
    assert "6 info findings (PTX102) not shown: --show-info prints them." in plain.stdout
    shown = _cli("check", "--no-progress", "--show-info", "k.cu", cwd=tmp_path)
    assert shown.stdout.count("PTX102 [info]") == 6
    failing = _cli("check", "--no-progress", "--fail-on", "info", "k.cu", cwd=tmp_path)
    assert failing.stdout.count("PTX102 [info]") == 6 and failing.returncode == 1
    as_json = _cli("check", "--format", "json", "k.cu", cwd=tmp_path)
    assert sum(f["severity"] == "info" for f in json.loads(as_json.stdout)["findings"]) == 6


# --------------------------------------------------------------------------- item 2: helpers


def test_convert_fix_is_safe_only_when_the_pointer_is_proven_generic() -> None:
    text = """
__device__ float f(const float *p, int i) {
  __shared__ float tile[64];
  float v, *local = &tile[i];
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&tile[i]));
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(local));
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
"""
    findings = [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"]
    assert [(f.fix is not None and f.fix.safe) for f in findings] == [True, True, False]


def test_a_pointer_every_caller_converts_is_not_converted_again() -> None:
    text = (FOLDER / "helpers_clean.cu").read_text(encoding="utf-8")
    # Once, the parameter `window` drew a finding with a *safe* fix that wrapped it in
    # __cvta_generic_to_shared a second time.
    assert [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"] == []
    # A call site that passes a plain pointer makes the parameter unknown again: flagged, and
    # the fix is not safe.
    mixed = text.replace("load_window(w)", "load_window(&tile[4])")
    [finding] = [f for f in lint_text(mixed, select=("PTX301",)) if f.rule == "PTX301"]
    assert "'window'" in finding.message and finding.fix is not None and not finding.fix.safe


def test_value_facts_are_computed_once_per_file_from_the_extractors_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    from ptxlint.analysis import value_flow

    built = []
    original = value_flow._FileFacts.__init__

    def counting(self: object, source: SourceFile, *args: object) -> None:
        built.append(source.path)
        original(self, source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(value_flow._FileFacts, "__init__", counting)
    body = "".join(
        f'  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(raw{i}));\n' for i in range(40)
    )
    decls = "".join(f"  unsigned raw{i} = (unsigned)(unsigned long)&tile[{i}];\n" for i in range(40))
    text = f"__global__ void k(float *o) {{\n  __shared__ float tile[64];\n  float v;\n{decls}{body}}}\n"
    findings = [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"]
    assert len(findings) == 40 and all("truncated" in f.message for f in findings)
    assert built == ["test.cu"]
    # The tree comes from the extractor: the file is not parsed a second time.
    parses = []
    original_parse = value_flow.parse
    monkeypatch.setattr(value_flow, "parse", lambda *a: parses.append(a) or original_parse(*a))
    lint_text(text.replace("float v;", "float v; "), select=("PTX301",))
    assert parses == []


def test_clang_only_code_may_use_clangs_constraint_letters() -> None:
    # clang's own CUDA headers (__clang_cuda_device_functions.h: `__prof_trigger`) use "i".
    from tests.conftest import lint_text

    body = '#define TRIGGER(n) asm volatile("pmevent %0;" ::"i"(n))\n'
    assert lint_text(body, "__clang_cuda_device_functions.h", select=("PTX002",)) == []
    assert len(lint_text(body, "device_functions.h", select=("PTX002",))) == 1
    guarded = f"#ifndef __NVCC__\n{body}#endif\n"
    assert lint_text(guarded, "k.cuh", select=("PTX002",)) == []
