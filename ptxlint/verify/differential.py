"""Differential evidence for the optimizer rules (PTX101-106): compile the file as written and
with the finding's fix at -O3 to PTX, and compare.

nvcc marks every inlined asm in its PTX with ``// begin inline asm`` / ``// end inline asm``, so
the copies of *this* statement can be counted: fewer copies as written than with the fix means
the optimizer deleted, merged or hoisted it. Any other difference in the code means the fix
changes what the optimizer may do around the asm (a load kept in a register across it, a store
dropped). Identical PTX is reported as such: the defect is real by the contract but nvcc does not
exploit it today.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Sequence

from ptxlint.analysis.flow_syntax import function_name
from ptxlint.fix import apply_edits
from ptxlint.model import AsmStatement, Finding
from ptxlint.value_class import value_class
from ptxlint.verify import scratch
from ptxlint.verify.asm_blocks import Block, asm_blocks, block_at, outside_blocks
from ptxlint.verify.runner import Compile

OUTPUT = "out.ptx"
_REGISTER = re.compile(r"%(?:rd|rs|r|fd|f|p|rq)\d+")
_LABEL = re.compile(r"\$L__\w+")


@value_class(slots=False)
class Pair:
    """The two compiles of a differential check: the file as written and with the finding's fix."""

    defective: Compile
    fixed: Compile


def fixed_text(finding: Finding, text: str) -> str | None:
    if finding.fix is None or not finding.fix.edits:
        return None
    new, applied = apply_edits(text, [finding.fix])
    return new if applied else None


def compile_job(nvcc: str, path: str, text: str, arch: str, flags: Sequence[str]) -> Compile:
    """UnsafeArgument when a flag holds shell syntax (see ptxlint.verify.scratch)."""
    scratch.check_flags(flags)
    name = scratch.SOURCE_NAME  # never the user's: nvcc puts it in sh -c (headers: as CUDA)
    include, links = scratch.folder_args(path)
    files, shadow = scratch.sources(path, text, flags)
    # -rdc keeps every external __device__ function, called or not; -I finds the file's own
    # includes from the scratch copy
    args = (nvcc, f"-arch={arch}", "-O3", "-ptx", "-rdc=true", *shadow, *include, *flags,
            "-o", f"{{dir}}/{OUTPUT}", f"{{dir}}/{name}")
    return Compile(tuple(args), files, (OUTPUT,), links=links)


PREPROCESSED = "pre.ii"
_LINE_MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')


def preprocess_job(nvcc: str, path: str, text: str, arch: str, flags: Sequence[str]
                   ) -> tuple[Compile, str]:
    """The file's device-side preprocessing for ``arch`` (``nvcc -E``, as ``compile_job``
    compiles it), and the name its text has in the line markers. UnsafeArgument as
    ``compile_job``."""
    scratch.check_flags(flags)
    include, links = scratch.folder_args(path)
    files, shadow = scratch.sources(path, text, flags)
    args = (nvcc, f"-arch={arch}", "-E", *shadow, *include, *flags,
            "-o", f"{{dir}}/{PREPROCESSED}", f"{{dir}}/{scratch.SOURCE_NAME}")
    return Compile(tuple(args), files, (PREPROCESSED,), links=links), files[-1][0]


def holds_line(preprocessed: str, name: str, line: int, word: str) -> bool:
    """Whether the preprocessor's output (``nvcc -E``) holds line ``line`` of the file it
    names ``name`` (its copy: the end of the path in its line markers), spelling ``word`` (the
    asm keyword): a branch its ``#if`` lines left out is no line of the output, or an empty
    one (the preprocessor keeps a few lines' numbering with blank lines)."""
    here = ""
    at = 0
    for text in preprocessed.splitlines():
        marker = _LINE_MARKER.match(text) if text.startswith("#") else None
        if marker is not None:
            here, at = marker[2], int(marker[1])
            continue
        if at == line and word in text and (here == name or here.endswith("/" + name)):
            return True
        at += 1
    return False


def normalize(ptx: str) -> list[str]:
    """Instructions only, registers and labels renamed: differences that are mere renumbering
    are not differences in what the optimizer did."""
    out = []
    for line in ptx.splitlines():
        line = line.split("//", 1)[0].strip()
        if not line or line.startswith("."):
            continue
        out.append(_LABEL.sub("$L", _REGISTER.sub("%R", line)))
    return out


def asm_copies(ptx: str, mnemonic: str) -> int:
    """How many inline-asm blocks contain ``mnemonic`` (the statement's first instruction)."""
    return sum(1 for block in asm_blocks(ptx) if mnemonic in block.text)


def judge(defective_ptx: str, fixed_ptx: str, mnemonic: str, tool: str) -> tuple[bool, str]:
    """(confirmed, evidence)."""
    before, after = asm_copies(defective_ptx, mnemonic), asm_copies(fixed_ptx, mnemonic)
    if before != after:
        what = "deleted" if before == 0 else "merged or hoisted"
        return True, (f"{tool} -O3 emits `{mnemonic}` {before}x as written and {after}x with the "
                      f"fix: the optimizer {what} it")
    # the asm's own lines are the template, which a fix may rewrite (PTX105's reversed mov):
    # what the optimizer did is the code around each copy
    a = normalize(outside_blocks(defective_ptx, "<inline asm>"))
    b = normalize(outside_blocks(fixed_ptx, "<inline asm>"))
    if a != b:
        moved = memory_ops(a) != memory_ops(b)
        detail = ("loads/stores around the asm differ" if moved
                  else "the code around the asm is scheduled differently")
        changed = changed_lines(a, b)
        return True, (f"{tool} -O3 compiles the defective and fixed variants differently "
                      f"({changed} PTX lines differ): {detail}")
    return False, (f"not exploited by {tool} -O3 today: the defective and fixed variants "
                   "compile to the same code around the asm")


# above this many lines left once the common head and tail are set aside, lines are counted
# without a line diff: difflib's matching of two such halves took minutes
_DIFF_LIMIT = 20_000


def changed_lines(a: Sequence[str], b: Sequence[str]) -> int:
    """How many lines a line diff of ``a`` and ``b`` removes or adds. difflib.ndiff also
    compares the characters of every replaced line with every other: on torchcomms'
    TransferBench.hpp (921,158 PTX lines per variant, apart from the fourth line on) it ran
    for over fifteen minutes. The common head and tail are set aside, and what is left is
    matched line by line, or, past ``_DIFF_LIMIT``, counted as the lines one side holds more
    often than the other (the lines out of place where both hold the same)."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a, b = a[head:len(a) - tail], b[head:len(b) - tail]
    if len(a) + len(b) > _DIFF_LIMIT:
        extra = Counter(a)
        extra.subtract(b)
        apart = sum(abs(n) for n in extra.values())
        return apart or sum(x != y for x, y in zip(a, b, strict=False))
    matcher = difflib.SequenceMatcher(None, a, b)
    return sum((i2 - i1) + (j2 - j1)
               for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def memory_ops(lines: list[str]) -> list[str]:
    ops = (x.split()[0] for x in lines)
    return [op for op in ops if op.split(".")[0] in ("ld", "st", "atom", "red")]


# --------------------------------------------------------------------------- carry placement
_CARRY_PRODUCER = re.compile(r"^\s*(?:@!?%?\w+\s+)?\w+(?:\.\w+)*\.cc\b")
_PTX_LABEL = re.compile(r"^\s*\$?[\w$]+:")
_PTX_FUNCTION = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(?:entry|func)\s+"
                           r"(?:\([^)]*\)\s*)?([\w$]+)")


def template_pattern(statement: AsmStatement) -> re.Pattern[str] | None:
    """A pattern for the statement's inline-asm block in nvcc's PTX: the template with every
    ``%N`` standing for any register or immediate; ``None`` for a template with a macro."""
    text = statement.template.text
    if statement.template.has_holes:
        return None
    out: list[str] = []
    i = 0
    # every % token in one text-order pass, not the operand index (``template_refs``): the
    # pattern spells the text between the tokens too, and the index holds no %=
    for token in statement.ptx.percents:
        out.append(_loose(text[i:token.start]))
        piece = text[token.start:token.end]
        out.append(r"[^\s,;{}\[\]]+" if token.kind == "ref" else
                   "%" if token.kind == "escape" else
                   r"\d+" if token.kind == "unique" else _loose(piece))  # nvcc numbers %=
        i = token.end
    out.append(_loose(text[i:]))
    return re.compile(r"\s*" + "".join(out) + r"\s*", re.S)


def _loose(text: str) -> str:
    return r"\s*".join(re.escape(part) for part in re.split(r"\s+", text))


def carry_judge(ptx: str, statement: AsmStatement, consumer: str, tool: str
                ) -> tuple[bool, str]:
    """(confirmed, evidence): whether some copy of ``statement`` in ``ptx`` runs its carry
    consumer ``consumer`` (a mnemonic) with no ``.cc`` producer before it on its path."""
    pattern = template_pattern(statement)
    if pattern is None:
        return False, "the template has a macro piece: its PTX cannot be recognised"
    lines = ptx.splitlines()
    blocks = asm_blocks(lines)
    copies = 0
    # identical templates elsewhere in the file are not this statement: keep the copies in
    # functions whose mangled name holds the statement's function (<length><name>), which
    # includes the function itself and, where it was inlined, nothing else; callers' copies
    # are found through the un-inlined -rdc copy of the function
    owner = function_name(statement.context.function or "")
    needle = f"{len(owner)}{owner}" if owner.isidentifier() else ""
    for begin, block, function in _blocks(lines, blocks):
        if needle and needle not in function:
            continue
        if not pattern.fullmatch(block):
            continue
        copies += 1
        before = _before_block(lines, begin, blocks)
        if before is not None:
            return True, (f"{tool} -O3 emits `{consumer}` with no asm statement's carry "
                          f"producer before it on its path: {before}")
    if not copies:
        return False, f"this statement is not in the PTX {tool} -O3 emits (not instantiated?)"
    return False, (f"not exploited by {tool} -O3 today: each of the {copies} copies of the "
                   "statement follows a '.cc' producer")


def _blocks(lines: list[str], blocks: Sequence[Block] | None = None
            ) -> list[tuple[int, str, str]]:
    """(0-based line of `// begin inline asm`, the block's text, the PTX function it is in)."""
    headers: list[tuple[int, str]] = []  # (line, name) of each function header, in order
    for n, line in enumerate(lines):
        header = _PTX_FUNCTION.match(line)
        if header:
            headers.append((n, header.group(1)))
    out = []
    for block in asm_blocks(lines) if blocks is None else blocks:
        begin = block.begin - 1
        at = bisect.bisect_left(headers, (begin, "")) - 1
        out.append((begin, block.text, headers[at][1] if at >= 0 else ""))
    return out


def _before_block(lines: list[str], begin: int, blocks: Sequence[Block]) -> str | None:
    """What precedes the asm block starting at line ``begin`` on its path, when it is not a
    carry producer of an asm statement (``blocks``): a label (a join), the function entry, a
    producer nvcc emitted for the C++ code between (a 128-bit addition's ``add.cc.s64``, whose
    carry the consumer then reads); ``None`` when an asm's producer comes first."""
    last = ""
    for n in range(begin - 1, -1, -1):
        line = lines[n].split("//", 1)[0].strip()
        if not line or line.startswith("."):
            continue
        if line == "{":
            return "it is reached from the function entry" + (
                f" (the last instruction before it is `{last}`)" if last else "")
        if _PTX_LABEL.match(line):
            return f"it follows the label `{line}`, a join of several paths" + (
                f", then `{last}`" if last else "")
        if _CARRY_PRODUCER.match(line):
            if block_at(blocks, n + 1) is not None:
                return None
            return (f"the carry it reads is the one `{line}` sets, which nvcc emitted for the "
                    "C++ code before it")
        if not last:
            last = line
    return "no carry producer precedes it"
