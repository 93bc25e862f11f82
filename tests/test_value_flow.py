"""ptxlint.analysis.value_flow: how a name's occurrences are found and which of them count."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import tree_sitter

from ptxlint.analysis import name_search, value_flow
from ptxlint.analysis.name_search import token_starts as _token_starts
from ptxlint.analysis.value_flow import (
    Value,
    holds_shared_address,
    operand_value,
)
from ptxlint.engine import extract_statements
from ptxlint.frontends.syntax_tree import parse
from ptxlint.model import SourceFile
from tests.conftest import lint_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"

_KERNEL = """\
__global__ void k(float *o) {
  __shared__ float tile[64];
  float v;
  unsigned a = (unsigned)(unsigned long)&tile[0];
%s
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "r"(a));
  o[0] = v;
}
"""


def _value_of_a(text: str) -> Value | None:
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    statement = extracted.statements[-1]  # the shared load
    [operand] = [o for o in statement.operands if o.expression.strip() == "a"]
    value_flow._CACHE.clear()
    return operand_value(statement, operand, True, extracted.parsed)


def test_a_lambdas_and_a_local_classs_assignments_are_not_the_functions_own() -> None:
    assert _value_of_a(_KERNEL % "") is Value.TRUNCATED
    # Assignments inside a lambda or a local class's member function are theirs, not k's:
    # `a` still holds only what k's own declaration gives it.
    inside = (
        "  auto f = [&]() { a = 5; ++a; unsigned *q = &a; (void)q; };\n"
        "  struct L { void m() { unsigned a = 0; a = 7; } };\n"
        "  f();"
    )
    assert _value_of_a(_KERNEL % inside) is Value.TRUNCATED
    findings = [f for f in lint_text(_KERNEL % inside, select=("PTX301",)) if f.rule == "PTX301"]
    assert len(findings) == 1 and "truncated" in findings[0].message
    # k's own later assignment counts: the two values disagree, so the value is unknown.
    assert _value_of_a(_KERNEL % "  a = 5;") is None
    # So does a shadowing declaration in an inner block (the analysis does not follow scopes,
    # so it may lose an answer, never give a wrong one) ...
    assert _value_of_a(_KERNEL % "  { unsigned a = 3; (void)a; }") is None
    # ... and an asm output, and an address that escapes.
    assert _value_of_a(_KERNEL % '  asm("mov.u32 %0, 0;" : "=r"(a));') is None
    assert _value_of_a(_KERNEL % "  unsigned *q = &a; (void)q;") is None
    # `+=` keeps the kind of address.
    assert _value_of_a(_KERNEL % "  a += 16;") is Value.TRUNCATED


_GLOBAL_LOAD = """\
__device__ unsigned helper(const void *p) { %s }
__global__ void k(float *o, float *g) {
  float v;
  unsigned a = helper(g);
  asm volatile("ld.global.f32 %%0, [%%1];" : "=f"(v) : "l"((unsigned long)a));
  o[0] = v;
}
"""


@pytest.mark.parametrize(
    ("body", "shared"),
    [
        # a shared-window address made by a helper the value flow knows, or by the file's own
        # cvta.to.shared: found through the local and the call
        ("return static_cast<unsigned>(__cvta_generic_to_shared(p));", True),
        ('unsigned r; asm("cvta.to.shared.u32 %0, %1;" : "=r"(r) : "l"(p)); return r;', True),
        # nothing in the file makes one: answered without following the value
        ("return (unsigned)(unsigned long)p;", False),
        ("return 0u;", False),
    ],
)
def test_an_operand_holds_a_shared_address_only_where_its_file_makes_one(
    body: str, shared: bool
) -> None:
    source = SourceFile("test.cu", _GLOBAL_LOAD % body)
    extracted = extract_statements(source)
    statement = extracted.statements[-1]
    operand = statement.operands[-1]
    value_flow._CACHE.clear()
    expected = operand_value(statement, operand, True, extracted.parsed) is Value.SHARED
    assert holds_shared_address(statement, operand, extracted.parsed) is expected is shared


def test_uses_of_a_name_do_not_pay_the_climb_to_their_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owned: list[str] = []
    original = value_flow._FileFacts._owned

    def counting(self: value_flow._FileFacts, node: tree_sitter.Node, fn: object) -> bool:
        owned.append(self.parsed.node_text(node))
        return original(self, node, fn)  # type: ignore[arg-type]

    monkeypatch.setattr(value_flow._FileFacts, "_owned", counting)
    uses = "".join(f"  o[{i}] = (float)(a + {i});\n" for i in range(60))
    assert _value_of_a(_KERNEL % uses) is Value.TRUNCATED
    # 62 occurrences of `a`: its declaration is the only one whose parent may give it a value
    # (and `tile`'s declaration, which `&tile[0]` reads)
    assert owned.count("a") == 1 and len(owned) == 2


def test_a_node_found_from_its_function_is_the_node_found_from_the_root() -> None:
    """``_assignments`` looks an occurrence up from its function's node: the same node as the
    root's descent, on every identifier-like token of every function of the fixtures."""
    checked = 0
    query_source = "(function_definition) @f"
    for path in sorted(FIXTURES.glob("*.cu")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parsed = parse(str(path), text)
        root = parsed.tree.root_node
        query = tree_sitter.Query(parsed.tree.language, query_source)
        for fn in tree_sitter.QueryCursor(query).captures(root).get("f", []):
            body = fn.child_by_field_name("body")
            if body is None:
                continue
            for m in re.finditer(rb"[A-Za-z_]\w*", parsed.data[body.start_byte : body.end_byte]):
                start = body.start_byte + m.start()
                end = start + len(m[0])
                mine = fn.descendant_for_byte_range(start, end)
                theirs = root.descendant_for_byte_range(start, end)
                assert mine is not None and theirs is not None
                assert mine.id == theirs.id, (path.name, start)
                checked += 1
    assert checked > 1000


def test_the_identifier_index_holds_every_maximal_token() -> None:
    text = 'int a9; int 9abc; /* a */ const char *s = "a b$a"; a$b; _a a\n'
    facts = value_flow._FileFacts(SourceFile("test.cu", text))
    data = text.encode()
    for name in (b"a", b"abc", b"a9", b"b", b"_a", b"int", b"missing"):
        expected = [m.start() for m in re.finditer(rb"[A-Za-z_]\w*", data) if m[0] == name]
        assert facts._offsets(name) == expected
    assert facts._offsets(b"abc") == [data.index(b"abc")]  # after a digit: a token of its own


def test_ptx301_reads_a_template_once_and_judges_each_statement_on_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The address bases PTX301 reads are kept by the template's parse
    (``ptxlint.ptx.address_bases``): statements that spell the same template share them, and
    each is still judged by its own operands."""
    from ptxlint.ptx import address_bases as bases

    made: list[object] = []
    original = bases._plan

    def counting(ptx: object) -> object:
        made.append(ptx)
        return original(ptx)  # type: ignore[arg-type]

    monkeypatch.setattr(bases, "_plan", counting)
    bases._PLANS._entries.clear()
    load = '"ld.shared.f32 %0, [%1];"'
    text = (
        "__global__ void k(float *o) {\n"
        "  __shared__ float tile[64];\n"
        "  float v;\n"
        f'  asm volatile({load} : "=f"(v) : "l"(&tile[1]));\n'
        f'  asm volatile({load} : "=f"(v)'
        ' : "r"(static_cast<unsigned>(__cvta_generic_to_shared(&tile[2]))));\n'
        f'  asm volatile({load} : "=f"(v) : "l"(&tile[3]));\n'
        "  o[0] = v;\n"
        "}\n"
    )
    findings = [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"]
    assert sorted(text.count("\n", 0, f.span.start) + 1 for f in findings) == [4, 6]
    assert all("generic pointer" in f.message for f in findings)
    assert len(made) == 1


def test_token_starts_are_the_tokens_a_full_scan_finds() -> None:
    """``_token_starts`` (a search per name) answers what indexing every ``_IDENTIFIER`` match of
    the file answers, on text made of the characters that decide a token's bounds."""
    rng = random.Random(8)
    for _ in range(3000):
        data = bytes(rng.choice(b"ab_9$ .\n\xc3") for _ in range(rng.randint(0, 40)))
        index: dict[bytes, list[int]] = {}
        for m in re.finditer(rb"[A-Za-z_]\w*", data):
            index.setdefault(m[0], []).append(m.start())
        names = {*index, b"a", b"ab", b"b9", b"9", b"a$", b"", *(data[i : i + 3] for i in range(3))}
        for name in names:
            assert _token_starts(data, name) == index.get(name, []), (data, name)
        # a range that no token straddles (a function body), searched alone
        spans = [m.span() for m in re.finditer(rb"[A-Za-z_]\w*", data)]
        cuts = [k for k in range(len(data) + 1) if not any(a < k < b for a, b in spans)]
        start, end = sorted(rng.sample(cuts, 2)) if len(cuts) > 1 else (0, len(data))
        for name in names:
            inside = [o for o in index.get(name, []) if start <= o < end]
            assert _token_starts(data, name, start, end) == inside, (data, name, start, end)


def test_the_chunks_find_what_a_search_of_the_range_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_Chunks.token_starts`` reads only the pieces whose words may hold ``name``: it must
    answer what ``_token_starts`` answers, with pieces of a few bytes (cuts next to digits,
    tokens after digits, names with digits, ranges that no token straddles)."""
    rng = random.Random(9)
    for size in (1, 3, 7):
        monkeypatch.setattr(name_search, "_CHUNK_BYTES", size)
        for _ in range(1500):
            data = bytes(rng.choice(b"ab_9$ .\n\xc3") for _ in range(rng.randint(0, 40)))
            chunks = value_flow._Chunks(data)
            assert chunks.starts[0] == 0 and chunks.ends[-1] == len(data)
            tokens = {m[0] for m in re.finditer(rb"[A-Za-z_]\w*", data)}
            names = {*tokens, b"a", b"ab", b"a9", b"b9", b"9", b"a$", b"", b"_"}
            spans = [m.span() for m in re.finditer(rb"[A-Za-z_]\w*", data)]
            cuts = [k for k in range(len(data) + 1) if not any(a < k < b for a, b in spans)]
            start, end = sorted(rng.sample(cuts, 2)) if len(cuts) > 1 else (0, len(data))
            for name in names:
                assert chunks.token_starts(name, 0, len(data)) == _token_starts(data, name)
                assert chunks.token_starts(name, start, end) == _token_starts(
                    data, name, start, end
                ), (data, name, start, end)


def test_the_chunks_read_only_the_pieces_that_hold_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Names that share their letters (``q0`` ... ``q999``) each send a search to the pieces
    holding that token alone: with sets of letter prefixes every piece was read for each name,
    and a function of many such names was quadratic. Tokens after digits count (``9q5``)."""
    monkeypatch.setattr(name_search, "_CHUNK_BYTES", 64)
    data = "".join(f"  q{i} = q{i - 1} + 9q{i}x;\n" for i in range(1, 1000)).encode()
    chunks = value_flow._Chunks(data)
    assert len(chunks.starts) > 100
    read: list[tuple[int, int]] = []
    search = value_flow._token_search

    def counted(data: bytes, name: bytes, start: int = 0, end: int | None = None):  # type: ignore[no-untyped-def]
        read.append((start, end or len(data)))
        return search(data, name, start, end)

    monkeypatch.setattr(value_flow, "_token_search", counted)
    for name in (b"q17", b"q500", b"q17x", b"x", b"q"):
        read.clear()
        found = chunks.token_starts(name, 0, len(data))
        assert found == search(data, name)[0]
        assert len(read) <= 3, (name, len(read))


def test_a_file_past_its_search_budget_answers_from_its_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past ``_SEARCH_BUDGET`` a file's occurrences come from its ``_Chunks``: the same offsets,
    for the whole file and for a function's body, and the same value for an operand."""
    text = _KERNEL % "".join(f"  unsigned a{i} = a + {i}; a{i} += 9a;\n" for i in range(40))
    data = text.encode()
    for budget in (0, 1000):
        monkeypatch.setattr(value_flow, "_SEARCH_BUDGET", budget)
        monkeypatch.setattr(name_search, "_CHUNK_BYTES", 16)
        facts = value_flow._FileFacts(SourceFile("test.cu", text))
        for name in (b"a", b"a7", b"a39", b"o", b"unsigned", b"missing"):
            assert facts._offsets(name) == _token_starts(data, name)
        [fn] = [facts._function(n) for n in _functions(facts)]
        body = fn.node.child_by_field_name("body")
        assert body is not None
        for name in ("a", "a12", "v", "tile"):
            assert facts._occurrences(fn, name) == _token_starts(
                data, name.encode(), body.start_byte, body.end_byte
            )
        assert (facts._chunks is not None) == (budget == 0)
        assert _value_of_a(text) is Value.TRUNCATED


def _functions(facts: value_flow._FileFacts) -> list[tree_sitter.Node]:
    root = facts.parsed.tree.root_node
    return [c for c in root.named_children if c.type == "function_definition"]


# A helper whose asm reads its parameter `a`; what `a` holds is what its one caller passes.
_HELPER_RESULT = {
    "plain": "__device__ void load(unsigned a)",
    "a reference": "__device__ float& load(unsigned a)",
    "a function pointer": "__device__ void (*load(unsigned a))(float)",
    "a reference to a function": "__device__ void (&load(unsigned a))(float)",
}
_HELPER = """\
%s {
  float v;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "r"(a));
  (void)v;
}
__global__ void k() {
  __shared__ float tile[64];
  load((unsigned)(unsigned long)&tile[0]);
}
"""


@pytest.mark.parametrize("head", list(_HELPER_RESULT.values()), ids=list(_HELPER_RESULT))
def test_a_parameter_holds_what_the_callers_pass_whatever_the_function_returns(
    head: str,
) -> None:
    # `void (*load(unsigned a))(float)`: `a` is load's parameter; `(float)` is the parameter
    # list of the function pointer it returns, and `load` is the name its callers call
    text = _HELPER % head
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    [statement] = extracted.statements
    [operand] = [o for o in statement.operands if o.expression.strip() == "a"]
    value_flow._CACHE.clear()
    assert operand_value(statement, operand, True, extracted.parsed) is Value.TRUNCATED
    findings = [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"]
    assert len(findings) == 1 and "truncated" in findings[0].message


def test_a_function_whose_name_is_a_macro_call_is_no_definition_of_the_macro() -> None:
    # `void NAME(load)(unsigned a)`: the outer list is the function's own, so `NAME` names
    # no definition whose parameters a call `NAME(x)` could be matched against
    text = "void NAME(load)(unsigned a) { }\nvoid load(unsigned a) { }\n"
    facts = value_flow._FileFacts(SourceFile("test.cu", text))
    assert facts.definitions("NAME") == []
    [load] = facts.definitions("load")
    assert load.params == [("a", False)]


_ALIGNED = """\
__global__ void k(float *o) {
  __shared__ float tile[64];
  float v;
  unsigned long a = (unsigned long)&tile[3] & %s;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(a));
  o[0] = v;
}
"""


@pytest.mark.parametrize(
    ("mask", "kept"),
    [
        ("-16", True),  # a signed int: sign-extended, every high bit set
        ("~15", True),
        ("~0xF", True),
        ("-uintptr_t(16)", True),
        ("~(size_t)15", True),
        ("~static_cast<uintptr_t>(15)", True),
        ("~15ull", True),
        ("(~15)", True),
        ("~15u", False),  # unsigned int: zero-extended, the high half cleared
        ("-16u", False),
        ("~0x7FFFFFFFu", False),
        ("0xF", False),  # the low bits: an offset, no address
        ("~MASK", False),  # a mask of unknown type
    ],
)
def test_an_address_aligned_down_keeps_its_kind_only_where_the_mask_keeps_its_high_bits(
    mask: str, kept: bool
) -> None:
    text = _ALIGNED % mask
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    [statement] = extracted.statements
    [operand] = [o for o in statement.operands if o.expression.strip() == "a"]
    value_flow._CACHE.clear()
    found = operand_value(statement, operand, True, extracted.parsed)
    assert found is (Value.GENERIC if kept else None)


def test_a_parameter_aligned_down_is_still_what_its_unknown_callers_pass() -> None:
    # nccl's loadShmemMisaligned128: the pointer parameter no call site in the file explains,
    # in a file that makes shared-window pointers, aligned down to 4 bytes through an integer
    # and cast back; it may hold a shared-window address like the parameter itself
    text = (FIXTURES.parent / "real_code" / "helpers_clean.cu").read_text(encoding="utf-8")
    assert "store_window_aligned" in text
    assert [f for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"] == []
    # The same alignment of a generic address stays generic: flagged
    generic = text.replace("reinterpret_cast<uintptr_t>(window)", "reinterpret_cast<uintptr_t>(&g)")
    [finding] = [f for f in lint_text(generic, select=("PTX301",)) if f.rule == "PTX301"]
    assert "generic" in finding.message
