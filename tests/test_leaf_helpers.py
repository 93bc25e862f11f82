"""A call of a function defined in a project header without asm, whose body calls nothing but
casts and harmless built-ins, takes no protocol step (ptxlint.analysis.leaf_helpers): the
protocol rules read past it, and stay silent past one that calls anything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.leaf_helpers import leaf_elsewhere
from tests.conftest import lint_text
from tests.test_ptx616_bulk_store_source_overwritten import HELPERS

LEAF = """#pragma once
namespace math {
template <typename T = void>
__device__ __forceinline__ T* advance_ptr(void* p, const long n) {
  return reinterpret_cast<T*>(static_cast<char*>(p) + n);
}
}
"""
CALLS_ON = """#pragma once
void elsewhere();
namespace math {
template <typename T = void>
__device__ __forceinline__ T* advance_ptr(void* p, const long n) {
  elsewhere();
  return reinterpret_cast<T*>(static_cast<char*>(p) + n);
}
}
"""
KERNEL = HELPERS + """#include "util.cuh"
__global__ void k(float* out, int n) {
  __shared__ alignas(128) float tile[256];
  store(out, tile, 1024);
  commit();
  float* q = math::advance_ptr<float>(out, n);
  tile[threadIdx.x] = *q;
}
"""


def _write(tmp_path: Path, util: str) -> str:
    (tmp_path / "util.cuh").write_text(util, encoding="utf-8")
    kernel = tmp_path / "k.cu"
    kernel.write_text(KERNEL, encoding="utf-8")
    return str(kernel)


@pytest.mark.parametrize(("util", "leaf"), [(LEAF, True), (CALLS_ON, False)])
def test_a_leaf_of_a_plain_header(tmp_path: Path, util: str, leaf: bool) -> None:
    path = _write(tmp_path, util)
    assert leaf_elsewhere(path, KERNEL, "advance_ptr") is leaf
    found = lint_text(KERNEL, path, select=("PTX616",))
    assert len(found) == (1 if leaf else 0)


def test_a_name_no_header_defines_is_no_leaf(tmp_path: Path) -> None:
    path = _write(tmp_path, LEAF)
    assert not leaf_elsewhere(path, KERNEL, "undefined_helper")
    assert not leaf_elsewhere(None, KERNEL, "advance_ptr")


def test_a_macro_or_a_lambda_in_the_body_is_no_leaf(tmp_path: Path) -> None:
    macro = LEAF.replace("return", "SYNC_ALL(p);\n  return")
    assert not leaf_elsewhere(_write(tmp_path, macro), KERNEL, "advance_ptr")
    lam = LEAF.replace("return", "auto f = [&](int i) { return i; };\n  return")
    assert not leaf_elsewhere(_write(tmp_path, lam), KERNEL, "advance_ptr")
