"""The byte prefilter lets through a file that uses an asm macro of a project header it
includes by ``#include <project/x.h>`` (DeepGEMM's ``DG_DEVICE_ASSERT``), and nothing else
that has no asm keyword."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ptxlint.config import Config, RuleSelector
from ptxlint.frontends.cxx import headers
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.run import prefilter, runner
from ptxlint.tier2 import compile_db

ASSERT_H = """#pragma once
#include <proj/trap.cuh>
#define PROJ_ASSERT(cond) do { if (!(cond)) PROJ_TRAP(); } while (0)
"""
TRAP_H = '#pragma once\n#define PROJ_TRAP() asm volatile("trap")\n'
KERNEL = """#include <vector>
#include <proj/assert.cuh>
__device__ void check(int n) { PROJ_ASSERT(n > 0); }
"""


@pytest.fixture(autouse=True)
def _no_include_dirs() -> object:
    yield
    headers.set_include_dirs(())


def _tree(root: Path, include: str) -> Path:
    (root / include / "proj").mkdir(parents=True)
    (root / include / "proj" / "assert.cuh").write_text(ASSERT_H, encoding="utf-8")
    (root / include / "proj" / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    (root / "src").mkdir(exist_ok=True)
    kernel = root / "src" / "kernel.cu"
    kernel.write_text(KERNEL, encoding="utf-8")
    return kernel


def test_an_angle_include_above_the_file_brings_its_asm_macros(tmp_path: Path) -> None:
    kernel = _tree(tmp_path, ".")  # <proj/assert.cuh> resolves from the tree's root
    assert prefilter.may_hold_asm(str(kernel), kernel.read_bytes())
    # the same include, the macro never named: nothing to lint
    other = tmp_path / "src" / "other.cu"
    other.write_text("#include <proj/assert.cuh>\n__device__ int f() { return 1; }\n")
    assert not prefilter.may_hold_asm(str(other), other.read_bytes())
    # a standard header, or one that is nowhere in the tree, brings nothing
    plain = tmp_path / "src" / "plain.cu"
    plain.write_text("#include <vector>\n#include <missing/x.h>\nint PROJ_ASSERT;\n")
    assert not prefilter.may_hold_asm(str(plain), plain.read_bytes())


def _lint(paths: list[str], tier2: runner.Tier2Settings | None = None) -> int:
    rules = list(load_rules().rules)
    config = Config()
    result = runner.run(paths, config, RuleSelector(config, [(r.id, r.name) for r in rules]),
                        rules, RuleContext(), tier2=tier2 or runner.Tier2Settings())
    return result.statements


def test_an_include_folder_beside_an_ancestor_is_searched(tmp_path: Path) -> None:
    kernel = _tree(tmp_path, "include")  # src/ and include/ side by side, as projects lay out
    assert prefilter.may_hold_asm(str(kernel), kernel.read_bytes())


def test_the_project_include_folders_of_compile_commands_are_searched(tmp_path: Path) -> None:
    kernel = _tree(tmp_path, "third_party")  # not above the file: only -I finds it
    assert not prefilter.may_hold_asm(str(kernel), kernel.read_bytes())
    build = tmp_path / "build"
    build.mkdir()
    db = build / "compile_commands.json"
    command = ["nvcc", "-I../third_party", "-I/usr/local/cuda/include", "-c", "../src/kernel.cu"]
    db.write_text(json.dumps([{"directory": str(build), "file": "../src/kernel.cu",
                               "arguments": command}]), encoding="utf-8")
    dirs = compile_db.project_include_dirs(compile_db.load(db), [str(tmp_path)])
    assert dirs == (str((tmp_path / "third_party").resolve()),)  # the toolkit's is not ours
    assert _lint([str(tmp_path / "src")]) == 0
    settings = runner.Tier2Settings(compile_commands=str(db), clang_args=())
    # the run hands the folders to the extractor too: the invocation is expanded and linted
    assert _lint([str(tmp_path / "src")], settings) == 1


def test_include_flags_in_every_spelling() -> None:
    flag = compile_db._include_flag
    assert flag("-I", "inc") == "inc" and flag("-Iinc", None) == "inc"
    assert flag("-iquote", "q") == "q" and flag("-iquoteq", None) == "q"
    assert flag("--include-path=p", None) == "p" and flag("-isystem", "s") is None


def test_headers_on_an_include_cycle_share_their_asm_macros(tmp_path: Path) -> None:
    # a.cuh and b.cuh include each other (guards make that legal); b brings the trap, a's macro
    # uses b's, and c.cuh, outside the cycle, includes a: every one of them brings both names.
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    (proj / "a.cuh").write_text('#pragma once\n#include "b.cuh"\n#define A_CHECK() B_STOP()\n')
    (proj / "b.cuh").write_text('#pragma once\n#include "a.cuh"\n#include "trap.cuh"\n'
                                "#define B_STOP() PROJ_TRAP()\n")
    (proj / "c.cuh").write_text('#pragma once\n#include "a.cuh"\n')
    for header in ("a.cuh", "b.cuh", "c.cuh"):
        assert headers.asm_names_through(str(proj / header)) == {"PROJ_TRAP", "B_STOP", "A_CHECK"}
    kernel = tmp_path / "k.cu"
    kernel.write_text("#include <proj/c.cuh>\n__device__ void f() { A_CHECK(); }\n")
    assert prefilter.may_hold_asm(str(kernel), kernel.read_bytes())


def test_a_quoted_include_is_judged_like_an_angle_one(tmp_path: Path) -> None:
    # CUTLASS includes "cutlass/cutlass.h" everywhere and that header brings asm macros: a file
    # that never names one of them is not parsed, one that does is, and so is a file whose own
    # macro wraps one (the header's name is written in the file).
    _tree(tmp_path, ".")
    src = tmp_path / "src"
    uses = src / "uses.cu"
    uses.write_text('#include "../proj/assert.cuh"\n__device__ void f(int n) { PROJ_ASSERT(n); }\n')
    quiet = src / "quiet.cu"
    quiet.write_text('#include "../proj/assert.cuh"\n__device__ int g() { return 1; }\n')
    wraps = src / "wraps.cu"
    wraps.write_text('# include "proj/assert.cuh"\n#define MINE(x) PROJ_ASSERT(x)\n'
                     "__device__ void h(int n) { MINE(n); }\n")
    missing = src / "missing.cu"
    missing.write_text('#include "nowhere.cuh"\n__device__ void k() { PROJ_ASSERT(1); }\n')
    assert prefilter.may_hold_asm(str(uses), uses.read_bytes())
    assert not prefilter.may_hold_asm(str(quiet), quiet.read_bytes())
    assert prefilter.may_hold_asm(str(wraps), wraps.read_bytes())
    assert not prefilter.may_hold_asm(str(missing), missing.read_bytes())
    # what the prefilter lets through is what extraction finds: one expansion in each user
    assert _lint([str(uses)]) == 1 and _lint([str(wraps)]) == 1
    assert _lint([str(src)]) == 3  # kernel.cu, uses.cu, wraps.cu


def test_include_lines_and_whole_names_as_the_line_anchored_patterns_read_them() -> None:
    data = (
        b'#include "a.h"\n  #  include <p/b.h>\n\t#include\t"c.h" // x\n'
        b'int x; #include "not_a_line_start.h"\n#include <vector>\n#include_next <p/d.h>\n'
        b'// #include "commented.h"\r\n#include "e.h"\r\n#include \\\n  "spliced.h"\n'
        b'#\\\ninclude <f.h>\n/*\n#include "in_comment.h"\n*/\n'
    )
    # one reader for the macro table and the prefilter: every include line, angle names
    # without a '.' among them, a line continued by a backslash read as one line
    read = headers.include_names(data.decode())
    assert read == ["a.h", "p/b.h", "c.h", "vector", "e.h", "spliced.h", "f.h"]
    # the sketch of a file's bytes finds every one of them (and more, never fewer)
    sketched = headers.sketch_include_names(data)
    assert set(read) < set(sketched) and "in_comment.h" in sketched
    names = frozenset({"AB", "ABC", "B_C"})
    assert prefilter.names_one_of(b"AB", names)  # at the very start
    assert prefilter.names_one_of(b"x = ABC;", names)
    assert not prefilter.names_one_of(b"xAB ABCD B_CD _AB $AB AB$ AB1", names)
    assert prefilter.names_one_of(b"xAB B_C", names)  # after a rejected one
    assert not prefilter.names_one_of(b"", names)


@pytest.mark.parametrize("names", [
    # four groups by their first two bytes (__, _B, C, C$): a pattern per group
    frozenset({"__A", "__AB", "__ABCDE", "__ABCDF", "__ABX", "_B", "C", "C$", "__AX_1"}),
    # more groups than that: one pattern of them all
    frozenset({"__A", "__AB", "__ABCDE", "_B", "C", "C$", "__AX_1", "X_", "E", "BCD"}),
])
def test_a_name_check_finds_a_whole_name_wherever_one_of_the_names_occurs(
    names: frozenset[str],
) -> None:
    # names that share first bytes to and past the depth the pattern groups them, names that
    # are prefixes of others, and one-byte names: each text of a mix of their pieces is judged
    # as a search for each name with identifier bytes on neither side would judge it
    import itertools
    import re

    pieces = [b"__A", b"B", b"CD", b"E", b"F", b"_", b"C", b"$", b" ", b"X", b"_1", b";"]
    words = [re.compile(rb"(?<![\w$])" + re.escape(n.encode()) + rb"(?![\w$])") for n in names]
    judged = 0
    for count in (1, 2, 3):
        for parts in itertools.product(pieces, repeat=count):
            data = b"".join(parts)
            expected = any(w.search(data) for w in words)
            assert prefilter.names_one_of(data, names) == expected, data
            judged += expected
    assert judged > 50  # the texts hold whole names as well as near misses


@pytest.mark.parametrize("names", [
    frozenset({"__A", "__AB", "__ABCDE", "__ABCDF", "__ABX", "_B", "C", "C$", "__AX_1"}),
    frozenset({"__A", "__AB", "__ABCDE", "_B", "C", "C$", "__AX_1", "X_", "E", "BCD"}),
])
def test_the_reach_finds_a_name_spelled_anywhere_as_a_search_for_each_name_would(
    names: frozenset[str],
) -> None:
    # the reach's search of a header's definitions for the asm names found (a superset of
    # their uses): grouped by first bytes as the whole-name check is, any occurrence counts
    import itertools

    patterns = headers.name_patterns(names)
    pieces = [b"__A", b"B", b"CD", b"E", b"F", b"_", b"C", b"$", b" ", b"X", b"_1", b";"]
    found = 0
    for count in (1, 2, 3):
        for parts in itertools.product(pieces, repeat=count):
            data = b"".join(parts)
            expected = any(n.encode() in data for n in names)
            assert any(p.search(data) for p in patterns) == expected, data
            found += expected
    assert 50 < found < len(pieces) ** 3  # spelled in some texts, not in others
    assert headers.name_patterns(frozenset()) == ()


def test_a_run_lints_a_file_whose_asm_macro_lies_two_includes_away_and_skips_one_naming_none(
    tmp_path: Path,
) -> None:
    # outer.cuh includes middle.cuh, which includes trap.cuh (the only asm). middle.cuh holds no
    # asm keyword, but its WRAP_TRAP calls PROJ_TRAP. Files that include only outer.cuh and name
    # either macro are linted; files naming a longer or shorter word, or nothing, are not.
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    (proj / "middle.cuh").write_text(
        '#pragma once\n#include "trap.cuh"\n#define WRAP_TRAP() do { PROJ_TRAP(); } while (0)\n'
    )
    (proj / "outer.cuh").write_text('#pragma once\n#include "middle.cuh"\n')
    src = tmp_path / "src"
    src.mkdir()
    bodies = {
        "direct.cu": "__device__ void f() { PROJ_TRAP(); }\n",
        "wrapped.cu": "__device__ void g() { WRAP_TRAP(); }\n",
        "near.cu": "int PROJ_TRAPS, MY_WRAP_TRAP, WRAP_TRA;\n",
        "none.cu": "__device__ int h() { return 1; }\n",
    }
    for name, body in bodies.items():
        (src / name).write_text('#include "../proj/outer.cuh"\n' + body, encoding="utf-8")
    admitted = {name for name in bodies
                if prefilter.may_hold_asm(str(src / name), (src / name).read_bytes())}
    assert admitted == {"direct.cu", "wrapped.cu"}
    assert headers.asm_names_through(str(proj / "outer.cuh")) == {"PROJ_TRAP", "WRAP_TRAP"}
    # the run reads what was let through: one statement from each expansion
    assert _lint([str(src / "direct.cu")]) == 1 and _lint([str(src / "wrapped.cu")]) == 1
    assert _lint([str(src)]) == 2


def test_a_header_the_include_check_read_is_linted_from_those_bytes_as_when_named_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a.cu, walked first, has no asm keyword: its include check reads z/h.cuh, whose bytes the
    # walk then takes instead of opening the file; h.cuh's own statements (one in a function,
    # one through its macro) are linted from them exactly as when h.cuh is linted alone
    from ptxlint.run import discover

    (tmp_path / "a.cu").write_text('#include "z/h.cuh"\nint f();\n', encoding="utf-8")
    (tmp_path / "z").mkdir()
    header = tmp_path / "z" / "h.cuh"
    header.write_text(
        "#pragma once\n"
        '#define LOAD(p, v) asm("ld.global.u32 %0, [%1];" : "=r"(v) : "r"(p))\n'
        "__device__ unsigned g(const unsigned* p) {\n"
        "  unsigned v;\n"
        "  LOAD(p, v);\n"
        '  asm("st.global.u32 [%0], %1;" :: "l"(p), "r"(v));\n'
        "  return v;\n"
        "}\n",
        encoding="utf-8",
    )
    rules = list(load_rules().rules)
    config = Config()

    def findings(paths: list[str]) -> list[tuple[str, int, int, str, str]]:
        result = runner.run(paths, config, RuleSelector(config, [(r.id, r.name) for r in rules]),
                            rules, RuleContext())
        return sorted((os.path.basename(f.path), f.span.start, f.span.end, f.rule, f.message)
                      for f in result.findings)

    alone = findings([str(header)])
    opened: list[str] = []
    original = discover._open

    def counting(path: str) -> tuple[int, os.stat_result]:
        opened.append(os.path.basename(path))
        return original(path)

    monkeypatch.setattr(discover, "_open", counting)
    assert findings([str(tmp_path)]) == alone
    assert opened == ["a.cu"]
    assert len(alone) >= 2  # the statement in the function and the one the macro brings


def test_a_macro_of_one_header_calling_a_sibling_headers_asm_macro(tmp_path: Path) -> None:
    # wrap.cuh's macro calls PROJ_TRAP, which only trap.cuh defines, and neither includes the
    # other: a file including both expands WRAP() to asm, as its macro table reads it. One that
    # includes only wrap.cuh does not, nor one that names neither macro.
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    (proj / "wrap.cuh").write_text("#pragma once\n#define WRAP() do { PROJ_TRAP(); } while (0)\n")
    src = tmp_path / "src"
    src.mkdir()
    both = src / "both.cu"
    both.write_text('#include "../proj/wrap.cuh"\n#include "../proj/trap.cuh"\n'
                    "__device__ void f() { WRAP(); }\n")
    alone = src / "alone.cu"
    alone.write_text('#include "../proj/wrap.cuh"\n__device__ void f() { WRAP(); }\n')
    quiet = src / "quiet.cu"
    quiet.write_text('#include "../proj/wrap.cuh"\n#include "../proj/trap.cuh"\n'
                     "__device__ int g() { return 1; }\n")
    assert headers.asm_names_through(str(proj / "wrap.cuh")) == frozenset()
    assert prefilter.may_hold_asm(str(both), both.read_bytes())
    assert not prefilter.may_hold_asm(str(alone), alone.read_bytes())
    assert not prefilter.may_hold_asm(str(quiet), quiet.read_bytes())
    assert _lint([str(both)]) == 1 and _lint([str(src)]) == 1


@pytest.mark.parametrize("cached", [False, True])
def test_files_the_prefilter_drops_count_once_each_and_only_bad_bytes_get_a_note(
    tmp_path: Path, cached: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dropped files share one outcome unless they hold bytes that are not UTF-8, whose note
    # names them; with the result cache the index drops them (the second run reads nothing)
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    for k in range(3):
        (tree / f"plain{k}.h").write_text(f"#include <vector>\nint f{k}();\n", encoding="utf-8")
    (tree / "latin1.h").write_bytes(b"// caf\xe9\nint g();\n")
    (tree / "kernel.cu").write_text(
        '__device__ void t() { asm volatile("trap;"); }\n', encoding="utf-8"
    )
    rules = list(load_rules().rules)
    config = Config()
    for _ in range(2 if cached else 1):
        result = runner.run([str(tree)], config,
                            RuleSelector(config, [(r.id, r.name) for r in rules]),
                            rules, RuleContext(), use_cache=cached)
        assert result.files == 5 and result.statements == 1
        notes = [(os.path.basename(path), note) for path, note in result.file_notes]
        assert notes == [
            ("latin1.h", "not valid UTF-8; undecodable bytes were replaced for linting")
        ]
        assert result.errors == [] and result.notes == []
