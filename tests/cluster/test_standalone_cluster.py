"""The daily job on a real Spark standalone cluster (master + two 1-core workers on
loopback), submitted the way production does, against HBase: same verdicts and tables as
``crawldedup run`` on ``local[*]``.

The day's Spark stages are one ``spark-submit --master spark://127.0.0.1:7077
--py-files crawldedup-<ver>.zip jobs/day.py fingerprint ... publish``, built by the Spark
provider's hook from the ``spark_default`` connection and started from a scratch folder
without PYTHONPATH (``python -m crawldedup_airflow.submit_day``, in a child process:
Airflow reads its configuration once per process); the config file is read by the
driver (client mode, the only mode for Python applications on a standalone master) and
reaches the executors inside the tasks; jieba runs on the executors
(``fingerprint.tokenizer = "jieba"``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from crawldedup.config import Config
from crawldedup.pipeline.submit import submit_env
from crawldedup.stage_registry import plan
from tests.airflow.conftest import airflow_env
from tests.cli_helpers import cli, table_dump, verdicts
from tests.hbase_fixtures import drop_prefix, hbase_url, unique_prefix

# make test submits the probe (one application on the cluster); the two days, and the DAG
# on the cluster (test_dag_on_cluster), run in make test-all.
pytestmark = pytest.mark.hbase

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DAYS = ["2026-11-01", "2026-11-02"]
CONFIG = """\
[fingerprint]
tokenizer = "jieba"

[spark]
shuffle_partitions = 4
"""


def spark_conn(master: str) -> str:
    """A spark connection on ``master`` (``AIRFLOW_CONN_*``: no metadata DB needed)."""
    return json.dumps({"conn_type": "spark", "host": master})


# The probe (tests/cluster/probe.py) submitted as a stage: the hook the days' stages use.
PROBE = r"""
import sys
from pathlib import Path
from crawldedup.pipeline.submit import submit_env
from crawldedup_airflow.submit_day import submit_stage
zip_, jobs, cwd = map(Path, sys.argv[1:4])
print(submit_stage("probe", [], zip_, jobs_dir=jobs, cwd=cwd, env=submit_env(),
                   job="probe.py").output)
"""


def test_executors_import_the_shipped_zip_and_run_jieba(
    spark_master: str, project_zip: Path, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(project_zip), str(HERE), str(tmp_path)],
        cwd=tmp_path,
        env=airflow_env(tmp_path / "airflow", AIRFLOW_CONN_SPARK_DEFAULT=spark_conn(spark_master)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert f"spark-submit --master {spark_master} " in proc.stdout  # the hook's command
    line = [x for x in proc.stdout.splitlines() if x.startswith("PROBE ")][-1]
    probe = json.loads(line[len("PROBE ") :])
    assert probe["master"] == spark_master
    assert probe["block_managers"] == 3  # the driver and one executor per worker
    driver, executors = probe["driver"], probe["executors"]
    assert "PYTHONPATH" not in submit_env() and driver["cwd"] == str(tmp_path)
    workdirs = {Path(e["cwd"]).parent.parent.name for e in executors}
    assert workdirs == {"worker1", "worker2"}, executors  # both workers ran tasks
    for e in executors:
        # The package comes from the zip Spark fetched into the executor's folder, not
        # from the repo (the venv's editable install would point there).
        assert e["crawldedup"].endswith(f"{project_zip.name}/crawldedup/__init__.py"), e
        assert str(ROOT / "crawldedup") not in e["crawldedup"]
        # jieba and its dictionary come from the executors' environment (PYSPARK_PYTHON).
        assert Path(e["python"]).parent == Path(sys.executable).parent
        assert e["jieba_dict_words"] > 100_000
        assert e["words"] == driver["words"] and "北京大学" in e["words"]


@pytest.mark.exhaustive
def test_two_days_on_the_cluster_match_local(
    spark_master: str, project_zip: Path, hbase: str, sample_crawl: Path, tmp_path: Path
) -> None:
    sample = sample_crawl
    config = tmp_path / "crawldedup.toml"
    config.write_text(CONFIG)
    on_cluster, on_local = unique_prefix("cl"), unique_prefix("lo")
    try:
        runs = {}
        for day in DAYS:
            # --master redefines spark_default (local[*] in airflow_env) for this run.
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "crawldedup_airflow.submit_day",
                    "--master",
                    spark_master,
                    "--date",
                    day,
                    "--input",
                    str(sample / f"dt={day}"),
                    "--home",
                    str(tmp_path / "cluster-home"),
                    "--store",
                    hbase_url(on_cluster),
                    "--py-files",
                    str(project_zip),
                    "--config",
                    str(config),
                ],
                cwd=tmp_path,
                env=airflow_env(tmp_path / "airflow"),
                capture_output=True,
                text=True,
                timeout=3600,
            )
            assert proc.returncode == 0, proc.stderr[-4000:]
            print(proc.stderr)
            # Its progress: "[D] dedup  12.3s wall" per submission (the Spark stages in one
            # application, then commit and report), each after its stages' lines.
            runs[day] = re.findall(rf"^\[{day}\] (\w+) +([\d.]+)s wall", proc.stderr, re.M)
            assert [stage for stage, _ in runs[day]] == ["dedup", "commit_report"]
            in_app = re.findall(rf"^\[{day}\]   in-app \d/\d (\w+)", proc.stderr, re.M)
            assert in_app == list(plan(Config()))
            cli(
                "run",
                "--date",
                day,
                "--input",
                str(sample / f"dt={day}"),
                "--store",
                hbase_url(on_local),
                "--config",
                str(config),
                "--set",
                "spark.master=local[*]",
                home=tmp_path / "local-home",
            )
        for day in DAYS:
            cluster_v = verdicts(day, tmp_path / "cluster-home", hbase_url(on_cluster))
            local_v = verdicts(day, tmp_path / "local-home", hbase_url(on_local))
            assert cluster_v and cluster_v == local_v
            assert any(v["verdict"] == "duplicate" for v in cluster_v.values())
        day1 = set(verdicts(DAYS[0], tmp_path / "cluster-home", hbase_url(on_cluster)))
        day2 = verdicts(DAYS[1], tmp_path / "cluster-home", hbase_url(on_cluster))
        assert any(v["duplicate_of"] in day1 for v in day2.values()), "no cross-day match"
        assert table_dump(hbase_url(on_cluster)) == table_dump(hbase_url(on_local))
        print({d: dict(rs) for d, rs in runs.items()})
    finally:
        drop_prefix(on_cluster)
        drop_prefix(on_local)
