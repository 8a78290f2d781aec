"""Single Spark operations of the pipeline, two ways each, alternating in one session.

    .venv/bin/python benchmarks/throughput.py --text real --docs 100000 --index 100000 \
        --no-peers --work /tmp/tp
    .venv/bin/python benchmarks/spark_operations.py \
        --day /tmp/tp/embedded-100000-100000/home/work/dt=2026-11-10

A whole day's run on this machine moves by 10-30 % from one run to the next, more than
most single changes save. Here each operation runs on the same finished day's work
files (``--day``, a ``work/dt=D`` folder left by ``throughput.py``), the two ways
alternating (A B A B ...) in one Spark session, and the driver JVM's CPU seconds are
read around each: a slower spell of the machine hits both ways.

- ``key window``: the day's keys (``explode_keys``) ranked per (rule, key) with their
  holders counted, as candidates and publish do; partitioned by (rule, key) as before
  2026-12-02, or with the 64-bit hash ``_k`` of (rule, key) first
  (``candidates_stage.rank_within_day``).
- ``parquet dictionary``: the day's documents written to Parquet and read back, with
  Parquet's dictionary encoding on (its default) or off (``pipeline.spark``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from crawldedup.config import Config
from crawldedup.pipeline.candidates_stage import explode_keys, rank_within_day, shared_keys
from crawldedup.pipeline.spark import build_session
from crawldedup.rules import enabled


def jvm_cpu() -> float:
    """CPU seconds of the driver JVM (a child of this process in local mode)."""
    total = 0.0
    for p in psutil.Process().children(recursive=True):
        if p.name() == "java":
            t = p.cpu_times()
            total += t.user + t.system
    return total


def measured(action: Callable[[], None]) -> tuple[float, float]:
    c0, t0 = jvm_cpu(), time.perf_counter()
    action()
    return time.perf_counter() - t0, jvm_cpu() - c0


def by_rule_and_key(keys: DataFrame) -> DataFrame:
    """The ranking and holder count partitioned by (rule, key): the code before _k."""
    w = Window.partitionBy("rule", "key").orderBy("fetched_at", "id")
    ranked = keys.withColumn("rank", F.row_number().over(w))
    holders = F.count(F.lit(1)).over(Window.partitionBy("rule", "key"))
    return ranked.withColumn("_holders", holders).filter(F.col("_holders") > 1)


def key_window(spark: SparkSession, day: Path, times: int) -> dict[str, list[float]]:
    cfg = Config()
    keys = explode_keys(spark.read.parquet(str(day / "docs")), enabled(cfg.cascade.rules))
    ways: dict[str, Callable[[], DataFrame]] = {
        "(rule, key)": lambda: by_rule_and_key(keys),
        "(_k, rule, key)": lambda: shared_keys(rank_within_day(keys)),
    }
    out: dict[str, list[float]] = {w: [] for w in ways}
    for i in range(times + 1):  # the first round warms the JVM up, untimed
        for name, frame in ways.items():

            def run(frame: Callable[[], DataFrame] = frame) -> None:
                frame().write.format("noop").mode("overwrite").save()

            _, cpu = measured(run)
            if i:
                out[name].append(cpu)
    return out


def parquet_dictionary(spark: SparkSession, day: Path, times: int) -> dict[str, list[float]]:
    docs = spark.read.parquet(str(day / "docs"))
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    out: dict[str, list[float]] = {"dictionary on": [], "dictionary off": []}
    scratch = Path(tempfile.mkdtemp(prefix="spark-operations-"))
    try:
        for i in range(times + 1):  # the first round warms the JVM up, untimed
            for name in out:
                hadoop.set("parquet.enable.dictionary", str(name.endswith("on")).lower())
                target = str(scratch / name.replace(" ", "-"))

                def write_and_read(target: str = target) -> None:
                    docs.write.mode("overwrite").parquet(target)
                    spark.read.parquet(target).write.format("noop").mode("overwrite").save()

                cpu = measured(write_and_read)[1]
                if i:
                    out[name].append(cpu)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--day", type=Path, required=True, help="a work/dt=D folder")
    ap.add_argument("--times", type=int, default=4)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)
    if not (args.day / "docs").is_dir():
        ap.error(f"{args.day} has no docs folder: pass a finished day's work/dt=D")
    spark = build_session(Config(), "spark-operations", master=args.master)
    print("| operation | way | driver JVM CPU s (median) | runs | ratio to the first way |")
    print("| --- | --- | ---: | --- | ---: |")
    for operation, run in (
        ("key window", key_window),
        ("parquet dictionary", parquet_dictionary),
    ):
        runs = run(spark, args.day, args.times)
        first = statistics.median(next(iter(runs.values())))
        for way, cpu in runs.items():
            med = statistics.median(cpu)
            listed = ", ".join(f"{c:.1f}" for c in cpu)
            print(f"| {operation} | {way} | {med:.1f} | {listed} | {med / first:.2f} |")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
