"""An instruction with a hole in its mnemonic (an f-string field, a macro the front end cannot
read, an operand spliced into a modifier) has the effects every spelling the grammar allows
there shares (ptxlint.ptx.hole_effects): a hole in a type suffix or a vector width leaves a
store a store, so PTX101, PTX102 and PTX505 speak as they do of the literal spelling; a hole in
the opcode, in the sub-instruction or in a qualifier that decides the effect (a load's state
space or cache qualifier, which may be .nc) leaves them silent."""

from __future__ import annotations

import pytest

from ptxlint.analysis.effects import instruction_effects
from ptxlint.engine import extract_statements
from ptxlint.model import HOLE, SourceFile
from ptxlint.ptx.effects import lookup
from ptxlint.ptx.forms import forms
from ptxlint.ptx.hole_effects import _decisive, decisive_words, effects_with_holes
from tests.conftest import lint_text

H = HOLE


def _effects(mnemonic: str) -> tuple[bool, str, bool] | None:
    opcode, *modifiers = mnemonic.split(".")
    found = effects_with_holes(opcode, tuple(modifiers))
    return None if found is None else (found.side_effect, found.memory, found.orders_memory)


@pytest.mark.parametrize("mnemonic, expected", [
    # the effect class is in the text around the hole
    (f"st.global.{H}", (True, "write", False)),
    (f"st.global.b{H}", (True, "write", False)),
    (f"st.shared.v{H}.f32", (True, "write", False)),
    (f"atom.global.add.{H}", (True, "readwrite", False)),
    (f"shfl.sync.{H}.b32", (True, "", False)),
    (f"tcgen05.mma.cta_group::{H}.kind::{H}", (True, "read", False)),
    (f"mbarrier.arrive.release{H}.shared::cluster.b64", (True, "readwrite", True)),
    # a hole glued to the sub-instruction may hold the rest of it (tcgen05.ld + .red)
    (f"tcgen05.ld{H}.sync.aligned.32x32b.x{H}.{H}.u32", (True, "", False)),
    # a load whose semantics the hole may hold: it reads memory, strong or not
    (f"ld.shared.{H}", (False, "read", False)),
    (f"ld.global.relaxed.{H}.b{H}", (True, "read", False)),
    # a global load whose hole may be .nc: nothing C++ may change is certain
    (f"ld.global.{H}", (False, "", False)),
    (f"ld.global{H}.b32", (False, "", False)),
])
def test_effects_every_spelling_shares(mnemonic: str, expected: tuple[bool, str, bool]) -> None:
    assert _effects(mnemonic) == expected


@pytest.mark.parametrize("mnemonic", [
    f"{H}.global.u32",  # the opcode
    f"st.{H}.u32",  # the sub-instruction the table keys on: the first modifier
    f"bar.{H}",
    f"fence.{H}.{H}",  # proxy fences the grammar leaves undescribed may be in the hole
    f"red.shared::cta.relaxed.cta.add.v2.{H}",  # no form: what it would be is unknown
])
def test_a_hole_that_may_decide_the_effect_leaves_it_unknown(mnemonic: str) -> None:
    assert _effects(mnemonic) is None


def test_a_hole_after_a_bare_opcode_may_be_its_sub_instruction() -> None:
    # `red {x}[$1], $2;`: the hole may hold `.async...` (performed by the async proxy) as well
    # as `.global.add.u32`
    assert effects_with_holes("red", (), open_tail=True) is None
    assert effects_with_holes("red", ("global",), open_tail=True) is not None


def test_a_release_in_the_hole_is_not_claimed() -> None:
    found = effects_with_holes("st", ("global", H))
    assert found is not None and found.ordering is None and not found.orders_memory
    known = effects_with_holes("st", ("release", "gpu", "global", H))
    assert known is not None and known.orders_memory
    assert known.ordering is not None and (known.ordering.sem, known.ordering.scope) == (
        "release", "gpu")


def test_a_relaxed_load_whose_scope_is_a_hole_is_a_relaxed_load() -> None:
    # the hole may hold .gpu, .sys, or .mmio.sys (an MMIO load is a relaxed one)
    found = effects_with_holes("ld", ("global", "relaxed", H, f"b{H}"))
    assert found is not None and found.side_effect and found.ordering is not None
    assert (found.ordering.sem, found.ordering.scope, found.ordering.kind) == (
        "relaxed", "", "load")


def test_no_word_but_the_decisive_ones_changes_an_instruction_s_effects() -> None:
    """The enumeration tells apart only the decisive words: every other word of a family's
    grammar, added to each form's required words, leaves ``lookup`` as it was."""
    for opcode in sorted({form.opcode for form in forms()}):
        decisive = decisive_words(opcode)
        for form in forms(opcode):
            base = tuple(s.values[0].word for s in form.slots if not s.optional)
            for slot in form.slots:
                for word in slot.by_word:
                    if _decisive(word, decisive) or word in base:
                        continue
                    spelled = (*base, word) if base else (word,)
                    if not base:
                        continue  # the word would be the first, which lookup reads as such
                    assert lookup(opcode, spelled) == lookup(opcode, base), (opcode, spelled)


def _cu(body: str, rules: tuple[str, ...]) -> list[str]:
    text = ("__device__ unsigned f(unsigned* p, unsigned v) {\n  unsigned t;\n"
            f"  {body}\n  return t;\n}}\n")
    return sorted(f.rule for f in lint_text(text, path="h.cu", select=rules))


@pytest.mark.parametrize("template", [
    '"st.global.u32 [%1], %2; mov.u32 %0, 0;"',  # the literal spelling
    '"st.global." PTX_TYPE " [%1], %2; mov.u32 %0, 0;"',  # its type a macro not read
    '"st.global.v" PTX_N ".u32 [%1], {%2, %2}; mov.u32 %0, 0;"',
])
def test_a_store_whose_type_is_a_hole_needs_volatile_and_the_clobber(template: str) -> None:
    body = f'asm({template} : "=r"(t) : "l"(p), "r"(v));'
    assert _cu(body, ("PTX101", "PTX102")) == ["PTX101", "PTX102"]


@pytest.mark.parametrize("template", [
    '"st" PTX_SPACE ".u32 [%1], %2; mov.u32 %0, 0;"',  # the hole touches the opcode
    'PTX_OP ".global.u32 [%1], %2; mov.u32 %0, 0;"',  # the opcode is the hole
    '"ld.global" PTX_CACHE ".u32 %0, [%1];"',  # may be ld.global.nc
])
def test_a_hole_in_the_opcode_or_a_deciding_qualifier_stays_silent(template: str) -> None:
    body = f'asm({template} : "=r"(t) : "l"(p), "r"(v));'
    assert _cu(body, ("PTX101", "PTX102")) == []


def test_an_operand_spliced_into_a_modifier_keeps_the_instruction_s_effects() -> None:
    text = ("template <int G> __device__ void f(unsigned a, unsigned n) {\n"
            '  asm volatile("tcgen05.alloc.cta_group::%2.sync.aligned.shared::cta.b32 [%0], %1;"'
            ' :: "r"(a), "r"(n), "n"(G));\n}\n')
    (statement,) = extract_statements(SourceFile("s.cu", text)).statements
    (instruction,) = statement.ptx.instructions
    assert instruction.opaque
    found = instruction_effects(instruction)
    assert found is not None and found.memory == "write"  # the address stored to shared memory


def _triton(template: str, pure: str = "True") -> list[str]:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def kernel(X, Y, dtype: tl.constexpr, op: tl.constexpr):\n"
        f'    tl.inline_asm_elementwise(f"{template}", "=r,l,r", [X, Y], dtype=tl.int32, '
        f"is_pure={pure}, pack=1)\n"
    )
    return [f.message for f in lint_text(text, path="k.py", select=("PTX505",))]


def test_a_pure_triton_store_whose_type_is_an_f_string_field_is_flagged() -> None:
    [message] = _triton("st.global.{dtype} [$1], $2; mov.u32 $0, 0;")
    assert message.startswith("'st.global.\u2026' writes memory")
    assert _triton("st.global.{dtype} [$1], $2; mov.u32 $0, 0;", pure="False") == []


@pytest.mark.parametrize("template", [
    "{op}.global.u32 [$1], $2; mov.u32 $0, 0;",  # the opcode is the field
    "ld.global.{dtype} $0, [$1];",  # .nc may be in the field
])
def test_a_pure_triton_asm_whose_field_may_decide_the_effect_is_not_flagged(
        template: str) -> None:
    assert _triton(template) == []


def _replicated(template: str) -> list[str]:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def kernel(P, dtype: tl.constexpr, op: tl.constexpr):\n"
        "    offs = tl.arange(0, 32)\n"
        f'    tl.inline_asm_elementwise(f"{template}", "=r,l", [P + offs], dtype=tl.int32, '
        "is_pure=False, pack=1)\n"
    )
    return [f.message for f in lint_text(text, path="k.py", select=("PTX506",))]


def test_an_impure_reduction_whose_type_is_a_field_runs_once_per_copy() -> None:
    """PTX506 reads the statement's memory effects: a field in the type leaves a reduction
    one, a field for the operation's opcode leaves it unknown."""
    [message] = _replicated("red.global.add.{dtype} [$1], 1;")
    assert message.startswith("'red.global.add.\u2026' writes memory")
    assert _replicated("{op}.global.add.u32 [$1], 1;") == []


def test_a_token_pasted_macro_name_in_a_modifier_is_quoted_as_one_ellipsis() -> None:
    """The front end leaves a hole per token of ``MIXOP_##OP##_##T``; the message quotes the
    one piece of text the source does not spell, not one ellipsis per token."""
    text = (
        "#define LD_REDUCE(OP, T) \\\n"
        "  __device__ void ld_##OP##_##T(const unsigned* p, unsigned* out) { \\\n"
        '    asm("multimem.ld_reduce.global." MIXOP_##OP##_##T ".v4." #T \\\n'
        '        " {%0, %1, %2, %3}, [%4];" \\\n'
        '        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]) : "l"(p)); \\\n'
        "  }\n"
    )
    [finding] = lint_text(text, select=("PTX102",))
    assert finding.message.startswith("'multimem.ld_reduce.global.\u2026.v4.\u2026' reads memory")
