"""The docs name only things that exist: every ref the README gives for the Action or the
pre-commit hook is a commit or tag of this repository that has them; the release steps keep the
versions equal; the README's test section says what the first run costs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint import __version__
from ptxlint.project import REPOSITORY_URL

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "RELEASING.md", ROOT / ".pre-commit-hooks.yaml",
        *sorted((ROOT / "docs").glob("*.md"))]
OWNER_REPO = REPOSITORY_URL.removeprefix("https://github.com/")


def _refs() -> list[tuple[Path, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        found += [(doc, m) for m in re.findall(rf"{re.escape(OWNER_REPO)}@([0-9A-Za-z][\w.\-]*)", text)]
        found += [(doc, m) for m in re.findall(r"^\s*rev:\s*([0-9A-Za-z][\w.\-]*)", text, re.M)]
    return found


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          timeout=60)


def test_docs_have_no_placeholders() -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        assert "<owner>" not in text and "<this repository" not in text, doc.name
    assert _refs(), "the README shows how to pin the Action and the hook"


def test_every_documented_ref_exists_and_has_the_action_and_hook() -> None:
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout (an sdist): refs cannot be checked")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("shallow clone: older commits are not here")
    for doc, ref in _refs():
        if re.fullmatch(r"[0-9a-f]{40}", ref):
            commit = _git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
            assert commit.returncode == 0, f"{doc.name}: commit {ref} is not in this repository"
            assert _git("merge-base", "--is-ancestor", ref, "HEAD").returncode == 0, (
                f"{doc.name}: {ref} is not in HEAD's history (rewritten by a rebase?)"
            )
        else:
            tag = _git("rev-parse", "--verify", "-q", f"refs/tags/{ref}^{{commit}}")
            assert tag.returncode == 0, (
                f"{doc.name}: names {ref}, which is not a tag of this repository (see "
                "RELEASING.md: tag first, then document it)"
            )
        for needed in ("action.yml", ".pre-commit-hooks.yaml"):
            shown = _git("cat-file", "-e", f"{ref}:{needed}")
            assert shown.returncode == 0, f"{doc.name}: {ref} has no {needed}"
        hooks = _git("show", f"{ref}:.pre-commit-hooks.yaml").stdout
        assert "id: ptxlint" in hooks and "--force-exclude" in hooks


def test_versions_agree_and_the_release_steps_tag_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__
    assert project["license"] == "Apache-2.0"
    releasing = (ROOT / "RELEASING.md").read_text(encoding="utf-8")
    assert "git tag -a vX.Y.Z" in releasing and "ptxlint/__init__.py" in releasing


def test_readme_test_section_says_what_the_first_run_costs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- test-timing -->", 1)[1].split("<!-- /test-timing -->", 1)[0]
    assert re.search(r"first run\s.*?\stakes (about )?\d+ min", section, re.S), section
    for cache in ("~/.cache/ptxlint/", "`tests/`", "$PTXLINT_TEST_CACHE", "`verify/`",
                  "`results/`", "$PTXLINT_CACHE_DIR"):
        assert cache in section
