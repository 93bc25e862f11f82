"""A part of a file linted in parts parses only the functions it reads (function_spans,
part_tree, syntax_tree.parse_leaving_out), and still says exactly what the whole file's lint
says of its statements: the same statements, the same findings."""

from __future__ import annotations

import re

import pytest

from ptxlint import file_memos
from ptxlint.engine import (
    SelectAll,
    lint_source,
    parse_template,
    type_lookup,
    unified_source,
)
from ptxlint.engine_parts import finish_parts, lint_part, shares
from ptxlint.frontends.cxx import part_tree as part_tree_module
from ptxlint.frontends.cxx.extract import extract
from ptxlint.frontends.cxx.function_spans import FunctionSpan, function_spans, scan
from ptxlint.frontends.cxx.part_tree import part_tree
from ptxlint.frontends.extraction import Share
from ptxlint.frontends.syntax_tree import parse, parse_leaving_out
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.rule import Rule, RuleContext
from tests.finding_fields import default_rules, finding_fields

# Functions whose facts cross into one another: a parameter whose value only its caller's
# argument shows (PTX301 reads it), a helper returning a shared-window address, a template
# nothing instantiates (latent) and one named elsewhere, a typedef and a #define in bodies,
# an #if in a body, braces in strings, comments and a raw string, and fillers between them so
# that the parts fall on different functions.
CROSSING = r"""
#include <cstdint>
#define SHARED_LOAD(v, a) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a))

__device__ unsigned load_shared(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

__device__ unsigned filler_a(unsigned x) {
  unsigned y;  /* { not a brace */
  asm("add.u32 %0, %1, 1;" : "=r"(y) : "r"(x));
  return y;
}

template <typename T>
__device__ T unused_template(T x) {
  T y;
  asm("add.u32 %0, %1, 3;" : "=r"(y) : "r"(x));
  return y;
}

__device__ unsigned filler_b(unsigned x) {
  typedef unsigned word;
  word y;
  asm("{\n\t.reg .u32 t;\n\tadd.u32 t, %1, 2;\n\tmov.u32 %0, t;\n}" : "=r"(y) : "r"(x));
  return y;
}

__device__ uint32_t shared_window(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ uint32_t truncated(const void* p) {
  return (uint32_t)(uintptr_t)p;
}

__device__ unsigned filler_c(unsigned x) {
  unsigned y;
#if __CUDA_ARCH__ >= 800
  asm("add.u32 %0, %1, 4;" : "=r"(y) : "r"(x));
#else
  asm("add.u32 %0, %1, 5;" : "=r"(y) : "r"(x));
#endif
  const char* s = R"raw(}{)raw";
  return y + (s[0] == '}');
}

__device__ unsigned filler_d(unsigned x) {
#define LOCAL_ONE 1
  unsigned y;
  asm("add.u32 %0, %1, LOCAL_ONE;" : "=r"(y) : "r"(x));
  return y;
}

__global__ void caller(unsigned* out) {
  __shared__ unsigned tile[32];
  out[0] = load_shared((unsigned)(uintptr_t)tile);  // a truncated generic pointer
  unsigned v, w;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(shared_window(tile)) : "memory");
  SHARED_LOAD(w, shared_window(tile + 1));
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(truncated(tile)) : "memory");
  out[1] = v + w + unused_template<unsigned>(1u) * 0 + filler_a(2);
}

__device__ unsigned filler_e(unsigned x) {
  unsigned y;
  asm("add.u32 %0, %1, 6;" : "=r"(y) : "r"(x));
  return y;
}

template <typename T>
__device__ T never_named(T x) {
  T y;
  asm("add.u32 %0, %1, %3;" : "=r"(y) : "r"(x));
  return y;
}
"""


def _names(text: str) -> list[str]:
    spans = function_spans(text)
    assert spans is not None
    return [s.name for s in spans]


def test_function_spans_name_each_definition_at_namespace_and_class_scope() -> None:
    text = (
        "namespace n {\nstruct S {\n  __device__ static void fma(int& d, int a) {\n"
        "    asm(\"{ add.s32 %0, %1, 1; }\" : \"+r\"(d) : \"r\"(a));\n  }\n};\n"
        "__device__ int twice(int x) const noexcept { if (x) { x++; } return 2 * x; }\n}\n"
        "int value = f(1);\nextern \"C\" { void g() {} }\n"
    )
    spans = function_spans(text)
    assert spans is not None
    assert [s.name for s in spans] == ["fma", "twice", "g"]
    fma = spans[0]
    assert text[fma.params[0] : fma.params[1]] == "int& d, int a"
    assert text[fma.body[0] - 1] == "{" and text[fma.body[1]] == "}"
    assert all(s.plain for s in spans)


def test_braces_in_literals_comments_raw_strings_and_directives_are_not_code() -> None:
    text = (
        "// void a() {\n/* void b() {\n } */\n#define C(x) void c() {\n"
        "void d() { const char* s = \"}{\"; char c = '}'; auto r = R\"x(}})x\"; }\n"
        "void e() {}\n"
    )
    assert _names(text) == ["d", "e"]


@pytest.mark.parametrize(
    "text",
    [
        "int big = 1'000; void f() {}\n",  # a digit separator
        "void f() { const char* s = \"a\\\nb\"; }\n",  # a string spliced over two lines
        "void f() { int \u00e9 = 1; }\n",  # not ASCII: characters are not bytes
        "void f() { }\n}\n",  # a brace that closes nothing
        "void f() { /* never closed\n",
    ],
    ids=["digit-separator", "splice", "non-ascii", "unbalanced", "open-comment"],
)
def test_the_scan_gives_up_where_it_cannot_be_exact(text: str) -> None:
    assert function_spans(text) is None


@pytest.mark.parametrize(
    "body",
    [
        "struct L { void m() {} };",
        "typedef int word;",
        "using word = int;",
        "enum E { A };",
        "\n#define LOCAL 1\n",
        "\n#if A\n if (x) {\n#else\n }\n#endif\n",
        "\n#if A\n x++;\n",
    ],
    ids=["local-class", "typedef", "alias", "enum", "define", "unbalanced-branch", "open-if"],
)
def test_a_body_an_index_reads_or_an_unbalanced_if_is_not_plain(body: str) -> None:
    spans = function_spans(f"void f(int x) {{ {body} }}\nvoid g() {{}}\n")
    assert spans is not None
    assert [s.plain for s in spans] == [False, True]


def test_a_balanced_if_and_harmless_directives_keep_a_body_plain() -> None:
    body = "\n#if A\n  if (x) { x++; }\n#elif B\n  x--;\n#else\n#pragma unroll\n  x = 0;\n#endif\n"
    spans = function_spans(f"void f(int x) {{{body}}}\n")
    assert spans is not None and spans[0].plain


def test_a_tree_leaving_out_ranges_keeps_every_other_node_where_the_whole_parse_has_it() -> None:
    text = "int a;\nvoid f(int x, int y) {\n  x += y;\n}\nvoid g() { int z = 2; }\n"
    spans = function_spans(text)
    assert spans is not None
    f = spans[0]
    partial = parse_leaving_out("t.cu", text, [f.params, f.body])
    whole = parse("t.cu", text)
    assert partial.unread == (f.params, f.body)
    g_at = text.index("int z")
    node = partial.tree.root_node.descendant_for_byte_range(g_at, g_at + 5)
    same = whole.tree.root_node.descendant_for_byte_range(g_at, g_at + 5)
    assert node is not None and same is not None
    assert (node.type, node.start_byte, node.end_byte, tuple(node.start_point)) == (
        same.type, same.start_byte, same.end_byte, tuple(same.start_point))
    body = partial.tree.root_node.descendant_for_byte_range(f.body[0] - 1, f.body[1] + 1)
    assert body is not None
    assert body.type == "compound_statement" and body.named_child_count == 0


def _function_of(text: str, at: int) -> str:
    spans = function_spans(text)
    assert spans is not None
    return next(s.name for s in spans if s.body[0] <= at < s.body[1])


def _left_out(text: str, unread: tuple[tuple[int, int], ...]) -> set[str]:
    spans = function_spans(text)
    assert spans is not None
    return {s.name for s in spans if s.body in unread}


def test_a_part_leaves_out_what_it_does_not_read_and_keeps_what_its_names_lead_to() -> None:
    source = SourceFile("crossing.cu", CROSSING)
    first = shares(CROSSING, 4)[0]
    tree = part_tree(source, first)
    assert tree.unread
    left_out = _left_out(CROSSING, tree.unread)
    # load_shared is the part's: caller names it (value flow reads the argument it passes),
    # so caller stays; fillers that neither name nor are named go
    assert "load_shared" not in left_out and "caller" not in left_out
    assert {"filler_e", "shared_window"} <= left_out
    # a typedef and a #define in a body stay for the file-wide index
    assert "filler_b" not in left_out and "filler_d" not in left_out


def test_a_left_out_interior_the_tree_does_not_show_as_a_function_means_a_whole_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = SourceFile("crossing.cu", CROSSING)
    read = scan(CROSSING)
    assert read is not None
    at = CROSSING.index("__global__")  # a proposal that is no function's interiors
    wrong = FunctionSpan("filler_e", (at, at + 4), (at + 6, at + 10), True)
    functions = sorted([*read.functions, wrong], key=lambda s: s.body)
    monkeypatch.setattr(part_tree_module, "scan",
                        lambda text: read._replace(functions=functions))
    first = shares(CROSSING, 4)[0]
    assert wrong.body in [b for _, b in part_tree_module._unread(source, first)]
    assert part_tree(source, first).unread == ()


def _statements(source: SourceFile, count: int) -> list[AsmStatement]:
    read = unified_source(source)
    found: list[AsmStatement] = []
    for share in shares(read.text, count):
        found.extend(extract(read, parse_template, type_lookup, share,
                             part_tree(read, share)).statements)
        file_memos.release()
    return found


@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_parts_of_partial_trees_extract_and_find_what_the_whole_file_does(count: int) -> None:
    rules = default_rules()
    whole_source = SourceFile("crossing.cu", CROSSING)
    whole = lint_source(whole_source, rules, RuleContext()).findings
    file_memos.release()
    assert sum(f.rule == "PTX301" for f in whole) == 2  # an argument's, a callee's value
    assert any(f.latent for f in whole)
    statements = extract(unified_source(whole_source), parse_template, type_lookup).statements
    file_memos.release()
    cut = shares(CROSSING, count)
    assert any(part_tree(SourceFile("crossing.cu", CROSSING), s).unread for s in cut)
    assert _statements(SourceFile("crossing.cu", CROSSING), count) == statements
    parts = []
    for share in cut:  # each part as a worker lints it: a source of its own, memos released
        parts.append(lint_part(SourceFile("crossing.cu", CROSSING), rules, RuleContext(),
                               SelectAll(), share))
        file_memos.release()
    merged = finish_parts(whole_source, parts, rules, SelectAll())
    assert finding_fields(merged) == finding_fields(whole)


def test_a_part_whose_rules_read_the_other_statements_is_linted_with_the_whole_tree() -> None:
    class ReadsOthers(Rule):
        id, name = "PTX997", "reads-others"

        def check(self, statement, context):
            others = context.file_statements
            if len(others) and context.parsed.unread:
                return [self.finding(statement, statement.keyword_span, "partial tree")]
            return ()

    rules = [*default_rules(), ReadsOthers()]
    whole = lint_source(SourceFile("crossing.cu", CROSSING), rules, RuleContext()).findings
    file_memos.release()
    assert not any(f.rule == "PTX997" for f in whole)
    cut = shares(CROSSING, 4)
    parts = []
    for share in cut:
        parts.append(lint_part(SourceFile("crossing.cu", CROSSING), rules, RuleContext(),
                               SelectAll(), share))
        file_memos.release()
    merged = finish_parts(SourceFile("crossing.cu", CROSSING), parts, rules, SelectAll())
    assert finding_fields(merged) == finding_fields(whole)


def test_value_flow_that_meets_a_left_out_function_has_the_part_linted_again_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every function but the part's own left out, whatever its names lead to: value flow
    # follows load_shared's parameter into caller, which is not in the tree
    def own_only(source: SourceFile, share: Share) -> list:
        read = scan(source.text)
        assert read is not None
        at = [m.start() for m in re.finditer(r"\basm\b", source.text) if share.holds(m.start())]
        return [(f.params, f.body) for f in read.functions
                if f.plain and not any(f.body[0] <= a < f.body[1] for a in at)]

    rules = default_rules()
    whole = lint_source(SourceFile("crossing.cu", CROSSING), rules, RuleContext()).findings
    file_memos.release()
    monkeypatch.setattr(part_tree_module, "_unread", own_only)
    first = shares(CROSSING, 6)[0]
    assert CROSSING.index("load_shared(unsigned") < (first.end or 0)
    tree = part_tree(SourceFile("crossing.cu", CROSSING), first)
    assert _left_out(CROSSING, tree.unread) >= {"caller", "truncated"}
    parts = []
    for share in shares(CROSSING, 6):
        parts.append(lint_part(SourceFile("crossing.cu", CROSSING), rules, RuleContext(),
                               SelectAll(), share))
        file_memos.release()
    merged = finish_parts(SourceFile("crossing.cu", CROSSING), parts, rules, SelectAll())
    assert finding_fields(merged) == finding_fields(whole)


def test_a_function_an_error_node_holds_is_never_left_out() -> None:
    # ``public`` without its colon and the class never closed: tree-sitter recovers with the
    # functions in an error node, where what a left-out interior held may change how the
    # rest is read (CUDA's sm_32_intrinsics.hpp parses as one error node)
    functions = "".join(
        f"  __device__ unsigned f{i}(unsigned x) {{ unsigned y;\n"
        f'    asm("add.u32 %0, %1, {i};" : "=r"(y) : "r"(x)); return y; }}\n'
        for i in range(6)
    )
    for text, clean in (("class A {\n public\n" + functions, False),
                        ("class A {\n public:\n" + functions + "};\n", True)):
        at = text.index("f3(")
        params = (at + 3, text.index(")", at))
        body = (text.index("{", at) + 1, text.index("}\n", at))
        tree = parse_leaving_out("error.cu", text, [params, body])
        assert part_tree_module._verified(tree, [(params, body)]) is clean


def test_members_of_one_name_in_many_classes_are_left_out_by_the_parts_that_do_not_hold_them(
) -> None:
    # CUTLASS's GMMA headers: one struct per shape, each with its own ``fma``
    structs = "".join(
        f"template <int Scale = 1>\nstruct MMA_{i} {{\n  using CRegisters = unsigned[2];\n"
        f"  __device__ static void fma(unsigned const& a, unsigned& d0, unsigned& d1) {{\n"
        f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %2, 0;\\n"\n'
        f'      "add.u32 %0, %2, {i};\\nadd.u32 %1, %2, %3;\\n}}\\n"\n'
        f'      : "+r"(d0), "+r"(d1) : "r"(a), "n"(Scale));\n  }}\n}};\n\n'
        for i in range(8)
    )
    text = "namespace gmma {\n" + structs + "}\n"
    rules = default_rules()
    whole = lint_source(SourceFile("gmma.hpp", text), rules, RuleContext()).findings
    file_memos.release()
    statements = extract(unified_source(SourceFile("gmma.hpp", text)), parse_template,
                         type_lookup).statements
    file_memos.release()
    for count in (2, 3, 4):
        cut = shares(text, count)
        keywords = [m.start() for m in re.finditer(r"\basm\b", text)]
        for share in cut:  # each part leaves out the functions of the other parts
            held = sum(share.holds(at) for at in keywords)
            tree = part_tree(SourceFile("gmma.hpp", text), share)
            assert len(tree.unread) == 2 * (8 - held)
        assert _statements(SourceFile("gmma.hpp", text), count) == statements
        parts = []
        for share in cut:
            parts.append(lint_part(SourceFile("gmma.hpp", text), rules, RuleContext(),
                                   SelectAll(), share))
            file_memos.release()
        merged = finish_parts(SourceFile("gmma.hpp", text), parts, rules, SelectAll())
        assert finding_fields(merged) == finding_fields(whole)


_RESULTS = """\
__device__ unsigned& by_reference(unsigned& x) {
  asm("add.u32 %0, %0, 1;" : "+r"(x));
  return x;
}
__device__ void (*by_pointer(unsigned x))(float) {
  asm("add.u32 %0, %0, 2;" : "+r"(x));
  return 0;
}
"""


def _interiors(text: str, name: str, list_at: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The interiors of the list that opens at ``list_at`` in function ``name``, and of its
    body."""
    at = text.index(list_at, text.index(name))
    start = at + 1
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    body = text.index("{", end) + 1
    return (start, end - 1), (body, text.index("\n}\n", body) + 1)


def test_a_left_out_list_is_the_functions_own_whatever_it_returns() -> None:
    # a function returning a reference is left out like any other; of one returning a
    # function pointer, only its own list `(unsigned x)` is its parameter list, not the
    # returned pointer's `(float)`: a proposal of that one means a whole parse
    own_ref = _interiors(_RESULTS, "by_reference", "(")
    own_ptr = _interiors(_RESULTS, "by_pointer", "(unsigned")
    result = _interiors(_RESULTS, "by_pointer", "(float")
    for unread, verified in (([own_ref], True), ([own_ptr], True), ([result], False),
                             ([own_ref, own_ptr], True), ([own_ref, result], False)):
        ranges = [r for span in unread for r in span]
        tree = parse_leaving_out("results.cu", _RESULTS, ranges)
        assert part_tree_module._verified(tree, unread) is verified
    # the scan proposes no list of a function returning a function pointer: it is kept
    assert _names(_RESULTS) == ["by_reference"]
