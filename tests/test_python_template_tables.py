"""A template looked up in a dict literal by a key the program computes
(``asm_by_op[op]``: quack's microbenchmarks pick a PTX variant by a string parameter) is read
once per entry of the table, each reading naming its key, as a template bound on the branches
of an ``if`` is; a literal key picks its one entry. A table that is not one dict literal bound
once (a parameter, a rebinding, a ``**`` spread), or a lookup of something else, stays a hole."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import HOLE, SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

_HEADER = "import triton\nimport triton.language as tl\n\n"
_TABLE = (
    "    asm_by_op = {\n"
    "        'sum': 'redux.sync.add.s32 $0, $1, 0xffffffff;',\n"
    "        'max': 'redux.sync.max.s32 $0, $1, 0xffffffff;',\n"
    "    }\n"
)


def _read(body: str) -> list[tuple[str, tuple[str, ...]]]:
    found = extract_python(SourceFile("k.py", _HEADER + body), parse_template)
    return [(s.template.text, s.context.branch) for s in found.statements]


def test_a_computed_key_reads_every_entry_of_the_table() -> None:
    body = (
        "def redux(x, op):\n" + _TABLE
        + "    return tl.inline_asm_elementwise(asm_by_op[op], '=r,r', [x], tl.int32,\n"
        "                                     False, 1)\n"
    )
    assert _read(body) == [
        ("redux.sync.add.s32 $0, $1, 0xffffffff;", ("op == 'sum'",)),
        ("redux.sync.max.s32 $0, $1, 0xffffffff;", ("op == 'max'",)),
    ]


def test_each_entry_is_linted() -> None:
    body = (
        "def redux(x, op):\n" + _TABLE
        + "    return tl.inline_asm_elementwise(asm_by_op[op], '=r,r', [x], tl.int32,\n"
        "                                     True, 1)\n"
    )
    # a warp collective declared pure: every entry says so, and the one fix (the flag) mends
    # them all: one finding, naming no entry (an entry not linted would leave its key named)
    findings = [f for f in lint_text(_HEADER + body, path="k.py") if f.rule == "PTX505"]
    assert [f.branch for f in findings] == [()]


def test_a_literal_key_picks_its_entry() -> None:
    body = (
        "def redux(x):\n" + _TABLE
        + "    return tl.inline_asm_elementwise(asm_by_op['max'], '=r,r', [x], tl.int32,\n"
        "                                     False, 1)\n"
    )
    assert _read(body) == [("redux.sync.max.s32 $0, $1, 0xffffffff;", ())]


def test_a_table_not_bound_once_to_a_dict_literal_stays_a_hole() -> None:
    body = (
        "def from_parameter(x, op, table):\n"
        "    return tl.inline_asm_elementwise(table[op], '=r,r', [x], tl.int32, False, 1)\n"
        "def spread(x, op, more):\n"
        "    table = {'a': 'mov.b32 $0, $1;', **more}\n"
        "    return tl.inline_asm_elementwise(table[op], '=r,r', [x], tl.int32, False, 1)\n"
        "def rebound(x, op, c):\n"
        "    table = {'a': 'mov.b32 $0, $1;'}\n"
        "    if c:\n"
        "        table = {'a': 'neg.s32 $0, $1;'}\n"
        "    return tl.inline_asm_elementwise(table[op], '=r,r', [x], tl.int32, False, 1)\n"
    )
    read = _read(body)
    assert len(read) == 3 and all(HOLE in text for text, _ in read), read


_TYPED = (
    "from cutlass import Float32, Int32\n"
    "def store(x, v):\n"
    "    dtype = Float32 if isinstance(v, Float32) else Int32\n"
    "    suffix = {Float32: 'f32', Int32: 's32'}[dtype]\n"
    "    cons = {Float32: 'f', Int32: 'r'}[dtype]\n"
    "    tl.inline_asm_elementwise(f'mov.{suffix} $0, $1;', '=r,' + cons, [x], dtype=tl.int32,"
    " is_pure=True, pack=1)\n"
)


def test_a_key_naming_an_object_picks_the_entry_spelt_with_that_name() -> None:
    # `dtype` is the object `Float32` names on one side and `Int32` on the other: Python's
    # lookup finds the entries spelt with those names, in the template and the constraints
    found = extract_python(SourceFile("k.py", _HEADER + _TYPED), parse_template).statements
    assert [(s.template.text, s.llvm.constraints.text if s.llvm and s.llvm.constraints
             else None) for s in found] == [("mov.f32 $0, $1;", "=r,f"),
                                            ("mov.s32 $0, $1;", "=r,r")]
    assert [s.context.branch for s in found] == [
        ("if isinstance(v, Float32)",), ("if not (isinstance(v, Float32))",)]


def test_a_name_not_surely_the_modules_object_picks_no_entry() -> None:
    # the function takes `Float32` as a parameter, the module binds it twice, or assigns it
    # (an alias of another name): the key's object and the entry's may differ
    for changed in (
        _TYPED.replace("def store(x, v):", "def store(x, v, Float32):"),
        _TYPED + "Float32 = Int32\n",
        _TYPED.replace("from cutlass import Float32, Int32", "from cutlass import Int32\nFloat32 = Int32"),
    ):
        for s in extract_python(SourceFile("k.py", _HEADER + changed), parse_template).statements:
            assert HOLE in s.template.text
