"""
### crawl_dedup_daily: de-duplicate one crawl day

`wait_for_crawl` → `dedup` → `commit` → `report` → `relevance`. `dedup` is one Spark
application (one `spark-submit` of `jobs/day.py`) that runs every Spark stage the run's
configuration runs, in the CLI's order: fingerprint, relevance (with a topic library),
bloom, candidates, similarity, publish; its log has a line per stage and its XCom each
stage's seconds and counts; a retry resumes after the stages it finished. `commit` and
`report` need no Spark; `report` applies the data-quality gate (the CLI's exit 3).
`relevance` shows the relevance stage's outcome after the day is committed and reported
(a failure there never holds back the verdicts), or is skipped without a library.
The crawl day is a calendar day of the deployment's time zone (`CRAWLDEDUP_TIMEZONE`, UTC
by default): the day of the run's logical date (its data interval), which its run id
names. Set *Logical date* to any time on the day; a UI trigger with the form's defaults
processes **yesterday**, at any hour; a day not over yet is never picked in its place.
A **backfill** processes every day from its *From* date's day
through its *To* date's day, **both included**, whatever the times (CLI:
`airflow backfill create --dag-id crawl_dedup_daily --from-date D1 --to-date D2`; a one-day
backfill with `--reprocess-behavior completed` reruns a day). Days run in order.

Params, allowed roots, the store connection, deployment settings and running on a Spark
cluster: `docs/operations.md` ("Airflow") in the crawldedup repository.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk import DAG, Param, task

from crawldedup.stage_registry import STAGES, stage
from crawldedup_airflow.assets import VERDICTS
from crawldedup_airflow.day import DAG_ID, TIMEZONE, WAIT_FOR, day_args, spark_conf
from crawldedup_airflow.params import knob_params
from crawldedup_airflow.report_link import DayReportLink
from crawldedup_airflow.runlog import log_crawl_day
from crawldedup_airflow.sensors import CrawlDaySensor
from crawldedup_airflow.timetable import CrawlDayTimetable

# Deployment settings come from the environment: cheap to read while parsing, unlike
# Variables (a metadata DB or secrets backend call on every parse).
_ENV = os.environ
REPO = Path(__file__).resolve().parents[1]
JOBS_DIR = Path(_ENV.get("CRAWLDEDUP_JOBS_DIR") or REPO / "jobs")
SCHEDULE = _ENV.get("CRAWLDEDUP_SCHEDULE", "0 3 * * *")
CATCHUP = _ENV.get("CRAWLDEDUP_CATCHUP", "false").lower() in ("1", "true", "yes")
SCHEDULED_RUNS = _ENV.get("CRAWLDEDUP_SCHEDULED_RUNS", "true").lower() in ("1", "true", "yes")
OWNER = _ENV.get("CRAWLDEDUP_OWNER", "crawldedup")
RETRIES = int(_ENV.get("CRAWLDEDUP_RETRIES", "2"))
RETRY_DELAY = timedelta(seconds=float(_ENV.get("CRAWLDEDUP_RETRY_DELAY_S", "60")))
SENSOR_POKE = timedelta(seconds=float(_ENV.get("CRAWLDEDUP_SENSOR_POKE_S", "300")))
SENSOR_TIMEOUT = timedelta(hours=float(_ENV.get("CRAWLDEDUP_SENSOR_TIMEOUT_H", "12")))
# The project zip shipped to executors: harmless on local[*], needed on a cluster whose
# nodes do not have the project installed.
PY_FILES = _ENV.get("CRAWLDEDUP_PY_FILES", "") or None
SENSOR_TASK_ID = "wait_for_crawl"


def _log4j_file() -> str:
    """The pipeline's log4j2 file (quiet driver logs), given to spark-submit before the
    driver JVM starts (the session builder sets it too, but under spark-submit the driver
    already runs). find_spec locates the package without importing it."""
    spec = importlib.util.find_spec("crawldedup")
    if spec is None or spec.origin is None:
        return ""
    log4j = Path(spec.origin).parent / "pipeline" / "log4j2.properties"
    return str(log4j) if log4j.is_file() else ""


LOG4J = _log4j_file()
_RUN = f"ti.xcom_pull(task_ids='{SENSOR_TASK_ID}')"


# Renders (natively) to the list STAGE... --date D --home H --store URL --set ... [--input
# DIR] [--dry-run] --run-id TOKEN: the stages come from the run's configuration.
DAY_ARGS_TEMPLATE: Any = f"{{{{ day_args(params, {_RUN}, run_id) }}}}"


# The driver's memory comes from the run's config ([spark] driver_memory), read at run time.
SPARK_CONF_TEMPLATE: Any = f"{{{{ spark_conf(params, {_RUN}, {LOG4J!r}) }}}}"


class DedupApplication(SparkSubmitOperator):
    """The day's Spark stages in one application: its log starts with the crawl day and
    the store (before spark-submit's lines) and ends with a line per stage; its XCom is
    each stage's seconds and counts."""

    def execute(self, context: Any) -> dict[str, Any]:  # type: ignore[override]
        from crawldedup_airflow.tasks import dedup_results, shipped_submit_settings

        log_crawl_day(context, self.log)
        # The worker's Spark configuration, else the one crawldedup ships for short
        # drivers, and a local driver's class archive: as `crawldedup run` starts its own.
        self.properties_file, self.conf = shipped_submit_settings(
            context, self.conf or {}, self.properties_file, self._get_hook(), SENSOR_TASK_ID
        )
        super().execute(context)
        return dedup_results(context, sensor_task_id=SENSOR_TASK_ID)


PARAMS = {
    "crawl_date": Param(
        None,
        type=["null", "string"],
        format="date",
        pattern=r"^\d{4}-\d{2}-\d{2}$",
        title="Crawl date",
        description="Optional check, YYYY-MM-DD (e.g. 2026-11-02). The day processed (the "
        "folder {input_root}/dt=YYYY-MM-DD/, named by the run id) is the Logical date's: set "
        "Logical date to any time on that day; left at now, it is yesterday, the last "
        "complete day. A Crawl date that differs is refused at once. Backfill: every day "
        "from the From date's day through the To date's day, both included.",
        section="Day",
    ),
    "require_previous_day": Param(
        True,
        type="boolean",
        title="Require the previous day",
        description="Refuse the day when the day before has a crawl folder but is not "
        "published in the store (days are de-duplicated in order). Off: process it anyway, "
        "e.g. to skip a broken day.",
        section="Day",
    ),
    "dry_run": Param(
        False,
        type="boolean",
        title="Dry run",
        description="Compute verdicts and the report, write nothing to the store.",
        section="Cascade",
    ),
    "replace": Param(
        False,
        type="boolean",
        title="Replace a published day even with far fewer documents",
        description="A rerun whose crawl folder holds fewer than limits.min_rerun_share "
        "(0.5) of the documents the day was published with (or none) fails its publish "
        "task, which would otherwise delete the missing ones' verdicts. Tick to do it.",
        section="Cascade",
    ),
    "input_root": Param(
        _ENV.get("CRAWLDEDUP_INPUT_ROOT", "/data/crawl"),
        type="string",
        minLength=1,
        title="Input root",
        description="The crawler's folder on the workers (not empty), under the "
        "deployment's allowed roots (CRAWLDEDUP_ALLOWED_ROOTS); the day is "
        "{input_root}/dt=YYYY-MM-DD/.",
        section="Locations",
    ),
    "home": Param(
        _ENV.get("CRAWLDEDUP_HOME", "/data/crawldedup"),
        type="string",
        minLength=1,
        title="Home",
        description="A folder on the workers (not empty) under the deployment's allowed "
        "roots: work files (work/dt=D/), quarantine and the embedded store.",
        section="Locations",
    ),
    "store_conn_id": Param(
        None,
        type=["null", "string"],
        title="Store connection",
        description="The Airflow connection (conn type hbase) of the store, e.g. "
        "hbase_backup. Empty: the hbase_default connection if defined, else the embedded "
        "store under home.",
        section="Locations",
    ),
    "store": Param(
        None,
        type=["null", "string"],
        pattern=r"^(sqlite|hbase)://",
        title="Store URL",
        description="Only where the deployment allows store URLs (CRAWLDEDUP_ALLOW_STORE_URL="
        "true; else the run is refused: use Store connection): sqlite:///abs/path.db (under "
        "the allowed roots) or hbase://host:port/prefix (options after ?, e.g. "
        "?timeout_ms=60000). Empty: the store connection, else hbase_default if defined, "
        "else the embedded store under home.",
        section="Locations",
    ),
    "wait_for": Param(
        "success_marker",
        type="string",
        enum=list(WAIT_FOR),
        title="Crawl folder is ready when",
        values_display={
            "success_marker": "the crawler's _SUCCESS marker exists",
            "data_files": "any data file exists",
        },
        section="Locations",
    ),
    "topics_library": Param(
        None,
        type=["null", "string"],
        title="Topic library",
        description="Path of a semantic library (YAML) on the workers for the relevance "
        "stage, under the allowed roots, e.g. /data/topics.yaml; overrides the config "
        "file's relevance.library. Empty: the config file's (none: relevance is skipped).",
        section="Relevance",
    ),
    "config": Param(
        _ENV.get("CRAWLDEDUP_CONFIG") or None,
        type=["null", "string"],
        title="Config file",
        description="The TOML config file (on the workers, under the allowed roots) every "
        "task of the run reads, the report too. Empty: the defaults.",
        section="Locations",
    ),
    # The Params that stand for config knobs (rules, the gate's limits): type, choices,
    # bounds and help from the config's declarations; null = the config file's value.
    **knob_params(),
}

with DAG(
    dag_id=DAG_ID,
    description="Daily de-duplication of one crawl day: fingerprint, Bloom, candidates, "
    "cosine, publish, report",
    doc_md=__doc__,
    # A data-interval timetable so that the interval is the crawl day, a calendar day of
    # CRAWLDEDUP_TIMEZONE, and the run fires once the day is over, at SCHEDULE's time of
    # day (a plain cron string gives CronTriggerTimetable in Airflow 3: ds = the firing
    # day, whose crawl is still being written). CrawlDayTimetable (registered by
    # plugins/crawldedup_plugin.py) also names the day in run ids and infers manual runs'
    # intervals: the form's default is yesterday at any hour (see its module).
    schedule=CrawlDayTimetable(SCHEDULE, timezone=TIMEZONE, scheduled_runs=SCHEDULED_RUNS),
    start_date=datetime(2026, 1, 1, tzinfo=UTC),
    catchup=CATCHUP,
    max_active_runs=1,
    params=PARAMS,
    # The Spark stages' application_args are one list-valued macro call.
    render_template_as_native_obj=True,
    user_defined_macros={"day_args": day_args, "spark_conf": spark_conf},
    tags=["crawldedup", "dedup", "spark"],
    default_args={
        "owner": OWNER,
        # Not depends_on_past: Airflow then rejects the UI's default backfill choice
        # ("Missing Runs"). The sensor orders the days (see "Days run in order").
        "depends_on_past": False,
        "retries": RETRIES,
        "retry_delay": RETRY_DELAY,
        "retry_exponential_backoff": 2.0,
        "max_retry_delay": timedelta(minutes=30),
    },
) as dag:
    wait_for_crawl = CrawlDaySensor(
        task_id=SENSOR_TASK_ID,
        mode="reschedule",  # frees the worker slot between pokes
        poke_interval=SENSOR_POKE,
        timeout=SENSOR_TIMEOUT,
        doc_md="Resolves the crawl day (refuses a run without one), checks the path params "
        "against the allowed roots and refuses a store URL the deployment does not allow "
        "(fails at once, naming the param), waits while the previous "
        "run is queued or running (fails if it failed) and until the crawl folder "
        "`{input_root}/dt=D/` is ready (`wait_for`: a `_SUCCESS` marker or any data file), "
        "refuses the day when the day before has a crawl but is not published "
        "(`require_previous_day`); then puts the day, the checked paths and the store URL "
        "into its XCom, which every later task reads instead of the params.",
    )

    dedup = DedupApplication(
        task_id="dedup",
        conn_id="spark_default",
        application=str(JOBS_DIR / "day.py"),
        application_args=DAY_ARGS_TEMPLATE,
        name="crawldedup-day",
        conf=SPARK_CONF_TEMPLATE,
        py_files=PY_FILES,
        execution_timeout=timedelta(hours=4),
        doc_md="One Spark application runs the day's Spark stages in order, each after "
        "what it reads (`crawldedup.stage_registry.spark_stages`): "
        + " ".join(f"**{s.name}**: {s.doc}" for s in STAGES if s.spark)
        + " A retry resumes after the stages this run finished (their stats carry the "
        "run); the log names the stage that failed and why in its last line.",
    )

    @task(
        task_id="commit",
        outlets=[VERDICTS],
        # One XCom (the parameters), not one per key.
        multiple_outputs=False,
        execution_timeout=timedelta(minutes=30),
        doc_md=stage("commit").doc + " Runs `crawldedup stage commit` with the run's day "
        "arguments (the sensor's `stage_args`). Emits an event of the `crawldedup_verdicts` "
        "Asset, for DAGs scheduled on the day's verdicts; skipped in a dry run (nothing was "
        "published, no event).",
    )
    def commit(**context: Any) -> dict[str, Any]:
        from crawldedup_airflow.tasks import commit_day

        log_crawl_day(context, logging.getLogger(__name__))
        params = commit_day(context, sensor_task_id=SENSOR_TASK_ID)  # type: ignore[arg-type]
        if not params:  # a dry run: no downstream DAG must act on it
            from airflow.sdk.exceptions import AirflowSkipException

            raise AirflowSkipException("dry run: nothing published, nothing to commit")
        run = context["ti"].xcom_pull(task_ids=SENSOR_TASK_ID) or {}
        context["outlet_events"][VERDICTS].extra = {
            "crawl_date": run.get("crawl_date"),
            "home": run.get("home"),
            "store": run.get("store"),
            "published_with": params,
        }
        return params

    @task(
        task_id="report",
        # One XCom (the counts dict), not one per key as a dict annotation would infer.
        multiple_outputs=False,
        # Also after a dry run's skipped commit.
        trigger_rule="none_failed",
        execution_timeout=timedelta(minutes=30),
        doc_md="Runs `crawldedup stage report` with the run's day arguments (no Spark): writes "
        "`work/dt=D/report.json` and the store's `days` row, with the parameters the day was "
        "committed with (read from the store, never this run's conf), pushes the day's "
        "counts to XCom "
        "(`counts`, and the return value), then applies the data-quality gate: fails with "
        "the reason when the day had no input documents, when the quarantined share is above "
        "`max_quarantined_share`, or when the duplicate rate is further than "
        "`duplicate_rate_tolerance` from the average of the previous `trailing_days` reports. "
        "The counts name the run that published the day (`published_by`); when another run "
        "published it last (a report task cleared alone), the log says whose it is. The "
        "task's Details tab links the day's HTML page (**Day report**, under Extra Links).",
    )
    def report(**context: Any) -> dict[str, Any]:
        from crawldedup_airflow.tasks import report_and_gate

        log_crawl_day(context, logging.getLogger(__name__))
        return report_and_gate(context, sensor_task_id=SENSOR_TASK_ID)  # type: ignore[arg-type]

    @task(
        task_id="relevance",
        multiple_outputs=False,
        execution_timeout=timedelta(minutes=10),
        doc_md="The relevance stage's outcome (it ran in `dedup`, right after fingerprint): "
        "its counts; fails with the stage's error, after the day is committed and "
        "reported, when it failed; skipped without a topic library.",
    )
    def relevance(**context: Any) -> dict[str, Any]:
        from crawldedup_airflow.tasks import relevance_outcome

        log_crawl_day(context, logging.getLogger(__name__))
        return relevance_outcome(context, sensor_task_id=SENSOR_TASK_ID)  # type: ignore[arg-type]

    reported = report()
    # The day's HTML page, opened from the task in the UI ("Day report"): Airflow 3 takes
    # an operator's links when the task ends; @task has no argument for them.
    reported.operator.operator_extra_links = (DayReportLink(),)  # type: ignore[attr-defined]
    wait_for_crawl >> dedup >> commit() >> reported >> relevance()
