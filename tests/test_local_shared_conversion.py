"""PTX301 on addresses that are in no window of the executing CTA's shared memory: the
shared-window conversion of an automatic local's address (the variable lives in the thread's own
memory, and `cvta.to.shared` of its address is undefined: PTX ISA, cvta), and what
`mapa.shared::cluster` wrote (another CTA's memory) read by a `.shared::cta` access. Only
declarations that plainly spell automatic storage count (``analysis/local_storage.py``)."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

_INIT = 'asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"({value}) : "memory");'


def _kernel(declaration: str, value: str, before: str = "") -> str:
    return (
        "#include <cstdint>\n" + before +
        "__global__ void k(int* out) {\n"
        f"  {declaration}\n"
        f"  {_INIT.format(value=value)}\n"
        "  out[0] = 1;\n}\n"
    )


def _found(text: str) -> list[str]:
    return [f.message for f in lint_text(text, select=("PTX301",))]


@pytest.mark.parametrize(("declaration", "value"), [
    ("uint64_t bar;", "static_cast<uint32_t>(__cvta_generic_to_shared(&bar))"),
    ("uint64_t bars[2];", "static_cast<uint32_t>(__cvta_generic_to_shared(&bars[1]))"),
    ("uint64_t bars[2];", "static_cast<uint32_t>(__cvta_generic_to_shared(bars))"),
    ("Slots s;", "static_cast<uint32_t>(__cvta_generic_to_shared(&s.b))"),
    ("alignas(8) uint64_t bar; uint32_t a = static_cast<uint32_t>("
     "__cvta_generic_to_shared(&bar));", "a"),
])
def test_a_local_variables_conversion_is_no_shared_address(declaration: str, value: str) -> None:
    found = _found(_kernel(declaration, value, "struct Slots { uint64_t b; };\n"))
    assert len(found) == 1 and "local variable" in found[0], found
    assert "declare the variable __shared__" in found[0]


@pytest.mark.parametrize(("declaration", "value", "before"), [
    # shared memory, however it is declared
    ("__shared__ uint64_t bar;", "static_cast<uint32_t>(__cvta_generic_to_shared(&bar))", ""),
    ("static __shared__ uint64_t bar[2];", "static_cast<uint32_t>(__cvta_generic_to_shared(bar))",
     ""),
    # a macro may expand to __shared__: not known to be automatic
    ("SMEM uint64_t bar;", "static_cast<uint32_t>(__cvta_generic_to_shared(&bar))",
     "#define SMEM __shared__\n"),
    # a scalar's name is its value (an address held in an integer), not its address
    ("uint64_t p = reinterpret_cast<uint64_t>(out);",
     "static_cast<uint32_t>(__cvta_generic_to_shared(reinterpret_cast<void*>(p)))", ""),
    # a local pointer's value points wherever it was set to point
    ("uint64_t* p = nullptr;", "static_cast<uint32_t>(__cvta_generic_to_shared(p))", ""),
    # a reference is bound to what its initializer names
    ("extern __shared__ uint64_t smem[]; uint64_t& r = smem[0];",
     "static_cast<uint32_t>(__cvta_generic_to_shared(&r))", ""),
])
def test_shared_or_unknown_storage_is_silent(declaration: str, value: str, before: str) -> None:
    assert _found(_kernel(declaration, value, before)) == []


def test_a_parameter_is_no_local() -> None:
    text = (
        "#include <cstdint>\n__device__ void init(uint64_t* bar) {\n  "
        + _INIT.format(value="static_cast<uint32_t>(__cvta_generic_to_shared(bar))") + "\n}\n"
    )
    assert _found(text) == []


def test_a_shared_variable_used_in_a_locals_initializer_is_no_local() -> None:
    text = _kernel(
        "uint64_t copy = bar; uint64_t sizes[sizeof(bar)]; (void)copy; (void)sizes;",
        "static_cast<uint32_t>(__cvta_generic_to_shared(&bar))",
        "__shared__ uint64_t bar;\n",
    )
    assert _found(text) == []


def test_a_local_shadowed_in_another_scope_is_unknown() -> None:
    text = _kernel(
        "__shared__ uint64_t bar; { uint64_t bar; (void)bar; }",
        "static_cast<uint32_t>(__cvta_generic_to_shared(&bar))",
    )
    assert _found(text) == []


_MAPA = (
    "#include <cstdint>\n"
    "__device__ uint32_t remote_of(uint32_t local, uint32_t rank) {\n"
    "  uint32_t r;\n"
    '  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));\n'
    "  return r;\n}\n"
    "__global__ void k(int* out) {\n"
    "  __shared__ uint64_t bar;\n"
    "  uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));\n"
    "  uint32_t remote = remote_of(local, 1);\n"
    "  {arrive}\n  out[0] = 1;\n}\n"
)


@pytest.mark.parametrize("arrive", [
    'asm volatile("mbarrier.arrive.shared.b64 _, [%0];" :: "r"(remote) : "memory");',
    'asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(remote) : "memory");',
    'asm volatile("ld.shared::cta.u32 %0, [%1];" : "=r"(*out) : "r"(remote) : "memory");',
])
def test_mapa_results_in_the_ctas_own_window(arrive: str) -> None:
    found = _found(_MAPA.replace("{arrive}", arrive))
    assert len(found) == 1 and ".shared::cluster address" in found[0], found


@pytest.mark.parametrize("arrive", [
    'asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"'
    ' :: "r"(remote) : "memory");',
    'asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(*out) : "r"(remote) : "memory");',
    # the CTA's own address, before mapa
    'asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(local) : "memory");',
])
def test_mapa_results_in_the_cluster_window_are_silent(arrive: str) -> None:
    assert _found(_MAPA.replace("{arrive}", arrive)) == []


_LOAD = 'asm volatile("ld{space}.f32 %0, [%1];" : "=f"(r) : "l"({value}));'


def _load(declaration: str, value: str, space: str = ".global") -> str:
    return (
        "__global__ void k(const float* in, float* out) {\n"
        f"  {declaration}\n  float r;\n"
        f"  {_LOAD.format(space=space, value=value)}\n"
        "  out[0] = r;\n}\n"
    )


@pytest.mark.parametrize(("declaration", "value"), [
    ("float v = in[threadIdx.x];", "&v"),
    ("float buf[4] = {};", "buf"),
    ("float buf[4] = {};", "&buf[2]"),
    # declared in two blocks, a local's in both (DrXuQian's two tile loops' `half value`)
    ("for (int i = 0; i < 2; ++i) { float v = in[i]; } float v = in[0];", "&v"),
])
def test_a_local_variables_address_is_no_global_address(declaration: str, value: str) -> None:
    found = _found(_load(declaration, value))
    assert len(found) == 1 and "address of a local variable" in found[0], found


@pytest.mark.parametrize(("declaration", "value", "space"), [
    ("", "&in[threadIdx.x]", ".global"),  # the memory behind a parameter
    ("float v = 0;", "&v", ""),  # a generic access reads the local window too
    ("static float v;", "&v", ".global"),  # static storage: in the global window
    ("float v = 0; float* p = &v;", "p", ".global"),  # through a variable: not followed here
])
def test_global_memory_and_generic_accesses_are_not_flagged(declaration: str, value: str,
                                                             space: str) -> None:
    assert _found(_load(declaration, value, space)) == []
