"""A crawl day is a calendar day of the deployment's time zone, at any hour (issue 46).

With the clock fixed at 00:30, 02:59, 03:01 and 23:59 on 2026-12-05 (in a child Airflow
process, the ``utcnow`` of our timetable, of Airflow's cron timetable and of the day check
replaced: a clock cannot be set for real, and the test must not depend on the hour CI runs
it): the trigger form's default (logical date "now") processes yesterday; a logical date on
day D processes D once D is over; a backfill From D1 00:00 To D2 23:59 makes one run per
day D1..D2 of the days that are over; a scheduled run of D starts at 03:00 the next day; a
Crawl date naming a day not over yet is refused with what to do. The same in
Asia/Shanghai (UTC+8).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.airflow.conftest import airflow_env, run_child

CHILD = r"""
import json, sys
import pendulum
from airflow.timetables.base import TimeRestriction
import airflow.timetables.interval as interval_module
from crawldedup_airflow import timetable as tt_module, day as day_module
from crawldedup_airflow.timetable import CrawlDayTimetable

zone = sys.argv[1]
day_module.TIMEZONE = zone
tz = pendulum.timezone(zone)
out = {}
for clock in ("00:30", "02:59", "03:01", "23:59"):
    h, m = map(int, clock.split(":"))
    now = pendulum.datetime(2026, 12, 5, h, m, tz=tz)
    # Every clock: the timetable's (manual runs), Airflow's cron timetable's (the
    # scheduler's catchup=False start, CronDataIntervalTimetable._skip_to_latest) and the
    # crawl_date check's.
    fixed = lambda now=now: now.in_timezone("UTC")
    tt_module.utcnow = interval_module.utcnow = day_module.utcnow = fixed
    tt = CrawlDayTimetable("0 3 * * *", zone)
    day = lambda interval: day_module.crawl_date(None, interval.start)
    got = {}
    # The trigger form's default logical date is now.
    got["form_default"] = day(tt.infer_manual_data_interval(run_after=now))
    for label, when in (("dec04_0000", (2026, 12, 4, 0, 0)), ("dec04_2300", (2026, 12, 4, 23, 0)),
                        ("dec03_1200", (2026, 12, 3, 12, 0))):
        got[label] = day(tt.infer_manual_data_interval(run_after=pendulum.datetime(*when, tz=tz)))
    # A backfill From Dec 02 00:00 To Dec 04 23:59: Airflow keeps the intervals over by now.
    restriction = TimeRestriction(pendulum.datetime(2026, 12, 2, tz=tz),
                                  pendulum.datetime(2026, 12, 4, 23, 59, tz=tz), True)
    days, last = [], None
    while (info := tt.next_dagrun_info(last_automated_data_interval=last,
                                       restriction=restriction)) is not None:
        last = info.data_interval
        if info.data_interval.end < now:
            days.append(day(info.data_interval))
    got["backfill"] = days
    # The scheduler: the last complete day, started at 03:00 the day after.
    sched = CrawlDayTimetable("0 3 * * *", zone).next_dagrun_info(
        last_automated_data_interval=None,
        restriction=TimeRestriction(pendulum.datetime(2026, 1, 1, tz=tz), None, False))
    got["scheduled_day"] = day(sched.data_interval)
    got["scheduled_run_after"] = sched.run_after.in_timezone(tz).isoformat()
    # A Crawl date naming today (not over) with the form's default.
    start = tt.infer_manual_data_interval(run_after=now).start
    try:
        day_module.crawl_date("2026-12-05", start)
        got["today_param"] = "accepted"
    except day_module.RunSetupError as exc:
        got["today_param"] = str(exc)
    got["yesterday_param"] = day_module.crawl_date("2026-12-04", start)
    out[clock] = got
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module", params=["UTC", "Asia/Shanghai"])
def clocks(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    env = airflow_env(tmp_path_factory.mktemp("airflow-calendar"))
    return request.param, run_child(CHILD, env, request.param)


@pytest.mark.parametrize("clock", ["00:30", "02:59", "03:01", "23:59"])
def test_every_road_processes_the_day_a_person_expects(clocks: Any, clock: str) -> None:
    zone, result = clocks
    got = result[clock]
    assert got["form_default"] == "2026-12-04", (zone, clock)  # yesterday, at any hour
    assert got["dec04_0000"] == got["dec04_2300"] == "2026-12-04"
    assert got["dec03_1200"] == "2026-12-03"
    assert got["backfill"] == ["2026-12-02", "2026-12-03", "2026-12-04"]
    assert got["scheduled_day"] == "2026-12-04"
    assert got["scheduled_run_after"].startswith("2026-12-05T03:00:00")
    assert got["yesterday_param"] == "2026-12-04"
    refusal = got["today_param"]
    assert refusal.startswith("crawl_date param 2026-12-05 is not over yet"), refusal
    # It names what does it: the form's Logical date and the CLI command.
    assert "Logical date 2026-12-05" in refusal
    assert "airflow backfill create --dag-id crawl_dedup_daily --from-date 2026-12-05" in refusal


def test_a_schedule_that_is_not_a_daily_time_is_refused(tmp_path: Path) -> None:
    env = airflow_env(tmp_path / "home")
    code = r"""
import json
from airflow.exceptions import AirflowTimetableInvalid
from crawldedup_airflow.timetable import CrawlDayTimetable
try:
    CrawlDayTimetable("*/5 * * * *", "UTC")
    out = "accepted"
except AirflowTimetableInvalid as exc:
    out = str(exc)
print("RESULT " + json.dumps(out))
"""
    out = run_child(code, env)
    assert "is not a daily time" in out and "CRAWLDEDUP_SCHEDULE" in out
