"""The stages' RDD jobs and their Arrow (SQL) jobs share one pool of Python workers.

Spark keeps one pool (a daemon and the workers it forks) per set of worker environment
variables; without ``build_session``'s setting the two kinds of job start two daemons,
and every worker of the second imports the package again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa


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
