"""Where the protocol rules speak in a file with no asm statement of its own.

A kernel file of CUTLASS, CuTe, flashinfer, DeepGEMM or ThunderKittens often holds no asm: it
takes every protocol step through the helpers its project headers define
(``cp_async_wait<N>()``, ``warpgroup_arrive()``). The per-function flows
(:mod:`.function_flow`) follow those calls as in any file, but the rules are asked statement
by statement, and the findings about a header helper's step are carried by a statement the
file spells itself (``FileFlows._anchor``, :func:`.function_flow.carries`). Such a file has
none, or only statements a macro expanded (DeepGEMM's impl files: the trap of
``DG_TRAP_ONLY_DEVICE_ASSERT`` at the kernel's top), which would place a finding at the
macro's invocation: :func:`carrier` makes one, an empty statement spanning the first call
through which a function of the file reaches a helper's step, and gives it to the flows as
their carrier. The engine asks each rule that needs ``helper-calls``
(``ptxlint.rule.HELPER_CALLS``) about it once, and reports what they find with no statement of
the file: each finding's span is the call, as in a file with asm.
"""

from __future__ import annotations

from ptxlint.analysis.function_flow import carries, flows_of
from ptxlint.model import AsmStatement, Context, SourceFile, Span, Template
from ptxlint.ptx.parser import parse_template

__all__ = ["carrier", "carries"]


def carrier(source: SourceFile, context: object) -> AsmStatement | None:
    """The statement that carries the helper steps of ``source`` (a file whose extraction
    found no statement that ``carries`` them), set as its flows' carrier; ``None`` where no
    function of the file reaches a step of an included header's helper."""
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
