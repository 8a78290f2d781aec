"""The SparkSession: built by a job's main() or the CLI, never at import time."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from pyspark.sql import SparkSession

from crawldedup.config import Config

_LOG4J = Path(__file__).with_name("log4j2.properties")
# The Spark configuration crawldedup ships for its short-lived drivers (C1 only, the
# parallel collector): used where the user has none (default_conf_dir).
SHIPPED_CONF_DIR = Path(__file__).with_name("spark-conf")
# The variable Spark's SQL Python runners set for their workers (see build_session).
SHARED_WORKER_ENV = "SPARK_SIMPLIFIED_TRACEBACK"
# The Python worker daemon of crawldedup's jobs.
WORKER_DAEMON = "crawldedup.pipeline.worker_daemon"


def _deployment_conf_dir(env: Mapping[str, str]) -> Path | None:
    """The deployment's own Spark configuration folder: ``SPARK_CONF_DIR`` when set, else
    Spark's ``conf/`` when it holds a ``spark-defaults.conf``; None without either."""
    if env.get("SPARK_CONF_DIR"):
        return Path(env["SPARK_CONF_DIR"])
    spark_home = env.get("SPARK_HOME") or _pyspark_home()
    if spark_home and (Path(spark_home) / "conf" / "spark-defaults.conf").is_file():
        return Path(spark_home) / "conf"
    return None


def default_conf_dir(environ: Mapping[str, str] | None = None) -> str | None:
    """The ``SPARK_CONF_DIR`` for a driver crawldedup starts: None when the deployment has
    a Spark configuration of its own (it wins); else the folder crawldedup ships
    (``spark-conf/``)."""
    env = os.environ if environ is None else environ
    if _deployment_conf_dir(env) is not None:
        return None
    return str(SHIPPED_CONF_DIR) if SHIPPED_CONF_DIR.is_dir() else None


def _pyspark_home() -> str | None:
    """Where pyspark's launcher looks for ``conf/`` when SPARK_HOME is unset."""
    from pyspark.find_spark_home import _find_spark_home

    try:
        return str(_find_spark_home())
    except SystemExit:  # it exits when it finds none
        return None


DAEMON_KEY = "spark.python.daemon.module"


# A line of spark-defaults.conf (a Java properties file): the key ends at the first
# whitespace, "=" or ":".
_PROPERTY = re.compile(r"([^\s=:]+)\s*[\s=:]\s*(.*)")


def user_spark_defaults(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings of the deployment's own ``spark-defaults.conf`` (see
    :func:`_deployment_conf_dir`), as spark-submit reads them; empty when the driver runs
    under the configuration crawldedup ships."""
    env = os.environ if environ is None else environ
    folder = _deployment_conf_dir(env)
    path = None if folder is None else folder / "spark-defaults.conf"
    if path is None or not path.is_file():
        return {}
    settings: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        found = _PROPERTY.fullmatch(raw.strip())
        if found and not raw.strip().startswith(("#", "!")):
            settings[found.group(1)] = found.group(2).strip()
    return settings


def _user_chose_daemon(master: str | None) -> bool:
    """Whether the deployment's Spark configuration names a worker daemon of its own,
    which crawldedup's must not replace."""
    if master is None:  # under spark-submit: the JVM has read its configuration
        from pyspark import SparkConf

        return SparkConf().contains(DAEMON_KEY)
    return DAEMON_KEY in user_spark_defaults()


def _local_workers(master: str | None) -> bool:
    """Whether the Python workers run on this machine, with this installation of
    crawldedup: a local master, and crawldedup not imported from a ``--py-files`` zip.
    Elsewhere a worker daemon cannot import a module of the zip (Spark puts py-files on
    a worker's path only once its task starts); a cluster whose executors install
    crawldedup sets ``spark.python.daemon.module`` in its own Spark configuration
    (docs/operations.md#spark-settings-for-daily-batches)."""
    if ".zip" in Path(__file__).as_posix():
        return False
    if master is None:  # under spark-submit: the master it was given
        from pyspark import SparkConf, SparkContext

        SparkContext._ensure_initialized()
        master = SparkConf().get("spark.master", "")
    return master.startswith("local")


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
    if _local_workers(master) and not _user_chose_daemon(master):
        # Workers forked with the stages' modules loaded and frozen out of the collector
        # that pyspark runs after every task (crawldedup/pipeline/worker_daemon.py);
        # unless the deployment's own Spark configuration names a daemon.
        builder = builder.config(DAEMON_KEY, WORKER_DAEMON)
    if master:
        # This call starts the driver JVM: pyspark hands the builder's settings to
        # spark-submit as --conf, so the driver's options take effect here.
        if java_opts:
            builder = builder.config("spark.driver.extraJavaOptions", java_opts)
        # Read by the launcher that starts the JVM: set before, in this process's env.
        shipped = default_conf_dir()
        if shipped is not None:
            os.environ["SPARK_CONF_DIR"] = shipped
        builder = builder.master(master).config("spark.driver.memory", cfg.spark.driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
