"""
### crawl_dedup_daily: de-duplicate one crawl day, stage by stage

Every page the crawler landed on a day is judged **unique** or **duplicate** of the earliest
copy seen on that day or any earlier day, and grouped under it (see the project README).

`wait_for_crawl` → `fingerprint` → `bloom` → `candidates` → `similarity` → `publish` → `report`

Topic relevance (seed 003) branches off after `fingerprint`: `relevance_enabled` →
`relevance`, in parallel with the dedup chain. With an empty `topics_library` param both
are skipped; otherwise `relevance` scores the day's pages against the library's topics and
writes the ranked crawl frontier (`crawldedup relevance --date D --topic T` prints it).

The five Spark stages are `spark-submit jobs/<stage>.py` through the `spark_default`
connection (master `local[*]` by default); `report` runs in Python and applies the
data-quality gate. Intermediates live in `{home}/work/dt={day}/`.

**On a Spark cluster** only the `spark_default` connection changes (conn type `spark`, host
`spark://MASTER`, port 7077). Set `CRAWLDEDUP_PY_FILES` to the project zip
(`scripts/build_dist.sh`) so that executors import the project from it (`--py-files`); the
executors' python (`PYSPARK_PYTHON`) needs the project's dependencies, and `home` must be
a path every node sees (a shared file system). See the README, "Running on a Spark cluster".

**Which day.** A scheduled run covers the data interval that starts on the crawl day at the
cron time: the run of logical date `D` fires at the next cron tick (by default `D+1` 03:00
UTC) and processes `{input_root}/dt=D/` (`{{ ds }}`). A run triggered without a logical
date needs the `crawl_date` param.

**Days run in order**: `max_active_runs=1`, `depends_on_past`, and `wait_for_crawl` waits
until the previous run (by logical date) has succeeded, and fails when it failed: a day is
judged against every earlier day's published results. To skip a broken day, mark its run
successful; to redo it, clear it and every later run.

**Which store.** The `store` param if given; else the `hbase_default` connection
(`HBaseHook`: host, port, extra `table_prefix`, `timeout_ms`, `retries`, `batch_size`,
`transport`, `protocol`); else the embedded SQLite store `{home}/store.db`. Resolved at run
time by `wait_for_crawl`, never while parsing.

**Backfill** (the DAG must be unpaused; logical dates are at 03:00, so end the window at or
after the last day's 03:00; `depends_on_past` requires a reprocess behavior):

    airflow dags unpause crawl_dedup_daily
    airflow backfill create --dag-id crawl_dedup_daily --from-date 2026-11-01 \\
        --to-date 2026-11-03T03:00:00 --reprocess-behavior completed --max-active-runs 1

**Rerun a day with other parameters** (replaces that day's verdicts only; later days are not
recomputed):

    airflow dags trigger crawl_dedup_daily -l 2026-11-01T12:00:00 -c '{"threshold": 0.85}'
    airflow dags trigger crawl_dedup_daily -c '{"crawl_date": "2026-11-01", "dry_run": true}'

**Params**: `threshold`, `rules`, `dry_run` (computes verdicts, writes nothing to the store),
`force_bloom_rebuild` (no effect today: the `bloom` stage always rebuilds the filters from
the index tables), `input_root`, `home`, `store`, `wait_for`, and the gate's
`max_quarantined_share`, `duplicate_rate_tolerance`, `trailing_days`. `topics_library`: the
semantic library of the relevance stage (above).

Deployment knobs (environment of the DAG processor and workers): `CRAWLDEDUP_SCHEDULE`
(cron, default `0 3 * * *`), `CRAWLDEDUP_CATCHUP`, `CRAWLDEDUP_INPUT_ROOT` and
`CRAWLDEDUP_HOME` (param defaults), `CRAWLDEDUP_JOBS_DIR`, `CRAWLDEDUP_OWNER`,
`CRAWLDEDUP_RETRIES`, `CRAWLDEDUP_RETRY_DELAY_S`, `CRAWLDEDUP_SENSOR_POKE_S`,
`CRAWLDEDUP_SENSOR_TIMEOUT_H`, `CRAWLDEDUP_SPARK_DRIVER_MEMORY`, `CRAWLDEDUP_PY_FILES`
(comma-separated `--py-files` of every Spark stage, e.g. the project zip; empty: none),
`CRAWLDEDUP_TOPICS_LIBRARY` (the `topics_library` default).
"""

from __future__ import annotations

import importlib.util
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk import DAG, CronDataIntervalTimetable, Param, chain, task

from crawldedup_airflow.day import RELEVANCE_STAGE, RULES, SPARK_STAGES, WAIT_FOR, stage_args
from crawldedup_airflow.sensors import CrawlDaySensor

# Deployment settings come from the environment: cheap to read while parsing, unlike
# Variables (a metadata DB or secrets backend call on every parse).
_ENV = os.environ
REPO = Path(__file__).resolve().parents[1]
JOBS_DIR = Path(_ENV.get("CRAWLDEDUP_JOBS_DIR") or REPO / "jobs")
SCHEDULE = _ENV.get("CRAWLDEDUP_SCHEDULE", "0 3 * * *")
CATCHUP = _ENV.get("CRAWLDEDUP_CATCHUP", "false").lower() in ("1", "true", "yes")
OWNER = _ENV.get("CRAWLDEDUP_OWNER", "crawldedup")
RETRIES = int(_ENV.get("CRAWLDEDUP_RETRIES", "2"))
RETRY_DELAY = timedelta(seconds=float(_ENV.get("CRAWLDEDUP_RETRY_DELAY_S", "60")))
SENSOR_POKE = timedelta(seconds=float(_ENV.get("CRAWLDEDUP_SENSOR_POKE_S", "300")))
SENSOR_TIMEOUT = timedelta(hours=float(_ENV.get("CRAWLDEDUP_SENSOR_TIMEOUT_H", "12")))
DRIVER_MEMORY = _ENV.get("CRAWLDEDUP_SPARK_DRIVER_MEMORY", "2g")
# The project zip shipped to executors: harmless on local[*], needed on a cluster whose
# nodes do not have the project installed.
PY_FILES = _ENV.get("CRAWLDEDUP_PY_FILES", "") or None
SENSOR_TASK_ID = "wait_for_crawl"


def _spark_conf() -> dict[str, str]:
    """Quiet driver logs: the pipeline's log4j2 file, given before the driver JVM starts.

    (The session builder sets it too, but under spark-submit the driver already runs.)
    find_spec locates the package without importing it.
    """
    spec = importlib.util.find_spec("crawldedup")
    if spec is None or spec.origin is None:
        return {}
    log4j = Path(spec.origin).parent / "pipeline" / "log4j2.properties"
    if not log4j.is_file():
        return {}
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log4j}"}


def _stage_args_template(stage: str) -> Any:
    """Jinja that renders to the stage's argument list (the DAG renders native objects).

    Typed Any: the operator's signature wants the rendered list, not its template.
    """
    return f"{{{{ stage_args('{stage}', params, ti.xcom_pull(task_ids='{SENSOR_TASK_ID}')) }}}}"


PARAMS = {
    "crawl_date": Param(
        "",
        type="string",
        pattern=r"^(\d{4}-\d{2}-\d{2})?$",
        title="Crawl date",
        description="YYYY-MM-DD. Empty: the run's logical date ({{ ds }}). Needed when the "
        "run is triggered without a logical date.",
        section="Day",
    ),
    "threshold": Param(
        0.9,
        type="number",
        exclusiveMinimum=0,
        maximum=1,
        title="Similarity threshold",
        description="Cosine must be strictly greater (cascade.threshold).",
        section="Cascade",
    ),
    "rules": Param(
        list(RULES),
        type="array",
        examples=list(RULES),
        items={"type": "string", "enum": list(RULES)},
        minItems=1,
        uniqueItems=True,
        title="Rules",
        description="The cascade's tests (cascade.rules), applied in the order "
        f"{', '.join(RULES)}.",
        section="Cascade",
    ),
    "dry_run": Param(
        False,
        type="boolean",
        title="Dry run",
        description="Compute verdicts and the report, write nothing to the store.",
        section="Cascade",
    ),
    "force_bloom_rebuild": Param(
        False,
        type="boolean",
        title="Force Bloom rebuild",
        description="No effect today: the bloom stage always rebuilds the filters from the "
        "index tables.",
        section="Cascade",
    ),
    "input_root": Param(
        _ENV.get("CRAWLDEDUP_INPUT_ROOT", "/data/crawl"),
        type="string",
        minLength=1,
        title="Input root",
        description="The crawler's folder; the day is {input_root}/dt=YYYY-MM-DD/.",
        section="Locations",
    ),
    "home": Param(
        _ENV.get("CRAWLDEDUP_HOME", "/data/crawldedup"),
        type="string",
        minLength=1,
        title="Home",
        description="Work files (work/dt=D/), quarantine and the embedded store.",
        section="Locations",
    ),
    "store": Param(
        "",
        type="string",
        title="Store URL",
        description="sqlite:///abs/path.db or hbase://host:port/prefix?... Empty: the "
        "hbase_default connection if defined, else the embedded store under home.",
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
        _ENV.get("CRAWLDEDUP_TOPICS_LIBRARY", ""),
        type="string",
        title="Topic library",
        description="Semantic library (YAML) on the workers for the relevance stage "
        "(relevance.library). Empty: relevance is skipped.",
        section="Relevance",
    ),
    "max_quarantined_share": Param(
        0.10,
        type="number",
        minimum=0,
        maximum=1,
        title="Max quarantined share",
        description="The gate fails the day above this share of quarantined records.",
        section="Quality gate",
    ),
    "duplicate_rate_tolerance": Param(
        0.25,
        type="number",
        minimum=0,
        maximum=1,
        title="Duplicate-rate tolerance",
        description="The gate fails the day when its duplicate rate is further than this "
        "(absolute) from the trailing average.",
        section="Quality gate",
    ),
    "trailing_days": Param(
        7,
        type="integer",
        minimum=1,
        maximum=366,
        title="Trailing days",
        description="How many earlier days' reports make the trailing average.",
        section="Quality gate",
    ),
}

STAGE_DOCS = {
    "fingerprint": "Reads `dt=D/` (JSON Lines, Parquet, WARC), quarantines bad records, "
    "normalizes and computes the four md5 keys, SimHash and term vectors → `work/dt=D/docs`.",
    "bloom": "Rebuilds the Bloom filters from the store's index tables (key-only scans); "
    "`force_bloom_rebuild` changes nothing, this always happens.",
    "candidates": "Probes the filters, multi-gets the index rows of earlier days and joins "
    "same-day keys → candidate pairs per rule.",
    "similarity": "Cosine per candidate pair on the executors; the cascade picks each "
    f"document's verdict (rules in the order {' → '.join(RULES)}; cosine strictly above "
    "`threshold`).",
    "publish": "Writes verdicts, groups, document rows and capped postings; replaces the "
    "day's earlier results. Writes nothing with `dry_run`.",
    RELEVANCE_STAGE: "Scores every page of the day against the `topics_library` topics "
    "(tag-weighted TF-IDF and the semantic library, seed 003), updates the document "
    "frequencies, writes scores and the ranked crawl frontier (store and Parquet).",
}

with DAG(
    dag_id="crawl_dedup_daily",
    description="Daily de-duplication of one crawl day: fingerprint, Bloom, candidates, "
    "cosine, publish, report",
    doc_md=__doc__,
    # A data-interval timetable so that {{ ds }} is the crawl day and the run fires once the
    # day is over (a plain cron string gives CronTriggerTimetable in Airflow 3: ds = the
    # firing day, whose crawl is still being written).
    schedule=CronDataIntervalTimetable(SCHEDULE, timezone="UTC"),
    start_date=datetime(2026, 1, 1, tzinfo=UTC),
    catchup=CATCHUP,
    max_active_runs=1,
    params=PARAMS,
    # The Spark stages' application_args are one list-valued macro call.
    render_template_as_native_obj=True,
    user_defined_macros={"stage_args": stage_args},
    tags=["crawldedup", "dedup", "spark"],
    default_args={
        "owner": OWNER,
        "depends_on_past": True,
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
        doc_md="Waits until the previous run has succeeded (fails if it failed) and the "
        "crawl folder `{input_root}/dt=D/` is ready (`wait_for`: a `_SUCCESS` marker or any "
        "data file); then resolves the day, home and store URL into its XCom.",
    )

    def spark_stage(stage: str) -> SparkSubmitOperator:
        return SparkSubmitOperator(
            task_id=stage,
            conn_id="spark_default",
            application=str(JOBS_DIR / f"{stage}.py"),
            # A template that renders (natively) to the list --date D --home H --store URL
            # --set ... [--input DIR] [--dry-run]: a flag that is there or not cannot be one
            # element of a fixed-length list of string templates.
            application_args=_stage_args_template(stage),
            name=f"crawldedup-{stage}",
            conf=_spark_conf(),
            py_files=PY_FILES,
            driver_memory=DRIVER_MEMORY,
            execution_timeout=timedelta(hours=4),
            doc_md=STAGE_DOCS[stage],
        )

    stages = [spark_stage(stage) for stage in SPARK_STAGES]

    @task.short_circuit(
        task_id="relevance_enabled",
        doc_md="Skips the relevance stage (cleanly: state skipped) when the `topics_library` "
        "param is empty.",
    )
    def relevance_enabled(**context: Any) -> bool:
        return bool(context["params"].get("topics_library"))

    stages[0] >> relevance_enabled() >> spark_stage(RELEVANCE_STAGE)

    @task(
        task_id="report",
        # One XCom (the counts dict), not one per key as a dict annotation would infer.
        multiple_outputs=False,
        execution_timeout=timedelta(minutes=30),
        doc_md="Runs the report stage in Python (no Spark needed): writes "
        "`work/dt=D/report.json` and the store's `days` row, pushes the day's counts to XCom "
        "(`counts`, and the return value), then applies the data-quality gate: fails with "
        "the reason when the day had no input documents, when the quarantined share is above "
        "`max_quarantined_share`, or when the duplicate rate is further than "
        "`duplicate_rate_tolerance` from the average of the previous `trailing_days` reports.",
    )
    def report(**context: Any) -> dict[str, Any]:
        from crawldedup_airflow.tasks import report_and_gate

        return report_and_gate(context, sensor_task_id=SENSOR_TASK_ID)  # type: ignore[arg-type]

    chain(wait_for_crawl, *stages, report())
