"""The rule plugins' entry points, read straight from the metadata folders, are the ones
importlib.metadata finds, in its order; layouts it alone reads go to it."""

from __future__ import annotations

import importlib
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from ptxlint import entry_point_files, registry

GROUP = registry.ENTRY_POINT_GROUP


def _dist(folder: Path, name: str, entry_points: str | None) -> Path:
    info = folder / name
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name.partition('-')[0]}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


def _metadata_answer(group: str) -> list[tuple[str, str]]:
    importlib.invalidate_caches()  # importlib.metadata keeps each folder's listing by mtime
    return [(ep.name, ep.value) for ep in metadata.entry_points(group=group)]


@pytest.fixture
def path_of(tmp_path, monkeypatch):
    """Put the given folders first on sys.path (created under tmp_path)."""

    def put(*names: str) -> list[Path]:
        folders = [tmp_path / name for name in names]
        monkeypatch.setattr(sys, "path", [str(f) for f in folders] + sys.path)
        return folders

    return put


def test_the_group_is_read_as_importlib_metadata_reads_it(tmp_path, path_of):
    first, second, _missing = path_of("first", "second", "missing")
    _dist(first, "Acme.Rules-1.0.dist-info", (
        "# a comment\n\n[console_scripts]\nacme = acme.cli:main\n\n"
        "[ptxlint.rules]\n  pack =  acme.rules:RULES  \nmore=acme.more:CLASSES [extra]\n"
        "weird = a=b\nsemi = acme.semi:X ; not a comment\n"
    ))
    _dist(first, "plain-2.0.dist-info", None)  # no entry_points.txt
    (first / "legacy-0.1-py3.11.egg-info").write_text("Metadata-Version: 1.0\n")  # a file
    _dist(first, "old_style.egg-info", "[ptxlint.rules]\r\nold = old_style:R\r\n")
    _dist(first, "brackets-1.dist-info", "[[ptxlint.rules]]\nbr = b:R\n")
    _dist(first, "before-1.dist-info", "stray = x:y\n[ptxlint.rules]\nafter = a:R\n")
    # the same distribution again, later on the path: importlib reads only the first
    _dist(second, "acme_rules-0.9.dist-info", "[ptxlint.rules]\nstale = acme.old:RULES\n")
    _dist(second, "other-1.0.dist-info", "[ptxlint.rules]\nother = other:RULES\n")

    for group in (GROUP, "console_scripts"):
        direct = entry_point_files.read_group(group)
        assert direct is not None
        assert direct == _metadata_answer(group)
    found = dict(entry_point_files.read_group(GROUP) or [])
    assert found["pack"] == "acme.rules:RULES" and found["weird"] == "a=b"
    assert "stale" not in found and {"old", "br", "after", "other"} <= set(found)
    assert ("builtin", "ptxlint_rules:BUILTIN_RULES") in (entry_point_files.read_group(GROUP) or [])


def test_a_plugin_installed_edited_or_removed_between_runs_is_seen(tmp_path, path_of):
    [site] = path_of("site")
    site.mkdir()
    assert not any(name == "late" for name, _ in registry.entry_points())
    info = _dist(site, "late_rules-1.0.dist-info", "[ptxlint.rules]\nlate = late_rules:RULES\n")
    assert ("late", "late_rules:RULES") in registry.entry_points()
    # edited in place: the folder's own time need not change
    (info / "entry_points.txt").write_text("[ptxlint.rules]\nlate = late_rules.v2:RULES\n")
    assert ("late", "late_rules.v2:RULES") in registry.entry_points()
    (info / "entry_points.txt").unlink()
    assert not any(name == "late" for name, _ in registry.entry_points())


def _not_modelled_layouts(root: Path) -> list[str]:
    """Layouts for which the direct reading defers to importlib.metadata (one per folder)."""
    upper = root / "upper"
    _dist(upper, "Shouty-1.0.DIST-INFO", "[ptxlint.rules]\nshouty = shouty:R\n")
    nameless = root / "nameless"
    _dist(nameless, "-1.0.dist-info", "[ptxlint.rules]\nnameless = nameless:R\n")
    malformed = root / "malformed"
    _dist(malformed, "broken-1.0.dist-info", "[ptxlint.rules]\nno equals sign here\n")
    egg = root / "legacy-1.0.egg"
    (egg / "EGG-INFO").mkdir(parents=True)
    (egg / "EGG-INFO" / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: legacy\n")
    (egg / "EGG-INFO" / "entry_points.txt").write_text("[ptxlint.rules]\negg = legacy:R\n")
    archive = root / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[ptxlint.rules]\nzipped = z:R\n")
    undecodable = root / "undecodable"
    info = _dist(undecodable, "latin-1.0.dist-info", None)
    (info / "entry_points.txt").write_bytes(b"[ptxlint.rules]\ncaf\xe9 = latin:R\n")
    return [str(p) for p in (upper, nameless, malformed, egg, archive, undecodable)]


def test_layouts_it_does_not_model_are_read_by_importlib_metadata(tmp_path, monkeypatch):
    original = list(sys.path)
    for folder in _not_modelled_layouts(tmp_path):
        monkeypatch.setattr(sys, "path", [folder, *original])
        assert entry_point_files.read_group(GROUP) is None, folder
        try:
            expected = _metadata_answer(GROUP)
        except Exception as exc:  # noqa: BLE001 - the same error is the answer
            with pytest.raises(type(exc)):
                registry.entry_points()
        else:
            assert registry.entry_points() == expected, folder


def test_another_distribution_finder_is_asked_through_importlib_metadata(monkeypatch):
    class Finder:
        @staticmethod
        def find_spec(*_args: object, **_kwargs: object) -> None:
            return None

        @staticmethod
        def find_distributions(*_args: object, **_kwargs: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert entry_point_files.read_group(GROUP) is None
    assert registry.entry_points() == _metadata_answer(GROUP)


def test_a_malformed_file_that_does_not_name_the_group_is_passed_over(tmp_path, path_of):
    [site] = path_of("site")
    _dist(site, "careless-1.0.dist-info", "[console_scripts]\nno equals sign here\n")
    _dist(site, "fine-1.0.dist-info", "[ptxlint.rules]\nfine = fine:R\n")
    with pytest.raises(TypeError):  # importlib.metadata fails for every group
        _metadata_answer(GROUP)
    assert ("fine", "fine:R") in (entry_point_files.read_group(GROUP) or [])


def test_loading_the_rules_does_not_import_importlib_metadata():
    code = ("import sys\nfrom ptxlint.registry import load_rules\n"
            "assert load_rules().rules\nprint('importlib.metadata' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(registry.__file__).parent.parent)
    assert out.stdout.strip() == "False"


def test_the_no_rules_error_names_the_entry_points_it_looked_at(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert registry.describe_entry_points() == f"no entry points in group {GROUP!r}"
    _dist(tmp_path, "mine-1.0.dist-info", "[ptxlint.rules]\nmine = mine_rules:RULES\n")
    assert registry.describe_entry_points() == "mine = mine_rules:RULES"
