"""The function around a statement: the innermost definition, through lambdas, whatever lies
above it."""

from __future__ import annotations

import random

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import statement_context
from ptxlint.frontends.cxx.function_recovery import FunctionRecovery
from ptxlint.frontends.cxx.statement_context import follows_declarator
from ptxlint.frontends.syntax_tree import own_function_name, parse
from ptxlint.model import SourceFile
from tests.conftest import lint_text


def test_the_innermost_function_names_the_statement_and_the_outer_ones_do_not() -> None:
    text = """
namespace outer {
__device__ void host_of_a_local_class() {
  struct Local {
    __device__ static void inner(unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); }
  };
  asm volatile("trap;");
}
}
"""
    found = {s.template.text: s.context.function for s in extract_statements(
        SourceFile("k.cu", text)).statements}
    assert found == {"st.u32 [%0], 1;": "inner", "trap;": "host_of_a_local_class"}


def test_a_lambda_inside_a_host_function_is_not_host_only() -> None:
    # a __device__ lambda may run on the GPU: the host function around it decides nothing
    text = """
void launch() {
  auto body = [] __device__ (unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); };
}
void plain_host(unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); }
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert [s.context.function for s in result.statements] == ["launch"]
    assert [reason for _, reason in result.skipped] == [
        "host: in a host-only function (no __device__/__global__, no device caller here)"
    ]


def _full_path_only(text: str, begin: int, offset: int, blanks: int) -> tuple[None, None]:
    return None, None


def test_the_declarator_check_reads_from_a_line_as_from_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``follows_declarator`` reads the tokens before a keyword from the nearest line start
    that holds one where no token can run past it (``_last_on_line``, stepping back over
    directive and comment lines), else from 2,000 characters before: the answer is the
    same either way."""
    pieces = [
        "int f(void)", "x = g(1);", "{", "}", "#if A", "#if defined(B) && C", "#endif",
        "#else", "// c", "// c )", "/* c */", "/* a\nb */", "", "  ", "return", ")", "]",
        "a[2]", '"s"', 'R"(r\n)"', "\\", "#define X \\\n  1", "'c'", "__THROW", "else",
        "clock_t clock(void)", "volatile", "if (x)", "int a, b", "// tail \\",
    ]
    rng = random.Random(11)
    texts = []
    for _ in range(4000):
        lines = [rng.choice(pieces) for _ in range(rng.randrange(0, 7))]
        texts.append("\n".join([*lines, 'asm("nop;");']))
    fast = [follows_declarator(t, t.rindex("asm")) for t in texts]
    monkeypatch.setattr(statement_context, "_last_on_line", _full_path_only)
    slow = [follows_declarator(t, t.rindex("asm")) for t in texts]
    assert fast == slow
    assert 200 < sum(fast) < 3800  # both answers come up


def test_words_in_a_function_headers_comments_are_not_its_specifiers() -> None:
    # a comment between the specifiers is no part of the declaration
    text = """
__device__ __forceinline__ void f(unsigned *p /* as __restrict__ */, int __n,
  /* __noinline__ */ int __m) // __global__ callers only
{
  asm volatile("st.u32 [%0], 1;" :: "l"(p));
}
"""
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    specifiers = ("__device__", "__forceinline__", "__n", "__m")
    assert statement.context.function_specifiers == specifiers


def test_a_host_function_whose_comments_name_device_is_host_only() -> None:
    # the context and the host-code verdict read one header: a word in a comment counts for
    # neither
    text = """
void on_host(unsigned *p) // no __device__ here: __global__ kernels call the other one
{
  asm volatile("st.u32 [%0], 1;" :: "l"(p));
}
/* not a __device__ function either */ void also_on_host(unsigned *p) {
  asm volatile("st.u32 [%0], 2;" :: "l"(p));
}
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert result.statements == []
    assert [reason for _, reason in result.skipped] == 2 * [
        "host: in a host-only function (no __device__/__global__, no device caller here)"
    ]


# `.reg` outside braces: PTX201 in a function, silence at file scope (where no function is
# named). Each function declares its name inside a declarator of its result.
_REG = r'asm volatile(".reg .b32 t;\n\tmov.u32 t, 1;\n\tmov.u32 %0, t;" : "=r"(*p));'


@pytest.mark.parametrize("header", [
    "__device__ int& f(int *p)",
    "__device__ int&& f(int *p)",
    "__device__ void (*f(int *p))(float)",
    "__device__ int (&f(int *p))[4]",
])
def test_a_function_named_inside_its_results_declarator_is_the_statements_function(
    header: str,
) -> None:
    text = f"{header} {{ {_REG} return 0; }}\n"
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    # not file-scope asm: its unscoped declaration lands in f's scope
    assert [f.rule for f in lint_text(text, path="k.cu", select=("PTX201",))] == ["PTX201"]


_STORE = 'asm volatile("st.u32 [%0], 1;" :: "l"(p));'
_HOST_ONLY = "host: in a host-only function (no __device__/__global__, no device caller here)"


@pytest.mark.parametrize("before", [
    # a ';' in a licence: its words are not the declaration's (each a macro it cannot see)
    "/* Copyright; THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY\n   OF ANY KIND */\n",
    "/* \u00a9 Copyright; THE SOFTWARE IS PROVIDED \u2014 AS IS\n   OF ANY KIND */\n",
    # a ';' in a #define's body, on its line or a continued one: the directive's words
    "#define RUN(x) x; SYNC_ALL\n",
    "#define RUN(x) \\\n  x; SYNC_ALL\n",
    "int a;\n#define RUN(x) \\\n  SYNC_ALL\n",
])
def test_what_precedes_a_header_starts_after_the_files_code_not_in_a_comment_or_directive(
    before: str,
) -> None:
    result = extract_statements(SourceFile("k.cu", f"{before}void on_host(unsigned *p) {{ {_STORE} }}\n"))
    assert result.statements == []
    assert [reason for _, reason in result.skipped] == [_HOST_ONLY]


def test_a_device_macro_after_a_comment_holding_a_semicolon_still_says_device() -> None:
    text = f"#define DEV __device__\n/* note; see below */ DEV void f(unsigned *p) {{ {_STORE} }}\n"
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    assert "__device__" in statement.context.function_specifiers


# --------------------------------------------------------------- functions the tree lost


def _tree_names_a_function(text: str, at: int) -> bool:
    """Whether the tree shows a named function definition around character ``at``."""
    parsed = parse("k.cuh", text)
    node = parsed.tree.root_node.descendant_for_byte_range(at, at)
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node is not None and own_function_name(node) is not None


def _contexts(text: str, path: str = "k.cuh") -> list[tuple[str | None, tuple[str, ...]]]:
    statements = extract_statements(SourceFile(path, text)).statements
    for statement in statements:
        assert not _tree_names_a_function(text, statement.span.start)  # the case is real
    return [(s.context.function, s.context.function_specifiers) for s in statements]


def test_a_head_qualified_by_a_specifier_macro_read_as_a_declaration() -> None:
    # `DECL void f(...) {` with a macro operand (`:: PTR(p)`) after it: tree-sitter reads
    # the definition as a declaration with an initializer list, and every one after it too
    text = """#define PTR(p) "l"(p)
#define DECL static __device__ __inline__
DECL void store_wb(unsigned *const ptr, const unsigned value)
{
    asm ("st.global.wb.b32 [%0], %1;" :: PTR(ptr), "r"(value) : "memory");
}
DECL void store_cg(unsigned *const ptr, const unsigned value)
{
    asm ("st.global.cg.b32 [%0], %1;" :: PTR(ptr), "r"(value) : "memory");
}
"""
    assert _contexts(text) == [("store_wb", ("__device__",)), ("store_cg", ("__device__",))]


def test_a_statement_list_in_a_macro_argument_is_the_functions_body() -> None:
    # NV_IF_TARGET(SM, (statements)): a parenthesized statement list is no expression
    text = """#define HIDE __device__ inline
HIDE void sleep_for(unsigned long long ns)
{
  NV_IF_TARGET(NV_IS_DEVICE,
               (auto const step = ns; assert(step < 100);
                asm volatile("nanosleep.u32 %0;" ::"r"((unsigned) step) :);))
}
"""
    assert _contexts(text) == [("sleep_for", ("__device__",))]


def test_blocks_in_the_statement_lists_of_a_dispatch_macro() -> None:
    text = """#define _CCCL_DEVICE __device__
_CCCL_DEVICE void invalidate(unsigned long long* __barrier)
{
    NV_DISPATCH_TARGET(
      NV_PROVIDES_SM_90,
      (
        if (__isShared(__barrier)) {
          asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"((unsigned)__cvta_generic_to_shared(__barrier)) : "memory");
        } else if (__isClusterShared(__barrier)) { __trap(); }),
      NV_PROVIDES_SM_80,
      (if (__isShared(__barrier)) {
        asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"((unsigned)__cvta_generic_to_shared(__barrier)) : "memory");
      }))
}
"""
    assert _contexts(text) == [("invalidate", ("__barrier", "__device__"))] * 2


def test_an_attribute_macro_with_arguments_before_the_declarator() -> None:
    # `ATTR("...")` and a macro that says __host__ __device__ are words of the header
    text = """#define ATTR(msg) __attribute__((deprecated(msg)))
#define HOST_DEVICE __host__ __device__
ATTR("use the other one") HOST_DEVICE
void sleep_for(unsigned long long ns)
{
  NV_IF_TARGET(NV_IS_DEVICE,
               (auto const step = ns; assert(step < 100);
                asm volatile("nanosleep.u32 %0;" ::"r"((unsigned) step) :);))
}
"""
    assert _contexts(text) == [("sleep_for", ("__host__", "__device__"))]


def test_braces_opened_in_each_branch_of_an_if() -> None:
    # each branch opens the `if`'s brace: the tree's braces no longer balance, the scan's
    # do (each branch starts with the braces its #if found). The #else holds an asm
    # statement, so the parse keeps the group (frontends/split_conditionals.py)
    text = """__device__ void f(int x, unsigned* p) {
#if A
  if (x) {
#else
  asm volatile("membar.cta;" ::: "memory");
  if (!x) {
#endif
    *p = 1;
  }
  asm volatile("membar.gl;" ::: "memory");
}
"""
    assert _contexts(text) == [("f", ("__device__",))] * 2


def test_braces_opened_in_each_branch_without_asm_are_read_by_the_tree() -> None:
    # the same group without an asm statement in a branch: the parse leaves out the #else,
    # and the tree itself names the function
    text = """__device__ void f(int x, unsigned* p) {
#if A
  if (x) {
#else
  if (!x) {
#endif
    *p = 1;
  }
  asm volatile("membar.gl;" ::: "memory");
}
"""
    statements = extract_statements(SourceFile("k.cuh", text)).statements
    assert _tree_names_a_function(text, statements[0].span.start)
    assert [(s.context.function, s.context.function_specifiers) for s in statements] == [
        ("f", ("__device__",))]


def test_file_scope_asm_beside_lost_functions_stays_without_a_function() -> None:
    text = """#define PTR(p) "l"(p)
#define DECL static __device__ __inline__
asm(".global .u32 counter;");
DECL void store_wb(unsigned *const ptr, const unsigned value)
{
    asm ("st.global.wb.b32 [%0], %1;" :: PTR(ptr), "r"(value) : "memory");
}
DECL void store_cg(unsigned *const ptr, const unsigned value)
{
    asm ("st.global.cg.b32 [%0], %1;" :: PTR(ptr), "r"(value) : "memory");
}
"""
    assert _contexts(text) == [
        (None, ()), ("store_wb", ("__device__",)), ("store_cg", ("__device__",))]


@pytest.mark.parametrize(("head", "name"), [
    ("DECL void f(int a)", "f"),
    ("template <class T> DECL T A<T>::g(T a) const noexcept", "A<T>::g"),
    ("DECL bool operator()(int a) const", "operator()"),
    ("DECL ~Holder()", "~Holder"),
    ("DECL Holder(int a, Tag = {}, Tag = {}) : a_(a), b_{a}", "Holder"),
    ("DECL auto h(int a) -> decltype(a + 1)", "h"),
    ("DECL void k(int a) __attribute__((always_inline)) CCCL_REQUIRES(X<T>)", "k"),
    ("#if A\nDECL void v(int a)\n#else\nDECL void v(long a)\n#endif\n", "v"),
])
def test_the_recovery_reads_cpps_shapes_of_a_definitions_head(head: str, name: str) -> None:
    text = f"""#define PTR(p) "l"(p)
struct S {{
{head}
{{
  auto run = [&](int i) {{ return i; }};
  for (int i = 0; i < 2; ++i) {{
    asm ("st.global.wb.b32 [%0], %1;" :: PTR(p), "r"(a));
  }}
}}
}};
"""
    parsed = parse("k.cuh", text)
    at = text.index("asm (")
    found, in_lambda = FunctionRecovery(parsed).around(parsed.to_byte(at))
    assert found is not None and found.name == name and not in_lambda
    body = text.index("{\n  auto run")
    assert parsed.data[found.body_byte : found.body_byte + 1] == b"{"
    assert found.body_byte == parsed.to_byte(body)
    # inside the lambda: the same function, and the lambda said
    inner = text.index("return i;")
    assert FunctionRecovery(parsed).around(parsed.to_byte(inner))[1]


@pytest.mark.parametrize("code", [
    'asm("membar.gl;");',  # file scope
    'namespace n { int x = f(1); asm("membar.gl;"); }',
    'struct S { int g(); }; asm("membar.gl;");',
    'int t[] = { 1, 2 }; asm("membar.gl;");',
    '#define M(x) { asm("membar.gl;"); }',  # a #define's body
])
def test_the_recovery_finds_no_function_where_there_is_none(code: str) -> None:
    parsed = parse("k.cuh", code)
    at = code.index('asm("membar')
    assert FunctionRecovery(parsed).around(parsed.to_byte(at)) == (None, False)


def test_a_cross_statement_rule_sees_the_functions_the_tree_lost() -> None:
    # Both definitions are lost to the tree (a specifier macro before `void`, a macro
    # operand). Read as one function-less scope, `second` took `first`'s unscoped `.reg t`
    # for its own and neither statement was in a function; read as the two functions they
    # are, `first`'s `.reg` is a duplicate once inlined twice (PTX201) and `second` uses a
    # `t` nothing of its own declares (PTX213). nvcc -arch=sm_90a, a kernel calling
    # `first` twice and `second` once: ptxas "Duplicate definition of variable 't'",
    # "Unknown symbol 't'".
    text = """#define PTR(p) "l"(p)
#define DECL static __device__ __inline__
DECL void first(unsigned *const ptr, const unsigned value)
{
    asm (".reg .b32 t;\\n\\tmov.b32 t, %1;\\n\\tst.global.b32 [%0], t;" :: PTR(ptr), "r"(value) : "memory");
}
DECL void second(unsigned *const ptr, const unsigned value)
{
    asm ("{\\n\\tmov.b32 t, %1;\\n\\tst.global.b32 [%0], t;\\n\\t}" :: PTR(ptr), "r"(value) : "memory");
}
"""
    assert [name for name, _ in _contexts(text, "k.cu")] == ["first", "second"]
    found = lint_text(text, path="k.cu", select=("PTX201", "PTX213"))
    assert [(f.rule, text.count("\n", 0, f.span.start) + 1) for f in found] == [
        ("PTX201", 5), ("PTX213", 9)]
