"""``CrawlDaySensor``: the first task of a run; waits until the day may be processed.

A day may be processed when

1. the previous run (by logical date) has succeeded: each day is de-duplicated against
   every earlier day, so day D+1 must not read the store before day D has published.
   ``depends_on_past`` only orders each task after the same task of the previous run
   (D+1's bloom could otherwise rebuild the filters while D's publish has not run yet),
   and ``max_active_runs`` does not apply between a backfill and scheduled runs;
2. the crawl folder ``{input_root}/dt={day}/`` is ready (a ``_SUCCESS`` marker, or any
   data file, by the ``wait_for`` param).

When it is done, the sensor's XCom is what the run resolved: the crawl day, the input
folder, home and the store URL, which the Spark stages' templates and the report read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator, PokeReturnValue
from airflow.sdk.exceptions import AirflowFailException

from crawldedup_airflow.day import WAIT_FOR, RunSetupError, crawl_date, crawl_ready, day_dir

if TYPE_CHECKING:
    from airflow.sdk import Context


class CrawlDaySensor(BaseSensorOperator):
    """Wait for the previous day's run and for the day's crawl folder (use reschedule mode).

    :param hbase_conn_id: the connection that names the store when the ``store`` param is
        empty (ignored when it does not exist: then the embedded store under ``home``).
    """

    ui_color = "#e8f4fd"

    def __init__(self, *, hbase_conn_id: str = "hbase_default", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hbase_conn_id = hbase_conn_id

    def poke(self, context: Context) -> PokeReturnValue:
        params = context["params"]
        try:
            day = crawl_date(params.get("crawl_date"), context.get("logical_date"))
            folder = day_dir(params["input_root"], day)
            wait_for = str(params["wait_for"])
            if wait_for not in WAIT_FOR:  # now, not after hours of waiting for the previous day
                raise RunSetupError(f"wait_for param {wait_for!r} unknown; known: {list(WAIT_FOR)}")
        except RunSetupError as exc:
            # Bad params do not get better with retries.
            raise AirflowFailException(str(exc)) from exc

        waiting_for = self._previous_run_unfinished(context)
        if waiting_for:
            self.log.info("%s: waiting: %s", day, waiting_for)
            return PokeReturnValue(is_done=False)

        ready, why = crawl_ready(folder, wait_for)
        self.log.info("%s: %s", day, why)
        if not ready:
            return PokeReturnValue(is_done=False)

        # Imported here: the hook module pulls crawldedup.store, not needed to parse the DAG.
        from crawldedup_airflow.hooks import resolve_store

        home = str(Path(params["home"]).expanduser().resolve())
        store, source = resolve_store(params.get("store"), home, self.hbase_conn_id)
        self.log.info("%s: store %s (from %s), home %s", day, store, source, home)
        return PokeReturnValue(
            is_done=True,
            xcom_value={
                "crawl_date": day,
                "input": str(folder),
                "home": home,
                "store": store,
                "store_source": source,
            },
        )

    def _previous_run_unfinished(self, context: Context) -> str | None:
        """Why this run must wait for the previous one, or None; raises if it failed."""
        previous = context["ti"].get_previous_dagrun()
        if previous is None or previous.state == "success":
            return None
        logical = previous.logical_date.date() if previous.logical_date else "?"
        if previous.state == "failed":
            raise AirflowFailException(
                f"the previous run {previous.run_id} (logical date {logical}) failed; days "
                "run in order, so this day would miss its results. Fix and clear that run "
                "(and this one), or mark it successful to skip that day."
            )
        return f"previous run {previous.run_id} (logical date {logical}) is {previous.state}"
