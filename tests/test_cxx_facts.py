"""The per-function C++ facts behind PTX010 and PTX103: scopes, initialisation, writes,
constant expressions; one pass per function, memoised."""

from __future__ import annotations

import pytest

from ptxlint.analysis.cxx_facts import FileFacts, FunctionFacts
from ptxlint.analysis.operand_names import lvalue_base
from ptxlint.frontends.syntax_tree import parse

SOURCE = """\
template <int N, typename T>
__device__ void f(int x, const unsigned &y, T t, int *p, unsigned z) {
  int fresh;
  int init = 3;
  int later;
  later = 4;
  int passed;
  g(passed);
  int addressed;
  h(&addressed);
  const int c = x;
  const int k = 8;
  constexpr int d = N + 1;
  static int s;
  int looped;
  for (int i = 0; i < 4; ++i) {
    int inner;
    /*HERE*/ looped += i;
  }
  { int fresh = 1; }
}
"""


def _facts() -> tuple[FunctionFacts, int]:
    files = FileFacts(parse("t.cu", SOURCE))
    here = SOURCE.index("/*HERE*/")
    facts = files.function_at(here)
    assert facts is not None
    assert files.function_at(here) is facts  # memoised
    return facts, here


@pytest.mark.parametrize(("expression", "base"), [
    ("x", ("x", "")),
    ("(acc)[i].x", ("acc", "[")),
    ("p->v", ("p", "->")),
    ("frag.reg(0)", ("frag", ".")),  # a method's reference into frag
    ("(*p).x", ("", "*")),
    ("/*as_b32*/ *reinterpret_cast<int*>(&x)", ("", "*")),  # a comment before the `*`
    ("x /* out */", ("x", "")),
    ("x + 1", None),
    ("prob_stride[1] >> 4", None),  # no lvalue, though it begins as one
    ("true", None),
])
def test_the_variable_of_an_output_lvalue_is_read_on_its_tree(
        expression: str, base: tuple[str, str] | None) -> None:
    assert lvalue_base(expression) == base


def test_prior_value_is_false_only_for_untouched_uninitialised_locals() -> None:
    facts, here = _facts()
    assert facts.prior_value("fresh", here) is False  # the inner `fresh = 1` is out of scope
    assert facts.prior_value("inner", here) is False
    assert facts.prior_value("init", here) is True
    assert facts.prior_value("later", here) is True
    assert facts.prior_value("passed", here) is True  # a call may take it by reference
    assert facts.prior_value("addressed", here) is True
    assert facts.prior_value("x", here) is True
    assert facts.prior_value("y", here) is True
    assert facts.prior_value("*p", here) is True
    assert facts.prior_value("s", here) is True  # static storage is zero-initialised
    assert facts.prior_value("looped", here) is True  # written in the loop around
    assert facts.prior_value("unknown_global", here) is None
    assert facts.prior_value("a + b", here) is None


def test_non_constant_names_parameters_and_plain_locals() -> None:
    facts, here = _facts()
    assert facts.non_constant("x", here) == ("x", "a function parameter")
    assert facts.non_constant("y * 2", here) == ("y", "a function parameter")
    assert facts.non_constant("init", here) == ("init", "a local variable that is not constexpr")
    assert facts.non_constant("c", here) is not None  # const, initialised from a parameter
    assert facts.non_constant("k", here) is None
    assert facts.non_constant("d", here) is None
    assert facts.non_constant("N", here) is None
    assert facts.non_constant("t", here) is None  # a class type may be a constant
    assert facts.non_constant("sizeof(x)", here) is None
    assert facts.non_constant("decltype(x)(4)", here) is None
    assert facts.non_constant("Cfg::x", here) is None


def test_a_define_body_has_no_function_facts() -> None:
    text = "#define ASM(x) asm(\"\" :: \"n\"(x))\nvoid f(int x) { }\n"
    files = FileFacts(parse("t.cu", text))
    assert files.function_at(text.index("asm")) is None


def test_a_statements_function_facts_are_those_around_its_start() -> None:
    """``facts_for`` gives each statement the facts of the function around it, found once per
    statement however many of its operands ask."""
    from ptxlint.analysis.cxx_facts import facts_for
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile
    from ptxlint.rule import RuleContext

    text = (
        "__device__ void f(int a) { asm(\"mov.u32 %0, %1;\" : \"=r\"(a) : \"n\"(a)); }\n"
        "__device__ void g(int b) { asm(\"mov.u32 %0, %1;\" : \"=r\"(b) : \"n\"(b)); }\n"
    )
    extracted = extract_statements(SourceFile("t.cu", text))
    assert extracted.parsed is not None
    files = FileFacts(extracted.parsed)
    context = RuleContext(cxx=files)
    first, second = extracted.statements
    facts = facts_for(context, first)
    assert facts is not None and facts_for(context, first) is facts
    assert facts.non_constant("a", first.operands[1].expression_span.start) is not None
    other = facts_for(context, second)
    assert other is not None and other is not facts
    assert other is files.function_at(second.span.start)
    assert facts_for(context, first) is files.function_at(first.span.start)


def test_a_template_parameter_is_the_declaration_only_where_no_parameter_or_local_is() -> None:
    """An enclosing template's parameter is what ``resolve`` finds for a name no parameter or
    local of the function declares; a look-up with ``templates=False`` (PTX010, PTX103: they
    treat one as no declaration) finds nothing there and never reads the templates."""
    facts, here = _facts()
    assert facts.resolve("N", here, templates=False) is None
    assert facts.resolve("x", here, templates=False) is not None
    assert facts._templates_unread  # not read for either
    found = facts.resolve("N", here)
    assert found is not None and found.kind == "template" and found.name == "N"
    assert not facts._templates_unread
    assert facts.resolve("N", here, templates=False) is None  # read now, still not taken
    x = facts.resolve("x", here)
    assert x is not None and x.kind == "parameter"
    assert facts.resolve("nothing_here", here) is None


def test_a_small_function_of_a_big_file_is_walked_with_the_same_facts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A function's body is searched by a walk when the function is small, whatever the size
    of its file: the grammar-wide query (tens of ms to compile, once per process) is not
    compiled for it, and the facts are the query's."""
    from ptxlint.analysis import cxx_facts
    from ptxlint.frontends.syntax_tree import WALK_LIMIT, query

    padding = "// " + "x" * 120 + "\n"
    text = padding * (WALK_LIMIT // len(padding) + 1) + SOURCE
    here = text.index("/*HERE*/")
    names = ("fresh", "inner", "init", "later", "passed", "addressed", "looped", "x", "c", "k")

    def answers() -> list[object]:
        facts = FileFacts(parse("t.cu", text)).function_at(here)
        assert facts is not None
        return [(facts.prior_value(n, here), facts.non_constant(n, here)) for n in names]

    asked: list[str] = []

    def recording_query(language: object, source: str) -> object:
        asked.append(source)
        return query(language, source)

    monkeypatch.setattr(cxx_facts, "query", recording_query)
    walked = answers()
    assert asked == []  # no query compiled for the small function
    monkeypatch.setattr(cxx_facts, "WALK_LIMIT", 0)  # every body by the query
    assert answers() == walked
    assert asked


def test_the_facts_read_the_scope_tables_typing_reads() -> None:
    """A function's parameters and locals come from the file's type resolver, the one
    extraction types the operands with: one reading of the tree for both."""
    from ptxlint.engine import extract_statements, type_lookup
    from ptxlint.model import SourceFile

    text = "__device__ void f(int a) { int b = a; asm(\"\" :: \"r\"(a), \"r\"(b)); }\n"
    extracted = extract_statements(SourceFile("t.cu", text))
    assert extracted.parsed is not None
    files = FileFacts(extracted.parsed)
    facts = files.function_at(text.index("asm"))
    assert facts is not None
    assert facts.scopes is type_lookup(extracted.parsed)
    here = extracted.parsed.to_byte(text.index('"r"(b)'))
    local = facts.resolve("b", here)
    assert local is not None and local.kind == "local" and local.initialised


def test_a_parameter_of_a_list_written_before_is_where_its_own_function_has_it() -> None:
    """Lists of one text share one table, and parameter declarations of one text one entry:
    each function's parameter is still visible from its own place, with its own scope."""
    text = (
        "__device__ void f(int b) { }\n"
        "__device__ void g(int a, int b) { /*G*/ }\n"
        "__device__ void h(int a, int b) { /*H*/ }\n"
    )
    files = FileFacts(parse("t.cu", text))
    for mark, function in (("/*G*/", "g"), ("/*H*/", "h")):
        here = text.index(mark)
        facts = files.function_at(here)
        assert facts is not None
        found = facts.resolve("b", here)
        own = text.index("int b", text.index(f"void {function}("))
        assert found is not None and found.kind == "parameter"
        assert (found.visible_from, found.scope_end) == (own, facts.end)
        a = facts.resolve("a", here)
        assert a is not None and a.visible_from == text.index("int a", text.index(f"void {function}("))


def test_inner_declarations_are_visible_only_in_their_scope() -> None:
    """A local of a block, a case or a lambda's parameter hides a parameter of the same
    name inside its scope only; before its declaration the parameter is the answer."""
    text = (
        "__device__ void f(int v, int w) {\n"
        "  /*BEFORE*/ g(v);\n"
        "  switch (w) {\n"
        "  case 1:\n"
        "    const int v = 4; /*CASE*/ g(v);\n"
        "  }\n"
        "  auto l = [](long w) { /*LAMBDA*/ return w; };\n"
        "  { int v; /*BLOCK*/ g(v); }\n"
        "  /*AFTER*/ g(v, w);\n"
        "}\n"
    )
    files = FileFacts(parse("t.cu", text))

    def found(name: str, mark: str) -> tuple[str, int] | None:
        here = text.index(mark)
        facts = files.function_at(here)
        assert facts is not None
        decl = facts.resolve(name, here)
        return (decl.kind, decl.visible_from) if decl is not None else None

    parameter_v = ("parameter", text.index("int v"))
    assert found("v", "/*BEFORE*/") == parameter_v
    # visible from the end of its declarator (its initializer included)
    assert found("v", "/*CASE*/") == ("local", text.index("v = 4") + len("v = 4"))
    assert found("w", "/*LAMBDA*/") == ("parameter", text.index("long w"))
    assert found("v", "/*BLOCK*/") == ("local", text.index("v; /*BLOCK*/") + 1)
    assert found("v", "/*AFTER*/") == parameter_v
    assert found("w", "/*AFTER*/") == ("parameter", text.index("int w"))


@pytest.mark.parametrize("cut", [False, True])
def test_template_parameters_are_those_of_every_template_around_the_function(
    monkeypatch: pytest.MonkeyPatch, cut: bool
) -> None:
    """Read from the template declarations on the function's chain of scopes, and by a climb
    where that chain is cut short (``MAX_SCOPES``): the same names either way."""
    from ptxlint.frontends.cxx import scope_lookup

    if cut:
        monkeypatch.setattr(scope_lookup, "MAX_SCOPES", 1)
    text = (
        "template <int N, typename T, int... Ks>\n"
        "struct S {\n"
        "  template <unsigned M = 4>\n"
        "  __device__ void f(int x) { /*HERE*/ }\n"
        "};\n"
    )
    here = text.index("/*HERE*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    kinds = {name: getattr(facts.resolve(name, here), "kind", None)
             for name in ("N", "T", "Ks", "M", "x", "S")}
    assert kinds == {"N": "template", "T": None, "Ks": "template", "M": "template",
                     "x": "parameter", "S": None}


def _found(text: str, name: str, mark: str) -> tuple[str, int, bool] | None:
    """What ``resolve`` finds for ``name`` at comment ``mark``: its kind, where it becomes
    visible, whether it is initialised."""
    here = text.index(mark)
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    decl = facts.resolve(name, here)
    return (decl.kind, decl.visible_from, decl.initialised) if decl is not None else None


def test_a_local_of_a_case_is_visible_to_the_end_of_the_switch_body() -> None:
    """C++ scopes a local declared after a ``case`` label to the switch's block: a later case
    sees it (jumping past a declaration without initializer leaves it indeterminate), the code
    after the switch does not."""
    text = (
        "__device__ void f(int n, int z) {\n"
        "  switch (n) {\n"
        "  case 1:\n"
        "    int z; z = 3; break;\n"
        "  case 2:\n"
        "    /*LATER_CASE*/ g(z);\n"
        "  }\n"
        "  /*AFTER*/ g(z);\n"
        "}\n"
    )
    local = ("local", text.index("z; z = 3") + 1, False)
    assert _found(text, "z", "/*LATER_CASE*/") == local
    assert _found(text, "z", "/*AFTER*/") == ("parameter", text.index("int z"), True)
    here = text.index("/*LATER_CASE*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None and facts.prior_value("z", here) is True  # `z = 3` in case 1


def test_a_local_of_an_if_region_is_visible_after_it_but_not_in_its_other_branches() -> None:
    """A declaration inside ``#if``...``#endif`` is one of the enclosing block (the
    preprocessor does not open a scope): visible after ``#endif``, never in an ``#else``
    branch, which is another configuration."""
    text = (
        "__device__ void f(int n) {\n"
        "#if defined(A)\n"
        "  int v = n; /*IF*/\n"
        "#elif defined(B)\n"
        "  /*ELIF*/ g(v);\n"
        "#else\n"
        "  int w; /*ELSE*/\n"
        "#endif\n"
        "  /*AFTER_V*/ g(v);\n"
        "  {\n"
        "#ifdef C\n"
        "    int u;\n"
        "#else\n"
        "    int u;\n"
        "#endif\n"
        "    /*AFTER_U*/ g(u);\n"
        "  }\n"
        "}\n"
    )
    v = ("local", text.index("v = n") + len("v = n"), True)
    assert _found(text, "v", "/*IF*/") == v
    assert _found(text, "v", "/*ELIF*/") is None
    assert _found(text, "w", "/*ELSE*/") == ("local", text.index("w; /*ELSE*/") + 1, False)
    assert _found(text, "w", "/*AFTER_V*/") is None  # not in the configurations of A or B
    assert _found(text, "v", "/*AFTER_V*/") is None  # nor v in that of neither
    # declared alike in every branch of a chain with an #else: the earliest of them
    first_u = text.index("u;\n#else") + 1
    assert _found(text, "u", "/*AFTER_U*/") == ("local", first_u, False)


def test_configurations_that_declare_a_name_differently_leave_it_unknown() -> None:
    """Where the declaration in effect depends on an ``#if``, the facts claim nothing: not
    initialised in one configuration and initialised in another, nor a parameter that a
    local hides only where its region is compiled."""
    text = (
        "__device__ void f(int p) {\n"
        "#if A\n"
        "  int x = 1;\n"
        "#else\n"
        "  int x;\n"
        "#endif\n"
        "  {\n"
        "#if B\n"
        "    int p;\n"
        "#endif\n"
        "    /*HERE*/ g(x, p);\n"
        "  }\n"
        "}\n"
    )
    here = text.index("/*HERE*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    for name in ("x", "p"):
        assert facts.resolve(name, here) is None
        assert facts.prior_value(name, here) is None
        assert facts.non_constant(name, here) is None


def test_a_condition_variable_is_visible_in_its_whole_statement() -> None:
    """``if (int n = e)`` declares ``n`` for the whole ``if`` (its ``else`` too), ``while``
    and ``switch`` likewise; initialised from the condition's value."""
    text = (
        "__device__ void f(int a) {\n"
        "  if (int q = a) { /*THEN*/ } else { /*ELSE*/ }\n"
        "  while (int r = a) { /*LOOP*/ }\n"
        "  switch (int s = a) { default: /*SWITCH*/ break; }\n"
        "  /*AFTER*/ g(a);\n"
        "}\n"
    )
    for name, marks in (("q", ("/*THEN*/", "/*ELSE*/")), ("r", ("/*LOOP*/",)),
                        ("s", ("/*SWITCH*/",))):
        for mark in marks:
            assert _found(text, name, mark) == (
                "local", text.index(f"int {name} = a") + len(f"int {name}"), True)
        assert _found(text, name, "/*AFTER*/") is None
    here = text.index("/*THEN*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    assert facts.non_constant("q", here) == ("q", "a local variable that is not constexpr")


@pytest.mark.parametrize("result", ["int&", "int*", "int&&", "const int* const&", "int (&",
                                    "void (*"])
def test_a_function_has_its_own_parameters_whatever_its_result(result: str) -> None:
    """The parameters of ``T& f(int x)`` are ``x`` however the result is declared around
    ``f(int x)``: a reference, a pointer, a reference to an array (``int (&f(int x))[4]``), a
    function pointer (``void (*f(int x))(long)``, whose ``long`` list is the result's)."""
    closing = {"int (&": ")[4]", "void (*": ")(long)"}.get(result, "")
    text = f"__device__ {result} f(int x, unsigned y){closing} {{ /*HERE*/ }}\n"
    x = _found(text, "x", "/*HERE*/")
    assert x == ("parameter", text.index("int x"), True)
    here = text.index("/*HERE*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    assert facts.non_constant("y + 1", here) == ("y", "a function parameter")


def test_a_function_pointer_parameter_is_a_parameter() -> None:
    """``void (*cb)(int)`` in a parameter list declares ``cb``; its own ``(int)`` declares
    nothing of the function's."""
    text = "__device__ void f(void (*cb)(int k), int n) { /*HERE*/ }\n"
    assert _found(text, "cb", "/*HERE*/") == ("parameter", text.index("void (*cb)"), True)
    assert _found(text, "n", "/*HERE*/") == ("parameter", text.index("int n"), True)
    assert _found(text, "k", "/*HERE*/") is None


@pytest.mark.parametrize("head", [
    # a macro call in the name: `NAME(f)` is no function declarator of f's, the outer list is
    "__device__ void NAME(f)(int x, unsigned y)",
    # `#if` branches that each open the list: the parse recovers with an error node before
    # the declarator in parentheses (flashinfer's quantization kernels)
    "__global__ void\n#if defined(__CUDA_ARCH__)\n__launch_bounds__(512, 4) f(\n#else\nf(\n"
    "#endif\n    int x, unsigned y)",
])
def test_a_function_has_the_parameters_typing_reads_whatever_its_declarator(head: str) -> None:
    text = head + " {\n  int k = 0;\n  /*HERE*/\n}\n"
    assert _found(text, "x", "/*HERE*/") == ("parameter", text.index("int x"), True)
    here = text.index("/*HERE*/")
    facts = FileFacts(parse("t.cu", text)).function_at(here)
    assert facts is not None
    assert facts.non_constant("y + 1", here) == ("y", "a function parameter")
