"""The Python tasks of a day, each through the one runner (``run_stages``): commit it (the
verdicts' Asset event), report it (write the report, push its counts, apply the
data-quality gate), and the relevance stage's outcome; and what the dedup task's
application did, per stage."""

from __future__ import annotations

import logging
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import AirflowFailException

from crawldedup_airflow.day import RunSetupError, published_by_check, run_config, run_token

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


def _token(context: Context, run: dict[str, Any]) -> str:
    """This DAG run's token (the one its dedup application and commit carry)."""
    return run_token(str(context["run_id"]), run)


def _run(stage: str, ctx: DayContext) -> dict[str, Any]:
    """One stage without Spark, through the one runner (its checks and its gate)."""
    from crawldedup.pipeline.stages import StageFailed, run_stages

    try:
        return run_stages(None, ctx, (stage,), progress=log.info)
    except StageFailed as exc:
        raise AirflowFailException(str(exc)) from exc


def commit_day(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """Run the commit stage for the run's day: store the parameters it was published with
    and remove its incomplete mark. Returns those parameters (the task's XCom)."""
    from dataclasses import replace

    # The commit records which run published the day (the report tasks check it).
    run = _resolved_run(context, sensor_task_id)
    ctx = replace(_day_context(context, run), run_id=_token(context, run))
    stats = _run("commit", ctx)
    if ctx.dry_run:
        log.info("%s: dry run, nothing to commit", ctx.day)
        return {}
    params: dict[str, Any] = stats["published_with"]
    log.info("%s committed: %s", ctx.day, params)
    return params


def report_and_gate(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """Run the report stage for the run's day, push ``counts`` to XCom, then gate the day.

    The report stage needs no Spark (it sums the stages' ``stats/*.json``), so it runs
    here, in-process, instead of paying a spark-submit JVM start: it writes
    ``H/work/dt=D/report.json`` and, unless dry-run, the store's ``days`` row. The
    trailing average is over the previous ``trailing_days`` reports in the store.

    Returns the counts (also the task's return value); raises ``AirflowFailException``
    (no retries: the data will not change) with every reason the day fails the gate.
    """
    ti = context["ti"]
    run = _resolved_run(context, sensor_task_id)
    ctx = _day_context(context, run)
    report = _run("report", ctx)
    # The report shows what the day was committed with (config); a report task cleared
    # alone after another run published the day again says whose parameters those are.
    other = (
        None
        if ctx.dry_run
        else published_by_check(ctx.day, report.get("config"), _token(context, run))
    )
    if other:
        log.warning("%s", other)
    counts: dict[str, Any] = report["counts"]
    # Pushed before the gate, so that a failed day still shows its numbers.
    ti.xcom_push(key="counts", value=counts)
    log.info(
        "%s: %d documents, %d unique, %d duplicates %s, %d quarantined; duplicate rate %s "
        "(trailing %s over %d day(s))%s",
        ctx.day,
        counts["documents"],
        counts["unique"],
        counts["duplicates_total"],
        counts["duplicates"],
        counts["quarantined_total"],
        counts["duplicate_rate"],
        counts["trailing_duplicate_rate"],
        counts["trailing_days"],
        " [dry run: nothing written]" if ctx.dry_run else "",
    )

    page = ctx.read_stats("report").get("html")
    if page:  # the day's HTML page (the report stage wrote it; not in a dry run)
        ti.xcom_push(key="report_html", value=page)
        log.info("HTML report: %s", page)
        log.info("to write it again: %s", shlex.join(_report_command(ctx)))
    failures = report["gate_failures"]  # the runner's gate: the CLI's exit 3
    if failures:
        message = "data-quality gate failed: " + "; ".join(failures)
        log.error(message)
        raise AirflowFailException(message)
    return counts


def _report_command(ctx: DayContext) -> list[str]:
    """The command that writes the day's page again from the repository (the quickstart's
    home is not the CLI's default one); --store only when the store is not home's own."""
    from crawldedup_airflow.stores import embedded_store_url

    again = ["crawldedup", "report", "--date", ctx.day, "--html", "--home", str(ctx.home)]
    if ctx.store != embedded_store_url(ctx.home):
        again += ["--store", ctx.store]
    return again


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
