"""Operand types a file names and a project header it includes defines (``header_types``):
read from the header where exactly one namespace-scope definition there gives the name."""

from __future__ import annotations

from pathlib import Path

from ptxlint.frontends.cxx import header_types, headers
from tests.conftest import lint_text

KERNEL = """#include "types.cuh"
__device__ unsigned f({parameter} v) {{
  unsigned r;
  asm("add.u32 %0, %1, %1;" : "=r"(r) : "r"(v));
  return r;
}}
"""


def _found(tmp_path: Path, header: str, parameter: str, before: str = "",
           extra: dict[str, str] | None = None) -> list[str]:
    headers.forget_headers()  # each call is a run of its own: the headers are read afresh
    (tmp_path / "types.cuh").write_text(header)
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text)
    kernel = tmp_path / "k.cu"
    return [f.message for f in lint_text(before + KERNEL.format(parameter=parameter),
                                         str(kernel), select=("PTX004",))]


def test_a_header_typedef_alias_and_enum_type_the_operand(tmp_path: Path) -> None:
    header = ("#pragma once\ntypedef unsigned short u16;\nusing u64 = unsigned long long;\n"
              "namespace ns { typedef short s16; }\nenum class Small : unsigned char { A };\n")
    [short] = _found(tmp_path, header, "u16")
    assert "'unsigned short' (integer, 2 bytes) does not fit constraint 'r'" in short
    [wide] = _found(tmp_path, header, "u64")
    assert "'unsigned long long' (integer, 8 bytes)" in wide
    assert len(_found(tmp_path, header, "s16", before="using namespace ns;\n")) == 1
    assert len(_found(tmp_path, header, "Small")) == 1


def test_a_header_struct_types_its_members(tmp_path: Path) -> None:
    """faiss fe446e41a: ``"=r"(out.a.x)`` where ``out`` is a project header's struct of
    ``half2``: nvcc 13.0 rejects the 2-byte ``__half`` member with "r"."""
    (tmp_path / "Float16.cuh").write_text(
        "#pragma once\n#include <cuda_fp16.h>\nstruct __align__(8) Half4 { half2 a; half2 b; };\n"
        "typedef struct { unsigned short lo, hi; } Pair;\n")
    kernel = tmp_path / "k.cu"
    text = (
        '#include "Float16.cuh"\n__device__ Half4 load(void* p) {\n  Half4 out;\n'
        '  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(out.a.x), "=r"(out.b.x)'
        ' : "l"(p) : "memory");\n  return out;\n}\n'
        '__device__ void put(Pair v, unsigned* p) {\n'
        '  asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v.lo) : "memory");\n}\n')
    found = lint_text(text, str(kernel), select=("PTX004",))
    assert [(text.count("\n", 0, f.span.start) + 1, "'__half' is a class type" in f.message)
            for f in found] == [(4, True), (8, False)]


def test_definitions_that_differ_leave_the_type_unknown(tmp_path: Path) -> None:
    """Two texts for one name (two #if branches, two namespaces, two headers): which one the
    file means is not read here."""
    assert _found(tmp_path, "#ifdef WIDE\ntypedef int T;\n#else\ntypedef short T;\n#endif\n",
                  "T") == []
    assert _found(tmp_path, "namespace a { typedef short T; }\nnamespace b { typedef int T; }\n",
                  "T") == []
    assert _found(tmp_path, '#include "other.cuh"\ntypedef short T;\n', "T",
                  extra={"other.cuh": "typedef long long T;\n"}) == []
    # the same text twice (a header included by two paths, a repeated guard) is one definition
    assert len(_found(tmp_path, '#include "other.cuh"\ntypedef short T;\n', "T",
                      extra={"other.cuh": "typedef short T;\n"})) == 1


def test_only_namespace_scope_definitions_count(tmp_path: Path) -> None:
    """A class's member typedef, a template's, a function's local one: the name the file
    writes is not the one they define."""
    assert _found(tmp_path, "struct Outer { typedef short T; };\n", "T") == []
    assert _found(tmp_path, "template <class X> struct W { typedef short T; };\n"
                            "template <class X> using T = short;\n", "T") == []
    assert _found(tmp_path, "inline void g() { typedef short T; }\n", "T") == []


def test_the_file_own_declaration_wins(tmp_path: Path) -> None:
    assert _found(tmp_path, "typedef short T;\n", "T", before="typedef int T;\n") == []
    assert len(_found(tmp_path, "typedef int T;\n", "T", before="typedef short T;\n")) == 1


def test_a_header_definition_reads_other_headers_names(tmp_path: Path) -> None:
    """A definition's own names are looked for in the headers in turn; a cycle is unknown."""
    header = '#include "base.cuh"\ntypedef half_word word;\n'
    extra = {"base.cuh": "typedef unsigned short half_word;\n"}
    assert len(_found(tmp_path, header, "word", extra=extra)) == 1
    assert _found(tmp_path, "typedef B A;\ntypedef A B;\n", "A") == []


def test_a_run_reads_a_changed_header_again(tmp_path: Path) -> None:
    """The header memos go with ``headers.forget_headers``, which each run calls (a language
    server's run after a header's edit reads it again)."""
    assert len(_found(tmp_path, "typedef short T;\n", "T")) == 1
    assert header_types._DEFINED and header_types._MAY_DEFINE
    headers.forget_headers()
    assert not header_types._DEFINED and not header_types._MAY_DEFINE
    assert _found(tmp_path, "typedef int T;\n", "T") == []


def test_a_header_class_answers_for_its_bases_and_conversions(tmp_path: Path) -> None:
    """Member look-up and conversions of a header's class are read in the header's definition
    (its own resolver), whether the file names it or derives from it."""
    header = ("struct Base { unsigned short half; };\n"
              "struct Wrap { unsigned v; __device__ operator unsigned() const { return v; } };\n")
    (tmp_path / "types.cuh").write_text(header)
    text = ('#include "types.cuh"\nstruct Derived : Base { int other; };\n__device__ unsigned f(Derived d, Wrap w) {\n'
            '  unsigned r;\n  asm("add.u32 %0, %1, %1;" : "=r"(r) : "r"(d.half));\n'
            '  asm("add.u32 %0, %1, %1;" : "=r"(r) : "r"(w));\n  return r;\n}\n')
    headers.forget_headers()
    messages = [f.message for f in lint_text(text, str(tmp_path / "k.cu"), select=("PTX004",))]
    assert len(messages) == 1 and "'unsigned short' (integer, 2 bytes)" in messages[0]


def test_a_header_record_is_read_by_its_own_resolver(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """A header's definition is typed from its own text: its nodes' offsets are not the
    file's, so the file's resolver hands member look-up and conversions to the definition's
    (``_Ty.home``) rather than read them against the file's bytes."""
    from ptxlint.engine import extract_statements
    from ptxlint.frontends.cxx.types import TypeResolver, file_resolver
    from ptxlint.model import SourceFile

    headers.forget_headers()
    (tmp_path / "types.cuh").write_text("struct Base { unsigned short half; };\n")
    text = ('#include "types.cuh"\n__device__ unsigned f(Base b) {\n  unsigned r;\n'
            '  asm("add.u32 %0, %1, %1;" : "=r"(r) : "r"(b.half));\n  return r;\n}\n')
    extracted = extract_statements(SourceFile(str(tmp_path / "k.cu"), text))
    assert extracted.parsed is not None
    resolver = file_resolver(extracted.parsed)
    record = resolver.named_type("Base", extracted.parsed.tree.root_node)
    assert record is not None
    home = record.home_resolver(resolver)
    assert home is not None and home is not resolver
    asked: list[tuple[object, str]] = []
    for method in ("_class_member", "_may_convert"):
        original = getattr(TypeResolver, method)

        def spy(self, record, *rest, _original=original, _method=method):  # noqa: ANN001, ANN202
            asked.append((self, _method))
            return _original(self, record, *rest)
        monkeypatch.setattr(TypeResolver, method, spy)
    member = resolver.member(record, "half")
    assert member is not None and member.spelling == "unsigned short"
    resolver._may_convert(record)
    assert (home, "_class_member") in asked and (home, "_may_convert") in asked


def test_a_file_typed_from_its_headers_leaves_nothing_for_the_collector(tmp_path: Path) -> None:
    """A header's record refers to its resolver weakly (``_Ty.home``) and a definition's
    resolver to the file's ``OutsideTypes`` weakly: no reference cycle is left for the
    cyclic collector when the file is done."""
    import gc

    from ptxlint import file_memos
    from ptxlint.config import Config, RuleSelector
    from ptxlint.engine import instantiate
    from ptxlint.registry import load_rules
    from ptxlint.rule import RuleContext
    from ptxlint.run import runner

    (tmp_path / "types.cuh").write_text(
        "#pragma once\nstruct Base { unsigned short half; };\ntypedef Base Alias;\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "types.cuh"\n__device__ unsigned f(Alias b) {\n  unsigned r;\n'
                      '  asm("add.u32 %0, %1, %1;" : "=r"(r) : "r"(b.half));\n  return r;\n}\n')
    classes = list(load_rules().rules)
    selector = RuleSelector(Config(), [(r.id, r.name) for r in classes])
    rules = instantiate(classes)
    headers.forget_headers()
    # what earlier tests' files left in the memos is theirs: let it go before counting
    file_memos.release()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        outcome = runner.lint_path(str(kernel), rules, RuleContext(), selector, 1 << 24)
        assert any(f.rule == "PTX004" for f in outcome.findings)
        del outcome
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [type(o).__qualname__ for o in gc.garbage
                if type(o).__module__.startswith("ptxlint")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert left == []


def test_a_header_asked_of_many_names_keeps_its_words(tmp_path: Path) -> None:
    """Past ``WORDS_AFTER`` names, a header answers from the set of its words instead of a
    search of its bytes per name, with the same answers."""
    names = [f"missing{k}" for k in range(header_types.WORDS_AFTER + 2)]
    parameters = ", ".join(f"{name} p{k}" for k, name in enumerate(names))
    operands = ", ".join(f'"r"(p{k})' for k in range(len(names)))
    header = "typedef unsigned short last_t;\n"
    headers.forget_headers()
    (tmp_path / "types.cuh").write_text(header)
    text = ('#include "types.cuh"\n'
            f"__device__ void f({parameters}, last_t v) {{\n"
            f'  asm volatile("" :: {operands});\n'
            '  asm volatile("" :: "r"(v));\n}\n')
    found = lint_text(text, str(tmp_path / "k.cu"), select=("PTX004",))
    assert [f.message.split(":")[0] for f in found] == ["operand 0 (v)"]
    assert str((tmp_path / "types.cuh").resolve()) in header_types._WORDS
