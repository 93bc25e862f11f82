"""Byte <-> character offsets of ``ParsedSource`` against the plain definition (encode or decode
the prefix), on random texts mixing 1- to 4-byte characters: the bisect tables must give the
same answer at every offset, inside a multi-byte character included."""

from __future__ import annotations

import random

from ptxlint.frontends.syntax_tree import ParsedSource, parse

ALPHABET = "ab\n\t é€😀ÿ"


def _by_prefix_byte(text: str, char_offset: int) -> int:
    return len(text[:char_offset].encode("utf-8"))


def _by_prefix_char(data: bytes, byte_offset: int) -> int:
    return len(data[:byte_offset].decode("utf-8", "replace"))


def test_offsets_agree_with_prefix_coding_at_every_offset() -> None:
    rnd = random.Random(14)
    for _ in range(2000):
        text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 40)))
        data = text.encode("utf-8")
        parsed = ParsedSource(text, data, None, "cuda")  # type: ignore[arg-type]
        for c in range(len(text) + 1):
            assert parsed.to_byte(c) == _by_prefix_byte(text, c), (text, c)
        for b in range(len(data) + 1):
            assert parsed.to_char(b) == _by_prefix_char(data, b), (text, b)


def test_node_bounds_round_trip_in_a_parsed_file() -> None:
    text = '// “quoted” é\n__device__ void f(int* p) { asm("mov.u32 %0, 1;" : "=r"(*p)); } // 😀\n'
    parsed = parse("x.cu", text)
    cursor = parsed.tree.walk()
    seen = 0
    while True:
        node = cursor.node
        assert node is not None
        start, end = parsed.to_char(node.start_byte), parsed.to_char(node.end_byte)
        assert parsed.to_byte(start) == node.start_byte and parsed.to_byte(end) == node.end_byte
        assert text[start:end] == parsed.node_text(node)
        seen += 1
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                assert seen > 20
                return


def test_the_error_walk_finds_what_a_query_for_error_and_missing_nodes_finds() -> None:
    # the walk enters only nodes that hold an error: an ERROR node inside another one that
    # costs nothing of its own (has_error false) is still found, and the measure is the same
    import tree_sitter

    from ptxlint.frontends import syntax_tree

    texts = [
        "CUTLASS_DEVICE Pipeline(Params p) : params_(p) { CUTLASS_PRAGMA_UNROLL\n"
        "  for (int i = 0; i < 4; ++i) { x(i) }\n}\nstruct S { int a; void f() { g( }; };\n",
        "int f() { return (1 + ; }\n__device__ void g() { asm(\"trap;\") }\n",
        "int ok() { return 1; }\n",
    ]
    for text in texts:
        tree = syntax_tree.parse("t.cu", text).tree
        compiled = syntax_tree.query(tree.language, "(ERROR) @error (MISSING) @missing")
        queried = tree_sitter.QueryCursor(compiled).captures(tree.root_node)
        walked = syntax_tree._error_nodes(tree)
        for kind in ("error", "missing"):
            assert (sorted((n.start_byte, n.end_byte) for n in walked[kind])
                    == sorted((n.start_byte, n.end_byte) for n in queried.get(kind, ())))
        assert syntax_tree._measured(walked) == syntax_tree._measured(queried)
    assert syntax_tree._errors(syntax_tree.parse("t.cu", texts[0]).tree)[0] > 0
