"""spark-submit entry point of one stage of a day: the file's name is the stage (see
crawldedup.stage_registry); arguments as ``crawldedup stage NAME``."""

import sys

from crawldedup.cli import job_main

if __name__ == "__main__":
    sys.exit(job_main(__file__, sys.argv[1:]))
