"""Stage 6: the day's report, from the stages' own counts (work/stats/*.json)."""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.day_state import published_with
from crawldedup.pipeline.commit_stage import run_parameters
from crawldedup.pipeline.context import DayContext
from crawldedup.reporting import write_report
from crawldedup.stage_registry import REPORT, stage
from crawldedup.store import open_store

# The stages whose counts the report sums: those it declares it reads the stats of.
COUNTED = tuple(
    d.name.removeprefix("stats/").removesuffix(".json")
    for d in stage("report").reads(None)
    if d.name.startswith("stats/")
)


def _fp_rate(b: dict[str, int]) -> float:
    """Measured: hits whose key the store did not hold, over probes of absent keys."""
    fp = b.get("false_positives", 0)
    negatives = b.get("probes", 0) - (b.get("hits", 0) - fp)
    return round(fp / negatives, 6) if negatives > 0 else 0.0


def day_parameters(ctx: DayContext) -> dict[str, Any]:
    """The parameters the day was committed with, from the store; in a dry run (nothing
    committed) this run's own."""
    if ctx.dry_run:
        return run_parameters(ctx)
    with open_store(ctx.store) as store:
        found = published_with(store, ctx.day)
    if found is None:
        raise RuntimeError(f"{ctx.day} is not committed: run the commit stage (or the day) first")
    return found


def build_report(ctx: DayContext) -> dict[str, Any]:
    st = {s: ctx.read_stats(s) for s in COUNTED}
    fp, cand, sim, pub, bloom = (
        st["fingerprint"],
        st["candidates"],
        st["similarity"],
        st["publish"],
        st["bloom"],
    )
    verdicts = dict(sim.get("verdicts", {}))
    unique = verdicts.pop("unique", 0)
    quarantined = fp.get("quarantined", {})
    store: dict[str, int] = {}
    for part in (cand.get("store", {}), sim.get("store", {}), pub.get("store", {})):
        for k, v in part.items():
            store[k] = store.get(k, 0) + v
    return {
        "day": ctx.day,
        "input": str(ctx.input_dir) if ctx.input_dir else None,
        "store": ctx.store,
        # What the day was committed with, never this run's configuration: a report
        # made again after another run republished the day shows that run's parameters.
        "config": day_parameters(ctx),
        "dry_run": ctx.dry_run,
        "files": fp.get("files", 0),
        # files of the day's folder not read, by reason (links, hidden, unknown names)
        "skipped_files": fp.get("skipped_files", {}),
        "records_in": fp.get("records_in", 0),
        "documents": fp.get("documents", 0),
        "quarantined": quarantined,
        "quarantined_total": sum(quarantined.values()),
        "missing_fetched_at": fp.get("missing_fetched_at", 0),
        "unique": unique,
        "duplicates": verdicts,
        "duplicates_total": sum(verdicts.values()),
        "duplicate_types": sim.get("types", {}),
        "groups_with_duplicates_today": pub.get("groups_with_duplicates_today", 0),
        "candidates": cand.get("candidates", {}),
        "pairs_scored": sim.get("pairs_scored", 0),
        "bloom": {
            **cand.get("bloom", {}),
            "false_positive_rate": _fp_rate(cand.get("bloom", {})),
            "filters": bloom.get("filters", {}),
            "source": bloom.get("source"),
        },
        "store_ops": store,
        "seconds": {s: st[s].get("seconds") for s in COUNTED},
    }


def run(spark: SparkSession | None, ctx: DayContext) -> dict[str, Any]:
    report = build_report(ctx)
    text = json.dumps(report, indent=2, sort_keys=True)
    ctx.work.mkdir(parents=True, exist_ok=True)
    ctx.folder(REPORT).write_text(text)
    written = {"written": str(ctx.folder(REPORT))}
    if not ctx.dry_run:
        with open_store(ctx.store) as store:
            store.put("days", {ctx.day: {"r:report": text.encode()}})
        # The page people read (crawldedup report --html writes it again): on every road.
        page = write_report(ctx.store, ctx.home, ctx.day, ctx.quarantine_dir)
        written["html"] = str(page)
    ctx.write_stats("report", written)
    return report


# It runs on a day with nothing to judge too.
EMPTY_DAY: dict[str, Any] | None = None


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line (the counts follow as the run's summary)."""
    return ""
