"""--verify's compiles see the linted tree's own include/ folders (verify/flags.py
tree_includes): the folders it adds, and a file that includes its tree's header compiles."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.verify import VerifyOptions, discover, verify
from ptxlint.verify.flags import tree_includes
from tests.toolchain_cache import oracle_cache_root

toolchain = discover()
needs_nvcc = pytest.mark.skipif(
    toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc and a host compiler (CUDA Toolkit not found)",
)


def tree(tmp_path: Path, *folders: str) -> Path:
    for folder in folders:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    return tmp_path


def test_the_include_folders_around_a_file_up_to_the_linted_folder(tmp_path):
    root = tree(tmp_path, "proj/include/lib/arch", "proj/src/kernels", "proj/cub/cub/warp")
    proj = str(root / "proj")
    # a header inside include/: the include folder itself
    assert tree_includes(str(root / "proj/include/lib/arch/x.h"), [proj]) == (
        "-I", str(root / "proj/include"))
    # a source beside it: the top-level include/
    assert tree_includes(str(root / "proj/src/kernels/k.cu"), [proj]) == (
        "-I", str(root / "proj/include"))
    # CCCL's cub/cub/...: the outer cub/, then the top-level include/
    assert tree_includes(str(root / "proj/cub/cub/warp/w.cuh"), [proj]) == (
        "-I", str(root / "proj/cub"), "-I", str(root / "proj/include"))


def test_nothing_above_the_linted_folder_or_outside_it(tmp_path):
    root = tree(tmp_path, "proj/include", "proj/src")
    # linting src/ alone: the include/ beside it is outside what the user pointed at
    assert tree_includes(str(root / "proj/src/k.cu"), [str(root / "proj/src")]) == ()
    assert tree_includes(str(root / "proj/src/k.cu"), [str(root / "other")]) == ()


def test_a_folder_a_shell_would_expand_is_left_out(tmp_path):
    root = tree(tmp_path, "p$x/include", "p$x/src")
    assert tree_includes(str(root / "p$x/src/k.cu"), [str(root / "p$x")]) == ()


HEADER = "#pragma once\ntypedef unsigned int word_t;\n"
KERNEL = ('#include <lib/word.h>\n'
          '__device__ word_t f(const word_t* p) {\n'
          '  word_t v;\n'
          '  asm("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));\n'
          '  return v;\n}\n')


@needs_nvcc
@pytest.mark.parametrize("with_tree", [True, False])
def test_a_file_that_includes_its_trees_header_compiles_with_it(tmp_path, monkeypatch,
                                                                 with_tree):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    root = tree(tmp_path, "proj/include/lib", "proj/src")
    (root / "proj/include/lib/word.h").write_text(HEADER)
    source = root / "proj/src/k.cu"
    source.write_text(KERNEL)
    args = build_parser().parse_args(["check", str(root / "proj"), "--select", "PTX102"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(arch="sm_90", files=(str(source),),
                                  linted=(str(root / "proj"),), tree_includes=with_tree))
    [finding] = [f for f in result.findings if f.rule == "PTX102"]
    verdict = result.verdict(finding)
    if with_tree:
        # the file's own compile speaks (the whole-file differential, not the function probe)
        assert verdict.method == "differential", verdict
        assert "does not compile" not in verdict.evidence, verdict
    else:
        # the file does not compile without its tree's include/: the function-level probe,
        # which needs none of the file's headers, judges the statement instead
        assert verdict.method == "function-probe", verdict


def test_a_header_under_an_include_folder_is_compiled_under_its_include_name(tmp_path):
    from ptxlint.verify import scratch

    header = tmp_path / "include/lib/a.hpp"
    files, first = scratch.sources(str(header), "x", ("-I", str(tmp_path / "include")))
    assert files == ((scratch.SOURCE_NAME, '#include "lib/a.hpp"\n'),
                     (f"{scratch.SHADOW}/lib/a.hpp", "x"))
    assert first == ("-I", f"{{dir}}/{scratch.SHADOW}")
    # a .cu file, or a header no -I folder holds, is the copy itself
    for path, flags in ((tmp_path / "include/lib/k.cu", ("-I", str(tmp_path / "include"))),
                        (header, ("-I", str(tmp_path / "other")))):
        assert scratch.sources(str(path), "x", flags) == (((scratch.SOURCE_NAME, "x"),), ())


SELF_INCLUDING = ('#pragma once\n#include <lib/b.hpp>\n'
                  '__device__ unsigned f(const unsigned* p) {\n'
                  '  unsigned v;\n'
                  '  asm("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));\n'
                  '  return v + g();\n}\n')


@needs_nvcc
def test_a_header_its_own_includes_include_back_compiles_once(tmp_path, monkeypatch):
    """CUTLASS's cute/arch headers: a copy compiled beside the original would be defined twice
    (the original's #pragma once is another file's); under its include name it is one file."""
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    root = tree(tmp_path, "proj/include/lib")
    (root / "proj/include/lib/b.hpp").write_text(
        "#pragma once\n#include <lib/a.hpp>\n__device__ inline unsigned g() { return 1; }\n")
    header = root / "proj/include/lib/a.hpp"
    header.write_text(SELF_INCLUDING)
    args = build_parser().parse_args(["check", str(root / "proj"), "--select", "PTX102"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(arch="sm_90", files=(str(header),),
                                  linted=(str(root / "proj"),)))
    [finding] = [f for f in result.findings if f.rule == "PTX102"]
    verdict = result.verdict(finding)
    # the file's own compile speaks: the whole-file differential, not the function probe
    assert verdict.method == "differential", verdict
