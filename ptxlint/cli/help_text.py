"""The `--help` epilogs: examples and exit codes, kept apart from the argument definitions."""

from __future__ import annotations

EXIT_CODES = """\
exit codes:
  0  nothing at or above --fail-on (default: warning) was found
  1  findings at or above --fail-on (with --exit-non-zero-on-fix: also any file fixed)
  2  usage or configuration error, unreadable input, no rules loaded, no CUDA toolchain
     for --verify, internal error (the run still reports everything it could)"""

MAIN = f"""\
examples:
  ptxlint check src                       lint a tree
  ptxlint src --fix                       the same as `ptxlint check src --fix`: a path or
                                          an option first runs check (a path named like a
                                          command, e.g. rules, needs `check`)
  ptxlint check src --fix                 apply the safe fixes
  ptxlint check --output-format sarif -o ptxlint.sarif src
  ptxlint rule PTX101                     one rule's documentation
  ptxlint rules                           every rule, one line each

{EXIT_CODES}

configuration: the nearest .ptxlint.toml, ptxlint.toml or pyproject.toml [tool.ptxlint] above
each file; see `ptxlint check --show-settings FILE`."""

CHECK = f"""\
examples:
  ptxlint check                                  lint the current folder
  ptxlint check src include --select PTX0,PTX1   only these rule groups
  ptxlint check src --fix --show-fixes           fix, and list what was fixed
  ptxlint check src --diff                       show the fixes as a diff, change nothing
  ptxlint check - --stdin-filename k.cu < k.cu   lint standard input (editors, scripts)
  ptxlint check --output-format junit -o ptxlint.xml src
  ptxlint check --config 'fail-on="error"' --config arch=sm_90a src
  ptxlint check --show-settings src/k.cu         which configuration applies, and how
  ptxlint check --add-noqa src                   suppress every current finding in place
  ptxlint check src --per-file-ignores 'tests/**:PTX101'   and not PTX101 under tests/
  ptxlint check src --preview                    also the rules still in preview
  ptxlint check src --output-format full         source context and each fix's lines
  ptxlint check --verify --arch sm_90a src       confirm findings with nvcc/ptxas

{EXIT_CODES}"""

STATS = """\
examples:
  ptxlint stats src                   statements found, linted, operands typed
  ptxlint stats src --list-skipped    and why each skipped statement was skipped

exit codes:
  0  counted; 2  unreadable input or configuration error"""

RULE = """\
examples:
  ptxlint rule PTX101                          Markdown documentation of one rule
  ptxlint rule missing-volatile                the same, by name
  ptxlint rule --all --output-format json      every rule as JSON (code, name, summary,
                                               severity, tags, url, explanation)

exit codes:
  0  printed; 2  no such rule"""

CONFIG = """\
examples:
  ptxlint config                               every setting, one line each
  ptxlint config per-file-ignores              one setting: type, default, flags, example
  ptxlint config --output-format json          every setting as JSON

exit codes:
  0  printed; 2  no such setting"""

RULES = """\
exit codes:
  0  printed; 2  no rules loaded (the ptxlint.rules entry points are named)"""

NEW = """\
examples:
  ptxlint new cp.async.ca.shared.global             a __device__ wrapper, printed
  ptxlint new mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 --kernel
  ptxlint new add.rn.f16x2 --dialect triton         an inline_asm_elementwise call
  ptxlint new elect.sync --name elect_one

The operands, constraints, volatile and "memory", the braces and the #if guard come from the
instruction grammar (the same one `ptxlint check` judges with). A form whose operands the
opcode string does not fix, or that a wrapper cannot bind, is a usage error (exit code 2)
that names what is missing."""
