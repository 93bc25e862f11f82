"""Guards: the #if branches and NV_IF_TARGET calls around an offset, outermost first."""

from __future__ import annotations

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
    plain = [(s, e, n, m.group(1), m.group(2)) for s, e, n, m in _plain_conditional_lines(text)]
    joined = [(s, e, n, m.group(1), m.group(2)) for s, e, n, m in _conditional_lines(text)]
    assert plain == joined
    assert [kind for *_, kind, _ in plain] == [
        "if", "ifdef", "ifndef", "elif", "else", "endif", "endif", "if", "endif",
    ]  # fmt: skip
