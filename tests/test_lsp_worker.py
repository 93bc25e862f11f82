"""The language server's lint workers: edits travel as the range that changed, a document goes
back to the worker holding its last lint, and replies carry findings without the file."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

from ptxlint.engine import SelectAll, instantiate, lint_source  # noqa: E402
from ptxlint.lsp import worker  # noqa: E402
from ptxlint.model import SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402

STATEMENT = '  asm volatile("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));\n'
FILLER = "  d = d * 3u + 1u;  // plain C++ between the asm statements\n"
TEXT = (
    "__device__ unsigned f(unsigned a, unsigned b) {\n  unsigned d = 0;\n"
    + (STATEMENT + FILLER * 5) * 40
    + "  return d;\n}\n"
)


def test_a_worker_applies_an_edit_to_the_text_it_holds() -> None:
    worker._STATE["texts"].clear()
    assert worker._text_of("a.cu", (1, "hello world")) == "hello world"
    assert worker._text_of("a.cu", (1, 2, 6, 11, "there")) == "hello there"
    assert worker._text_of("a.cu", (2, 3, 0, 0, ">")) == ">hello there"
    assert worker._text_of("a.cu", (2, 4, 0, 1, "")) is None  # not the text it holds
    assert worker._text_of("b.cu", (0, 5, 0, 0, "x")) is None  # never sent
    assert worker._STATE["texts"]["a.cu"] == (3, ">hello there")


def test_the_service_sends_what_changed_and_gets_a_full_lints_findings(tmp_path) -> None:
    path = str(tmp_path / "k.cu")
    rules = instantiate(load_rules().rules)

    def full(text: str) -> list[tuple]:
        result = lint_source(SourceFile(path, text), rules, RuleContext(), SelectAll())
        return [(f.rule, f.span, f.message) for f in result.findings]

    async def run() -> None:
        service = worker.LintService(workers=1)
        service.start()
        await service.started()
        try:
            texts = [TEXT, TEXT.replace("%1, %2", "%1, %3", 1), TEXT.replace("%1, %2", "%3, %2")]
            for text in texts:
                reply = await service.lint(path, text)
                assert [(f.rule, f.span, f.message) for f in reply.value.findings] == full(text)
                assert reply.value.statements == [] and reply.value.source is None
            assert len(service._payload(0, path, texts[0])) == 5  # a range, not all
            # the worker holds another text than the service thinks: it asks for the whole
            service._sent[(0, path)] = (-7, texts[0] + "x")
            reply = await service.lint(path, texts[1] + "x")
            assert [(f.rule, f.span) for f in reply.value.findings] == [
                (r, s) for r, s, _ in full(texts[1] + "x")
            ]
            offset = texts[1].index("add.u32")
            instruction = (await service.instruction(path, texts[1], offset)).value
            assert instruction is not None and instruction.mnemonic == "add.u32"
        finally:
            service.close()

    asyncio.run(run())


def test_a_document_goes_back_to_its_worker_unless_that_one_is_busy() -> None:
    service = worker.LintService(workers=2)
    service._slots = [None, None]
    assert service._slot_for("a.cu") == 0
    service._home["a.cu"] = 1
    assert service._slot_for("a.cu") == 1
    busy = worker._Worker(pool=None, ready=None)  # type: ignore[arg-type]
    busy.calls.append("b.cu")
    service._slots[1] = busy
    assert service._slot_for("a.cu") == 0  # busy with another document: the idle one
    busy.calls[:] = ["a.cu"]
    assert service._slot_for("a.cu") == 1  # busy with this one: its re-lint is quick there
