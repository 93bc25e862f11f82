"""``dialect._x86_text`` and ``dialect._arm_arrangement`` answer what one search with the
pattern they were split from would (``_X86_TEXT``, ``_ARM_ARRANGEMENT``: kept as text only)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptxlint.frontends.cxx import dialect

FIXTURES = Path(__file__).parent.parent / "fixtures"

SAMPLES = [
    "",
    "mov.u32 %0, %1;",
    "movl %%eax, %0",
    "mov %eax, %ebx",
    "%%rax",
    "%r1",
    "%r8d",
    "%r8",
    "%%r15 %%r16",
    "%xmm0",
    "%st(0)",
    "%k3",
    "%es",
    "addl $0x10, %0",
    "add $-1, %0",
    "a$1",
    "$$1",
    "rep movsb",
    "  lock; xchg %0, %1",
    "x rep",
    "cpuid",
    "xcpuid",
    "_cpuid",
    "rdtscp\n",
    "vmovaps %%ymm0, %0",
    "prefetcht0 (%0)",
    "ld.global.v4.u32 {%0, %1, %2, %3}, [%4];",
    "fmla %0.4s, %1.4s, %2.4s",
    "ld1 {v1.16b}, [%0]",
    "xv1.16b",
    "add %w[out], %w[a], %w[b]",
    "%x[ptr]",
    "mov.b64 %0, {%1, %2};\n\tpause\n",
    # a letter after % or %%: where the searches for registers are asked at all
    "%%%eax",
    "%0%eax",
    "%%0 %%1",
    "%EAX",
    "%%laneid",
    "%é",
]

# Each alternative of the x86 words, alone, after a word character, at a word's end and inside
# one, and where another alternative of its first letter fails first (``popcnt`` after
# ``popq?``, ``rdtscp`` after ``rdtsc``)
X86_WORDS = """addl addq cpuid clflush cmpxchg cmpxchg8b cltq cqto int3 lfence lea leaq lzcnt mfence
    movl movq movw movb pause push pushq pop popq popcnt prefetcht0 prefetcht2 prefetchnta rdtsc
    rdtscp sfence subl subq shlq shrq tzcnt ud2 vmovaps vpaddd vpadd vpmaddwd vfmadd231ps
    vbroadcastss vpdpbusd vzeroupper xgetbv xorl xorq xchg xchgl""".split()
X86_NEAR_MISSES = "addw vmov vpdp prefetcht3 pushl popl rdtscx int30 ud20 movd movsb xor".split()
SAMPLES += [
    form.format(word)
    for word in X86_WORDS + X86_NEAR_MISSES
    for form in ("{}", "_{}", "{}_", "a{}b", "x {} %0", "{}é", "é{}")
]


def _lines() -> list[str]:
    lines = list(SAMPLES)
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".cu", ".cuh", ".h", ".cpp", ".py"):
            lines.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return lines


@pytest.mark.parametrize(
    ("split", "pattern", "flags"),
    [
        (dialect._x86_text, dialect._X86_TEXT, re.M),
        (dialect._arm_arrangement, dialect._ARM_ARRANGEMENT, 0),
    ],
)
def test_the_split_search_answers_as_the_whole_pattern(split, pattern, flags) -> None:
    whole = re.compile(pattern, flags)
    lines = _lines()
    assert len(lines) > 1000  # the fixtures were found
    for text in [*lines, "\n".join(lines[:400])]:
        assert split(text) == (whole.search(text) is not None), text


OTHER_ISA_SAMPLES = [
    "fence rw, rw",
    "  fence.tso r,w",
    "\n\t fence iorw , iorw\n",
    "x fence r, w",
    "fence.i",
    "fence.i  \nnop",
    "mov.u32 %0, 1;\n  fence.i",
    "fence.sc.cta;",
    "fence.acq_rel.gpu;",
    ".set noreorder",
    "  .set mips32r2\n",
    "x .set at",
    ".setnoreorder",
    "move $sp, %0",
    "$zero",
    "a$ra",
    "st %%fsr, %0",
    "membar #StoreLoad",
    "%%psr",
    "%0, %tick",
    "%%0 #Sync",
    "%1 #",
    "\u00a0fence r,w",
]


def test_other_isas_are_found_as_their_whole_patterns_find_them() -> None:
    whole = [
        (isa, re.compile(pattern, re.M if isa != "SPARC" else 0))
        for isa, pattern in dialect._OTHER_ISA_TEXT
    ]

    def by_whole(text: str) -> str | None:
        return next((isa for isa, pattern in whole if pattern.search(text)), None)

    lines = _lines()
    found = set()
    for text in [*OTHER_ISA_SAMPLES, *lines, "\n".join(lines[:400])]:
        expected = by_whole(text)
        assert dialect._other_isa_text(text) == expected, text
        found.add(expected)
    assert found == {None, "SPARC", "RISC-V", "MIPS"}
