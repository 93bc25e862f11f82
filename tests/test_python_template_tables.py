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
