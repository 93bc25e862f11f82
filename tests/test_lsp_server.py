"""``ptxlint lsp`` end to end: a real server process driven by pytest-lsp's client."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp (dev extra) is not installed")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

from ptxlint.lsp.conversions import LineIndex  # noqa: E402
from tests.conftest import FIXTURES, ROOT  # noqa: E402

SERVER = [sys.executable, "-m", "ptxlint.lsp", "--debounce-ms", "150"]
EMOJI = "\U0001f680"
BAD_LINE = '  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));'
BAD = f"__device__ unsigned f(unsigned a) {{\n  unsigned d;\n{BAD_LINE}\n  return d;\n}}\n"
WAIT_S = 30  # a generous bound for a hung server, never a timing check


class Client(LanguageClient):
    published: list[lsp.PublishDiagnosticsParams]


def make_client() -> Client:
    client = Client(converter_factory=pytest_lsp.client.default_converter)
    client.published = []
    features: dict[str, Any] = dict(DEFAULT_CLIENT_FEATURES)
    default_publish = features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    # pygls passes the client to handlers whose first parameter is annotated with its type.
    def publish(c: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        client.published.append(params)
        default_publish(c, params)

    def register_capability(c: LanguageClient, params: lsp.RegistrationParams) -> None:
        return None

    features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[lsp.CLIENT_REGISTER_CAPABILITY] = register_capability
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER,
        client_factory=make_client,
        server_env={**os.environ, "PYTHONPATH": ROOT},
    )
)
async def client(lsp_client: Client):
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


# --------------------------------------------------------------------------- helpers


async def diagnostics_for(
    client: Client, uri: str, version: int | None = None, seen: int = 0
) -> list[lsp.Diagnostic]:
    """The first diagnostics published for ``uri`` (at ``version``) after ``seen`` publishes."""
    for _ in range(WAIT_S * 100):
        for params in client.published[seen:]:
            if params.uri == uri and (version is None or params.version == version):
                return list(params.diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} version {version}")


async def diagnostics_settle_to(client: Client, uri: str, count: int) -> None:
    """Wait until the last diagnostics published for ``uri`` number ``count``. A reload keeps
    the document's version, so a lint already on its way when the configuration changed (the
    full server's lint of a document the early path published) may publish after it."""
    latest: list[lsp.Diagnostic] | None = None
    for _ in range(WAIT_S * 100):
        mine = [p for p in client.published if p.uri == uri]
        latest = list(mine[-1].diagnostics) if mine else None
        if latest is not None and len(latest) == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"diagnostics for {uri} never numbered {count}: last {latest}")


def fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, "rules", name), encoding="utf-8") as handle:
        return handle.read()


def open_document(client: Client, path, text: str, language: str = "cuda") -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, language, 1, text))
    )
    return uri


def apply_text_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    index = LineIndex(text)
    spans = [
        (
            index.offset(e.range.start.line, e.range.start.character),
            index.offset(e.range.end.line, e.range.end.character),
            e.new_text,
        )
        for e in edits
    ]
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


def send_edits(client: Client, uri: str, version: int, edits: list[lsp.TextEdit]) -> None:
    """Send ``edits`` as incremental changes, last first so earlier ranges stay valid."""
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
    changes = [lsp.TextDocumentContentChangePartial(e.range, e.new_text) for e in reversed(ordered)]
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=version, uri=uri), changes
        )
    )


async def code_actions(
    client: Client, uri: str, diagnostic: lsp.Diagnostic | None, only: list[str] | None = None
) -> list[lsp.CodeAction]:
    where = diagnostic.range if diagnostic else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    result = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri),
            where,
            lsp.CodeActionContext(diagnostics=[diagnostic] if diagnostic else [], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, lsp.CodeAction)]


# --------------------------------------------------------------------------- tests


@pytest.mark.asyncio
async def test_quick_fix_applied_makes_the_diagnostic_go_away(client: Client, tmp_path) -> None:
    text = fixture("PTX006_bad.cu")
    uri = open_document(client, tmp_path / "k.cu", text)
    diagnostics = await diagnostics_for(client, uri, version=1)
    first = next(d for d in diagnostics if d.code == "PTX006")
    assert first.source == "ptxlint" and first.severity is not None
    assert first.code_description is not None and "PTX006" in first.code_description.href
    assert first.range.start.line == 2
    actions = await code_actions(client, uri, first)
    fix = next(a for a in actions if a.is_preferred)
    assert fix.kind == lsp.CodeActionKind.QuickFix and "PTX006" in fix.title
    assert any(a.title == "Suppress PTX006 on this line" for a in actions)
    assert fix.edit is not None and fix.edit.changes is not None
    edits = list(fix.edit.changes[uri])
    seen = len(client.published)
    send_edits(client, uri, 2, edits)
    after = await diagnostics_for(client, uri, version=2, seen=seen)
    assert first.range not in [d.range for d in after if d.code == "PTX006"]
    assert len(after) == len(diagnostics) - 1
    fixed = apply_text_edits(text, edits)
    assert '"=r"(out) : "r"(x));' in fixed.splitlines()[2]


@pytest.mark.asyncio
async def test_fix_all_and_suppress(client: Client, tmp_path) -> None:
    text = fixture("PTX008_bad.cu")
    uri = open_document(client, tmp_path / "k.cu", text)
    diagnostics = await diagnostics_for(client, uri, version=1)
    fixable = [d for d in diagnostics if d.data and d.data.get("fix") == "safe"]
    assert fixable
    (fix_all,) = await code_actions(client, uri, None, only=["source.fixAll"])
    assert fix_all.kind == "source.fixAll.ptxlint" and fix_all.edit and fix_all.edit.changes
    seen = len(client.published)
    send_edits(client, uri, 2, list(fix_all.edit.changes[uri]))
    remaining = await diagnostics_for(client, uri, version=2, seen=seen)
    assert len(remaining) == len(diagnostics) - len(fixable)
    assert not [d for d in remaining if d.data and d.data.get("fix") == "safe"]
    # The rest can be silenced line by line.
    suppress = next(
        a
        for a in await code_actions(client, uri, remaining[0])
        if a.title.startswith("Suppress PTX008")
    )
    assert suppress.edit and suppress.edit.changes
    seen = len(client.published)
    send_edits(client, uri, 3, list(suppress.edit.changes[uri]))
    assert len(await diagnostics_for(client, uri, version=3, seen=seen)) == len(remaining) - 1


@pytest.mark.asyncio
async def test_ranges_are_utf16_after_astral_characters(client: Client, tmp_path) -> None:
    line = f"  /* {EMOJI} é {EMOJI} */ " + BAD_LINE.strip()
    text = f"// {EMOJI}{EMOJI} emoji\n" + BAD.replace(BAD_LINE, line)
    uri = open_document(client, tmp_path / "k.cu", text)
    (diagnostic,) = await diagnostics_for(client, uri, version=1)
    column = line.index("%3")
    utf16 = column + line[:column].count(EMOJI)  # each emoji is two UTF-16 code units
    assert diagnostic.range.start == lsp.Position(3, utf16)
    assert diagnostic.range.end == lsp.Position(3, utf16 + 2)
    # An edit before the asm, in UTF-16 units, lands where the client meant it.
    seen = len(client.published)
    insert = lsp.Position(3, 2 + 3 + 2)  # after "/* " and the emoji
    send_edits(client, uri, 2, [lsp.TextEdit(lsp.Range(insert, insert), EMOJI)])
    (moved,) = await diagnostics_for(client, uri, version=2, seen=seen)
    assert moved.range.start == lsp.Position(3, utf16 + 2)


@pytest.mark.asyncio
async def test_changes_are_linted_from_memory_after_the_last_keystroke(
    client: Client, tmp_path
) -> None:
    uri = open_document(client, tmp_path / "k.cu", BAD)
    assert len(await diagnostics_for(client, uri, version=1)) == 1
    seen = len(client.published)
    fixed_line = BAD_LINE.replace("%3", "%1")
    # Type the fix one character at a time: "%3" -> "%" -> "%1".
    column = BAD_LINE.index("%3") + 1
    start, end = lsp.Position(2, column), lsp.Position(2, column + 1)
    send_edits(client, uri, 2, [lsp.TextEdit(lsp.Range(start, end), "")])
    send_edits(client, uri, 3, [lsp.TextEdit(lsp.Range(start, start), "1")])
    assert await diagnostics_for(client, uri, version=3, seen=seen) == []
    assert (tmp_path / "k.cu").read_text() == BAD  # the file on disk was never the source
    assert fixed_line not in BAD
    seen = len(client.published)
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    assert await diagnostics_for(client, uri, version=3, seen=seen) == []


@pytest.mark.asyncio
async def test_hover_on_an_opcode_and_on_a_finding(client: Client, tmp_path) -> None:
    uri = open_document(client, tmp_path / "k.cu", BAD)
    await diagnostics_for(client, uri, version=1)
    on_opcode = lsp.Position(2, BAD_LINE.index("add.u32") + 1)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), on_opcode)
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "add.u32" in hover.contents.value
    on_finding = lsp.Position(2, BAD_LINE.index("%3") + 1)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), on_finding)
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "PTX001" in hover.contents.value and "## What it does" in hover.contents.value
    nowhere = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0))
    )
    assert nowhere is None


@pytest.mark.asyncio
async def test_configuration_changes_are_picked_up(client: Client, tmp_path) -> None:
    uri = open_document(client, tmp_path / "k.cu", BAD)
    assert len(await diagnostics_for(client, uri, version=1)) == 1
    config = tmp_path / "ptxlint.toml"
    config.write_text('ignore = ["PTX001"]\n')
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(config.as_uri(), lsp.FileChangeType.Created)]
        )
    )
    await diagnostics_settle_to(client, uri, 0)
    # Saving the configuration in the editor reloads it too: nothing else lints it again.
    config.write_text('select = ["PTX001"]\n')
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(config.as_uri()))
    )
    await diagnostics_settle_to(client, uri, 1)


@pytest.mark.asyncio
async def test_broken_documents_get_diagnostics_and_the_server_lives_on(
    client: Client, tmp_path
) -> None:
    broken = '__device__ void f() {\n  asm("add.u32 %0, %3;\n  /* \udc80\udcff */\n'
    uri = open_document(client, tmp_path / "broken.cu", broken.replace("\udc80\udcff", "??"))
    await diagnostics_for(client, uri, version=1)
    # Lone surrogates (what an editor may send for undecodable bytes) in a change.
    start = lsp.Position(2, 5)
    send_edits(client, uri, 2, [lsp.TextEdit(lsp.Range(start, lsp.Position(2, 7)), "\udc80\udcff")])
    await diagnostics_for(client, uri, version=2)
    other = open_document(client, tmp_path / "k.cu", BAD)
    assert len(await diagnostics_for(client, other, version=1)) == 1


# --------------------------------------------------------------------------- raw protocol


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        assert line, "the server closed its output"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def _response(stream, msg_id: object) -> dict[str, Any]:
    while True:
        message = _read(stream)
        if "method" not in message and message.get("id") == msg_id:
            return message


def test_malformed_messages_get_error_responses_and_the_server_keeps_running() -> None:
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    send, out = process.stdin, process.stdout

    def request(msg_id: object, method: str, params: object) -> None:
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        send.write(_frame(json.dumps(message).encode()))
        send.flush()

    try:
        request(1, "initialize", {"capabilities": {}})
        assert "capabilities" in _response(out, 1)["result"]
        send.write(_frame(b"{not json") + _frame(b"\xff\xfe") + _frame(b"[1, 2]"))
        send.flush()
        assert _response(out, None)["error"]["code"] == -32700  # not JSON
        assert _response(out, None)["error"]["code"] == -32700  # not UTF-8
        assert _response(out, None)["error"]["code"] == -32600  # not a message object
        request(2, "ptxlint/unknown", {})
        assert _response(out, 2)["error"]["code"] == -32601
        request(3, "textDocument/hover", {"textDocument": 7})
        assert _response(out, 3)["error"]["code"] == -32602
        request(4, "textDocument/codeAction", None)
        assert _response(out, 4)["error"]["code"] == -32602
        note = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"bad": 1}}
        send.write(_frame(json.dumps(note).encode()))
        position = {"line": 0, "character": 0}
        request(
            5, "textDocument/hover", {"textDocument": {"uri": "file:///x.cu"}, "position": position}
        )
        assert _response(out, 5)["result"] is None  # alive and answering
        request(6, "shutdown", None)
        assert "error" not in _response(out, 6)
        send.write(_frame(b'{"jsonrpc": "2.0", "method": "exit"}'))
        send.flush()
        assert process.wait(timeout=WAIT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_ptxlint_lsp_help_runs_without_a_client() -> None:
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run(
        [*SERVER[:3], "--help"], capture_output=True, text=True, env=env, timeout=WAIT_S
    )
    assert done.returncode == 0 and "--stdio" in done.stdout


def test_negotiated_utf32_positions_count_code_points(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(_frame(json.dumps({"jsonrpc": "2.0", **message}).encode()))
        process.stdin.flush()

    try:
        capabilities = {"general": {"positionEncodings": ["utf-32", "utf-16"]}}
        send({"id": 1, "method": "initialize", "params": {"capabilities": capabilities}})
        result = _response(process.stdout, 1)["result"]
        assert result["capabilities"]["positionEncoding"] == "utf-32"
        send({"method": "initialized", "params": {}})
        line = f"  /* {EMOJI}{EMOJI} */ " + BAD_LINE.strip()
        item = {"uri": (tmp_path / "k.cu").as_uri(), "languageId": "cuda", "version": 1}
        item["text"] = BAD.replace(BAD_LINE, line)
        send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        while (message := _read(process.stdout)).get("method") != "textDocument/publishDiagnostics":
            pass
        (diagnostic,) = message["params"]["diagnostics"]
        assert diagnostic["range"]["start"] == {"line": 2, "character": line.index("%3")}
    finally:
        process.kill()
        process.wait()


@pytest.mark.asyncio
async def test_python_buffers_get_triton_diagnostics_fixes_and_suppressions(
    client: Client, tmp_path
) -> None:
    text = (
        "import triton.language as tl\n"
        "def k(C):\n"
        "    tl.inline_asm_elementwise('atom.global.add.u32 $0, [$1], 1;', '=r,l', [C],\n"
        "                              dtype=tl.int32, is_pure=True, pack=1)\n"
    )
    uri = open_document(client, tmp_path / "k.py", text, language="python")
    diagnostics = await diagnostics_for(client, uri, version=1)
    pure = next(d for d in diagnostics if d.code == "PTX505")
    assert pure.range.start.line == 2 and pure.range.start.character == 31
    actions = await code_actions(client, uri, pure)
    fix = next(a for a in actions if a.is_preferred)
    assert fix.edit is not None and fix.edit.changes is not None
    assert "is_pure=False" in apply_text_edits(text, list(fix.edit.changes[uri]))
    suppress = next(a for a in actions if a.title == "Suppress PTX505 on this line")
    assert suppress.edit is not None and suppress.edit.changes is not None
    suppressed = apply_text_edits(text, list(suppress.edit.changes[uri]))
    assert "    # ptxlint: ignore[PTX505]\n    tl.inline_asm_elementwise(" in suppressed
    seen = len(client.published)
    send_edits(client, uri, 2, list(suppress.edit.changes[uri]))
    after = await diagnostics_for(client, uri, version=2, seen=seen)
    assert not [d for d in after if d.code == "PTX505"]


@pytest.mark.asyncio
async def test_no_quick_fix_is_offered_that_adds_an_error(client: Client, tmp_path) -> None:
    # PTX008's fix of '%%r1' in basic asm writes '%r1', a register the compiler numbers
    # (PTX213): --fix refuses it, and so does the editor; the fix of '%%clock' is offered
    text = (
        "__device__ void f() {\n"
        '    asm volatile("mov.u32 %%r1, %%clock;");\n'
        "}\n"
    )
    uri = open_document(client, tmp_path / "k.cu", text)
    diagnostics = await diagnostics_for(client, uri, version=1)
    line = text.splitlines()[1]
    by_column = {d.range.start.character: d for d in diagnostics if d.code == "PTX008"}
    register, clock = by_column[line.index("%%r1")], by_column[line.index("%%clock")]
    titles = [a.title for a in await code_actions(client, uri, register)]
    assert not [t for t in titles if t.startswith("Replace")]
    assert "Suppress PTX008 on this line" in titles
    offered = [a for a in await code_actions(client, uri, clock) if a.is_preferred]
    assert [a.title for a in offered] == ["Replace '%%' with '%' (PTX008)"]
