"""How ptxlint's cost grows with the size of one file, shape by shape.

Usage:
    python benchmarks/scaling.py [--size N] [--factor K] [--only SHAPE ...]

Each shape is a generated file that stresses one dimension (statements in one function,
functions, parameters, a chain of pointer locals, instructions in one template, labels and
branches, macro-made statements, ``#if`` branches, run-together statements, Python calls...).
Each is linted in this process at ``N`` and at ``K * N`` units, and the growth is printed as the
exponent ``log(t(KN) / t(N)) / log(K)``: about 1 for linear work, 2 for quadratic. A shape over
1.3 is marked: some work there is done per unit and re-walks the others.

Then the paths that work on one file's findings after its lint (``--add-noqa``, applying fixes,
the language server's code actions over a whole file) are timed the same way, on a file of N
statements with two findings each.

Real code rarely has 8,000 variables in one function or 4,000 branches in one template, but
generated kernels come close, and a linter that is quadratic somewhere hangs CI on the one file
that is large in that dimension. Timings are the CPU seconds of the lint alone
(``time.process_time``), each in a fresh process, the best of ``--repeat`` processes.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ptxlint import collector  # noqa: E402
from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.model import Finding, SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402


def one_function(n: int) -> str:
    body = "".join(
        f'  unsigned v{i}; asm volatile("mov.u32 %0, %1;" : "=r"(v{i}) : "r"(a + {i}));\n'
        for i in range(n)
    )
    return f"__device__ void f(unsigned a) {{\n{body}}}\n"


def functions(n: int) -> str:
    return "".join(
        f"__device__ unsigned g{i}(unsigned a{i}) {{ unsigned d; "
        f'asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a{i})); return d; }}\n'
        for i in range(n)
    )


def parameters(n: int) -> str:
    params = ", ".join(f"unsigned p{i}" for i in range(n))
    body = "".join(
        f'  asm volatile("st.shared.u32 [%0], %1;" :: "r"(p{i}), "r"(p{i + 1}) : "memory");\n'
        for i in range(n - 1)
    )
    return f"__device__ void h({params}) {{\n{body}}}\n"


def pointer_chain(n: int) -> str:
    body = "".join(
        f"  unsigned* q{i} = q{i - 1} + 1;\n"
        f'  asm volatile("st.shared.u32 [%0], %1;" :: "l"(q{i}), "r"(x) : "memory");\n'
        for i in range(1, n)
    )
    return f"__device__ void k(unsigned* q0, unsigned x) {{\n{body}}}\n"


def _one_template(lines: str, declarations: str = "") -> str:
    return (
        '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm volatile("{\\n"\n'
        f'{declarations}{lines}      "mov.u32 %0, r0;\\n}}\\n" : "=r"(d) : "r"(a));\n'
        "  return d;\n}\n"
    )


def instructions(n: int) -> str:
    regs = "".join(f'      ".reg .u32 r{i};\\n"\n' for i in range(50))
    lines = "".join(f'      "add.u32 r{i % 50}, r{(i + 1) % 50}, %1;\\n"\n' for i in range(n))
    return _one_template(lines, regs)


def branches(n: int) -> str:
    lines = "".join(
        f'      "L{i}: @p bra L{(i * 7) % n};\\n"\n      "add.u32 r0, r0, 1;\\n"\n'
        for i in range(n)
    )
    declarations = (
        '      ".reg .u32 r0;\\n .reg .pred p;\\n setp.eq.u32 p, %1, 0;\\n mov.u32 r0, %1;\\n"\n'
    )
    return _one_template(lines, declarations)


def registers(n: int) -> str:
    regs = "".join(f'      ".reg .u32 r{i};\\n"\n' for i in range(n))
    lines = '      "mov.u32 r0, %1;\\n"\n' + "".join(
        f'      "add.u32 r{i}, r{i - 1}, %1;\\n"\n' for i in range(1, n)
    )
    return _one_template(lines + f'      "mov.u32 r0, r{n - 1};\\n"\n', regs)


def macro_statements(n: int) -> str:
    uses = "".join(f"  unsigned v{i}; ADD(v{i}, a);\n" for i in range(n))
    return (
        '#define ADD(d, a) asm volatile("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a))\n'
        f"__device__ void f(unsigned a) {{\n{uses}}}\n"
    )


def if_branches(n: int) -> str:
    blocks = "".join(
        f"#if defined(A{i})\n"
        f'  unsigned v{i}; asm volatile("add.u32 %0, %1, 1;" : "=r"(v{i}) : "r"(a));\n'
        "#else\n"
        f'  unsigned w{i}; asm("mov.u32 %0, %1;" : "=r"(w{i}) : "r"(a));\n'
        "#endif\n"
        for i in range(n)
    )
    return f"__device__ void f(unsigned a) {{\n{blocks}}}\n"


def unscoped_labels(n: int) -> str:
    body = "".join(
        f'  asm volatile(".reg .u32 t{i};\\nL{i}: mov.u32 t{i}, %0;\\n" :: "r"(a));\n'
        for i in range(n)
    )
    return f"__device__ void f(unsigned a) {{\n{body}}}\n"


def carry_chains(n: int) -> str:
    body = "".join(
        '  asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(x) : "r"(a));\n'
        '  asm volatile("addc.u32 %0, %0, %1;" : "+r"(y) : "r"(a));\n'
        for _ in range(n)
    )
    return f"__device__ void f(unsigned a) {{ unsigned x = 0, y = 0;\n{body}}}\n"


def one_line(n: int) -> str:
    declarations = " ".join(f"unsigned v{i};" for i in range(n))
    body = " ".join(
        f'asm volatile("add.u32 %0, %1, 1;" : "=r"(v{i}) : "r"(a));' for i in range(n)
    )
    return f"__device__ void f(unsigned a) {{ {declarations} {body} }}\n"


def macro_chain(n: int) -> str:
    defines = "".join(f"#define M{i} M{i - 1}\n" for i in range(1, n))
    return (
        '#define M0 "mov.u32 %0, %1;"\n'
        f"{defines}__device__ void f(unsigned a) {{ unsigned v; "
        f'asm volatile(M{n - 1} : "=r"(v) : "r"(a)); }}\n'
    )


def triton_calls(n: int) -> str:
    calls = "".join(
        f"def f{i}(x):\n"
        '    return tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], '
        "dtype=tl.int32, is_pure=True, pack=1)\n"
        for i in range(n)
    )
    return "import triton.language as tl\n" + calls


def macro_body(n: int) -> str:
    lines = " \\\n".join(
        f'  asm volatile("add.u32 %0, %0, {i};" : "+r"(x));' for i in range(n)
    )
    return (
        f"#define BIG(x) do {{ \\\n{lines} \\\n}} while (0)\n"
        "__device__ void f(unsigned x) { BIG(x); BIG(x); }\n"
    )


def scoped_blocks(n: int) -> str:
    body = "".join(
        f'      "{{ .reg .u32 t; mov.u32 t, %1; add.u32 %0, t, {i}; }}\\n"\n' for i in range(n)
    )
    return (
        "__device__ unsigned f(unsigned a) { unsigned d; asm volatile(\n"
        f'{body}      : "=r"(d) : "r"(a)); return d; }}\n'
    )


def cute_dsl_calls(n: int) -> str:
    body = "".join(
        f'    r{i} = llvm.inline_asm(T.i32(), [a], "mov.b32 $0, $1;", "=r,r", '
        "has_side_effects=False)\n"
        for i in range(n)
    )
    return (
        "from cutlass._mlir.dialects import llvm\nimport cutlass\n\n\n"
        f"@cutlass.cute.jit\ndef f(a):\n{body}"
    )


# name -> (file suffix, generator, units at the default size)
SHAPES: dict[str, tuple[str, Callable[[int], str], int]] = {
    "statements in one function": (".cu", one_function, 1000),
    "functions": (".cu", functions, 1000),
    "parameters of one function": (".cu", parameters, 500),
    "chain of pointer locals": (".cu", pointer_chain, 1000),
    "instructions in one template": (".cu", instructions, 1000),
    "labels and branches in one template": (".cu", branches, 1000),
    ".reg declarations in one template": (".cu", registers, 1000),
    "statements from one macro": (".cu", macro_statements, 1000),
    "#if branches": (".cu", if_branches, 500),
    "statements with unscoped labels": (".cu", unscoped_labels, 1000),
    "carry chains across statements": (".cu", carry_chains, 1000),
    "statements on one line": (".cu", one_line, 1000),
    # past macros.MAX_NESTING (1,024) links the expansion stops: 4N measures the bound
    "chain of macro definitions": (".cu", macro_chain, 1000),
    "Triton calls in one Python file": (".py", triton_calls, 1000),
    "asm statements in one macro body": (".cu", macro_body, 250),
    "scoped blocks in one template": (".cu", scoped_blocks, 500),
    "CuTe DSL inline_asm calls in one function": (".py", cute_dsl_calls, 500),
}


def lint_seconds(suffix: str, text: str) -> float:
    """CPU seconds of one lint of ``text``, in this process after a warm-up lint of a small
    file (grammars and rules loaded, no memo holding anything of ``text``)."""
    rules = instantiate(load_rules().rules)
    lint_source(SourceFile(f"warm{suffix}", SHAPES_BY_SUFFIX[suffix](3)), rules, RuleContext())
    started = time.process_time()
    with collector.paused(collect_young=True):
        lint_source(SourceFile(f"scaling{suffix}", text), rules, RuleContext())
    return time.process_time() - started


SHAPES_BY_SUFFIX = {".cu": one_function, ".py": triton_calls}


def findings_file(n: int) -> str:
    """``n`` statements of two findings each (a generic pointer for a shared load, and its
    missing "memory" clobber), each with a fix: what the paths after the lint work on."""
    declarations = "".join(f"  unsigned v{i};\n" for i in range(n))
    body = "".join(
        f'  asm("ld.shared.u32 %0, [%1];" : "=r"(v{i}) : "l"(p + {i}));\n' for i in range(n)
    )
    return f"__device__ void f(unsigned* p) {{\n{declarations}{body}}}\n"


def _add_noqa(text: str, findings: list[Finding]) -> object:
    from ptxlint.add_noqa import add_suppressions

    return add_suppressions(text, [f for f in findings if f.statement is not None])


def _apply_fixes(text: str, findings: list[Finding]) -> object:
    from ptxlint.fix import apply_edits

    return apply_edits(text, [f.fix for f in findings if f.fix is not None and f.fix.edits])


def _code_actions(text: str, findings: list[Finding]) -> object:
    from ptxlint.lsp.actions import ActionRequest, code_actions
    from ptxlint.lsp.conversions import LineIndex
    from ptxlint.lsp.rule_docs import RuleDocs

    request = ActionRequest(
        "file:///scaling.cu", text, LineIndex(text), "utf-16", findings, 0, len(text), [], None
    )
    return code_actions(request, RuleDocs({}), lambda: None)


# The paths that work on a file's findings after its lint: name -> (path, units at N).
PATHS: dict[str, tuple[Callable[[str, list[Finding]], object], int]] = {
    "--add-noqa (suppressions written)": (_add_noqa, 500),
    "--fix / --diff (edits applied)": (_apply_fixes, 500),
    "LSP code actions over a whole file": (_code_actions, 500),
}


def path_seconds(name: str, n: int) -> float:
    """CPU seconds of path ``name`` on the findings of ``findings_file(n)`` (the lint untimed;
    the language-server path only where pygls is installed)."""
    text = findings_file(n)
    rules = instantiate(load_rules().rules)
    findings = list(lint_source(SourceFile("scaling.cu", text), rules, RuleContext()).findings)
    started = time.process_time()
    PATHS[name][0](text, findings)
    return time.process_time() - started


def measured(name: str, n: int, repeat: int) -> float:
    """The best of ``repeat`` fresh processes, each linting shape ``name`` at ``n`` units once:
    the memos shared between files would make a second lint in one process a replay."""
    best = math.inf
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--measure", name, str(n)],
            check=True, capture_output=True, text=True,
        ).stdout
        best = min(best, float(out.split()[-1]))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=1.0, help="scale every shape's units")
    parser.add_argument("--factor", type=int, default=4, help="the larger size, in times N")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="shapes whose name holds this")
    parser.add_argument("--measure", nargs=2, metavar=("SHAPE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        name, n = args.measure[0], int(args.measure[1])
        if name in PATHS:
            print(path_seconds(name, n))
            return 0
        suffix, make, _ = SHAPES[name]
        print(lint_seconds(suffix, make(n)))
        return 0
    print(f"{'shape':40} {'N':>6} {'t(N)':>8} {'t(KN)':>8}  growth (1 = linear, 2 = quadratic)")
    worst = 0.0
    sizes = [(name, units) for name, (_, _, units) in SHAPES.items()]
    sizes += [(name, units) for name, (_, units) in PATHS.items()]
    for name, units in sizes:
        if args.only and not any(word in name for word in args.only):
            continue
        if name.startswith("LSP") and importlib.util.find_spec("pygls") is None:
            continue
        n = max(3, int(units * args.size))
        small = measured(name, n, args.repeat)
        large = measured(name, n * args.factor, args.repeat)
        growth = math.log(max(large, 1e-6) / max(small, 1e-6)) / math.log(args.factor)
        worst = max(worst, growth)
        mark = "  <- superlinear" if growth > 1.3 else ""
        print(f"{name:40} {n:6d} {small:8.3f} {large:8.3f}  {growth:4.2f}{mark}", flush=True)
    print(f"largest growth: {worst:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
