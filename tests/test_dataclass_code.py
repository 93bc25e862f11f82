"""The command line's kept code for ``dataclasses``' generated methods (``ptxlint.dataclass_code``):
classes made with it behave as classes made without it, a second process compiles nothing, and
a table it cannot use is ignored."""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ptxlint import dataclass_code, kept_table

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    dataclass_code.uninstall()
    saved = dict(dataclass_code._codes), set(dataclass_code._used)
    dataclass_code._codes.clear()
    dataclass_code._used.clear()
    yield
    dataclass_code.uninstall()
    dataclass_code._codes.clear()
    dataclass_code._codes.update(saved[0])
    dataclass_code._used.clear()
    dataclass_code._used.update(saved[1])


def _make() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple[str, ...] = dataclasses.field(default=(), compare=False)

    return Point


def test_classes_behave_the_same_and_a_second_process_compiles_nothing(tmp_path: Path) -> None:
    plain = _make()
    dataclass_code.install(str(tmp_path))
    assert "exec" in vars(dataclasses)
    kept = _make()
    assert dataclass_code._compiled > 0
    for cls in (plain, kept):
        p = cls(1)
        assert repr(p).endswith("Point(x=1, y=2, tags=())")
        assert p == cls(1, 2, ("other",)) and hash(p) == hash(cls(1, 2))
        assert p != cls(1, 3)
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 5  # type: ignore[misc]
        assert dataclasses.replace(p, y=7).y == 7
        assert [f.name for f in dataclasses.fields(p)] == ["x", "y", "tags"]
    # the methods are compiled as dataclasses compiles them: annotations are the types
    assert kept.__init__.__annotations__ == plain.__init__.__annotations__
    assert "_type_x" not in kept.__init__.__annotations__.values()
    assert str(inspect.signature(kept)) == str(inspect.signature(plain))
    dataclass_code.save(str(tmp_path))
    assert (tmp_path / dataclass_code.file_name()).is_file()
    assert dataclass_code._compiled == 0

    # the next process: the table is read, and the same classes compile nothing
    dataclass_code.uninstall()
    dataclass_code._codes.clear()
    dataclass_code.install(str(tmp_path))
    assert dataclass_code._codes
    _make()
    assert dataclass_code._compiled == 0
    before = (tmp_path / dataclass_code.file_name()).stat().st_mtime_ns
    dataclass_code.save(str(tmp_path))  # nothing new: nothing written
    assert (tmp_path / dataclass_code.file_name()).stat().st_mtime_ns == before


@pytest.mark.parametrize(
    "content", [b"", b"not marshal", b"\xe3\x00\x01", None], ids=["empty", "garbage", "cut", "other"]
)
def test_a_table_it_cannot_use_is_ignored(tmp_path: Path, content: bytes | None) -> None:
    import marshal

    path = tmp_path / dataclass_code.file_name()
    if content is None:  # another interpreter's table
        content = marshal.dumps(("2.7.18 (other)", {"def f(): pass": compile("1", "<s>", "exec")}))
    path.write_bytes(content)
    dataclass_code.install(str(tmp_path))
    assert not dataclass_code._codes
    cls = _make()
    assert cls(1) == cls(1) and repr(cls(3)).endswith("Point(x=3, y=2, tags=())")
    assert dataclass_code._compiled > 0


def test_an_unwritable_folder_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    dataclass_code.install(str(blocker / "below"))
    _make()
    dataclass_code.save(str(blocker / "below"))  # a file where the folder should be
    assert not (blocker / "below").exists()


def test_only_the_programs_own_process_installs_it(tmp_path: Path) -> None:
    from ptxlint.cli import main

    small = tmp_path / "small.cu"
    small.write_text('__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }\n')
    assert main(["check", str(small), "--no-cache"]) == 0
    assert "exec" not in vars(dataclasses)  # a host's dataclasses stay as they are

    env = dict(os.environ, PTXLINT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-m", "ptxlint", "check", str(small), "--no-cache"]
    assert subprocess.run(command, env=env, capture_output=True, check=False).returncode == 0
    table = tmp_path / "cache" / dataclass_code.file_name()
    assert table.stat().st_size > 10_000
    written = table.stat().st_mtime_ns
    assert subprocess.run(command, env=env, capture_output=True, check=False).returncode == 0
    assert table.stat().st_mtime_ns == written  # the second run compiled nothing new


def test_a_table_grown_past_its_bound_keeps_what_the_run_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts of classes that an upgrade changed stay useless in the table: once it has more than
    ``MAX_KEPT`` entries, a save keeps only the texts its own run executed."""
    import marshal

    stale = {f"def __create_fn__():\n def f{i}(): pass\n return f{i}":
             compile(f"x{i} = {i}", "<string>", "exec") for i in range(50)}
    (tmp_path / dataclass_code.file_name()).write_bytes(
        marshal.dumps((kept_table.interpreter(), stale)))
    monkeypatch.setattr(dataclass_code, "MAX_KEPT", 40)
    dataclass_code.install(str(tmp_path))
    assert len(dataclass_code._codes) == 50
    _make()
    used = set(dataclass_code._used)
    assert used and not used & stale.keys()
    dataclass_code.save(str(tmp_path))
    _, table = marshal.loads((tmp_path / dataclass_code.file_name()).read_bytes())
    assert set(table) == used


def test_each_interpreter_keeps_its_own_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Pythons sharing the cache folder do not replace each other's table."""
    dataclass_code.install(str(tmp_path))
    _make()
    dataclass_code.save(str(tmp_path))
    mine = tmp_path / dataclass_code.file_name()
    written = mine.stat().st_mtime_ns
    monkeypatch.setattr(kept_table, "interpreter", lambda: "3.99.0 (another build)|0")
    assert dataclass_code.file_name() != mine.name
    dataclass_code.uninstall()
    dataclass_code._codes.clear()
    dataclass_code.install(str(tmp_path))
    assert not dataclass_code._codes  # not the other interpreter's table
    _make()
    dataclass_code.save(str(tmp_path))
    assert mine.stat().st_mtime_ns == written
    assert len(list(tmp_path.glob("dataclass-code-*.marshal"))) == 2
