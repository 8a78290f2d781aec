"""The stages' runners, and :func:`run_stages`: the one runner of a day's stages, behind
``crawldedup run``, ``crawldedup stage``, ``jobs/day.py``, the submit helper and every
task of the DAG."""

from __future__ import annotations

import importlib
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.code_version import code_version
from crawldedup.day_state import RerunRefused, earlier_incomplete, incomplete_days
from crawldedup.gate import day_counts, gate_failures, trailing_reports
from crawldedup.pipeline.context import DayContext
from crawldedup.stage_registry import NAMES, Stage, deferred_stages, plan, upstream
from crawldedup.stage_registry import stage as registry_stage
from crawldedup.store import open_store

StageFn = Callable[[SparkSession, DayContext], dict[str, Any]]


@dataclass(frozen=True)
class StageUnit:
    """A stage as the runner runs it: its declaration (what it reads and writes,
    ``crawldedup.stage_registry``), and from its module its runner, its progress line and
    its result on a day with nothing to judge."""

    declared: Stage
    run: StageFn
    summary: Callable[[dict[str, Any]], str]
    empty_day: dict[str, Any] | None


@cache
def unit(name: str) -> StageUnit:
    """Stage ``name`` bound to its module, ``crawldedup.pipeline.<name>_stage``, imported
    the first time it is asked for: ``crawldedup stage report`` (the DAG's report task)
    loads neither pandas nor the Spark stages' modules."""
    module = importlib.import_module(f"crawldedup.pipeline.{name}_stage")
    return StageUnit(registry_stage(name), module.run, module.summary, module.EMPTY_DAY)


def all_units() -> dict[str, StageUnit]:
    """Every stage, in the registry's order (``crawldedup.stage_registry.NAMES``)."""
    return {name: unit(name) for name in NAMES}


_PY_ERROR = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exists|Failed|Interrupt)): (.*)$")


def root_cause(exc: BaseException) -> str:
    """One line naming the real error, also when it comes back from a Python worker.

    A failed Spark task surfaces as a PythonException whose first line says nothing;
    the worker's own exception is the last ``Name: message`` line of its traceback.
    """
    text = str(exc)
    found = [m for m in (_PY_ERROR.match(line) for line in text.splitlines()) if m]
    found = [m for m in found if not m.group(1).startswith(("org.", "java.", "py4j."))]
    if found:
        name, message = found[-1].groups()
        return f"{name.rsplit('.', 1)[-1]}: {message.strip()}"
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"{type(exc).__name__}: {first}"


class StageFailed(RuntimeError):
    def __init__(self, stage: str, cause: BaseException, note: str = "") -> None:
        super().__init__(f"stage {stage} failed: {root_cause(cause)}{note}")
        self.stage = stage


def summarize(stage: str, stats: dict[str, Any]) -> str:
    """One progress line of counts for a finished stage."""
    if "failed" in stats:
        return f"failed: {stats['failed']}"
    return unit(stage).summary(stats)


def preflight(ctx: DayContext, stages: tuple[str, ...]) -> None:
    """What fails the whole run, checked before Spark starts and works for minutes.

    The store is opened and read once (this also creates the tables once, instead of
    executors racing to do it); a day before this one that is marked incomplete stops it
    (``crawldedup.day_state``). A day that reads input needs HTML extraction to work: an
    install without lxml_html_clean fails here in one line, not on every HTML record.
    """
    judges = any(registry_stage(name).spark for name in stages)
    try:
        with open_store(ctx.store) as store:
            store.get("days", [ctx.day])
            earlier = incomplete_days(store, before=ctx.day) if judges else []
            notes = store.setup_notes()
    except Exception as exc:
        raise StageFailed("open-store", exc) from exc
    for note in notes:
        _tell_once(f"warning: {note}")
    if earlier:
        raise earlier_incomplete(earlier)
    if any(registry_stage(name).reads_input for name in stages):
        from crawldedup.ingest.records import html_extractor

        try:
            html_extractor(ctx.cfg.extract.engine)
        except ImportError as exc:
            raise StageFailed(stages[0], exc) from exc


_told: set[str] = set()


def _tell_once(line: str) -> None:
    """A warning on stderr, once per process (a run passes the preflight twice)."""
    if line not in _told:
        _told.add(line)
        print(line, file=sys.stderr, flush=True)


def stale_earlier_stages(ctx: DayContext, stages: tuple[str, ...]) -> list[str]:
    """The stages whose outputs ``stages[0]`` reads (directly or through others) that
    carry another code stamp than this code's."""
    if not stages or stages[0] not in plan(ctx.cfg):
        return []
    current = code_version()
    earlier = upstream(stages[0], ctx.cfg)
    return [s for s in earlier if (st := ctx.read_stats(s)) and st.get("code") != current]


def nothing_to_judge(ctx: DayContext) -> bool:
    """The day has no document (none read, or all quarantined), the store holds nothing of
    it (never published, nothing half-written) and no delete list is asked for: the stages
    after fingerprint have no input and nothing to replace."""
    if ctx.cfg.output.delete_list or ctx.read_stats("fingerprint").get("documents") != 0:
        return False
    with open_store(ctx.store) as store:
        return not store.get("days", [ctx.day]).get(ctx.day)


class StaleEarlierStages(RuntimeError):
    """A stage run on its own finds the day's earlier work written by other code."""


def finished_by_this_run(ctx: DayContext, stages: tuple[str, ...]) -> tuple[str, ...]:
    """The leading stages of ``stages`` that this run (``ctx.run_id``) already finished
    with this code: a retry resumes after them. None without a run id."""
    if not ctx.run_id:
        return ()
    current = code_version()
    done: list[str] = []
    for name in stages:
        st = ctx.read_stats(name)
        if st.get("run") != ctx.run_id or st.get("code") != current or "failed" in st:
            break
        done.append(name)
    return tuple(done)


def deferred_failure(ctx: DayContext) -> StageFailed | None:
    """The failure a deferred stage of the day recorded (the DAG's relevance task raises
    it after the report; ``run_stages`` raises it itself when it ran the stage)."""
    for name in deferred_stages(plan(ctx.cfg), ctx.cfg):
        failed = ctx.read_stats(name).get("failed")
        if failed:
            done = "reported (dry run)" if ctx.dry_run else "committed and reported"
            return StageFailed(name, RuntimeError(failed), f" ({ctx.day} is {done})")
    return None


def gate(ctx: DayContext, report: dict[str, Any]) -> dict[str, Any]:
    """The reported day's counts against the trailing days (``counts``, what the DAG's
    report task pushes) and why it fails the data-quality gate (``gate_failures``,
    ``[gate]``, crawldedup.gate): the same rules and sentences for every road."""
    with open_store(ctx.store) as store:
        history = trailing_reports(store, ctx.day, ctx.cfg.gate.trailing_days)
    return {
        "counts": day_counts(report, history),
        "gate_failures": gate_failures(report, history, ctx.cfg.gate),
    }


def run_stages(
    spark: SparkSession | None,
    ctx: DayContext,
    stages: tuple[str, ...] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run ``stages`` (default: the day's ``plan``) of one day in order: the one runner of
    ``crawldedup run``, ``crawldedup stage``, ``jobs/day.py`` and every DAG task.

    Checked once, first: the stale-output check (a stage run on its own whose day's
    earlier stages were run by other code fails with one line saying how to rerun the
    day) and the preflight. With ``ctx.run_id``, the leading stages this run already
    finished are skipped (a retry resumes). A deferred stage's failure is recorded in its
    stats and raised after the report. When the report ran, the returned report carries
    ``counts`` and ``gate_failures``: why the day fails the data-quality gate (empty when
    it passes).
    Returns the report when the report stage ran, else the last stage's result.
    """
    stages = plan(ctx.cfg) if stages is None else stages
    stale = stale_earlier_stages(ctx, stages)
    if stale:
        raise StageFailed(
            stages[0],
            StaleEarlierStages(
                f"the day's {', '.join(stale)} output was written by other code than "
                f"{code_version()}: rerun the whole day (crawldedup run --date {ctx.day} "
                "..., or clear the DAG run from its first task)"
            ),
        )
    preflight(ctx, stages)
    done = finished_by_this_run(ctx, stages)
    if done and progress is not None:
        progress(f"[{ctx.day}] resuming run {ctx.run_id} after {', '.join(done)}")
    deferred = deferred_stages(plan(ctx.cfg), ctx.cfg)
    result: dict[str, Any] = {}
    report: dict[str, Any] | None = None
    failed_here: StageFailed | None = None
    empty: bool | None = None  # whether the day has nothing to judge, once fingerprinted
    for i, stage in enumerate(stages, start=1):
        if stage in done:
            continue
        t0 = time.perf_counter()
        if spark is not None:  # names the stage's Spark jobs in the UI and event log
            spark.sparkContext.setJobGroup(stage, f"crawldedup {stage} {ctx.day}")
        try:
            one = unit(stage)
            if one.empty_day is not None and empty is None:
                empty = nothing_to_judge(ctx)
            if one.empty_day is not None and empty:
                result = {**one.empty_day, "seconds": 0.0, "nothing_to_judge": True}
                ctx.write_stats(stage, result)
            else:
                # The runner opens only the work folders its stage declares.
                result = one.run(spark, replace(ctx, stage=stage))  # type: ignore[arg-type]
        except RerunRefused:
            raise  # a refusal, not a failure: the CLI exits 2 with its one line
        except Exception as exc:
            if stage not in deferred:
                raise StageFailed(stage, exc) from exc
            # The day's verdicts do not need it: recorded, raised after the report.
            result = {"failed": root_cause(exc), "seconds": round(time.perf_counter() - t0, 3)}
            ctx.write_stats(stage, result)
            failed_here = StageFailed(stage, exc)
        if stage == "report":
            report = {**result, **gate(ctx, result)}
        if progress is not None:
            line = summarize(stage, result)
            took = time.perf_counter() - t0
            progress(f"[{ctx.day}] {i}/{len(stages)} {stage:<11} {took:6.1f}s  {line}")
    if failed_here is not None and report is not None:
        raise deferred_failure(ctx) or failed_here
    if failed_here is not None and progress is not None:  # raised by a later task
        progress(f"[{ctx.day}] {failed_here} (raised after the day is reported)")
    return result if report is None else report
