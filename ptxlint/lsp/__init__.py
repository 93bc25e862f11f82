"""The language server (``ptxlint lsp``): editor integration over the same engine as the CLI.

pygls is an optional dependency (``pip install 'ptxlint[lsp]'``), so nothing here imports it
until the server starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK, EXIT_ERROR = 0, 2


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``lsp`` subcommand's arguments (pass a subparser to fill it in)."""
    parser = parser or argparse.ArgumentParser(
        prog="ptxlint lsp", description="Run the ptxlint language server on stdin/stdout."
    )
    # Many clients (vscode-languageclient among them) add --stdio for a stdio transport.
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP on stdin/stdout (the default)"
    )
    parser.add_argument(
        "--debounce-ms",
        type=int,
        default=150,
        metavar="MS",
        help="lint after this long without a change (default: 150)",
    )
    parser.add_argument(
        "--rule-docs-url",
        metavar="TEMPLATE",
        help="link diagnostics to TEMPLATE with {id}/{name} replaced (default: the rule's "
        "page on the documentation site; 'file': pages written to the user cache folder, "
        "for offline use)",
    )
    parser.add_argument("--log-file", metavar="FILE", help="write the server's log to FILE")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="how much the server logs (default: WARNING)",
    )
    return parser


def main_lsp(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``ptxlint lsp``; returns the exit status."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    return run_from_args(args, whole_process=argv is None)


def run_from_args(args: argparse.Namespace, whole_process: bool = False) -> int:
    """Serve until ``exit``; ``whole_process``: the process is this command's own (not a host
    that called ``main(argv)``), and ends within ``EXIT_GRACE_S`` of the server's end."""
    import importlib.util
    import logging  # here, not at the top: every `ptxlint check` imports this module

    # stdout carries the protocol: logs go to stderr or a file, never to stdout.
    handler: logging.Handler = (
        logging.FileHandler(args.log_file, encoding="utf-8")
        if args.log_file
        else logging.StreamHandler(sys.stderr)
    )
    logging.basicConfig(
        level=args.log_level,
        handlers=[handler],
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    service = None
    early = None
    if importlib.util.find_spec("pygls") is not None:
        early = _first_messages(args)
        # The first lint worker starts after the early reader, before pygls: the early lint
        # publishes the first diagnostics in this process, and the worker's spawn (importing
        # multiprocessing, 20-25 ms of this process's CPU) and its interpreter's imports would
        # only compete with it for the cores; pygls's own imports (half a second) then cover
        # the worker's start-up.
        from ptxlint.lsp.worker import LintService

        service = LintService()
        service.start()
        if early is not None and early.document is not None:
            _load_server_serving_edits(early)
    try:
        from ptxlint.lsp.server import Options, build_server
    except ImportError as exc:
        if service is not None:
            service.close()
        print(
            f"ptxlint: error: the language server needs pygls ({exc}); "
            "install it with: pip install 'ptxlint[lsp]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    try:
        options = Options(
            debounce_s=max(0, args.debounce_ms) / 1000, rule_docs_url=args.rule_docs_url
        )
        server = build_server(options, service)
    except BaseException:
        if service is not None:  # the server never took it: stop the worker started early
            service.close()
        raise
    server.start_io(early=early)  # closes the service when it stops serving
    code = server.exit_code  # 1 for `exit` without `shutdown`, as the LSP asks
    if whole_process:
        exit_within(EXIT_GRACE_S, code)
    return code


def _first_messages(args: argparse.Namespace) -> Any:
    """The early reader's work (``early``) on this process's stdio, or None where it does not
    run (disabled, or stdio that is not a pipe or terminal this process can wait on)."""
    from ptxlint.lsp import early

    if not early.enabled():
        return None
    try:
        fd = sys.stdin.buffer.fileno()
        out = sys.stdout.buffer
    except (AttributeError, OSError, ValueError):  # a host's replaced streams
        return None
    return early.read_first_messages(fd, out, args.rule_docs_url)


def _load_server_serving_edits(early: Any) -> None:
    """Import the full server in another thread while the early reader lints the edits of the
    document it published (``early.serve_edits``): pygls's imports take half a second, which
    a keystroke right after the file opened would otherwise wait for. An import that fails
    there fails again, and is reported, where the caller imports the server."""
    import threading

    from ptxlint.lsp import early as early_reader

    loaded = threading.Event()

    def load() -> None:
        try:
            import ptxlint.lsp.server  # noqa: F401
        except BaseException:  # noqa: BLE001 - imported again, and reported, by the caller
            pass
        finally:
            loaded.set()

    threading.Thread(target=load, name="ptxlint-lsp-load", daemon=True).start()
    early_reader.serve_edits(early, lambda: not loaded.is_set())
    loaded.wait()


# How long the interpreter's own exit may take once the server has stopped serving.
EXIT_GRACE_S = 10.0


def exit_within(seconds: float, code: int) -> None:
    """End the process with ``code`` if its normal exit has not ended it ``seconds`` from now.

    After ``exit`` the server has killed its lint workers and stopped its threads, but the
    interpreter's exit still joins every executor's threads. One full test run saw the server
    outlive ``exit`` by over a minute (not reproduced in isolation or under load; a likely cause
    is a process pool whose worker was killed for its deadline mid-call, leaving a queue
    thread blocked on a pipe). An editor waits for the server to end: a daemon thread ends it
    whatever holds the normal exit."""
    import contextlib
    import os
    import threading
    import time

    def force() -> None:
        time.sleep(seconds)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)

    threading.Thread(target=force, name="ptxlint-exit", daemon=True).start()
