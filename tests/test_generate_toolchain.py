"""``ptxlint new`` against the toolchain: a deterministic sample of the grammar's forms.

Each sampled form's wrapper (and a kernel calling it) is compiled by nvcc 13.0 at the lowest
target its guard admits and at sm_90a/sm_100a where admitted, ptxas assembling it, and linted
by ``ptxlint check``; benchmarks/new_forms.py does the same for every form. Completion is held
to ptxas too: for a sample of prefixes, every word offered assembles in a whole spelling, and
every next word of the grammar's own spellings is offered. Verdicts are cached by content hash
(``new-forms`` and ``ptxas-agreement`` in the tests' cache), so a warm run compiles nothing.
"""

from __future__ import annotations

import io

import pytest

from ptxlint.generate.complete import continuations
from ptxlint.ptx import grammar
from ptxlint.ptx.toolkit import assembles
from ptxlint.ptx.versions import NEWEST_KNOWN
from tests.benchmark_module import load
from tests.toolchain_cache import NVCC, needs_nvcc, needs_ptxas

new_forms = load("new_forms")
agreement = load("ptxas_agreement")

SAMPLE = 48  # forms, spread over the table: every family with many forms gets several


def test_the_sample_is_deterministic_and_spans_families() -> None:
    first = new_forms.sample(list(grammar.forms()), SAMPLE)
    assert [f.spec for f in first] == [f.spec for f in new_forms.sample(grammar.forms(), SAMPLE)]
    assert len({f.opcode for f in first}) >= 20


@needs_nvcc
def test_sampled_forms_compile_assemble_and_lint_clean() -> None:
    assert NVCC is not None
    forms = new_forms.sample(list(grammar.forms()), SAMPLE)
    cases = new_forms.run(forms, new_forms.Compiler(NVCC))
    out = io.StringIO()
    new_forms.summarize(cases, out)
    generated = [c for c in cases if c.code]
    # most forms have a wrapper; the rest say why (undocumented forms, unbindable operands)
    assert len(generated) >= 0.85 * len(cases), out.getvalue()
    assert all(c.reason for c in cases if not c.code)
    for case in generated:
        if not case.compiled:  # only for targets this nvcc does not know (sm_107a under 13.0)
            assert case.unbuilt and case.form.toolkit is not None, case.opcode
            continue
        assert case.compiled, f"{case.opcode}: no target compiled"
        for target, verdict in case.compiled.items():
            # a form newer than this nvcc compiles with its statement guarded out, and only then
            newer = case.form.need.ptx > 90 or case.form.toolkit is not None
            assert verdict == "" or (verdict == "guarded" and newer), \
                f"[{target}] {case.opcode}: {verdict}\n{case.code}"
        assert not case.findings, f"{case.opcode}: {case.findings}\n{case.code}"


# (opcode, modifiers written): a prefix typed inside an asm template
PREFIXES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cp", ("async",)),
    ("cp", ("async", "bulk")),
    ("ld", ("global",)),
    ("st", ("shared",)),
    ("atom", ()),
    ("mbarrier", ()),
    ("fence", ()),
    ("setp", ("eq",)),
    ("cvt", ("rn",)),
    ("mma", ("sync", "aligned")),
    ("ldmatrix", ("sync", "aligned")),
    ("red", ()),
    ("shfl", ("sync",)),
    ("tcgen05", ()),
)


def _instruction(opcode: str, words: tuple[str, ...]) -> tuple[str, grammar.Need] | None:
    """A whole instruction spelled ``opcode.words`` with operands of the right classes (the
    agreement benchmark's registers), and the target it needs."""
    found = grammar.lightest(opcode, words)
    if found is None:
        return None
    form, need = found
    binding: dict[str, str] = {}
    for word in words:
        for slot in form.slots:
            if slot.var and slot.var not in binding and slot.find(word) is not None:
                binding[slot.var] = word
                break
    operands = [agreement._operand_text(s, binding, i + 1, False, form.strict)
                for i, s in enumerate(form.operands) if not s.optional]
    mnemonic = ".".join((opcode, *words))
    return (f"{mnemonic} {', '.join(operands)}" if operands else mnemonic), need


@pytest.mark.parametrize("cuda_version", [None, NEWEST_KNOWN])
def test_completion_misses_no_next_word_of_the_grammars_spellings(
        cuda_version: tuple[int, int] | None) -> None:
    # the forms the toolkit's ptxas takes (the default 13.0 when none is set; every form the
    # grammar knows at the newest toolkit): completion offers nothing else (test_generate.py)
    for opcode, written in PREFIXES:
        offered = {c.word for c in continuations(opcode, written, cuda_version)}
        expected = set()
        for form in grammar.forms(opcode):
            if not assembles(form.toolkit, cuda_version):
                continue
            for instance in agreement.instances(form):  # spellings in slot order
                words = tuple(instance.words)
                if words[:len(written)] == written and len(words) > len(written):
                    expected.add(words[len(written)])
        assert expected, f"{opcode}.{'.'.join(written)}: the sample prefix spells nothing"
        assert expected <= offered, (opcode, written, expected - offered)


@needs_ptxas
def test_every_offered_continuation_assembles() -> None:
    by_target: dict[str, list[str]] = {}
    for opcode, written in PREFIXES:
        for continuation in continuations(opcode, written):
            made = _instruction(opcode, continuation.witness)
            assert made is not None, (opcode, continuation.witness)
            text, need = made
            if continuation.form.toolkit is not None or need.ptx > 90:
                continue  # a newer toolkit's (tests/test_ptx_isa_9_3_to_9_5.py, its ptxas)
            target = next((f"sm_{sm}{suffix}" for sm, suffix in agreement.TARGETS
                           if need.admits(sm, suffix)), None)
            if target is None:  # gone from every target ptxas 13.0 builds (vote without .sync)
                continue
            by_target.setdefault(target, []).append(text)
    oracle = agreement.Oracle()
    rejected = []
    for target, texts in by_target.items():
        for text, verdict in oracle.verdicts(target, texts).items():
            if verdict:
                rejected.append(f"[{target}] {text}: {verdict}")
    oracle.save()
    assert sum(len(t) for t in by_target.values()) > 100
    assert not rejected, "\n".join(rejected)


@pytest.mark.parametrize("prefix", ["cp.async.", "ld.global.", "mma.sync.aligned."])
def test_completion_and_grammar_agree_on_the_words(prefix: str) -> None:
    opcode, *written = prefix.rstrip(".").split(".")
    for continuation in continuations(opcode, tuple(written)):
        assert continuation.witness[:len(written) + 1] == (*written, continuation.word)
        assert grammar.lightest(opcode, continuation.witness) is not None, continuation.witness


def test_sampled_triton_calls_lint_clean() -> None:
    cases = new_forms.triton_run(new_forms.sample(list(grammar.forms()), SAMPLE))
    written = [c for c in cases if c.code]
    # what a Triton call may hold at the default toolkit: a form the ISA does not list, or one
    # a newer ptxas brought, is refused by design, and its share of the sample moves with the
    # grammar's table (the surface forms, many undocumented, shifted it)
    writable = [c for c in cases
                if not c.form.undocumented and assembles(c.form.toolkit, None)]
    # of those, shared addresses and accumulators are refused
    assert sum(1 for c in writable if c.code) >= 0.6 * len(writable)
    assert all(c.reason for c in cases if not c.code)
    assert [(c.opcode, c.findings) for c in written if c.findings] == []


@needs_nvcc
def test_a_surfaces_wrapper_takes_the_surface_object_and_compiles() -> None:
    # the first element of suld's and sust's brackets is a surface (cudaSurfaceObject_t's 64
    # bits), not an address: a wrapper taking a pointer would make the caller cast the handle
    assert NVCC is not None
    forms = [f for f in grammar.forms("sust") + grammar.forms("suld") if not f.undocumented]
    cases = new_forms.run(new_forms.sample(forms, 8), new_forms.Compiler(NVCC))
    generated = [c for c in cases if c.code]
    assert generated
    for case in generated:
        assert "uint64_t surf" in case.code and '"l"(surf)' in case.code, case.code
        assert "void*" not in case.code, case.code
        assert case.compiled and all(v == "" for v in case.compiled.values()), case.compiled
        assert not case.findings, f"{case.opcode}: {case.findings}\n{case.code}"
