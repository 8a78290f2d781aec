"""The day's verdicts as an Airflow Asset, with a real Airflow (SQLite metadata DB).

One sample day through ``crawl_dedup_daily`` (``dag.test()``, real spark-submit; relevance
skipped) with the example consumer, ``dags/verdicts_consumer_example.py``, serialized and
unpaused beforehand, as an operator would. Then: the ``commit`` task's event is in the
metadata DB naming the day and the store; Airflow queued the consumer for it; the consumer,
run with ``dag.test()`` on that event, lists the day's duplicates exactly as
``crawldedup verdicts`` does. Each step is a fresh process (tests/airflow/asset_run.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.airflow.conftest import HERE, ROOT, airflow_env, new_airflow_home, run_dag
from tests.cli_helpers import verdicts

PRODUCER = "crawl_dedup_daily"
CONSUMER = "crawldedup_verdicts_consumer_example"
ASSET = "crawldedup_verdicts"
DAY = "2026-11-01"


def asset_step(env: dict[str, str], log: Path, *args: str) -> dict[str, Any]:
    """One step of tests/airflow/asset_run.py in a fresh process; its RESULT."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "asset_run.py"), *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    log.write_text(proc.stdout)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines and proc.returncode == 0, f"asset_run.py {args} exited {proc.returncode}, {log}"
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return result


@pytest.mark.airflow
# make test-all: a producer day of its own (5-6 min); make test checks the event itself on
# its embedded run (test_dag_runs.check_days).
@pytest.mark.exhaustive
def test_committed_day_is_an_asset_event_that_schedules_the_consumer(
    sample_crawl: Path, airflow_db_template: Path, tmp_path: Path
) -> None:
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    home = tmp_path / "home"

    prepared = asset_step(env, tmp_path / "prepare.log", "prepare", "--unpause", CONSUMER)
    # The example is paused on creation: nothing runs until someone unpauses it.
    assert prepared["paused_on_creation"] is True, prepared

    conf = {"input_root": str(sample_crawl), "home": str(home)}
    run = run_dag(env, tmp_path / "producer.log", logical_date=f"{DAY}T03:00:00+00:00", conf=conf)
    assert run.state == "success", run.brief()
    assert run.tasks["commit"] == "success", run.brief()
    store = run.xcom["wait_for_crawl.return_value"]["store"]

    # (a) The commit task's outlet: one event, whose extra names the day, home and store.
    found = asset_step(env, tmp_path / "events.log", "events", "--asset", ASSET)
    assert found["uri"] == f"crawldedup://verdicts/{PRODUCER}"
    assert found["consumers"] == [CONSUMER]
    [event] = found["events"]
    assert event["source"][:2] == [PRODUCER, "commit"]
    assert event["source"][2] == run.raw["run_id"]
    extra = event["extra"]
    assert extra["crawl_date"] == DAY
    assert extra["store"] == store
    assert extra["home"] == str(home)
    assert extra["published_with"] == run.xcom["commit.return_value"]
    assert extra["published_with"]["documents"] > 0, extra
    # (b) Airflow queued the consumer for it (the scheduler would now create its run).
    assert found["queued_for"] == [CONSUMER]

    # (c) The consumer on that event lists the day's duplicates, as the CLI does.
    consumed = asset_step(env, tmp_path / "consumer.log", "consume", "--dag-id", CONSUMER)
    assert consumed["state"] == "success", (tmp_path / "consumer.log").read_text()[-6000:]
    assert consumed["events"] == [event["id"]]
    [day] = consumed["xcom"]["duplicates_to_delete.return_value"]
    expected = sorted(
        i for i, v in verdicts(DAY, home, store).items() if v["verdict"] == "duplicate"
    )
    assert expected, "the sample day has duplicates"
    assert (day["crawl_date"], day["store"]) == (DAY, store)
    assert sorted(day["ids"]) == expected
    assert day["duplicates"] == len(expected)
