"""Where the protocol rules speak about the steps a file takes through its headers' helpers.

A kernel file of CUTLASS, CuTe, flashinfer, DeepGEMM or ThunderKittens often holds no asm: it
takes every protocol step through the helpers its project headers define
(``cp_async_wait<N>()``, ``warpgroup_arrive()``); or only the asm of a macro it expands
(DeepGEMM's ``DG_TRAP_ONLY_DEVICE_ASSERT``). The per-function flows (:mod:`.function_flow`)
follow those calls as in any file, but the rules are asked statement by statement, and a
header helper's statement is not the file's. :func:`carrier` makes one, an empty statement
spanning the first call through which a function of the file reaches a helper's step, and
gives it to the flows as their carrier (``FileFlows.carry``), whether the file has asm of its
own or not. The engine asks each rule that needs ``helper-calls``
(``ptxlint.rule.HELPER_CALLS``) about it once, and reports what they find with no statement of
the file: each finding's span is the call, and so are the lines a suppression must be on.
Carried by an asm statement of the file, a finding took that statement's lines (a suppression
on the call's line did not reach it, one on the statement's did), its guards (``latent``) and,
for a macro's expansion, the invocation's place.
"""

from __future__ import annotations

from ptxlint.analysis.function_flow import flows_of
from ptxlint.model import AsmStatement, Context, SourceFile, Span, Template
from ptxlint.ptx.parser import parse_template

__all__ = ["carrier"]


def carrier(source: SourceFile, context: object) -> AsmStatement | None:
    """The statement that carries the helper steps of ``source``, set as its flows' carrier;
    ``None`` where no function of the file reaches a step of an included header's helper."""
    flows = flows_of(context, source.path)
    if flows is None:
        return None
    own = flows.parsed.text
    first: tuple[int, int, str] | None = None
    for flow in flows.flows():
        for step in flow.steps:
            call = step.call
            if call is not None and step.statement.source.text is not own:
                if first is None or call.start < first[0]:
                    first = (call.start, call.end, flow.name)
                break  # steps are in source order: the function's first such call
    if first is None:
        return None
    start, end = flows.parsed.to_char(first[0]), flows.parsed.to_char(first[1])
    made = AsmStatement(
        source=source,
        keyword="",
        span=Span(start, end),
        qualifiers=(),
        extended=False,
        template=Template("", (), (), ()),
        operands=(),
        clobbers=(),
        goto_labels=(),
        colons=(),
        open_paren=start,
        close_paren=end,
        context=Context(function=first[2] or None),
        ptx=parse_template("", False),
    )
    flows.carry(made)
    return made
