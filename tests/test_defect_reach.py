"""benchmarks/defect_reach.py: each mutation class finds its site in a small kernel, makes the
defect it names, and the rule it names notices it; the clean file has no finding to hide one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ptxlint.engine import instantiate
from ptxlint.registry import load_rules, preview_ids
from tests.benchmark_module import load

reach = load("defect_reach")

KERNEL = r"""
#include <cstdint>
__device__ unsigned f(unsigned* flag, const uint4* src, uint4& r, unsigned a, unsigned b,
                      unsigned long long x, unsigned long long y, float v) {
  unsigned d, d2, lo, hi, old, sum;
  asm volatile("st.global.u32 [%0], %1;" :: "l"(flag), "r"(a) : "memory");
  asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(flag), "r"(a) : "memory");
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(src) : "memory");
  asm("add.u32 %0, %1, %2;\n\tmul.lo.u32 %0, %0, 3;" : "=r"(d) : "r"(a), "r"(b));
  asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, 0, 0;" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b));
  asm("add.u32 %0, %0, %1;" : "+r"(sum) : "r"(a));
  asm("{\n\t.reg .u32 t;\n\tadd.u32 t, %1, 1;\n\tmov.u32 %0, t;\n\t}" : "=r"(d2) : "r"(a));
  __shared__ float tile[32];
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[a]));
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(addr), "f"(v) : "memory");
  unsigned lane, early;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, %2;" : "=r"(lane) : "r"(a),
               "r"(b));
  asm("mov.u32 %0, 7;\n\tadd.u32 %0, %0, %1;" : "=&r"(early) : "r"(a));
  asm volatile("bar.sync 1, 64;" ::: "memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(addr), "l"(src) : "memory");
#endif
  unsigned inc;
  asm("add.u32 %0, %1, 1;"
      : "=r"(inc)
      : "r"(a));
  return d + d2 + lo + hi + old + sum + lane + early + inc + (unsigned)(x + y);
}
"""


def test_every_class_makes_a_defect_its_rule_notices(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(KERNEL)
    classes = load_rules().rules
    preview = preview_ids(classes)
    rules = [r for r in instantiate(classes) if r.id not in preview]
    every = instantiate(classes)  # with the preview rules: the classes meant for them
    before = reach.findings(str(path), KERNEL, every)
    assert before == Counter()  # the clean kernel: every new finding is the mutation's
    sites = list(reach.sites([str(tmp_path)], rules))
    found = {site.kind for site in sites}
    assert found == set(reach.MUTATIONS)
    for site in sites:
        mutant = reach.mutated(site, KERNEL)
        judges = every if site.kind in reach.preview_classes_of(reach.CXX, preview) else rules
        new = reach.new_rules(site, KERNEL, judges, before)
        expected = {reach.EXPECTED[site.kind], *reach._ALSO.get(site.kind, ())}
        # every line where it was: findings are compared by line
        assert site.edit.text.count("\n") == KERNEL.count("\n", site.edit.start, site.edit.end)
        assert new & expected, (site.kind, mutant[site.edit.start - 40:site.edit.end + 40], new)
        if site.kind in _ONE_FINDING:
            # one defect, one rule: no echo (the vector's lost element unused, the mask's
            # operand left without a %N)
            assert len(new) == 1, (site.kind, new)


# the classes whose defect no second rule may echo on this kernel
_ONE_FINDING = {"index-shift", "drop-sync", "float-letter", "wrong-space", "drop-early-clobber",
                "drop-vector-element", "input-as-output", "lower-guard", "diverge"}


def test_a_guard_another_word_of_the_target_narrows_is_not_lowered(tmp_path: Path) -> None:
    """Lowering ``>= 900`` beside ``defined(__CUDA_ARCH_FEAT_SM90_ALL)`` admits no new target
    (the feature macro keeps sm_90a alone): no defect by construction, so no site."""
    text = (
        "__device__ void f() {\n"
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
        '  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");\n'
        "#endif\n"
        "#if __CUDA_ARCH__ >= 900\n"
        '  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");\n'
        "#endif\n"
        "}\n"
    )
    (tmp_path / "k.cu").write_text(text)
    rules = instantiate(load_rules().rules)
    sites = [s for s in reach.sites([str(tmp_path)], rules) if s.kind == "lower-guard"]
    assert [(s.line, text[s.edit.start:s.edit.end], s.edit.text) for s in sites] == [
        (6, "900", "890")]
