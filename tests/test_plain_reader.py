"""The statement reader's fast path (``plain_reader.read_plain``) against its token path.

``_read_plain`` reads a plain statement a whole operand per regex match and returns None for
anything else; wherever it gives a reading, that reading must be the token path's
(``_StatementReader(source, _code_tokens(...)).read()``) in every field: operands with their
spans, symbolic names, missing commas and their problems, clobbers, colons, template source map.
These tests generate statements from plain and tricky pieces and compare the two readers.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import extract as ex
from ptxlint.frontends.cxx import plain_reader, statement_tokens
from ptxlint.frontends.cxx.lexer import Token, decode_string_literal, tokens
from ptxlint.model import Constraint, Operand, SourceFile, Span
from ptxlint.model_slots import slot_setters
from scripts.locations import cuda_include

ROOT = Path(__file__).resolve().parent.parent


def _token_reading(source: SourceFile, start: int) -> ex._RawStatement | None | str:
    stream = ex.code_tokens(source.text, start)
    if ex._has_inner_directive(stream):
        return "directive"
    return ex.StatementReader(source, stream, ex.MacroPieces(source), False).read()


def _compare(text: str, at: int = 0) -> ex._RawStatement | None:
    """Both readings of the statement at the first asm keyword of ``text`` from ``at``; the
    fast one (given the file's macros), which must be the token path's wherever it is not
    None. Without the macros the fast path reads no more than with them, and the same."""
    source = SourceFile("t.cu", text)
    m = statement_tokens.ASM_KEYWORD().search(text, at)
    assert m is not None
    plain = ex.read_plain(source, m.start(), m.group(), ex.MacroPieces(source))
    if plain is not None:
        assert repr(plain) == repr(_token_reading(source, m.start())), text
    without = ex.read_plain(source, m.start(), m.group())
    assert without is None or repr(without) == repr(plain), text
    return plain


# --------------------------------------------------------------------------- generated statements

_BLANKS = [" ", "", "  ", "\n", "\n    ", "\t", "\r\n  ", " \f", "\v"]
_COMMENTS = [
    "/* c */",
    "// line\n",
    "/* (:,\"') */",
    "//\n",
    "\\\n",
    "/**/",
    "// a \\\n b\n",
    # not blanks for the lexer
    "\u00a0",
    "\\ ",
]
_NAMES = ["d0", "desc_a", "x", "_a$", "__asm_x", "p1"]
_CONSTRAINTS = (
    ['"r"', '"=r"', '"+f"', '"l"', '"n"', '"=&r"', '"+r"', '"h"', '" r"', '"=r,r"', '""'],
    # not plain: the token path reads these
    ['"r" "r"', '"\\x72"', 'u8"r"', 'L"r"', 'R"(r)"', "__LDG_PTR", '"r', "'r'"],
)
_EXPRESSIONS = (
    [
        "d0",
        " d0 ",
        "a + b",
        "int32_t(scaleA)",
        "p[0]",
        "p[i][j]",
        "f(a, b)",
        "(a, b)",
        "a ? b : c",
        "::std::x",
        "x.y->z",
        "*reinterpret_cast<uint32_t*>(&a[0])",
        "static_cast<int>(f(g(h(x))))",
        "((((((x))))))",
        "a[(i + 1)]",
        "T{1, 2}",
        "a / b",
        "a /b/ c",
        "\n  x\n",
        "s[{0}]",
        "",
        " ",
        "0x1f",
        "1.5f",
        "\u00e9t\u00e9",
        "a\u00a0b",
        "sizeof(int)",
        "a::b<c>(d)",
        "x /* c */",
        "/*as_b32*/ *p",
        "x // c\n",
        "x\\\n + y",
        "x /* ) */",
        "x // )\n",
        "a\\b",
        "x /\\\n* y",
    ],
    # not plain, or not read alike
    [
        "a[b)]",
        "a(b]c",
        "'a'",
        '"s"',
        "1'000",
        "x #y",
        "asm",
        "f(__asm__(x))",
        "a)(b",
        "c == ')'",
        "'\"'",
        's == ")"',
        "x\n#define Y\n",
        "(a",
        "a]",
        "{a)",
    ],
)
_SEPARATORS = ([",", ", ", " ,", ",\n"], ["", " ", ",,", ", ,", " /* c */ ,", ",// c\n"])
_LITERALS = (
    [
        '"nop;"',
        '"{\\n\\t"',
        '"mov.u32 %0, %1;\\n"',
        '""',
        '"a\\\nb"',
        '"%%px"',
        '"\\x41\\101"',
        '"\\"q\\""',
        '"a\\\\"',
        '"tab\\t"',
        'R"(raw)"',
        'R"x(a)"b)x"',
        'R"(\n  mov.b32 %0, %1;\\\n)"',
        'R"YYY()YYY"',
    ],
    # not plain
    ['u8"x"', 'L"x"', 'u8R"(x)"', "STR(op)", '"open', '"a" ".b" STR(x) "c"', 'R"(open'],
)
_CLOBBERS = (['"memory"', '"cc"', '""'], ['"me" "mory"', "CLOBBER", 'R"(cc)"', '"a\\nb"'])
_QUALIFIERS = (
    ["", " volatile", " __volatile__", " volatile inline"],
    [" goto", " const", " __volatile", " asm"],
)
_Pool = tuple[list[str], list[str]]


def _pick(rng: random.Random, pool: _Pool) -> str:
    """Mostly one of ``pool``'s plain pieces (first list), at times one of the others."""
    return rng.choice(pool[0] if rng.random() < 0.97 else pool[1])


def _blank(rng: random.Random) -> str:
    if rng.random() < 0.06:
        return rng.choice(_BLANKS) + rng.choice(_COMMENTS) + rng.choice(_BLANKS)
    return rng.choice(_BLANKS)


def _operand(rng: random.Random) -> str:
    name = ""
    if rng.random() < 0.2:
        word = rng.choice([*_NAMES, "asm", "0", "a b"]) if rng.random() < 0.2 else "n"
        name = f"[{_blank(rng)}{word}{_blank(rng)}]{_blank(rng)}"
    constraint = _pick(rng, _CONSTRAINTS)
    expression = _pick(rng, _EXPRESSIONS)
    return f"{name}{constraint}{_blank(rng)}({expression}){_blank(rng)}"


def _section(rng: random.Random, clobbers: bool) -> str:
    parts = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5])):
        item = _pick(rng, _CLOBBERS) if clobbers else _operand(rng)
        parts.append(_blank(rng) + item)
        parts.append(_pick(rng, _SEPARATORS))
    if parts and rng.random() < 0.8:
        parts.pop()  # mostly no trailing separator
    return "".join(parts)


def _statement(rng: random.Random) -> str:
    keyword = rng.choice(["asm", "__asm__", "__asm"])
    template = "".join(_blank(rng) + _pick(rng, _LITERALS) for _ in range(rng.choice([1, 1, 2, 4])))
    sections = [template]
    colons = rng.choice([0, 1, 2, 2, 2, 3, 3, 3, 3, 4, 5])
    for k in range(1, colons + 1):
        sections.append(_section(rng, clobbers=k >= 3))
    text = ""
    for k, section in enumerate(sections):
        if k:
            text += _blank(rng) + rng.choice([":", ":", ": ", ":\n"])
        text += section
    if colons >= 2 and rng.random() < 0.05:
        text = text.replace(": :", "::", 1)
    end = rng.choice([")", ");", ")", ")\n#endif", "", ") + 1"])
    return f"{keyword}{_pick(rng, _QUALIFIERS)}{_blank(rng)}({text}{_blank(rng)}{end}"


def test_generated_statements_read_alike() -> None:
    rng = random.Random(14)
    plain = 0
    for _ in range(6000):
        text = _statement(rng)
        if rng.random() < 0.05:
            text = text.replace("\n", "\n#if X\n", 1)  # a directive inside
        if _compare(f"void f() {{\n  {text}\n}}\n") is not None:
            plain += 1
    # the fast path reads most of them (the test is not vacuous), not all (the rest is compared
    # by the extraction test below)
    assert 1500 < plain < 5800, plain


def test_generated_files_extract_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(23)
    functions = []
    for k in range(300):
        body = "\n  ".join(_statement(rng) + ";" for _ in range(rng.choice([1, 2, 3])))
        functions.append(f"__device__ void f{k}(int d0, int* p, unsigned x) {{\n  {body}\n}}\n")
    source = SourceFile("gen.cu", "".join(functions))
    fast = extract_statements(source)
    monkeypatch.setattr(ex, "read_plain", lambda *args: None)
    slow = extract_statements(source)
    assert len(fast.statements) > 100
    assert repr(fast.statements) == repr(slow.statements)
    assert fast.skipped == slow.skipped


# --------------------------------------------------------------------------- chosen cases


def test_tricky_plain_statements_take_the_fast_path() -> None:
    cases = [
        # commas and colons inside parentheses, brackets and braces
        'asm("op %0, %1;" : "=r"(d) : "r"(f(a, b)), "r"(c ? x : y), "r"(T{1, 2}[0]));',
        # string concatenation across lines, with comments between the pieces
        'asm volatile("{\\n"  // open\n  ".reg .pred p;\\n" /* x */\n  "}" ::: "memory");',
        # symbolic names
        'asm("mov.u32 %[o], %[i];" : [o] "=r"(out) : [ i ] "r"(in));',
        # nvcc's missing comma, before a literal and before a symbolic name
        'asm("op %0, %1, %2;" : "=r"(d) : "r"(a) "l"(b)\n [n] "n"(3));',
        # deep nesting (beyond the single-match pattern), and a comment inside an expression
        'asm("op %0;" :: "r"(f(g(h(k(x))))), "l"(/*as_b64*/ *reinterpret_cast<long*>(&v)));',
        # raw strings, among others and alone
        'asm(R"(nop;)" "\\n" R"YYY(\n  mov.b32 %0, %1;)" )YYY" : "=r"(d) : "r"(s));',
        # `::` as two colons, empty sections, an empty operand between commas
        'asm volatile("bar.sync 0;" ::: "memory");',
        'asm("op %0, %1;" : "=r"(d), , "=r"(e) : );',
        'asm("op;" : : : "memory", "cc",);',
    ]
    for text in cases:
        assert _compare(f"void f() {{ {text} }}") is not None, text


def test_missing_commas_are_recorded_in_order() -> None:
    text = 'void f() { asm("op;" : "=r"(a) "=r"(b) : "r"(c) [x] "r"(d)); }'
    raw = _compare(text)
    assert raw is not None
    assert [o.expression for o in raw.operands] == ["a", "b", "c", "d"]
    assert [o.symbolic_name for o in raw.operands] == [None, None, None, "x"]
    assert raw.missing_commas == (
        (text.index("(a)") + 2, text.index('"=r"(b)')),
        (text.index("(c)") + 2, text.index("[x]")),
    )
    assert raw.problems == tuple(
        f"missing ',' between operands at offset {b}" for _, b in raw.missing_commas
    )


def test_statements_the_fast_path_leaves_to_the_tokens() -> None:
    cases = [
        'asm("a" STR(x) "b");',  # a macro piece in the template
        'asm(u8R"(nop;)");',  # a prefixed raw string
        'asm(R"x(nop;)");',  # an unterminated raw string
        'asm("op %0;" : "=r"(d) : __LDG_PTR(p) (q));',  # a macro constraint with arguments
        'asm("op %0;" : "=r"(d) : "r" X(p));',  # a literal and a macro
        'asm("op %0;" : "=r"(d) : asm(p));',  # an asm keyword ends the token stream
        'asm("op %0;" :: "r"("s"[0]));',  # a literal in an expression
        'asm("op %0;" :: "r"(a[b)]));',  # brackets that do not nest by kind
        'asm("op %0;" :: "r"(x)\n#if A\n, "r"(y)\n#endif\n);',  # a directive inside
        'asm goto("bra %l0;" :::: done);',  # goto labels
        'asm("op %0;" :: "r"(x) "junk");',  # an operand that cannot be read
        'asm("op %0;" :: "r"(asm));',  # an asm keyword ends the token stream
        'asm("unterminated : "=r"(x));',
        'asm("op" : "=r"(x)',  # no closing parenthesis
        'asm volatile const("nop;");',  # not a GNU asm statement
    ]
    for text in cases:
        assert _compare(f"void f() {{ {text} }}") is None, text


def test_macro_constraints_read_as_the_tokens_read_them() -> None:
    """A constraint spelled as one macro name takes the fast path: its value where the macro
    is a string literal there (each definition in force where it is used), opaque where it
    is not (undefined, function-like, not a literal), as the token path reads it."""
    text = (
        '#define P "l"\n'
        '#define F(x) "r"\n'
        "#define N 3\n"
        'void f() { asm("op %0, %1;" : "=r"(d) : P (ptr), [n] P(q)); }\n'
        "#undef P\n"
        '#define P "=r"\n'
        'void g() { asm("op %0, %1, %2;" : P(d) : F(x), N(y) "r"(z)); }\n'
        'void h() { asm("op %0;" : : UNDEFINED(u)); }\n'
    )
    first = _compare(text, text.index("void f"))
    second = _compare(text, text.index("void g"))
    third = _compare(text, text.index("void h"))
    assert first is not None and second is not None and third is not None
    assert [(o.constraint.text, o.constraint.opaque) for o in first.operands] == [
        ("=r", False), ("l", False), ("l", False),
    ]
    assert [(o.constraint.text, o.constraint.opaque) for o in second.operands] == [
        ("=r", False), ("F", True), ("N", True), ("r", False),
    ]
    assert [o.constraint.letters for o in second.operands] == ["r", "", "", "r"]
    assert third.operands[0].constraint.opaque
    assert first.operands[1].constraint.span == Span(
        text.index("P (ptr)"), text.index("P (ptr)") + 1
    )


def test_template_shortcut_is_decode_string_literal() -> None:
    """``_template``'s shortcut for literals without escapes against the general decoding."""
    rng = random.Random(5)
    alphabet = ['"', "\\", "a", " ", "%", "\n", "n", "x", "4", "\u00e9"]
    for _ in range(3000):
        body = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8)))
        literal = f'"{body}"' if rng.random() < 0.8 else f'"{body}'
        toks = [t for t in tokens(literal) if t.kind == "string"]
        if not toks:
            continue
        at = rng.randrange(0, 50)
        toks = [Token(t.kind, t.text, t.start + at, t.end + at) for t in toks]
        reader = ex.StatementReader(SourceFile("t.cu", ""), (), ex.NoPieces(), False)
        template = reader._template(toks, 0)
        text = ""
        starts: list[int] = []
        ends: list[int] = []
        for t in toks:
            decoded = decode_string_literal(t)
            text += decoded.text
            starts.extend(decoded.starts)
            ends.extend(decoded.ends)
        assert template.text == text
        assert list(template.char_starts) == starts
        assert list(template.char_ends) == ends


# --------------------------------------------------------------------------- real headers


def _asm_files(root: Path, limit: int) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".h", ".hpp", ".cuh", ".cu") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if ex.has_asm(text):
                found.append(path)
    return found[:: max(1, len(found) // limit)][:limit]


def test_fixtures_and_cuda_headers_read_alike() -> None:
    files = sorted((ROOT / "fixtures").rglob("*.cu"))
    cuda = cuda_include()
    if cuda is not None:
        files += _asm_files(cuda, 25)
    plain = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        source = SourceFile(str(path), text)
        pieces = ex.MacroPieces(source)  # one per file, as extraction has it
        for m in statement_tokens.ASM_KEYWORD().finditer(text):
            raw = ex.read_plain(source, m.start(), m.group(), pieces)
            if raw is not None:
                plain += 1
                assert repr(raw) == repr(_token_reading(source, m.start())), (path, m.start())
    assert plain > 100


def test_statement_past_the_token_limit_is_left_to_the_tokens() -> None:
    """``_code_tokens`` stops after 200,000 tokens: such a statement reads as unterminated."""
    operands = ", ".join('"r"(x)' for _ in range(41_000))  # 205,000 tokens
    text = f'void f() {{ asm("op;" :: {operands}); }}'
    assert _compare(text) is None
    raw = _token_reading(SourceFile("t.cu", text), text.index("asm"))
    assert isinstance(raw, ex._RawStatement)
    assert "unterminated asm statement: no closing parenthesis" in raw.problems


def test_operands_built_slot_by_slot_equal_the_constructed_ones() -> None:
    """The fast path fills Operand, Constraint and Span slot by slot: the same objects as
    their constructors make."""
    text = 'void f() { asm("op %0, %1;" : [o] "=&r"(d) : "r"( a + 1 ) "l"(f(b))); }'
    source = SourceFile("t.cu", text)
    by_slot = ex.read_plain(source, text.index("asm"), "asm")
    assert by_slot is not None
    at = text.index

    def made(index: int, role: str, con: tuple[str, str, str], expr: str) -> Operand:
        spelled, modifiers, letters = con
        con_at = at(f'"{spelled}"')
        expr_at = at(expr, con_at)
        close = at(")", expr_at + len(expr))
        name = "o" if index == 0 else None
        return Operand(
            index, role, Constraint(spelled, modifiers, letters, Span(con_at, con_at + len(spelled) + 2)),
            expr, Span(expr_at, expr_at + len(expr)), Span(at("[o]") if name else con_at, close + 1),
            name,
        )  # fmt: skip

    constructed = (
        made(0, "output", ("=&r", "=&", "r"), "d"),
        made(1, "input", ("r", "", "r"), "a + 1"),
        made(2, "input", ("l", "", "l"), "f(b)"),
    )
    assert by_slot.operands == constructed
    assert hash(by_slot.operands) == hash(constructed)
    assert repr(by_slot.operands) == repr(constructed)


def test_slot_makers_know_every_field() -> None:
    """A maker that fills slots raises at import where the model gained a field it does not
    fill (it would otherwise leave that slot unset)."""
    with pytest.raises(RuntimeError, match="Operand has fields"):
        slot_setters(Operand, ("index", "role"))
    assert len(slot_setters(Span, ("start", "end"))) == 2


def test_reread_reads_plain_statements_as_the_tokens_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """``reread`` (the language server's one statement) takes the plain reader where it reads,
    and gives what the token path gives: after an edit inside a literal, and for statements
    the plain reader leaves (a macro piece, a comment in an operand, another keyword)."""
    from ptxlint.engine import parse_template

    text = (
        '#define OP "add.u32"\n'
        "__device__ void f(unsigned a, unsigned *p) {\n"
        '  asm volatile("mov.u32 %0, %1;" : "=r"(a) : "r"(a + 1));\n'
        '  asm("st.u32 [%0], %1;" :: "l"(p), "r"(/*v*/ a) : "memory");\n'
        '  asm(OP " %0, %0, 1;" : "+r"(a));\n'
        '  __asm__ __volatile__("{ .reg .b32 t; mov.b32 t, %0; }" :: "r"(a));\n'
        "}\n"
    )
    statements = extract_statements(SourceFile("t.cu", text)).statements
    assert len(statements) == 4 and all(s.operands[0].ctype for s in statements)
    edited = text.replace("mov.u32 %0", "mov.b32 %0").replace("st.u32", "st.b32")
    edited = edited.replace("t, %0;", "t, %0; ")
    assert ex.read_plain(SourceFile("t.cu", edited), statements[0].span.start, "asm")
    readings = []
    for reader in (ex.read_plain, lambda source, start, keyword: None):
        monkeypatch.setattr(ex, "read_plain", reader)
        readings.append([ex.reread(SourceFile("t.cu", edited), s, parse_template)
                         for s in statements])  # fmt: skip
    plain, tokens_only = readings
    assert repr(plain) == repr(tokens_only)
    assert plain[2] is None  # the macro piece needs the file's macros
    assert plain[0] is not None and plain[0].template.text == "mov.b32 %0, %1;"
    assert [o.ctype for o in plain[0].operands] == [o.ctype for o in statements[0].operands]
    assert plain[3] is not None and plain[3].keyword == "__asm__"


def test_statements_filled_slot_by_slot_equal_the_constructed_ones() -> None:
    """``_finish`` fills AsmStatement slot by slot, its defaults included."""
    from ptxlint.model import AsmStatement

    text = '__device__ void f(unsigned a) { asm volatile("mov.u32 %0, 1;" : "=r"(a) :: "memory"); }'
    (made,) = extract_statements(SourceFile("t.cu", text)).statements
    names = ("source", "keyword", "span", "qualifiers", "extended", "template", "operands",
             "clobbers", "goto_labels", "colons", "open_paren", "close_paren", "context", "ptx",
             "problems", "opaque_sections", "missing_commas")  # fmt: skip
    constructed = AsmStatement(**{name: getattr(made, name) for name in names})
    assert made == constructed and repr(made) == repr(constructed)
    assert hash(made) == hash(constructed)
    assert (made.syntax, made.llvm) == ("gnu", None)
    assert made.outputs == constructed.outputs and made.inputs == ()


def test_plain_patterns_number_their_groups_as_the_reader_reads_them() -> None:
    """``_plain_operands`` reads the groups by number, all at once."""
    assert plain_reader._PLAIN_OPERAND.groupindex == {"op": 1, "name": 2, "con": 3, "expr": 4, "sep": 5}
    assert plain_reader._PLAIN_HEAD().groupindex == {"op": 1, "name": 2, "con": 3}
    assert plain_reader._MACRO_HEAD().groupindex == {"op": 1, "name": 2, "con": 3}
