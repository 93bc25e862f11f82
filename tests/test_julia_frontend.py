"""The Julia front end: CUDA.jl's @asmcall, Base.llvmcall IR with an inline asm call, PTX.jl's
ptx"..." wrappers; Julia strings decoded with an exact source map (escapes, interpolation holes,
triple-quote dedent), LLVM IR escapes decoded, Julia and LLVM types read onto the operands."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.frontends.julia import extract_julia, mentions_api
from ptxlint.frontends.julia.jlstrings import decode
from ptxlint.model import HOLE, AsmStatement, SourceFile
from ptxlint.ptx.parser import parse_template
from ptxlint.run.discover import DEFAULT_EXTENSIONS
from tests.conftest import lint_text


def statements(text: str) -> list[AsmStatement]:
    return extract_julia(SourceFile("k.jl", text), parse_template).statements


def spelled(s: AsmStatement, start: int, end: int) -> str:
    span = s.template.source_span(start, end)
    return s.source.text[span.start : span.end]


def test_prefilter_and_discovery_know_julia_files() -> None:
    assert ".jl" in DEFAULT_EXTENSIONS
    assert mentions_api(b'x = @asmcall("exit;")') and not mentions_api(b"x = 1 + asm")
    assert statements("f(x) = x + 1\n") == []


def test_escapes_and_interpolation_holes_map_to_the_source() -> None:
    text = 'x = "mov.u32 \\$0, $n;\\n"'
    value = decode(text, 4, len(text))
    assert value.text == f"mov.u32 $0, {HOLE};\n"
    at = value.text.index("$")
    assert text[value.starts[at] : value.ends[at]] == "\\$"
    hole = value.text.index(HOLE)
    assert text[value.starts[hole] : value.ends[hole]] == "$n"


def test_triple_quoted_strings_are_dedented_as_julia_does() -> None:
    text = 'x = """\n        {\n          nop;\n        }"""'
    value = decode(text, 4, len(text))
    assert value.text == "{\n  nop;\n}"
    assert text[value.starts[0] : value.ends[0]] == "{"


def test_asmcall_reads_side_effects_and_julia_types() -> None:
    (a, b) = statements(
        'f(x) = @asmcall("mov.b32 \\$0, \\$1;", "=r,r", true, UInt32, Tuple{UInt64}, x)\n'
        'g(x) = @asmcall("tanh.approx.f16 \\$0, \\$1;", "=h,h", Float16, Tuple{Float16}, x)\n'
    )
    assert a.template.text == "mov.b32 $0, $1;" and a.is_volatile
    assert [o.ctype.size if o.ctype else None for o in a.operands] == [4, 8]
    assert a.operands[1].expression == "x" and a.context.function == "f"
    assert b.llvm is not None and b.llvm.side_effects is False  # omitted: LLVM.jl's default
    assert spelled(a, 8, 10) == "\\$0"


def test_llvmcall_ir_template_constraints_and_types() -> None:
    text = (
        'h(x) = Base.llvmcall("""%r = call float asm sideeffect "ex2.approx.f32 \\$0, \\$1;\\5C",'
        ' "=f,f"(float %0)\n    ret float %r""", Float32, Tuple{Float32}, x)\n'
    )
    (s,) = statements(text)
    assert s.template.text == "ex2.approx.f32 $0, $1;\\"  # \5C is a backslash in LLVM IR
    assert spelled(s, len(s.template.text) - 1, len(s.template.text)) == "\\5C"
    assert [o.constraint.text for o in s.operands] == ["=f", "f"]
    assert all(o.ctype is not None and o.ctype.size == 4 for o in s.operands)
    assert s.is_volatile


def test_ptx_wrapper_spelling_is_linted_and_interpolated_ones_are_not() -> None:
    found = statements('a = ptx"add.f32"(x, y)\nb = ptx"mov.$dt"(x)\n')
    assert [s.template.text for s in found] == [f"add.f32 {HOLE};"]
    assert spelled(found[0], 0, 7) == "add.f32"


def test_julia_rule_fixtures_mirror_the_python_ones() -> None:
    rules = Path(__file__).parent.parent / "fixtures" / "rules"
    julia = {p.name.split("_")[0] for p in rules.glob("PTX*_bad.jl")}
    python = {p.name.split("_")[0] for p in rules.glob("PTX*_bad.py")}
    assert julia and julia <= python
    for rule in julia:
        assert (rules / f"{rule}_clean.jl").exists()


def test_linting_a_julia_file_finds_a_misspelt_modifier() -> None:
    text = 'f() = @asmcall("activemask.b23 \\$0;", "=r", true, UInt32, Tuple{})\n'
    findings = [f for f in lint_text(text, "k.jl") if f.rule == "PTX204"]
    assert len(findings) == 1 and text[findings[0].span.start : findings[0].span.end] == ".b23"


def test_a_pure_void_asmcall_is_kept_by_llvm_and_not_flagged() -> None:
    void = 'exit() = @asmcall("exit;")\n'
    loaded = 'f(p) = @asmcall("ld.volatile.global.u32 \\$0, [\\$1];", "=r,l", UInt32, Tuple{Ptr{UInt32}}, p)\n'
    assert not [f for f in lint_text(void, "k.jl") if f.rule == "PTX505"]
    assert [f.rule for f in lint_text(loaded, "k.jl") if f.rule == "PTX505"] == ["PTX505"]


def test_string_concatenation_with_star_is_followed() -> None:
    (s,) = statements('f(x) = @asmcall("mov.b32 \\$0, " * "\\$1;", "=r,r", UInt32, Tuple{UInt32}, x)\n')
    assert s.template.text == "mov.b32 $0, $1;"
    assert spelled(s, 12, 14) == "\\$1"


def test_ptx505_on_a_julia_asmcall_is_confirmed_by_raw_llvm_ir(tmp_path: Path, monkeypatch) -> None:
    """LLVM.jl emits the call as raw LLVM IR: llvmlite's LLVM compiles it as Julia's would."""
    from ptxlint.cli import _configure, build_parser, run
    from ptxlint.verify import VerifyOptions, llvm_probe, verify
    from tests.toolchain_cache import oracle_cache_root

    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    if llvm_probe.version(llvm_probe._python("llvmlite"), "llvmlite") is None:
        pytest.skip("llvmlite is not installed (PTXLINT_LLVMLITE_PYTHON)")
    path = tmp_path / "k.jl"
    path.write_text('f(p) = @asmcall("atom.global.add.u32 \\$0, [\\$1], 1;", "=r,l", UInt32, '
                    "Tuple{Ptr{UInt32}}, p)\n", encoding="utf-8")
    args = build_parser().parse_args(["check", str(path), "--select", "PTX505"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),)))
    [verdict] = [result.verdict(f) for f in result.findings if f.rule == "PTX505"]
    assert verdict.status == "confirmed", verdict.evidence
    assert verdict.tool.startswith("llvmlite ")
