"""``CrawlDayTimetable``: the daily cron data interval, with the crawl day in sight.

A :class:`~airflow.timetables.interval.CronDataIntervalTimetable` (the run of logical
date ``D`` covers ``D 03:00 -> D+1 03:00`` and fires at its end) that

- names the crawl day of the data interval in the run ids it is asked for (the Runs
  list shows ids, not notes): ``scheduled__crawl-2026-11-02__2026-11-03T03:00:00+00:00``,
  ``manual__crawl-2026-11-30__2026-12-01T11:31:46+00:00``. Airflow names backfill runs
  itself, ``backfill__<run after>`` (it does not ask the timetable for non-partitioned
  DAGs): a backfill's runs get the logical date as their run after (their day is over
  anyway), so ``backfill__2026-11-02T03:00:00+00:00`` is crawl day 2026-11-02;
- selects a backfill's crawl days by calendar day: from the day of its From date through
  the day of its To date, both included, whatever their time of day (Airflow's own rule,
  logical dates within [From, To], left 2026-12-02 out of a window ending 2026-12-02
  00:00, its logical date being 03:00);
- infers the data interval of a manual run from its logical date: the day the logical
  date falls in once that day is over, else the last complete day. So a trigger with
  logical date 2026-11-01T12:00:00 (form, REST API) processes 2026-11-01, and a UI
  trigger with the form's default logical date ("now") processes yesterday, the last
  complete day, as the scheduler would (Airflow's own rule would take the day before
  the logical date's day even for past dates);
- with ``scheduled_runs=False`` (the quickstart: ``CRAWLDEDUP_SCHEDULED_RUNS=false``)
  plans no scheduled run at all, so the UI shows no "Next Run" that will never come;
  backfills and manual runs work as usual.

Registered by the ``crawldedup`` Airflow plugin (``plugins/crawldedup_plugin.py``): the
scheduler and the API server deserialize the DAG's timetable through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow._shared.timezones.timezone import coerce_datetime, parse_timezone, utcnow
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
        # scheduler asks with the DAG's own restriction (no upper bound: the DAG has no
        # end_date, tests/airflow/test_ui_params.py checks it).
        if restriction.catchup and restriction.latest is not None:
            return self._backfill_run(last_automated_data_interval, restriction)
        if not self.scheduled_runs:
            return None
        return super().next_dagrun_info(
            last_automated_data_interval=last_automated_data_interval, restriction=restriction
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
        """The interval the logical date falls in when it is over, else the last complete one.

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
            day = data_interval.start.strftime("%Y-%m-%d")
            return crawl_day_run_id(run_type.value, day, run_after)
        return super().generate_run_id(
            run_type=run_type, run_after=run_after, data_interval=data_interval, **extra
        )
