"""``python -m ptxlint.lsp``: the language server without the CLI wrapper."""

import sys

from ptxlint import start_path

# An editor starts the server in the workspace folder: keep it off the import path first.
start_path.isolate()

from ptxlint.lsp import main_lsp  # noqa: E402

# The guard matters: the lint workers are spawned processes, which import this module again.
if __name__ == "__main__":
    sys.exit(main_lsp())
