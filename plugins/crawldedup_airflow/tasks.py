"""The Python tasks of a day: commit it (the verdicts' Asset event) and report it (write
the report, push its counts, apply the data-quality gate), each as the command line
``crawldedup stage NAME`` with the run's day arguments (:mod:`.stage_process`), so through
the one runner, its checks and its gate; the relevance stage's outcome; and what the
dedup task's application did, per stage."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import AirflowFailException

from crawldedup_airflow.day import RunSetupError, run_config
from crawldedup_airflow.stage_process import run_stage

if TYPE_CHECKING:
    from airflow.sdk import Context

    from crawldedup.pipeline.context import DayContext

log = logging.getLogger(__name__)


def _resolved_run(context: Context, sensor_task_id: str) -> dict[str, Any]:
    """What the sensor resolved for the run (its XCom: day, checked paths, store)."""
    run: dict[str, Any] | None = context["ti"].xcom_pull(task_ids=sensor_task_id)
    if not run:
        raise AirflowFailException(f"no resolved run in the XCom of {sensor_task_id}")
    return run


def _day_context(context: Context, run: dict[str, Any]) -> DayContext:
    """The run's day as the stages see it: the sensor's checked paths (``run``, see
    :func:`_resolved_run`), the run's config."""
    params = context["params"]
    # Imported here: the stage modules import pyspark (for its types), which DAG parsing
    # must not pay for; in a task it costs about a second and starts no JVM.
    from crawldedup.pipeline.context import DayContext

    try:
        # The same file and overrides the Spark stages got (day.stage_args).
        cfg = run_config(params, run)
    except RunSetupError as exc:
        raise AirflowFailException(str(exc)) from None
    ctx = DayContext(
        day=run["crawl_date"],
        home=Path(run["home"]),
        cfg=cfg,
        input_dir=Path(run["input"]),
        dry_run=bool(params["dry_run"]),
    )
    ctx.work.mkdir(parents=True, exist_ok=True)
    return ctx


def shipped_submit_settings(
    context: Context,
    conf: dict[str, Any],
    properties_file: str | None,
    hook: Any,
    sensor_task_id: str = "wait_for_crawl",
) -> tuple[str | None, dict[str, Any]]:
    """The dedup task's ``--properties-file`` and ``--conf`` under the Spark configuration
    crawldedup ships (``crawldedup.pipeline.spark.shipped_launch``, which ``crawldedup
    run`` calls too): the shipped file when the worker has no Spark configuration of its
    own, and on a local master (the ``spark_default`` connection's, resolved by the
    provider's ``hook``) the driver's class-archive options beside its log4j option."""
    from crawldedup.pipeline.spark import shipped_launch

    master = str(getattr(hook, "_connection", {}).get("master") or "")
    cfg = run_config(context["params"], _resolved_run(context, sensor_task_id))
    properties, archive_opts = shipped_launch(cfg, master)
    if properties is None or properties_file:  # the deployment's own, or the task's
        return properties_file, conf
    if archive_opts:
        key = "spark.driver.extraJavaOptions"
        conf = {**conf, key: f"{conf.get(key, '')} {archive_opts}".strip()}
    return properties, conf


def dedup_results(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """What the dedup task's application did, per stage (seconds, one line of counts,
    whether a deferred stage failed), from the stages' stats: the task's XCom and the
    end of its log."""
    from crawldedup.pipeline.stages import summarize
    from crawldedup.stage_registry import spark_stages

    ctx = _day_context(context, _resolved_run(context, sensor_task_id))
    out: dict[str, Any] = {}
    for name in spark_stages(ctx.cfg):
        st = ctx.read_stats(name)
        out[name] = {"seconds": st.get("seconds"), "summary": summarize(name, st)}
        if "failed" in st:
            out[name]["failed"] = st["failed"]
        log.info("%s %-11s %6ss  %s", ctx.day, name, st.get("seconds"), out[name]["summary"])
    return out


def _day_args(run: dict[str, Any]) -> dict[str, Any]:
    """The command line's day arguments the sensor resolved (``day.stage_args``)."""
    if "stage_args" not in run:
        raise AirflowFailException(
            "the run resolved by wait_for_crawl has no stage_args (its XCom predates them): "
            "clear wait_for_crawl, and the tasks after it, to resolve the run again"
        )
    args: dict[str, Any] = run["stage_args"]
    return args


def commit_day(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """Run the commit stage for the run's day (``crawldedup stage commit``): store the
    parameters it was published with, and which run published it, and remove its
    incomplete mark. Returns those parameters (the task's XCom); empty in a dry run."""
    args = _day_args(_resolved_run(context, sensor_task_id))
    done = run_stage("commit", args, log)
    done.raise_for_failure("commit")
    if args["dry_run"]:
        log.info("%s: dry run, nothing to commit", args["day"])
        return {}
    params: dict[str, Any] = done.outcome["published_with"]
    log.info("%s committed: %s", args["day"], params)
    return params


def report_and_gate(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """Run the report stage for the run's day as the command line runs it
    (``crawldedup stage report``, no Spark): it writes ``H/work/dt=D/report.json``, the
    day's HTML page and, unless dry-run, the store's ``days`` row, and applies the
    data-quality gate against the previous ``trailing_days`` reports in the store.

    Pushes the day's ``counts`` (and ``report_html``) to XCom, also when the gate fails;
    returns the counts. Fails (no retries: the data will not change) with the command's
    own line, the CLI's exit 3, when the day fails the gate.
    """
    ti = context["ti"]
    done = run_stage("report", _day_args(_resolved_run(context, sensor_task_id)), log)
    counts = done.outcome.get("counts")
    if counts is not None:  # pushed before the gate fails: a failed day shows its numbers
        ti.xcom_push(key="counts", value=counts)
    if done.outcome.get("html"):
        ti.xcom_push(key="report_html", value=done.outcome["html"])
    done.raise_for_failure("report")
    assert counts is not None, "crawldedup stage report --json printed no counts"
    result: dict[str, Any] = counts
    return result


def relevance_outcome(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """The relevance stage's outcome, after the day is committed and reported: the stage
    ran in the dedup task's application (right after fingerprint), where a failure the
    day's verdicts do not depend on was recorded instead of stopping the day. Skipped
    without a library; fails with the stage's one line when it failed."""
    from airflow.sdk.exceptions import AirflowSkipException

    from crawldedup.pipeline.stages import deferred_failure, summarize
    from crawldedup.stage_registry import plan

    ctx = _day_context(context, _resolved_run(context, sensor_task_id))
    if "relevance" not in plan(ctx.cfg):
        raise AirflowSkipException("relevance is off: no relevance.library configured")
    failure = deferred_failure(ctx)
    if failure is not None:
        raise AirflowFailException(str(failure))
    stats = ctx.read_stats("relevance")
    log.info("%s relevance: %s", ctx.day, summarize("relevance", stats))
    return {k: stats[k] for k in ("pages", "topics", "seconds") if k in stats}
