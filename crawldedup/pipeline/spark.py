"""The SparkSession: built by a job's main() or the CLI, never at import time."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from pyspark.sql import SparkSession

from crawldedup.config import Config
from crawldedup.pipeline.class_archive import (
    archive_key,
    cache_folder,
    java_executable,
    launch_options,
    write_if_asked,
)

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
    return {} if folder is None else _spark_defaults(str(folder))


def _spark_defaults(folder: str) -> dict[str, str]:
    """The settings of ``folder``'s ``spark-defaults.conf``, as spark-submit reads them
    (empty without the file)."""
    path = Path(folder) / "spark-defaults.conf"
    if not path.is_file():
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
    *,
    writes_archive: bool = False,
) -> SparkSession:
    """A session with quiet logs; ``master`` None keeps what spark-submit chose. A local
    driver starts from the class archive when there is one; ``writes_archive``: the
    caller writes it when there is none (:func:`driver_session` does).

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
    # Under spark-submit the JVM already exists: the submitter named the application
    # (--name: the DAG's "crawldedup-day"; a name set here would replace it) and owns the
    # master setting.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    builder = SparkSession.builder
    if not submitted:
        builder = builder.appName(app_name)
    builder = (
        builder.config("spark.sql.shuffle.partitions", str(cfg.spark.shuffle_partitions))
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
    if master is None and not submitted:
        master = cfg.spark.master
    if _local_workers(master) and not _user_chose_daemon(master):
        # Workers forked with the stages' modules loaded and frozen out of the collector
        # that pyspark runs after every task (crawldedup/pipeline/worker_daemon.py);
        # unless the deployment's own Spark configuration names a daemon.
        builder = builder.config(DAEMON_KEY, WORKER_DAEMON)
    properties = None
    if master:
        # This call starts the driver JVM: pyspark hands the builder's settings to
        # spark-submit as --conf, so the driver's options take effect here.
        builder = builder.master(master).config("spark.driver.memory", cfg.spark.driver_memory)
        properties, archive_opts = shipped_launch(cfg, master, writes_archive)
        java_opts = f"{java_opts} {archive_opts}".strip()
        if java_opts:
            builder = builder.config("spark.driver.extraJavaOptions", java_opts)
    with _launch_environment(properties):
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextlib.contextmanager
def driver_session(cfg: Config, app_name: str) -> Iterator[SparkSession]:
    """A run's session (:func:`build_session`), stopped at the end. Once its work is done
    and the session stopped (the JVM lives on until this process ends), the class archive
    the driver was started to write is written (class_archive): whatever becomes of the
    JVM then, the run's work is complete."""
    spark = build_session(cfg, app_name, writes_archive=True)
    try:
        yield spark
    finally:
        spark.stop()
    write_if_asked(spark)


SUBMIT_ARGS = "PYSPARK_SUBMIT_ARGS"


def shipped_launch(cfg: Config, master: str, writes: bool = True) -> tuple[str | None, str]:
    """What a driver crawldedup starts with ``master`` gets of the configuration it ships:
    the file for spark-submit's ``--properties-file`` (None when the deployment has a
    Spark configuration of its own, which wins), and the driver's JVM options for its class
    archive ("" for none: not a local master, ``spark.class_archive`` off, no Spark jars
    found, or no archive yet for a driver that ``writes`` none). The file is given as
    ``--properties-file``, not as ``SPARK_CONF_DIR``: Spark puts that folder on the JVM's
    class path, where the JDK archives no folder with files (class_archive). ``crawldedup
    run`` and the DAG's dedup task (whose application writes the archive) both call this."""
    shipped = default_conf_dir()
    if shipped is None:
        return None, ""
    properties = str(Path(shipped) / "spark-defaults.conf")
    if not (master.startswith("local") and cfg.spark.class_archive):
        return properties, ""
    try:
        archive = shipped_driver_archive(shipped, cfg.spark.driver_memory)
        return properties, "" if archive is None else launch_options(archive, writes)
    except (OSError, RuntimeError):  # no home folder, a jar gone mid-upgrade: run without
        return properties, ""


@contextlib.contextmanager
def _launch_environment(properties: str | None) -> Iterator[None]:
    """The environment pyspark's launcher reads while it starts the driver JVM:
    ``properties`` as spark-submit's ``--properties-file`` (unless the environment's
    PYSPARK_SUBMIT_ARGS names one). Restored once the JVM runs."""
    if properties is None:
        yield
        return
    before = os.environ.get(SUBMIT_ARGS)
    args = before or "pyspark-shell"
    if "--properties-file" not in args:
        os.environ[SUBMIT_ARGS] = f"--properties-file {shlex.quote(properties)} {args}"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SUBMIT_ARGS, None)
        else:
            os.environ[SUBMIT_ARGS] = before


_CLASS_PATH_ENV = ("SPARK_DIST_CLASSPATH", "HADOOP_CONF_DIR", "YARN_CONF_DIR", SUBMIT_ARGS)


def shipped_driver_archive(shipped: str, driver_memory: str) -> Path | None:
    """The class archive (class_archive) of a local driver under the shipped Spark
    configuration: named by the Java, the Spark jars, the class path's configuration
    folder and the driver's JVM options; None without a Java or Spark's jars."""
    env = os.environ
    java = java_executable(env)
    spark_home = env.get("SPARK_HOME") or _pyspark_home()
    if java is None or not java.is_file() or not spark_home:
        return None
    jars = Path(spark_home) / "jars"
    if not jars.is_dir():
        return None
    options = _spark_defaults(shipped).get("spark.driver.defaultJavaOptions", "")
    key = archive_key(
        java,
        jars,
        conf_dir=str(Path(spark_home) / "conf"),  # the launcher's default, SPARK_CONF_DIR unset
        java_options=f"{options} -Xmx{driver_memory}",
        # What else the launcher puts on the class path, and a user's spark-submit flags.
        extra={k: env[k] for k in _CLASS_PATH_ENV if k in env},
    )
    return cache_folder(env) / f"driver-{key}.jsa"
