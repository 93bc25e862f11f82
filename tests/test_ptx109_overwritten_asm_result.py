"""PTX109: an asm statement that writes again every output of the asm statement before it in the
block, which only computes them, before anything reads them."""

from __future__ import annotations

from tests.conftest import lint_text

ADD = 'asm("add.u32 %0, %1, %2;" : "=r"(X) : "r"(a), "r"(b));'


def _found(body: str, params: str = "unsigned a, unsigned b, unsigned* o") -> list[str]:
    text = f"__device__ unsigned f({params}) {{\n  unsigned x, y;\n{body}\n  return x + y;\n}}\n"
    return [f.message for f in lint_text(text, select=("PTX109",))]


def test_the_message_names_the_places_and_the_later_line() -> None:
    found = _found("  " + ADD.replace("X", "x") + "\n  " + ADD.replace("X", "x"))
    assert len(found) == 1
    assert "every result of the asm statement at line 3 (x)" in found[0]
    assert "the compiler deletes it" in found[0]


def test_asm_statements_between_that_name_other_variables_are_passed_over() -> None:
    body = "\n".join("  " + s for s in (
        ADD.replace("X", "x"), ADD.replace("X", "y"), "// a note", ADD.replace("X", "x")))
    assert len(_found(body)) == 1
    # one between that reads x: the result is used
    body = "\n".join("  " + s for s in (
        ADD.replace("X", "x"), 'asm("mov.u32 %0, %1;" : "=r"(y) : "r"(x));',
        ADD.replace("X", "x")))
    assert _found(body) == []


def test_cxx_between_the_two_stops_the_search() -> None:
    body = "  " + ADD.replace("X", "x") + "\n  o[0] = 1;\n  " + ADD.replace("X", "x")
    assert _found(body) == []


def test_every_output_must_be_written_again() -> None:
    two = 'asm("mov.b64 {%0, %1}, %2;" : "=r"(x), "=r"(y) : "l"(0ull));'
    assert len(_found("  " + two + "\n  " + two)) == 1
    assert _found("  " + two + "\n  " + ADD.replace("X", "x")) == []


def test_a_conditional_write_is_ptx103s_not_this_rules() -> None:
    later = ('asm("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p mov.u32 %0, %2; }"'
             ' : "=r"(x) : "r"(a), "r"(b));')
    text = ("__device__ unsigned f(unsigned a, unsigned b) {\n  unsigned x;\n  "
            + ADD.replace("X", "x") + "\n  " + later + "\n  return x;\n}\n")
    rules = [f.rule for f in lint_text(text, select=("PTX103", "PTX109"))]
    assert rules == ["PTX103"]


def test_effects_and_macros_are_left_alone() -> None:
    load = 'asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(o));'
    assert _found("  " + load + "\n  " + load) == []
    clock = 'asm volatile("mov.u32 %0, %%clock;" : "=r"(x));'
    assert _found("  " + clock + "\n  " + clock) == []
    macro = "#define ADDX " + ADD.replace("X", "x") + "\n"
    text = (macro + "__device__ unsigned f(unsigned a, unsigned b) {\n  unsigned x;\n  ADDX\n  "
            "ADDX\n  return x;\n}\n")
    assert [f for f in lint_text(text, select=("PTX109",))] == []


def test_members_and_constant_elements_are_places() -> None:
    params = "unsigned a, unsigned b, uint2& v, unsigned* c"
    assert len(_found("  " + ADD.replace("X", "v.x") + "\n  " + ADD.replace("X", "v . x"),
                      params)) == 1
    assert _found("  " + ADD.replace("X", "v.x") + "\n  " + ADD.replace("X", "v.y"),
                  params) == []
    # the later one reads c[1] (another element) and writes c[0] again: still lost
    later = 'asm("add.u32 %0, %1, %2;" : "=r"(c[0]) : "r"(c[1]), "r"(b));'
    assert len(_found("  " + ADD.replace("X", "c[0]") + "\n  " + later, params)) == 1
    # ... but a whole-array or variable-index read may be the result
    later = 'asm("add.u32 %0, %1, %2;" : "=r"(c[0]) : "r"(c[a]), "r"(b));'
    assert _found("  " + ADD.replace("X", "c[0]") + "\n  " + later, params) == []
