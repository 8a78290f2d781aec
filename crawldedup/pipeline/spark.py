"""The SparkSession: built by a job's main() or the CLI, never at import time."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from crawldedup.config import Config

_LOG4J = Path(__file__).with_name("log4j2.properties")
# The variable Spark's SQL Python runners set for their workers (see build_session).
SHARED_WORKER_ENV = "SPARK_SIMPLIFIED_TRACEBACK"


def build_session(
    cfg: Config,
    app_name: str = "crawldedup",
    master: str | None = None,
) -> SparkSession:
    """A session with quiet logs; ``master`` None keeps what spark-submit chose.

    JVM options other than the quiet logging (memory aside) are not set here: they belong
    to Spark's own configuration (``spark-defaults.conf`` in ``SPARK_CONF_DIR``, or
    ``--conf``), where a deployment sets them for every Spark application it runs.
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
        # whose workers imported everything again.
        .config(f"spark.executorEnv.{SHARED_WORKER_ENV}", "1")
        # The work files are written once and read a stage later; their columns are ids,
        # hashes and texts, nearly all distinct, where Parquet's dictionary encoding only
        # costs the writer its hash map.
        .config("spark.hadoop.parquet.enable.dictionary", "false")
    )
    if java_opts:
        builder = builder.config("spark.executor.extraJavaOptions", java_opts)
    # Under spark-submit the JVM already exists and owns the master setting.
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = cfg.spark.master
    if master:
        # This call starts the driver JVM: pyspark hands the builder's settings to
        # spark-submit as --conf, so the driver's options take effect here.
        if java_opts:
            builder = builder.config("spark.driver.extraJavaOptions", java_opts)
        builder = builder.master(master).config("spark.driver.memory", cfg.spark.driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
