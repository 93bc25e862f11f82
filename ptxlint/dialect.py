"""Is this asm statement device PTX, host assembly (x86/ARM), or impossible to tell?

ptxlint must never report host assembly (llama.cpp's CPU code has plenty), so the decision leans
to silence: a statement is linted only when its own text or its context says it is PTX and
nothing in the text says it is x86 or ARM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxlint.model import HOLE
from ptxlint.ptx.opcodes import PTX_DIRECTIVES, PTX_OPCODES

# Register names and syntax that PTX never uses. `%r1` is a PTX register too, so only the
# unmistakable x86 names count.
_X86_TEXT = re.compile(
    r"%%?(?:[re]?(?:ax|bx|cx|dx|si|di|sp|bp|ip)|[re]?[abcd][lh]|[xyz]mm\d+|k[0-7]|st\(\d\)|"
    r"r(?:8|9|1[0-5])[dwb]?|[cdefgs]s)\b"
    r"|(?<![\w$])\$(?:0x[0-9a-fA-F]+|-?\d+)\b"
    r"|^\s*(?:rep|lock)\b"
    r"|\b(?:cpuid|rdtsc|rdtscp|xgetbv|pause|lfence|mfence|sfence|clflush|int3|ud2|movl|movq|"
    r"movw|movb|addl|addq|subl|subq|xorl|xorq|cmpxchg\w*|xchg\w*|vmov\w+|vpadd\w*|vpmadd\w*|"
    r"vfmadd\w*|vbroadcast\w*|vpdp\w+|prefetcht[012]|prefetchnta|pushq?|popq?|leaq?|"
    r"cltq|cqto|shlq|shrq|tzcnt|lzcnt|popcnt|vzeroupper)\b",
    re.M,
)
_ARM_TEXT = re.compile(
    r"\b(?:dmb|dsb|isb|mrs|msr|yield|wfe|wfi|sev|ldr[bhd]?|str[bhd]?|ldp|stp|ldxr|stxr|ldaxr|"
    r"stlxr|vld1\w*|vst1\w*|ld1[bhwd]?|st1[bhwd]?|ld1r|ld[234]|st[234]|fmla|fmls|sdot|udot|usdot|"
    r"smmla|ummla|bfmmla|bfdot|ptrue|whilelt|prfm|cntvct_el0|cntfrq_el0|svcntb|tbl|tbx|zip[12]|"
    r"uzp[12]|ext|ins|dup|umov|smov)\b"
    r"|%\d+\.(?:\d+)?[bhsdq]\b|%\[\w+\]\.(?:\d+)?[bhsdq]\b"
    r"|\b[vzqdp]\d{1,2}\.(?:\d+)?[bhsdq]\b|\b[xw](?:[12]?\d|3[01])\b",
    re.M,
)
# Constraint letters that are meaningful on x86/ARM but not on NVPTX; alone they prove nothing
# (PTX002 flags them in device code), but with no PTX in sight they tip the balance to host.
_HOST_CONSTRAINT_LETTERS = set("abcdSDAtuxyYwQIJKLMNOGKZ")

_STATEMENT_START = re.compile(r"(?:^|[;{}\n])\s*(?:[A-Za-z_$][\w$]*\s*:(?!:)\s*)*(?:@!?\S+\s+)?"
                              r"([.A-Za-z_][\w]*)")
_HOLE_OPCODE = re.compile(HOLE + r"(?=\.(?:[fsub](?:8|16|32|64)|f16x2|bf16x2?|pred)\b)")
_DEVICE_SPECIFIERS = ("__device__", "__global__")


@dataclass(frozen=True)
class Verdict:
    dialect: str  # "ptx" | "host" | "unknown"
    reason: str


def _first_words(template: str) -> list[str]:
    return [m.group(1) for m in _STATEMENT_START.finditer(template)]


def classify(
    template: str,
    constraint_letters: str,
    *,
    path: str,
    function_specifiers: tuple[str, ...],
    guards: tuple[str, ...],
) -> Verdict:
    text = template.replace(HOLE, " ")
    if _X86_TEXT.search(text):
        return Verdict("host", "x86 assembly syntax in the template")
    words = _first_words(text)
    ptx_words = [w for w in words if w in PTX_OPCODES or w in PTX_DIRECTIVES]
    # `"{" STRINGIFY(op) ".f16 %0,%1;}"`: an opcode from a macro followed by a PTX type.
    ptx_words += _HOLE_OPCODE.findall(template)
    if _ARM_TEXT.search(text) and not ptx_words:
        return Verdict("host", "ARM assembly syntax in the template")
    if ptx_words and len(ptx_words) * 2 >= len(words):
        return Verdict("ptx", f"PTX instruction {ptx_words[0]!r}")
    device_context = _device_context(path, function_specifiers, guards)
    if device_context and not (set(constraint_letters) & _HOST_CONSTRAINT_LETTERS and not words):
        if words and not ptx_words:
            # Device context but no word of the template is PTX: an unknown opcode is a PTX204
            # finding, but only where the rest of the file says this is device code.
            return Verdict("ptx", f"{device_context}; no known PTX opcode")
        return Verdict("ptx", device_context)
    return Verdict("unknown", "neither the template nor its context says this is PTX")


def _device_context(path: str, specifiers: tuple[str, ...], guards: tuple[str, ...]) -> str:
    if any(s in _DEVICE_SPECIFIERS for s in specifiers):
        return "in a __device__/__global__ function"
    for guard in guards:
        if "__CUDA_ARCH__" in guard and not guard.startswith("!"):
            return "under a __CUDA_ARCH__ guard"
    return ""
