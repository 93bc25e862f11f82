"""Guards: the #if branches and NV_IF_TARGET calls around an offset, outermost first."""

from __future__ import annotations

import random

from ptxlint.frontends.cxx.guards import FileGuards

TEXT = """\
#ifndef HEADER_H
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
A
#elif __CUDA_ARCH__ >= 700
#ifdef FAST
B
#endif
C
#else
D
#endif
NV_IF_TARGET(NV_PROVIDES_SM_90, (E;), (F;))
#endif
G
"""


def guards(marker: str) -> tuple[str, ...]:
    at = TEXT.index(marker + "\n") if marker in "ABCDG" else TEXT.index(marker)
    return FileGuards(TEXT).at(at, at + 1)[0]


def test_nested_branches_outermost_first() -> None:
    assert guards("A") == ("!defined(HEADER_H)", "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800")
    assert guards("B") == (
        "!defined(HEADER_H)",
        "!(defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)",
        "__CUDA_ARCH__ >= 700",
        "defined(FAST)",
    )
    assert guards("C")[-1] == "__CUDA_ARCH__ >= 700"
    assert guards("D") == (
        "!defined(HEADER_H)",
        "!(defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)",
        "!(__CUDA_ARCH__ >= 700)",
    )
    assert guards("G") == ()


def test_nv_if_target_arms() -> None:
    assert guards("E;")[-1] == "__CUDA_ARCH__ >= 900"
    assert guards("F;")[-1] == "!(__CUDA_ARCH__ >= 900)"


def test_many_sibling_blocks_stay_fast_and_right() -> None:
    text = "".join(f"#if X{i}\nasm{i}\n#endif\n" for i in range(5000)) + "tail\n"
    fg = FileGuards(text)
    for i in (0, 2500, 4999):
        at = text.index(f"asm{i}\n")
        assert fg.at(at, at + 1)[0] == (f"X{i}",)
    assert fg.at(text.index("tail"), text.index("tail") + 1)[0] == ()


def test_directive_scan_from_hash_reads_the_lines_the_joined_reader_reads() -> None:
    # `#` after code, after a comment start, in a string, a `#` that is no conditional, blanks
    # and tabs before and after it, CR before it, a last line without a newline
    from ptxlint.frontends.cxx.guards import _conditional_lines, _plain_conditional_lines

    text = (
        "#if A\n  x = 1; # if B\n \t# \t ifdef C // c\n#define D #if E\nint y; #endif\n"
        "\r#if F\n\"#if G\"\n#ifndef H\n#elif I\n#else\n  # endif /* k */\n#endif\n#iff J\n"
        "#if K\n#endif"
    )
    plain = [(s, e, m.group(1), m.group(2)) for s, e, m in _plain_conditional_lines(text)]
    joined = [(s, e, m.group(1), m.group(2)) for s, e, m in _conditional_lines(text)]
    assert plain == joined
    assert [kind for *_, kind, _ in plain] == [
        "if", "ifdef", "ifndef", "elif", "else", "endif", "endif", "if", "endif",
    ]  # fmt: skip


def _every_offset_agrees(text: str) -> None:
    """``conditions_at`` on a fresh file (its one walk up to the offset and on to the #endif
    of the blocks open there) gives what the index of every branch gives, at every offset."""
    indexed = FileGuards(text)
    for at in range(len(text) + 1):
        want = indexed.at(at, at + 1)[0]
        assert FileGuards(text).conditions_at(at) == want, (at, text[at : at + 20])


def test_a_first_question_walks_to_the_offset_and_agrees_with_the_index() -> None:
    _every_offset_agrees(TEXT)
    # never closed (left out), closed past an unclosed outer block, stray #else and #endif,
    # continuation lines, #elif chains, a directive on the last line
    _every_offset_agrees(
        "#endif\n#else\n#if A\n#if B\nx\n#endif\ny\n#if C \\\n && D\nz\n#elif E\nw\n"
        "#elif F\nv\n#else\nu\n#endif\n#ifdef G\nt\n#endif"
    )
    _every_offset_agrees("#if A\n#if B\nx\n#endif\n#if C\ny\n")


def test_the_walk_cuts_deep_nesting_and_long_elif_chains_as_the_index_does() -> None:
    from ptxlint.frontends.cxx.guards import MAX_ELIFS, MAX_NESTING, UNREAD

    deep = MAX_NESTING + 3
    text = "".join(f"#if L{i}\n" for i in range(deep)) + "x\n" + "#endif\n" * deep
    at = text.index("x\n")
    got = FileGuards(text).conditions_at(at)
    assert got == FileGuards(text).at(at, at + 1)[0]
    assert len(got) == MAX_NESTING + 1 and got[-1] == UNREAD
    chain = "#if E0\n" + "".join(f"#elif E{i}\n" for i in range(1, MAX_ELIFS + 3))
    text = chain + "#else\nx\n#endif\n"
    at = text.index("x\n")
    got = FileGuards(text).conditions_at(at)
    assert got == FileGuards(text).at(at, at + 1)[0] and got[-1] == UNREAD


def test_a_second_question_reads_the_index() -> None:
    text = "#if A\n#define X\n#endif\n#if B\n#define Y\n#endif\n"
    fg = FileGuards(text)
    assert fg.conditions_at(text.index("#define X")) == ("A",)
    assert fg._branches is None  # answered without indexing the file
    assert fg.conditions_at(text.index("#define Y")) == ("B",)
    assert fg._branches is not None


def test_one_text_has_one_walk() -> None:
    from ptxlint import file_memos
    from ptxlint.frontends.cxx.guards import guards_of

    text = "#if A\nx\n#endif\n"
    assert guards_of(text) is guards_of(text)
    copy = "".join(list(text))
    assert copy == text and guards_of(copy) is not guards_of(text)
    first = guards_of(text)
    file_memos.release()
    assert guards_of(text) is not first


def test_a_branch_reads_the_same_guards_whichever_branch_was_asked_before() -> None:
    # each branch's guards extend its parent's once asked: ask inner before outer and the
    # reverse, over a file-wide block (not local), an #elif chain and nesting past the cap
    from ptxlint.frontends.cxx.guards import LOCAL_GUARD_LINES, MAX_NESTING

    deep = MAX_NESTING + 2
    text = (
        "#if WIDE\n#if A\na\n#elif B\n#ifdef C\nc\n#else\nd\n#endif\nb\n#endif\n"
        + "".join(f"#if L{i}\n" for i in range(deep)) + "e\n" + "#endif\n" * deep
        + "pad\n" * (LOCAL_GUARD_LINES + 1) + "w\n#endif\nz\n"
    )
    offsets = [text.index(f"\n{m}\n") + 1 for m in "acdbewz"]

    def alone(at: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return FileGuards(text).at(at, at + 1)

    for order in (offsets, offsets[::-1], offsets[2::2] + offsets[1::2] + offsets[:1]):
        shared = FileGuards(text)
        for at in order:
            assert shared.at(at, at + 1) == alone(at)
            assert shared.chain(at) == FileGuards(text).chain(at)
    c = text.index("\nc\n") + 1
    assert alone(c) == (("WIDE", "!(A)", "B", "defined(C)"), ("!(A)", "B", "defined(C)"))


def test_a_blocks_size_is_its_lines_from_if_to_endif_wherever_it_stands() -> None:
    """Each branch's ``block_lines`` is the count of line breaks from its block's ``#if`` line
    to its ``#endif`` line (``_branches`` counts them only inside blocks), for blocks nested,
    in a row, after lines outside any block, after an ``#endif`` with no ``#if``, with
    continued lines among them."""
    from ptxlint.frontends.cxx.guards import _branches, _directive_lines

    rng = random.Random(36)
    for trial in range(300):
        lines = []
        for _ in range(rng.randint(1, 60)):
            lines.append(rng.choice(
                ["#if A", "#ifdef B", "#else", "#elif C", "#endif", "x;", "", "// #if D", "e \\"]
            ))  # fmt: skip
        text = "\n".join(lines) + "\n"
        # every branch's start and its block's size, from each directive's line number
        expected = set()
        stack: list[tuple[int, list[int]]] = []  # an open block's #if line, its branch starts
        for start, after, m in _directive_lines(text):
            kind = m.group(1)
            if kind in ("if", "ifdef", "ifndef"):
                stack.append((text.count("\n", 0, start), [after]))
            elif kind in ("elif", "else") and stack:
                stack[-1][1].append(after)
            elif kind == "endif" and stack:
                if_line, starts = stack.pop()
                size = text.count("\n", 0, start) - if_line
                expected |= {(branch, size) for branch in starts}
        got = {(b.start, b.block_lines) for b in _branches(text)}
        assert got == expected, (trial, text)
