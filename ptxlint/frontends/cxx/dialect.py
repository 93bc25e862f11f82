"""Is this asm statement device PTX, host assembly (x86/ARM), or impossible to tell?

ptxlint must never report host assembly (llama.cpp's CPU code has plenty), so the decision leans
to silence: a statement is linted only when its own text or its context says it is PTX and
nothing in the text says it is x86 or ARM.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ptxlint.frontends.cxx import preproc
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import HOLE, PtxTemplate
from ptxlint.ptx.opcodes import PTX_DIRECTIVES, PTX_OPCODES
from ptxlint.ptx.targets import no_device_pass

# Register names and syntax that PTX never uses. `%r1` is a PTX register too, so only the
# unmistakable x86 names count: `%r8`-`%r15` are also the names nvcc gives PTX's 32-bit
# registers, and count only where no instruction is PTX's (``_X86_WIDE_REGISTER``).
# Searched in multi-line mode. Kept as text, never compiled (a fifth of this module's import):
# ``_x86_text`` answers the same question faster, and tests/test_dialect_patterns.py checks
# that it does.
_X86_TEXT = (
    r"%%?(?:[re]?(?:ax|bx|cx|dx|si|di|sp|bp|ip)|[re]?[abcd][lh]|[xyz]mm\d+|k[0-7]|st\(\d\)|"
    r"r(?:8|9|1[0-5])[dwb]|[cdefgs]s)\b"
    r"|(?<![\w$])\$(?:0x[0-9a-fA-F]+|-?\d+)\b"
    r"|^\s*(?:rep|lock)\b"
    r"|\b(?:cpuid|rdtsc|rdtscp|xgetbv|pause|lfence|mfence|sfence|clflush|int3|ud2|movl|movq|"
    r"movw|movb|addl|addq|subl|subq|xorl|xorq|cmpxchg\w*|xchg\w*|vmov\w+|vpadd\w*|vpmadd\w*|"
    r"vfmadd\w*|vbroadcast\w*|vpdp\w+|prefetcht[012]|prefetchnta|pushq?|popq?|leaq?|"
    r"cltq|cqto|shlq|shrq|tzcnt|lzcnt|popcnt|vzeroupper)\b"
)
# ARM/AArch64: judged by instruction words (first words of statements) and by vector register
# arrangements (`%0.4s`, `v1.16b`), which PTX never writes.
_ARM_WORDS = frozenset(
    """dmb dsb isb mrs msr yield wfe wfi sev ldr ldrb ldrh ldrd str strb strh strd ldp stp ldxr
    stxr ldaxr stlxr vld1 vst1 ld1 ld1b ld1h ld1w ld1d ld1r ld2 ld3 ld4 st1 st1b st1h st1w st1d
    st2 st3 st4 fmla fmls sdot udot usdot smmla ummla bfmmla bfdot ptrue whilelt prfm tbl tbx zip1
    zip2 uzp1 uzp2 umov smov""".split()
)
# What ``_X86_TEXT.search`` finds, split where a match starts with a literal or a word
# boundary, so that the regex engine skips to candidates instead of trying every alternative at
# every character (``_x86_text``; 3x faster over CUTLASS's 1.1 million template characters).
_X86_PERCENT = on_first_use(
    r"%%?(?:[re]?(?:ax|bx|cx|dx|si|di|sp|bp|ip)|[re]?[abcd][lh]|[xyz]mm\d+|k[0-7]|st\(\d\)|"
    r"r(?:8|9|1[0-5])[dwb]|[cdefgs]s)\b"
)
# x86-64's `%r8`-`%r15`, which nvcc's PTX names its `.b32` registers too (`%r8` in a pasted
# `add.u32 %r8, %r7, 1;`): x86 only where no instruction of the template has PTX's dotted
# mnemonic (``classify``); AT&T syntax writes none, and PTX writes one on nearly every opcode.
_X86_WIDE_REGISTER = on_first_use(r"%%?r(?:8|9|1[0-5])\b")
_X86_IMMEDIATE = on_first_use(r"\$(?:0x[0-9a-fA-F]+|-?\d+)\b")  # after no [\w$]
_X86_PREFIX = on_first_use(r"(?:rep|lock)\b")  # first on a line, blanks before
# The words of ``_X86_TEXT`` grouped by their first letter, so that at a candidate letter the
# engine tries that letter's few alternatives, not all 42 (the same matches: each ends at the
# end of its run of word characters, whichever alternative matched; over the CUDA 13 headers'
# and CUTLASS's 6,620 templates 21-22 ms with the flat alternation, 10 ms so, best of 5).
_X86_WORD = re.compile(
    r"(?:a(?:dd[lq])|c(?:puid|lflush|mpxchg\w*|ltq|qto)|i(?:nt3)|l(?:fence|eaq?|zcnt)|"
    r"m(?:fence|ov[lqwb])|p(?:ause|ushq?|opq?|opcnt|refetch(?:t[012]|nta))|r(?:dtscp?)|"
    r"s(?:fence|ub[lq]|h[lr]q)|t(?:zcnt)|u(?:d2)|"
    r"v(?:mov\w+|padd\w*|pmadd\w*|fmadd\w*|broadcast\w*|pdp\w+|zeroupper)|"
    r"x(?:getbv|or[lq]|chg\w*))\b"
)  # after no \w
_WORD_CHAR = re.compile(r"\w")
_WORD_OR_DOLLAR = re.compile(r"[\w$]")
# Each alternative of ``_X86_PERCENT``, and each ``%`` one of ``_SPARC``, goes on from ``%`` (or
# ``%%``) with an ASCII letter, so its text holds ``%`` and a letter; PTX's ``%N`` operands, most of
# a template's ``%``, do not. Whether one can match is asked first by this one search, which tries
# a single class at each ``%``: over the CUDA 13 headers' and CUTLASS's 6,620 templates the two
# searches take 24 ms, this one 4 ms, and 84 of the templates have such a ``%``.
_PERCENT_LETTER = re.compile(r"%[A-Za-z]")


def _x86_text(text: str) -> bool:
    """``re.search(_X86_TEXT, text, re.M) is not None``. A candidate of a word alternative
    preceded by a word character is skipped; no other candidate starts inside it (all word
    characters)."""
    if "%" in text and _PERCENT_LETTER.search(text) and _X86_PERCENT().search(text):
        return True
    word, word_or_dollar = _WORD_CHAR.match, _WORD_OR_DOLLAR.match
    # The immediate and the prefix are searched only where their literal is: most templates
    # hold none, and a substring test costs a fraction of a search's set-up (over the CUDA 13
    # headers', CUTLASS's and flashinfer's 7,856 templates the two searches took 10.7 ms of
    # CPU, 2.5 ms so, best of 7).
    if "$" in text:
        for m in _X86_IMMEDIATE().finditer(text):
            if m.start() == 0 or not word_or_dollar(text, m.start() - 1):
                return True
    if "rep" in text or "lock" in text:
        for m in _X86_PREFIX().finditer(text):
            i = m.start() - 1  # `^\s*` in multi-line mode: back over blanks to a line start
            while i >= 0 and text[i].isspace() and text[i] != "\n":
                i -= 1
            if i < 0 or text[i] == "\n":
                return True
    return any(m.start() == 0 or not word(text, m.start() - 1) for m in _X86_WORD.finditer(text))


_ARM_ARRANGEMENT = (  # as text, like _X86_TEXT: ``_arm_arrangement`` is what runs
    r"(?:%\d+|%\[\w+\]|\b[vzq]\d{1,2})\.(?:\d+)?[bhsdq]\b"
    # AArch64 register-width modifiers on named operands (`%w[out]`, `%x[ptr]`): nvcc has
    # neither modifiers nor named operands.
    r"|%[wxbhsdq]\[\w+\]"
)


# ``_ARM_ARRANGEMENT`` split the same way (``_arm_arrangement``)
_ARM_PERCENT = on_first_use(r"%(?:\d+|\[\w+\])\.(?:\d+)?[bhsdq]\b|%[wxbhsdq]\[\w+\]")
_ARM_REGISTER = on_first_use(r"[vzq]\d{1,2}\.(?:\d+)?[bhsdq]\b")  # after no \w


def _arm_arrangement(text: str) -> bool:
    """``re.search(_ARM_ARRANGEMENT, text) is not None``, split like ``_x86_text``."""
    if "%" in text and _ARM_PERCENT().search(text):
        return True
    word = _WORD_CHAR.match
    for m in _ARM_REGISTER().finditer(text):
        if m.start() == 0 or not word(text, m.start() - 1):
            return True
    return False


# AMD GCN/CDNA (HIP code shares __device__ with CUDA): `v_add_f32`, `s_waitcnt`, `ds_read_b128`.
_AMD_WORD = re.compile(r"^(?:v|s|ds|buffer|global|flat|scratch|image|exp)_[a-z0-9_]+$")

# Constraint letters that are meaningful on x86/ARM but not on NVPTX; alone they prove nothing
# (PTX002 flags them in device code), but with no PTX in sight they tip the balance to host.
# ('d' is NVPTX's f64 letter too, so it is not among them.)
_HOST_CONSTRAINT_LETTERS = set("abcSDAtuxyYwQIJKLMNOGKZ")
# HIP code shares __device__ with CUDA, and its register-pinning idioms carry no instruction at
# all: `asm volatile("" : "+s"(x))` keeps a value in a scalar register, `asm volatile("" :::
# "v12")` reserves a vector one. Their marks are AMD GCN's constraint letters (an SGPR, a VGPR;
# 'a', an AGPR, is x86's too) and register names as clobbers; nvcc refuses both ("constraint
# letter 's' is not allowed", "unknown register name"), so with no PTX in sight they say AMD.
_AMD_CONSTRAINT_LETTERS = frozenset("sv")
_AMD_REGISTER = on_first_use(
    r"(?:[vsa](?:\d+|\[\d+:\d+\])|(?:vcc|exec|flat_scratch)(?:_lo|_hi)?|m0|scc)"
)
# Guards under which the code is compiled for another vendor's GPU by that vendor's compiler,
# not by nvcc: AMD's (hipcc), Moore Threads' MUSA (mcc: its device assembly,
# `LSU.ATOM_32.XCHG %0, %1, slc=byp;`, takes constraint letters NVPTX has not, "R"), MetaX's
# MACA and Cambricon's BANG, which projects that port CUDA code select as they select HIP
# (`USE_HIP`, `USE_MUSA`, `USE_MACA`, `USE_MLU`, or the compiler's own `__MUSA_ARCH__`).
_ROCM = on_first_use(
    r"USE_ROCM|__HIP|HIP_PLATFORM|__HIPCC__|__AMDGCN__|__gfx\d|ROCM_VERSION"
    r"|USE_(?:HIP|MUSA|MACA|MLU)\b|__MUSA|__MACA|__BANG__"
)

# Other host ISAs, by what PTX never writes: their registers and barrier syntax in the text,
# their instruction words as the first word of a statement (`st %%fsr, %0` starts with `st`,
# which PTX has too, so the register decides there).
# Kept as text, like _X86_TEXT: ``_other_isa_text`` answers what a search with each would, and
# tests/test_dialect_patterns.py checks that it does.
_OTHER_ISA_TEXT = (
    (
        "SPARC",
        r"%%?(?:fsr|fprs|asi|tick|stick|ccr|psr|wim|tbr|pstate)\b"
        r"|#(?:StoreLoad|LoadStore|StoreStore|LoadLoad|Sync|Lookaside|MemIssue)\b",
    ),
    # PTX's fence has neither operands nor a `.i` form
    ("RISC-V", r"^\s*fence(?:\.tso)?\s+[rwio]+\s*,\s*[rwio]+|^\s*fence\.i\s*$"),
    ("MIPS", r"^\s*\.set\s+(?:no)?(?:reorder|at|macro|mips\w*)\b|\$(?:sp|ra|gp|zero)\b"),
)  # the last two searched in multi-line mode
# The same, each alternative led by its literal, so that the regex engine skips to candidates
# instead of trying ``^\s*`` at every character (``_other_isa_text``: over the templates of the
# CUDA 13 headers and CUTLASS, 30 ms with the whole patterns, 13 ms so); a candidate is kept
# where ``^\s*`` would match before it (``_after_line_start``).
_SPARC = on_first_use(_OTHER_ISA_TEXT[0][1])
_RISC_V = on_first_use(r"fence(?:\.tso)?\s+[rwio]+\s*,\s*[rwio]+|fence\.i\s*$", re.M)
_MIPS_SET = on_first_use(r"\.set\s+(?:no)?(?:reorder|at|macro|mips\w*)\b")
_MIPS_REGISTER = on_first_use(r"\$(?:sp|ra|gp|zero)\b")
_OTHER_ISA_WORDS = {
    "SPARC": frozenset("ldx stx casx casa sethi flushw ldstub ldsw lduw stw rd wr".split()),
    "PowerPC": frozenset(
        """lwsync hwsync isync eieio sync mftb mftbu mfspr mtspr lwarx ldarx stwcx stdcx dcbt
        dcbtst dcbf dcbz dcbst icbi mflr mtlr mfcr mfmsr lwz stwu xxlor vperm""".split()
    ),
    "RISC-V": frozenset(
        """rdcycle rdtime rdinstret csrr csrw csrrw csrrs csrrc csrs csrc ecall ebreak
        vsetvli vsetivli amoadd amoswap amoor amoand amoxor""".split()
    ),
    "MIPS": frozenset("rdhwr mfc0 mtc0 syscall lui ori jr ll".split()),
}


def _other_isa_text(text: str) -> str | None:
    """The first ISA of ``_OTHER_ISA_TEXT`` whose pattern a search finds in ``text``, or None.
    A candidate of a later alternative never hides inside a rejected one: none of them can
    hold the literal that leads another."""
    if ("#" in text or _PERCENT_LETTER.search(text)) and _SPARC().search(text):
        return "SPARC"
    if "fence" in text and any(
            _after_line_start(text, m.start()) for m in _RISC_V().finditer(text)):
        return "RISC-V"
    if "$" in text and _MIPS_REGISTER().search(text):
        return "MIPS"
    if ".set" in text and any(
            _after_line_start(text, m.start()) for m in _MIPS_SET().finditer(text)):
        return "MIPS"
    return None


def _after_line_start(text: str, at: int) -> bool:
    r"""Whether ``^\s*`` in multi-line mode matches right before ``at``: only blanks (line
    breaks included) between a line's start and ``at``."""
    i = at - 1
    while i >= 0 and text[i].isspace():
        if text[i] == "\n":
            return True
        i -= 1
    return i < 0


def other_isa(text: str, words: list[str]) -> str | None:
    """SPARC, PowerPC, RISC-V or MIPS, when the template says so; None otherwise."""
    marked = _other_isa_text(text)
    if marked is not None:
        return marked
    return _other_isa_words(words)


def _other_isa_words(words: list[str]) -> str | None:
    """``other_isa`` by the statements' first words alone (the text says nothing)."""
    if not words:
        return None
    for isa, vocabulary in _OTHER_ISA_WORDS.items():
        hits = sum(1 for w in words if w in vocabulary)
        if hits and not any(w in PTX_OPCODES for w in words if w not in vocabulary):
            return isa
    return None


# Architectures no CUDA build targets as its host: a file that #errors unless one of them is
# defined, or a statement under a guard that needs one, is never compiled by nvcc (CUDA 13
# hosts: x86-64 and AArch64 Linux/Windows).
OTHER_HOSTS: dict[str, int | None] = dict.fromkeys(
    """__sparc__ __sparc __sparc_v8__ __sparc_v9__ __sparcv9 __mips__ __mips __mips64
    __riscv __riscv_xlen __alpha__ __hppa__ __ia64__ __s390__ __s390x__ __m68k__ __sh__
    __powerpc__ __powerpc64__ __ppc__ __ppc64__ __PPC__ __PPC64__ _ARCH_PPC _ARCH_PPC64""".split()
)


def other_host_guarded(guards: tuple[str, ...]) -> bool:
    """Some guard holds only on a host CUDA does not build for (``#elif defined(__powerpc64__)``
    beside ``#if defined(__aarch64__)``): nvcc never sees the statement."""
    if not guards or preproc.evaluate_guards(guards, OTHER_HOSTS) is not False:
        return False
    return preproc.evaluate_guards(guards, {}) is not False  # `#if 0` is not about the host


_HOLE_OPCODE = on_first_use(HOLE + r"(?=\.(?:[fsub](?:8|16|32|64)|f16x2|bf16x2?|pred)\b)")
_DEVICE_SPECIFIERS = frozenset(("__device__", "__global__"))


NEVER_BUILT = "never compiled for the GPU"


class Verdict(NamedTuple):
    """What ``classify`` decided about a statement: PTX, host assembly or unknown, and why."""

    dialect: str  # "ptx" | "host" | "unknown"
    reason: str


# ``classify``'s answer where the constraint letters would decide and were not given: the
# letters are read only there (a device statement with no PTX word), and joining them for every
# statement took 27 ms of CPU over CUTLASS include/'s 143,000 operands
LETTERS_NEEDED = Verdict("", "the constraint letters decide")


_LINE_WORD = on_first_use(
    r"^[\s{}]*(?:[A-Za-z_$%][\w$%=]*:(?!:)\s*)*(?:@!?\S+\s+)?(\.?[A-Za-z_]\w*)"
)


def _line_words(text: str) -> list[str]:
    """First word of every line: for templates with no ';', where the PTX parser (for which a
    newline ends nothing) would read the whole text as one instruction."""
    words = []
    line_word = _LINE_WORD().match
    for line in text.splitlines():
        m = line_word(line)
        if m and not line.lstrip().startswith("//"):
            words.append(m.group(1))
    return words


def _first_words(ptx: PtxTemplate) -> list[str]:
    """Opcode words and directive names, in template order, holes left out, and operand
    references (``%0``, and LLVM syntax's ``$0``: Triton's and CuTe DSL's templates) too: no
    assembler starts an instruction with one, and the parser makes one an opcode only where a
    ';' is missing before a vector (``setp.ge.s32 p, %5, 0`` then ``@p ld.global.v4.s64 {%0,
    %1, %2, %3}, [%4];``), a defect of a PTX template that must not make it look like another
    ISA's, or where another ISA's ';' starts a comment (AMD GCN's ``v_pk_add_f16 $1, $1, $2 ;
    $1 = [hi, lo]``: the comment's ``$1`` is no opcode, and must not outvote ``v_pk_add_f16``)."""
    if not ptx.directives:  # the parser keeps instructions in text order: nothing to merge
        return [i.opcode for i in ptx.instructions if _opcode_word(i.opcode)]
    items = [(i.start, i.opcode) for i in ptx.instructions if _opcode_word(i.opcode)]
    items += [(d.start, d.name) for d in ptx.directives]
    return [word for _, word in sorted(items)]


def _opcode_word(opcode: str) -> bool:
    return bool(opcode) and HOLE not in opcode and not opcode.startswith(("%", "$"))


def classify(
    template: str,
    ptx: PtxTemplate,
    constraint_letters: str | None,
    *,
    function_specifiers: tuple[str, ...],
    guards: tuple[str, ...],
    split_by_directives: bool = False,
    host_only: str = "",
    clobbers: tuple[str, ...] = (),
    ptx_module: bool = False,
) -> Verdict:
    """``host_only``: why the statement is never compiled for the GPU (a host-only function,
    a file that #errors in a CUDA build), or empty. ``constraint_letters``: the operands'
    constraint letters, or None where the caller has not joined them: then ``LETTERS_NEEDED``
    is the answer wherever they would decide, and the caller asks again with them and with
    the names of its ``clobbers`` (read only with the letters). Nothing of the file is read:
    extract's verdict memo shares verdicts across files, keyed by exactly these arguments
    (the letters and clobbers only where they were read). ``ptx_module``: the statement's
    other templates in its file are PTX (a Python module's llvmlite calls), which says it is
    device code as a ``__device__`` function does."""
    if host_only.startswith(NEVER_BUILT):
        return Verdict("host", host_only)
    text = template.replace(HOLE, " ")
    if guards:
        by_guards = _GUARD_VERDICTS.get(guards, _UNSEEN)
        if by_guards is _UNSEEN:
            if len(_GUARD_VERDICTS) >= _GUARD_VERDICTS_KEPT:
                _GUARD_VERDICTS.clear()
            by_guards = _GUARD_VERDICTS[guards] = _guard_verdict(guards)
        if by_guards is not None:
            return by_guards
    marked = _other_isa_text(text)  # before x86's words: MIPS's `.set push` is not x86 `push`
    if marked is not None:
        return Verdict("host", f"{marked} assembly in the template")
    if _x86_text(text) or "%r" in text and _X86_WIDE_REGISTER().search(text) and not any(
            i.modifiers for i in ptx.instructions):
        return Verdict("host", "x86 assembly syntax in the template")
    # `"{" STRINGIFY(op) ".f16 %0,%1;}"`: an opcode from a macro followed by a PTX type.
    hole_opcodes = _HOLE_OPCODE().findall(template) if HOLE in template else []
    # the lines are counted only where no ';' is (PTX templates have one: GMMA's span 100 lines)
    if ";" not in text and sum(1 for line in text.splitlines() if line.strip()) > 1:
        words = _line_words(text) + hole_opcodes  # PTX ends every statement with ';'
    else:
        words = _first_words(ptx) + hole_opcodes
    by_words = _words_verdict(tuple(words))
    if by_words.host is not None:
        return by_words.host
    ptx_count = by_words.ptx_count
    device_context = device_context_of(function_specifiers, guards) or (
        IN_PTX_MODULE if ptx_module else "")
    if not device_context and host_only:
        return Verdict("host", host_only)
    if not words and ptx.braces and not text.strip(" \t\r\n{}"):
        # `asm volatile("}")`: closes a PTX scope opened by an earlier statement (CCCL).
        return Verdict("ptx", "a PTX scope brace")
    # ARM is asked last, where it decides: by the words first, then by a search of the text
    if not device_context:
        if split_by_directives:
            # `#if` inside the statement: the template read here mixes alternatives.
            return Verdict("unknown", "preprocessor branches inside the statement")
        # Outside a known device context only a template that is PTX through and through is
        # taken: `mov` alone is also an ARM, RISC-V and x86 word. PTX ends every instruction
        # with ';' (ptxas reads on into the next line without it); other assemblers do not,
        # so `"fence\n"` or `"mov.m.x m0, x0, 0xFF"` in a header's macro is not PTX.
        if words and ";" not in text:
            return Verdict("unknown", "no ';' ends its instructions, as PTX would")
        if (words and ptx_count >= len(words)
                and not (by_words.arm or _arm_arrangement(text))):
            return Verdict("ptx", f"{PTX_BY_WORDS}{by_words.first_ptx!r}")
        if not template.strip():
            # `asm volatile("" ::: "memory")`: no assembly to call anything, and nothing to lint
            return Verdict("unknown", "an empty template (a compiler barrier)")
        return Verdict("unknown", NO_EVIDENCE)
    if ptx_count * 2 < len(words) and (by_words.arm or _arm_arrangement(text)):
        return Verdict("host", "ARM assembly syntax in the template")
    if not ptx_count:
        if constraint_letters is None:
            return LETTERS_NEEDED
        if set(constraint_letters) & _HOST_CONSTRAINT_LETTERS:
            return Verdict("unknown", f"{device_context}, but host constraint letters")
        if not words and _amd_marked(constraint_letters, clobbers):
            return _AMD_REGISTERS
        if words and _foreign_marked(constraint_letters, clobbers):
            return _FOREIGN_GPU
    if words and not ptx_count:
        # Device context but no word of the template is PTX: an unknown opcode is a PTX204
        # finding, but only where the rest of the file says this is device code.
        return Verdict("ptx", f"{device_context}; no known PTX opcode")
    return _IN_DEVICE_CONTEXT[device_context]


_AMD_REGISTERS = Verdict("host", "AMD GCN registers in the constraints or clobbers (HIP code)")


# NVPTX's constraint letters (ptxlint.constraints.VALID_LETTERS, measured with nvcc 13.0)
_NVPTX_LETTERS = frozenset("hrlqfdnC")
# a statement in device code, no word of it PTX, with a constraint letter NVPTX has not or a
# register as a clobber: another GPU's assembly its own compiler builds, not a PTX typo (Kunlun
# XPU's `vfloat2fix.rz vr0, %0` with "v" and clobber "vr0"; MUSA's `LSU.ATOM_32.XCHG` with "R")
_FOREIGN_GPU = Verdict("unknown", "in device code, but no PTX word, and constraint letters or "
                       "register clobbers NVPTX has not: another GPU's assembly")


def _foreign_marked(letters: str, clobbers: tuple[str, ...]) -> bool:
    """A letter NVPTX has not (digits, GCC's matching constraints, aside: nvcc rejects them in
    PTX too), or a clobber that names a register."""
    if any(c.isalpha() and c not in _NVPTX_LETTERS for c in letters):
        return True
    return any(name not in ("memory", "cc") for name in clobbers)


def _amd_marked(letters: str, clobbers: tuple[str, ...]) -> bool:
    """An AMD GCN constraint letter among ``letters``, or a GCN register among ``clobbers``."""
    if not _AMD_CONSTRAINT_LETTERS.isdisjoint(letters):
        return True
    register = _AMD_REGISTER().fullmatch
    return any(register(name) for name in clobbers)


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class _ByWords:
    """What a template's first words alone say (``_words_verdict``)."""

    __slots__ = ("host", "ptx_count", "first_ptx", "arm")

    def __init__(self, host: Verdict | None, ptx_count: int, first_ptx: str, arm: bool) -> None:
        self.host = host  # AMD GCN or another host ISA's words: the verdict
        # PTX opcodes and directives among the words, holes before a PTX type counted
        self.ptx_count = ptx_count
        self.first_ptx = first_ptx  # the first of them, or ""
        self.arm = arm  # some word is an ARM instruction word


def _words_verdict(words: tuple[str, ...]) -> _ByWords:
    """What ``classify`` reads of ``words`` (statements' first words, then one ``HOLE`` per
    macro-made opcode before a PTX type), one answer per distinct tuple: templates that differ
    in their operands, modifiers and context start with the same words (the 3,530 statements
    the CUDA 13 headers classify have 116 distinct lists, CUTLASS include/'s 3,079 have 98).
    Reading each statement's words took 6.6-7.5 ms of CPU over the CUDA headers' and 6.9-8.4
    ms over CUTLASS's (best of 7, two runs), through this memo 0.8 ms each. Bounded: cleared
    when full."""
    known = _BY_WORDS.get(words)
    if known is not None:
        return known
    host: Verdict | None = None
    if words and sum(1 for w in words if _AMD_WORD.match(w)) * 2 >= len(words):
        host = Verdict("host", "AMD GCN assembly in the template")
    elif (isa := _other_isa_words(list(words))) is not None:  # the text was searched before
        host = Verdict("host", f"{isa} assembly in the template")
    # a hole before a PTX type is counted with the PTX words and again as one of them
    holes = [w for w in words if w == HOLE]
    ptx_words = [w for w in words if w in PTX_OPCODES or w in PTX_DIRECTIVES] + holes
    made = _ByWords(host, len(ptx_words), ptx_words[0] if ptx_words else "",
                    not _ARM_WORDS.isdisjoint(words))
    if len(_BY_WORDS) >= _BY_WORDS_KEPT:
        _BY_WORDS.clear()
    _BY_WORDS[words] = made
    return made


_BY_WORDS: dict[tuple[str, ...], _ByWords] = {}
_BY_WORDS_KEPT = 2048


def _guard_verdict(guards: tuple[str, ...]) -> Verdict | None:
    """The verdict the guards alone give (another compiler's or another host's code), else
    None."""
    if rocm_guarded(guards):
        return Verdict("host", "under a HIP/ROCm (or MUSA, MACA) guard: that vendor's compiler "
                       "compiles it, not nvcc")
    if other_host_guarded(guards):
        return Verdict("host", "under a guard for a host CUDA does not build for")
    return None


# ``_guard_verdict`` by guards: the statements of a file share a few hundred chains of guards
# (the CUDA 13 headers: 210 for 3,541 statements classified), and evaluating each chain for
# every statement was a fifth of ``classify``. At most ``_GUARD_VERDICTS_KEPT``, then emptied.
_GUARD_VERDICTS: dict[tuple[str, ...], Verdict | None] = {}
_GUARD_VERDICTS_KEPT = 4096
_UNSEEN = Verdict("", "")


_IN_FUNCTION = "in a __device__/__global__ function"
_UNDER_GUARD = "under a __CUDA_ARCH__ guard"
IN_PTX_MODULE = "in a module whose other asm templates are PTX"
# the reasons of a template taken as PTX by its words alone, and of one nothing says is PTX
PTX_BY_WORDS = "PTX instruction "
NO_EVIDENCE = "neither the template nor its context says this is PTX"


def device_context_of(specifiers: tuple[str, ...], guards: tuple[str, ...]) -> str:
    if not _DEVICE_SPECIFIERS.isdisjoint(specifiers):
        # a __host__ __device__ function's `#else` of `#ifdef __CUDA_ARCH__` (or its `#elif
        # __x86_64__`) is the host compiler's: no device pass reads it (zeknox's uint128 `add
        # %q2, %q0` / `adc`, GCC modifiers and all, for x86-64)
        if any(no_device_pass(guard) for guard in guards):
            return ""
        return _IN_FUNCTION
    for guard in guards:
        if "__CUDA_ARCH__" in guard and not guard.startswith("!"):
            return _UNDER_GUARD
    return ""


# ``classify``'s verdict for most statements, one object for each device context it names
# (a frozen dataclass made through ``object.__setattr__`` per field, for each statement)
_IN_DEVICE_CONTEXT = {c: Verdict("ptx", c) for c in (_IN_FUNCTION, _UNDER_GUARD,
                                                      IN_PTX_MODULE)}


def rocm_guarded(guards: tuple[str, ...]) -> bool:
    """Some guard must hold for a HIP/ROCm (or MUSA, MACA, BANG) build (not just be mentioned
    in a negation): another vendor's compiler builds the statement, not nvcc."""
    for guard in guards:
        if guard.startswith("!") or not _ROCM().search(guard):
            continue
        if "!" in guard or "||" in guard:
            continue  # `!defined(USE_ROCM) || ...`: may hold for CUDA too
        return True
    return False
