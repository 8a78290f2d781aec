"""A data engineer's walk through the quickstart's UI, in a real browser (issue 32, point 6).

On the three sample days A, B, C (yesterday): trigger A from the form (Logical date on A,
Crawl date A), backfill B and C from the backfill dialog (From B 00:00, To C 00:00, as the
date pickers give them), wait for the three runs; rerun C from the form with other rules;
clear the report task of C's backfill run alone. Then assert what a person sees: run ids
and notes that name each run's day, and C's report, opened from that report task's "Day
report" button, giving the parameters C was last published with (the rerun's rules) and
the run that published it, not those of the run whose report task ran last. Slow (four
runs of Spark stages, 10-20 minutes on 2 cores): ``make test-all`` only.
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.airflow.test_quickstart_browser import (  # noqa: F401  (the fixture)
    DAG_ID,
    Quickstart,
    backfill_dialog,
    login,
    quickstart,
    set_datetime,
    submit,
    trigger_dialog,
)
from tests.browser import chromium

pytestmark = [pytest.mark.airflow, pytest.mark.exhaustive]

RUNS = f"/api/v2/dags/{DAG_ID}/dagRuns"
# Screenshots of the Runs list and the report header, for a person to look at.
SHOTS = Path(os.environ.get("CRAWLDEDUP_SCREENSHOTS", tempfile.gettempdir()))
RERUN_RULES = ["content_md5", "head"]


def api_client(qs: Quickstart) -> httpx.Client:
    token = httpx.post(
        f"{qs.url}/auth/token", json={"username": "admin", "password": qs.password}, timeout=60
    )
    assert token.status_code in (200, 201), token.text
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    return httpx.Client(base_url=qs.url, headers=headers, timeout=60)


def wait_for(api: httpx.Client, page: Any, done: Any, what: str, minutes: float = 40) -> Any:
    """Poll the Runs list (the API the UI reads) until ``done(runs)`` is true."""
    deadline = datetime.now(UTC) + timedelta(minutes=minutes)
    while True:
        runs = {r["dag_run_id"]: r for r in api.get(RUNS, params={"limit": 100}).json()["dag_runs"]}
        failed = [r for r, v in runs.items() if v["state"] == "failed"]
        assert not failed, (what, failed)
        if done(runs):
            return runs
        assert datetime.now(UTC) < deadline, (what, {r: v["state"] for r, v in runs.items()})
        page.wait_for_timeout(10_000)


def test_trigger_backfill_rerun_and_report_rerun_show_each_runs_day(
    quickstart: Quickstart,  # noqa: F811
) -> None:
    from playwright.sync_api import Page, expect

    qs = quickstart
    SHOTS.mkdir(parents=True, exist_ok=True)
    today = datetime.now(UTC).date()
    a, b, c = ((today - timedelta(days=n)).isoformat() for n in (3, 2, 1))
    api = api_client(qs)
    assert api.patch(f"/api/v2/dags/{DAG_ID}", json={"is_paused": False}).status_code == 200

    with chromium() as browser:
        page: Page = browser.new_page(viewport={"width": 1400, "height": 1300})
        page.set_default_timeout(30_000)

        def trigger_form(day: str) -> Any:
            dialog = trigger_dialog(page, qs)
            set_datetime(page, dialog, 0, day, "12:00")
            return dialog

        login(page, qs)

        # 1. Day A from the trigger form: Logical date on A, Crawl date A (a check).
        dialog = trigger_form(a)
        dialog.get_by_text("Day", exact=True).click()
        dialog.locator("input[name=element_crawl_date]").fill(a)
        first = submit(page, dialog.get_by_role("button", name="Trigger"), RUNS).json()
        assert first["dag_run_id"].startswith(f"manual__crawl-{a}__"), first
        # (The fixture's sensor gives up after minutes: each run starts when the one before
        # it is done, as the backfill's own max_active_runs of 1 does for B and C.)
        wait_for(api, page, lambda runs: runs[first["dag_run_id"]]["state"] == "success", "A")

        # 2. Days B and C from the backfill dialog, To at C's midnight: C included.
        dialog = backfill_dialog(page, qs, b, c)
        submit(page, dialog.get_by_role("button", name="Run Backfill"), "/backfills")
        backfill_b, backfill_c = (f"backfill__{d}T00:00:00+00:00" for d in (b, c))
        wait_for(
            api,
            page,
            lambda runs: all(
                runs.get(r, {}).get("state") == "success" for r in (backfill_b, backfill_c)
            ),
            "the backfill of B and C",
        )

        # 3. Rerun C from the form with other rules.
        dialog = trigger_form(c)
        dialog.get_by_text("Cascade", exact=True).click()
        box = dialog.get_by_role("combobox").first
        for rule in RERUN_RULES:
            box.focus()
            page.keyboard.type(rule)
            page.keyboard.press("Enter")
        dialog.get_by_text("Rules", exact=True).click()  # closes the menu
        rerun = submit(page, dialog.get_by_role("button", name="Trigger"), RUNS).json()
        assert rerun["dag_run_id"].startswith(f"manual__crawl-{c}__"), rerun
        assert rerun["conf"]["rules"] == RERUN_RULES
        wait_for(
            api,
            page,
            lambda runs: runs.get(rerun["dag_run_id"], {}).get("state") == "success",
            "the rerun of C",
        )

        # 4. Clear the report task of C's backfill run (its conf has the default
        # rules; the day was last published by the rerun).
        report_ti = f"{RUNS}/{backfill_c}/taskInstances/report"
        before = api.get(report_ti).json()["try_number"]
        page.goto(f"{qs.url}/dags/{DAG_ID}/runs/{backfill_c}/tasks/report")
        page.get_by_role("button", name="Press shift+c to clear").click()
        clear = page.get_by_role("dialog")
        # The report and, downstream by default, the relevance task after it.
        expect(clear.get_by_text("Affected Tasks: 2")).to_be_visible()
        submit(page, clear.get_by_role("button", name="Confirm"), "/clearTaskInstances")
        wait_for(
            api,
            page,
            lambda runs: (
                runs[backfill_c]["state"] == "success"
                and api.get(report_ti).json()["try_number"] > before
            ),
            "the cleared report task",
        )
        tis = api.get(f"{RUNS}/{backfill_c}/taskInstances").json()["task_instances"]
        tries = {t["task_id"]: t["try_number"] for t in tis}
        assert tries["report"] == before + 1 and tries["dedup"] == 1, tries

        # What a person sees: every run's id and note name its day.
        page.goto(f"{qs.url}/dags/{DAG_ID}/runs")
        for label in (f"manual__crawl-{a}__", backfill_b, backfill_c, f"manual__crawl-{c}__"):
            expect(page.get_by_text(label).first).to_be_visible()
        page.screenshot(path=str(SHOTS / "runs_list.png"), full_page=True)
        days = {first["dag_run_id"]: a, backfill_b: b, backfill_c: c, rerun["dag_run_id"]: c}
        for run_id, day in days.items():
            page.goto(f"{qs.url}/dags/{DAG_ID}/runs/{run_id}")
            expect(page.get_by_text(f"crawl day {day}").first).to_be_visible()

        # C's report, rewritten by the cleared report task, as a person opens it: the
        # report task's "Day report" button, served by the API server; the rerun's
        # parameters in its header, and the run that published the day.
        # (The UI opens a link on its own origin in the same tab.)
        # (Airflow shows a task's extra links on its Details tab, under "Extra Links".)
        page.goto(f"{qs.url}/dags/{DAG_ID}/runs/{backfill_c}/tasks/report")
        page.get_by_role("link", name="Details", exact=True).click()
        expect(page.get_by_text("Extra Links")).to_be_visible()
        page.screenshot(path=str(SHOTS / "report_task_details.png"), full_page=True)
        page.get_by_role("link", name="Day report").click()
        page.wait_for_url(f"{qs.url}/crawldedup/reports/{DAG_ID}/**")
        shown = page
        expect(shown.get_by_text(f"rules {', '.join(RERUN_RULES)}").first).to_be_visible()
        expect(shown.get_by_text(f"published by {rerun['dag_run_id']}").first).to_be_visible()
        shown.screenshot(path=str(SHOTS / "report_header.png"))
        report = qs.home / "crawldedup" / "reports" / f"dt={c}" / "index.html"
    page_html = report.read_text()
    assert "rules content_md5, head, tail" not in page_html
    xcom = api.get(f"{report_ti}/xcomEntries/return_value").json()
    counts = xcom["value"]
    assert counts["day"] == c and counts["rules"] == RERUN_RULES, counts
    assert counts["published_by"].startswith(rerun["dag_run_id"] + "@"), counts
