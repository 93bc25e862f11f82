"""``python -m ptxlint.lsp``: the language server without the CLI wrapper."""

import sys

from ptxlint.lsp import main_lsp

# The guard matters: the lint workers are spawned processes, which import this module again.
if __name__ == "__main__":
    sys.exit(main_lsp())
