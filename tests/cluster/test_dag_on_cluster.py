"""``crawl_dedup_daily`` on the standalone cluster: the Airflow tests' environment with the
``spark_default`` connection pointing at ``spark://127.0.0.1:7077`` (and the project zip in
``CRAWLDEDUP_PY_FILES``, which the same deployment also ships on ``local[*]``), sample days
against HBase through ``dag.test()`` (a real Airflow, real spark-submit)."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from crawldedup_demo import load_truth
from tests.airflow.conftest import airflow_env, new_airflow_home, run_dag
from tests.cli_helpers import verdicts
from tests.cluster.conftest import master_json
from tests.hbase_fixtures import HBASE_HOST, HBASE_PORT, drop_prefix, unique_prefix

# make test-all: five spark-submits on the cluster take about 200 s. make test checks the
# same change through the provider's hook (test_dag_integrity's
# test_spark_default_alone_moves_every_stage_to_a_cluster) and runs one application on
# the cluster (test_standalone_cluster's zip probe).
pytestmark = [pytest.mark.hbase, pytest.mark.exhaustive]

# One day (the cross-day path on the cluster is test_standalone_cluster's); the recorded
# two-day run: CRAWLDEDUP_TEST_CLUSTER_DAG_DAYS=2.
DAYS = ["2026-11-01", "2026-11-02"][: int(os.environ.get("CRAWLDEDUP_TEST_CLUSTER_DAG_DAYS", "1"))]
SPARK_TASKS = ("dedup",)  # every Spark stage of the day in one application


def test_the_dag_runs_on_the_cluster_by_changing_spark_default(
    spark_master: str,
    project_zip: Path,
    hbase: str,
    airflow_db_template: Path,
    sample_crawl: Path,
    tmp_path: Path,
) -> None:
    sample = sample_crawl
    home = tmp_path / "home"
    prefix = unique_prefix("afc")
    host, port = spark_master.rsplit(":", 1)
    spark_default = {"conn_type": "spark", "host": host, "port": int(port)}
    hbase_default = {
        "conn_type": "hbase",
        "host": HBASE_HOST,
        "port": HBASE_PORT,
        "extra": {"table_prefix": prefix, "timeout_ms": 60000, "retries": 5},
    }
    env = airflow_env(
        new_airflow_home(tmp_path / "airflow", airflow_db_template),
        AIRFLOW_CONN_SPARK_DEFAULT=json.dumps(spark_default),
        AIRFLOW_CONN_HBASE_DEFAULT=json.dumps(hbase_default),
        CRAWLDEDUP_PY_FILES=str(project_zip),
    )
    conf = {"input_root": str(sample), "home": str(home), "wait_for": "data_files"}
    before = {app["id"] for app in master_json(spark_master)["completedapps"]}
    truth = load_truth(sample / "truth.jsonl")
    counts = {}
    try:
        for day in DAYS:
            run = run_dag(
                env, tmp_path / f"{day}.log", logical_date=f"{day}T03:00:00+00:00", conf=conf
            )
            assert run.state == "success", run.brief()
            assert all(run.tasks[t] == "success" for t in (*SPARK_TASKS, "report")), run.tasks
            # The provider built the command from the connection: the cluster, the zip.
            assert f"--master {spark_master}" in run.output, run.brief()
            assert f"--py-files {project_zip}" in run.output, run.brief()
            store = run.xcom["wait_for_crawl.return_value"]["store"]
            found = verdicts(day, home, store)
            assert set(found) == {i for i, t in truth.items() if t.day == day}
            c = run.xcom["report.counts"]
            assert c["documents"] == len(found)
            assert c["duplicates_total"] == sum(v["verdict"] == "duplicate" for v in found.values())
            counts[day] = {
                k: c[k] for k in ("documents", "unique", "duplicates_total", "duplicates")
            } | {"quarantined": c["quarantined_total"], "dag_seconds": run.wall_seconds}
        if len(DAYS) > 1:
            day1 = set(verdicts(DAYS[0], home, store))
            later = verdicts(DAYS[1], home, store).values()
            assert any(v["duplicate_of"] in day1 for v in later), "no cross-day duplicate"
    finally:
        drop_prefix(prefix)
    # Every Spark task was an application of the cluster (not a local[*] driver); other
    # submissions to a shared cluster may add more.
    apps = [a for a in master_json(spark_master)["completedapps"] if a["id"] not in before]
    names = Counter(a["name"] for a in apps)
    # One application a day (the DAG's dedup task), named crawldedup-day.
    assert names["crawldedup-day"] >= len(DAYS), names
    print(json.dumps(counts, indent=1, ensure_ascii=False))
