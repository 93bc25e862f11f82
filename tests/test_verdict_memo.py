"""``extract._finish`` memoises ``dialect.classify`` by everything the verdict reads: one
template in different contexts keeps each context's verdict, from a cold or a warm memo."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import dialect
from ptxlint.frontends.cxx import extract as ex
from ptxlint.model import SourceFile

TEMPLATE = '"mov.u32 %0, 1;" : "=r"(x)'
TEXT = f"""
__device__ void device_fn(int x) {{ asm volatile({TEMPLATE}); }}
void host_fn(int x) {{ asm volatile({TEMPLATE}); }}
#if defined(__HIP_PLATFORM_AMD__)
__device__ void hip_fn(int x) {{ asm volatile({TEMPLATE}); }}
#endif
#if defined(__CUDA_ARCH__)
void arch_fn(int x) {{ asm volatile({TEMPLATE}); }}
#endif
__device__ void split_fn(int x) {{ asm volatile("mov.u32 %0, 1;"
#if A
  "add.u32 %0, %0, 1;"
#endif
  : "=r"(x)); }}
"""


def _readings(path: str) -> tuple[list[tuple[str | None, str, str]], list[tuple[int, str]]]:
    result = extract_statements(SourceFile(path, TEXT))
    kept = [(s.context.function, s.context.dialect, s.context.dialect_reason)
            for s in result.statements]  # fmt: skip
    return kept, result.skipped


def _count_classify(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """``dialect.classify`` patched to note each call (its positional arguments) in the list
    returned."""
    calls: list[tuple[object, ...]] = []
    real = dialect.classify

    def counted(*args: object, **kwargs: object) -> dialect.Verdict:
        calls.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dialect, "classify", counted)
    return calls


def test_one_template_keeps_each_contexts_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    ex._VERDICTS.clear()
    cold = _readings("memo.cu")
    warm = _readings("memo.cu")  # every verdict from the memo
    calls = _count_classify(monkeypatch)
    ex._VERDICTS.clear()
    fresh = _readings("memo.cu")
    assert cold == warm == fresh
    kept, skipped = cold
    assert [(f, d) for f, d, _ in kept] == [
        ("device_fn", "ptx"),
        ("arch_fn", "ptx"),
        ("split_fn", "ptx"),
        ("split_fn", "ptx"),
    ]
    assert "under a __CUDA_ARCH__ guard" in kept[1][2]
    assert any("HIP" in reason for _, reason in skipped)
    assert len(skipped) == 2  # host_fn and hip_fn
    # the two readings of split_fn differ in guards; host_fn, hip_fn and arch_fn in context
    assert len(calls) == 6
    _readings("memo.cu")
    assert len(calls) == 6  # all from the memo


def test_verdicts_carry_across_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """``classify`` does not read the path, so another file's statements in the same contexts
    take the verdicts the first file's got."""
    ex._VERDICTS.clear()
    first = _readings("one.cu")
    calls = _count_classify(monkeypatch)
    assert _readings("other/two.cuh") == first
    assert calls == []
    ex._VERDICTS.clear()
    assert _readings("other/two.cuh") == first  # and the same verdicts when classified anew
    assert len(calls) == 6


def test_the_guards_verdict_is_each_guards_own_from_a_cold_or_a_warm_memo() -> None:
    from ptxlint.ptx.parser import parse_template

    cases = [
        (template, guards)
        for template in ("mov.u32 %0, 1;", "movl $1, %%eax", "")
        for guards in (
            (),
            ("defined(__HIP_PLATFORM_AMD__)",),
            ("defined(__CUDA_ARCH__)",),
            ("!defined(__aarch64__)", "defined(__powerpc64__)"),
            ("0", "defined(__powerpc64__)"),
            ("!defined(USE_ROCM) || defined(X)",),
        )
    ]

    def verdicts() -> list[dialect.Verdict]:
        return [
            dialect.classify(t, parse_template(t, True), "r", function_specifiers=(), guards=g)
            for t, g in cases
        ]

    dialect._GUARD_VERDICTS.clear()
    cold = verdicts()
    warm = verdicts()
    assert cold == warm
    by_guards = {g: v.reason for (t, g), v in zip(cases, cold, strict=True) if t == ""}
    assert "HIP/ROCm" in by_guards[("defined(__HIP_PLATFORM_AMD__)",)]
    assert "host CUDA does not build" in by_guards[("!defined(__aarch64__)", "defined(__powerpc64__)")]
    assert by_guards[("0", "defined(__powerpc64__)")] == by_guards[()]  # `#if 0` is no host
    assert "HIP" not in by_guards[("!defined(USE_ROCM) || defined(X)",)]



HOST_LETTERS_TEXT = """
__device__ void with_host_letter(int x) { asm volatile("frob %0;" : "=a"(x)); }
__device__ void with_register_letter(int x) { asm volatile("frob %0;" : "=r"(x)); }
__device__ void ptx_with_host_letter(int x) { asm volatile("mov.u32 %0, 1;" : "=a"(x)); }
"""


def test_constraint_letters_decide_only_where_no_word_is_ptx() -> None:
    """The letters are joined only where they decide (a device statement with no PTX word):
    one template with a host letter and with a register letter keeps each its own verdict,
    from a cold or a warm memo; a PTX instruction with a host letter stays PTX."""
    from ptxlint.ptx.parser import parse_template

    def readings() -> tuple[list[tuple[str | None, str]], list[str]]:
        result = extract_statements(SourceFile("letters.cu", HOST_LETTERS_TEXT))
        kept = [(s.context.function, s.context.dialect_reason) for s in result.statements]
        return kept, [reason for _, reason in result.skipped]

    ex._VERDICTS.clear()
    cold = readings()
    warm = readings()
    assert cold == warm
    kept, skipped = cold
    assert [function for function, _ in kept] == ["with_register_letter", "ptx_with_host_letter"]
    assert "no known PTX opcode" in kept[0][1]
    assert skipped == ["unknown: in a __device__/__global__ function, but host constraint letters"]
    # the template without PTX words is memoised as needing its letters, then by its letters
    assert any(v is dialect.LETTERS_NEEDED for v in ex._VERDICTS.values())
    frob = parse_template("frob %0;", True)
    device = ("__device__",)
    assert dialect.classify("frob %0;", frob, None, function_specifiers=device, guards=()) is (
        dialect.LETTERS_NEEDED
    )
    assert dialect.classify("frob %0;", frob, "r", function_specifiers=device, guards=()) == (
        dialect.Verdict("ptx", "in a __device__/__global__ function; no known PTX opcode")
    )


def test_templates_with_the_same_first_words_keep_each_its_own_verdict() -> None:
    """``classify`` shares what a template's first words say across templates that start with
    the same words; what the rest of the text says (ARM arrangements, x86 registers) and the
    context still decide per statement, from a cold or a warm memo."""
    from ptxlint.ptx.parser import parse_template

    device, host = ("__device__",), ()
    cases = [
        ("mov.u32 %0, %1;", device),  # PTX in device code
        ("mov.u32 %0, %1;", host),  # PTX through and through, outside device code
        ("mov %0.4s, %1.4s;", host),  # the same first word, an ARM arrangement in the text
        ("mov %%rax, %0;", device),  # the same first word, an x86 register in the text
        ("ldr %0, [%1]; str %0, [%1]; mov %0, %0;", device),  # ARM words outnumber PTX ones
        ("ldr %0, [%1]; mov.u32 %0, %0; add.u32 %0, %0, 1;", device),  # PTX words are most
        ("v_add_f32 %0, %1, %2;", device),  # AMD GCN
        ("ldx %0, [%1];", device),  # SPARC's words alone
        ("frob %0;", device),  # no PTX word: the letters decide
    ]

    def verdicts() -> list[dialect.Verdict]:
        return [
            dialect.classify(t, parse_template(t, True), "r", function_specifiers=s, guards=())
            for t, s in cases
        ]

    dialect._BY_WORDS.clear()
    cold = verdicts()
    warm = verdicts()
    assert cold == warm
    dialects = [v.dialect for v in cold]
    assert dialects == ["ptx", "ptx", "unknown", "host", "host", "ptx", "host", "host", "ptx"]
    assert "ARM" in cold[4].reason and "AMD" in cold[6].reason and "SPARC" in cold[7].reason
    assert cold[1].reason == "PTX instruction 'mov'"


@pytest.mark.parametrize(("template", "kind"), [
    # nvcc's PTX names its 32-bit registers %r1, %r2...: %r8-%r15 in pasted PTX are PTX's
    ("add.u32 %0, %%r8, 1;", "ptx"),
    ("{ .reg .u32 %%r12; mov.u32 %%r12, %1; add.u32 %0, %%r12, 1; }", "ptx"),
    # and x86-64's where no mnemonic is dotted, as AT&T syntax never writes one
    ("mov %0, %%r8", "host"),
    ("mov %0, %%r15;", "host"),
    ("add.u32 %0, %%r8d, 1;", "host"),  # a sized x86 name: PTX's are never so spelt
])
def test_x86_64s_wide_registers_are_x86_only_beside_no_ptx_mnemonic(
        template: str, kind: str) -> None:
    from ptxlint.ptx.parser import parse_template

    for specifiers in ((), ("__device__",)):
        verdict = dialect.classify(template, parse_template(template, True), "r",
                                   function_specifiers=specifiers, guards=())
        assert (verdict.dialect == "host") == (kind == "host"), (template, specifiers, verdict)
