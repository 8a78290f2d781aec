"""spark-submit entry point of the report stage (`--date D [--input DIR] [--home DIR]`)."""

import sys

from crawldedup.cli import main

if __name__ == "__main__":
    sys.exit(main(["stage", "report", *sys.argv[1:]]))
