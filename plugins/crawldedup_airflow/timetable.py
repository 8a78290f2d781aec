"""``CrawlDayTimetable``: a crawl day is a calendar day of the deployment's time zone.

A :class:`~airflow.timetables.interval.CronDataIntervalTimetable` whose data intervals
are calendar days, ``D 00:00 -> D+1 00:00`` in the deployment's time zone
(``CRAWLDEDUP_TIMEZONE``, UTC by default), that

- fires a scheduled run of day ``D`` at the time of day of its cron (``0 3 * * *``: at
  ``D+1 03:00``, when the crawler is done), the crawl day staying the calendar day;
- names the crawl day of the data interval in the run ids it is asked for (the Runs
  list shows ids, not notes): ``scheduled__crawl-2026-11-02__2026-11-03T03:00:00+00:00``,
  ``manual__crawl-2026-11-30__2026-12-01T11:31:46+00:00``. Airflow names backfill runs
  itself, ``backfill__<run after>`` (it does not ask the timetable for non-partitioned
  DAGs): a backfill's runs get the logical date (the day's 00:00) as their run after, so
  ``backfill__2026-11-02T00:00:00+00:00`` is crawl day 2026-11-02 (in UTC);
- selects a backfill's crawl days by calendar day: from the day of its From date through
  the day of its To date, both included, whatever their time of day (Airflow leaves out
  a day that is not over yet);
- infers the data interval of a manual run from its logical date: the day the logical
  date falls in once that day is over, else yesterday, the last complete day. So a
  trigger with logical date 2026-11-01 (any time that day) processes 2026-11-01 from
  2026-11-02 00:00 on, and a UI trigger with the form's default logical date ("now")
  processes yesterday, at any hour;
- with ``scheduled_runs=False`` (the quickstart: ``CRAWLDEDUP_SCHEDULED_RUNS=false``)
  plans no scheduled run at all, so the UI shows no "Next Run" that will never come;
  backfills and manual runs work as usual.

Registered by the ``crawldedup`` Airflow plugin (``plugins/crawldedup_plugin.py``): the
scheduler and the API server deserialize the DAG's timetable through it.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow._shared.timezones.timezone import coerce_datetime, parse_timezone, utcnow
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import DagRunInfo, DataInterval
from airflow.timetables.interval import CronDataIntervalTimetable
from airflow.utils.types import DagRunType

if TYPE_CHECKING:
    from airflow.timetables.base import TimeRestriction, Timetable
    from pendulum import DateTime
    from pendulum.tz.timezone import FixedTimezone, Timezone


def crawl_day_run_id(run_type: str, day: str, run_after: DateTime) -> str:
    """``<run type>__crawl-<day>__<run after>``: unique (one run per data interval and run
    after) and sortable like Airflow's own ids."""
    return f"{run_type}__crawl-{day}__{run_after.isoformat()}"


# The data intervals: calendar days.
DAY_CRON = "0 0 * * *"
_DAILY = re.compile(r"^\s*(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+\*\s*$")


def run_offset(cron: str) -> timedelta:
    """How long after its day's end a scheduled run fires: the time of day of a daily cron
    ``M H * * *`` (``0 3 * * *``: 3 hours)."""
    m = _DAILY.match(cron)
    if not m or int(m.group(1)) > 59 or int(m.group(2)) > 23:
        raise AirflowTimetableInvalid(
            f"schedule {cron!r} is not a daily time: write it as 'M H * * *' (e.g. "
            "'0 3 * * *': each day's run starts at 03:00 the next day; CRAWLDEDUP_SCHEDULE)"
        )
    return timedelta(hours=int(m.group(2)), minutes=int(m.group(1)))


class CrawlDayTimetable(CronDataIntervalTimetable):
    """Calendar-day data intervals in ``timezone``, scheduled runs fired at ``cron``'s
    time of day after their day.

    :param cron: a daily cron ``M H * * *``, the time of day a scheduled run starts the
        day after its crawl day (``0 3 * * *``).
    :param timezone: the deployment's time zone: its calendar days are the crawl days.
    :param scheduled_runs: False: plan no scheduled run (manual runs and backfills only).
    """

    def __init__(
        self, cron: str, timezone: str | Timezone | FixedTimezone, scheduled_runs: bool = True
    ) -> None:
        super().__init__(DAY_CRON, timezone)
        self.run_cron = cron
        self.offset = run_offset(cron)
        self.scheduled_runs = scheduled_runs
        self.description = (
            f"each calendar day ({self._timezone.name}), run at {cron!r} the day after"
            if scheduled_runs
            else f"calendar days ({self._timezone.name}); no scheduled runs: manual and backfill"
        )

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> Timetable:
        return cls(
            data.get("run_cron", data["expression"]),
            parse_timezone(data["timezone"]),
            scheduled_runs=bool(data.get("scheduled_runs", True)),
        )

    def serialize(self) -> dict[str, Any]:
        return {
            **super().serialize(),
            "run_cron": self.run_cron,
            "scheduled_runs": self.scheduled_runs,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CrawlDayTimetable):
            return NotImplemented
        return (
            super().__eq__(other)
            and self.run_cron == other.run_cron
            and self.scheduled_runs == other.scheduled_runs
        )

    __hash__ = CronDataIntervalTimetable.__hash__

    def next_dagrun_info(
        self,
        *,
        last_automated_data_interval: DataInterval | None,
        restriction: TimeRestriction,
    ) -> DagRunInfo | None:
        # A backfill enumerates its window with catchup=True and an upper bound; the
        # scheduler asks with the DAG's own restriction (no upper bound: the DAG has no
        # end_date, tests/airflow/test_ui_params.py checks it).
        if restriction.catchup and restriction.latest is not None:
            return self._backfill_run(last_automated_data_interval, restriction)
        if not self.scheduled_runs:
            return None
        info = super().next_dagrun_info(
            last_automated_data_interval=last_automated_data_interval, restriction=restriction
        )
        if info is None or info.data_interval is None:
            return info
        # The day's run starts at the schedule's time of day after the day is over.
        return DagRunInfo(
            run_after=info.data_interval.end + self.offset, data_interval=info.data_interval
        )

    def _backfill_run(
        self, last: DataInterval | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        """The next run of a backfill window: one per crawl day from the day of
        ``restriction.earliest`` through the day of ``restriction.latest`` (both included,
        times of day ignored), its run after its logical date (so that Airflow's
        ``backfill__<run after>`` id names the day)."""
        if restriction.earliest is None or restriction.latest is None:
            return None
        if last is not None:
            start = self._align_to_next(last.end)
        else:
            first_day = coerce_datetime(restriction.earliest).in_timezone(self._timezone)
            start = self._align_to_next(first_day.start_of("day"))
        last_day = coerce_datetime(restriction.latest).in_timezone(self._timezone).date()
        if start.in_timezone(self._timezone).date() > last_day:
            return None
        return DagRunInfo(run_after=start, data_interval=DataInterval(start, self._get_next(start)))

    def logical_date_interval(self, logical_date: DateTime) -> DataInterval:
        """The interval ``logical_date`` falls in (its crawl day once that day is over)."""
        start = self._align_to_prev(coerce_datetime(logical_date))
        return DataInterval(start=start, end=self._get_next(start))

    def infer_manual_data_interval(self, *, run_after: DateTime) -> DataInterval:
        """The day the logical date falls in when it is over, else yesterday (the last
        complete day).

        (Airflow calls it with the logical date, except ``airflow dags trigger``, which
        passes the trigger time: the sensor refuses such a run, see
        ``day.logical_date_check``.)"""
        own = self.logical_date_interval(run_after)
        if own.end > coerce_datetime(utcnow()):
            return super().infer_manual_data_interval(run_after=run_after)
        return own

    def generate_run_id(
        self,
        *,
        run_type: DagRunType,
        run_after: DateTime,
        data_interval: DataInterval | None,
        **extra: Any,
    ) -> str:
        if run_type in (DagRunType.SCHEDULED, DagRunType.MANUAL) and data_interval is not None:
            start = coerce_datetime(data_interval.start).in_timezone(self._timezone)
            day = start.strftime("%Y-%m-%d")
            return crawl_day_run_id(run_type.value, day, run_after)
        return super().generate_run_id(
            run_type=run_type, run_after=run_after, data_interval=data_interval, **extra
        )
