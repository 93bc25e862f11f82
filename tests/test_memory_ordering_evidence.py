"""The memory-ordering semantics of loads, stores and atomics decide what PTX101 and PTX102 ask
for (ptxlint.ptx.effects.Ordering), and nvcc 13.0 shows why (``nvcc -arch=sm_90 -O3 -ptx``,
cached by content hash; skipped without nvcc):

* a strong load (relaxed, acquire, volatile, mmio) in a spin-wait, in a non-volatile asm with
  no clobber, is hoisted out of the loop: the loop spins on a register for ever. PTX101 flags
  it (it did not, for loads, before the ordering was read), and the statement its PTX101 and
  PTX102 fixes write loads in every iteration;
* a release atomic in a non-volatile asm with no clobber lets nvcc drop the C++ store before it
  that the release exists to publish; PTX102 names the release, and its fix keeps the store;
* the semantics come from the modifiers in any order (``ld.global.acquire.gpu`` is an acquire
  load) with the ISA's defaults (``atom`` is ``.relaxed.gpu``), and a weak or read-only load
  keeps the findings it had.
"""

from __future__ import annotations

import re

import pytest

from ptxlint.ptx.effects import lookup, ordering
from tests.conftest import lint_text
from tests.test_optimizer_evidence import apply_edits, code, compile_many
from tests.toolchain_cache import needs_nvcc

SPIN = """
__global__ void k(unsigned *flag, unsigned *out) {
  unsigned v;
  do {
    asm("LOAD %0, [%1];" : "=r"(v) : "l"(flag));
  } while (v == 0);
  out[0] = v;
}
"""
STRONG_LOADS = ("ld.acquire.gpu.global.u32", "ld.global.acquire.gpu.u32",
                "ld.relaxed.gpu.global.u32", "ld.volatile.global.u32")

RELEASE = """
__global__ void k(unsigned *flag, unsigned *data, unsigned *out) {
  data[0] = 42;
  unsigned old;
  asm("atom.release.gpu.global.exch.b32 %0, [%1], 1;" : "=r"(old) : "l"(flag));
  out[0] = old;
  data[0] = 43;
}
"""


def _fixed(source: str, rules: tuple[str, ...]) -> str:
    findings = [f for f in lint_text(source, select=rules) if f.rule in rules]
    edits = [e for f in findings if f.fix is not None for e in f.fix.edits]
    return apply_edits(source, edits)


def _in_loop(ptx: str, mnemonic: str) -> bool:
    """Whether the load is emitted after the loop's label (inside the loop)."""
    label = re.search(r"^\$L__BB0_\d+:", ptx, re.MULTILINE)
    return label is not None and ptx.find(mnemonic, label.end()) != -1


@pytest.mark.parametrize("mnemonic", STRONG_LOADS)
def test_strong_loads_need_volatile(mnemonic: str) -> None:
    source = SPIN.replace("LOAD", mnemonic)
    found = {f.rule: f for f in lint_text(source, select=("PTX101", "PTX102"))}
    assert set(found) == {"PTX101", "PTX102"}
    assert "load at .sys scope) reads memory" in found["PTX101"].message or (
        "load at .gpu scope) reads memory" in found["PTX101"].message)
    assert "another thread's write" in found["PTX101"].message
    assert "spin-wait" in found["PTX101"].message
    assert _fixed(source, ("PTX101", "PTX102")).count('asm volatile(') == 1


@needs_nvcc
@pytest.mark.parametrize("mnemonic", STRONG_LOADS)
def test_nvcc_hoists_a_strong_load_out_of_its_spin_wait(mnemonic: str) -> None:
    source = SPIN.replace("LOAD", mnemonic)
    fixed = _fixed(source, ("PTX101", "PTX102"))
    (ok1, bad), (ok2, good) = compile_many([(source, "ptx"), (fixed, "ptx")])
    assert ok1 and ok2, (bad, good)
    bad, good = code(bad), code(good)
    assert not _in_loop(bad, mnemonic), f"nvcc no longer hoists the load:\n{bad}"
    assert _in_loop(good, mnemonic), good


def test_release_is_named_and_fixed_by_the_clobber() -> None:
    [finding] = [f for f in lint_text(RELEASE, select=("PTX102",)) if f.rule == "PTX102"]
    assert "a release atomic at .gpu scope" in finding.message
    assert "release publishes stale data" in finding.message


@needs_nvcc
def test_nvcc_drops_the_store_a_release_publishes_without_the_clobber() -> None:
    fixed = _fixed(RELEASE, ("PTX102",))
    assert '"memory"' in fixed
    (ok1, bad), (ok2, good) = compile_many([(RELEASE, "ptx"), (fixed, "ptx")])
    assert ok1 and ok2, (bad, good)
    bad, good = code(bad), code(good)
    stores = re.compile(r"st\.global\.u32\s+\[%rd\d+\], %r\d+;")
    assert len(stores.findall(good)) == 3 and good.index("st.global") < good.index("atom.")
    assert len(stores.findall(bad)) == 2, f"nvcc no longer drops the store:\n{bad}"


def _order(mnemonic: str) -> tuple[str, str] | None:
    opcode, *modifiers = mnemonic.split(".")
    found = ordering(opcode, tuple(modifiers))
    return None if found is None else (found.sem, found.scope)


def test_semantics_from_modifiers_in_any_order_with_the_isa_defaults() -> None:
    assert _order("ld.acquire.gpu.global.u32") == _order("ld.global.acquire.gpu.u32") \
        == ("acquire", "gpu")
    assert _order("st.global.release.sys.b32") == ("release", "sys")
    assert _order("ld.volatile.shared.u32") == ("volatile", "sys")  # .relaxed.sys
    assert _order("ld.mmio.relaxed.sys.global.u32") == ("mmio", "sys")
    assert _order("atom.global.add.u32") == ("relaxed", "gpu")
    assert _order("red.release.cta.shared.add.u32") == ("release", "cta")
    assert _order("fence.acq_rel.gpu") == ("acq_rel", "gpu")
    assert _order("fence.sc.sys") == ("sc", "sys")
    assert _order("membar.gl") == ("sc", "gpu")
    assert _order("ld.global.u32") == ("weak", "")
    assert _order("ld.global.nc.u32") is None
    assert _order("fence.proxy.async") is None
    for mnemonic in ("ld.global.acquire.gpu.u32", "st.global.release.gpu.u32",
                     "atom.acq_rel.gpu.global.cas.b32", "mbarrier.try_wait.shared::cta.b64"):
        opcode, *modifiers = mnemonic.split(".")
        effects = lookup(opcode, tuple(modifiers))
        assert effects is not None and effects.orders_memory, mnemonic
    relaxed = lookup("mbarrier", ("try_wait", "relaxed", "cluster", "shared::cta", "b64"))
    assert relaxed is not None and not relaxed.orders_memory


@pytest.mark.parametrize("load", ["ld.global.u32", "ld.shared.u32", "ld.global.nc.u32"])
def test_weak_and_read_only_loads_keep_their_findings(load: str) -> None:
    source = SPIN.replace("LOAD", load)
    rules = {f.rule for f in lint_text(source, select=("PTX101", "PTX102"))}
    assert "PTX101" not in rules
    assert ("PTX102" in rules) == (".nc" not in load)


def test_only_the_asynchronous_proxy_is_ordered_elsewhere() -> None:
    """PTX ISA, cp.async: "treated as a weak memory operation in the Memory Consistency Model"
    (the generic proxy): its clobber orders the C++ stores before it, like any access's. A
    bulk copy is performed by the asynchronous proxy, which C++ writes reach only through a
    proxy fence, a statement of its own: its issue needs no clobber."""
    copy = ('__device__ void f(unsigned dst, const void *src, unsigned bar) {\n'
            '  asm volatile("COPY" :: "r"(dst), "l"(src), "r"(bar));\n}\n')
    weak = copy.replace("COPY", "cp.async.cg.shared.global [%0], [%1], 16;")
    bulk = copy.replace("COPY", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx"
                                "::bytes [%0], [%1], 16, [%2];")
    [finding] = lint_text(weak, select=("PTX102",))
    assert finding.severity.value == "info" and "a weak copy" in finding.message
    assert lint_text(bulk, select=("PTX102",)) == []
    assert _order("cp.async.cg.shared.global") == ("weak", "")
    assert _order("cp.async.bulk.shared::cluster.global") is None
