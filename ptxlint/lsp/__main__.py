"""``python -m ptxlint.lsp``: the language server without the CLI wrapper."""

import sys

from ptxlint.lsp import main_lsp

sys.exit(main_lsp())
