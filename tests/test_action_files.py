"""action.yml, the example code-scanning workflow and .pre-commit-hooks.yaml."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

yaml = pytest.importorskip("yaml")

ACTION = Path(ROOT, "action.yml")
WORKFLOW = Path(ROOT, ".github", "workflows", "code-scanning.yml")
HOOKS = Path(ROOT, ".pre-commit-hooks.yaml")
EXPECTED_INPUTS = {"paths", "args", "sarif-file", "upload", "category", "fail-on", "annotations",
                   "python-version"}


def load(path: Path) -> object:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def action() -> dict:
    data = load(ACTION)
    assert isinstance(data, dict)
    return data


def step(name_part: str) -> dict:
    matches = [s for s in action()["runs"]["steps"] if name_part in s.get("name", "")]
    assert len(matches) == 1, name_part
    return matches[0]


def check_step() -> dict:
    (only,) = [s for s in action()["runs"]["steps"] if s.get("id") == "check"]
    return only


# --------------------------------------------------------------------------- action.yml


def test_action_is_a_composite_action_with_documented_inputs():
    data = action()
    assert data["name"] and data["description"]
    assert data["runs"]["using"] == "composite"
    inputs = data["inputs"]
    assert set(inputs) >= EXPECTED_INPUTS
    for name, spec in inputs.items():
        assert spec.get("description", "").strip(), f"input {name} is undocumented"
        assert "default" in spec, f"input {name} has no default"
    assert inputs["fail-on"]["default"] == "warning"
    assert inputs["upload"]["default"] == "false"
    for spec in data["outputs"].values():
        assert spec["description"] and spec["value"]


def test_action_installs_ptxlint_from_its_own_path_in_its_own_venv():
    install = step("Install")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert 'pip install' in install["run"] and '"$ACTION_PATH"' in install["run"]
    assert '-m venv "$venv"' in install["run"] and "$RUNNER_TEMP" in install["run"]
    assert "python -m pip" not in install["run"]  # never into the caller's interpreter
    setup = step("Set up Python")
    assert setup["with"]["update-environment"] is False  # the job's PATH stays the caller's
    for s in action()["runs"]["steps"]:
        if "ptxlint check" in s.get("run", ""):
            # isolated: the workspace (the checkout being linted) is never on sys.path
            assert '"$PTXLINT_PYTHON" -I -m ptxlint' in s["run"], s["name"]
            assert s["env"]["PTXLINT_PYTHON"] == "${{ steps.install.outputs.python }}"


SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _uses(path: Path) -> list[str]:
    data = load(path)
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "uses" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    return found


def test_every_action_is_pinned_by_commit_sha():
    workflows = sorted(Path(ROOT, ".github", "workflows").glob("*.yml"))
    assert workflows
    for path in [ACTION, *workflows]:
        for uses in _uses(path):
            if uses.startswith("./"):
                continue
            assert SHA_PIN.match(uses), f"{path.name}: {uses} is not pinned by a commit SHA"
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"uses: [^.].*@[0-9a-f]{40}", line):
                assert re.search(r"#\s*v\d", line), f"{path.name}: say which version: {line}"


def test_workflows_have_permissions_and_run_once_per_pull_request():
    for path in sorted(Path(ROOT, ".github", "workflows").glob("*.yml")):
        data = load(path)
        assert data.get("permissions") == {"contents": "read"}, path.name
        for name, job in data["jobs"].items():
            assert "permissions" in job, f"{path.name}: job {name} has no permissions block"
        triggers = data.get("on", data.get(True))
        if "pull_request" in triggers and "push" in triggers:
            # a bare `push:` fires for a pull request's branch as well: twice per update
            assert triggers["push"] and triggers["push"].get("branches"), path.name


def test_action_writes_sarif_and_uploads_only_when_asked():
    check = check_step()
    assert "--format sarif" in check["run"] and '--output "$PTXLINT_SARIF"' in check["run"]
    upload = step("Upload")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "# v4." in ACTION.read_text(encoding="utf-8").split("upload-sarif@", 1)[1].split("\n")[0]
    assert '--sarif-category "$PTXLINT_CATEGORY"' in check["run"]
    assert "inputs.upload == 'true'" in upload["if"]
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"


def test_action_scripts_take_inputs_from_the_environment_only():
    # ${{ inputs.x }} spliced into a script is a shell-injection hole; env vars are not.
    data = action()
    for s in data["runs"]["steps"]:
        assert "${{" not in s.get("run", ""), s.get("name")
    referenced = set(re.findall(r"inputs\.([a-z-]+)", ACTION.read_text(encoding="utf-8")))
    assert referenced <= set(data["inputs"])


def test_action_check_step_runs(tmp_path):
    """Run the action's SARIF step script locally against fixtures/ (needs bash and the
    --format sarif choice in the CLI)."""
    from ptxlint import cli

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            cli.build_parser().parse_args(["check", "--format", "sarif"])
        wired = True
    except SystemExit:
        wired = False
    if not wired or shutil.which("bash") is None:
        pytest.skip("`--format sarif` is not wired into the CLI yet, or no bash")
    out = tmp_path / "github_output"
    sarif = tmp_path / "out.sarif"
    env = {
        **os.environ,
        "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
        "GITHUB_OUTPUT": str(out),
        "PTXLINT_PATHS": "fixtures",
        "PTXLINT_ARGS": "--select PTX001,PTX008",
        "PTXLINT_SARIF": str(sarif),
        "PTXLINT_FAIL_ON": "warning",
        "PTXLINT_CATEGORY": "ptxlint-fixtures",
        "PTXLINT_PYTHON": sys.executable,
    }
    script = check_step()["run"]
    done = subprocess.run(["bash", "-e", "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().split())
    assert outputs == {"exit-code": "1", "sarif-written": "true"}
    import json

    run = json.loads(sarif.read_text())["runs"][0]
    assert {r["ruleId"] for r in run["results"]} == {"PTX001", "PTX008"}
    assert run["automationDetails"]["id"] == "ptxlint-fixtures/"


# --------------------------------------------------------------------------- the workflow


def test_code_scanning_workflow_uses_the_action_and_cannot_fail_on_findings():
    data = load(WORKFLOW)
    assert isinstance(data, dict)
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers and "push" in triggers
    (job,) = data["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    (lint,) = [s for s in job["steps"] if s.get("uses") == "./"]
    assert "fixtures" in lint["with"]["paths"].split()
    assert lint["with"].get("fail-on") == "never" or lint.get("continue-on-error") is True
    assert set(lint["with"]) <= set(action()["inputs"])
    assert any(str(s.get("uses", "")).startswith("actions/checkout@") for s in job["steps"])


# --------------------------------------------------------------------------- pre-commit


def hook() -> dict:
    data = load(HOOKS)
    assert isinstance(data, list)
    (only,) = data
    return only


def test_pre_commit_hook_manifest():
    h = hook()
    assert h["id"] == "ptxlint" and h["name"]
    assert h["language"] == "python"
    assert h["entry"] == "ptxlint check --force-exclude"
    # the hook names what a walk of a folder lints: every default extension, nothing else
    from ptxlint.run.discover import DEFAULT_EXTENSIONS

    assert h["files"] == r"\.(" + "|".join(e[1:] for e in DEFAULT_EXTENSIONS) + ")$"


def _repo_files() -> list[str]:
    files = []
    for base in ("fixtures", "tests", "ptxlint"):
        for path in sorted(Path(ROOT, base).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files.append(path.relative_to(ROOT).as_posix())
    return files


def run_hook(files: list[str]) -> subprocess.CompletedProcess[str]:
    """What pre-commit does: the entry, with the staged files matching `files` appended."""
    h = hook()
    argv = shlex.split(h["entry"])
    assert argv[0] == "ptxlint"  # the console script; run the same code through -m here
    command = [sys.executable, "-m", "ptxlint", *argv[1:], *files]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_pre_commit_files_regex_selects_cuda_cpp_and_python_sources():
    pattern = re.compile(hook()["files"])
    chosen = [f for f in _repo_files() if pattern.search(f)]
    assert "fixtures/rules/PTX001_bad.cu" in chosen
    assert "fixtures/example-triton/triton_kernels.py" in chosen
    assert not [f for f in chosen if f.endswith((".json", ".md", ".toml", ".cu.orig"))]
    for name in ("a.cu", "a.cuh", "b.h", "b.hpp", "b.hh", "b.hxx", "c.inl", "c.hpp.inc", "d.cc",
                 "d.cpp", "d.cxx", "e.c", "k.py", "k.jl"):
        assert pattern.search(name), name
    for name in ("a.cu.bak", "a.pyc", "a.pyi", "Makefile", "a.cmake"):
        assert not pattern.search(name), name


CLEAN = """\
__device__ unsigned add(unsigned a, unsigned b) {
    unsigned d;
    asm("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
"""


def test_pre_commit_entry_fails_on_a_bad_fixture_and_passes_clean_code(tmp_path):
    pattern = re.compile(hook()["files"])
    bad = [f for f in _repo_files() if pattern.search(f) and f.endswith("PTX001_bad.cu")]
    done = run_hook(bad)
    assert done.returncode == 1, done.stderr
    assert "PTX001" in done.stdout
    (tmp_path / "add.cu").write_text(CLEAN)
    (tmp_path / "host.cpp").write_text("int main() { return 0; }\n")
    clean = [str(p) for p in sorted(tmp_path.iterdir()) if pattern.search(p.name)]
    assert len(clean) == 2
    done = run_hook(clean)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(
    os.environ.get("PTXLINT_TEST_PRECOMMIT") != "1" or shutil.which("pre-commit") is None
    or shutil.which("git") is None,
    reason="set PTXLINT_TEST_PRECOMMIT=1 with pre-commit and git on PATH: try-repo builds a "
    "virtualenv from PyPI (about 30 s, needs the network)",
)
def test_pre_commit_try_repo_on_a_fixture(tmp_path):
    repo = tmp_path / "user-repo"
    repo.mkdir()
    shutil.copy(Path(ROOT, "fixtures", "rules", "PTX001_bad.cu"), repo / "kernel.cu")
    (repo / "notes.txt").write_text("not CUDA\n")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=repo, check=True)
    done = subprocess.run(
        ["pre-commit", "try-repo", ROOT, "ptxlint", "--all-files"], cwd=repo,
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "kernel.cu:4:24: PTX001" in done.stdout
    assert "notes.txt" not in done.stdout


def test_pre_commit_honours_exclude_for_the_files_it_names(tmp_path):
    """pre-commit passes every staged file by name; with --force-exclude in the hook's entry,
    `exclude` in the user's configuration still applies to them."""
    (tmp_path / "vendor").mkdir()
    shutil.copy(Path(ROOT, "fixtures", "rules", "PTX001_bad.cu"), tmp_path / "vendor" / "k.cu")
    shutil.copy(Path(ROOT, "fixtures", "rules", "PTX001_bad.cu"), tmp_path / "mine.cu")
    (tmp_path / "ptxlint.toml").write_text('exclude = ["vendor/"]\n')
    argv = shlex.split(hook()["entry"])
    done = subprocess.run([sys.executable, "-m", "ptxlint", *argv[1:], "vendor/k.cu", "mine.cu"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr
    assert "mine.cu" in done.stdout and "vendor/k.cu" not in done.stdout
