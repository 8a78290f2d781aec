"""What one DAG run works on: its crawl day, its folder, readiness and stage arguments.

Pure functions, no Airflow and no Spark: the sensor, the Spark tasks' templates and the
report task call them at run time; the unit tests call them directly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from crawldedup.config import RULES, Config, ConfigError, build_config, parse_override
from crawldedup.stage_registry import stage_argv
from crawldedup_airflow.params import knob_overrides

DAG_ID = "crawl_dedup_daily"
"""The DAG this package drives (the run-note listener acts on its runs only)."""

WAIT_FOR: tuple[str, ...] = ("success_marker", "data_files")
"""What makes a crawl folder ready: the crawler's ``_SUCCESS`` marker, or any data file."""

SUCCESS_MARKER = "_SUCCESS"

TIMEZONE = os.environ.get("CRAWLDEDUP_TIMEZONE") or "UTC"
"""The deployment's time zone (``CRAWLDEDUP_TIMEZONE``): a crawl day is one of its calendar
days, ``D 00:00 -> D+1 00:00`` there (the DAG's timetable and every task read it)."""

__all__ = [
    "DAG_ID",
    "RULES",
    "RUN_PATHS",
    "SUCCESS_MARKER",
    "TIMEZONE",
    "WAIT_FOR",
    "RunSetupError",
    "crawl_date",
    "crawl_day_source",
    "crawl_ready",
    "day_args",
    "day_dir",
    "logical_date_check",
    "previous_day",
    "previous_day_check",
    "run_config",
    "run_overrides",
    "run_path",
    "run_token",
    "spark_conf",
    "stage_args",
]


class RunSetupError(ValueError):
    """The run's params and dates do not name a day or a readiness rule."""


def day_of(moment: datetime) -> str:
    """The calendar day (YYYY-MM-DD) of ``moment`` in the deployment's time zone."""
    return moment.astimezone(ZoneInfo(TIMEZONE)).strftime("%Y-%m-%d")


def utcnow() -> datetime:
    """The clock the "not over yet" check reads (a module function, so that a test can
    set the hour: tests/airflow/test_calendar_days.py)."""
    return datetime.now(ZoneInfo("UTC"))


def crawl_date(param: str | None, interval_start: datetime | None) -> str:
    """The crawl day (YYYY-MM-DD) a run processes: the calendar day (in the deployment's
    time zone, :data:`TIMEZONE`) its data interval is.

    A scheduled or backfill run of logical date ``D`` (interval ``D 00:00 -> D+1 00:00``)
    processes ``D``; a manual run gets the interval the DAG's timetable infers from its
    logical date (:class:`~crawldedup_airflow.timetable.CrawlDayTimetable`: the day the
    logical date falls in once that day is over, else yesterday, so a UI trigger "now"
    processes yesterday, at any hour). Run ids name that day, so the logical date is the
    one place a run's day is chosen:

    - the ``crawl_date`` param only confirms it: a run whose ``crawl_date`` names another
      day is refused, saying which logical date to set;
    - a run without a logical date (so without a data interval) is refused, with what
      to set.
    """
    day = None
    if param:
        try:
            day = date.fromisoformat(param.strip()).isoformat()
        except ValueError:
            raise RunSetupError(
                f"crawl_date param {param!r} is not a date: write it as YYYY-MM-DD, e.g. "
                "2026-11-02, or leave it empty"
            ) from None
    if interval_start is None:
        example = day or "2026-11-02"
        raise RunSetupError(
            "this run has no logical date, so no crawl day: trigger it with a logical date "
            "on the day to process (trigger form: Logical date, any time that day; REST API: "
            f"logical_date; CLI: airflow backfill create --dag-id {DAG_ID} --from-date "
            f"{example} --to-date {example}), which its run id then names"
        )
    interval_day = day_of(interval_start)
    if day and day > interval_day and day >= day_of(utcnow()):
        raise RunSetupError(
            f"crawl_date param {day} is not over yet ({TIMEZONE}): trigger again with Logical "
            f"date {day} once it is (from {date.fromisoformat(day) + timedelta(days=1)} 00:00 "
            f"{TIMEZONE}; CLI: airflow backfill create --dag-id {DAG_ID} --from-date {day} "
            f"--to-date {day}), or leave Crawl date empty to process {interval_day}"
        )
    if day and day != interval_day:
        raise RunSetupError(
            f"crawl_date param {day} is not this run's crawl day {interval_day} (the day of "
            f"its logical date, which its run id names): trigger with Logical date {day} "
            f"(any time that day; CLI: airflow backfill create --dag-id {DAG_ID} --from-date "
            f"{day} --to-date {day}) and Crawl date empty or {day}"
        )
    return interval_day


def logical_date_check(
    day: str,
    logical_date: datetime | None,
    own_interval: tuple[datetime, datetime] | None,
    run_after: datetime | None,
) -> None:
    """Refuse a manual run whose data interval (its crawl day ``day``, which its run id
    names) is not the interval its logical date falls in, although that interval was over
    when the run was triggered: ``airflow dags trigger -l D`` does that (Airflow 3.3's CLI
    infers the interval from the trigger time, not from ``-l``), as does a manual interval
    set apart from the logical date in the trigger form. ``own_interval``: the interval
    of ``logical_date`` (``CrawlDayTimetable.logical_date_interval``). A logical date in
    a day not yet over ("now") gets the last complete day, as planned."""
    if logical_date is None or own_interval is None or run_after is None:
        return
    start, end = own_interval
    wanted = day_of(start)
    if wanted == day or end > run_after:
        return
    raise RunSetupError(
        f"this run's data interval is crawl day {day} (which its run id names), not the day "
        f"of its logical date, {wanted} (Airflow's `dags trigger` CLI takes the interval from "
        f"the trigger time, not from -l): run {wanted} from the trigger form (Logical date) "
        f"or the REST API (logical_date), or with `airflow backfill create --dag-id {DAG_ID} "
        f"--from-date {wanted} --to-date {wanted}` (plus --reprocess-behavior completed to "
        "rerun it)"
    )


def crawl_day_source(param: str | None, interval_start: datetime | None) -> str:
    """Where :func:`crawl_date` took the day from, for the log."""
    if interval_start is None:
        return "nowhere"
    source = f"the data interval starting {interval_start.isoformat()}"
    return f"{source}, as the crawl_date param says" if param else source


def previous_day(day: str) -> str:
    """The calendar day before ``day`` (YYYY-MM-DD)."""
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def previous_day_check(
    day: str, published_before: list[str], previous_crawled: bool
) -> tuple[bool, str]:
    """Whether day ``day`` may be processed given the days the store has published.

    Days are de-duplicated in order, each against every earlier day's published results,
    so ``day`` may run when the day before it is published, when the day before had no
    crawl (no ``dt=`` folder), or when the store has published no day before ``day`` (the
    store's history starts here). ``published_before``: the store's published days
    before ``day``, in order. Returns (ok, one line for the log or the refusal).
    """
    prev = previous_day(day)
    if published_before and published_before[-1] == prev:
        return True, f"the previous day {prev} is published"
    if not previous_crawled:
        return True, f"the previous day {prev} has no crawl folder (nothing to wait for)"
    if not published_before:
        return True, f"the store has no day before {day}: its history starts here"
    first_missing = (date.fromisoformat(published_before[-1]) + timedelta(days=1)).isoformat()
    return False, (
        f"the previous day {prev} has a crawl but is not published in the store (the last "
        f"published day before {day} is {published_before[-1]}); days are de-duplicated in "
        f"order, so process {prev} first (trigger with Logical date {prev}; CLI: airflow "
        f"backfill create --dag-id {DAG_ID} --from-date {first_missing} --to-date {prev}), "
        f"or set the param require_previous_day to false to process {day} anyway"
    )


def day_dir(input_root: str | Path, day: str) -> Path:
    """The crawler's folder of one day: ``{input_root}/dt={day}``."""
    return Path(input_root) / f"dt={day}"


def crawl_ready(folder: Path, wait_for: str) -> tuple[bool, str]:
    """Whether the day's crawl folder may be read, and why (one line for the log)."""
    if wait_for not in WAIT_FOR:
        raise RunSetupError(f"wait_for param {wait_for!r} unknown; known: {list(WAIT_FOR)}")
    if not folder.is_dir():
        return False, f"{folder} does not exist yet"
    if wait_for == "success_marker":
        # The crawler writes the marker last: files without it may still be growing.
        marker = folder / SUCCESS_MARKER
        if marker.is_file():
            return True, f"{marker} found"
        return False, f"no {SUCCESS_MARKER} in {folder} yet"
    # The same selection the fingerprint stage reads with, so "ready" means "has input"
    # (files under _temporary/ or .staging/, links and unknown names do not count).
    from crawldedup.ingest.readers import select_input_files

    files = select_input_files(folder).files
    if files:
        return True, f"data file {Path(files[0]).relative_to(folder)} found"
    return False, f"no data files in {folder} yet"


RUN_PATHS: tuple[str, ...] = ("input", "home", "store", "topics_library", "config")
"""What the sensor resolved and checked (``allowed_paths``) and puts in its XCom, beside
the crawl day: later tasks take these from there, never from the params."""


def run_path(run: Mapping[str, Any], key: str) -> str | None:
    """One checked location of the run (``RUN_PATHS``), None when empty.

    Raises when the sensor's XCom lacks it (one written before the allowed-roots check):
    the params are not a fallback, since they were never checked.
    """
    if key not in run:
        raise RunSetupError(
            f"the run resolved by wait_for_crawl has no {key!r} (its XCom predates the "
            "allowed-roots check): clear wait_for_crawl, and the tasks after it, to resolve "
            "the run again"
        )
    value = run[key]
    return str(value) if value else None


def run_overrides(params: Mapping[str, Any], run: Mapping[str, Any]) -> list[str]:
    """The run's params as the CLI's ``--set KEY=VALUE`` items (values are TOML); the
    topic library is the checked one from ``run``."""
    # A param left empty (null) means "what the config file says"; only a value set in the
    # form or the run's conf overrides it.
    items = knob_overrides(params)
    library = run_path(run, "topics_library")
    if library:
        items.append(f"relevance.library={json.dumps(library)}")
    return items


def run_config(params: Mapping[str, Any], run: Mapping[str, Any]) -> Config:
    """The configuration every task of the run uses: the ``config`` file and the store the
    sensor resolved and checked, the params' overrides; the same path as the CLI's."""
    try:
        return build_config(
            run_path(run, "config"),
            str(run["store"]),
            [parse_override(item) for item in run_overrides(params, run)],
        )
    except ConfigError as exc:
        raise RunSetupError(f"config: {exc}") from None


def run_token(run_id: str, run: Mapping[str, Any]) -> str:
    """Who runs the day's stages: the DAG run and the sensor's resolution of it. A retry
    of the dedup task (or a clear of it alone) keeps it and resumes after the stages it
    finished; a clear from ``wait_for_crawl`` resolves the run again and starts afresh."""
    return f"{run_id}@{run.get('resolved_at', '')}"


def stage_args(params: Mapping[str, Any], run: Mapping[str, Any], run_id: str) -> dict[str, Any]:
    """The day's arguments of ``crawldedup stage`` for one run (the keywords of
    ``stage_registry.stage_argv``): the sensor resolves them once into its XCom
    (``stage_args``), which the commit and report tasks pass to the command line; the
    dedup task's application gets the same (:func:`day_args`).

    ``run`` is what the sensor resolved and checked (crawl_date and ``RUN_PATHS``: input,
    home, store, topics_library, config); ``params`` are the run's params (their paths are
    not read here). Every stage gets the same config file and overrides, so each sees the
    configuration the run was triggered with.
    """
    return {
        "day": str(run["crawl_date"]),
        "home": str(run["home"]),
        "store": str(run["store"]),
        "input_dir": str(run["input"]),
        "config": run_path(run, "config"),
        "overrides": run_overrides(params, run),
        "dry_run": bool(params.get("dry_run")),
        "replace": bool(params.get("replace")),
        "run_id": run_token(run_id, run),
    }


def day_args(params: Mapping[str, Any], run: Mapping[str, Any], run_id: str) -> list[str]:
    """The command line of ``jobs/day.py`` for one run (a template macro of the DAG):
    every Spark stage the run's configuration runs (``stage_registry.spark_stages``), in
    one application, with the run's :func:`stage_args`."""
    from crawldedup.stage_registry import spark_stages

    return stage_argv(spark_stages(run_config(params, run)), **stage_args(params, run, run_id))


def spark_conf(
    params: Mapping[str, Any], run: Mapping[str, Any], log4j: str = ""
) -> dict[str, str]:
    """spark-submit ``--conf`` of a Spark task: the driver's memory from the run's config
    (``[spark] driver_memory``) and the quiet log4j2 file, when given, as the driver's
    JVM option. Other JVM options belong to Spark's own configuration
    (``spark-defaults.conf`` or the ``spark_default`` connection's extras)."""
    cfg = run_config(params, run)
    conf = {"spark.driver.memory": cfg.spark.driver_memory}
    if log4j:
        conf["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile={log4j}"
    return conf
