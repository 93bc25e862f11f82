"""What `ptxlint check` on one small file would cost if a resident process did the work.

    python benchmarks/resident_probe.py [--python PY] [--repeat N]

A goal once set was one small file in at most 5x ``python -c pass``. The command's own process
cannot get there: importing the standard library modules and tree-sitter alone is about 4.5x
(measured). This probe measures the other design before anyone builds it. A throwaway server
imports ptxlint and runs ``cli.main`` for each request on a Unix socket. A client of a dozen
lines (socket, json) sends it argv and the working folder, and prints what comes back. The
figures are the best of ``--repeat`` runs of each on ``bench.SMALL``, in wall time
(``bench.best``, as bench.py's start-up rows):
- ``python -c pass``;
- ``ptxlint check small.cu --no-cache`` as a command;
- the same through the client, with and without ``site``.

``--python``: the interpreter of an environment where ptxlint is pip-installed. An editable
install's import hook adds about 8 ms to every start, the baseline's too. This checkout is
used when none is given. It is a probe, not a feature: the server has no authentication,
configuration reload, version check or shutdown, and runs one request at a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from bench import SMALL, best  # noqa: E402  (bench.py's start-up file and timing)

SERVER = r"""
import contextlib, io, json, os, socket, sys
from ptxlint.cli import main
path = sys.argv[1]
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(4)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    data = b""
    while not data.endswith(b"\n"):
        data += conn.recv(65536)
    request = json.loads(data)
    out, err = io.StringIO(), io.StringIO()
    os.chdir(request["cwd"])
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(request["argv"]) or 0
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
    reply = {"rc": rc, "out": out.getvalue(), "err": err.getvalue()}
    conn.sendall(json.dumps(reply).encode() + b"\n")
    conn.close()
"""

CLIENT = r"""
import json, os, socket, sys
conn = socket.socket(socket.AF_UNIX)
conn.connect(os.environ["PTXLINT_PROBE_SOCKET"])
conn.sendall(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}).encode() + b"\n")
data = b""
while not data.endswith(b"\n"):
    chunk = conn.recv(65536)
    if not chunk:
        break
    data += chunk
reply = json.loads(data)
sys.stdout.write(reply["out"])
sys.stderr.write(reply["err"])
sys.exit(reply["rc"])
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    python = args.python
    with tempfile.TemporaryDirectory() as folder:
        small = os.path.join(folder, "small.cu")
        with open(small, "w", encoding="utf-8") as handle:
            handle.write(SMALL)
        server_py = os.path.join(folder, "server.py")
        client_py = os.path.join(folder, "client.py")
        for path, text in ((server_py, SERVER), (client_py, CLIENT)):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        socket_path = os.path.join(folder, "sock")
        env = dict(os.environ, PTXLINT_CACHE_DIR=os.path.join(folder, "cache"))
        env["PTXLINT_PROBE_SOCKET"] = socket_path
        if args.python == sys.executable:  # this checkout, not an installed ptxlint
            env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
        check = ["check", small, "--no-cache"]
        command = [python, "-m", "ptxlint", *check]
        subprocess.run(command, env=env, capture_output=True)  # the first run writes caches
        server = subprocess.Popen(
            [python, server_py, socket_path], env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None and server.stdout.readline().strip() == "ready"
            rows = [
                ("python -c pass", [python, "-c", "pass"]),
                ("ptxlint check small.cu", command),
                ("the same through the server", [python, client_py, *check]),
                ("  its client without site", [python, "-S", client_py, *check]),
            ]
            base = best(rows[0][1], env, args.repeat)[0]
            for label, row in rows:
                seconds = best(row, env, args.repeat)[0]
                print(f"{label:30} {1000 * seconds:6.1f} ms = {seconds / base:4.1f}x")
        finally:
            server.kill()
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
