"""``ptxlint lsp``: a language server on stdio, a thin adapter over the lint engine.

* Diagnostics on open and save at once, on change after a quiet period (150 ms by default), from
  the editor's in-memory text. Linting runs on one worker thread, so requests are answered while
  a lint runs; a result for a text the editor has moved past is dropped.
* Code actions, hover and configuration reloads (``workspace/didChangeWatchedFiles``, or saving
  a ``pyproject.toml``/``ptxlint.toml``) call into ``linting``/``actions``/``hover``.
* The server keeps its own copy of each document: pygls's splits lines with ``str.splitlines``,
  which breaks at form feeds and U+2028 where editors do not, so incremental edits would land on
  the wrong line. ``conversions`` follows the LSP's line breaks and negotiated encoding.

Initialization options (all optional): ``ruleDocsUrl`` (a URL template with ``{id}``/``{name}``,
see ``rule_docs``) and ``debounceMs``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import sys
import threading
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from ptxlint import __version__
from ptxlint.engine import INTERNAL_ERROR, FileResult
from ptxlint.lsp import actions, framing, hover
from ptxlint.lsp.capabilities import COMPLETION_TRIGGERS, SERVER_NAME
from ptxlint.lsp.conversions import UTF16, LineIndex, apply_change, sanitize
from ptxlint.lsp.diagnostics import to_diagnostic
from ptxlint.lsp.early import Early
from ptxlint.lsp.linting import Linter, is_config_file, lintable
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.lsp.worker import DEFAULT_DEADLINE_S, LintService, LintTimeout
from ptxlint.model import Finding, PtxInstruction, Severity, Span
from ptxlint.run.discover import DEFAULT_MAX_FILE_SIZE

log = logging.getLogger("ptxlint.lsp")
T = TypeVar("T")

DEFAULT_DEBOUNCE_S = 0.150
STARTUP_WAIT_S = 30.0  # the longest `initialize` waits for the lint workers to load
CONFIG_GLOBS = ("**/pyproject.toml", "**/ptxlint.toml", "**/.ptxlint.toml", "**/CMakeLists.txt",
                "**/compile_commands.json")


@dataclass
class Options:
    """The language server's settings, some set by the editor's initialization options."""

    debounce_s: float = DEFAULT_DEBOUNCE_S
    rule_docs_url: str | None = None
    lint_deadline_s: float = DEFAULT_DEADLINE_S


@dataclass
class Document:
    """A document open in the editor: its text and version, and its last lint result."""

    uri: str
    path: str
    language_id: str
    text: str
    version: int
    result: FileResult | None = None
    result_text: str | None = None  # the text ``result`` was linted from
    _index: LineIndex | None = field(default=None, repr=False)

    @property
    def index(self) -> LineIndex:
        if self._index is None or self._index.text != self.text:
            self._index = LineIndex(self.text)
        return self._index


class _Handled:
    """What ``structure_message`` returns for a message it has already answered with an error."""


_HANDLED = _Handled()


class _Protocol(LanguageServerProtocol):
    """pygls's protocol with two changes.

    * No document store of its own (see the module docstring): open/change/close go straight to
      the server's handlers.
    * Every bad message gets a JSON-RPC error response where pygls would only log it: a request
      whose params do not fit its method (-32602, with the request's id), a message that is not
      a JSON-RPC object (-32600) and, through ``PtxlintServer.report_server_error``, a body that
      is not JSON (-32700). The server keeps running either way.
    """

    # The id of the ``initialize`` the early reader answered (``early``): this protocol's own
    # answer to it, when it is handed the request, is not sent a second time.
    answered_early: Any = None

    def _send_data(self, data: Any) -> None:
        answered = self.answered_early
        if (
            answered is not None
            and getattr(data, "id", None) == answered
            and getattr(data, "method", None) is None
        ):
            self.answered_early = None
            return
        super()._send_data(data)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self.send_error(data["id"], error)
            return _HANDLED

    def handle_message(self, message: Any) -> None:
        if message is _HANDLED:
            return
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, lsp.EXIT):
            # pygls drops it; a request must still be answered (LSP: InvalidRequest)
            msg_id = getattr(message, "id", None)
            if msg_id is not None:
                self.send_error(msg_id, JsonRpcInvalidRequest("the server is shutting down"))
            return
        if isinstance(message, dict) or getattr(message, "jsonrpc", None) != "2.0":
            log.warning("not a JSON-RPC 2.0 message: %.200r", message)
            msg_id = message.get("id") if isinstance(message, dict) else None
            self.send_error(msg_id, JsonRpcInvalidRequest())
            return
        super().handle_message(message)

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: Any = None, kwargs: Any = None) -> None:
        # pygls files every asynchronous or generator handler's future under an id and only
        # takes it out again for requests: one kept Future per notification, forever.
        def done(future: Any) -> None:
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            if callback is not None:
                callback(future)

        super()._execute_handler(msg_id, handler, done, args, kwargs)

    def send_error(self, msg_id: Any, error: JsonRpcException) -> None:
        if not isinstance(msg_id, (int, str)):
            msg_id = None
        self._send_data(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "error": {"code": error.code, "message": error.message},
            }
        )

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        # pygls's, over a copy of the requests in flight: cancelling a generator handler's
        # future runs its callbacks at once, and they take it out of the dictionary pygls
        # iterates over ("dictionary changed size during iteration", the shutdown unanswered)
        if (user_handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: lsp.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: lsp.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: lsp.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class PtxlintServer(LanguageServer):
    def __init__(self, options: Options | None = None, service: LintService | None = None) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.options = options or Options()
        self.documents: dict[str, Document] = {}
        self.linter: Linter | None = None
        self.docs: RuleDocs | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptxlint-lint")
        self._loop: asyncio.AbstractEventLoop | None = None
        # a service may come started (its first worker loading since the process began)
        self.service = service or LintService(self.options.lint_deadline_s)
        self.service.deadline_s = self.options.lint_deadline_s
        self.exit_code = 1  # LSP: 0 only when `shutdown` came before the end
        self._told_early: set[str] = set()
        self._early_linter: Linter | None = None

    # ------------------------------------------------------------------ transport

    def start_io(self, stdin: Any = None, stdout: Any = None, early: Early | None = None) -> None:
        """Serve on stdio with a framing reader that resynchronises after any bad frame;
        ``early``: the messages the early reader read and answered, handed over first."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        fd = (stdin or sys.stdin.buffer).fileno()
        frames, replay = (early.frames, early.items) if early is not None else (None, [])
        if early is not None:
            assert isinstance(self.protocol, _Protocol)
            self.protocol.answered_early = early.answered
            self._told_early.update(early.told)
            self._early_linter = early.linter
        try:
            asyncio.run(framing.serve(
                self._stop_event, fd, self._on_body, self._on_bad_frame, frames, replay
            ))
        except BrokenPipeError:
            log.error("the client went away")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.exit_code = 0 if self.protocol._shutdown else 1
            self.service.close()
            self.shutdown()

    def _on_body(self, body: bytes) -> None:
        try:
            message = json.loads(body, object_hook=self.protocol.structure_message)
        except ValueError as exc:  # not JSON, or not UTF-8
            self.report_server_error(exc, JsonRpcException)
            return
        try:
            self.protocol.handle_message(message)
        except (SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:
            log.exception("unable to handle a message")
            self.report_server_error(exc, JsonRpcException)

    def _on_bad_frame(self, problem: str) -> None:
        assert isinstance(self.protocol, _Protocol)
        self.protocol.send_error(None, JsonRpcParseError(f"bad frame: {problem}"))

    # ------------------------------------------------------------------ plumbing

    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(error, ValueError) and source is JsonRpcException:
            # The main loop could not decode a body (bad JSON or not UTF-8): answer like JSON-RPC
            # says, without the pop-up pygls would show for it.
            log.warning("unreadable message: %s", error)
            assert isinstance(self.protocol, _Protocol)
            self.protocol.send_error(None, JsonRpcParseError())
            return
        super().report_server_error(error, source)

    @property
    def encoding(self) -> str:
        try:
            encoding = self.workspace.position_codec.encoding
        except RuntimeError:  # before initialize
            return UTF16
        # pygls keeps the negotiated kind as lsprotocol's enum or as a plain string.
        return str(getattr(encoding, "value", encoding) or UTF16)

    async def on_worker(self, function: Callable[[], T]) -> T:
        """Run ``function`` off the event loop (code actions' edits, hover's look-ups)."""
        return await asyncio.get_running_loop().run_in_executor(self._worker, function)

    def start(self, options: dict[str, Any] | None) -> None:
        options = options if isinstance(options, dict) else {}
        url = options.get("ruleDocsUrl")
        if isinstance(url, str) and url:
            self.options.rule_docs_url = url
        debounce = options.get("debounceMs")
        if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and debounce >= 0:
            self.options.debounce_s = debounce / 1000
        deadline = options.get("lintTimeoutMs")
        if isinstance(deadline, (int, float)) and not isinstance(deadline, bool) and deadline > 0:
            self.service.deadline_s = deadline / 1000
        self._loop = asyncio.get_running_loop()
        self.service.on_all_ready = self._workers_ready
        self.service.start()  # the first worker loads while this process loads its rules
        # here only for rule metadata and configuration: the workers lint
        linter = self._early_linter
        if linter is None:
            linter = Linter(report=self._tell, warm_up=False)
        linter.report = self._tell  # the early one's rules, already loaded, told from here on
        self.linter = linter
        self.docs = RuleDocs(
            {r.id: r for r in self.linter.rule_classes}, self.options.rule_docs_url
        )

    def _workers_ready(self, count: int) -> None:
        self.window_log_message(lsp.LogMessageParams(
            type=lsp.MessageType.Info, message=f"ptxlint: {count} lint workers ready"))

    def _tell(self, message: str) -> None:
        """Show a configuration or plugin problem; callable from the lint thread."""
        if message in self._told_early:  # shown before the server loaded (``early``)
            self._told_early.discard(message)
            return
        params = lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"ptxlint: {message}")
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.window_show_message, params)

    # ------------------------------------------------------------------ documents

    def open(self, item: lsp.TextDocumentItem) -> Document:
        path = to_fs_path(item.uri) or item.uri
        document = Document(item.uri, path, item.language_id, sanitize(item.text), item.version)
        self.documents[item.uri] = document
        return document

    def change(self, params: lsp.DidChangeTextDocumentParams) -> Document | None:
        document = self.documents.get(params.text_document.uri)
        if document is None:
            return None
        text = document.text
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                start = (change.range.start.line, change.range.start.character)
                end = (change.range.end.line, change.range.end.character)
                index = document.index if text is document.text else None
                text = apply_change(text, start, end, change.text, self.encoding, index)
            else:
                text = change.text
        document.text = sanitize(text)
        document.version = params.text_document.version
        return document

    def lintable(self, document: Document) -> bool:
        return lintable(document.path, document.language_id)

    def schedule(self, document: Document) -> None:
        """Lint after ``debounce_s`` without a further change."""
        self.cancel(document.uri)
        loop = asyncio.get_running_loop()
        self._timers[document.uri] = loop.call_later(
            self.options.debounce_s, lambda: asyncio.ensure_future(self._lint_logged(document.uri))
        )

    async def _lint_logged(self, uri: str) -> None:
        # A timer's task has nobody awaiting it: log a failure instead of losing it.
        try:
            await self.lint(uri)
        except Exception:
            log.exception("linting %s failed", uri)

    def cancel(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()

    async def fresh_result(self, document: Document) -> tuple[FileResult, str]:
        """The findings for the document's current text and that text, linting now if stale."""
        if document.result is not None and document.result_text == document.text:
            return document.result, document.text
        return await self.lint(document.uri) or (FileResult(document.path), document.text)

    async def lint(self, uri: str) -> tuple[FileResult, str] | None:
        """Lint the document's current text; publish unless the text changed meanwhile."""
        document = self.documents.get(uri)
        if document is None or self.linter is None or not self.lintable(document):
            return None
        self.cancel(uri)
        text, version = document.text, document.version
        generation = self.service.generation
        result = await self.lint_text(document.path, text)
        if (self.documents.get(uri) is document and document.text == text
                and self.service.generation == generation):
            document.result, document.result_text = result, text
            self.publish(document, version)
        # else: closed, edited or configured anew meanwhile, and a newer lint is on its way
        # (a reload re-lints every document), which publishes what the user sees last
        return result, text

    async def lint_text(self, path: str, text: str) -> FileResult:
        """One lint in a worker process, within the deadline; never raises: a timeout or a
        crash becomes a diagnostic on the first line, and the server goes on."""
        try:
            reply = await self.service.lint(path, text)
        except LintTimeout as exc:
            return _problem_result(path, _timeout_message(str(exc), text), Severity.WARNING)
        except Exception as exc:  # a worker that died twice, a result that did not pickle
            log.exception("linting %s failed", path)
            return _problem_result(path, f"linting failed: {type(exc).__name__}: {exc}; "
                                   "please report this", Severity.ERROR)
        for problem in reply.problems:
            self._tell(problem)
        return reply.value

    async def instruction_at(self, path: str, text: str, offset: int) -> PtxInstruction | None:
        """The PTX instruction whose opcode is at ``offset``, from the worker holding the
        statements (lint replies leave them there); None when it cannot say."""
        try:
            reply = await self.service.instruction(path, text, offset)
        except Exception as exc:  # a timeout or a dead worker: a hover without it
            log.warning("hover for %s failed: %s", path, exc)
            return None
        value = reply.value
        return value if isinstance(value, PtxInstruction) else None

    def publish(self, document: Document, version: int | None) -> None:
        assert document.result is not None and self.docs is not None
        index, encoding, docs = document.index, self.encoding, self.docs
        diagnostics = [to_diagnostic(f, index, encoding, docs) for f in document.result.findings]
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=document.uri, diagnostics=diagnostics, version=version)
        )

    def close(self, uri: str) -> None:
        self.cancel(uri)
        document = self.documents.pop(uri, None)
        if document is not None:
            self.service.forget(document.path)
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    async def reload_configuration(self) -> None:
        linter = self.linter
        if linter is None:
            return
        await self.on_worker(linter.invalidate)
        self.service.invalidate()
        for uri in list(self.documents):
            await self.lint(uri)


def _timeout_message(stopped: str, text: str) -> str:
    """What a lint stopped at the deadline tells the user: whose limit it was, and what
    ``ptxlint check`` does with the file (its cost is bounded by the file's size, with no
    time limit; a file over max-file-size it refuses)."""
    message = f"{stopped}, the language server's limit for one lint (option lintTimeoutMs)"
    if len(text.encode("utf-8", "surrogatepass")) > DEFAULT_MAX_FILE_SIZE:
        return (f"{message}; `ptxlint check` refuses the file too: it is over max-file-size "
                f"({DEFAULT_MAX_FILE_SIZE // (1024 * 1024)} MiB unless configured)")
    return f"{message}; `ptxlint check` on the saved file has no time limit"


def _problem_result(path: str, message: str, severity: Severity) -> FileResult:
    result = FileResult(path)
    result.findings.append(Finding(INTERNAL_ERROR, INTERNAL_ERROR, severity, path, Span(0, 0),
                                   f"ptxlint: {message}"))
    return result


def build_server(options: Options | None = None, service: LintService | None = None
                 ) -> PtxlintServer:
    server = PtxlintServer(options, service)

    @server.feature(lsp.INITIALIZE)
    async def initialize(params: lsp.InitializeParams) -> None:
        server.start(params.initialization_options)
        assert isinstance(server.protocol, _Protocol)
        if server.protocol.answered_early is not None:
            return  # answered already (``early``): its documents wait for the workers instead
        # Answer once the first worker has loaded: the client sends the first didOpen after
        # this answer, and its diagnostics then come from a warm worker.
        await server.service.started(STARTUP_WAIT_S)

    @server.feature(lsp.INITIALIZED)
    def initialized(params: lsp.InitializedParams) -> None:
        capabilities = server.client_capabilities.workspace
        watched = capabilities.did_change_watched_files if capabilities else None
        if watched is not None and watched.dynamic_registration:
            options = lsp.DidChangeWatchedFilesRegistrationOptions(
                watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in CONFIG_GLOBS]
            )
            registration = lsp.Registration(
                id="ptxlint-config-files",
                method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
            server.client_register_capability(lsp.RegistrationParams([registration]))

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        # opened here, not in a task: an edit handled before the task runs (read in the same
        # chunk, or handed over by the early reader) must find the document to apply to
        document = server.open(params.text_document)
        asyncio.ensure_future(server._lint_logged(document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        document = server.change(params)
        if document is not None and server.lintable(document):
            server.schedule(document)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    async def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if is_config_file(to_fs_path(uri) or uri):
            await server.reload_configuration()
        else:
            await server.lint(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        server.close(params.text_document.uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
        if any(is_config_file(to_fs_path(c.uri) or c.uri) for c in params.changes):
            await server.reload_configuration()

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=list(actions.KINDS), resolve_provider=False),
    )
    async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        document = server.documents.get(params.text_document.uri)
        if document is None or not server.lintable(document) or server.linter is None:
            return None
        result, text = await server.fresh_result(document)
        index, encoding = LineIndex(text), server.encoding
        request = actions.ActionRequest(
            uri=document.uri,
            text=index.text,
            index=index,
            encoding=encoding,
            findings=result.findings,
            start=index.offset(params.range.start.line, params.range.start.character, encoding),
            end=index.offset(params.range.end.line, params.range.end.character, encoding),
            diagnostics=[d for d in params.context.diagnostics if d.source == "ptxlint"],
            only=params.context.only,
        )
        docs, path = server.docs, document.path
        assert docs is not None
        if actions.wanted(lsp.CodeActionKind.QuickFix, request.only):
            request = await _with_refusals(server, path, request)

        fixed: list[str] = []
        if actions.wanted(actions.FIX_ALL_KIND, request.only) and any(
            f.fix is not None and f.fix.safe for f in request.findings
        ):
            fixed.append(await _fix_all(server, path, request.text))

        def compute() -> list[lsp.CodeAction]:
            return actions.code_actions(
                request, docs, lambda: fixed[0] if fixed else request.text
            )

        return await server.on_worker(compute)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def on_hover(params: lsp.HoverParams) -> lsp.Hover | None:
        document = server.documents.get(params.text_document.uri)
        if document is None or not server.lintable(document) or server.docs is None:
            return None
        result, text = await server.fresh_result(document)
        index = LineIndex(text)
        offset = index.offset(params.position.line, params.position.character, server.encoding)
        sections = hover.finding_hover(result.findings, offset, server.docs)
        instruction = await server.instruction_at(document.path, text, offset)
        if instruction is not None:
            summary = hover.instruction_hover(instruction)
            if summary:
                sections.insert(0, summary)
        if not sections:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(
                kind=lsp.MarkupKind.Markdown, value="\n\n---\n\n".join(sections)
            )
        )

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=list(COMPLETION_TRIGGERS)),
    )
    def on_completion(params: lsp.CompletionParams) -> lsp.CompletionList | None:
        document = server.documents.get(params.text_document.uri)
        if document is None or not server.lintable(document):
            return None
        from ptxlint.lsp.completion import complete  # the grammar: only once asked

        index = document.index
        offset = index.offset(params.position.line, params.position.character, server.encoding)
        linter = server.linter
        cuda_version = linter.toolkit(document.path) if linter is not None else None
        items = complete(document.text, offset, cuda_version)
        if not items:
            return None
        return lsp.CompletionList(is_incomplete=False, items=[
            _completion_item(item, index, server.encoding) for item in items])

    @server.feature(lsp.SHUTDOWN)
    def shutdown(params: None) -> None:
        for uri in list(server._timers):
            server.cancel(uri)
        server._worker.shutdown(wait=False, cancel_futures=True)
        server.service.close()

    return server


_COMPLETION_KINDS = {"opcode": lsp.CompletionItemKind.Keyword,
                     "modifier": lsp.CompletionItemKind.EnumMember,
                     "snippet": lsp.CompletionItemKind.Snippet}


def _completion_item(item: Any, index: LineIndex, encoding: str) -> lsp.CompletionItem:
    (sl, sc), (el, ec) = index.range(item.start, item.end, encoding)
    edit = lsp.TextEdit(range=lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec)),
                        new_text=item.insert)
    snippet = item.kind == "snippet"
    return lsp.CompletionItem(
        label=item.label, kind=_COMPLETION_KINDS[item.kind], detail=item.detail or None,
        text_edit=edit,
        insert_text_format=lsp.InsertTextFormat.Snippet if snippet else None,
    )


async def _with_refusals(
    server: PtxlintServer, path: str, request: actions.ActionRequest
) -> actions.ActionRequest:
    """``request`` with the fix of each finding it covers marked where ``--fix`` would refuse
    it (``Fix.refused``: its result has a new error), so that no quick fix adds an error. Asked
    here, for the few findings of a request, not at each lint: it costs a lint per fix."""
    chosen = [(f, f.fix) for f in actions.findings_in_request(request)
              if f.fix is not None and f.fix.edits and f.fix.refused is None]
    if not chosen:
        return request
    try:
        reply = await server.service.refusals(path, request.text, [fix for _, fix in chosen])
    except Exception as exc:  # a timeout or a dead worker: the fixes as the lint offered them
        log.warning("trying the quick fixes of %s failed: %s", path, exc)
        return request
    marked: dict[int, Finding] = {}
    for (finding, fix), reason in zip(chosen, reply.value, strict=True):
        if reason is not None:
            marked[id(finding)] = dataclasses.replace(
                finding, fix=dataclasses.replace(fix, refused=reason))
    if not marked:
        return request
    return dataclasses.replace(
        request, findings=[marked.get(id(f), f) for f in request.findings])


async def _fix_all(server: PtxlintServer, path: str, text: str) -> str:
    """The text with every safe fix applied (for the fix-all code action), or ``text`` when the
    fixes could not be computed in time."""
    try:
        reply = await server.service.fix_all(path, text)
    except Exception as exc:  # a timeout or a dead worker: offer no fix-all, keep serving
        log.warning("fix-all for %s failed: %s", path, exc)
        return text
    outcome = reply.value
    return outcome.text if outcome.converged else text
