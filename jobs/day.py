"""spark-submit entry point of a day's stages: arguments as ``crawldedup stage NAME...``
(the DAG's dedup task submits every Spark stage of the day here, in one application)."""

import sys

from crawldedup.cli import job_main

if __name__ == "__main__":
    sys.exit(job_main(sys.argv[1:]))
