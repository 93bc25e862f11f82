import sys

from ptxlint.cli import main

# The guard matters: spawned worker processes (the language server's) import this module again.
if __name__ == "__main__":
    sys.exit(main())
