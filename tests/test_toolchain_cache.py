"""The test oracle's cache (tests/toolchain_cache.py): a verdict is reused only while everything
the run read is unchanged, the headers a probe names included.

The "tool" here is this Python: a run prints the header it reads and counts itself in a log, so
a test sees both what came back and whether the tool ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import toolchain_cache
from tests.toolchain_cache import INPUT, run_cached

# reads the input and a header beside it (a stand-in written with `files`) or in a folder
_TOOL = ("import pathlib, sys; pathlib.Path(sys.argv[2]).open('a').write('ran\\n'); "
         "print(open(sys.argv[1]).read() + open(sys.argv[3]).read())")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXLINT_TEST_CACHE", str(tmp_path / "cache"))
    toolchain_cache.content_digest.cache_clear()


def _run(log: Path, header: Path, inputs: tuple[str, ...]) -> str:
    return run_cached(sys.executable, ["-c", _TOOL, INPUT, str(log), str(header)], "probe;",
                      inputs=inputs).stdout


def test_a_changed_header_in_a_named_folder_runs_again(tmp_path: Path) -> None:
    include = tmp_path / "include"
    (include / "sub").mkdir(parents=True)
    header, log = include / "sub" / "h.cuh", tmp_path / "log"
    header.write_text("v1")
    assert _run(log, header, (str(include),)) == "probe;v1\n"
    assert _run(log, header, (str(include),)) == "probe;v1\n"
    assert log.read_text().count("ran") == 1  # the second answer came from the cache
    header.write_text("v2")
    toolchain_cache.content_digest.cache_clear()  # a new test session
    assert _run(log, header, (str(include),)) == "probe;v2\n"
    assert log.read_text().count("ran") == 2


def test_without_inputs_the_key_is_the_probe_text_alone(tmp_path: Path) -> None:
    header, log = tmp_path / "h.cuh", tmp_path / "log"
    header.write_text("v1")
    assert _run(log, header, ()) == "probe;v1\n"
    header.write_text("v2")
    assert _run(log, header, ()) == "probe;v1\n"  # why probes of corpus headers name them
    assert _run(log, header, (str(header),)) == "probe;v2\n"  # a single file works too


def test_files_are_written_beside_the_input_and_keyed(tmp_path: Path) -> None:
    log = tmp_path / "log"

    def run(text: str) -> str:
        return run_cached(sys.executable, ["-c", _TOOL, INPUT, str(log), "stub.h"], "probe;",
                          files={"stub.h": text}).stdout

    assert run("") == "probe;\n"
    assert run("// two") == "probe;// two\n"
    assert run("") == "probe;\n"
    assert log.read_text().count("ran") == 2


def test_a_missing_input_is_keyed_as_missing(tmp_path: Path) -> None:
    assert toolchain_cache.content_digest(str(tmp_path / "nowhere")) == "missing"
