"""The bad-input table of issue 13: each row is an input an attacker or an unlucky user gives
ptxlint, and what must happen (a clear message and exit 2, never a traceback, never a command
run, bounded time). Toolchain rows skip without nvcc/ptxas."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.verify import discover

ROOT = Path(__file__).resolve().parent.parent
toolchain = discover()
needs_cuda = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)


def ptxlint(*args: str | bytes, cwd: Path | str | None = None, timeout: float = 120,
            env: dict[str, str] | None = None, stdin: bytes | None = None,
            ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ptxlint", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


# --------------------------------------------------------------------------- 1. injection

# A kernel whose findings need all three compiles that name the user's file: a whole-file
# compile (PTX010), the differential pair (PTX101) and the .cu probe (PTX004); its include is
# found through the user's folder.
KERNEL = """#include "helper.h"
enum Stages { kStages = 4 };
__global__ void k(unsigned *out, double d) {
  unsigned t;
  asm("mov.u32 %0, %%clock;" : "=r"(t));
  out[0] = t + HELPER;
  asm volatile("cp.async.wait_group %0;" :: "n"(kStages));
  asm volatile("mov.b32 %0, %0;" : "+r"(d));
}
"""
NASTY_NAMES = [b"$(touch PWNED1).cu", b"`touch PWNED2`.cu", b"a;touch PWNED3;.cu",
               b"q\"uote's.cu", b"sp ace.cu", b"new\nline.cu", b"bad\xff\xfebyte.cu"]


@needs_cuda
def test_verify_runs_no_command_named_in_a_file_or_folder_name(tmp_path):
    folder = tmp_path / "src$(touch PWNED_DIR)`touch PWNED_TICK`"
    folder.mkdir()
    (folder / "helper.h").write_text("#define HELPER 1\n")
    for name in NASTY_NAMES:
        (folder / os.fsdecode(name)).write_text(KERNEL)
    before = sorted(os.listdir(os.fsencode(tmp_path))) + sorted(os.listdir(os.fsencode(folder)))
    done = ptxlint("check", "--verify", "--no-verify-cache", "--format", "json",
                   "--no-compile-commands", ".", cwd=folder, timeout=600)
    after = sorted(os.listdir(os.fsencode(tmp_path))) + sorted(os.listdir(os.fsencode(folder)))
    assert after == before, "a file name ran a command"
    assert done.returncode == 1, done.stderr.decode(errors="replace")
    report = json.loads(done.stdout.decode("utf-8", "surrogateescape"))
    verdicts = {(f["rule"], f.get("verification", {}).get("status")) for f in report["findings"]}
    # every file was really compiled: the whole file (PTX010) and the .cu probe (PTX004)
    # confirmed, whatever its name
    per_file: dict[str, set[str]] = {}
    for f in report["findings"]:
        per_file.setdefault(f["path"], set()).add(
            f"{f['rule']}:{f.get('verification', {}).get('status')}")
    assert len(per_file) == len(NASTY_NAMES), per_file
    for path, seen in per_file.items():
        assert {"PTX010:confirmed", "PTX004:confirmed"} <= seen, (path, seen, verdicts)


def test_flags_with_shell_syntax_are_refused_not_run():
    from ptxlint.verify import differential, runner, scratch, whole_file

    with pytest.raises(runner.UnsafeArgument):
        whole_file.compile_job("nvcc", "ptxas", "sm_90", "k.cu", "", "sm_90", ["-DX=$(id)"])
    with pytest.raises(runner.UnsafeArgument):
        differential.compile_job("nvcc", "k.cu", "", "sm_90", ["-I`id`"])
    job = whole_file.compile_job("nvcc", None, None, "/tmp/x$(id)/k`id`.cu", "", "sm_90", [])
    assert all(runner.shell_inert(a) for a in job.args)
    assert job.files[0][0] == scratch.SOURCE_NAME
    assert job.files[0][1].startswith(f'#line 1 "{scratch.ALIAS}"')
    assert job.links == ((scratch.FOLDER_LINK, "/tmp/x$(id)"),)
    # the runner refuses any command that would reach a shell with shell syntax
    out = runner._execute(runner.Compile(("true", "a$(id)"), ()))
    assert out.returncode == -1 and "refused" in out.stderr
