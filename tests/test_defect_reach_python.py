"""benchmarks/defect_reach_python.py: each mutation class finds its site in a small Python
kernel (CuTe DSL's ``llvm.inline_asm``, Triton's ``inline_asm_elementwise``), makes the defect it
names, and the rule it names notices it; the clean file has no finding to hide one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ptxlint.engine import instantiate
from ptxlint.registry import load_rules, preview_ids
from tests.benchmark_module import load

reach = load("defect_reach_python")
cxx = load("defect_reach")  # the driver and the findings compared

KERNEL = '''\
import triton
import triton.language as tl
from cutlass import Int32, Int64
from cutlass._mlir.dialects import llvm
from cutlass.cutlass_dsl import T

ATT = llvm.AsmDialect.AD_ATT


def helpers(a, b, p, s, loc=None, ip=None):
    x = Int32(a).ir_value(loc=loc, ip=ip)
    y = Int32(b).ir_value(loc=loc, ip=ip)
    q = Int64(p).ir_value(loc=loc, ip=ip)
    o = Int32(s).ir_value(loc=loc, ip=ip)
    added = llvm.inline_asm(T.i32(), [x, y], "add.u32 $0, $1, $2;", "=r,r,r",
                            has_side_effects=False, is_align_stack=False, asm_dialect=ATT)
    llvm.inline_asm(None, [q, x], "st.global.u32 [$0], $1;", "l,r",
                    has_side_effects=True, is_align_stack=False, asm_dialect=ATT)
    loaded = llvm.inline_asm(T.i32(), [o], "ld.shared.u32 $0, [$1];", "=r,r",
                             has_side_effects=True, is_align_stack=False, asm_dialect=ATT)
    quad = llvm.inline_asm(llvm.StructType.get_literal([T.i32()] * 4), [q],
                           "ld.global.v4.u32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l",
                           has_side_effects=True, is_align_stack=False, asm_dialect=ATT)
    scaled = llvm.inline_asm(T.i32(), [x],
                             "add.u32 $0, $1, 1;\\n"
                             "mul.lo.u32 $0, $0, 3;", "=r,r",
                             has_side_effects=False, is_align_stack=False, asm_dialect=ATT)
    inc = llvm.inline_asm(T.i32(), [x],
                          "{ .reg .b32 t; add.u32 t, $1, 1; mov.b32 $0, t; }", "=r,r",
                          has_side_effects=False, is_align_stack=False, asm_dialect=ATT)
    wide = llvm.inline_asm(llvm.StructType.get_literal([T.i32(), T.i32()]), [x, y],
                           "add.cc.u32 $0, $2, $3;\\n\\taddc.u32 $1, 0, 0;", "=r,=r,r,r",
                           has_side_effects=True, is_align_stack=False, asm_dialect=ATT)
    early = llvm.inline_asm(T.i32(), [x], "mov.u32 $0, 7;\\n\\tadd.u32 $0, $0, $1;", "=&r,r",
                            has_side_effects=False, is_align_stack=False, asm_dialect=ATT)
    sync = llvm.inline_asm(T.i32(), [], "{ bar.sync 1, 64; mov.u32 $0, 0; }", "=r",
                           has_side_effects=True, is_align_stack=False, asm_dialect=ATT)
    return added, loaded, quad, scaled, inc, wide, early, sync


@triton.jit
def lanes(x_ptr, y_ptr):
    x = tl.load(x_ptr)
    y = tl.inline_asm_elementwise("shfl.sync.bfly.b32 $0, $1, 1, 0x1f, 0xffffffff;", "=r,r",
                                  [x], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(y_ptr, y)
'''

# the classes whose defect no second rule may echo on this kernel
_ONE_FINDING = {"index-shift", "drop-entry", "add-entry", "make-pure", "r-to-l", "l-to-r",
                "widen-type", "narrow-vector", "drop-vector-element", "drop-sync",
                "drop-early-clobber", "wrong-space", "unbrace", "drop-separator"}


def test_every_class_makes_a_defect_its_rule_notices(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    classes = load_rules().rules
    preview = preview_ids(classes)
    rules = [r for r in instantiate(classes) if r.id not in preview]
    before = cxx.findings(str(path), KERNEL, rules)
    assert before == Counter()  # the clean kernel: every new finding is the mutation's
    sites = list(reach.sites([str(tmp_path)], rules))
    assert {site.kind for site in sites} == set(reach.MUTATIONS)
    for site in sites:
        mutant = cxx.mutated(site, KERNEL)
        new = cxx.new_rules(site, KERNEL, rules, before)
        expected = {reach.EXPECTED[site.kind], *reach._ALSO.get(site.kind, ())}
        # every line where it was: findings are compared by line
        assert site.edit.text.count("\n") == KERNEL.count("\n", site.edit.start, site.edit.end)
        assert new & expected, (site.kind, mutant[site.edit.start - 40:site.edit.end + 40], new)
        if site.kind in _ONE_FINDING:
            assert len(new) == 1, (site.kind, new)


def test_the_dummy_result_of_a_side_effect_is_no_drop_write_site(tmp_path: Path) -> None:
    """``{ bar.sync 1, 64; mov.u32 $0, 0; }`` without its ``mov`` is the dummy result LLVM
    syntax needs for a barrier (Triton's ``bar.sync 0;`` with ``"=r"``): no defect by
    construction, so no site; the templates that compute their output are sites."""
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    rules = instantiate(load_rules().rules)
    lines = [s.line for s in reach.sites([str(tmp_path)], rules) if s.kind == "drop-write"]
    sync = KERNEL[:KERNEL.index("bar.sync")].count("\n") + 1
    assert lines and sync not in lines
