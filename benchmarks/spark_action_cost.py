"""What one Spark action costs in a warm local session, whatever its data.

A day's run starts about 55-66 Spark jobs whatever its size (a 20-record day as a
16,500-record one); this prints the session's start and, for three shapes of action the
stages use, the wall and CPU seconds one action takes on a thousand rows once the session
is warm (the same action repeated ``--rounds`` times, after one untimed run). CPU is the
machine's busy CPU (/proc/stat: the JVM, the Python driver and its workers together), so
run it alone on the machine.

    .venv/bin/python benchmarks/spark_action_cost.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crawldedup.config import Config  # noqa: E402
from crawldedup.pipeline.spark import build_session  # noqa: E402


def busy_cpu_s() -> float:
    """The machine's busy CPU seconds so far (user, nice, system, irq, softirq)."""
    with open("/proc/stat") as fh:
        v = [int(x) for x in fh.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6]) / 100.0


def _same_batches(batches: Iterator[Any]) -> Iterator[Any]:
    yield from batches


def actions(spark: Any, out: Path) -> dict[str, Callable[[int], Any]]:
    from pyspark.sql import functions as F

    def grouped(i: int) -> Any:
        return spark.range(1000).withColumn("k", F.col("id") % 7).groupBy("k").count().collect()

    def python_write(i: int) -> None:
        frame = spark.range(1000).mapInArrow(_same_batches, "id long")
        frame.write.mode("overwrite").parquet(str(out / f"arrow-{i}"))

    def joined_write(i: int) -> None:
        frame = spark.range(1000).join(spark.range(500), "id")
        frame.write.mode("overwrite").parquet(str(out / f"join-{i}"))

    return {
        "groupBy + count, collected": grouped,
        "mapInArrow (Python) + Parquet write": python_write,
        "join + Parquet write": joined_write,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)
    out = Path(tempfile.mkdtemp(prefix="crawldedup-action-cost-"))
    c0, t0 = busy_cpu_s(), time.perf_counter()
    spark = build_session(Config(), "action-cost", "local[*]")
    spark.range(1).collect()
    print(
        f"session start and a first job: {time.perf_counter() - t0:.1f} s wall, "
        f"{busy_cpu_s() - c0:.1f} CPU s"
    )
    print()
    print("| action (1,000 rows) | ms wall | ms CPU |")
    print("| --- | ---: | ---: |")
    try:
        for name, run in actions(spark, out).items():
            run(-1)  # untimed: its first run loads and compiles its code paths
            c, t = busy_cpu_s(), time.perf_counter()
            for i in range(args.rounds):
                run(i)
            wall = (time.perf_counter() - t) / args.rounds * 1000
            cpu = (busy_cpu_s() - c) / args.rounds * 1000
            print(f"| {name} | {wall:.0f} | {cpu:.0f} |", flush=True)
    finally:
        spark.stop()
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
