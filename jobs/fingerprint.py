"""spark-submit entry point of the fingerprint stage (`--date D [--input DIR] [--home DIR]`)."""

import sys

from crawldedup.cli import main

if __name__ == "__main__":
    sys.exit(main(["stage", "fingerprint", *sys.argv[1:]]))
