"""The SparkSession: built by a job's main() or the CLI, never at import time."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from crawldedup.config import Config
from crawldedup.pipeline.class_archive import class_archive_options
from crawldedup.pipeline.jit import jit_java_options

_LOG4J = Path(__file__).with_name("log4j2.properties")
# The variable Spark's SQL Python runners set for their workers (see build_session).
SHARED_WORKER_ENV = "SPARK_SIMPLIFIED_TRACEBACK"


def build_session(
    cfg: Config,
    app_name: str = "crawldedup",
    master: str | None = None,
    day_bytes: int | None = None,
    write_class_archive: bool = True,
) -> SparkSession:
    """A session with quiet logs; ``master`` None keeps what spark-submit chose.

    When this call starts the JVM: ``day_bytes``, the day's input size when known,
    chooses the driver JVM's JIT (``crawldedup.pipeline.jit``), and the JVM maps the
    class archive of an earlier start, or writes one when it exits
    (``crawldedup.pipeline.class_archive``; not when ``write_class_archive`` is false:
    a JVM living for a whole test suite would hold the first dump back until its end).
    """
    # Executors must run the same interpreter as the driver (the project's venv).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # Imported from the --py-files zip (spark-submit to a cluster) the file is inside the
    # zip, which log4j cannot read: then Spark's default logging stays.
    java_opts = f"-Dlog4j2.configurationFile={_LOG4J}" if _LOG4J.is_file() else ""
    builder = (
        SparkSession.builder.appName(app_name)
        .config("spark.sql.shuffle.partitions", str(cfg.spark.shuffle_partitions))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        # One pool of Python workers for every job. Spark keeps a pool (a daemon and its
        # forked workers) per set of worker environment variables, and its SQL runners
        # (mapInArrow) add SPARK_SIMPLIFIED_TRACEBACK=1 where its RDD runners (the
        # stages' mapPartitions) do not: without this, a day started a second daemon
        # whose workers imported everything again (an empty day: 6 worker processes,
        # 13.9 CPU s, against 3 and 8.5 s with it; docs/benchmarks.md, eighth pass).
        .config(f"spark.executorEnv.{SHARED_WORKER_ENV}", "1")
        # The work files are written once and read a stage later; their columns are ids,
        # hashes and texts, nearly all distinct, where Parquet's dictionary encoding only
        # costs the writer its hash map (benchmarks/throughput.py: ~15 % of the JVM's time
        # in fingerprint and publish).
        .config("spark.hadoop.parquet.enable.dictionary", "false")
    )
    if java_opts:
        builder = builder.config("spark.executor.extraJavaOptions", java_opts)
    # Under spark-submit the JVM already exists and owns the master setting.
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = cfg.spark.master
    if master:
        # This call starts the driver JVM: pyspark hands the builder's settings to
        # spark-submit as --conf, so the driver's options take effect here (and only
        # here; they are not left in the environment for child processes to inherit).
        jit = jit_java_options(cfg.spark, day_bytes)
        archive = class_archive_options(cfg.spark.class_archive, write=write_class_archive)
        driver_opts = " ".join(o for o in (java_opts, jit, archive) if o)
        if driver_opts:
            builder = builder.config("spark.driver.extraJavaOptions", driver_opts)
        builder = builder.master(master).config("spark.driver.memory", cfg.spark.driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
