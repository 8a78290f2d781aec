"""Airflow listener: a run of ``crawl_dedup_daily`` gets a note naming its crawl day.

The note shows in the UI wherever a run is listed (the Runs list, the run's header, the
grid's tooltip), for every kind of run, beside run ids that name the day too
(:mod:`.timetable`). The listener runs in the scheduler when a run
starts (queued -> running) and sets the note on the scheduler's own ORM object, so it
needs no API credentials and no second database session. A note someone already wrote
(the trigger form's "Dag Run Notes") is kept, after the day.
"""

from __future__ import annotations

from typing import Any

from airflow.listeners import hookimpl

from crawldedup_airflow.day import DAG_ID, RunSetupError, crawl_date

NOTE_PREFIX = "crawl day"


def run_note(conf: dict[str, Any] | None, interval_start: Any, existing: str | None) -> str:
    """The note of a run: ``crawl day 2026-11-02`` (+ `` · <existing note>``), or why the
    run has no day (its first task refuses it with the same reason)."""
    if existing and existing.startswith(NOTE_PREFIX):
        return existing
    param = (conf or {}).get("crawl_date")
    try:
        note = f"{NOTE_PREFIX} {crawl_date(param, interval_start)}"
    except RunSetupError as exc:
        note = f"{NOTE_PREFIX}: none, refused: {exc}"
    return f"{note} · {existing}" if existing else note


@hookimpl
def on_dag_run_running(dag_run: Any, msg: str) -> None:
    """Set the crawl-day note when a run of the DAG starts."""
    if getattr(dag_run, "dag_id", None) != DAG_ID:
        return
    note = run_note(dag_run.conf, dag_run.data_interval_start, dag_run.note)
    if note != dag_run.note:
        dag_run.note = note
