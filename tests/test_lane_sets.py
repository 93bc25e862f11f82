"""The lanes of a warp that reach a point of a kernel (``analysis/lane_sets.py``), read only
where every condition on the way is a function of the lane alone, and the member-mask rules
that read them: one defect, one finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.analysis.lane_sets import lane_ranges, reaching_lanes
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import FIXTURES, lint_text

POINT = 'asm volatile("bar.warp.sync 0xffff;");'
LANE = "unsigned lane = threadIdx.x % 32;\n"


def _lanes(body: str, before: str = "", kernel: bool = True) -> tuple[str, str] | None:
    text = (f"{before}{'__global__' if kernel else '__device__'} void k(float* out, "
            f"const float* in, int n) {{\n{body.replace('P;', POINT)}\n}}\n")
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements))
    byte = text.encode().index(b"asm volatile(\"bar.warp.sync 0xffff")
    flow = flows.function_at(byte, follow=False)
    assert flow is not None
    found = reaching_lanes(flows, flow, byte)
    return None if found is None else (lane_ranges(found.reach), lane_ranges(found.exited))


@pytest.mark.parametrize(("body", "reach"), [
    ("P;", "0-31"),
    (LANE + "if (lane < 16) { P; }", "0-15"),
    ("if ((threadIdx.x & 31) >= 8) { P; }", "8-31"),
    (LANE + "if (lane < 16) {} else { P; }", "16-31"),
    (LANE + "if (lane < 16 || lane >= 24) { P; }", "0-15, 24-31"),
    (LANE + "if (lane < 16) { if (lane % 2 == 0) { P; } }", "0, 2, 4, 6, 8, 10, 12, 14"),
    ("if (!((threadIdx.x & 31) < 8) && (threadIdx.x & 1)) { P; }",
     "9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31"),
    ('unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l));\nif (l == 0) { P; }', "0"),
    ("if (get_lane_id() < 4) { P; }", "0-3"),  # a lane helper the classifier knows
    ("const int lane = static_cast<int>(threadIdx.x % 32);\nif (lane < 8) { P; }", "0-7"),
    ("if ((threadIdx.x % 128) % 32 == 3) { P; }", "3"),
    ("if constexpr (sizeof(int) == 4) { P; }", "0-31"),  # decided at compile time
    (LANE + "if (lane >= 24) return;\nfloat* p = reinterpret_cast<float*>(out);\nP;", "0-23"),
    # not one set of lanes in every warp, or not the lane's
    ("if (threadIdx.x < 16) { P; }", None),  # lanes 0-15 of warp 0, none of the others
    ("if (threadIdx.x / 32 == 0) { P; }", None),  # warp 0 whole
    ("if ((threadIdx.x % 64) < 8) { P; }", None),
    ("if (in[threadIdx.x] > 0) { P; }", None),
    (LANE + "if (lane < n) { P; }", None),  # a parameter
    (LANE + "if (lane - 4 < 8) { P; }", None),  # negative in lanes 0-3: signedness decides
    ("int lane = threadIdx.x & 31; lane += 1; if (lane < 8) { P; }", None),  # defined twice
    # a loop every lane runs alike: its counter starts and steps the same in every lane
    ("for (int i = 0; i < n; ++i) { if ((threadIdx.x & 31) < 8) { P; } }", "0-7"),
    ("for (int d = 1; d < 16; d *= 2) { P; }", "0-31"),
    ("for (int i = 0; i < (threadIdx.x & 31); ++i) { P; }", None),  # a lane's own count
    ("for (int i = 0; i < n; ++i) { if (in[i] > 0) break; P; }", None),  # a way out
    ("for (int i = 0; i < n; ++i) { i += threadIdx.x & 1; P; }", None),  # stepped in the body
    ("for (int i = threadIdx.x; i < n; i += 32) { P; }", None),  # starts per thread
    ("while (in[threadIdx.x] > 0) { P; }", None),
    ("if ((threadIdx.x & 31) < 8) { if (n > 3) return; P; }", None),
    (LANE + "if (lane < 8) { if (lane > 3) { if (n) { return; } } }\nP;", None),
    ("goto end; end: P;", None),
    ('asm volatile("exit;");\nP;', None),
    ("auto f = [&]() { P; };", None),
    (LANE + "if (lane < 8) { P; } if (lane >= 8) {}", "0-7"),
    (LANE + "if (lane < 8) { if (lane >= 8) { P; } }", None),  # no lane: nothing to say
])
def test_the_lanes_that_reach_a_point_are_read_only_where_exact(body: str,
                                                                reach: str | None) -> None:
    found = _lanes(body)
    assert (found[0] if found else None) == reach


def test_a_helper_is_not_read_and_a_same_file_lane_helper_is_followed() -> None:
    assert _lanes(LANE + "if (lane < 16) { P; }", kernel=False) is None
    # a same-file helper named like a lane helper returns what its body says
    assert _lanes("if (lane_id() < 4) { P; }",
                  "__device__ unsigned lane_id() { return threadIdx.x & 15; }\n") == \
        ("0-3, 16-19", "")


def test_lanes_that_return_early_have_exited() -> None:
    assert _lanes(LANE + "if (lane >= 24) return;\nif (lane < 16) { P; }") == ("0-15", "24-31")
    # a return inside an arm is taken by the lanes of that arm only
    assert _lanes(LANE + "if (lane < 16) {\n if (lane >= 8) return;\n P;\n}") == ("0-7", "8-15")


def test_one_defect_one_finding() -> None:
    """PTX611 takes a mask that leaves out a lane that reaches the collective, PTX601 one that
    names a lane that never does while every lane that does is in it: never both."""
    for name in ("PTX601_bad.cu", "PTX611_bad.cu", "PTX601_clean.cu", "PTX611_clean.cu"):
        path = Path(FIXTURES) / "rules" / name
        text = path.read_text(encoding="utf-8")
        findings = lint_text(text, str(path), select=("PTX601", "PTX611"))
        lines = [text.count("\n", 0, f.span.start) for f in findings]
        assert len(lines) == len(set(lines)), name
        own = name.split("_")[0]
        if "bad" in name:
            assert {f.rule for f in findings} == {own}, name
        else:  # the clean twin of one may hold the other's defect, marked so
            assert all(f.rule != own and f"{f.rule}'s" in text.splitlines()[
                text.count("\n", 0, f.span.start)] for f in findings), name


def test_a_chain_of_locals_assigned_several_times_is_read_once_per_local(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated code (flashinfer's 4 MB ``cake_sampling`` kernels) reassigns locals each from
    the one before; each local read anew at each use was one read per path through the chain,
    exponential in its length (hours on one file). Counted in reads of a local, not in time:
    at most one per local and depth."""
    from ptxlint.analysis import lane_sets

    reads = 0
    read = lane_sets._LaneValues._name

    def counted(self: lane_sets._LaneValues, *args: object) -> object:
        nonlocal reads
        reads += 1
        return read(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(lane_sets._LaneValues, "_name", counted)
    chain = "unsigned v0 = threadIdx.x & 31;\n" + "".join(
        f"unsigned v{i} = v{i - 1} + v{i - 1};\nv{i} = v{i - 1} & 31;\n" for i in range(1, 40))
    assert _lanes(chain + "if (v39 < 4) { P; }") is None  # two values: not one set of lanes
    assert 0 < reads <= 40 * (lane_sets._DEPTH + 1)
    # the same chain with one value per local is still read through to the lane
    reads = 0
    single = "unsigned v0 = threadIdx.x & 31;\n" + "".join(
        f"unsigned v{i} = v{i - 1} & 31;\n" for i in range(1, 6))
    assert _lanes(single + "if (v5 < 4) { P; }") == ("0-3", "")
