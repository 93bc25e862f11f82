"""Probe 4: compile the Triton call itself, in a child process, for a GPU target without a GPU.

Triton checks neither the asm nor the constraint string: LLVM does, and it aborts the process
(SIGABRT) or exits on a constraint error, so the compile runs in its own interpreter
(``triton.compile(ASTSource(...), target=GPUTarget("cuda", capability, 32))``, the capability
of the target ``llvm_probe.target`` chooses: 90 unless the call needs more; research note section 0:
the compile-only outcome equals the GPU outcome for every compile-time failure). The kernel
loads every argument from a pointer of its element type, calls ``inline_asm_elementwise`` with
the statement's own asm, constraints, dtype and pack, and stores the results.

Two probes: *as written* (the constraint-count, order, clobber, tied-operand, ``args`` and
operand-index claims: the compile must fail with LLVM's words), and the *purity differential*
(PTX505): the same call with its result unused, compiled as written (pure) and with
``is_pure=False``; the claim is confirmed when the pure compile's PTX holds fewer copies of the
effect than the impure one (Triton deleted or merged the asm). A width claim (PTX004: a value in
a register of another width) is judged on the probe as written: ptxas's 'Arguments mismatch'
where an instruction then has the wrong register, else the register LLVM put for the operand
in the PTX (``operand_registers``: ``%r5`` for an int64 under 'r', as Triton 3.6.0 compiles it).

Both children (the version check and the probes) run isolated (``python -I``) in a temporary
folder of their own: never with the working folder, a checkout being linted, on their import
path, where a ``triton.py`` would answer for Triton. ``-I`` also drops ``PYTHONPATH`` and the
user site-packages; the latter is put back when the probe runs in ptxlint's own interpreter and
ptxlint itself reads it (``pip install --user triton``).
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import tempfile
from functools import cache

from ptxlint.model import AsmStatement, CallArgument
from ptxlint.program_search import which
from ptxlint.verify.asm_blocks import asm_blocks
from ptxlint.verify.ptx_probe import NotProbeable
from ptxlint.verify.runner import Compile
from ptxlint.verify.target_choice import DEFAULT_ARCH

PROBE_FILE = "triton_probe.py"
PTX_OUTPUT = "probe.ptx"
BLOCK = 128

# Triton's dtype spellings for the element types the front end names.
_TL = {
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "float64": "float64",
    "fp64": "float64",
    "double": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "uint16": "uint16",
    "int32": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "uint64": "uint64",
    "float8e4nv": "float8e4nv",
    "float8e5": "float8e5",
    "float8e4b15": "float8e4b15",
}
# The pointer signature Triton's ASTSource wants for each.
_SIG = {
    "float16": "*fp16",
    "bfloat16": "*bf16",
    "float32": "*fp32",
    "float64": "*fp64",
    "int8": "*i8",
    "uint8": "*u8",
    "int16": "*i16",
    "uint16": "*u16",
    "int32": "*i32",
    "uint32": "*u32",
    "int64": "*i64",
    "uint64": "*u64",
    "float8e4nv": "*fp8e4nv",
    "float8e5": "*fp8e5",
    "float8e4b15": "*fp8e4b15",
}
# At pack=1 any element type works with its letter; where the front end does not know the
# argument's type the probe uses the type the constraint letter holds.
_BY_LETTER = {"r": "int32", "f": "float32", "l": "int64", "d": "float64", "h": "float16"}


def interpreter(python: str) -> str:
    """``python`` as a path to run: a bare name (``PTXLINT_TRITON_PYTHON=python3``) is looked up
    on ``PATH`` without the working folder, a relative path made absolute once, here."""
    if os.sep not in python and not (os.altsep and os.altsep in python):
        return which(python) or python
    return os.path.abspath(python)


def prelude(python: str) -> str:
    """The first lines of a child's program: the user site-packages that ``-I`` leaves out, when
    the child is this interpreter and this process reads them (never the working folder)."""
    if python != sys.executable or not site.ENABLE_USER_SITE:
        return ""
    user_site = site.getusersitepackages()
    if not os.path.isabs(user_site) or not os.path.isdir(user_site):
        return ""
    return f"import site\nsite.addsitedir({user_site!r})\n"


def command(python: str, *rest: str) -> tuple[str, ...]:
    """An isolated child interpreter's command line."""
    return (interpreter(python), "-I", *rest)


@cache
def triton_version(python: str = sys.executable) -> str | None:
    """Triton's version in ``python``'s environment, or None when it is not installed."""
    code = prelude(python) + "import triton\nprint(triton.__version__)\n"
    try:
        with tempfile.TemporaryDirectory(prefix="ptxlint-triton-") as scratch:
            done = subprocess.run(
                list(command(python, "-c", code)),
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
                cwd=scratch,
            )
    except (OSError, subprocess.SubprocessError):
        return None
    version = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
    return version[0] if version else None


def _arg_types(statement: AsmStatement, args: tuple[CallArgument, ...]) -> list[str]:
    inputs = [o for o in statement.operands if o.role == "input"]
    types: list[str] = []
    for k, arg in enumerate(args):
        dtype = _TL.get(arg.dtype or "")
        if dtype is None:
            # Unknown: the type the letter holds. A count claim (PTX501) holds for every element
            # type, so any one shows it; for other claims a wrong guess only fails the probe
            # some other way (unverifiable), never confirms.
            letter = inputs[k].constraint.letters[:1] if k < len(inputs) else "r"
            dtype = _BY_LETTER.get(letter, "int32")
        types.append(dtype)
    return types


def script(
    statement: AsmStatement,
    *,
    python: str = sys.executable,
    is_pure: bool | None = None,
    use_result: bool = True,
    bare_args: bool = False,
    arch: str = DEFAULT_ARCH,
) -> str:
    """The probe program for ``statement``, compiled for ``arch``'s compute capability: it
    prints the PTX or dies the way Triton does."""
    call = statement.llvm
    if call is None or call.api not in ("triton", "helion", "torch"):
        raise NotProbeable("only Triton's inline_asm_elementwise can be compiled by Triton")
    if statement.template.has_holes or call.constraints is None or call.constraints.has_holes:
        raise NotProbeable("the asm or constraint string is not known")
    if call.results is None or any(_TL.get(r or "") is None for r in call.results):
        raise NotProbeable("the result element types are not known")
    args = call.args
    if args is None and bare_args and call.args_kind == "other" and call.args_span is not None:
        # PTX507: one tensor passed as `args`; the probe passes one loaded tensor the same way
        args = (CallArgument("args", call.args_span),)
    if args is None:
        raise NotProbeable("args is not a list or tuple the probe can rebuild")
    if call.pack is None:
        raise NotProbeable("pack is not known")
    pure = (call.side_effects is False) if is_pure is None else is_pure
    arg_types = _arg_types(statement, args)
    results = [_TL[r or ""] for r in call.results]
    params = [f"A{k}" for k in range(len(arg_types))] + [f"R{k}" for k in range(len(results))]
    signature = {f"A{k}": _SIG[t] for k, t in enumerate(arg_types)}
    signature.update({f"R{k}": _SIG[t] for k, t in enumerate(results)})
    body = ["    offs = tl.arange(0, BLOCK)"]
    body += [f"    a{k} = tl.load(A{k} + offs)" for k in range(len(arg_types))]
    names = [f"a{k}" for k in range(len(arg_types))]
    passed = names[0] if bare_args and len(names) == 1 else "[" + ", ".join(names) + "]"
    dtype = (
        f"tl.{results[0]}"
        if len(results) == 1
        else "(" + ", ".join(f"tl.{r}" for r in results) + ",)"
    )
    body.append(
        f"    out = tl.inline_asm_elementwise(ASM, CONSTRAINTS, {passed}, dtype={dtype}, "
        f"is_pure={pure}, pack={call.pack})"
    )
    if use_result:
        outs = ["out"] if len(results) == 1 else [f"out[{k}]" for k in range(len(results))]
        where = "offs" if arg_types else "tl.program_id(0)"
        body += [f"    tl.store(R{k} + {where}, {o})" for k, o in enumerate(outs)]
    return prelude(python) + "\n".join(
        [
            "import sys",
            "import triton",
            "import triton.language as tl",
            "from triton.backends.compiler import GPUTarget",
            "from triton.compiler import ASTSource",
            "",
            f"ASM = tl.constexpr({statement.template.text!r})",
            f"CONSTRAINTS = tl.constexpr({call.constraints.text!r})",
            f"BLOCK = tl.constexpr({BLOCK})",
            "",
            "",
            "@triton.jit",
            f"def probe({', '.join(params)}):",
            *body,
            "",
            "",
            f"source = ASTSource(fn=probe, signature={signature!r}, constexprs={{}})",
            f'compiled = triton.compile(source, target=GPUTarget("cuda", {capability(arch)}, 32))',
            f'open(sys.argv[1] if len(sys.argv) > 1 else "{PTX_OUTPUT}", "w").write('
            'compiled.asm["ptx"])',
            "",
        ]
    )


def capability(arch: str) -> int:
    """The compute capability Triton's ``GPUTarget`` names ``arch`` by (``sm_100a``: 100; Triton
    compiles 90 and above for their architecture-specific targets)."""
    match = re.match(r"sm_(\d+)", arch)
    if match is None:
        raise NotProbeable(f"no compute capability for {arch}")
    return int(match[1])


def job(statement: AsmStatement, python: str = sys.executable, arch: str = DEFAULT_ARCH,
        **variant: bool) -> Compile:
    # the runner starts it in its scratch folder, which holds only the probe's own files
    return Compile(
        args=command(python, f"{{dir}}/{PROBE_FILE}", f"{{dir}}/{PTX_OUTPUT}"),
        files=((PROBE_FILE, script(statement, python=python, arch=arch, **variant)),),
        outputs=(PTX_OUTPUT,),
    )


def count(ptx: str, needle: str) -> int:
    """How often the effect ``needle`` (``atom.global.add``, ``%globaltimer``) is in ``ptx``,
    comments left out."""
    text = re.sub(r"//[^\n]*", "", ptx)
    return len(re.findall(re.escape(needle) + r"(?![\w])", text))


# The register each constraint letter makes in LLVM's NVPTX backend, in bits, and the width of
# each NVPTX register class by its name in the PTX (%rd7: 64 bits; %f/%fd where the backend
# still has float classes, %h/%hh in older ones).
LETTER_BITS = {"h": 16, "r": 32, "f": 32, "l": 64, "d": 64}
_REGISTER_CLASS = re.compile(r"%(rd|rs|rq|r|fd|f|hh|h)\d+")
_CLASS_BITS = {"rs": 16, "h": 16, "r": 32, "f": 32, "hh": 32, "rd": 64, "fd": 64, "rq": 128}
_TOKEN = r"[^\s,;{}\[\]]+"


def _loose(text: str) -> str:
    return r"\s*".join(re.escape(part) for part in re.split(r"\s+", text))


def operand_registers(ptx: str, statement: AsmStatement, index: int) -> list[str] | None:
    """What LLVM put for ``$index`` in each copy of ``statement``'s asm in Triton's ``ptx``
    (``%r12``), read by matching the template with every ``$N`` standing for one token; None when
    the template cannot be matched (a hole, no copy found)."""
    if statement.template.has_holes:
        return None
    text = statement.template.text
    pieces: list[str] = []
    at = 0
    # every token in one text-order pass, not the operand index (``template_refs``): the
    # pattern spells the text between the tokens too, and the index holds no ${:uid} or $$
    for token in statement.ptx.percents:
        pieces.append(_loose(text[at:token.start]))
        if token.kind == "ref":
            pieces.append(f"({_TOKEN})" if token.index == index else f"(?:{_TOKEN})")
        elif token.kind == "dollar":
            pieces.append(r"\$")
        elif token.kind == "unique":
            pieces.append(r"\d+")
        else:
            pieces.append(_loose(text[token.start:token.end]))
        at = token.end
    pieces.append(_loose(text[at:]))
    pattern = re.compile(r"\s*" + "".join(pieces) + r"\s*", re.S)
    found: list[str] = []
    for block in asm_blocks(ptx):
        match = pattern.fullmatch(block.text)
        if match is not None:
            found += [g for g in match.groups() if g]
    return found or None


def register_bits(register: str) -> int | None:
    """The width of an NVPTX register by its class (``%rd7`` -> 64); None for anything else."""
    match = _REGISTER_CLASS.fullmatch(register)
    return _CLASS_BITS[match.group(1)] if match else None
