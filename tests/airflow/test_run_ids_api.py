"""Run ids name the crawl day, and backfill windows select the days a person means,
through the REST API the UI calls (issue 32, point 1).

One real ``airflow api-server`` (the session's, conftest.py) on a DB where
``airflow dags reserialize`` put the DAG: the trigger form's POST, the backfill dialog's
dry run ("N runs will be triggered") and its POST, then the Runs list's GET. No scheduler
runs: the runs stay queued; what their first task does with them is unit-tested
(``day.crawl_date``) and run for real in test_dag_runs.py.
"""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from crawldedup_airflow.day import (
    RunSetupError,
    crawl_date,
    logical_date_check,
    previous_day_check,
)
from tests.airflow.conftest import VENV_BIN, ApiServer

DAG_ID = "crawl_dedup_daily"
RUNS = f"/api/v2/dags/{DAG_ID}/dagRuns"


@pytest.fixture(scope="module")
def api(api_server: ApiServer) -> httpx.Client:
    proc = subprocess.run(
        [str(VENV_BIN / "airflow"), "dags", "reserialize"],
        env=api_server.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return httpx.Client(base_url=api_server.url, headers=api_server.headers, timeout=120)


def _window(from_date: str, to_date: str) -> dict[str, Any]:
    return {
        "dag_id": DAG_ID,
        "from_date": from_date,
        "to_date": to_date,
        "max_active_runs": 1,
        "reprocess_behavior": "none",
        "run_backwards": False,
        "dag_run_conf": {},
    }


def _dry_run_days(api: httpx.Client, from_date: str, to_date: str) -> list[str]:
    got = api.post("/api/v2/backfills/dry_run", json=_window(from_date, to_date))
    assert got.status_code == 200, got.text
    return [run["logical_date"][:10] for run in got.json()["backfills"]]


def test_a_backfill_window_is_its_from_and_to_days_both_included(api: httpx.Client) -> None:
    # The dialog's date pickers give midnight: To 2026-11-02 00:00 includes 2026-11-02.
    days = _dry_run_days(api, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z")
    assert days == ["2026-11-01", "2026-11-02"]
    # Times of day do not matter; one day is From = To.
    assert _dry_run_days(api, "2026-11-01T05:00:00Z", "2026-11-02T23:59:00Z") == days
    assert _dry_run_days(api, "2026-11-02T00:00:00Z", "2026-11-02T00:00:00Z") == ["2026-11-02"]
    # A To on the last day at any time selects the same days.
    assert _dry_run_days(api, "2026-11-01T00:00:00Z", "2026-11-02T03:00:00Z") == days


def test_run_ids_name_the_crawl_day_for_backfill_and_manual_runs(api: httpx.Client) -> None:
    created = api.post("/api/v2/backfills", json=_window("2026-11-01", "2026-11-02"))
    assert created.status_code == 200, created.text
    # Manual runs from the trigger form: a logical date on the day (with or without the
    # confirming crawl_date), and the form's default "now", which processes yesterday.
    on_day = api.post(RUNS, json={"logical_date": "2026-11-05T12:00:00Z", "conf": {}})
    assert on_day.status_code == 200, on_day.text
    confirmed = api.post(
        RUNS,
        json={"logical_date": "2026-11-06T08:00:00Z", "conf": {"crawl_date": "2026-11-06"}},
    )
    assert confirmed.status_code == 200, confirmed.text
    now = datetime.now(UTC)
    default = api.post(RUNS, json={"logical_date": now.isoformat(), "conf": {}})
    assert default.status_code == 200, default.text

    listed = api.get(RUNS, params={"order_by": "logical_date", "limit": 100})
    assert listed.status_code == 200, listed.text
    runs = {r["dag_run_id"]: r for r in listed.json()["dag_runs"]}
    backfills = sorted(r for r in runs if r.startswith("backfill__"))
    assert backfills == [
        "backfill__2026-11-01T00:00:00+00:00",
        "backfill__2026-11-02T00:00:00+00:00",
    ]
    for run_id in backfills:  # the id's day is the run's data interval's (its crawl day)
        assert runs[run_id]["data_interval_start"][:10] == run_id[len("backfill__") :][:10]
    assert on_day.json()["dag_run_id"].startswith("manual__crawl-2026-11-05__")
    assert confirmed.json()["dag_run_id"].startswith("manual__crawl-2026-11-06__")
    assert on_day.json()["data_interval_start"][:10] == "2026-11-05"
    last_complete = default.json()
    assert last_complete["dag_run_id"].startswith(
        f"manual__crawl-{last_complete['data_interval_start'][:10]}__"
    )
    assert datetime.fromisoformat(last_complete["data_interval_end"]) <= now


def _named_backfill(message: str) -> list[str]:
    """The ``airflow backfill create ...`` command a refusal names, as arguments."""
    found = re.search(
        r"airflow backfill create --dag-id \S+ --from-date \S+ --to-date [\d-]+", message
    )
    assert found, message
    return found.group(0).split()[1:]


def test_every_backfill_a_refusal_names_runs_the_day_it_names(
    api: httpx.Client, api_server: ApiServer
) -> None:
    """Issue 46, point 2: the CLI command in each refusal of a day, run as a person pastes
    it (with --dry-run: the runs it would create), makes one run, of the day it names."""
    day = "2026-10-12"  # a day no other test of the module runs
    start = datetime(2026, 10, 13, tzinfo=UTC)  # a run whose own day is 2026-10-13
    refusals: list[str] = []
    with pytest.raises(RunSetupError) as other_day:
        crawl_date(day, start)  # Crawl date D on a run of another day
    refusals.append(str(other_day.value))
    with pytest.raises(RunSetupError) as trigger_cli:  # `dags trigger -l D` took another day
        logical_date_check(
            "2026-12-01",
            datetime(2026, 10, 12, 12, tzinfo=UTC),
            (datetime(2026, 10, 12, tzinfo=UTC), start),
            datetime(2026, 12, 2, tzinfo=UTC),
        )
    refusals.append(str(trigger_cli.value))
    ok, unpublished = previous_day_check("2026-10-13", ["2026-10-11"], True)
    assert not ok
    refusals.append(unpublished)  # the day before is not published: run it first
    for message in refusals:
        proc = subprocess.run(
            [str(VENV_BIN / "airflow"), *_named_backfill(message), "--dry-run"],
            env=api_server.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs = re.findall(r"^\| (\d{4}-\d{2}-\d{2}) 00:00:00\+00:00 ", proc.stdout, re.M)
        assert runs == [day], (message, proc.stdout[-2000:])
