"""The stages' RDD jobs and their Arrow (SQL) jobs share one pool of Python workers,
forked by crawldedup's daemon with the stages' modules loaded and frozen.

Spark keeps one pool (a daemon and the workers it forks) per set of worker environment
variables; without ``build_session``'s setting the two kinds of job start two daemons,
and every worker of the second imports the package again.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest


def _daemon_of(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for _ in batches:
        pass
    yield pa.RecordBatch.from_pydict({"daemon": [os.getppid()]})


def test_rdd_and_arrow_jobs_run_in_workers_of_one_daemon(spark: Any) -> None:
    sc = spark.sparkContext
    rdd_daemons = set(sc.parallelize(range(8), 4).map(lambda _: os.getppid()).collect())
    arrow_daemons = {
        r["daemon"]
        for r in spark.range(8).repartition(4).mapInArrow(_daemon_of, "daemon long").collect()
    }
    assert len(rdd_daemons) == 1, rdd_daemons
    assert arrow_daemons == rdd_daemons
    assert os.getpid() not in rdd_daemons  # forked workers, not the driver itself


def _worker_state(_: object) -> tuple[int, bool, str]:
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    loaded = "crawldedup.pipeline.candidates_stage" in sys.modules
    return gc.get_freeze_count(), loaded, spec.name if spec else ""


def test_workers_are_forked_with_the_stages_loaded_and_frozen_out_of_the_collector(
    spark: Any,
) -> None:
    """pyspark's daemon collects garbage after every task: the objects the imports made
    are frozen before the fork, so those collections do not walk them."""
    states = set(spark.sparkContext.parallelize(range(4), 2).map(_worker_state).collect())
    for frozen, loaded, daemon in states:
        assert daemon == "crawldedup.pipeline.worker_daemon"
        assert loaded  # imported by the daemon, before any task asked for it
        assert frozen > 10_000, frozen


def test_the_daemon_is_chosen_only_where_workers_run_this_installation() -> None:
    from crawldedup.pipeline.spark import _local_workers

    assert _local_workers("local[*]") and _local_workers("local[2]")
    # A cluster's workers may have crawldedup only in the --py-files zip, which a daemon
    # cannot import: there the cluster's own Spark configuration chooses.
    assert not _local_workers("spark://spark-master:7077")
    assert not _local_workers("yarn")


def test_a_daemon_named_by_the_deployments_spark_configuration_is_kept(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crawldedup.pipeline.spark import _user_chose_daemon, user_spark_defaults

    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(
        "# the deployment's settings\n"
        "spark.python.daemon.module   pyspark.daemon\n"
        "spark.executor.memory=4g\n"
    )
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf))
    assert user_spark_defaults() == {
        "spark.python.daemon.module": "pyspark.daemon",
        "spark.executor.memory": "4g",
    }
    assert _user_chose_daemon("local[*]")
    (conf / "spark-defaults.conf").write_text("spark.executor.memory 4g\n")
    assert not _user_chose_daemon("local[*]")
    # Without a configuration of the deployment's, crawldedup's own is used: it names none.
    monkeypatch.delenv("SPARK_CONF_DIR")
    assert user_spark_defaults({}) == {}

    # A driver started under that configuration keeps the deployment's daemon.
    (conf / "spark-defaults.conf").write_text("spark.python.daemon.module pyspark.daemon\n")
    probe = (
        "from crawldedup.config import Config\n"
        "from crawldedup.pipeline.spark import build_session\n"
        "s = build_session(Config(), 'daemon-probe')\n"
        "print('DAEMON', s.conf.get('spark.python.daemon.module'))\n"
        "s.stop()\n"
    )
    env = {**os.environ, "SPARK_CONF_DIR": str(conf)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300
    )
    assert "DAEMON pyspark.daemon" in out.stdout, out.stderr[-2000:]


def _archives_on_path(_: object) -> list[str]:
    import zipimport

    finders = [
        p for p, f in sys.path_importer_cache.items() if isinstance(f, zipimport.zipimporter)
    ]
    return sorted({*finders, *(p for p in sys.path if p.endswith((".zip", ".jar")))})


def test_workers_import_the_installed_pyspark_not_its_archives(spark: Any) -> None:
    """Spark puts pyspark.zip, py4j's zip and its core jar first on a worker's path; with
    pyspark installed they are copies, which a worker would compile from and reread at
    its first task."""
    import pyspark

    installed = os.path.dirname(pyspark.__file__)
    if not os.path.isfile(os.path.join(installed, "python", "lib", "pyspark.zip")):
        pytest.skip("a Spark distribution: its archives are the only pyspark")
    found = spark.sparkContext.parallelize(range(2), 2).map(_archives_on_path).collect()
    for archives in found:
        assert not [a for a in archives if a.startswith(installed)], archives
    assert spark.sparkContext.parallelize([0], 1).map(
        lambda _: __import__("pyspark").__file__
    ).collect() == [pyspark.__file__]


def test_a_module_that_fails_to_load_leaves_the_daemon_running(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed import in the daemon is the task's to report, not the daemon's to die of.
    The failure is simulated (an install broken on purpose would break this test run)."""
    from crawldedup.pipeline import worker_daemon

    def broken() -> None:
        raise ImportError("No module named 'lxml_html_clean'")

    monkeypatch.setattr(worker_daemon, "_preload", broken)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        worker_daemon.prepare()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert "No module named 'lxml_html_clean'" in capsys.readouterr().err
