"""spark-submit entry point of the relevance stage (`--date D --input DIR [--home DIR]`)."""

import sys

from crawldedup.cli import main

if __name__ == "__main__":
    sys.exit(main(["stage", "relevance", *sys.argv[1:]]))
