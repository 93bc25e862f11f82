"""What a maintainer ships: the wheel and sdist contents, and ptxlint beside PyPI's django-rules.

The built-in rules install as ``ptxlint_rules``: PyPI's ``rules`` (django-rules) owns the
top-level name ``rules``, and when both claimed it, whichever was installed second replaced the
other's modules (ptxlint then loaded 0 rules and passed everything). This test builds the wheel
and sdist, installs ptxlint and django-rules in one throwaway virtual environment in both orders,
and checks that both packages still work. It needs PyPI (the build backend, the dependencies,
django-rules) and skips with a reason when PyPI cannot be reached. About 30 s on 2 cores, most
of it the isolated build; pip's wheel cache makes reinstalls quick.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DJANGO_RULES = "rules==3.5"  # PyPI's django-rules: a top-level package named `rules`


def _pip(python: Path | str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    probe = _pip(sys.executable, "download", "--no-deps", "-q", "-d", str(out / "probe"),
                 DJANGO_RULES, timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"PyPI unreachable (pip download {DJANGO_RULES} failed): "
                    f"{probe.stderr.strip().splitlines()[-1:]}")
    wheel = _pip(sys.executable, "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT))
    assert wheel.returncode == 0, wheel.stderr
    sdist = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    if sdist.returncode != 0 and "No module named build" in sdist.stderr:
        pytest.skip("the `build` package is not installed (pip install -e '.[dev]')")
    assert sdist.returncode == 0, sdist.stderr[-2000:]
    return next(out.glob("ptxlint-*.whl")), next(out.glob("ptxlint-*.tar.gz"))


def test_wheel_contents(dists: tuple[Path, Path]) -> None:
    with zipfile.ZipFile(dists[0]) as whl:
        names = whl.namelist()
        metadata = next(whl.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = next(
            whl.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt")
        )
    tops = {n.split("/", 1)[0] for n in names}
    assert "rules" not in tops, "a top-level `rules` package collides with django-rules"
    assert "ptxlint_rules/__init__.py" in names and "ptxlint_rules/_optimizer.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: Apache-2.0" in metadata
    assert "builtin = ptxlint_rules:BUILTIN_RULES" in entry_points
    assert "ptxlint/py.typed" in names


def test_sdist_contents(dists: tuple[Path, Path]) -> None:
    with tarfile.open(dists[1]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for needed in ("LICENSE", "pyproject.toml", "setup.py", "rules/__init__.py",
                   "fixtures/example/tile_copy.cu", "fixtures/rules/PTX101_bad.cu",
                   "tests/test_rule_fixtures.py", "tests/conftest.py"):
        assert needed in names, f"sdist lacks {needed}"
    # Every fixture the tests read travels with the sdist.
    fixtures = {p.relative_to(ROOT).as_posix() for p in (ROOT / "fixtures").rglob("*")
                if p.is_file()}
    assert fixtures <= names, sorted(fixtures - names)[:5]


def _ptxlint_works(python: Path, cwd: Path) -> None:
    # Run outside the checkout: `python -m`/`-c` put the working directory on sys.path, and
    # the checkout's rules/ folder would shadow the installed packages.
    listed = subprocess.run([str(python), "-m", "ptxlint", "rules"], capture_output=True,
                            text=True, timeout=120, cwd=cwd)
    assert listed.returncode == 0, listed.stderr
    assert "PTX101" in listed.stdout and len(listed.stdout.splitlines()) >= 20
    checked = subprocess.run(
        [str(python), "-m", "ptxlint", "check", "--format", "json", "--no-progress",
         str(ROOT / "fixtures" / "example")],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )
    assert checked.returncode == 1, checked.stderr  # the example holds defects on purpose
    assert '"rule": "PTX001"' in checked.stdout


def _django_rules_works(python: Path, cwd: Path) -> None:
    probe = subprocess.run(
        [str(python), "-c",
         "import rules, rules.predicates; assert hasattr(rules, 'predicate'); "
         "print(rules.__file__)"],
        capture_output=True, text=True, timeout=60, cwd=cwd,
    )
    assert probe.returncode == 0, probe.stderr
    assert "site-packages" in probe.stdout


def test_ptxlint_and_django_rules_both_orders(
    dists: tuple[Path, Path], tmp_path: Path
) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    wheel = str(dists[0])

    # ptxlint first, then django-rules
    for args in (["install", "-q", wheel], ["install", "-q", DJANGO_RULES]):
        done = _pip(python, *args)
        assert done.returncode == 0, done.stderr
    _ptxlint_works(python, tmp_path)
    _django_rules_works(python, tmp_path)

    # django-rules first, then ptxlint (its dependencies are already there)
    done = _pip(python, "uninstall", "-y", "-q", "ptxlint", "rules")
    assert done.returncode == 0, done.stderr
    for args in (["install", "-q", DJANGO_RULES], ["install", "-q", "--no-deps", wheel]):
        done = _pip(python, *args)
        assert done.returncode == 0, done.stderr
    _ptxlint_works(python, tmp_path)
    _django_rules_works(python, tmp_path)
