"""What ``ptxlint check`` on one small C++ file leaves unloaded: the modules of features it does
not use (the Python front end's call classes, suppression comments, compile databases,
--verify, --show-settings, the language server, the other commands' parsers), each of which
cost start-up time when it was imported on every run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

NOT_LOADED = (
    "ptxlint.model_llvm",  # LlvmCall & co.: made only by the Python front end
    "ptxlint.suppress_directives",  # only for a file that holds the word ptxlint
    "ptxlint.tier2.compile_db",  # only once a compile_commands.json is found
    "ptxlint.verify.verdict",  # only with --verify
    "ptxlint.show",  # only with --show-settings / --show-files
    "ptxlint.lsp",  # only for `ptxlint lsp` (or a parser of every command)
    "pkgutil",  # the built-in rules are found by listing their folder
    "shlex",  # compile_db's
    # the cross-statement flows: only for a statement with a protocol step, or a build
    # target's shortfall under --arch (PTX401's if constexpr arms)
    "ptxlint.analysis.function_flow",
)


def test_a_small_check_loads_no_module_of_an_unused_feature(tmp_path) -> None:
    (tmp_path / "k.cu").write_text(
        '__device__ unsigned f(unsigned a) { unsigned d;\n'
        '  asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a)); return d; }\n'
    )
    probe = (
        "import sys\nfrom ptxlint.cli import main\n"
        "try:\n    main(['check', sys.argv[1], '--no-cache', '--quiet'])\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted(m for m in {NOT_LOADED!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "k.cu")], cwd=ROOT, capture_output=True,
        text=True, timeout=300, check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"
