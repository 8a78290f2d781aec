"""What Python tasks pay besides their own work, under pyspark's worker daemon and
under crawldedup's (``crawldedup.pipeline.worker_daemon``), side by side.

    .venv/bin/python benchmarks/worker_overhead.py [--tasks 40]

For each daemon, one local[1] session runs ``--tasks`` one-task jobs. Each task imports
what the stages' tasks import, then times in its worker, in CPU milliseconds, what
pyspark runs besides the task's own work:

- ``gc.collect()``: the daemon's loop runs it in the worker after every task;
- ``importlib.invalidate_caches()``: pyspark runs it once in each worker process, at its
  first task (when it adds the application's files folder to the path); timed here in
  every task, to take its median;
- the task's import of the stages: the first task's, and the median.

It prints the medians, and each daemon's whole-session CPU (driver, JVM and workers: the
process tree's, as ``crawl_vs_peers.run_tree`` counts it). That session CPU includes the
timing calls themselves, the invalidation's too: per worker process, not per task, in a
real day.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from crawl_vs_peers import become_subreaper, run_tree

SESSION = r"""
import json, statistics, sys
from pyspark.sql import SparkSession

def task(_):
    import gc, importlib, time
    t = time.process_time()
    import crawldedup.pipeline.stages  # noqa: F401
    imported = time.process_time() - t
    t = time.process_time()
    importlib.invalidate_caches()
    invalidate = time.process_time() - t
    t = time.process_time()
    gc.collect()
    collect = time.process_time() - t
    return imported, invalidate, collect

spark = (
    SparkSession.builder.master("local[1]")
    .config("spark.ui.enabled", "false")
    .config("spark.python.worker.reuse", "true")
    .config("spark.python.daemon.module", sys.argv[1])
    .getOrCreate()
)
sc = spark.sparkContext
found = [sc.parallelize([i], 1).map(task).collect()[0] for i in range(int(sys.argv[2]))]
spark.stop()
ms = lambda i: round(statistics.median(f[i] for f in found) * 1000, 3)
print(json.dumps({"import": ms(0), "invalidate_caches": ms(1), "gc_collect": ms(2),
                  "first_import": round(found[0][0] * 1000, 1)}))
"""

DAEMONS = {"pyspark's": "pyspark.daemon", "crawldedup's": "crawldedup.pipeline.worker_daemon"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=40)
    args = ap.parse_args()
    become_subreaper()
    print(
        f"| daemon | {args.tasks} tasks: session CPU s | per task, median ms: "
        "gc.collect (every task) | invalidate_caches (a worker's first task) "
        "| import of the stages | first task's import ms |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    logs = Path(tempfile.mkdtemp(prefix="worker-overhead-"))
    for name, module in DAEMONS.items():
        log = logs / f"{module}.log"
        tree = run_tree([sys.executable, "-c", SESSION, module, str(args.tasks)], log)
        if tree.rc != 0:
            tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise SystemExit(f"{name} daemon: exit {tree.rc}\n{tail}")
        got = json.loads(log.with_suffix(".out").read_text().strip().splitlines()[-1])
        print(
            f"| {name} | {tree.cpu:.1f} | {got['gc_collect']} | {got['invalidate_caches']} "
            f"| {got['import']} | {got['first_import']} |"
        )


if __name__ == "__main__":
    main()
