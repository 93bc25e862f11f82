"""The CUDA toolkit calls that take no protocol step (ptxlint.analysis.toolkit_calls)."""

from __future__ import annotations

import pytest

from ptxlint.analysis.toolkit_calls import toolkit_harmless
from ptxlint.ptx.protocols import COMMIT, WAIT
from tests.test_function_flow import HELPERS, _flow, _flows


@pytest.mark.parametrize("name", [
    "__float22bfloat162_rn", "__floats2bfloat162_rn", "__hmul2", "__umulhi", "__byte_perm",
    "__ldcg", "log1pf", "exp2", "fmaxf", "make_float4", "dim3", "this_thread_block",
    "thread_rank", "__cvta_generic_to_global", "__nv_fp8_e4m3", "__nv_bfloat162",
    "this_cluster", "map_shared_rank", "cudaGridDependencySynchronize",
    "cudaTriggerProgrammaticLaunchCompletion", "memset", "memcpy", "malloc", "free"])
def test_conversions_math_and_group_accessors_take_no_step(name: str) -> None:
    assert toolkit_harmless(name, release_asked=True)


@pytest.mark.parametrize("name", [
    "__pipeline_commit", "__pipeline_wait_prior", "producer_commit", "consumer_wait",
    "memcpy_async", "wait", "wait_prior", "arrive_and_wait", "fence_proxy_async",
    "cp_async_wait", "my_helper", "__nv_shmem_barrier", "cvta_shared"])
def test_calls_that_may_take_a_step_are_not_harmless(name: str) -> None:
    assert not toolkit_harmless(name, release_asked=False)


def test_a_group_sync_is_a_release_only_on_a_cluster() -> None:
    assert toolkit_harmless("sync", release_asked=False)  # block.sync(): bar.sync
    assert not toolkit_harmless("sync", release_asked=True)  # cluster.sync() may be one


def test_a_project_definition_of_the_name_is_read_instead() -> None:
    flows = _flows(HELPERS + r"""
__device__ float log1pf(float x) { wait<0>(); return x; }  // the project's own
__global__ void k() { commit(); float y = log1pf(1.f); (void)y; }
""")
    flow = _flow(flows, "k")
    assert [s.kind for s in flow.steps] == [COMMIT, WAIT]  # followed, not assumed harmless
