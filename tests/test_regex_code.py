"""The command line's kept programs of regular expressions (``ptxlint.regex_code``): a pattern
compiled from the table is the pattern ``re`` compiles, a second process assembles nothing, and
a table it cannot use is ignored."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ptxlint import kept_table, regex_code

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(regex_code._steps() is None, reason="re has other internals here")

SAMPLES = [
    "", "abc", "ABC def", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1}, [%2];",
    "  .reg .b32 r<4>;\n\tld.shared.u32 %0, [%1+8];", "asm volatile(\"membar.gl;\" ::: \"memory\");",
    "#define X(a, b) a ## b\n", "é ü \u00e9 \ufffd", "x_1 = y[2] + 0x1F; // comment", "%%smid",
]
PATTERNS = [
    (r"(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<value>\d+)", 0),
    (r"^\s*\.reg\s+(\.\w+)", re.MULTILINE),
    (r"abc|def", re.IGNORECASE),
    (r"(?<=%)(\d+)(?!\d)", 0),
    (r"""
        \[ \s* (%\d+) \s* (?: \+ \s* (\d+) )? \s* \]   # an address
     """, re.VERBOSE),
    (r"(?i)membar\.(gl|cta|sys)", 0),
    (r".+", re.DOTALL),
    (r"\bé\b|\u00fc", re.UNICODE),
    (r"(a)|(b)", re.ASCII),
]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    regex_code.uninstall()
    saved = dict(regex_code._programs), set(regex_code._used)
    regex_code._programs.clear()
    regex_code._used.clear()
    yield
    regex_code.uninstall()
    regex_code._programs.clear()
    regex_code._programs.update(saved[0])
    regex_code._used.clear()
    regex_code._used.update(saved[1])


def _same(kept: re.Pattern[str], plain: re.Pattern[str]) -> None:
    assert (kept.pattern, kept.flags, kept.groups, dict(kept.groupindex)) == (
        plain.pattern, plain.flags, plain.groups, dict(plain.groupindex))
    for text in SAMPLES:
        assert [m.span() for m in kept.finditer(text)] == [m.span() for m in plain.finditer(text)]
        assert kept.findall(text) == plain.findall(text)
        assert kept.sub("<\\g<0>>", text) == plain.sub("<\\g<0>>", text)


def test_patterns_from_the_table_are_the_patterns_re_compiles(tmp_path: Path) -> None:
    plain = [re.compile(p, f) for p, f in PATTERNS]
    regex_code.install(str(tmp_path))
    compile_ = re._compiler.compile  # type: ignore[attr-defined]
    assembled = [compile_(p, f) for p, f in PATTERNS]  # re.compile would answer from its cache
    assert regex_code._assembled == len(PATTERNS)
    regex_code.save(str(tmp_path))
    assert regex_code._assembled == 0

    # the next process: the table is read, and the same patterns assemble nothing
    regex_code.uninstall()
    regex_code._programs.clear()
    regex_code.install(str(tmp_path))
    assert len(regex_code._programs) == len(PATTERNS)
    kept = [re._compiler.compile(p, f) for p, f in PATTERNS]  # type: ignore[attr-defined]
    assert regex_code._assembled == 0
    for one, two, three in zip(plain, assembled, kept, strict=True):
        _same(two, one)
        _same(three, one)
    before = (tmp_path / regex_code.file_name()).stat().st_mtime_ns
    regex_code.save(str(tmp_path))  # nothing new: nothing written
    assert (tmp_path / regex_code.file_name()).stat().st_mtime_ns == before
    regex_code.uninstall()
    assert re._compiler.compile is not regex_code._compile  # type: ignore[attr-defined]


def test_errors_bytes_and_debug_go_to_re_itself(tmp_path: Path) -> None:
    regex_code.install(str(tmp_path))
    compile_ = re._compiler.compile  # type: ignore[attr-defined]
    with pytest.raises(re.error):
        compile_("(unclosed", 0)
    assert compile_(rb"a+", 0).match(b"aa")
    assert not regex_code._programs


@pytest.mark.parametrize(
    "content", [b"", b"not marshal", b"\xe3\x00\x01", None], ids=["empty", "garbage", "cut", "other"]
)
def test_a_table_it_cannot_use_is_ignored(tmp_path: Path, content: bytes | None) -> None:
    import marshal

    if content is None:  # another interpreter's table
        content = marshal.dumps(("2.7.18 (other)", {("a", 0): (0, [1, 2], 0, {}, (None,))}))
    (tmp_path / regex_code.file_name()).write_bytes(content)
    regex_code.install(str(tmp_path))
    assert not regex_code._programs
    pattern = re._compiler.compile(r"(?P<x>\d+)", 0)  # type: ignore[attr-defined]
    assert pattern.match("42").group("x") == "42"


def test_what_cannot_be_written_costs_nothing(tmp_path: Path) -> None:
    assert not kept_table.write(str(tmp_path), "x", {"a": object()}, set(), 10)  # not marshallable
    blocker = tmp_path / "file"
    blocker.write_text("")
    regex_code.install(str(blocker / "below"))
    re._compiler.compile(r"x+y", 0)  # type: ignore[attr-defined]
    regex_code.save(str(blocker / "below"))  # a file where the folder should be
    assert not (blocker / "below").exists()


def test_every_pattern_of_a_run_is_the_pattern_re_compiles(tmp_path: Path) -> None:
    """The table a real run writes holds every pattern ptxlint's modules compile: each, built
    from the table, behaves as ``re.compile`` builds it. A second run assembles nothing and
    leaves the table alone; ``main(argv)`` leaves a host's ``re`` as it was."""
    import _sre

    from ptxlint.cli import main

    small = tmp_path / "small.cu"
    small.write_text('__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }\n')
    assert main(["check", str(small), "--no-cache"]) == 0
    assert re._compiler.compile is not regex_code._compile  # type: ignore[attr-defined]

    env = dict(os.environ, PTXLINT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-m", "ptxlint", "check", str(small), "--no-cache"]
    assert subprocess.run(command, env=env, capture_output=True, check=False).returncode == 0
    path = tmp_path / "cache" / regex_code.file_name()
    table = kept_table.read(str(tmp_path / "cache"), regex_code.PREFIX)
    assert len(table) > 100
    for (pattern, flags), program in table.items():
        _same(_sre.compile(pattern, *program), re.compile(pattern, flags))
    written = path.stat().st_mtime_ns
    assert subprocess.run(command, env=env, capture_output=True, check=False).returncode == 0
    assert path.stat().st_mtime_ns == written  # the second run assembled nothing new


def test_internals_that_take_other_arguments_give_re_its_own_step_back(tmp_path: Path) -> None:
    """A new interpreter whose engine takes other arguments: the first compile still answers,
    re gets its own step back, and no table is written."""
    regex_code.install(str(tmp_path))
    compiler, parse, assemble, _ = regex_code._steps_in_use  # type: ignore[misc]

    def engine(*args: object) -> None:
        raise TypeError("compile() takes exactly 7 arguments")

    regex_code._steps_in_use = (compiler, parse, assemble, engine)
    pattern = re._compiler.compile(r"(?P<n>\d+)", 0)  # type: ignore[attr-defined]
    assert pattern.match("12").group("n") == "12"
    assert re._compiler.compile is not regex_code._compile  # type: ignore[attr-defined]
    regex_code.save(str(tmp_path))
    assert not (tmp_path / regex_code.file_name()).exists()
