"""``python -m ptxlint.cli``: the command line, as ``python -m ptxlint`` runs it (the module
``ptxlint.cli`` ran it this way before it became a package)."""

import sys

from ptxlint import start_path

# Before anything else is imported: under `python -m` the working folder is first on sys.path,
# and a checkout being linted must not supply ptxlint's dependencies.
start_path.isolate()

from ptxlint.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
