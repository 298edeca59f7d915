"""``python -m citeledger.cli``: the command line without the console script."""

import sys

from citeledger.cli import main

sys.exit(main())
