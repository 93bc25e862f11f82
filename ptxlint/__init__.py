"""ptxlint: a static analyzer for inline PTX assembly in CUDA sources."""

import sys as _sys

__version__ = "0.1.0"

# `python -m ptxlint[.lsp]` is still locating its main module (sys.argv[0] is "-m" until then):
# take the working folder off sys.path before a subpackage imports anything (ptxlint.lsp's
# __init__ imports argparse), so a checkout being linted supplies none of it.
if _sys.argv[:1] == ["-m"]:
    from ptxlint import start_path as _start_path

    if _start_path.started_as_ptxlint():
        _start_path.isolate()
