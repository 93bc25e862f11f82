"""The prefilter's include check asks first whether a file names an asm-bearing macro of any
header read so far (``headers.asm_names_in_reach``), and walks the file's own closure only where
it does: its answer is the walk's answer for every file. The file's includes are read by the one
reader the macro table uses (``headers.include_names``), and a header's block comments are
lexed only where one could hide a directive."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from ptxlint.config import Config, RuleSelector
from ptxlint.frontends.cxx import defines, headers
from ptxlint.frontends.cxx.lexer import block_comments
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext
from ptxlint.run import prefilter, runner

TRAP_H = '#pragma once\n#define PROJ_TRAP() asm volatile("trap;")\n'


@pytest.fixture(autouse=True)
def _fresh_headers() -> object:
    headers.forget_headers()
    yield
    headers.forget_headers()


def _statements(paths: list[str]) -> int:
    rules = list(load_rules().rules)
    config = Config()
    result = runner.run(paths, config, RuleSelector(config, [(r.id, r.name) for r in rules]),
                        rules, RuleContext())
    return result.statements


def _admits(path: Path) -> bool:
    return prefilter.may_hold_asm(str(path), path.read_bytes())


def test_an_angle_include_without_a_dot_brings_the_asm_macros_its_header_defines(
    tmp_path: Path,
) -> None:
    # <projtrap> names no extension, as the standard library's headers do; the macro table
    # reads it (the header is found above the file), so the prefilter must too
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "projtrap").write_text(TRAP_H, encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    uses = src / "uses.cu"
    uses.write_text("#include <projtrap>\n__device__ void f() { PROJ_TRAP(); }\n")
    quiet = src / "quiet.cu"
    quiet.write_text("#include <projtrap>\n__device__ int g() { return 1; }\n")
    assert _admits(uses) and not _admits(quiet)
    assert _statements([str(uses)]) == 1 and _statements([str(src)]) == 1


def test_an_include_line_continued_by_a_backslash_is_read_as_one_line(tmp_path: Path) -> None:
    (tmp_path / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    spliced = tmp_path / "spliced.cu"
    spliced.write_text('#include \\\n  "trap.cuh"\n__device__ void f() { PROJ_TRAP(); }\n')
    after_hash = tmp_path / "after_hash.cu"
    after_hash.write_text('#\\\ninclude "trap.cuh"\n__device__ void f() { PROJ_TRAP(); }\n')
    for path in (spliced, after_hash):
        assert headers.include_names(path.read_text()) == ["trap.cuh"]
        assert _admits(path)
    assert _statements([str(spliced)]) == 1
    # a spliced #define is read as well: its macro brings the asm
    (tmp_path / "wrap.cuh").write_text('#include "trap.cuh"\n#define \\\n WRAP() PROJ_TRAP()\n')
    wraps = tmp_path / "wraps.cu"
    wraps.write_text('#include "wrap.cuh"\n__device__ void f() { WRAP(); }\n')
    assert _admits(wraps) and _statements([str(wraps)]) == 1


def _random_tree(root: Path, rng: random.Random, count: int) -> list[str]:
    """``count`` headers that include one another at random (cycles too, some includes only
    in comments or strings), with macros that hold asm, call one another, or only mention a
    name in a comment or string."""
    names = [f"h{i}.cuh" for i in range(count)]
    macros = [f"M{i}" for i in range(count)]
    for i, name in enumerate(names):
        lines = ["#pragma once"]
        for j in rng.sample(range(count), rng.randint(0, 3)):
            spelled = rng.choice(['#include "{}"', "/*\n#include \"{}\"\n*/",
                                  '// #include "{}"', '#  include <{}>', '#include \\\n"{}"'])
            lines.append(spelled.format(names[j]))
        body = rng.choice(['asm volatile("trap;")', "0", '"{}"', "/* {} */ 0", "{}()",
                           "do {{ {}(); }} while (0)"] if i % 4 else ['asm("exit;")'])
        lines.append(f"#define {macros[i]}() " + body.format(rng.choice(macros)))
        if rng.random() < 0.3:
            lines.append(f"/* #define {macros[i]}_X() asm(\"exit;\") */")
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return macros


@pytest.mark.parametrize("seed", range(6))
def test_the_names_in_reach_never_decide_a_file_the_closure_walk_would_let_through(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    macros = _random_tree(tmp_path, rng, 14)
    files = []
    for k in range(30):
        included = rng.sample(range(14), rng.randint(1, 3))
        text = "".join(f'#include "h{i}.cuh"\n' for i in included)
        called = "".join(f"{name}(); " for name in rng.sample(macros, 3))
        text += f"__device__ void f{k}() {{ {called}}}\n"
        path = tmp_path / f"f{k}.cu"
        path.write_text(text, encoding="utf-8")
        files.append(path)
    base = str(tmp_path)
    answers = []
    for path in files:
        data = path.read_bytes()
        names = headers.include_names(data.decode())
        walked = prefilter._uses(str(path), data, names)  # the closure walk alone
        assert prefilter.uses_included_asm_macro(str(path), data) == walked, path.read_text()
        answers.append(walked)
        reach = headers.asm_names_in_reach(base, headers.sketch_include_names(data))
        found = [headers.find_header(base, name) for name in names]
        through = [h for h in found if h is not None]
        for header in through:
            assert headers.asm_names_through(header) <= reach
        if through:
            assert headers.asm_names_across(through, frozenset()) <= reach
    assert True in answers and False in answers  # both kinds of file are judged


_PIECES = [
    "#define A 1\n", "#include \"a.h\"\n", "/* x */", "/*\n#define B 2\n*/\n", "\"/*\"",
    "// /* \n", "'/'", "*/", "#undef A\n", " /* # */\n", "R\"(/*)\"\n", "x;\n",
]


def test_block_comments_are_lexed_only_where_one_could_hide_a_directive() -> None:
    # every text of up to three pieces: the directives read with the comments skipped where
    # no /* ... */ stretch holds a '#' are those read with every comment lexed
    for count in (1, 2, 3):
        for parts in itertools.product(_PIECES, repeat=count):
            text = "".join(parts)
            lexed = [(start, m.group(0)) for start, m in
                     defines._directives(text, block_comments(text))]
            assert [(start, m.group(0)) for start, m in defines._directives(text)] == lexed, text


def test_a_header_read_before_the_macro_it_calls_is_found_brings_its_macro_later(
    tmp_path: Path,
) -> None:
    # wrap.cuh's WRAP calls LATE, which only late.cuh defines (with asm). The first file reaches
    # wrap.cuh alone: WRAP brings no asm there. The second includes both and expands WRAP to
    # asm: the names in reach grow by WRAP once LATE is found, though wrap.cuh was read before.
    (tmp_path / "wrap.cuh").write_text("#pragma once\n#define WRAP() do { LATE(); } while (0)\n")
    (tmp_path / "late.cuh").write_text('#pragma once\n#define LATE() asm volatile("trap;")\n')
    first = tmp_path / "first.cu"
    first.write_text('#include "wrap.cuh"\n__device__ void f() { WRAP(); }\n')
    second = tmp_path / "second.cu"
    second.write_text('#include "wrap.cuh"\n#include "late.cuh"\n__device__ void g() { WRAP(); }\n')
    assert not _admits(first)
    assert headers.asm_names_in_reach(str(tmp_path), ["wrap.cuh"]) == frozenset()
    assert _admits(second)
    assert headers.asm_names_in_reach(str(tmp_path), ["wrap.cuh"]) == {"WRAP"}
    assert _statements([str(second)]) == 1


def test_a_file_asked_before_any_file_includes_it_is_not_read_again_as_their_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    mid = tmp_path / "mid.cuh"
    mid.write_text('#include "trap.cuh"\nint mid;\n', encoding="utf-8")
    top = tmp_path / "top.cu"
    top.write_text('#include "mid.cuh"\n__device__ void f() { PROJ_TRAP(); }\n')
    reads: list[str] = []
    read = headers.read_header_bytes

    def counted(path: str, *args: object) -> bytes | None:
        reads.append(path)
        return read(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(headers, "read_header_bytes", counted)
    headers.keep_read_ahead(True)  # as the walk does: a header read once, sketched or whole
    try:
        assert not _admits(mid)  # names no asm macro: its own bytes sketched, not a read of it
        # top.cu reaches PROJ_TRAP through mid.cuh's one sketch, made of the bytes given above
        assert headers.asm_names_of_file(str(top), top.read_bytes()) == {"PROJ_TRAP"}
        assert reads == [headers.real_path(str(tmp_path / "trap.cuh"))]
    finally:
        headers.keep_read_ahead(False)
    assert _admits(top)


@pytest.mark.parametrize("seed", range(4))
def test_files_that_include_one_another_get_the_closure_walks_answer_in_any_order(
    tmp_path: Path, seed: int
) -> None:
    # the files asked are each other's headers: a file is sketched into the reach once, from
    # its own bytes when it is asked first, and its answer is read off that sketch
    rng = random.Random(seed)
    _random_tree(tmp_path, rng, 16)
    paths = sorted(tmp_path.glob("h*.cuh"))
    rng.shuffle(paths)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        path.write_text(text + f"void use() {{ M{rng.randrange(16)}(); }}\n", encoding="utf-8")
    asked = 0
    for path in paths:
        data = path.read_bytes()
        if prefilter.has_keyword(str(path), data) or not prefilter.needs_include_check(
            str(path), data
        ):
            continue
        names = headers.include_names(data.decode())
        walked = prefilter._uses(str(path), data, names)
        assert prefilter.uses_included_asm_macro(str(path), data) == walked, path.read_text()
        asked += 1
    assert asked


def test_a_file_named_through_a_link_resolves_its_includes_from_the_folder_it_is_named_in(
    tmp_path: Path,
) -> None:
    # src/k.cu links to a file outside the tree: its includes are looked for from src/, as
    # the macro table of src/k.cu looks for them, not from the folder the link points into
    (tmp_path / "tree" / "inc").mkdir(parents=True)
    (tmp_path / "tree" / "inc" / "trap.cuh").write_text(TRAP_H, encoding="utf-8")
    (tmp_path / "tree" / "src").mkdir()
    (tmp_path / "away").mkdir()
    target = tmp_path / "away" / "k.cu"
    target.write_text('#include "inc/trap.cuh"\n__device__ void f() { PROJ_TRAP(); }\n')
    link = tmp_path / "tree" / "src" / "k.cu"
    try:
        link.symlink_to(target)
    except OSError:
        pytest.skip("no symbolic links here")
    assert _admits(link)
    assert not _admits(target)  # from away/, inc/trap.cuh is found nowhere


@pytest.mark.parametrize(
    "text",
    [
        b'#define INC #include "b.h"\n#include "c.h"\n',  # an include line inside a definition
        b'# define A(x) #x \\\n  #include <b.h>\n#include <c.h>\n',  # on its continued line
        b'#include "we#ird.h"\n#include "c.h"\n',  # a `#` in an include name
        b'#include "#define V.h"\n#define W 2\n',  # a definition's search starts in one
        b'#define S "#include"\n#define R(a) a##include\n#include "c.h"\n',
        b'#include \\\n "b.h"\n#define include 3\n#define Y include\n# include <c.h>\n',
        b"#define Q \\\r\n  x\n#  include <b.h> // #define Z\n/* #include <c.h> */\n",
    ],
)
def test_a_sketch_finds_what_the_two_searches_find(tmp_path: Path, text: bytes) -> None:
    # ``_sketch`` looks for include lines and definitions in one search: where a match of one
    # holds a `#` the other's could start at, the header is searched twice, as before
    for name in ("b.h", "c.h", "we#ird.h", "#define V.h"):
        (tmp_path / name).write_text("")
    real = str(tmp_path / "a.h")
    base = str(tmp_path)
    includes = [m for m in headers._SKETCH_INCLUDE().finditer(text)]
    children = [
        child for child in (
            headers.resolved(base, (m.group(1) or m.group(2)).decode()) for m in includes
        ) if child is not None
    ]
    assert headers._sketch(real, text) == (
        children, b"\n".join(headers._SKETCH_DEFINE().findall(text))
    )


def test_include_lines_are_decided_as_by_the_last_comment_marks_before_each() -> None:
    # ``_include_line`` looks for a ``*/`` only where it can decide: the decisions are those of
    # the last ``/*`` and ``*/`` anywhere before each include line
    pieces = [b"/*", b"*/", b"/*/", b"// x\n", b"x = 1;\n", b'#include "a.h"\n', b"\n", b" "]
    rng = random.Random(7)
    for _ in range(3000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        comments = [-1, -1, 0]
        for m in headers._SKETCH_INCLUDE().finditer(text):
            start = m.start()
            line = text.rfind(b"\n", 0, start) + 1
            opened, closed = text.rfind(b"/*", 0, start), text.rfind(b"*/", 0, start)
            expected: bool | None = not text[line:start].strip(b" \t")
            if expected and opened >= 0 and closed < opened + 2:
                expected = None
            assert headers._include_line(text, start, m.end(), comments) == expected, text
