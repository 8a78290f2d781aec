"""The Python tasks of a day: commit it (the verdicts' Asset event), report it (write the
report, push its counts, apply the data-quality gate), and whether an optional stage's task runs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import AirflowFailException

from crawldedup.gate import day_counts, gate_failures, trailing_reports
from crawldedup_airflow.day import RunSetupError, run_config
from crawldedup_airflow.hooks import HBaseHook

if TYPE_CHECKING:
    from airflow.sdk import Context

    from crawldedup.pipeline.context import DayContext

log = logging.getLogger(__name__)


def _day_context(context: Context, sensor_task_id: str) -> DayContext:
    """The run's day as the stages see it: the sensor's checked paths, the run's config."""
    ti, params = context["ti"], context["params"]
    run = ti.xcom_pull(task_ids=sensor_task_id)
    if not run:
        raise AirflowFailException(f"no resolved run in the XCom of {sensor_task_id}")
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


def task_runs(context: Context, task_id: str, sensor_task_id: str = "wait_for_crawl") -> bool:
    """Whether the DAG task ``task_id`` runs its optional stage under the run's configuration
    (the config file and the params, as its tasks will see them): whether ``crawldedup run``
    runs the stage at this task's place (``stage_registry.dag_task_runs``)."""
    from crawldedup.stage_registry import dag_task_runs

    cfg = _day_context(context, sensor_task_id).cfg
    on = dag_task_runs(task_id, cfg)
    log.info("%s %s under the run's configuration", task_id, "runs" if on else "is skipped")
    return on


def commit_day(context: Context, sensor_task_id: str = "wait_for_crawl") -> dict[str, Any]:
    """Run the commit stage for the run's day: store the parameters it was published with
    and remove its incomplete mark. Returns those parameters (the task's XCom)."""
    from crawldedup.pipeline import commit_stage

    ctx = _day_context(context, sensor_task_id)
    stats = commit_stage.run(None, ctx)
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
    from crawldedup.pipeline import report_stage

    ti = context["ti"]
    ctx = _day_context(context, sensor_task_id)
    cfg = ctx.cfg
    report = report_stage.run(None, ctx)

    limits = cfg.gate
    with HBaseHook.open_url(ctx.store) as store:
        history = trailing_reports(store, ctx.day, limits.trailing_days)
    counts = day_counts(report, history)
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

    if not ctx.dry_run:
        # The day's HTML page (crawldedup report --html), for people; its path and the
        # command that writes it again end the log.
        from crawldedup.reporting import write_report

        page = write_report(ctx.store, ctx.home, ctx.day, ctx.quarantine_dir)
        ti.xcom_push(key="report_html", value=str(page))
        # A plain path (the UI shows no link; a file:// URL is one more thing to strip), and
        # the command that writes it again from the repository (the quickstart's home is
        # not the CLI's default one); --store only when the store is not home's own.
        import shlex

        from crawldedup_airflow.stores import embedded_store_url

        again = ["crawldedup", "report", "--date", ctx.day, "--html", "--home", str(ctx.home)]
        if ctx.store != embedded_store_url(ctx.home):
            again += ["--store", ctx.store]
        log.info("HTML report: %s", page)
        log.info("to write it again: %s", shlex.join(again))
    failures = gate_failures(report, history, limits)
    if failures:
        message = "data-quality gate failed: " + "; ".join(failures)
        log.error(message)
        raise AirflowFailException(message)
    return counts
