"""Completion and the derived-constraints hover through a real ``ptxlint lsp`` process."""
# ruff: noqa: F811  (the tests take test_lsp_server's `client` fixture as their parameter)

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")
pytest.importorskip("pytest_lsp", reason="pytest-lsp (dev extra) is not installed")

from lsprotocol import types as lsp  # noqa: E402

from tests.test_lsp_server import (  # noqa: E402, F401  (client: the fixture)
    BAD,
    BAD_LINE,
    Client,
    client,
    diagnostics_for,
    open_document,
)

TYPING = '__device__ void f(void* s, const void* g) {\n  asm volatile("cp.async.ca.'
SPELLED = "__device__ void f() {\n  cp.async.ca.shared.global"


async def complete_at_end(client: Client, uri: str, text: str) -> list[lsp.CompletionItem]:
    line = text.count("\n")
    character = len(text) - text.rfind("\n") - 1
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, character))
    )
    assert isinstance(result, lsp.CompletionList)
    return list(result.items)


@pytest.mark.asyncio
async def test_modifiers_that_may_follow_are_offered_inside_a_template(
    client: Client, tmp_path
) -> None:
    uri = open_document(client, tmp_path / "k.cu", TYPING)
    await diagnostics_for(client, uri, version=1)  # the server holds the document
    items = await complete_at_end(client, uri, TYPING)
    assert [i.label for i in items] == ["shared", "shared::cta"]
    edit = items[0].text_edit
    assert isinstance(edit, lsp.TextEdit) and edit.new_text == "shared"
    assert edit.range.start == edit.range.end == lsp.Position(1, len(TYPING.split("\n")[1]))


@pytest.mark.asyncio
async def test_opcodes_are_those_of_the_configured_toolkit(client: Client, tmp_path) -> None:
    # fabric is new in ptxas 13.3: not offered for the default toolkit (13.0, as PTX204's
    # verdicts), offered where the folder's configuration names 13.5
    typing = '__device__ void f() {\n  asm volatile("fab'
    plain = tmp_path / "plain"
    newer = tmp_path / "newer"
    plain.mkdir()
    newer.mkdir()
    (newer / "ptxlint.toml").write_text('cuda-version = "13.5"\n')
    for folder, expected in ((plain, []), (newer, ["fabric"])):
        uri = open_document(client, folder / "k.cu", typing)
        await diagnostics_for(client, uri, version=1)
        result = await client.text_document_completion_async(lsp.CompletionParams(
            lsp.TextDocumentIdentifier(uri), lsp.Position(1, len(typing.split("\n")[1]))))
        labels = [] if result is None else [i.label for i in result.items]
        assert labels == expected, folder


@pytest.mark.asyncio
async def test_a_whole_spelling_outside_a_string_completes_to_the_statement(
    client: Client, tmp_path
) -> None:
    uri = open_document(client, tmp_path / "k.cu", SPELLED)
    await diagnostics_for(client, uri, version=1)
    [item] = await complete_at_end(client, uri, SPELLED)
    assert item.kind == lsp.CompletionItemKind.Snippet
    assert item.insert_text_format == lsp.InsertTextFormat.Snippet
    assert isinstance(item.text_edit, lsp.TextEdit)
    assert "__cvta_generic_to_shared(${1:dst})" in item.text_edit.new_text
    assert item.text_edit.range.start == lsp.Position(1, 2)


@pytest.mark.asyncio
async def test_hover_shows_the_derived_constraints(client: Client, tmp_path) -> None:
    uri = open_document(client, tmp_path / "k.cu", BAD)
    await diagnostics_for(client, uri, version=1)
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(2, BAD_LINE.index("add.u32") + 1)))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert 'Derived constraints (`ptxlint new add.u32`): outputs `"=r"`' in hover.contents.value
