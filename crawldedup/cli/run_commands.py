"""``crawldedup run`` and ``crawldedup stage``: the commands that write a day. They take
the home's run lock, then the store's, start the Spark session and hand the day to the
pipeline's stages."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawldedup.cli.parser import UsageError, _check_input, _context
from crawldedup.config import Config
from crawldedup.run_lock import home_lock
from crawldedup.stage_registry import stage
from crawldedup.store_lock import store_lock

if TYPE_CHECKING:
    from crawldedup.pipeline.context import DayContext


class GateFailed(Exception):
    """The day ran and was published, but failed the data-quality gate: exit 3."""


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cmd_run(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.pipeline.later_days import rerun_with_later_days
    from crawldedup.pipeline.spark import driver_session
    from crawldedup.pipeline.stages import preflight
    from crawldedup.stage_registry import plan

    input_dir = _check_input(args.input, args.date)
    ctx = _context(args, cfg, args.date, input_dir)
    if cfg.relevance.library:
        from crawldedup.relevance.library import load_library

        load_library(cfg.relevance.library)  # a bad library exits 2 before Spark starts
    stages = plan(cfg)
    with home_lock(ctx.home, f"run {ctx.day}"):
        preflight(ctx, stages)  # an unreachable store fails in a second, not after Spark
        # The days' arguments first: a wrong --through is told before any folder is read.
        later = _later_days(ctx, args.cascade_later, args.through)
        if not args.replace:
            _refuse_emptying_a_published_day(ctx, input_dir)
        for following in later if args.through else []:  # --replace is for --date alone
            if following.input_dir is not None:  # following_days gives each its folder
                hint = f"run {following.day} by itself with --replace to do that"
                _refuse_emptying_a_published_day(following, following.input_dir, hint)
        with store_lock(ctx.store, f"run {ctx.day}", progress=_progress):
            _progress(f"[{ctx.day}] starting Spark ({cfg.spark.master}), store {ctx.store}")
            with driver_session(cfg, "crawldedup-run") as spark:
                reports = rerun_with_later_days(spark, ctx, later, _progress, stages)
    failures = []
    for report in reports:
        _print_report_summary(report)
        failures += report.get("gate_failures", [])
    if failures:
        raise GateFailed("; ".join(failures))
    return 0


def _later_days(ctx: DayContext, cascade: bool, through: str | None) -> list[DayContext]:
    """The days run after ``ctx``'s in the same session: the later published ones
    (``--cascade-later``), the following ones through a date (``--through``), or none."""
    from crawldedup.pipeline.later_days import LaterDaysError, following_days, later_days

    if cascade and through:
        raise UsageError("crawldedup: --cascade-later and --through do not go together")
    try:
        if through:
            return following_days(ctx, through)
        return later_days(ctx) if cascade else []
    except LaterDaysError as exc:
        raise UsageError(f"crawldedup: {exc}") from None


def _refuse_emptying_a_published_day(
    ctx: DayContext, input_dir: Path, hint: str = "--replace to do that"
) -> None:
    """A rerun replaces the day: from a folder without data files (a crawl not landed yet,
    a wrong path) it would delete every verdict, document and posting of the day."""
    from crawldedup.ingest.readers import select_input_files
    from crawldedup.store import open_store

    if select_input_files(input_dir).files:
        return
    with open_store(ctx.store) as store:
        published = bool(store.get("days", [ctx.day]).get(ctx.day))
    if published:
        raise UsageError(
            f"crawldedup: {input_dir} has no data files but {ctx.day} is published in "
            f"{ctx.store}; a rerun would remove its verdicts ({hint})"
        )


def _print_report_summary(report: dict[str, Any]) -> None:
    dups = ", ".join(f"{k} {v}" for k, v in sorted(report["duplicates"].items())) or "none"
    q = report["quarantined_total"]
    print(
        f"{report['day']}: {report['documents']} docs, {report['unique']} unique, "
        f"{report['duplicates_total']} duplicates ({dups}), {q} quarantined"
    )


def cmd_stage(args: argparse.Namespace, cfg: Config) -> int:
    """``crawldedup stage NAME...``: some stages of a day, in one Spark session when one
    of them needs Spark (``jobs/day.py`` and the DAG's tasks run this)."""
    from crawldedup.pipeline.spark import driver_session
    from crawldedup.pipeline.stages import preflight, run_stages
    from crawldedup.stage_registry import plan

    names: list[str] = args.names
    if any(stage(n).reads_input for n in names):
        if args.input is None:
            raise UsageError(f"crawldedup: the {names[0]} stage needs --input")
        args.input = _check_input(args.input, args.date)
    if args.rebuild_blocks and names != ["bloom"]:
        raise UsageError("crawldedup: --rebuild-blocks belongs to the bloom stage alone")
    ctx = _context(args, cfg, args.date, args.input)
    order = [n for n in plan(cfg) if n in names]
    if order != names:
        raise UsageError(
            f"crawldedup: stages {names} are not in the day's order under this "
            f"configuration ({list(plan(cfg))}); the configuration runs {order}"
        )
    what = f"stage {' '.join(names)} {ctx.day}"
    if args.rebuild_blocks:
        from crawldedup.pipeline import bloom_stage

        with home_lock(ctx.home, f"bloom rebuild {ctx.day}"):
            preflight(ctx, ("bloom",))
            with (
                store_lock(ctx.store, f"bloom rebuild {ctx.day}", progress=_progress),
                driver_session(cfg, "crawldedup-bloom-rebuild") as spark,
            ):
                stats = bloom_stage.run(spark, ctx, force_scan=True)
        keys = sum(f["keys"] for f in stats["filters"].values())
        _progress(f"[{ctx.day}] Bloom blocks rebuilt from the index tables: {keys} keys")
        return 0
    if not any(stage(n).spark for n in names):
        # Commit and report read counts and write a row: no JVM to start.
        with home_lock(ctx.home, what):
            result = run_stages(None, ctx, tuple(names), _progress)
        return _stage_outcome(args, ctx, names[-1], result)
    with home_lock(ctx.home, what):
        preflight(ctx, tuple(names))
        with (
            store_lock(ctx.store, what, progress=_progress),
            driver_session(cfg, f"crawldedup-{'-'.join(names)}") as spark,
        ):
            result = run_stages(spark, ctx, tuple(names), _progress)
    return _stage_outcome(args, ctx, names[-1], result)


def _stage_outcome(
    args: argparse.Namespace, ctx: DayContext, last: str, result: dict[str, Any]
) -> int:
    """What ``crawldedup stage`` says once its stages ran: for the report, who published
    the day, its counts and where its page is (stderr); with ``--json`` the last stage's
    outcome on stdout (the DAG's tasks push it to XCom), printed before the gate fails."""
    outcome: dict[str, Any] = result
    if last == "report":
        outcome = _report_outcome(args, ctx, result)
    elif last == "commit":
        outcome = {"published_with": result.get("published_with", {})}
    if args.json:
        print(json.dumps(outcome, default=str), flush=True)
    if last == "report" and result.get("gate_failures"):
        raise GateFailed("; ".join(result["gate_failures"]))
    return 0


def _report_outcome(
    args: argparse.Namespace, ctx: DayContext, report: dict[str, Any]
) -> dict[str, Any]:
    from crawldedup.day_state import published_by_other
    from crawldedup.store.open import resolve_store_url

    if args.run_id and not ctx.dry_run:
        other = published_by_other(ctx.day, report.get("config"), args.run_id)
        if other:
            _progress(f"warning: {other}")
    counts: dict[str, Any] = report["counts"]
    dry = " [dry run: nothing written]" if ctx.dry_run else ""
    _progress(
        f"{ctx.day}: {counts['documents']} documents, {counts['unique']} unique, "
        f"{counts['duplicates_total']} duplicates {counts['duplicates']}, "
        f"{counts['quarantined_total']} quarantined; duplicate rate "
        f"{counts['duplicate_rate']} (trailing {counts['trailing_duplicate_rate']} over "
        f"{counts['trailing_days']} day(s)){dry}"
    )
    page = ctx.read_stats("report").get("html")
    if page:  # the day's HTML page (not in a dry run)
        again = ["crawldedup", "report", "--date", ctx.day, "--html", "--home", str(ctx.home)]
        if ctx.store != resolve_store_url("", ctx.home):  # the store is not home's own
            again += ["--store", ctx.store]
        _progress(f"HTML report: {page}")
        _progress(f"to write it again: {shlex.join(again)}")
    return {"counts": counts, "gate_failures": report["gate_failures"], "html": page}
