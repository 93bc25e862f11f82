"""Time from ``didChange`` to ``publishDiagnostics`` in ``ptxlint lsp``.

    python benchmarks/lsp_latency.py [--lines 5000] [--asm 200] [--changes 40] [--debounce-ms 150]
    python benchmarks/lsp_latency.py --file HEADER [--changes 40] [--debounce-ms 0]

A generated .cu file (``--lines`` lines, ``--asm`` asm statements, a few of them defective) is
opened in a real server process over stdio; then ``--changes`` edits are sent one at a time,
each waiting for the diagnostics of its version. Every edit flips an operand index inside one asm
template (``%1`` <-> ``%3``), so the diagnostics really change. The time includes the debounce
(``--debounce-ms``; run with 0 to see the lint alone), the JSON-RPC round trip and the
conversion to LSP positions. Nothing is asserted; the numbers are printed.

``--file``: a real file instead (a copy is opened). Each edit flips ``%0`` <-> ``%9`` in the
template line of a statement, a different statement every second edit, spread over the
file. Some edits there take the full lint (near a word that a file-wide decision reads, or in
an ``#if`` branch): the p95 shows them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ASM = '    asm volatile("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));  // asm {n}'
FILLER = "  d = d * 3u + {n}u;  // plain C++ between the asm statements ({n})"


def generate(lines: int, statements: int) -> tuple[str, list[int]]:
    """The file's text and the 0-based lines of its asm statements."""
    every = max(1, lines // statements)
    body: list[str] = []
    asm_lines: list[int] = []
    body.append("__device__ unsigned kernel_body(unsigned a, unsigned b) {")
    body.append("  unsigned d = 0;")
    n = 0
    while len(body) < lines - 2:
        if (len(body) - 2) % every == 0 and len(asm_lines) < statements:
            asm_lines.append(len(body))
            body.append(ASM.format(n=n))
        else:
            body.append(FILLER.format(n=n))
        n += 1
    body.extend(["  return d;", "}"])
    return "\n".join(body) + "\n", asm_lines


class Server:
    def __init__(self, command: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.stdin.flush()

    def read(self) -> dict[str, Any]:
        length = 0
        while (line := self.stdout.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(self.stdout.read(length))
        return message

    def diagnostics(self, version: int) -> list[dict[str, Any]]:
        while True:
            message = self.read()
            if message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                if params.get("version") == version:
                    diagnostics: list[dict[str, Any]] = params["diagnostics"]
                    return diagnostics
            elif "id" in message and "method" in message:  # a request: say yes
                self.send({"id": message["id"], "result": None})

    def close(self) -> None:
        self.send({"id": 999_999, "method": "shutdown"})
        self.send({"method": "exit"})
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--asm", type=int, default=200)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--debounce-ms", type=int, default=150)
    parser.add_argument("--file", help="a real file to open and edit (see the docstring)")
    args = parser.parse_args()

    if args.file:
        with open(args.file, encoding="utf-8") as handle:
            text = handle.read()
        # (line, column of the digit) of each template line that names %0
        targets = [
            (k, line.index("%0") + 1)
            for k, line in enumerate(text.split("\n"))
            if '"' in line and "%0" in line
        ]
        if not targets:
            parser.error(f"{args.file}: no template line names %0")
        flips = ("9", "0")
    else:
        text, asm_lines = generate(args.lines, args.asm)
        targets = [(line, ASM.index("%1") + 1) for line in asm_lines]
        flips = ("3", "1")
    with tempfile.TemporaryDirectory() as folder:
        name = os.path.basename(args.file) if args.file else "generated.cu"
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        uri = "file://" + path
        command = [sys.executable, "-m", "ptxlint.lsp", "--debounce-ms", str(args.debounce_ms)]
        launched = time.perf_counter()
        server = Server(command)
        try:
            server.send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
            while server.read().get("id") != 1:
                pass
            initialize_ms = (time.perf_counter() - launched) * 1000
            server.send({"method": "initialized", "params": {}})
            item = {"uri": uri, "languageId": "cuda", "version": 1, "text": text}
            started = time.perf_counter()
            server.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
            first = server.diagnostics(1)
            open_ms = (time.perf_counter() - started) * 1000
            launch_ms = (time.perf_counter() - launched) * 1000
            timings, counts = [], []
            step = 7 if not args.file else max(1, len(targets) // max(1, args.changes // 2))
            for i in range(args.changes):
                line, column = targets[(i // 2 * step) % len(targets)]
                new = flips[i % 2]  # break it, then mend it
                start = {"line": line, "character": column}
                end = {"line": line, "character": column + 1}
                change = {"range": {"start": start, "end": end}, "text": new}
                version = i + 2
                document = {"uri": uri, "version": version}
                params = {"textDocument": document, "contentChanges": [change]}
                started = time.perf_counter()
                server.send({"method": "textDocument/didChange", "params": params})
                counts.append(len(server.diagnostics(version)))
                timings.append((time.perf_counter() - started) * 1000)
        finally:
            server.close()

    if args.file:
        print(f"file: {args.file}, {len(targets)} template lines naming %0, "
              f"{len(first)} diagnostics on open")
    else:
        print(
            f"file: {args.lines} lines, {len(targets)} asm statements, "
            f"{len(first)} diagnostics on open"
        )
    print(f"process start -> initialize answered (workers loaded): {initialize_ms:.1f} ms")
    print(f"didOpen -> publishDiagnostics (first lint, rules loaded): {open_ms:.1f} ms")
    print(f"process start -> first diagnostics: {launch_ms:.1f} ms")
    print(
        f"didChange -> publishDiagnostics over {len(timings)} changes "
        f"(debounce {args.debounce_ms} ms included): "
        f"median {statistics.median(timings):.1f} ms, p95 {percentile(timings, 0.95):.1f} ms, "
        f"min {min(timings):.1f} ms, max {max(timings):.1f} ms"
    )
    print(f"diagnostics per change: {sorted(set(counts))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
