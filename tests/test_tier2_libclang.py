"""Tier 2 with libclang: exact types through headers, macros and templates; the fallbacks."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.tier2 import Tier2Session, annotate
from ptxlint.tier2 import session as session_mod
from ptxlint.tier2.cache import Tier2Cache
from ptxlint.tier2.compile_db import load
from ptxlint.tier2.libclang_types import Tier2Unavailable
from tests.toolchain_cache import oracle_cache_root

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "fixtures" / "tier2"

cindex = pytest.importorskip("clang.cindex", reason="libclang wheel not installed (ptxlint[clang])")


# Small TUs parse without the CUDA headers (cuda_include=False): the prelude then skips
# cuda_runtime.h, which costs about five seconds per parse.
def _cache(tmp_path: Path) -> Tier2Cache:
    return Tier2Cache(tmp_path / "tier2-cache")


def _statements(path: Path) -> list[AsmStatement]:
    source = SourceFile(str(path), path.read_text())
    return extract_statements(source).statements


def _project(tmp_path: Path) -> Path:
    """The fixture project copied elsewhere, with a CMake-style database of absolute paths."""
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    build = root / "build"
    build.mkdir()
    entry = {
        "directory": str(build),
        "command": f"nvcc -I{root}/include -arch=sm_80 -o k.o -c {root}/kernel.cu",
        "file": str(root / "kernel.cu"),
    }
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    (root / "compile_commands.json").unlink()
    return root


def test_tier2_types_a_header_type_behind_a_macro_that_tier1_cannot(tmp_path: Path) -> None:
    root = _project(tmp_path)
    kernel = root / "kernel.cu"
    plain = _statements(kernel)
    first = plain[0]
    assert first.operands[1].expression.startswith("PACKET_FIELD")
    assert first.operands[1].ctype is None  # Tier 1 abstains: macro and header type
    session = Tier2Session(
        load(root / "build" / "compile_commands.json"), cache=_cache(tmp_path), cuda_include=False
    )
    typed = annotate(plain, session.types_for(str(kernel)))
    handle = typed[0].operands[1].ctype
    assert handle is not None and handle.tier == 2
    assert (handle.spelling, handle.kind, handle.size) == ("unsigned long long", "integer", 8)
    assert typed[0].operands[1].constraint.letters == "r"  # 8 bytes in a 32-bit register
    flags = typed[1].operands[1].ctype
    assert flags is not None and (flags.spelling, flags.size) == ("unsigned int", 4)
    assert session.notes == []


def test_committed_database_with_relative_directory_works_from_any_checkout() -> None:
    db = load(PROJECT / "compile_commands.json")
    command = db.for_file(str(PROJECT / "kernel.cu"))
    assert command is not None and command.directory == str(PROJECT.resolve())


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_nvcc_rejects_the_constraint_tier2_sizes(tmp_path: Path) -> None:
    done = subprocess.run(
        ["nvcc", "-I", str(PROJECT / "include"), "-arch=sm_80", "-c", str(PROJECT / "kernel.cu"),
         "-o", str(tmp_path / "k.o")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0
    assert "size(8) does not match type/size implied by constraint 'r'" in done.stderr
    assert "kernel.cu(6)" in done.stderr  # the line Tier 2 types, and only that one
    assert "kernel.cu(8)" not in done.stderr


def test_template_statement_gets_one_type_per_instantiation(tmp_path: Path) -> None:
    source = tmp_path / "t.cu"
    source.write_text(
        "template <typename T> __device__ unsigned widen(T v) {\n"
        "  unsigned r;\n"
        '  asm("mov.b32 %0, %1;" : "=r"(r) : "r"(v));\n'
        "  return r;\n"
        "}\n"
        "__device__ void use(short s, unsigned u) { widen(s); widen(u); widen<unsigned>(u); }\n"
    )
    session = Tier2Session(clang_args=("-DUNUSED",), cache=_cache(tmp_path), cuda_include=False)
    types = session.types_for(str(source))
    statement = _statements(source)[0]
    found = types.operand_types(statement, 1)
    assert {(t.name, t.ctype.spelling, t.ctype.size) for t in found} == {
        ("widen<short>", "short", 2),
        ("widen<unsigned int>", "unsigned int", 4),
    }
    typed = annotate([statement], types)[0]
    assert typed.operands[1].ctype is None  # instantiations disagree: no single type
    assert typed.operands[0].ctype is not None and typed.operands[0].ctype.tier == 2


def test_statement_in_a_define_body_is_typed_per_expansion(tmp_path: Path) -> None:
    (tmp_path / "mov.h").write_text(
        '#define MOV2(d, s) asm("mov.b32 %0, %1;" : "=r"(d) : "r"(s)); \\\n'
        '  asm("mov.b32 %0, %1;" : "=r"(d) : "l"(s))\n'
    )
    source = tmp_path / "m.cu"
    source.write_text(
        '#include "mov.h"\n__device__ void f(int i, long long j) {\n  MOV2(i, j);\n}\n'
    )
    session = Tier2Session(
        clang_args=(f"-I{tmp_path}",), cache=_cache(tmp_path), cuda_include=False
    )
    header = tmp_path / "mov.h"
    # no database: --clang-args parse the file itself; the header's statements come from m.cu
    types = session.types_for(str(source))
    statements = annotate(_statements(header), types)
    assert len(statements) == 2
    sizes = [s.operands[1].ctype.size if s.operands[1].ctype else None for s in statements]
    assert sizes == [8, 8]
    names = [t.name for t in types.operand_types(statements[1], 1)]
    assert names == ["expansion at m.cu:3"]


def test_no_libclang_falls_back_with_one_note(tmp_path: Path, monkeypatch) -> None:
    def unavailable() -> None:
        raise Tier2Unavailable("libclang is not installed (pip install 'ptxlint[clang]')")

    monkeypatch.setattr(session_mod, "load_cindex", unavailable)
    root = _project(tmp_path)
    session = Tier2Session(
        load(root / "build" / "compile_commands.json"), cache=_cache(tmp_path), cuda_include=False
    )
    for _ in range(3):
        assert not session.types_for(str(root / "kernel.cu"))
        assert not session.types_for(str(root / "include" / "packet.h"))
    assert len(session.notes) == 1 and "not installed" in session.notes[0]


def test_broken_flag_falls_back_with_a_note(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text('__device__ void f(int x) { asm("mov.b32 %0, %0;" : "+r"(x)); }\n')
    session = Tier2Session(
        clang_args=("--no-such-flag-at-all",), cache=_cache(tmp_path), cuda_include=False
    )
    assert not session.types_for(str(source))
    assert not session.types_for(str(source))
    assert len(session.notes) == 1 and "no-such-flag" in session.notes[0]


def test_tu_with_a_missing_header_falls_back(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(
        '#include "missing.h"\n__device__ void f(int x) { asm("mov.b32 %0, %0;" : "+r"(x)); }\n'
    )
    session = Tier2Session(clang_args=("-DX",), cache=_cache(tmp_path), cuda_include=False)
    assert not session.types_for(str(source))
    assert "missing.h" in session.notes[0]


def test_errors_elsewhere_leave_good_operands_typed_and_bad_ones_untyped(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(
        "struct S { unknown_t a; int b; };\n"
        "__device__ void f(S s, short q) {\n"
        '  asm("mov.b32 %0, %1;" : "=r"(s.b) : "r"(s.a));\n'
        '  asm("mov.b16 %0, %0;" : "+h"(q));\n'
        "}\n"
    )
    session = Tier2Session(clang_args=("-DX",), cache=_cache(tmp_path), cuda_include=False)
    statements = annotate(_statements(source), session.types_for(str(source)))
    first, second = statements
    assert first.operands[0].ctype is not None and first.operands[0].ctype.size == 4
    assert first.operands[1].ctype is None or first.operands[1].ctype.tier == 1
    assert second.operands[0].ctype is not None and second.operands[0].ctype.tier == 2


def test_results_are_cached_and_invalidated_by_header_edits(tmp_path: Path) -> None:
    root = _project(tmp_path)
    db = load(root / "build" / "compile_commands.json")
    calls: list[str] = []

    def counting(path: str, args: list[str]):
        calls.append(path)
        return session_mod.analyze(path, args)

    def run() -> int | None:
        session = Tier2Session(db, cache=_cache(tmp_path), cuda_include=False, analyzer=counting)
        typed = annotate(
            _statements(root / "kernel.cu"), session.types_for(str(root / "kernel.cu"))
        )
        ctype = typed[0].operands[1].ctype
        return ctype.size if ctype else None

    assert run() == 8 and len(calls) == 1
    assert run() == 8 and len(calls) == 1  # from the disk cache
    header = root / "include" / "packet.h"
    header.write_text(
        header.read_text().replace("unsigned long long handle_t", "unsigned handle_t")
    )
    assert run() == 4 and len(calls) == 2


def _cuda_include() -> Path | None:
    include = session_mod.cuda_include_dir()
    return Path(include) if include else None


@pytest.mark.skipif(
    _cuda_include() is None or not (_cuda_include() / "cuda_fp16.hpp").is_file(),  # type: ignore[operator]
    reason="CUDA headers not found",
)
def test_cuda_fp16_and_bf16_headers_are_typed_at_least_95_percent(tmp_path: Path) -> None:
    include = _cuda_include()
    assert include is not None
    cache_root = Path(oracle_cache_root())
    # a stable TU path so the disk cache hits on the next run (the key includes the path)
    project = cache_root / "tier2-fp16-tu"
    project.mkdir(parents=True, exist_ok=True)
    (project / "fp.cu").write_text("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n")
    # a multi-architecture build: NV_IF_ELSE_TARGET branches exist only for some targets
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in (90, 80, 75, 52)]
    entry = {"directory": str(project), "arguments": ["nvcc", *gencode, "-c", "fp.cu"]}
    (project / "compile_commands.json").write_text(json.dumps([{**entry, "file": "fp.cu"}]))
    session = Tier2Session(
        load(project / "compile_commands.json"), cache=Tier2Cache(cache_root / "tier2")
    )
    total = typed = 0
    expanded_total = expanded_typed = 0
    for name in ("cuda_fp16.hpp", "cuda_bf16.hpp"):
        header = include / name
        statements = annotate(_statements(header), session.types_for(str(header)))
        for statement in statements:
            if statement.context.dialect != "ptx":
                continue
            count = len(statement.operands)
            known = sum(1 for o in statement.operands if o.ctype is not None and o.ctype.tier == 2)
            if statement.context.expansion is None:
                total, typed = total + count, typed + known
            else:
                expanded_total, expanded_typed = expanded_total + count, expanded_typed + known
    assert total > 500
    assert typed / total >= 0.95, f"{typed}/{total}"
    # Invocations of the headers' asm macros, matched to libclang's records of the same
    # expansion site; those whose body splits into NV_IF_ELSE_TARGET branches with different
    # operands cannot be matched (each parse sees one branch) and stay Tier 1.
    assert expanded_total > 100
    assert expanded_typed / expanded_total >= 0.75, f"{expanded_typed}/{expanded_total}"
