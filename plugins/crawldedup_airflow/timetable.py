"""``CrawlDayTimetable``: the daily cron data interval, with the crawl day in sight.

A :class:`~airflow.timetables.interval.CronDataIntervalTimetable` (the run of logical
date ``D`` covers ``D 03:00 -> D+1 03:00`` and fires at its end) that

- names the crawl day of the data interval in the run ids it is asked for (the Runs
  list shows ids, not notes): ``scheduled__crawl-2026-11-02__2026-11-03T03:00:00+00:00``,
  ``manual__crawl-2026-11-30__2026-12-01T11:31:46+00:00``. A manual run without a logical
  date has no interval and keeps ``manual__<run after>``. Airflow does not pass the
  run's conf to ``generate_run_id``: a ``crawl_date`` param that overrides the interval's
  day is named by the run's note and logs, not by its id (the sensor warns). Backfill
  runs are named by Airflow itself (``backfill__<run after>``, it does not ask the
  timetable for non-partitioned DAGs); their note names the day (:mod:`.listeners`);
- infers the data interval of a manual run from its logical date: the day the logical
  date falls in once that day is over, else the last complete day. So
  ``dags trigger -l 2026-11-01T12:00:00`` processes 2026-11-01, and a UI trigger with
  the form's default logical date ("now") processes yesterday, the last complete day,
  as the scheduler would (Airflow's own rule would take the day before the logical
  date's day even for past dates);
- with ``scheduled_runs=False`` (the quickstart: ``CRAWLDEDUP_SCHEDULED_RUNS=false``)
  plans no scheduled run at all, so the UI shows no "Next Run" that will never come;
  backfills and manual runs work as usual.

Registered by the ``crawldedup`` Airflow plugin (``plugins/crawldedup_plugin.py``): the
scheduler and the API server deserialize the DAG's timetable through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow._shared.timezones.timezone import coerce_datetime, parse_timezone, utcnow
from airflow.timetables.base import DataInterval
from airflow.timetables.interval import CronDataIntervalTimetable
from airflow.utils.types import DagRunType

if TYPE_CHECKING:
    from airflow.timetables.base import DagRunInfo, TimeRestriction, Timetable
    from pendulum import DateTime
    from pendulum.tz.timezone import FixedTimezone, Timezone


def crawl_day_run_id(run_type: str, day: str, run_after: DateTime) -> str:
    """``<run type>__crawl-<day>__<run after>``: unique (one run per data interval and run
    after) and sortable like Airflow's own ids."""
    return f"{run_type}__crawl-{day}__{run_after.isoformat()}"


class CrawlDayTimetable(CronDataIntervalTimetable):
    """Cron data intervals whose scheduled run ids name the crawl day.

    :param cron: the cron expression (``0 3 * * *``: the day is over at 03:00 UTC).
    :param timezone: the cron's timezone.
    :param scheduled_runs: False: plan no scheduled run (manual runs and backfills only).
    """

    def __init__(
        self, cron: str, timezone: str | Timezone | FixedTimezone, scheduled_runs: bool = True
    ) -> None:
        super().__init__(cron, timezone)
        self.scheduled_runs = scheduled_runs
        if not scheduled_runs:
            self.description = f"{self.description} (no scheduled runs: manual and backfill)"

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> Timetable:
        return cls(
            data["expression"],
            parse_timezone(data["timezone"]),
            scheduled_runs=bool(data.get("scheduled_runs", True)),
        )

    def serialize(self) -> dict[str, Any]:
        return {**super().serialize(), "scheduled_runs": self.scheduled_runs}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CrawlDayTimetable):
            return NotImplemented
        return super().__eq__(other) and self.scheduled_runs == other.scheduled_runs

    __hash__ = CronDataIntervalTimetable.__hash__

    def next_dagrun_info(
        self,
        *,
        last_automated_data_interval: DataInterval | None,
        restriction: TimeRestriction,
    ) -> DagRunInfo | None:
        # A backfill enumerates its window with catchup=True and an upper bound; the
        # scheduler asks with the DAG's own restriction (no upper bound unless end_date).
        if not self.scheduled_runs and not (restriction.catchup and restriction.latest):
            return None
        return super().next_dagrun_info(
            last_automated_data_interval=last_automated_data_interval, restriction=restriction
        )

    def infer_manual_data_interval(self, *, run_after: DateTime) -> DataInterval:
        """The interval the logical date falls in when it is over, else the last complete one."""
        start = self._align_to_prev(run_after)
        end = self._get_next(start)
        if end > coerce_datetime(utcnow()):
            return super().infer_manual_data_interval(run_after=run_after)
        return DataInterval(start=start, end=end)

    def generate_run_id(
        self,
        *,
        run_type: DagRunType,
        run_after: DateTime,
        data_interval: DataInterval | None,
        **extra: Any,
    ) -> str:
        if run_type in (DagRunType.SCHEDULED, DagRunType.MANUAL) and data_interval is not None:
            day = data_interval.start.strftime("%Y-%m-%d")
            return crawl_day_run_id(run_type.value, day, run_after)
        return super().generate_run_id(
            run_type=run_type, run_after=run_after, data_interval=data_interval, **extra
        )
