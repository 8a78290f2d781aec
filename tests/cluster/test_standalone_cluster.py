"""The daily job on a real Spark standalone cluster (master + two 1-core workers on
loopback), submitted the way production does, against HBase: same verdicts and tables as
``crawldedup run`` on ``local[*]``.

Every stage is its own ``spark-submit --master spark://127.0.0.1:7077 --py-files
crawldedup-<ver>.zip jobs/<stage>.py`` started from a scratch folder without PYTHONPATH
(``crawldedup.pipeline.submit``); the config file is read by the driver (client mode, the
only mode for Python applications on a standalone master) and reaches the executors inside
the tasks; jieba runs on the executors (``fingerprint.tokenizer = "jieba"``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crawldedup.pipeline.submit import spark_submit_cmd, submit_day, submit_env
from crawldedup.stage_registry import DEDUP_STAGES
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


def test_executors_import_the_shipped_zip_and_run_jieba(
    spark_master: str, project_zip: Path, tmp_path: Path
) -> None:
    cmd = spark_submit_cmd("probe", spark_master, project_zip, [], jobs_dir=HERE)
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=submit_env(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
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
            runs[day] = submit_day(
                spark_master,
                day,
                sample / f"dt={day}",
                tmp_path / "cluster-home",
                hbase_url(on_cluster),
                project_zip,
                config=config,
                progress=lambda line, d=day: print(f"[{d}] {line}"),
            )
            assert [r.stage for r in runs[day]] == list(DEDUP_STAGES)
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
        print({d: {r.stage: r.seconds for r in rs} for d, rs in runs.items()})
    finally:
        drop_prefix(on_cluster)
        drop_prefix(on_local)
