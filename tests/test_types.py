"""Tier-1 syntactic type resolution of asm operand expressions."""

from __future__ import annotations

import pytest
import tree_sitter
import tree_sitter_cuda

from ptxlint.frontends.cxx.types import TypeResolver
from ptxlint.model import CType

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def resolver_for(source: str) -> TypeResolver:
    data = source.encode("utf-8")
    return TypeResolver(source, _PARSER.parse(data), data)


def operand_offset(source: str, expression: str) -> int:
    """Character offset of ``(expression)`` in the last asm statement of ``source``."""
    start = source.rindex("asm")
    return source.index(f"({expression})", start) + 1


def resolve(source: str, expression: str) -> CType | None:
    return resolver_for(source).resolve(expression, operand_offset(source, expression))


def kernel(body: str, prelude: str = "", params: str = "") -> str:
    """A kernel whose body ends with an asm statement that uses ``EXPR``."""
    return f"{prelude}\n__global__ void k({params}) {{\n{body}\n}}\n"


def asm_with(expression: str) -> str:
    return f'asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"({expression}));'


def check(
    expression: str,
    body: str = "",
    prelude: str = "",
    params: str = "",
) -> CType | None:
    source = kernel(f"unsigned out;\n{body}\n{asm_with(expression)}", prelude, params)
    return resolve(source, expression)


def shape(ctype: CType | None) -> tuple[str, str, int | None] | None:
    return None if ctype is None else (ctype.spelling, ctype.kind, ctype.size)


# --------------------------------------------------------------------------- built-in types

LOCAL_DECLARATIONS = """
char c; signed char sc; unsigned char uc; short s; unsigned short us; int i; unsigned u;
unsigned int ui; long l; unsigned long ul; long long ll; unsigned long long ull;
long int li; long unsigned int lui; short int si; bool b; float f; double d; long double ld;
size_t sz; ptrdiff_t pd; intptr_t ip; uintptr_t up; int8_t i8; uint8_t u8; int16_t i16;
uint16_t u16; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; std::uint32_t su32;
half h; __half hh; __nv_bfloat16 bf; nv_bfloat16 nbf; half2 h2; __half2 hh2;
__nv_bfloat162 bf2; __int128 i128; unsigned __int128 u128; float2 f2; int4 i4;
double3 d3; uchar4 uc4; longlong2 ll2; ulong1 ul1; dim3 grid; uint3 u3;
const volatile unsigned cvu; const float* __restrict__ fp;
"""


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("c", ("char", "integer", 1)),
        ("sc", ("signed char", "integer", 1)),
        ("uc", ("unsigned char", "integer", 1)),
        ("s", ("short", "integer", 2)),
        ("us", ("unsigned short", "integer", 2)),
        ("i", ("int", "integer", 4)),
        ("u", ("unsigned int", "integer", 4)),
        ("ui", ("unsigned int", "integer", 4)),
        ("l", ("long", "integer", 8)),
        ("ul", ("unsigned long", "integer", 8)),
        ("ll", ("long long", "integer", 8)),
        ("ull", ("unsigned long long", "integer", 8)),
        ("li", ("long", "integer", 8)),
        ("lui", ("unsigned long", "integer", 8)),
        ("si", ("short", "integer", 2)),
        ("b", ("bool", "bool", 1)),
        ("f", ("float", "floating", 4)),
        ("d", ("double", "floating", 8)),
        ("ld", ("long double", "floating", 16)),
        ("sz", ("unsigned long", "integer", 8)),
        ("pd", ("long", "integer", 8)),
        ("ip", ("long", "integer", 8)),
        ("up", ("unsigned long", "integer", 8)),
        ("i8", ("signed char", "integer", 1)),
        ("u8", ("unsigned char", "integer", 1)),
        ("i16", ("short", "integer", 2)),
        ("u16", ("unsigned short", "integer", 2)),
        ("i32", ("int", "integer", 4)),
        ("u32", ("unsigned int", "integer", 4)),
        ("i64", ("long", "integer", 8)),
        ("u64", ("unsigned long", "integer", 8)),
        ("su32", ("unsigned int", "integer", 4)),
        ("h", ("__half", "half", 2)),
        ("hh", ("__half", "half", 2)),
        ("bf", ("__nv_bfloat16", "half", 2)),
        ("nbf", ("__nv_bfloat16", "half", 2)),
        ("h2", ("__half2", "aggregate", 4)),
        ("hh2", ("__half2", "aggregate", 4)),
        ("bf2", ("__nv_bfloat162", "aggregate", 4)),
        ("i128", ("__int128", "integer", 16)),
        ("u128", ("unsigned __int128", "integer", 16)),
        ("f2", ("float2", "aggregate", 8)),
        ("i4", ("int4", "aggregate", 16)),
        ("d3", ("double3", "aggregate", 24)),
        ("uc4", ("uchar4", "aggregate", 4)),
        ("ll2", ("longlong2", "aggregate", 16)),
        ("ul1", ("ulong1", "aggregate", 8)),
        ("grid", ("dim3", "aggregate", 12)),
        ("u3", ("uint3", "aggregate", 12)),
        ("cvu", ("unsigned int", "integer", 4)),
        ("fp", ("float *", "pointer", 8)),
    ],
)
def test_builtin_declarations(expression: str, expected: tuple[str, str, int]) -> None:
    assert shape(check(expression, LOCAL_DECLARATIONS)) == expected


def test_tier_is_one() -> None:
    ctype = check("x", "int x;")
    assert ctype == CType("int", "integer", 4, tier=1)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("threadIdx.x", ("unsigned int", "integer", 4)),
        ("blockIdx.y", ("unsigned int", "integer", 4)),
        ("blockDim.z", ("unsigned int", "integer", 4)),
        ("gridDim.x", ("unsigned int", "integer", 4)),
        ("warpSize", ("int", "integer", 4)),
        ("threadIdx", ("uint3", "aggregate", 12)),
    ],
)
def test_builtin_variables(expression: str, expected: tuple[str, str, int]) -> None:
    assert shape(check(expression)) == expected


def test_vector_members() -> None:
    body = "float4 v; int2 p; double2 dd; __half2 h2; char3 c3;"
    assert shape(check("v.x", body)) == ("float", "floating", 4)
    assert shape(check("v.w", body)) == ("float", "floating", 4)
    assert shape(check("p.y", body)) == ("int", "integer", 4)
    assert shape(check("dd.x", body)) == ("double", "floating", 8)
    assert shape(check("h2.x", body)) == ("__half", "half", 2)
    assert shape(check("c3.z", body)) == ("signed char", "integer", 1)
    assert check("p.z", body) is None  # int2 has no z
    assert check("v.data", body) is None


# --------------------------------------------------------------------------- scoping


def test_parameters() -> None:
    params = "const float* __restrict__ in, int n, unsigned long long* out64, float arr[4]"
    assert shape(check("n", params=params)) == ("int", "integer", 4)
    assert shape(check("in", params=params)) == ("float *", "pointer", 8)
    assert shape(check("out64", params=params)) == ("unsigned long long *", "pointer", 8)
    assert shape(check("arr", params=params)) == ("float *", "pointer", 8)  # decays


def test_a_parameter_of_the_same_text_is_typed_where_it_is_declared() -> None:
    # a parameter declaration read once serves its other lists only under the same template
    # parameters: `T x` is unknown where T is one, and T's typedef elsewhere
    source = """typedef unsigned short T;
template <class T> __device__ void f(T x, T& y, int n) { asm("" :: "r"(x), "r"(y), "r"(n)); }
__device__ void g(T x, T& y, int n) { asm("" :: "h"(x), "h"(y), "r"(n)); }
template <class U> __device__ void h(T x, T& y, int n) { asm("" :: "h"(x), "h"(y), "r"(n)); }
__device__ void k(struct { int a; } x, int n) { asm("" :: "r"(x), "r"(n)); }
__device__ void m(struct { short a; } x, int n) { asm("" :: "r"(x), "r"(n)); }
"""
    parsed, calls = _typing_calls(source)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        [shape(t) for t in resolver.resolve_operands(operands, statement)]
        for statement, operands in _by_statement(calls)
    ]
    short = ("unsigned short", "integer", 2)
    int_ = ("int", "integer", 4)
    assert got[0] == [None, None, int_]
    assert got[1] == got[2] == [short, short, int_]
    anonymous = [("struct <anonymous>", "aggregate", None), int_]
    assert got[3] == got[4] == anonymous
    alone = [
        [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
        for calls in [[c for c in calls if c[2] is st] for st, _ in _by_statement(calls)]
    ]
    assert got == alone


_ALIKE_SOURCE = """
struct A { int m; __device__ void f(int p); };
struct B { short m; __device__ void f(int p); };
__device__ void A::f(int p) { asm("" :: "r"(m), "r"(g[0]), "r"(p)); }
__device__ void B::f(int p) { asm("" :: "h"(m), "r"(g[0]), "r"(p)); }
__device__ void f1(int p) { asm("" :: "r"(g[0]), "r"(*(T*)&p), "r"(e)); }
typedef float T;
short g[2];
enum { e = 1 };
__device__ void f2(int p) { asm("" :: "h"(g[0]), "f"(*(T*)&p), "r"(e)); }
template <class T> __device__ void f3(int p) { asm("" :: "h"(g[0]), "r"(*(T*)&p)); }
template <int T> __device__ void f4(int p) { asm("" :: "h"(g[0]), "f"(*(T*)&p)); }
__device__ void f5(int p) { long g = 0; asm("" :: "l"(g), "f"(*(T*)&p)); }
__device__ void f6(int p) { asm("" :: "h"(g[0]), "f"(*(T*)&p), "r"(e)); }
int v[2];
__device__ void f7(int p) { float v[2]; asm("" :: "f"(v[0])); }
__device__ void f8(int p) { asm("" :: "r"(v[0])); }
"""


def test_functions_written_alike_share_answers_only_where_nothing_differs() -> None:
    # answers under chains of scopes of the same content are shared (_chain_key); a class,
    # a block's own declarations, other template parameters or a namespace-scope name
    # declared between the functions keep them apart
    parsed, calls = _typing_calls(_ALIKE_SOURCE)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        [shape(t) for t in resolver.resolve_operands(operands, statement)]
        for statement, operands in _by_statement(calls)
    ]
    int_, short, float_ = ("int", "integer", 4), ("short", "integer", 2), ("float", "floating", 4)
    assert got[0] == [int_, None, int_]  # A::m; g is declared after A::f
    assert got[1] == [short, None, int_]  # B::m
    enum = ("<anonymous enum>", "enum", 4)
    assert got[2] == [None, float_, enum]  # f1: g comes later (type names count file-wide)
    assert got[3] == [short, float_, enum]
    assert got[4][0] == short and got[4][1] is None  # T is f3's template parameter
    assert got[5] == [short, float_]  # f4's T is a value: the typedef is the type
    assert got[6] == [("long", "integer", 8), float_]
    assert got[7] == got[3]
    assert got[8:] == [[float_], [int_]]  # f7's own v, the namespace's in f8
    alone = [
        [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
        for calls in [[c for c in calls if c[2] is st] for st, _ in _by_statement(calls)]
    ]
    assert got == alone


def test_parameters_shadowed_by_nested_blocks_are_the_blocks_names() -> None:
    # a name plan leaves out every name the blocks around the statement declare, at any
    # depth: p_j is the block's short from the level that declares it on, the int before
    levels = 12
    params = ", ".join(f"int p{j}" for j in range(levels))
    uses = ", ".join(f'"r"(p{j})' for j in range(levels))
    body = "".join(f'{{ short p{k} = 0; asm("" :: {uses});\n' for k in range(levels))
    source = f'__device__ void f({params}) {{ asm("" :: {uses});\n{body}{"}" * levels} }}\n'
    parsed, calls = _typing_calls(source)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        [shape(t) for t in resolver.resolve_operands(operands, statement)]
        for statement, operands in _by_statement(calls)
    ]
    int_, short = ("int", "integer", 4), ("short", "integer", 2)
    assert got == [[short if j < depth else int_ for j in range(levels)] for depth in
                   range(levels + 1)]


_CALLS_SOURCE = """
typedef unsigned short (*G)(int);
__device__ unsigned h(int);
__device__ void f1(int p) { asm("" :: "r"(h(p))); }
__device__ void f2(G h, int p) { asm("" :: "h"(h(p))); }
__device__ void f3(short p) { asm("" :: "r"(h(p))); }
__device__ void f4(int p) { G h = 0; asm("" :: "h"(h(p))); }
typedef unsigned short U;
__device__ void f5(int p) { asm("" :: "h"(U(p))); }
template <class U> __device__ void f9(int p) { asm("" :: "r"(U(p))); }
__device__ void f6(int p) { asm("" :: "l"(k(p))); }
__device__ long k(int);
__device__ void f7(int p) { asm("" :: "l"(k(p))); }
struct S { G h; __device__ void f8(int p) { asm("" :: "h"(h(p))); } };
"""


def test_a_call_of_a_name_no_scope_declares_is_typed_once_for_all_its_functions() -> None:
    # the result of f(...) where no scope of the chain declares f is the namespace scope's
    # f, as far as it is declared before the call (or a type: a cast); a parameter, a local,
    # a member or a template parameter of that name is f there instead
    parsed, calls = _typing_calls(_CALLS_SOURCE)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        shape(t)
        for statement, operands in _by_statement(calls)
        for t in resolver.resolve_operands(operands, statement)
    ]
    unsigned, short = ("unsigned int", "integer", 4), ("unsigned short", "integer", 2)
    long = ("long", "integer", 8)
    assert got == [unsigned, short, unsigned, short, short, None, None, long, short]
    alone = [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
    assert got == alone


def test_innermost_scope_wins() -> None:
    source = kernel(
        """
        unsigned out;
        double x = 0;
        {
            short x = 1;
            asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(x));
        }
        """,
        prelude="float x;",
    )
    assert shape(resolve(source, "x")) == ("short", "integer", 2)


def test_parameter_shadows_global() -> None:
    source = kernel(asm_with("x") + "\nunsigned out;", prelude="double x;", params="char x")
    # the `out` declared after the asm is irrelevant; x is the parameter
    assert shape(resolve(source, "x")) == ("char", "integer", 1)


def test_declaration_after_use_is_invisible() -> None:
    source = kernel(
        """
        unsigned out;
        asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(x));
        char x;
        """,
        prelude="long x;",
    )
    assert shape(resolve(source, "x")) == ("long", "integer", 8)


def test_loop_and_condition_declarations() -> None:
    source = kernel(
        """
        unsigned out;
        for (short i = 0; i < 4; ++i) {
            if (long long j = i) {
                asm volatile("add.s32 %0, %1, %2;" : "=r"(out) : "r"(i), "l"(j));
            }
        }
        """
    )
    resolver = resolver_for(source)
    assert shape(resolver.resolve("i", operand_offset(source, "i"))) == ("short", "integer", 2)
    assert shape(resolver.resolve("j", operand_offset(source, "j"))) == (
        "long long",
        "integer",
        8,
    )


def test_range_for_and_switch_case() -> None:
    source = kernel(
        """
        unsigned out; int data[4];
        switch (out) {
        case 0:
            unsigned char tag = 1;
            for (const int& e : data) {
                asm volatile("add.s32 %0, %1, %2;" : "=r"(out) : "r"(e), "r"(tag));
            }
        }
        """
    )
    resolver = resolver_for(source)
    assert shape(resolver.resolve("e", operand_offset(source, "e"))) == ("int", "integer", 4)
    assert shape(resolver.resolve("tag", operand_offset(source, "tag"))) == (
        "unsigned char",
        "integer",
        1,
    )


def test_globals_in_namespaces_and_linkage_blocks() -> None:
    prelude = """
    namespace detail { __device__ unsigned short counter; }
    extern "C" { __constant__ double scale; }
    extern "C" __device__ unsigned short smem_pointer(void *);
    extern __shared__ float smem[];
    """
    assert shape(check("counter", prelude=prelude)) == ("unsigned short", "integer", 2)
    assert shape(check("scale", prelude=prelude)) == ("double", "floating", 8)
    # a linkage of one declaration holds it unbraced
    assert shape(check("smem_pointer(smem)", prelude=prelude)) == (
        "unsigned short", "integer", 2)
    assert shape(check("smem", prelude=prelude)) == ("float[]", "aggregate", None)
    assert shape(check("smem[threadIdx.x]", prelude=prelude)) == ("float", "floating", 4)


def test_conflicting_preprocessor_branches_are_unknown() -> None:
    prelude = "#if USE_DOUBLE\ndouble v;\n#else\nfloat v;\n#endif\n"
    assert check("v", prelude=prelude) is None
    same = "#if A\nint w;\n#else\nint w;\n#endif\n"
    assert shape(check("w", prelude=same)) == ("int", "integer", 4)


def test_local_under_preprocessor_guard() -> None:
    body = "#if __CUDA_ARCH__ >= 800\nunsigned long long t;\n#endif\n"
    assert shape(check("t", body)) == ("unsigned long long", "integer", 8)


def test_unknown_identifier() -> None:
    assert check("mystery") is None


def test_non_ascii_text_before_the_asm() -> None:
    source = (
        "// Größe der Kachel: 32×32 — ½ warp ☃\n"
        "__global__ void k(unsigned long long* p) {\n"
        "    /* café */ unsigned out; short s = 1;\n"
        '    asm volatile("mov.b32 %0, %1;" : "=r"(out) : "h"(s));\n'
        "}\n"
    )
    assert len(source) != len(source.encode("utf-8"))
    assert shape(resolve(source, "s")) == ("short", "integer", 2)
    assert shape(resolve(source, "out")) == ("unsigned int", "integer", 4)


def test_non_ascii_long_file_crosses_chunks() -> None:
    filler = "// ünïcödé\n" * 2000
    source = filler + kernel("unsigned out; char ç = 0;\n" + asm_with("out"), prelude=filler)
    assert shape(resolve(source, "out")) == ("unsigned int", "integer", 4)


# --------------------------------------------------------------------------- typedefs, enums


def test_typedef_and_using_chains() -> None:
    prelude = """
    typedef unsigned int u32_t;
    typedef u32_t word_t;
    using index_t = word_t;
    using fptr = const float*;
    typedef int vec4_t[4];
    """
    body = "index_t idx; fptr p; vec4_t v; word_t w;"
    assert shape(check("idx", body, prelude)) == ("unsigned int", "integer", 4)
    assert shape(check("w", body, prelude)) == ("unsigned int", "integer", 4)
    assert shape(check("p", body, prelude)) == ("float *", "pointer", 8)
    assert shape(check("v", body, prelude)) == ("int[4]", "aggregate", 16)
    assert shape(check("v[1]", body, prelude)) == ("int", "integer", 4)


def test_local_typedef() -> None:
    assert shape(check("x", "typedef short s16; s16 x;")) == ("short", "integer", 2)


def test_enums() -> None:
    prelude = """
    enum Mode { kRead, kWrite };
    enum class Small : unsigned char { A, B };
    enum Wide : unsigned long long { Big };
    """
    body = "Mode m; Small s; Wide w;"
    assert shape(check("m", body, prelude)) == ("Mode", "enum", 4)
    assert shape(check("s", body, prelude)) == ("Small", "enum", 1)
    assert shape(check("w", body, prelude)) == ("Wide", "enum", 8)
    assert shape(check("kWrite", body, prelude)) == ("Mode", "enum", 4)
    assert shape(check("Small::B", body, prelude)) == ("Small", "enum", 1)
    assert check("B", body, prelude) is None  # scoped enumerators need Small::
    assert shape(check("m + 1", body, prelude)) == ("int", "integer", 4)
    assert check("s + 1", body, prelude) is None


# --------------------------------------------------------------------------- records, members


STRUCTS = """
struct Pair { int first; float second; };
typedef struct { unsigned short lo, hi; } Halves;
struct Node { Node* next; long long count; int data[8]; Pair pair;
              union { unsigned bits; float value; }; };
"""


def test_struct_values_are_aggregates() -> None:
    body = "Pair p; Halves hv; Node n; struct Pair q;"
    assert shape(check("p", body, STRUCTS)) == ("Pair", "aggregate", None)
    assert shape(check("q", body, STRUCTS)) == ("Pair", "aggregate", None)
    assert shape(check("hv", body, STRUCTS)) == ("Halves", "aggregate", None)


def test_member_access() -> None:
    body = "Pair p; Halves hv; Node n; Node* np = &n;"
    assert shape(check("p.first", body, STRUCTS)) == ("int", "integer", 4)
    assert shape(check("p.second", body, STRUCTS)) == ("float", "floating", 4)
    assert shape(check("hv.hi", body, STRUCTS)) == ("unsigned short", "integer", 2)
    assert shape(check("np->count", body, STRUCTS)) == ("long long", "integer", 8)
    assert shape(check("np->next", body, STRUCTS)) == ("Node *", "pointer", 8)
    assert shape(check("np->next->pair.second", body, STRUCTS)) == ("float", "floating", 4)
    assert shape(check("n.data", body, STRUCTS)) == ("int[8]", "aggregate", 32)
    assert shape(check("n.data[3]", body, STRUCTS)) == ("int", "integer", 4)
    assert shape(check("n.bits", body, STRUCTS)) == ("unsigned int", "integer", 4)
    assert shape(check("n.value", body, STRUCTS)) == ("float", "floating", 4)
    assert check("n->count", body, STRUCTS) is None  # wrong operator
    assert check("np.count", body, STRUCTS) is None
    assert check("p.missing", body, STRUCTS) is None


def test_members_inside_member_functions() -> None:
    source = """
    struct Acc {
        unsigned long long total;
        __device__ void add(short v) {
            unsigned out;
            asm volatile("add.u64 %0, %0, %1;" : "+l"(total) : "h"(v), "r"(this->lo));
        }
        unsigned lo;
    };
    """
    resolver = resolver_for(source)
    for expression, expected in [
        ("total", ("unsigned long long", "integer", 8)),
        ("v", ("short", "integer", 2)),
        ("this->lo", ("unsigned int", "integer", 4)),
    ]:
        offset = operand_offset(source, expression)
        assert shape(resolver.resolve(expression, offset)) == expected


def test_out_of_line_member_function() -> None:
    source = """
    struct Timer { long long start; __device__ void stop(); };
    __device__ void Timer::stop() {
        long long out;
        asm volatile("sub.s64 %0, %%clock64, %1;" : "=l"(out) : "l"(start));
    }
    """
    assert shape(resolve(source, "start")) == ("long long", "integer", 8)


def test_unknown_base_class_hides_outer_names() -> None:
    source = """
    int value;
    struct Derived : Base {
        __device__ void f() {
            unsigned out;
            asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(value));
        }
    };
    """
    assert resolve(source, "value") is None


def test_member_of_class_defined_elsewhere_is_unknown() -> None:
    source = """
    int start;
    __device__ void Elsewhere::stop() {
        unsigned out;
        asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(start));
    }
    """
    assert resolve(source, "start") is None


# --------------------------------------------------------------------------- arrays, pointers


def test_arrays_and_pointers() -> None:
    body = """
    __shared__ float tile[2][32];
    __shared__ unsigned short buf[64];
    int buf_i = 0; unsigned short* sp = buf; float** pp;
    """
    assert shape(check("tile", body)) == ("float[2][32]", "aggregate", 256)
    assert shape(check("tile[buf_i]", body)) == ("float[32]", "aggregate", 128)
    assert shape(check("tile[buf_i][threadIdx.x]", body)) == ("float", "floating", 4)
    assert shape(check("&tile[buf_i][0]", body)) == ("float *", "pointer", 8)
    assert shape(check("&buf[4]", body)) == ("unsigned short *", "pointer", 8)
    assert shape(check("sp + 4", body)) == ("unsigned short *", "pointer", 8)
    assert shape(check("4 + sp", body)) == ("unsigned short *", "pointer", 8)
    assert shape(check("buf + 4", body)) == ("unsigned short *", "pointer", 8)
    assert shape(check("sp - sp", body)) == ("long", "integer", 8)
    assert shape(check("*sp", body)) == ("unsigned short", "integer", 2)
    assert shape(check("sp[1]", body)) == ("unsigned short", "integer", 2)
    assert shape(check("*pp", body)) == ("float *", "pointer", 8)
    assert shape(check("**pp", body)) == ("float", "floating", 4)
    assert shape(check("&buf_i", body)) == ("int *", "pointer", 8)
    assert check("*buf_i", body) is None


def test_pointer_to_unknown_type_is_still_a_pointer() -> None:
    source = """
    template <typename T> __device__ void f(T* p, T v) {
        unsigned out;
        asm volatile("ld.u32 %0, [%1];" : "=r"(out) : "l"(p), "r"(v), "r"(*p));
    }
    """
    resolver = resolver_for(source)
    p = resolver.resolve("p", operand_offset(source, "p"))
    assert p is not None and (p.kind, p.size) == ("pointer", 8)
    assert resolver.resolve("v", operand_offset(source, "v")) is None
    assert resolver.resolve("*p", operand_offset(source, "*p")) is None


# --------------------------------------------------------------------------- casts and literals


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(int)c", ("int", "integer", 4)),
        ("(unsigned long long)c", ("unsigned long long", "integer", 8)),
        ("int(c)", ("int", "integer", 4)),
        ("unsigned(c)", ("unsigned int", "integer", 4)),
        ("uint32_t(c)", ("unsigned int", "integer", 4)),
        ("static_cast<uint32_t>(h)", ("unsigned int", "integer", 4)),
        ("static_cast<unsigned long long>(c)", ("unsigned long long", "integer", 8)),
        ("static_cast<Word>(c)", ("unsigned int", "integer", 4)),
        ("reinterpret_cast<const unsigned*>(&h)[0]", ("unsigned int", "integer", 4)),
        ("*reinterpret_cast<unsigned short*>(&h)", ("unsigned short", "integer", 2)),
        ("*(unsigned short*)&h", ("unsigned short", "integer", 2)),
        ("reinterpret_cast<uint64_t>(ptr)", ("unsigned long", "integer", 8)),
        ("const_cast<float*>(ptr)", ("float *", "pointer", 8)),
        ("(size_t)ptr", ("unsigned long", "integer", 8)),
        ("(Word)c", ("unsigned int", "integer", 4)),
        ("(const __half*)ptr", ("__half *", "pointer", 8)),
        ("std::bit_cast<int>(f)", ("int", "integer", 4)),
        ("cuda::std::bit_cast<unsigned>(f)", ("unsigned int", "integer", 4)),
        ("::std::bit_cast<int>(f)", ("int", "integer", 4)),
        ("(int)(c + 1)", ("int", "integer", 4)),
        ("((short)c)", ("short", "integer", 2)),
    ],
)
def test_casts(expression: str, expected: tuple[str, str, int]) -> None:
    body = "char c; __half h; float f; const float* ptr;"
    assert shape(check(expression, body, "typedef unsigned Word;")) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("42", ("int", "integer", 4)),
        ("42u", ("unsigned int", "integer", 4)),
        ("42U", ("unsigned int", "integer", 4)),
        ("42l", ("long", "integer", 8)),
        ("42ul", ("unsigned long", "integer", 8)),
        ("42LU", ("unsigned long", "integer", 8)),
        ("42ll", ("long long", "integer", 8)),
        ("0x10ull", ("unsigned long long", "integer", 8)),
        ("0x10", ("int", "integer", 4)),
        ("0xffffffff", ("unsigned int", "integer", 4)),
        ("4294967295", ("long", "integer", 8)),
        ("2147483648", ("long", "integer", 8)),
        ("0x100000000", ("long", "integer", 8)),
        ("0xffffffffffffffff", ("unsigned long", "integer", 8)),
        ("1'000'000", ("int", "integer", 4)),
        ("010", ("int", "integer", 4)),
        ("0b1010", ("int", "integer", 4)),
        ("1.0f", ("float", "floating", 4)),
        ("1.5F", ("float", "floating", 4)),
        ("1.0", ("double", "floating", 8)),
        ("1e-3", ("double", "floating", 8)),
        ("2.f", ("float", "floating", 4)),
        ("0x1p4", ("double", "floating", 8)),
        ("'a'", ("char", "integer", 1)),
        ("'\\n'", ("char", "integer", 1)),
        ("true", ("bool", "bool", 1)),
        ("false", ("bool", "bool", 1)),
        ("sizeof(int)", ("unsigned long", "integer", 8)),
        ("sizeof(T)", ("unsigned long", "integer", 8)),
        ("sizeof x", ("unsigned long", "integer", 8)),
        ("alignof(double)", ("unsigned long", "integer", 8)),
        ("-1", ("int", "integer", 4)),
    ],
)
def test_literals(expression: str, expected: tuple[str, str, int]) -> None:
    assert shape(check(expression, "int x;")) == expected


def test_unknown_literals() -> None:
    assert check("L'a'") is None
    assert check('"abc"') is None
    assert check("100_km") is None
    assert check("nullptr") is None


# --------------------------------------------------------------------------- calls


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("__cvta_generic_to_shared(p)", ("unsigned long", "integer", 8)),
        ("(unsigned)__cvta_generic_to_shared(p)", ("unsigned int", "integer", 4)),
        ("__float_as_uint(f)", ("unsigned int", "integer", 4)),
        ("__float_as_int(f)", ("int", "integer", 4)),
        ("__half_as_ushort(h)", ("unsigned short", "integer", 2)),
        ("__bfloat16_as_ushort(b)", ("unsigned short", "integer", 2)),
        ("__double_as_longlong(d)", ("long long", "integer", 8)),
        ("__int_as_float(1)", ("float", "floating", 4)),
        ("::__activemask()", ("unsigned int", "integer", 4)),
        ("(unsigned)::__cvta_generic_to_shared(p)", ("unsigned int", "integer", 4)),
        ("lane_id()", ("unsigned int", "integer", 4)),
        ("make_ptr()", ("int *", "pointer", 8)),
        ("half(f)", ("__half", "half", 2)),
    ],
)
def test_calls(expression: str, expected: tuple[str, str, int]) -> None:
    prelude = """
    __device__ __forceinline__ unsigned lane_id();
    __device__ int* make_ptr() { return nullptr; }
    """
    body = "float* p; float f; __half h; __nv_bfloat16 b; double d;"
    assert shape(check(expression, body, prelude)) == expected


def test_global_qualified_calls_are_typed_only_for_intrinsics() -> None:
    # `::f()` names the global namespace's f: a CUDA intrinsic's type is known there, a
    # function of the file's (maybe overloaded in another namespace) or a macro's is not
    assert check("::lane_id()", "", "__device__ unsigned lane_id();") is None
    assert check("ns::__activemask()") is None
    assert check("::__activemask()", "", "#define __activemask() 1") is None


def test_unknown_calls() -> None:
    prelude = """
    #define LANE() (threadIdx.x & 31)
    #define WORD(x) ((unsigned)(x))
    __device__ int over(int);
    __device__ float over(float);
    template <typename T> __device__ T ident(T);
    template <typename T> __device__ int count(T);
    """
    body = "float f; auto lam = [](int v) { return v; };"
    assert check("LANE()", body, prelude) is None
    assert check("WORD(f)", body, prelude) is None
    assert check("over(f)", body, prelude) is None  # overloads disagree
    assert check("ident(f)", body, prelude) is None
    assert shape(check("count(f)", body, prelude)) == ("int", "integer", 4)
    assert check("ident<int>(f)", body, prelude) is None
    assert check("lam(1)", body, prelude) is None
    assert check("undeclared(f)", body, prelude) is None
    assert check("__shfl_sync(0xffffffff, f, 0)", body, prelude) is None


def test_object_like_macro_is_unknown() -> None:
    prelude = "#define TID threadIdx.x\nint TID2;"
    assert check("TID", prelude=prelude) is None
    assert check("&TID", prelude=prelude) is None


# --------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("i + i", ("int", "integer", 4)),
        ("c + c", ("int", "integer", 4)),
        ("s * b", ("int", "integer", 4)),
        ("i + u", ("unsigned int", "integer", 4)),
        ("i + l", ("long", "integer", 8)),
        ("u + l", ("long", "integer", 8)),
        ("l + ul", ("unsigned long", "integer", 8)),
        ("ll + ul", ("unsigned long long", "integer", 8)),
        ("i + ull", ("unsigned long long", "integer", 8)),
        ("i * f", ("float", "floating", 4)),
        ("f + d", ("double", "floating", 8)),
        ("f * 2.0", ("double", "floating", 8)),
        ("f * 2.0f", ("float", "floating", 4)),
        ("u << 2", ("unsigned int", "integer", 4)),
        ("c << ull", ("int", "integer", 4)),
        ("ull >> 32", ("unsigned long long", "integer", 8)),
        ("u & 0xff", ("unsigned int", "integer", 4)),
        ("i % 3", ("int", "integer", 4)),
        ("i < u", ("bool", "bool", 1)),
        ("p == nullptr_like", ("bool", "bool", 1)),
        ("i && f", ("bool", "bool", 1)),
        ("!i", ("bool", "bool", 1)),
        ("-c", ("int", "integer", 4)),
        ("~us", ("int", "integer", 4)),
        ("-d", ("double", "floating", 8)),
        ("b ? u : 1u", ("unsigned int", "integer", 4)),
        ("i = 3", ("int", "integer", 4)),
        ("i++", ("int", "integer", 4)),
        ("(i, d)", ("double", "floating", 8)),
        ("((u))", ("unsigned int", "integer", 4)),
    ],
)
def test_operators(expression: str, expected: tuple[str, str, int]) -> None:
    body = """
    char c; short s; bool b; int i; unsigned u; long l; unsigned long ul;
    long long ll; unsigned long long ull; float f; double d; unsigned short us;
    int* p; int* nullptr_like;
    """
    assert shape(check(expression, body)) == expected


def test_operators_without_an_answer() -> None:
    body = "int i; unsigned u; float f; __half h; float4 v; auto a = unknown();"
    assert check("b ? i : u", "bool b;" + body) is None  # arms differ
    assert check("f % 2", body) is None
    assert check("f << 1", body) is None
    assert check("~f", body) is None
    assert check("h + h", body) is None  # operator overloads of __half
    assert check("-h", body) is None
    assert check("v + v", body) is None
    assert check("h < h", body) is None
    assert check("a + 1", body) is None


# --------------------------------------------------------------------------- templates, auto


def test_template_dependent_names_are_unknown() -> None:
    source = """
    template <typename T, int N, class Traits>
    __device__ void f(T x, typename Traits::word w, const T* p) {
        T local; decltype(x) same = x; auto a = x + 1u; int plain = N;
        unsigned out;
        asm volatile("" : "=r"(out) : "r"(x), "r"(w), "r"(local), "r"(same), "r"(a),
                     "r"((T)plain), "r"(static_cast<T>(plain)), "r"(plain), "n"(N),
                     "r"(sizeof(T)), "r"(p));
    }
    """
    resolver = resolver_for(source)

    def at(expression: str) -> CType | None:
        return resolver.resolve(expression, operand_offset(source, expression))

    for expression in ("x", "w", "local", "same", "a", "(T)plain", "static_cast<T>(plain)"):
        assert at(expression) is None, expression
    assert shape(at("plain")) == ("int", "integer", 4)
    assert shape(at("N")) == ("int", "integer", 4)  # a non-type parameter's type is known
    assert shape(at("sizeof(T)")) == ("unsigned long", "integer", 8)
    assert shape(at("p")) == ("T *", "pointer", 8)


def test_members_of_class_templates() -> None:
    source = """
    template <typename T>
    struct Box {
        T item; int count;
        __device__ void g() {
            unsigned out;
            asm volatile("" : "=r"(out) : "r"(item), "r"(count));
        }
    };
    """
    resolver = resolver_for(source)
    assert resolver.resolve("item", operand_offset(source, "item")) is None
    assert shape(resolver.resolve("count", operand_offset(source, "count"))) == (
        "int",
        "integer",
        4,
    )


def test_class_template_instances_are_typed_from_their_arguments() -> None:
    # more in tests/test_types_class_templates.py
    prelude = "template <typename T> struct Wrap { T v; };"
    assert shape(check("w.v", "Wrap<int> w;", prelude)) == ("int", "integer", 4)
    assert shape(check("w", "Wrap<int> w;", prelude)) == ("Wrap<int>", "aggregate", None)


def test_auto_pointer_is_a_pointer_even_to_an_unknown_type() -> None:
    assert shape(check("p", "int x; auto* p = &x;")) == ("int *", "pointer", 8)
    assert shape(check("q", "int x; auto q = &x;")) == ("int *", "pointer", 8)
    # `auto*` is a pointer whatever its initialiser: C++ rejects anything else
    ctype = check("p", "auto* p = unknown();")
    assert ctype is not None and (ctype.kind, ctype.size) == ("pointer", 8)
    assert check("q", "auto q = unknown();") is None


def test_syntax_errors_are_unknown() -> None:
    assert resolver_for(kernel("int x;")).resolve("x +", 0) is None
    assert resolver_for(kernel("int x;")).resolve("", 0) is None
    assert resolver_for(kernel("int x;")).resolve("a, b", 0) is None


# --------------------------------------------------------------------------- speed


def test_many_operands_in_a_large_file_are_cheap() -> None:
    import time

    functions = "\n".join(
        f"__device__ unsigned f{i}(unsigned a{i}) {{ unsigned r; "
        f'asm("add.u32 %0, %1, 1;" : "=r"(r) : "r"(a{i})); return r; }}'
        for i in range(600)
    )
    source = "typedef unsigned u32;\nstruct S { int a; };\n" + functions
    resolver = resolver_for(source)
    offsets = [source.index(f'"r"(a{i})') + 4 for i in range(600)]
    start = time.process_time()  # CPU: a loaded machine stretches only wall time
    for i, offset in enumerate(offsets):
        assert shape(resolver.resolve(f"a{i}", offset)) == ("unsigned int", "integer", 4)
    assert time.process_time() - start < 2.0  # a scan of the file per look-up takes minutes


def test_names_inside_macro_bodies_are_unknown() -> None:
    source = (
        'int r; float p;\n#define LOAD(r, p) asm volatile("ld.u32 %0, [%1];" : "=r"(r) : "l"(p))\n'
    )
    resolver = resolver_for(source)
    assert resolver.resolve("r", operand_offset(source, "r")) is None
    assert resolver.resolve("p", operand_offset(source, "p")) is None
    source = '#define ONE asm volatile("mov.u32 %0, %1;" : "=r"(x) : "r"((unsigned)1))\n'
    resolver = resolver_for(source)
    offset = operand_offset(source, "(unsigned)1")
    assert shape(resolver.resolve("(unsigned)1", offset)) == ("unsigned int", "integer", 4)


def test_cast_to_record_spelled_as_expression() -> None:
    prelude = "struct Wide { unsigned a, b; };"
    assert shape(check("static_cast<Wide>(w)", "Wide w;", prelude)) == (
        "Wide",
        "aggregate",
        None,
    )
    assert shape(check("static_cast<Wide>(w).b", "Wide w;", prelude)) == (
        "unsigned int",
        "integer",
        4,
    )


def test_reference_to_array_parameter_does_not_decay() -> None:
    params = "const unsigned (&lanes)[4], float arr[], int* (&ptrs)[2]"
    assert shape(check("lanes", params=params)) == ("unsigned int[4]", "aggregate", 16)
    assert shape(check("lanes[2]", params=params)) == ("unsigned int", "integer", 4)
    assert shape(check("arr", params=params)) == ("float *", "pointer", 8)
    assert shape(check("ptrs[1]", params=params)) == ("int *", "pointer", 8)


def test_libcudacxx_std_spellings() -> None:
    body = "_CUDA_VSTD::uint32_t a; cuda::std::int64_t b; ::uint16_t c; Traits::uint32_t d;"
    assert shape(check("a", body)) == ("unsigned int", "integer", 4)
    assert shape(check("b", body)) == ("long", "integer", 8)
    assert shape(check("c", body)) == ("unsigned short", "integer", 2)
    assert check("d", body) is None
    assert shape(check("*reinterpret_cast<const _CUDA_VSTD::int32_t*>(&a)", body)) == (
        "int",
        "integer",
        4,
    )


# --------------------------------------------------------------------------- cost


def _wide_functions(functions: int, parameters: int) -> str:
    """Functions of many parameters, each passing all of them to one asm (CUTLASS's GMMA)."""
    params = ", ".join(f"unsigned p{i}" for i in range(parameters))
    operands = ", ".join(f'"r"(p{i})' for i in range(parameters))
    body = f'  asm volatile("// %0" :: {operands});'
    return "".join(f"__device__ void f{n}({params}) {{\n{body}\n}}\n" for n in range(functions))


def test_operands_are_typed_from_the_file_tree_not_parsed_one_by_one(monkeypatch) -> None:
    from ptxlint.engine import extract_statements
    from ptxlint.frontends.cxx.types import TypeResolver
    from ptxlint.model import SourceFile

    alone: list[str] = []
    real = TypeResolver._parse_alone

    def spy(self, expression):
        alone.append(expression)
        return real(self, expression)

    monkeypatch.setattr(TypeResolver, "_parse_alone", spy)
    source = _wide_functions(3, 8) + (
        '__device__ void g(unsigned x) { asm("// %0" :: "r"((unsigned short)x)); }\n'
    )
    statements = extract_statements(SourceFile("k.cu", source)).statements
    operands = [o for s in statements for o in s.operands]
    assert len(operands) == 25 and all(o.ctype is not None for o in operands)
    assert operands[-1].ctype.spelling == "unsigned short"
    assert alone == []


def test_typing_cost_grows_with_the_file_not_with_statements_times_parameters(
    monkeypatch,
) -> None:
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    visits = [0]
    from ptxlint.frontends.cxx import c_types, declaration_index, scope_lookup

    real = c_types.declarator_name

    def counting(decl):
        visits[0] += 1
        return real(decl)

    # every module of the typer that names declarations reads them through this one function
    for module in (declaration_index, scope_lookup):
        monkeypatch.setattr(module, "declarator_name", counting)
    functions, parameters = 4, 64
    statements = extract_statements(
        SourceFile("k.cu", _wide_functions(functions, parameters))
    ).statements
    assert sum(o.ctype is not None for s in statements for o in s.operands) == 256
    # one visit per parameter declaration (the old per-operand walk made 4 x 64 x 64 / 2)
    assert visits[0] <= 2 * functions * parameters


# --------------------------------------------------------------------------- memoised answers


def _operand_types(source: str) -> list[str | None]:
    """Every operand's type spelling, in order, from one extraction (one resolver)."""
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    statements = extract_statements(SourceFile("k.cu", source)).statements
    return [
        o.ctype.spelling if o.ctype is not None else None for s in statements for o in s.operands
    ]


def test_a_later_declaration_in_the_block_is_not_seen_by_an_earlier_use() -> None:
    # both inner statements share one chain of scopes; the second is past the shadowing `x`,
    # the first is before it, and the third is outside the block again
    source = """
__global__ void k(unsigned x) {
  {
    asm volatile("mov.b32 %0, %0;" : "+r"(x));
    asm volatile("mov.b32 %0, %0;" : "+r"(x + 1u));
    unsigned long long x = 0;
    asm volatile("mov.b64 %0, %0;" : "+l"(x));
    asm volatile("mov.b64 %0, %0;" : "+l"(x + 1u));
  }
  asm volatile("mov.b32 %0, %0;" : "+r"(x));
  asm volatile("mov.b32 %0, %0;" : "+r"(x + 1u));
}
"""
    assert _operand_types(source) == [
        "unsigned int",
        "unsigned int",
        "unsigned long long",
        "unsigned long long",
        "unsigned int",
        "unsigned int",
    ]


def test_memoised_answers_hold_only_between_declarations_in_any_order() -> None:
    source = kernel(
        'asm("" :: "r"(v));\n'
        "short v = 0;\n"
        'asm("" :: "r"(v));\n'
        "{ long long v = 1; }\n"  # another block: never visible here
        'asm("" :: "r"(v));\n'
        "double v2 = 0, v3 = v2;\n"
        'asm("" :: "r"(v));\n',
        prelude="__device__ float v;",
    )
    uses = [m.start() + len('"r"(') for m in __import__("re").finditer(r'"r"\(v\)', source)]
    expected = ["float", "short", "short", "short"]
    # asked in source order, in reverse and interleaved: each answer is the one at its offset
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        r = resolver_for(source)
        answers = {i: r.resolve("v", uses[i]) for i in order}
        assert [shape(answers[i])[0] for i in range(4)] == expected


def _count_top_level_typings(monkeypatch) -> list[str]:
    """``Expr.type_of`` patched to note the text of each expression it types from the top (not
    its sub-expressions), in the list returned."""
    import ptxlint.frontends.cxx.types as types_module
    from ptxlint.frontends.cxx import expression_types

    typed: list[str] = []
    real = expression_types.Expr.type_of
    subscripted = types_module.TypeResolver._subscripted_name

    def counting(self, node):
        if self.depth == 0:
            typed.append(node.text.decode())
        return real(self, node)

    def counting_subscripts(self, value, shared, chain, b):
        found = subscripted(self, value, shared, chain, b)
        if found is not None:  # typed here, by name, instead of by _Expr
            typed.append(value.text.decode())
        return found

    monkeypatch.setattr(expression_types.Expr, "type_of", counting)
    monkeypatch.setattr(types_module.TypeResolver, "_subscripted_name", counting_subscripts)
    return typed


def test_an_expression_is_typed_once_per_scope(monkeypatch) -> None:
    typed = _count_top_level_typings(monkeypatch)
    statements = "".join('asm("" :: "r"(a[0] + 1), "r"(a[1] + 1), "r"(b));\n' for _ in range(5))
    source = kernel(statements, params="const unsigned* a, unsigned b")
    assert _operand_types(source) == ["unsigned int"] * 15
    assert sorted(typed) == ["a[0] + 1", "a[1] + 1"]  # `b` is a name: no expression to type


def test_index_from_keywords_matches_the_whole_tree_query() -> None:
    from ptxlint.frontends.cxx.types import TypeResolver

    source = """
// struct NotOne; typedef int NotTwo; #define NOT_THREE
const char* s = "enum NotFour { NOT_FIVE };";
#  define SPACED 1
#define FN(a) (a)
typedef struct { int q; } Anonymous, *AnonymousPtr;
typedef unsigned Word;
using Alias = Word;
using namespace std;
template <class T, typename U> struct Holder { class Inner {}; union U2 { int a; }; };
enum class Scoped : short { S1, S2 };
enum Plain { P1,
#if X
  P2,
#endif
};
struct $odd { int a; };
classy_t not_a_class;
"""
    data = source.encode()
    r = TypeResolver(source, _PARSER.parse(data), data)
    by_query = {k: [n.id for n in v] for k, v in r._index_captures().items() if v}
    by_keywords = {k: [n.id for n, _ in v] for k, v in r._keyword_captures().items() if v}
    assert by_keywords == by_query
    names = {k: sorted(n.text.decode() for n, _ in v) for k, v in r._keyword_captures().items()}
    assert names["macro"] == ["FN", "SPACED"]
    assert names["enumerator"] == ["P1", "P2", "S1", "S2"]
    assert names["record"] == ["$odd", "Holder", "Inner", "U2"]


def test_enumerators_left_by_a_parse_error_come_from_the_whole_tree() -> None:
    from ptxlint.frontends.cxx.types import TypeResolver

    # tree-sitter leaves `A` in an ERROR node with the `enum` keyword, outside any enum specifier
    source = "enum F { D };\nenum E { A, B"
    data = source.encode()
    r = TypeResolver(source, _PARSER.parse(data), data)
    by_query = [n.id for n in r._index_captures().get("enumerator", [])]
    assert len(by_query) == 2
    assert by_query == [n.id for n, _ in r._keyword_captures().get("enumerator", [])]


def test_an_operand_with_its_type_is_the_dataclass_replacement() -> None:
    import dataclasses

    import ptxlint.frontends.cxx.extract as extract_module
    from ptxlint.engine import extract_statements
    from ptxlint.model import Operand, SourceFile, Span

    source = kernel('asm("" :: "r"(b));', params="unsigned b")
    (read,) = extract_statements(SourceFile("k.cu", source)).statements[0].operands
    operand = Operand(3, "input", read.constraint, "b", Span(10, 11), Span(5, 12), "name")
    ctype = CType(spelling="unsigned int", kind="integer", size=4, tier=1)
    expected = dataclasses.replace(operand, ctype=ctype)
    # typed in place: the reader's operands are their statement's own (see extract._RawStatement)
    made = extract_module._with_ctype(operand, ctype)
    assert made == expected and repr(made) == repr(expected) and made is operand
    assert hash(made) == hash(expected)


def test_the_same_expression_in_other_scopes_tells_unnamed_records_apart() -> None:
    # both `s` are "struct <anonymous>" by name; only their bodies differ
    source = (
        '__device__ void f() { struct { unsigned x; } s; asm("" :: "r"(s.x)); }\n'
        '__device__ void g() { struct { unsigned long long x; } s; asm("" :: "l"(s.x)); }\n'
    )
    assert _operand_types(source) == ["unsigned int", "unsigned long long"]


def test_the_same_expression_in_other_scopes_depends_on_the_class_and_template_around() -> None:
    source = """
struct A { unsigned x; __device__ void f() { asm("" :: "r"(this->x)); } };
struct B { unsigned long long x; __device__ void f() { asm("" :: "l"(this->x)); } };
typedef unsigned T;
__device__ void h(int x) { asm("" :: "r"((T)x)); }
template <class T> __device__ void t(int x) { asm("" :: "r"((T)x)); }
__device__ void h2(int x) { asm("" :: "r"((T)x)); }
"""
    assert _operand_types(source) == [
        "unsigned int",
        "unsigned long long",
        "unsigned int",
        None,
        "unsigned int",
    ]


def _typing_calls(source: str) -> tuple[object, list[tuple[str, int, object]]]:
    """The parsed file and the (expression, offset, statement) calls that typing every
    operand of its statements makes."""
    import ptxlint.frontends.cxx.extract as extract_module
    from ptxlint.engine import parse_template
    from ptxlint.model import SourceFile

    calls: list[tuple[str, int, object]] = []

    def recording(parsed):
        def lookup(expression, offset, statement=None):
            calls.append((expression, offset, statement))
            return None

        return lookup

    result = extract_module.extract(SourceFile("k.cu", source), parse_template, recording)
    for statement in result.statements:  # types are worked out when read
        for operand in statement.operands:
            _ = operand.ctype
    return result.parsed, calls


def _shared_and_alone(source: str) -> tuple[list[str | None], list[str | None]]:
    """Every operand's type from one resolver (memoised across operands), and from a fresh
    resolver per operand (nothing to share): any memo must give the second answers."""
    parsed, calls = _typing_calls(source)
    assert parsed is not None and calls
    shared = TypeResolver(parsed.text, parsed.tree, parsed.data)
    together = [shape(shared.resolve(*call)) for call in calls]
    alone = [
        shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*call))
        for call in calls
    ]
    spell = lambda answers: [a[0] if a is not None else None for a in answers]  # noqa: E731
    return spell(together), spell(alone)


_SUBSCRIPT_SCOPES = """
__device__ void f(const unsigned* a, int i) {
  asm("" :: "r"(a[0]), "r"(a[i + 1]));
  {
    asm("" :: "r"(a[1]));
    float a[4] = {};
    asm("" :: "r"(a[2]), "r"(a[i * 2]));
    asm("" :: "r"(a[3][0]));
  }
  asm("" :: "r"(a[3]), "r"(a[(i)]));
  if (i) { double a[2][2]; asm("" :: "r"(a[0][1]), "r"(a[i][1]), "r"(a[1])); }
}
__device__ void g(const unsigned long long* a) { asm("" :: "l"(a[0]), "l"(a[1])); }
template <class T> __device__ void t(T* a) { asm("" :: "r"(a[0]), "r"(a[1])); }
__device__ void h(uint4 a[2]) { asm("" :: "r"(a[0].x), "r"(a[1]), "r"(a[0][0])); }
"""


def test_subscripts_of_a_name_share_an_answer_only_in_one_scope_and_range() -> None:
    together, alone = _shared_and_alone(_SUBSCRIPT_SCOPES)
    assert together == alone == [
        "unsigned int", "unsigned int",  # f's parameter
        "unsigned int",  # before the block's own `a`
        "float", "float", None,  # after it; one pair too many for float[4]
        "unsigned int", "unsigned int",  # outside the block again
        "double", "double", "double[2]",  # if's block: double[2][2]
        "unsigned long long", "unsigned long long",  # another function
        None, None,  # a template parameter's type
        "unsigned int", "uint4", None,  # a member, the element, one pair too many
    ]  # fmt: skip


def test_subscripts_with_any_index_are_typed_once_per_name_and_scope(monkeypatch) -> None:
    typed = _count_top_level_typings(monkeypatch)
    source = kernel(
        'asm("" :: "r"(a[0]), "r"(a[1]), "r"(a[i + 1]), "r"(a[ 2 ]), "r"(a[(i)]));\n'
        'asm("" :: "r"(m[0][1]), "r"(m[1][i]), "r"(m[i][i + 1]), "r"(m[0]));\n',
        params="const unsigned* a, int i, const unsigned (*m)[4]",
    )
    assert _operand_types(source) == ["unsigned int"] * 8 + ["unsigned int[4]"]
    assert typed == ["a[0]", "m[0][1]", "m[0]"]


_CAST_SCOPES = """
typedef unsigned T;
__device__ void f(float x, float y) {
  asm("" :: "l"(*(unsigned long long*)&x), "l"(*(unsigned long long*)&y));
  asm("" :: "r"((T)x), "r"(*reinterpret_cast<T*>(&y)), "r"(reinterpret_cast<T const&>(x)));
  asm("" :: "r"(0.0f), "r"(1u), "r"(*(int*)0));
}
template <class T> __device__ void t(float x) {
  asm("" :: "l"(*(unsigned long long*)&x), "r"((T)x), "r"(*reinterpret_cast<T*>(&x)));
  asm("" :: "r"(reinterpret_cast<T const&>(x)), "r"(0.0f), "r"(1u), "r"(*(int*)0));
}
__device__ void g(double x) {
  typedef unsigned long long U;
  asm("" :: "l"(*(unsigned long long*)&x), "r"((T)x), "r"(*reinterpret_cast<T*>(&x)));
  asm("" :: "l"((U)x), "r"(0.0f), "r"(1u), "r"(*(int*)0), "r"(*(int*)x));
  asm("" :: "l"((unsigned long long*)&x), "l"((int*)x));
}
"""


def test_casts_share_an_answer_across_arguments_and_only_where_the_type_means_the_same() -> None:
    together, alone = _shared_and_alone(_CAST_SCOPES)
    assert together == alone == [
        "unsigned long long", "unsigned long long",
        "unsigned int", "unsigned int", "unsigned int",
        "float", "unsigned int", "int",
        "unsigned long long", None, None,  # T is t's template parameter
        None, "float", "unsigned int", "int",
        "unsigned long long", "unsigned int", "unsigned int",
        "unsigned long long", "float", "unsigned int", "int", "int",
        "unsigned long long *", "int *",
    ]  # fmt: skip


def test_a_cast_of_words_is_typed_once_per_file(monkeypatch) -> None:
    typed = _count_top_level_typings(monkeypatch)
    _shared_and_alone(_CAST_SCOPES)  # warms nothing: each resolver is new
    typed.clear()
    parsed, calls = _typing_calls(_CAST_SCOPES)
    shared = TypeResolver(parsed.text, parsed.tree, parsed.data)
    for call in calls:
        shared.resolve(*call)
    # in three functions: each cast of words and each literal once, each cast to T once per
    # function (T may be a template parameter), the reference cast once per function
    assert typed.count("*(unsigned long long*)&x") == 1
    assert "*(unsigned long long*)&y" not in typed
    assert typed.count("0.0f") == typed.count("1u") == typed.count("*(int*)0") == 1
    assert "*(int*)x" not in typed
    assert typed.count("(T)x") == 3
    assert typed.count("*reinterpret_cast<T*>(&y)") + typed.count(
        "*reinterpret_cast<T*>(&x)"
    ) == 3


def test_a_statement_given_by_its_ancestors_is_typed_as_given_by_its_keyword() -> None:
    # extraction hands the resolver the keyword's ancestors it has read (no parent step made
    # twice); the keyword itself, or no statement at all, must give the same answers
    source = _SUBSCRIPT_SCOPES + _CAST_SCOPES.replace("typedef unsigned T;", "")
    parsed, calls = _typing_calls(source)
    assert all(isinstance(statement, list) for _, _, statement in calls)
    by_ancestors = TypeResolver(parsed.text, parsed.tree, parsed.data)
    by_keyword = TypeResolver(parsed.text, parsed.tree, parsed.data)
    by_offset = TypeResolver(parsed.text, parsed.tree, parsed.data)
    for expression, offset, ups in calls:
        keyword = ups[0].children[0]
        assert keyword.type == "asm" and keyword.parent == ups[0]
        expected = shape(by_offset.resolve(expression, offset))
        assert shape(by_keyword.resolve(expression, offset, keyword)) == expected
        assert shape(by_ancestors.resolve(expression, offset, ups)) == expected


def test_operands_parsed_on_their_own_are_parsed_once_per_text(monkeypatch) -> None:
    import ptxlint.frontends.cxx.types as types_module

    # a comment before the expression: the file's tree holds no node spanning the text
    source = """
__device__ void f(unsigned x) {
  asm("" :: "r"(/*a*/ x + 1u), "r"(/*b*/ (x)), "r"(/*c*/ x +));
  asm("" :: "r"(/*a*/ x + 1u), "r"(/*b*/ (x)), "r"(/*c*/ x +));
}
__device__ void g(unsigned long long x) {
  asm("" :: "l"(/*a*/ x + 1u), "l"(/*b*/ (x)), "l"(/*c*/ x +));
}
"""
    parses: list[str] = []
    real = types_module.TypeResolver._parse_alone

    def counting(self, expression):
        if expression not in self._alone:
            parses.append(expression)
        return real(self, expression)

    monkeypatch.setattr(types_module.TypeResolver, "_parse_alone", counting)
    together, alone = _shared_and_alone(source)
    expected = ["unsigned int", "unsigned int", None] * 2 + ["unsigned long long"] * 2 + [None]
    assert together == alone == expected
    parses.clear()
    parsed, calls = _typing_calls(source)
    shared = TypeResolver(parsed.text, parsed.tree, parsed.data)
    assert [shape(shared.resolve(*call)) is not None for call in calls] == [
        answer is not None for answer in expected
    ]
    assert sorted(parses) == ["/*a*/ x + 1u", "/*b*/ (x)", "/*c*/ x +"]


def _by_statement(calls: list[tuple[str, int, object]]) -> list[tuple[object, list[tuple[str, int]]]]:
    groups: list[tuple[object, list[tuple[str, int]]]] = []
    for expression, offset, statement in calls:
        if groups and groups[-1][0] is statement:
            groups[-1][1].append((expression, offset))
        else:
            groups.append((statement, [(expression, offset)]))
    return groups


_BATCH_SOURCE = (
    _SUBSCRIPT_SCOPES
    + _CAST_SCOPES.replace("typedef unsigned T;", "")
    + """
__device__ void m(float x, int n) {
  asm("" :: "r"(n), "r"(x), "r"(n), "f"(x + 1), "r"(/*c*/ n), "r"(( n )), "r"(n + 1));
  { int x = 2; asm("" :: "r"(x), "r"(n + 1), "r"(x + 1), "r"([&] { return x; }()));
    const char* s = "\u00e9"; asm("" :: "l"(s), "r"(x)); }
  asm("" :: "r"(n), "f"(x), "r"(sizeof(x)), "r"(missing), "r"(n[0]));
  { asm("" :: "r"(n), "r"((n)), "f"(x * 2)); short n = 0; asm("" :: "h"(n), "h"((n)));
    long x = 0; asm("" :: "l"(x), "r"(n), "l"(x * 2)); }
}
"""
)


@pytest.mark.parametrize("text", ["wide", "ascii"])
@pytest.mark.parametrize("warm", [False, True])
def test_a_statement_typed_in_one_call_is_typed_as_operand_by_operand(
    warm: bool, text: str
) -> None:
    # resolve_operands answers memo hits in its own loop and leaves the rest to resolve: every
    # answer must be resolve's, from a fresh resolver and from one that has typed it all before
    # (in an ASCII file, names and values are found without walking the operand lists)
    source = _BATCH_SOURCE if text == "wide" else _BATCH_SOURCE.replace("\u00e9", "e")
    assert source.isascii() == (text == "ascii")
    parsed, calls = _typing_calls(source)
    assert all(isinstance(statement, list) for _, _, statement in calls)
    one_by_one = TypeResolver(parsed.text, parsed.tree, parsed.data)
    expected = [shape(one_by_one.resolve(*call)) for call in calls]
    batched = TypeResolver(parsed.text, parsed.tree, parsed.data)
    if warm:
        for statement, operands in _by_statement(calls):
            batched.resolve_operands(operands, statement)
    got = [
        shape(answer)
        for statement, operands in _by_statement(calls)
        for answer in batched.resolve_operands(operands, statement)
    ]
    assert got == expected
    assert sum(answer is not None for answer in expected) > len(expected) // 2
    alone = [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
    assert got == alone


_NAMES_SOURCE = """
struct S { int m; __device__ void g(unsigned long long q) {
  asm("" :: "l"(this), "l"(q), "r"(m)); } };
enum { E = 1 };
__device__ void n(float x, int y, bool final) {
  asm("" :: "f"(x), "r"(y), "r"(true), "r"(false), "l"(NULL), "l"(nullptr), "r"(E), "r"(final));
  { short y = 0; asm("" :: "h"(y), "f"(x), "r"(missing)); }
  asm("" :: "r"(y), "f"(x), "r"(y,));
  for (long y = 0; y < 2; ++y) { asm("" :: "l"(y), "f"(x)); double x = 1; asm("" :: "d"(x)); }
#define M(v) asm("" :: "r"(v))
  M(y);
}
#define W 1
__device__ void p(int W, short threadIdx, double d, short s) {
  asm("" :: "r"(W), "r"(threadIdx), "d"(d));
  auto f = [&](long d) { asm("" :: "l"(d), "h"(s)); };
  if (int s = 1) { asm("" :: "r"(s), "d"(d)); }
}
"""


@pytest.mark.parametrize("text", ["ascii", "wide"])
def test_names_typed_without_the_operand_walk_are_typed_as_one_by_one(text: str) -> None:
    # In an ASCII file, an operand spelled as a name in a statement read without a parse
    # error is typed from the statement's chain of scopes with no walk of its operand
    # values; literals that look like names (true, NULL, this), a contextual keyword, a
    # statement with an error and a non-ASCII file take the walk. The answers are resolve's.
    source = _NAMES_SOURCE if text == "ascii" else "// \u00e9\n" + _NAMES_SOURCE
    parsed, calls = _typing_calls(source)
    one_by_one = TypeResolver(parsed.text, parsed.tree, parsed.data)
    expected = [shape(one_by_one.resolve(*call)) for call in calls]
    batched = TypeResolver(parsed.text, parsed.tree, parsed.data)
    walked: list[int] = []
    original = batched._operand_values

    def counting(statement):
        walked.append(statement[0].text.decode())
        return original(statement)

    batched._operand_values = counting  # type: ignore[method-assign]
    got = [
        shape(answer)
        for statement, operands in _by_statement(calls)
        if isinstance(statement, list)
        for answer in batched.resolve_operands(operands, statement)
    ]
    assert got == [e for e, c in zip(expected, calls, strict=True) if isinstance(c[2], list)]
    assert ("float", "floating", 4) in got and ("short", "integer", 2) in got
    assert ("bool", "bool", 1) in got  # `true` is a literal, typed through the walk
    assert ("long", "integer", 8) in got  # the lambda's parameter, not the function's
    statements = len(_by_statement([c for c in calls if isinstance(c[2], list)]))
    if text == "ascii":
        # the statement with a parse error is walked; no statement whose operands are all
        # names is (another value is found from its byte, or left to resolve, which walks)
        assert any('"r"(y,)' in asm for asm in walked)
        assert not any('"h"(y)' in asm or '"d"(x)' in asm or '"r"(W)' in asm for asm in walked)
        assert len(walked) < statements
    else:
        assert len(walked) == statements


def test_a_part_of_an_operand_value_is_not_typed_as_the_value() -> None:
    # a look-up asked about a span that is not a whole operand value (here the left side of
    # the value) gets resolve's answer for that span, not the value's type
    source = kernel('asm("" :: "r"(a[0] + 1), "r"(a[1]));', params="unsigned short* a")
    parsed, calls = _typing_calls(source)
    (_, whole, statement), (_, other, _) = calls
    part = [("a[0]", whole), ("a[1]", other)]
    batched = TypeResolver(parsed.text, parsed.tree, parsed.data)
    answers = [shape(t) for t in batched.resolve_operands(part, statement)]
    alone = TypeResolver(parsed.text, parsed.tree, parsed.data)
    assert answers == [shape(alone.resolve(e, o, statement)) for e, o in part]
    assert answers == [("unsigned short", "integer", 2)] * 2
    assert shape(alone.resolve("a[0] + 1", whole, statement)) == ("int", "integer", 4)


def test_extraction_types_a_statement_in_one_call(monkeypatch) -> None:
    # extract hands a TypeResolver each statement of the file's tree once; a plain look-up
    # function (no resolve_operands) is still called per operand, with the same answers
    import ptxlint.frontends.cxx.extract as extract_module
    from ptxlint.engine import extract_statements, parse_template
    from ptxlint.model import SourceFile

    batches: list[int] = []
    original = TypeResolver.resolve_operands

    def counting(self, operands, statement):
        batches.append(len(operands))
        return original(self, operands, statement)

    monkeypatch.setattr(TypeResolver, "resolve_operands", counting)
    source = SourceFile("k.cu", _BATCH_SOURCE)
    typed = [
        [shape(o.ctype) for o in s.operands] for s in extract_statements(source).statements
    ]
    assert batches and len(batches) == len(typed)

    def per_operand(parsed):
        resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
        return lambda *args: resolver.resolve(*args)

    again = extract_module.extract(source, parse_template, per_operand)
    assert [[shape(o.ctype) for o in s.operands] for s in again.statements] == typed


def test_byte_offsets_of_non_ascii_text_match_the_encoding() -> None:
    # _byte_offset bisects over the non-ASCII characters: each character offset must map to
    # the length of the text before it, encoded as the resolver's bytes are
    text = "é中\n😀 int x; // ü\udc80 " * 700 + "ok"
    data = text.encode("utf-8", "surrogateescape")
    resolver = TypeResolver(text, _PARSER.parse(data), data)
    for offset in [*range(0, 40), *range(4090, 4110), len(text) - 1, len(text)]:
        expected = len(text[:offset].encode("utf-8", "surrogateescape"))
        assert resolver._byte_offset(offset) == expected
    assert resolver._byte_offset(-5) == 0 and resolver._byte_offset(len(text) + 9) == len(data)
    # a lone surrogate surrogateescape cannot encode: measured as before, never a crash
    odd = "é\ud800x" * 3000
    odd_data = odd.encode("utf-8", "surrogatepass")
    chunked = TypeResolver(odd, _PARSER.parse(odd_data), odd_data)
    assert chunked._byte_offset(5000) == len(odd[:5000].encode("utf-8", "surrogatepass"))


def test_extraction_shares_its_parent_steps_with_the_resolver(monkeypatch) -> None:
    # extract's climbs to each function and the resolver's climbs to each statement's scopes
    # and template parameters read one node id -> parent map; the answers are those of a
    # resolver that climbs on its own (test_extraction_types_a_statement_in_one_call)
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    shared: list[dict[int, object]] = []
    original = TypeResolver.share_parents

    def recording(self, parents):
        shared.append(parents)
        return original(self, parents)

    monkeypatch.setattr(TypeResolver, "share_parents", recording)
    result = extract_statements(SourceFile("k.cu", _BATCH_SOURCE))
    assert len(shared) == 1 and shared[0]
    parsed = result.parsed
    assert parsed is not None
    own = TypeResolver(parsed.text, parsed.tree, parsed.data)
    for node_id, parent in list(shared[0].items())[:200]:
        assert isinstance(node_id, int) and parent is not None
    typed = [(o.expression, shape(o.ctype)) for s in result.statements for o in s.operands]
    alone = [
        (o.expression, shape(own.resolve(o.expression, o.expression_span.start)))
        for s in result.statements
        for o in s.operands
    ]
    assert typed == alone


_NAMED_SUBSCRIPTS = """
#define M ptr
#define MP MP
struct Base;
struct P { unsigned a; __device__ void f() { asm("" :: "r"(this[0]), "r"(a)); } };
struct S : Base { __device__ void f(int i); unsigned v[4]; };
__device__ unsigned g(int);
__device__ unsigned table[8][2];
__device__ void S::f(int i) {
  asm("" :: "r"(v[0]), "r"(v[i]), "r"(table[i][1]), "r"(table[0]));
}
__device__ void k(const unsigned* ptr, unsigned (*rows)[4], int i, const unsigned* MP) {
  asm("" :: "r"(M[0]), "r"(threadIdx[0]), "r"(g[0]), "r"(ptr[i]), "r"(rows[i][2]), "r"(MP[0]));
  asm("" :: "r"(rows[0][1][2]), "r"(table[i][i]), "r"(nothing[0]), "r"(ptr[ i ]));
  { const char* ptr = 0; asm("" :: "r"(ptr[0]), "r"(rows[1][0])); }
}
template <class T> __device__ void t(T* p, T q[2][2]) { asm("" :: "r"(p[0]), "r"(q[1][1])); }
"""


@pytest.mark.parametrize("source", [_SUBSCRIPT_SCOPES, _NAMED_SUBSCRIPTS, _BATCH_SOURCE])
def test_a_name_with_subscripts_is_typed_as_the_expression_walk_types_it(
    monkeypatch, source: str
) -> None:
    # _subscripted_name types name[i]...[k] from the name's look-up; with it switched off
    # (_Expr walks the value) every answer must be the same
    parsed, calls = _typing_calls(source)
    fast = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [shape(fast.resolve(*call)) for call in calls]
    monkeypatch.setattr(TypeResolver, "_subscripted_name", lambda *args: None)
    walked = TypeResolver(parsed.text, parsed.tree, parsed.data)
    assert got == [shape(walked.resolve(*call)) for call in calls]
    assert any(g is not None for g in got) and any(g is None for g in got)


# a block of every declarator shape _add_declaration reads inline or hands to _declarator_name
_DECLARATOR_SHAPES = """
typedef unsigned word_t;
__device__ void k(int n) {
  int a; int b = 1, *c = 0, d[4], e[2] = {1, 2};
  unsigned (f), &g = a, *const h = 0, (*i)[4] = 0;
  word_t j = 0, k2;
  const char* const l = "x"; int m(3); int o{4}; int p(int); struct S q;
  auto r = 1u; static __shared__ float s[32]; volatile int t = 0;
#if N
  int u;
#else
  long u;
#endif
  for (int v = 0; v < n; ++v) { asm("" :: "r"(v)); }
  if (int w = n) { asm("" :: "r"(w)); }
  asm("" :: "r"(a), "r"(b), "r"(c), "r"(d), "r"(e), "r"(f), "r"(g), "r"(h), "r"(i), "r"(j),
      "r"(k2), "r"(l), "r"(m), "r"(o), "r"(p), "r"(q), "r"(r), "r"(s), "r"(t), "r"(u));
}
"""


def test_block_tables_read_inline_are_those_of_the_declarator_walk() -> None:
    # _add_declaration reads `T x` and `T x = v` inline; every table it builds must be the one
    # _add_declarator (the general walk) builds, entry for entry
    data = _DECLARATOR_SHAPES.encode()
    tree = _PARSER.parse(data)
    r = TypeResolver(_DECLARATOR_SHAPES, tree, data)
    declarations = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            declarations.append(node)
        stack.extend(node.children)
    assert len(declarations) >= 12
    for declaration in declarations:
        inline: dict = {}
        r._add_declaration(declaration, inline)
        walked: dict = {}
        for declarator in declaration.children_by_field_name("declarator"):
            r._add_declarator(declaration, declarator, walked)
        assert inline == walked
        assert [e.declarator.id for v in inline.values() for e in v] == [
            e.declarator.id for v in walked.values() for e in v
        ]
    # v, w, then a to u: m(3) and o{4} are ints, p(int) a function, q unknown, r deduced
    # from 1u, u two types
    assert _operand_types(_DECLARATOR_SHAPES) == [
        "int", "int", "int", "int", "int *", "int[4]", "int[2]", "unsigned int", "unsigned int",
        "unsigned int *", "unsigned int[4] *", "unsigned int", "unsigned int", "char *", "int",
        "int", None, None, "unsigned int", "float[32]", "int", None,
    ]


# every kind of name the index finds, used before and after the first look-up that needs it
_INDEXED_NAMES = """
#define M 4
typedef unsigned u32_t;
using f32_t = float;
enum Color : unsigned short { RED, GREEN };
enum class Mode : char { A, B };
struct Rec { unsigned a; };
union Both { int i; float f; };
struct Out { __device__ void f(); unsigned m; };
__device__ void Out::f() { asm("" :: "r"(m)); }
__device__ void plain(unsigned x, int y) { asm("" :: "r"(x), "r"(y), "r"(M), "r"(x + y)); }
__device__ void k(u32_t p, Rec r, Both b, Color c, f32_t f, Out* o) {
  asm("" :: "r"(p), "r"(r.a), "r"(b.i), "r"(c), "r"(f), "r"(GREEN), "r"(Mode::B), "r"(o->m),
      "r"((u32_t)f), "r"(sizeof(Rec)), "r"(RED + 1), "r"(M));
}
"""


@pytest.mark.parametrize("source", [_INDEXED_NAMES, _DECLARATOR_SHAPES, _BATCH_SOURCE])
def test_the_type_index_read_on_demand_gives_the_answers_of_one_read_first(source: str) -> None:
    # _type_names and _enum_names read on the first look-up that needs a type name,
    # enumerator or class; a resolver that reads the whole index before any operand must give the same answers
    parsed, calls = _typing_calls(source)
    lazy = TypeResolver(parsed.text, parsed.tree, parsed.data)
    eager = TypeResolver(parsed.text, parsed.tree, parsed.data)
    eager._ensure_index()
    eager._type_names()
    eager._enum_names()
    got = [shape(lazy.resolve(*call)) for call in calls]
    assert got == [shape(eager.resolve(*call)) for call in calls]
    if source is _INDEXED_NAMES:
        assert lazy._types_indexed and lazy._enums_indexed
        assert ("unsigned int", "integer", 4) in got and ("float", "floating", 4) in got
        assert sum(g == ("Color", "enum", 2) for g in got) == 2  # c and GREEN


def test_a_file_of_built_in_types_never_reads_the_type_index() -> None:
    source = """
#define N 2
typedef unsigned u32_t;
__device__ void k(unsigned a, int i) { float f = 1; asm("" :: "r"(a), "r"(i + N), "f"(f)); }
"""
    parsed, calls = _typing_calls(source)
    r = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [shape(r.resolve(*call)) for call in calls]
    assert got == [("unsigned int", "integer", 4), None, ("float", "floating", 4)]
    assert r._macros == {"N"} and not r._types_indexed and not r._enums_indexed


def test_a_name_no_scope_declares_reads_only_the_enums() -> None:
    source = """
typedef unsigned u32_t;
enum E { ONE = 1 };
__device__ void k(unsigned a) { asm("" :: "r"(a), "r"(ONE), "r"(elsewhere)); }
"""
    parsed, calls = _typing_calls(source)
    r = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [shape(r.resolve(*call)) for call in calls]
    assert got == [("unsigned int", "integer", 4), ("E", "enum", 4), None]
    assert r._enums_indexed and not r._types_indexed


def test_a_comment_beside_an_operand_value_is_typed_as_the_value_from_the_file_s_tree() -> None:
    """Generated headers write ``"r"(/*as_b32*/ *reinterpret_cast<const int32_t*>(&v[0]))``:
    C++ reads the value alone, and so does the resolver, from the file's tree (not parsing the
    text on its own), with the answer the value written alone gets."""
    from ptxlint.engine import parse_template
    from ptxlint.frontends.cxx.extract import extract
    from ptxlint.model import SourceFile

    source = (
        "__device__ void f(const float* v, unsigned long long x, short h) {\n"
        '  asm("st.b32 [%0], %1;" :: "l"(x), "r"(/*as_b32*/ *reinterpret_cast<const int*>(&v[0])),'
        ' "r"(x /* lo */), "h"( // half\n h), "r"(/* a */ v[1] /* b */));\n'
        '  asm("st.b32 [%0], %1;" :: "l"(x), "r"(*reinterpret_cast<const int*>(&v[0])),'
        ' "r"(x), "h"(h), "r"(v[1]));\n'
        "}\n"
    )
    made: list[TypeResolver] = []

    def lookup(parsed):  # type: ignore[no-untyped-def]
        made.append(TypeResolver(parsed.text, parsed.tree, parsed.data))
        return made[-1]

    commented, plain = extract(SourceFile("k.cu", source), parse_template, lookup).statements
    answers = [shape(o.ctype) for o in commented.operands]
    assert answers == [shape(o.ctype) for o in plain.operands]
    assert answers[1:] == [
        ("int", "integer", 4), ("unsigned long long", "integer", 8), ("short", "integer", 2),
        ("float", "floating", 4),
    ]
    assert made[0]._alone == {}  # every value was found in the file's tree


_SPLIT_LISTS_SOURCE = """typedef unsigned short T;
__device__ void f(T a, int b, T& c, long d) { asm("" :: "h"(a), "r"(b), "h"(c), "l"(d)); }
__device__ void f2(long a) { asm("" :: "l"(a)); }
__device__ void g(long d, T& c,
                  int b, T a) { asm("" :: "h"(a), "r"(b), "h"(c), "l"(d)); }
__device__ void h(T a, int b, long a) { asm("" :: "h"(a), "r"(b)); }
template <class T> __device__ void t(long d, T a, int b) { asm("" :: "h"(a), "r"(b), "l"(d)); }
__device__ void m(int b, T a /* c */, short c) { asm("" :: "h"(a), "r"(b), "h"(c)); }
__device__ void n(int b, T a, void (*p)(int, long)) { asm("" :: "h"(a), "r"(b), "l"(p)); }
"""


def test_a_parameter_list_is_read_from_its_text_with_a_node_only_for_a_new_declaration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # g and h spell lists of new texts whose every parameter was read before under the same
    # template parameters: their entries are found from the text split at its commas, in
    # order (h's first `a` wins), and no node of theirs is looked at; t's parameters are
    # other declarations under its own T, and m's comment and n's parentheses keep the walk
    # over the list's nodes. Each types as the list read node by node does.
    from ptxlint.frontends.cxx import declaration_index

    looked: list[str] = []  # the kind of each parameter node looked at

    class Looking(frozenset):  # type: ignore[type-arg]
        def __contains__(self, kind: object) -> bool:
            looked.append(str(kind))
            return super().__contains__(kind)

    parsed, calls = _typing_calls(_SPLIT_LISTS_SOURCE)
    monkeypatch.setattr(
        declaration_index, "VALUE_PARAMETERS", Looking(declaration_index.VALUE_PARAMETERS)
    )
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = []
    nodes_looked_at = []
    for statement, operands in _by_statement(calls):
        before = len(looked)
        got.append([shape(t) for t in resolver.resolve_operands(operands, statement)])
        nodes_looked_at.append(len(looked) - before)
    short, int_, long = ("unsigned short", "integer", 2), ("int", "integer", 4), ("long", "integer", 8)
    assert got[2] == got[0] == [short, int_, short, long]
    assert got[3] == [short, int_]
    assert got[4] == [None, int_, long]
    assert got[5][0] == short and got[6][:2] == [short, int_]
    # f, f2 and t: a node for each new declaration; g, h: none; m, n: every node of the
    # list (m's comment is one), and the new declaration's once more as it is read
    assert nodes_looked_at == [4, 1, 0, 0, 3, 5, 4]
    monkeypatch.undo()
    alone = [
        [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
        for calls in [[c for c in calls if c[2] is st] for st, _ in _by_statement(calls)]
    ]
    assert got == alone


def test_a_parameter_list_is_split_only_where_its_commas_are_its_parameters_own() -> None:
    from ptxlint.frontends.cxx.declaration_index import split_parameters

    assert split_parameters(b"(int a,\n  T& b , long c = 1,int* d)") == [
        b"int a", b"T& b", b"long c = 1", b"int* d",
    ]
    for text in [
        b"int a", b"(int a, ...)", b"(int a /* x */, T& b)", b"(int a, // x\n T& b)",
        b"(int a,\n#if X\n T& b\n#endif\n)", b"(int a, A<T, U> b)", b"(int a, int d[2])",
        b"(int a, void (*f)(int, long))", b'(int a, char c = \',\')', b"(int a, \\\n T& b)",
        "(int a, T& \u00e9)".encode(),
    ]:
        assert split_parameters(text) is None, text


_TEMPLATE_TEXTS_SOURCE = """typedef unsigned short T;
template <class T, int N> struct A { __device__ void f(T x, int y) { asm("" :: "r"(x), "r"(y), "n"(N)); } };
template <class T, int N> struct B { __device__ void f(T x, int y) { asm("" :: "r"(x), "r"(y), "n"(N)); } };
template <class U, int N> struct C { __device__ void f(T x, int y) { asm("" :: "h"(x), "r"(y), "n"(N)); } };
template <template <class> class T, int N> struct D { __device__ void f(T x) { asm("" :: "r"(x), "n"(N)); } };
"""


def test_template_parameter_lists_of_one_text_name_the_same_types_and_keep_their_values() -> None:
    # the type parameter names of a template are read once per text of its list: A's and
    # B's T hide the typedef, C's U does not, D's template template parameter T does; the
    # value parameter N is each template's own
    parsed, calls = _typing_calls(_TEMPLATE_TEXTS_SOURCE)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        [shape(t) for t in resolver.resolve_operands(operands, statement)]
        for statement, operands in _by_statement(calls)
    ]
    short, int_ = ("unsigned short", "integer", 2), ("int", "integer", 4)
    assert [answers[0] for answers in got] == [None, None, short, None]
    assert [answers[-1] for answers in got] == [int_] * 4
    assert len(resolver._template_texts) == 3
    alone = [
        [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
        for calls in [[c for c in calls if c[2] is st] for st, _ in _by_statement(calls)]
    ]
    assert got == alone


def test_a_block_s_names_leave_the_parameters_of_other_functions_of_its_list_alone() -> None:
    # the functions of one parameter list share what hides a parameter file-wide (a macro of
    # its name) but not what one function's block declares
    source = """#define q 1
__device__ void f(int p, short q) { asm("" :: "r"(p), "h"(q)); }
__device__ void g(int p, short q) { { long p = 0; asm("" :: "l"(p), "h"(q)); } }
__device__ void h(int p, short q) { asm("" :: "r"(p), "h"(q)); }
"""
    parsed, calls = _typing_calls(source)
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    got = [
        [shape(t) for t in resolver.resolve_operands(operands, statement)]
        for statement, operands in _by_statement(calls)
    ]
    int_, long = ("int", "integer", 4), ("long", "integer", 8)
    assert got == [[int_, None], [long, None], [int_, None]]
    alone = [
        [shape(TypeResolver(parsed.text, parsed.tree, parsed.data).resolve(*c)) for c in calls]
        for calls in [[c for c in calls if c[2] is st] for st, _ in _by_statement(calls)]
    ]
    assert got == alone


def test_the_members_of_a_blocks_anonymous_union_are_its_names() -> None:
    # [class.union.anon]: the members are names of the block (llm-awq's and msccl's
    # `union { half fp16; int16_t int16_in; };` around a conversion)
    source = (
        "__device__ void f(float v) {\n"
        "  union { unsigned short u2; float f4; };\n"
        '  asm("" :: "h"(u2), "f"(f4));\n'
        "}\n"
        # a named union declares a type, and an unnamed one with a declarator an object:
        # their members are no names of the block
        "__device__ void g(float v) {\n"
        "  union U { unsigned short u2; } a;\n"
        "  union { float f4; } b;\n"
        '  asm("" :: "h"(u2), "f"(f4), "f"(b.f4));\n'
        "}\n"
        # a member is a name from its union on, not before
        "__device__ void h(float v) {\n"
        '  asm("" :: "h"(u2));\n'
        "  union { unsigned short u2; };\n"
        "}\n"
    )
    assert _operand_types(source) == ["unsigned short", "float", None, None, "float", None]
