"""PTX606/PTX607's evidence: ptxas's own words about the wgmma protocol.

Compiled for sm_90a (``-gencode arch=compute_90a,code=sm_90a``), ptxas repairs a wgmma
sequence that breaks the register protocol and says so in an info line that names the
function (CUDA 13.0):

* ``(C7517) warpgroup.wait is injected in around line N by compiler to allow use of registers
  defined by GMMA in function '<mangled>'``: an accumulator used before its wait (PTX606);
* ``(C7519) warpgroup.arrive is injected in around line N by compiler to allow use of
  registers in GMMA in function '<mangled>'``: registers written before the wgmma with no
  ``wgmma.fence`` (PTX607).

The file is compiled as written (``-rdc=true`` keeps every external ``__device__`` function);
the finding is confirmed when the line for its rule names the function around the finding
(its Itanium-mangled name holds ``<length><name>``). No such line does not refute it: ptxas
patches only what it sees (a wait with no commit before it gets no line, and is undefined all
the same), so the finding stays unverifiable with that reason.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.analysis.flow_syntax import function_name
from ptxlint.frontends.syntax_tree import own_function_name, parse
from ptxlint.model import Finding
from ptxlint.verify import scratch
from ptxlint.verify.identity import tool_id
from ptxlint.verify.probe_errors import compile_failure
from ptxlint.verify.recipes import WGMMA_INFO
from ptxlint.verify.runner import Compile, UnsafeArgument
from ptxlint.verify.verdict import CONFIRMED, Verdict, unverifiable

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier

ARCH = ("-gencode", "arch=compute_90a,code=sm_90a")
CODES = {"PTX606": "C7517", "PTX607": "C7519"}
_INFO = re.compile(r"\((C75\d\d)\) (.*?) in function '([^']+)'")


def compile_job(nvcc: str, path: str, text: str, flags: tuple[str, ...]) -> Compile:
    """The file as written, compiled to an sm_90a object; UnsafeArgument when a flag holds
    shell syntax (see ptxlint.verify.scratch)."""
    scratch.check_flags(flags)
    include, links = scratch.folder_args(path)
    files, shadow = scratch.sources(path, text, flags)
    args = (nvcc, *ARCH, "-O3", "-c", "-rdc=true", *shadow, *include, *flags,
            "-o", "{dir}/probe.o", f"{{dir}}/{scratch.SOURCE_NAME}")
    return Compile(tuple(args), files, links=links)


def function_around(text: str, path: str, offset: int) -> str | None:
    """The name of the innermost function definition around character ``offset``."""
    parsed = parse(path, text)
    byte = parsed.to_byte(offset)
    node = parsed.tree.root_node.descendant_for_byte_range(byte, byte)
    while node is not None and node.type != "function_definition":
        node = node.parent
    name = own_function_name(node) if node is not None else None
    if name is None:
        return None
    return function_name(parsed.node_text(name)) or None


def judge(messages: str, rule: str, function: str) -> str | None:
    """The ptxas line for ``rule`` about ``function``, or ``None``."""
    code = CODES.get(rule)
    mangled_name = f"{len(function)}{function}"
    for match in _INFO.finditer(messages):
        if match.group(1) == code and mangled_name in match.group(3):
            return match.group(0)
    return None


def plan(verifier: Verifier, finding: Finding) -> None:
    nvcc = verifier.toolchain.nvcc
    source = verifier.result.sources.get(finding.path)
    if nvcc is None:
        verifier.differential[id(finding)] = "the compile needs nvcc"
        return
    if source is None:
        verifier.differential[id(finding)] = "the source is not available"
        return
    flags = verifier.flags(
        finding.path, verifier.defines(finding.statement) if finding.statement else ())
    try:
        job = compile_job(nvcc.path, finding.path, source.text, tuple(flags))
    except UnsafeArgument as exc:
        verifier.differential[id(finding)] = str(exc)
        return
    key = verifier.plan.add(f"wgmma:{job}", job, tool_id(verifier.toolchain, "nvcc"))
    verifier.differential[id(finding)] = (key, key)


def verdict(verifier: Verifier, finding: Finding) -> Verdict:
    arch = "sm_90a"
    tool = verifier.toolchain.label("nvcc")
    planned = verifier.differential.get(id(finding), "not planned")
    if isinstance(planned, str):
        return unverifiable(planned, arch, tool, WGMMA_INFO)
    outcome = verifier.outcomes[planned[0]]
    if outcome.returncode != 0:
        return unverifiable(f"the file does not compile for sm_90a on its own "
                            f"({compile_failure(outcome, finding.path)}); pass --cuda-flags "
                            "with its include paths and defines", arch, tool, WGMMA_INFO)
    source = verifier.result.sources.get(finding.path)
    function = function_around(source.text, finding.path, finding.span.start) \
        if source is not None else None
    if function is None:
        return unverifiable("no function around the finding", arch, tool, WGMMA_INFO)
    line = judge(outcome.messages, finding.rule, function)
    if line is None:
        return unverifiable(f"ptxas printed no {CODES.get(finding.rule)} for {function}(): "
                            "it patches only what it sees; the claim rests on the PTX ISA",
                            arch, tool, WGMMA_INFO)
    return Verdict(CONFIRMED, tool, arch, f"ptxas: {line}", WGMMA_INFO)
