"""``CrawlDaySensor``: the first task of a run; waits until the day may be processed.

A day may be processed when

1. the previous run (by logical date; not an earlier run of the same day, which a rerun
   replaces) is not queued or running, and did not fail: each day is de-duplicated against every
   earlier day, so day D+1 must not read the store before day D has published, and
   ``max_active_runs`` does not apply between a backfill and scheduled runs;
2. the crawl folder ``{input_root}/dt={day}/`` is ready (a ``_SUCCESS`` marker, or any
   data file, by the ``wait_for`` param);
3. the day before is published in the store, or had no crawl, or the store has no
   earlier day (its history starts here); else the run is refused with what to do
   (``day.previous_day_check``; the ``require_previous_day`` param turns this off).

This replaces ``depends_on_past``, which made Airflow reject the UI's default backfill
choice ("Missing Runs"): the sensor is the first task and everything else runs after it,
so a day's stages cannot overlap with the previous day's, and the DAG runs one run at a
time (``max_active_runs=1``).

Before waiting at all, it checks the run's path params against the deployment's allowed
roots and refuses a free ``store`` URL unless the deployment allows one
(:mod:`crawldedup_airflow.allowed_paths`); a refusal fails the task at once, without retries,
with one line naming the param, the resolved path and the roots.

When it is done, the sensor's XCom is what the run resolved and checked: the crawl day, the
input folder, home, the store URL, the topic library and the config file, which the Spark
stages' templates, the relevance switch and the report read (never the params themselves).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator, PokeReturnValue
from airflow.sdk.exceptions import AirflowFailException

from crawldedup_airflow.allowed_paths import (
    allowed_roots,
    check_config_store,
    check_path,
    check_run_paths,
    check_store_params,
)
from crawldedup_airflow.day import (
    WAIT_FOR,
    RunSetupError,
    crawl_date,
    crawl_ready,
    day_dir,
    logical_date_check,
    previous_day,
    previous_day_check,
    stage_args,
)
from crawldedup_airflow.runlog import log_crawl_day

if TYPE_CHECKING:
    from airflow.sdk import Context


class CrawlDaySensor(BaseSensorOperator):
    """Wait for the previous day's run and for the day's crawl folder (use reschedule mode).

    :param hbase_conn_id: the connection that names the store when the ``store`` and
        ``store_conn_id`` params are empty (ignored when it does not exist: then the
        embedded store under ``home``).
    """

    ui_color = "#e8f4fd"

    def __init__(self, *, hbase_conn_id: str = "hbase_default", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hbase_conn_id = hbase_conn_id

    def execute(self, context: Context) -> Any:
        # The first line of every try (reschedule mode: of every poke) names the day.
        log_crawl_day(context, self.log)
        return super().execute(context)

    def poke(self, context: Context) -> PokeReturnValue:
        params = context["params"]
        try:
            # A conf key that is no param of the DAG (a typo, a param that was removed, such
            # as the old threshold) would be ignored silently: refuse it, naming the params.
            dag = context.get("dag")
            known = set(dag.params) if dag is not None else set(params)
            unknown = sorted(set(params) - known)
            if unknown:
                raise RunSetupError(
                    f"unknown param(s) {', '.join(unknown)} in the run's conf; the DAG's "
                    f"params: {', '.join(sorted(known))} (the cascade's profile "
                    "and thresholds are the config file's: docs/configuration.md)"
                )
            day = crawl_date(params.get("crawl_date"), context.get("data_interval_start"))
            self._check_manual_interval(context, day)
            # Every path param under the allowed roots, a store URL only where allowed:
            # now, before any waiting, and before anything reads or writes.
            roots = allowed_roots()
            paths = check_run_paths(params, roots)
            store_conn_id = params.get("store_conn_id") or None
            param_store = check_store_params(params.get("store"), store_conn_id, roots)
            # The day folder itself may be a link out of the roots (checked at every poke,
            # before anything looks into it).
            folder = day_dir(paths.input_root, day)
            folder = Path(check_path(f"input_root (day folder {folder.name})", folder, roots))
            wait_for = str(params["wait_for"])
            if wait_for not in WAIT_FOR:  # now, not after hours of waiting for the previous day
                raise RunSetupError(f"wait_for param {wait_for!r} unknown; known: {list(WAIT_FOR)}")
        except RunSetupError as exc:
            # Bad params do not get better with retries.
            raise AirflowFailException(str(exc)) from exc
        waiting_for = self._previous_run_unfinished(context, day)
        if waiting_for:
            self.log.info("%s: waiting: %s", day, waiting_for)
            return PokeReturnValue(is_done=False)

        ready, why = crawl_ready(folder, wait_for)
        self.log.info("%s: %s", day, why)
        if not ready:
            return PokeReturnValue(is_done=False)

        # Imported here: the hook module pulls crawldedup.store, not needed to parse the DAG.
        from crawldedup.config import ConfigError, load_config
        from crawldedup_airflow.hooks import resolve_store
        from crawldedup_airflow.stores import StoreSetupError

        try:
            config_store = check_config_store(
                load_config(paths.config).store_url or None, paths.config, roots
            )
            store, source = resolve_store(
                param_store,
                paths.home,
                self.hbase_conn_id,
                store_conn_id=store_conn_id,
                config_store=config_store,
            )
        except (StoreSetupError, ConfigError, RunSetupError) as exc:
            raise AirflowFailException(str(exc)) from exc
        self.log.info("%s: store %s (from %s), home %s", day, store, source, paths.home)
        if params.get("require_previous_day", True):
            ok, why = self._previous_day_published(day, store, paths.input_root)
            self.log.info("%s: %s", day, why)
            if not ok:
                raise AirflowFailException(f"{day}: refused: {why}")
        # What every later task uses (day.RUN_PATHS): checked here, never re-read from params.
        run: dict[str, Any] = {
            "crawl_date": day,
            "input": str(folder),
            "home": paths.home,
            "store": store,
            "store_source": source,
            "topics_library": paths.topics_library,
            "config": paths.config,
            # Names this resolution of the run: the dedup task's retries resume after
            # the stages it finished (day.day_args); clearing from here starts afresh.
            "resolved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        # The command line's day arguments, the commit and report tasks' whole input.
        run["stage_args"] = stage_args(params, run, str(context["run_id"]))
        return PokeReturnValue(is_done=True, xcom_value=run)

    @staticmethod
    def _check_manual_interval(context: Context, day: str) -> None:
        """``day.logical_date_check`` for a manual run, with the DAG's timetable."""
        dag_run = context.get("dag_run")
        timetable = getattr(context.get("dag"), "timetable", None)
        if dag_run is None or dag_run.run_type != "manual" or dag_run.logical_date is None:
            return
        interval_of = getattr(timetable, "logical_date_interval", None)
        if interval_of is None:
            return
        own = interval_of(dag_run.logical_date)
        logical_date_check(day, dag_run.logical_date, (own.start, own.end), dag_run.run_after)

    @staticmethod
    def _previous_day_published(day: str, store_url: str, input_root: str) -> tuple[bool, str]:
        """``day.previous_day_check`` against the store's published days (a day whose
        publish was cut short does not count) and the crawl folder of the day before."""
        from crawldedup.day_state import published_days
        from crawldedup_airflow.hooks import HBaseHook

        with HBaseHook.open_url(store_url) as store:
            published = published_days(store, before=day)
        crawled = day_dir(input_root, previous_day(day)).is_dir()
        return previous_day_check(day, published, crawled)

    def _previous_run_unfinished(self, context: Context, day: str) -> str | None:
        """Why this run must wait for the previous one (by logical date), or None; raises
        if it failed. A previous run of the same crawl day (the run a rerun replaces) does
        not count: the store's previous-day check orders the days."""
        previous = context["ti"].get_previous_dagrun()
        if previous is None or previous.state == "success":
            return None
        start = previous.data_interval_start
        if start is not None and crawl_date(None, start) == day:
            return None
        logical = previous.logical_date.date() if previous.logical_date else "?"
        if previous.state == "failed":
            raise AirflowFailException(
                f"the previous run {previous.run_id} (logical date {logical}) failed; days "
                "run in order, so this day would miss its results. Fix and clear that run "
                "(and this one), or mark it successful to skip that day."
            )
        return f"previous run {previous.run_id} (logical date {logical}) is {previous.state}"
