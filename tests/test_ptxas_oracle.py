"""ptxlint's PTX204/PTX206/PTX401 verdicts against what ptxas 13.0 actually does.

Each cell is one instruction in a tiny PTX kernel whose registers are declared the way nvcc
declares them for each constraint letter (h .b16, r .b32, l .b64, f .f32, d .f64). ptxas runs
in parallel; verdicts are cached by content hash in the test cache
(tests/toolchain_cache.py). A cell is compared only where ptxlint speaks: where ptxas fails for
another reason (the form does not exist for that opcode), the cell says nothing about types.

CUDA 13's ptxas no longer accepts ``-arch=sm_70``, but it still checks features against the
``.target`` directive, so sm_70 cells are assembled as ``.target sm_70`` with ``-arch=sm_75``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ptxlint.rule import RuleContext
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, needs_ptxas, parallel_map, run_cached

pytestmark = needs_ptxas

REGISTERS = {"h": ".b16", "r": ".b32", "l": ".b64", "f": ".f32", "d": ".f64"}
MISMATCH = "Arguments mismatch"
UNKNOWN = re.compile(r"Unknown modifier|Not a name of any known instruction")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str


def _kernel(body: str, target: str) -> str:
    decl = "\n".join(f".reg {t} %{c}<4>;" for c, t in REGISTERS.items())
    return (
        f".version 9.0\n.target {target}\n.address_size 64\n"
        f".visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<4>;\n{decl}\n{body}\nret;\n}}\n"
    )


def _ptxas(body: str, target: str = "sm_100a") -> Verdict:
    assert PTXAS is not None
    arch = "sm_75" if target == "sm_70" else target
    run = run_cached(
        PTXAS, [f"-arch={arch}", INPUT, "-o", os.devnull], _kernel(body, target), filename="k.ptx"
    )
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    return Verdict(run.ok, errors[0] if errors else run.stderr.strip()[:200])


def _ptxas_many(cells: list[tuple[str, str]]) -> list[Verdict]:
    return parallel_map(
        lambda cell: _ptxas(*cell), cells, workers=max(2, (os.cpu_count() or 2) * 2)
    )


def _to_ptx(template: str, letters: list[str]) -> str:
    """The template with each %N replaced by a register of its constraint's class."""

    def sub(m: re.Match[str]) -> str:
        return f"%{letters[int(m.group(1))]}{int(m.group(1)) + 1}"

    return re.sub(r"(?<!%)%(\d+)", sub, template).replace("%%", "%")


def _lint_lines(statements: list[str], context: RuleContext | None, rule: str) -> set[int]:
    """Lint all statements at once (one per line of one kernel); return flagged indices."""
    body = "\n".join(f"  {s}" for s in statements)
    text = f"__device__ void k(void* p) {{\n{body}\n}}\n"
    findings = lint_text(text, "oracle.cu", select=(rule,), context=context)
    lines = {text.count("\n", 0, f.span.start) - 1 for f in findings if f.rule == rule}
    return lines


def _asm(template: str, letters: list[str], outputs: int) -> str:
    ops = [f'"{"=" if i < outputs else ""}{c}"(x{i})' for i, c in enumerate(letters)]
    outs, ins = ", ".join(ops[:outputs]), ", ".join(ops[outputs:])
    return f'asm volatile("{template}" : {outs} : {ins});'


# --------------------------------------------------------------------------- PTX206

TYPES = ["u16", "s32", "u32", "b32", "u64", "b64", "f16", "f32", "f64"]
_INT = {"u16", "s32", "u32", "b32", "u64", "b64"}


def _cvt_rounding(dst: str, src: str) -> str:
    fd, fs = dst not in _INT, src not in _INT
    if fd and not fs:
        return ".rn"
    if fs and not fd:
        return ".rzi"
    if fd and fs and int(dst[1:]) < int(src[1:]):
        return ".rn"
    return ""


def _matrix() -> list[tuple[str, list[str], int]]:
    """(template, constraint letters, number of outputs) per cell."""
    cells: list[tuple[str, list[str], int]] = []
    for t in TYPES:
        for c in REGISTERS:
            cells += [
                (f"add.{t} %0, %1, %2;", [c, c, c], 1),
                (f"mov.{t} %0, %1;", [c, c], 1),
                (f"ld.global.{t} %0, [%1];", [c, "l"], 1),
                (f"st.global.{t} [%0], %1;", ["l", c], 0),
                (f"{{ .reg .pred q; setp.eq.{t} q, %0, %1; }}", [c, c], 0),
                (f"shfl.sync.idx.{t} %0, %1, 0, 31, 0xffffffff;", [c, c], 1),
                # cvt: each side against f32 held in its right register
                (f"cvt{_cvt_rounding(t, 'f32')}.{t}.f32 %0, %1;", [c, "f"], 1),
                (f"cvt{_cvt_rounding('f32', t)}.f32.{t} %0, %1;", ["f", c], 1),
            ]
    return cells


def test_ptx206_matches_ptxas_on_the_register_type_matrix() -> None:
    cells = _matrix()
    bodies = [(_to_ptx(t, letters).replace("[%l", "[%l"), "sm_100a") for t, letters, _ in cells]
    verdicts = _ptxas_many(bodies)
    flagged = _lint_lines([_asm(t, letters, n) for t, letters, n in cells], None, "PTX206")
    compared = 0
    wrong: list[str] = []
    for i, ((template, letters, _), verdict) in enumerate(zip(cells, verdicts, strict=True)):
        mismatch = not verdict.ok and MISMATCH in verdict.message
        if not verdict.ok and not mismatch:
            continue  # the form itself is invalid: nothing about types to compare
        if i not in flagged and mismatch:
            # ptxlint stays silent where its table has no operand types (not a wrong verdict);
            # every cell of this matrix is described, so silence here is a miss.
            wrong.append(f"missed: {template} {letters}: {verdict.message}")
        elif i in flagged and verdict.ok:
            wrong.append(f"false positive: {template} {letters}")
        compared += 1
    assert compared > 200
    assert wrong == []


# --------------------------------------------------------------------------- PTX204

REAL_FORMS = [
    "add.u32",
    "mul.lo.u32",
    "mad.wide.s32",
    "ld.global.nc.v4.f32",
    "ld.global.L1::no_allocate.b32",
    "ld.acquire.gpu.global.b32",
    "st.release.sys.global.u32",
    "cvt.rn.satfinite.e4m3x2.f32",
    "cvt.rna.tf32.f32",
    "cp.async.ca.shared.global",
    "cp.async.cg.shared.global.L2::128B",
    "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
    "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16",
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    "wgmma.fence.sync.aligned",
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
    "tcgen05.ld.sync.aligned.32x32b.x128.b32",
    "mbarrier.try_wait.parity.shared::cta.b64",
    "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64",
    "fence.proxy.async.shared::cta",
    "fence.mbarrier_init.release.cluster",
    "barrier.cluster.arrive.release.aligned",
    "elect.sync",
    "redux.sync.add.u32",
    "shfl.sync.bfly.b32",
    "vote.sync.ballot.b32",
    "griddepcontrol.wait",
    "setmaxnreg.inc.sync.aligned.u32",
    "multimem.ld_reduce.relaxed.sys.global.add.f32",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64",
    "prmt.b32.f4e",
    "lop3.b32",
    "bmsk.clamp.b32",
    "atom.global.add.noftz.bf16x2",
    "tensormap.replace.tile.global_address.shared::cta.b1024.b64",
]
PLANTED = [
    "mul.lo.u23",
    "add.f33",
    "ld.globl.f32",
    "shfl.sync.idxx.b32",
    "cp.async.ca.shared.gloabl",
    "mbarrier.try_wait.parity.nosleep.shared.b64",
    "fence.proxy.async.global::cta",
    "mbarrier.arrive.expect_copy.shared.b64",
    "atom.shared.arrive.b64",
    "setctarank.shared.u32",
    "wgmma.mma_async.sync.aligned.m64n9k16.f32.f16.f16",
    "cvt.rn.f32.s23",
    "setp.eqq.s32",
]


def test_ptx204_matches_ptxas_on_real_forms_and_planted_typos() -> None:
    forms = REAL_FORMS + PLANTED
    verdicts = _ptxas_many([(f"{m};", "sm_100a") for m in forms])
    flagged = _lint_lines([f'asm volatile("{m};");' for m in forms], None, "PTX204")
    wrong = []
    for i, (mnemonic, verdict) in enumerate(zip(forms, verdicts, strict=True)):
        unknown = bool(UNKNOWN.search(verdict.message)) and not verdict.ok
        if unknown != (i in flagged):
            wrong.append(f"{mnemonic}: ptxas {verdict.message!r}, ptxlint flagged={i in flagged}")
    assert wrong == []
    assert all(i in flagged for i in range(len(REAL_FORMS), len(forms)))


# --------------------------------------------------------------------------- PTX401

# Complete instructions (operands included) with the constraint letters of their %N.
ARCH_CELLS: list[tuple[str, list[str], int]] = [
    ("cp.async.ca.shared.global [%0], [%1], 16;", ["r", "l"], 0),
    ("cp.async.wait_all;", [], 0),
    ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];", ["r", "r"], 1),
    ("redux.sync.add.u32 %0, %1, 0xffffffff;", ["r", "r"], 1),
    ("{ .reg .pred q; elect.sync %0|q, 0xffffffff; }", ["r"], 1),
    ("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%0], %1; }", ["r", "r"], 0),
    ("mapa.shared::cluster.u32 %0, %1, %2;", ["r", "r", "r"], 1),
    ("griddepcontrol.wait;", [], 0),
    ("wgmma.fence.sync.aligned;", [], 0),
    ("setmaxnreg.inc.sync.aligned.u32 240;", [], 0),
    ("tcgen05.fence::before_thread_sync;", [], 0),
    (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
        " {%0,%0,%0,%0}, {%1,%1,%1,%1}, {%1,%1}, {%0,%0,%0,%0};",
        ["f", "r"],
        1,
    ),
    ("add.u32 %0, %1, %1;", ["r", "r"], 1),
    ("fence.acq_rel.gpu;", [], 0),
    ("nanosleep.u32 100;", [], 0),
]
ARCHES = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100a"]
ARCH_ERROR = re.compile(r"requires \.target|not supported on \.target|requires .*sm_\d+")


def test_ptx401_matches_ptxas_across_targets() -> None:
    cells = [(_to_ptx(t, letters), arch) for arch in ARCHES for t, letters, _ in ARCH_CELLS]
    verdicts = _ptxas_many(cells)
    wrong = []
    for a, arch in enumerate(ARCHES):
        number = int(re.sub(r"\D", "", arch))
        context = RuleContext(arch=number, arch_suffix="a" if arch.endswith("a") else "")
        flagged = _lint_lines(
            [_asm(t, letters, n) for t, letters, n in ARCH_CELLS], context, "PTX401"
        )
        for i, (template, _, _) in enumerate(ARCH_CELLS):
            verdict = verdicts[a * len(ARCH_CELLS) + i]
            arch_error = not verdict.ok and bool(ARCH_ERROR.search(verdict.message))
            if not verdict.ok and not arch_error:
                wrong.append(f"{arch} {template}: harness error {verdict.message}")
            elif arch_error != (i in flagged):
                wrong.append(
                    f"{arch} {template}: ptxas {verdict.message!r}, ptxlint={i in flagged}"
                )
    assert wrong == []
