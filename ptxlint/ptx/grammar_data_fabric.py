"""The fabric family (PTX ISA 9.3+, CUDA 13.3+): copies, reductions and atomics between GPUs
over the fabric, and the submit and wait that close and finish them. Notation in
:mod:`ptxlint.ptx.grammar`; merged into :mod:`ptxlint.ptx.grammar_data`.

Sources: CCCL 3.5's generated wrappers (``cuda/__ptx/instructions/generated/fabric_*.h``:
``// fabric.submit; // PTX ISA 93, SM_100``) and the ptxas of CUDA 13.2-13.5 (the
``nvidia-cuda-nvcc`` wheels), which decide each spelling: 13.2 knows no fabric instruction,
13.3 the forms gated ``toolkit=13.3``, 13.4 and 13.5 theirs. All are on sm_100 and newer,
sm_120 included, never sm_90a ("Feature 'fabric.try_put.async' not supported").

A remote location is an address of two parts, the endpoint (a .u32 "LE id") and the .u64 offset
of the data there, ``[leId, offset]``; ``.counted::bytes`` adds the .u64 offset of a counter the
copy's bytes are added to, ``[leId, offset, counterOffset]``. The other addresses are the CTA's
shared memory and its mbarrier. Measured with ptxas 13.5: the semantics and scope may be left
out, the scope alone written (``.sys``), never ``.relaxed`` alone ("requires scope") nor another
scope ("Illegal modifier '.gpu'"); the data type is required ("Unexpected instruction types");
``.L2::cache_hint`` (ptxas 13.3 already takes it on the plain copies, which CCCL does not wrap)
adds a .u64 policy; the byte count is a .u32 register or any immediate.
"""

from __future__ import annotations

FORMS: list[str] = []
_add = FORMS.append

_FABRIC = "sm=100; head=2"  # fabric.try_put.async...: the operation's name comes first
_TO_REMOTE = ".shared::cta.mbarrier::complete_tx::16B.mbarrier::report::fabric"
_FROM_REMOTE = ".shared::cta.mbarrier::complete_tx::bytes.mbarrier::report::fabric"
_SEM = ("", "{.relaxed}.sys")
_REMOTE = "[r:u32, a:u64]"
_COUNTED = "[r:u32, a:u64, a:u64]"
_HINTS = (("", ""), (".L2::cache_hint", ", ai:u64"))
# the reductions' operations and types (try_red and try_pullred alike; ptxas 13.5: "Incorrect
# type '.s32' for operation '.add'", "Incorrect type '.f32' for operation '.min'", an .f16x2 is
# "Unexpected instruction types"), .acc::f32 for the 16-bit floats' sums and extremes
_RED = ((".add", ".u32|.u64|.f32|.f64|.f16|.bf16"),
        ("<O:.min|.max>", ".u32|.u64|.s32|.s64|.f16|.bf16"), ("<O:.and|.or|.xor>", ".b32|.b64"))

# submit hands the operations issued so far to the fabric; wait waits until they have read
# their sources. 9.5 adds a submit that only closes a group and a wait for all but the N most
# recent groups (an immediate: a register is "Arguments mismatch")
_add("fabric.submit{.op_restrict::fetching}; sm=100; head=1; toolkit=13.3")
_add("fabric.submit.commit_group; sm=100; head=1; toolkit=13.5")
_add("fabric.wait.sync_restrict::reads; sm=100; head=1; toolkit=13.3")
_add("fabric.wait.sync_restrict::read i:*; sm=100; head=1; toolkit=13.5")

for _hint, _policy in _HINTS:
    for _sem in _SEM:
        # a put of shared memory to a remote location (.multimem: to every GPU of a multicast
        # object), with a .u16 byte mask (".cp_mask") or a counter, never both ("Illegal
        # modifier '.counted::bytes'")
        _put = f"fabric.try_put.async{{.multimem}}{_TO_REMOTE}"
        _add(f"{_put}{_hint}{_sem}.b128 {_REMOTE}, [A], a:u32, [A]{_policy}; "
             f"{_FABRIC}; toolkit=13.3")
        _add(f"{_put}.cp_mask{_hint}{_sem}.b128 {_REMOTE}, [A], a:u32, [A], a:u16{_policy}; "
             f"{_FABRIC}; toolkit=13.3")
        _add(f"{_put}.counted::bytes{_hint}{_sem}.b128 {_COUNTED}, [A], a:u32, [A]{_policy}; "
             f"{_FABRIC}; toolkit=13.3")
        # a get of a remote location into shared memory (no .multimem: "Illegal modifier")
        _add(f"fabric.try_get.async{_FROM_REMOTE}{_hint}{_sem}.b128 [A], {_REMOTE}, a:u32, "
             f"[A]{_policy}; {_FABRIC}; toolkit=13.3")
        # a reduction into a remote location (or every copy of a multicast object), by the
        # types of _RED; ptxas 13.5 takes .acc::f32 on every one of them, which neither CCCL
        # nor a pull's ("Illegal reduction operation" but for sums) has: undocumented
        _red = f"fabric.try_red.async{{.multimem}}{_TO_REMOTE}"
        for _counted, _where in (("", _REMOTE), (".counted::bytes", _COUNTED)):
            for _op, _types in _RED:
                _add(f"{_red}{_counted}{_hint}{_sem}{_op}<T:{_types}> {_where}, [A], a:u32, "
                     f"[A]{_policy}; {_FABRIC}; toolkit=13.3")
                _add(f"{_red}{_counted}{_hint}{_sem}{_op}.acc::f32<T:{_types}> {_where}, [A], "
                     f"a:u32, [A]{_policy}; {_FABRIC}; toolkit=13.3; undocumented")
# a reduction of a multicast object's copies into shared memory by the whole warp (.sync, the
# member mask all ones: "expected to be '4294967295'"; without .multimem: ".multimem modifier
# required"), accumulating in .f32 for sums only ("Illegal reduction operation")
_PULL = f"fabric.try_pullred.async.multimem{_FROM_REMOTE}"
for _sem in _SEM:
    for _op, _types in _RED:
        _types = _types.replace("|.f64", "")  # a pull has no .f64: "Unexpected instruction types"
        _add(f"{_PULL}{_sem}{_op}<T:{_types}>.sync [A], {_REMOTE}, a:u32, [A], i:0xFFFFFFFF; "
             f"{_FABRIC}; toolkit=13.3")
    _add(f"{_PULL}{_sem}.add.acc::f32<T:.f16|.bf16>.sync [A], {_REMOTE}, a:u32, [A], "
         f"i:0xFFFFFFFF; {_FABRIC}; toolkit=13.3")
# PTX ISA 9.4 (ptxas 13.4; CCCL fabric_try_atom.h): an atomic on a remote location, its operand
# from shared memory and its old value back to shared memory; .relaxed.sys both required (".sys
# modifier required"), no .multimem, no .counted::bytes, no .inc/.dec ("Illegal reduction
# operation")
_ATOM = ((".add", ".u32|.u64|.f32|.f64|.f16x2|.bf16x2"),
         ("<O:.min|.max>", ".u32|.u64|.s32|.s64|.f16x2|.bf16x2"),
         ("<O:.and|.or|.xor>", ".b32|.b64"), ("<O:.cas|.exch>", ".b32|.b64|.b128"))
for _hint, _policy in _HINTS:
    for _op, _types in _ATOM:
        _add(f"fabric.try_atom.async{_TO_REMOTE}{_hint}.relaxed.sys{_op}<T:{_types}> {_REMOTE}, "
             f"[A], [A], [A]{_policy}; {_FABRIC}; toolkit=13.4")

# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a/f only: "Feature 'fabric.try_put.async.tensor'
# not supported" on sm_100a; CCCL fabric_try_put.h, fabric_try_get.h): a tile of a tensor put to
# or got from a remote location, the tensor map's global address overridden by the endpoint and
# offset (and, for a put, a counter's offset), then as for cp.async.bulk.tensor: for one
# dimension its size ({.b16}), for two to five its sizes, lower strides ({.b32} each but the
# last) and upper stride (a .b16), before the coordinates
_SM107 = "sm=107f; head=2; toolkit=13.4"


def _tensor_remote(dims: int, counted: bool) -> list[tuple[str, str]]:
    """The override words and the remote tensor address they make."""
    head = "A, r:u32, a:u64" + (", a:u64" if counted else "")
    coordinates = f"{{a:b32*{dims}}}"
    out = [("", f"[{head}, {coordinates}]")]
    if dims == 1:
        out.append((".override::global_dim", f"[{head}, {{a:b16*1}}, {coordinates}]"))
    else:
        out.append((".override::global_dim_stride", f"[{head}, {{a:b16*{dims}}}, "
                    f"{{a:b32*{dims - 1}}}, a:b16, {coordinates}]"))
    return out


for _dims in range(1, 6):
    for _hint, _policy in _HINTS:
        for _sem in _SEM:
            for _counted in ("", ".counted::bytes"):
                for _words, _where in _tensor_remote(_dims, bool(_counted)):
                    _add(f"fabric.try_put.async.tensor{{.multimem}}.{_dims}d.shared::cta.tile"
                         f".mbarrier::complete_tx::16B.mbarrier::report::fabric{_counted}{_hint}"
                         f".override::global_address{_words}{_sem}.b128 {_where}, [A], a:u32, "
                         f"[A]{_policy}; {_SM107}")
            for _words, _where in _tensor_remote(_dims, False):
                _add(f"fabric.try_get.async.tensor.{_dims}d.shared::cta.tile"
                     f".mbarrier::complete_tx::bytes.mbarrier::report::fabric{_hint}"
                     f".override::global_address{_words}{_sem}.b128 [A], {_where}, [A]{_policy}; "
                     f"{_SM107}")
