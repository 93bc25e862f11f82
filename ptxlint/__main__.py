import sys

from ptxlint.cli import main

sys.exit(main())
