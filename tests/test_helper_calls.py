"""A file with no asm of its own that calls the asm helpers of a project header it includes is
linted for the protocol rules (those whose ``needs`` name ``helper-calls``) and only for them:
the prefilter lets it through while such a rule is enabled, the engine asks the rules about its
helper calls, and the result cache's key covers the header."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ptxlint.analysis.included_helpers import helper_names
from ptxlint.cli import main
from ptxlint.engine import instantiate, lint_kept
from ptxlint.lsp.incremental import IncrementalLinter
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.run import prefilter, runner
from tests.conftest import FIXTURES

HELPERS = os.path.join(FIXTURES, "helper_calls")
# where bad.cu's two kernels go wrong: the wait of an uncommitted copy, the read before a wait
EXPECTED = [("PTX602", 7, 3), ("PTX603", 17, 22)]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    for name in os.listdir(HELPERS):
        shutil.copy(os.path.join(HELPERS, name), tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check_json(capsys, *args: str) -> dict:
    main(["check", *args, "--isolated", "--format", "json", "--no-compile-commands",
          "--fail-on", "never"])
    return json.loads(capsys.readouterr().out)


def places(doc: dict) -> list[tuple[str, int, int]]:
    return [(f["rule"], f["line"], f["column"]) for f in doc["findings"]]


def count_lints(monkeypatch) -> list[str]:
    linted: list[str] = []
    real = runner.lint_path

    def counting(path, *args, **kwargs):
        linted.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "lint_path", counting)
    return linted


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_kernel_calling_header_helpers_is_linted_under_preview_only(tree, capsys, jobs):
    # -j 2 with two small files: the pool holds them, and the include check is the job's
    preview = check_json(capsys, "--preview", "--no-cache", "-j", jobs, "bad.cu", "clean.cu")
    assert places(preview) == EXPECTED
    assert all(f["path"] == "bad.cu" for f in preview["findings"])
    assert preview["stats"]["statements"] == 0  # the helpers' asm is the header's
    default = check_json(capsys, "--no-cache", "-j", jobs, "bad.cu", "clean.cu")
    assert default["findings"] == []


def test_a_nested_configuration_that_enables_preview_lints_its_folder_for_them(tree, capsys):
    (tree / "sub").mkdir()
    for name in ("pipeline.cuh", "bad.cu"):
        shutil.copy(tree / name, tree / "sub" / name)
    (tree / "sub" / "ptxlint.toml").write_text("preview = true\n")
    main(["check", ".", "--format", "json", "--no-compile-commands", "--no-cache",
          "--fail-on", "never"])
    doc = json.loads(capsys.readouterr().out)
    assert [(os.path.basename(f["path"]), f["rule"]) for f in doc["findings"]] == [
        ("bad.cu", "PTX602"), ("bad.cu", "PTX603")]
    assert all(f["path"].startswith("sub") for f in doc["findings"])


def test_the_clean_twin_is_silent(tree, capsys):
    assert check_json(capsys, "--preview", "--no-cache", "clean.cu")["findings"] == []


def test_a_file_naming_no_helper_is_not_linted(tree, capsys, monkeypatch):
    (tree / "other.cu").write_text('#include "pipeline.cuh"\n__global__ void k() {}\n')
    linted = count_lints(monkeypatch)
    check_json(capsys, "--preview", "--no-cache", "other.cu", "bad.cu")
    assert linted == ["bad.cu"]


def test_the_prefilter_asks_about_helpers_only_when_told(tree):
    data = (tree / "bad.cu").read_bytes()
    assert not prefilter.may_hold_asm("bad.cu", data)
    assert prefilter.may_hold_asm("bad.cu", data, helpers=True)
    # a helper's name inside a longer identifier is not a call of it
    renamed = data.replace(b"wait_copies<", b"my_wait_copies<").replace(
        b"commit_copies(", b"xcommit_copies(").replace(b"copy_4_bytes(", b"copy_4_bytes_x(")
    assert not prefilter.may_hold_asm("bad.cu", renamed, helpers=True)


def test_the_helpers_are_the_header_functions_that_take_a_protocol_step(tree):
    (tree / "access.cuh").write_text(
        "#pragma once\n"
        "__device__ float load_shared(unsigned a) {\n"  # an access alone: no rule speaks of it
        '  float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a)); return v;\n'
        "}\n"
        "template <int N> __device__ unsigned long long\n"
        "arrive(unsigned long long* bar) {\n"
        '  unsigned long long s; asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"\n'
        '    : "=l"(s) : "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory"); return s;\n'
        "}\n")
    text = '#include "pipeline.cuh"\n#include "access.cuh"\n'
    assert helper_names(str(tree / "k.cu"), text) == {
        "copy_4_bytes", "commit_copies", "wait_copies", "arrive"}


def test_editing_the_header_lints_the_caller_again(tree, capsys, monkeypatch, cache_dir):
    assert places(check_json(capsys, "--preview", "bad.cu")) == EXPECTED
    # a default run in between records its own verdict without asking about helpers
    assert check_json(capsys, "bad.cu")["findings"] == []
    linted = count_lints(monkeypatch)
    assert places(check_json(capsys, "--preview", "bad.cu")) == EXPECTED
    assert linted == []  # from the cache
    header = tree / "pipeline.cuh"
    # the copy helper commits its own copy: nothing is left uncommitted
    header.write_text(header.read_text().replace(
        ': "memory");\n}\n\n__device__ __forceinline__ void commit_copies',
        ': "memory");\n  asm volatile("cp.async.commit_group;" ::: "memory");\n}\n\n'
        '__device__ __forceinline__ void commit_copies', 1))
    assert places(check_json(capsys, "--preview", "bad.cu")) == [EXPECTED[1]]
    assert linted == ["bad.cu"]
    # the helper renamed: the file names no helper any more, and is dropped
    header.write_text(header.read_text().replace("wait_copies", "wait_for_copies")
                      .replace("commit_copies", "commit_all").replace("copy_4_bytes", "cp4"))
    assert check_json(capsys, "--preview", "bad.cu")["findings"] == []
    assert linted == ["bad.cu"]


def test_a_header_one_include_further_counts_too(tree, capsys, monkeypatch, cache_dir):
    (tree / "all.cuh").write_text('#pragma once\n#include "pipeline.cuh"\n')
    (tree / "bad.cu").write_text((tree / "bad.cu").read_text().replace(
        '#include "pipeline.cuh"', '#include "all.cuh"'))
    assert places(check_json(capsys, "--preview", "bad.cu")) == EXPECTED
    linted = count_lints(monkeypatch)
    header = tree / "pipeline.cuh"
    header.write_text(header.read_text().replace("wait_copies", "wait_for_copies"))
    assert places(check_json(capsys, "--preview", "bad.cu")) == [EXPECTED[1]]
    assert linted == ["bad.cu"]


def test_a_finding_at_a_helper_call_has_no_statement_and_can_be_suppressed(tree, capsys):
    rules = instantiate(load_rules().rules)
    path = str(tree / "bad.cu")
    text = (tree / "bad.cu").read_text()
    result = lint_kept(SourceFile(path, text), rules, RuleContext(), whole_tree=True).result
    assert [(f.rule, f.statement) for f in result.findings] == [("PTX602", None),
                                                                ("PTX603", None)]
    line = next(x for x in text.splitlines() if "// PTX602" in x)
    quiet = text.replace(line, "  wait_copies<0>();  // ptxlint: ignore[PTX602]")
    assert [f.rule for f in lint_kept(SourceFile(path, quiet), rules, RuleContext()).result
            .findings] == ["PTX603"]


def test_add_noqa_suppresses_a_finding_at_a_helper_call(tree, capsys):
    main(["check", "--isolated", "--preview", "--no-cache", "--add-noqa", "bad.cu"])
    capsys.readouterr()
    assert "// ptxlint: ignore[PTX602]" in (tree / "bad.cu").read_text().splitlines()[6]
    assert check_json(capsys, "--preview", "--no-cache", "bad.cu")["findings"] == []


def test_verify_says_why_a_finding_at_a_helper_call_is_unverifiable(tree):
    from ptxlint.cli import _configure, build_parser, run
    from ptxlint.verify import VerifyOptions, verify
    from ptxlint.verify.recipes import RECIPES

    args = build_parser().parse_args(["check", "bad.cu", "--preview", "--isolated"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=("bad.cu",)))
    said = {f.rule: result.verifications[id(f)] for f in result.findings}
    assert sorted(said) == ["PTX602", "PTX603"]
    for rule, verdict in said.items():  # the rule's own reason, not "no statement"
        assert (verdict.status, verdict.evidence) == ("unverifiable", RECIPES[rule].why_none)


def test_the_language_server_lints_such_a_file_as_it_changes(tree):
    rules = instantiate(load_rules().rules)
    linter = IncrementalLinter()
    path = str(tree / "bad.cu")
    text = (tree / "bad.cu").read_text()

    def rules_found(current: str) -> list[str]:
        return [f.rule for f in linter.lint(path, current, rules, RuleContext(), _All()).findings]

    assert rules_found(text) == ["PTX602", "PTX603"]
    fixed = text.replace("  wait_copies<0>();  // PTX602", "  commit_copies();\n  wait_copies<0>();")
    assert rules_found(fixed) == ["PTX603"]
    assert rules_found(text) == ["PTX602", "PTX603"]


class _All:
    def enabled(self, rule_id: str, rule_name: str, path: str | None = None) -> bool:
        return True

    def severity_for(self, rule_id: str, rule_name: str, default: str) -> str:
        return default


def test_a_finding_at_a_helper_call_stays_there_beside_a_macros_asm(tree, capsys):
    """The findings about a header helper's steps are carried by no asm statement of the file:
    carried by one a macro expanded (a trap macro at the kernel's top, as DeepGEMM's
    DG_TRAP_ONLY_DEVICE_ASSERT), they were placed at that macro's invocation."""
    text = (tree / "bad.cu").read_text().replace(
        '#include "pipeline.cuh"\n',
        '#include "pipeline.cuh"\n#define TRAP_UNLESS(c) if (!(c)) asm volatile("trap;")\n')
    text = text.replace("  __shared__ float tile[128];\n  copy_4_bytes",
                        "  TRAP_UNLESS(blockDim.x == 128);\n  __shared__ float tile[128];\n"
                        "  copy_4_bytes", 1)
    text += ('\n__device__ unsigned lane() {\n  unsigned r;\n'
             '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));\n  return r;\n}\n')
    (tree / "mixed.cu").write_text(text)
    found = places(check_json(capsys, "mixed.cu", "--preview", "--select", "PTX602"))
    assert found == [("PTX602", 9, 3)]  # the wait_copies<0>() call, two lines further down


@pytest.mark.parametrize("in_header", [True, False])
def test_a_finding_at_a_helper_call_stays_there_where_only_macros_hold_asm(
        tree, capsys, in_header):
    """A file whose only asm statements are a macro's expansions (DeepGEMM's impl files: the
    trap of DG_TRAP_ONLY_DEVICE_ASSERT at the kernel's top) has no statement of its own to
    carry the findings about its header helpers' steps: carried by an expansion, they were
    placed at the macro's invocation (line 6), named as in its expansion, and a suppression
    there covered them. The carrier at the helper calls carries them instead."""
    define = "#define TRAP_UNLESS(c) do { if (!(c)) asm volatile(\"trap;\"); } while (0)\n"
    include = '#include "pipeline.cuh"\n'
    if in_header:
        (tree / "checks.cuh").write_text("#pragma once\n" + define)
        head = include + '#include "checks.cuh"\n'
    else:
        head = include + define
    text = (tree / "bad.cu").read_text().replace(include, head)
    text = text.replace("  __shared__ float tile[128];\n  copy_4_bytes",
                        "  TRAP_UNLESS(blockDim.x == 128);\n  __shared__ float tile[128];\n"
                        "  copy_4_bytes", 1)
    (tree / "traps.cu").write_text(text)
    doc = check_json(capsys, "traps.cu", "--preview", "--no-cache", "--select", "PTX602,PTX603")
    # wait_copies<0>() and the read, each two lines further down than in bad.cu
    assert places(doc) == [("PTX602", 9, 3), ("PTX603", 19, 22)]
    assert all("expansion" not in f for f in doc["findings"])


def test_the_language_server_lints_the_file_again_when_such_asm_changes(tree):
    """A statement with no instruction carries no helper step: the file's findings are the
    helper calls' (they were lost). An edit inside its template would be re-linted statement
    by statement, which asks no rule about the calls: the whole file is linted again."""
    rules, context, selector = instantiate(load_rules().rules), RuleContext(), _All()
    linter = IncrementalLinter()
    path = str(tree / "bad.cu")
    text = (tree / "bad.cu").read_text().replace(
        "  __shared__ float tile[128];\n  copy_4_bytes",
        '  asm volatile("// a note" ::: "memory");\n  __shared__ float tile[128];\n'
        "  copy_4_bytes", 1)

    def found(current: str) -> list[tuple[str, int]]:
        return [(f.rule, f.span.start) for f in
                linter.lint(path, current, rules, context, selector).findings]

    before = found(text)
    assert [rule for rule, _ in before] == ["PTX602", "PTX603"]
    assert found(text.replace("// a note", "// a notes")) == [(r, at + 1) for r, at in before]


def test_a_suppression_on_the_helper_calls_line_reaches_its_finding(tree, capsys):
    """The finding about a header helper's step is placed at the call; the suppression on the
    call's line must reach it. Carried by an asm statement of the file (here another function's),
    the finding took that statement's lines: the directive was reported as unused (PTX901, with
    a fix deleting it), and one on the statement's line would have suppressed the kernel's."""
    text = (tree / "bad.cu").read_text().replace(
        "  wait_copies<0>();  // PTX602: the copy is in no group, so this waits for nothing",
        "  wait_copies<0>();  // ptxlint: ignore[PTX602]")
    text += ('\n__device__ unsigned lane() {\n  unsigned r;\n'
             '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));\n  return r;\n}\n')
    (tree / "mixed.cu").write_text(text)
    found = places(check_json(capsys, "mixed.cu", "--preview", "--no-cache",
                              "--select", "PTX602,PTX603,PTX901"))
    assert found == [("PTX603", 17, 22)]
    moved = text.replace("  wait_copies<0>();  // ptxlint: ignore[PTX602]", "  wait_copies<0>();")
    moved = moved.replace('"=r"(r));', '"=r"(r));  // ptxlint: ignore[PTX602]')
    (tree / "mixed.cu").write_text(moved)
    found = places(check_json(capsys, "mixed.cu", "--preview", "--no-cache",
                              "--select", "PTX602,PTX603,PTX901"))
    assert found == [("PTX602", 7, 3), ("PTX603", 17, 22), ("PTX901", 22, 72)]


_CONVERTING_HEADER = r"""#pragma once
#include <cstdint>
__device__ inline uint32_t cvta_shared(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline void cp_async(uint32_t dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
}
__device__ inline void wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ inline void ldmatrix_x4(uint32_t *r, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
"""
_CONVERTING_KERNEL = r"""#include "common.h"
__global__ void k(const int4 *a, int n, float *out) {
  extern __shared__ int4 shm[];
  const uint32_t base = cvta_shared(shm);
  float acc = 0;
  for (int b = 0; b < n; b++) {
    cp_async(base + threadIdx.x * 16, a + b * 256 + threadIdx.x);
    WAIT
    __syncthreads();
    uint32_t r[4];
    ldmatrix_x4(r, base + (threadIdx.x % 16) * 16);
    acc += r[0];
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}
"""


@pytest.mark.parametrize(("wait", "expected"), [("", [("PTX603", 11, 5)]), ("wait_all();", [])])
def test_a_shared_address_made_by_a_header_helper_names_the_buffer(
        tmp_path, monkeypatch, capsys, wait, expected):
    """The buffer behind ``base`` is ``shm`` whether ``cvta_shared`` is defined in the file or in
    a project header it includes: the copy and the ``ldmatrix`` read one buffer."""
    (tmp_path / "common.h").write_text(_CONVERTING_HEADER)
    (tmp_path / "k.cu").write_text(_CONVERTING_KERNEL.replace("WAIT", wait))
    monkeypatch.chdir(tmp_path)
    doc = check_json(capsys, "--preview", "--no-cache", "--select", "PTX6", "k.cu")
    assert places(doc) == expected
