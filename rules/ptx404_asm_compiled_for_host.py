"""PTX404 asm-compiled-for-host."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.latent import emission
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity, Span
from ptxlint.rule import Rule, RuleContext


class AsmCompiledForHost(Rule):
    id = "PTX404"
    name = "asm-compiled-for-host"
    pure = True
    scope = "statement"
    severity = Severity.WARNING  # error where the definition is emitted in every build
    needs = ("instructions",)
    summary = "PTX in a __host__ __device__ function that the host pass compiles too"
    tags = ("correctness", "targets")
    docs = """\
## What it does
Flags an asm statement whose template is PTX in a function declared `__host__ __device__`
(directly, or through a macro of the file or its headers such as `CUTLASS_HOST_DEVICE`), when
no `#if` around it leaves it out of nvcc's host pass: every guard is decided and true with
`__CUDA_ARCH__` undefined (no guard at all, or only guards about other things).

Silent where a guard leaves the host pass out (`#ifdef __CUDA_ARCH__`, `#if __CUDA_ARCH__ >=
800`, whose value there is 0), and where a guard cannot be decided (a project's macro, such as
`CUTE_ARCH_MMA_SM80_ENABLED`, or `NV_IF_TARGET`, which may well test the target); in
`__device__` and `__global__` functions; and for templates that are not clearly PTX.

## Why is this bad?
nvcc compiles a `__host__ __device__` function twice: once for the GPU, and once for the CPU,
where it hands the function, asm statements included, to the host compiler. There the template
is x86 or Arm assembly, and the host assembler rejects it: with nvcc 13.0 and GCC,
`asm volatile("mov.u32 %0, %%laneid;" : "=r"(r))` in a `__host__ __device__` function fails
with "Error: no such instruction: `mov.u32 %eax,%laneid'", a line of the host assembler's
input that names neither the function nor the asm. An ordinary definition (not a template, not
`inline`, `__forceinline__`, `static` or `constexpr`, not a member defined in its class, no
specifier macro that may say `inline`) fails the build of every file that has it: an error.
An inline function or a template fails once host code calls it, which is why the defect ships
(the kernels that call it compile): a warning.

## Example
```cuda
__host__ __device__ inline unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
```

## Use instead
```cuda
__host__ __device__ inline unsigned lane_id() {
#ifdef __CUDA_ARCH__
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
#else
  return 0;  // what the host should see
#endif
}
```

## Fix safety
No fix: what the host version computes instead is the author's to say.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        if statement.syntax != "gnu" or not analysis.compiled_for_host:
            return
        if not statement.ptx.instructions or not analysis.clearly_ptx:
            return
        instruction = statement.ptx.instructions[0]
        # an ordinary definition is emitted, and so assembled, in every build of its file;
        # a template, an inline or static function or a member defined in its class only
        # where host code uses it (read only here: few statements get this far)
        where = emission(statement, context.parsed)
        certain = (where is not None and not where.template and not where.internal
                   and not where.macro_words)
        when = ("in every build of this file (the function is an ordinary definition)"
                if certain else "once host code calls the function")
        # (not the function's name: a pure rule's outcome is replayed on every copy of the
        # statement, whatever function holds it)
        # the keyword and its qualifiers; the whole statement where it is a macro's expansion
        # (its parenthesis is in the #define, its span the invocation)
        start, paren = statement.span.start, statement.open_paren
        yield self.finding(
            statement,
            Span(start, paren) if start <= paren <= statement.span.end else statement.span,
            f"PTX ('{instruction.mnemonic}') in a __host__ __device__ function, which nvcc "
            "also compiles for the host: no #if leaves this asm out of the host pass, so the "
            f"host compiler gets the PTX and rejects it (GCC's assembler: 'no such "
            f"instruction') {when}; guard it with #ifdef __CUDA_ARCH__",
            severity=Severity.ERROR if certain else Severity.WARNING,
        )
