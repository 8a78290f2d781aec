"""``python -m crawldedup.cli``: the command line, as the ``crawldedup`` script runs it."""

import sys

from crawldedup.cli import main

if __name__ == "__main__":
    sys.exit(main())
