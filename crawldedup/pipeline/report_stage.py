"""Stage 6: the day's report, from the stages' own counts (work/stats/*.json)."""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.day_state import mark_complete
from crawldedup.pipeline.context import DayContext
from crawldedup.stage_registry import DEDUP_STAGES
from crawldedup.store import open_store


def _fp_rate(b: dict[str, int]) -> float:
    """Measured: hits whose key the store did not hold, over probes of absent keys."""
    fp = b.get("false_positives", 0)
    negatives = b.get("probes", 0) - (b.get("hits", 0) - fp)
    return round(fp / negatives, 6) if negatives > 0 else 0.0


def build_report(ctx: DayContext) -> dict[str, Any]:
    st = {s: ctx.read_stats(s) for s in DEDUP_STAGES if s != "report"}
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
        "config": {
            "threshold": ctx.cfg.cascade.threshold,
            "rules": list(ctx.cfg.cascade.rules),
            "tokenizer": ctx.cfg.fingerprint.tokenizer,
        },
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
        "seconds": {s: st[s].get("seconds") for s in DEDUP_STAGES if s != "report"},
    }


def run(spark: SparkSession | None, ctx: DayContext) -> dict[str, Any]:
    report = build_report(ctx)
    text = json.dumps(report, indent=2, sort_keys=True)
    ctx.work.mkdir(parents=True, exist_ok=True)
    (ctx.work / "report.json").write_text(text)
    if not ctx.dry_run:
        with open_store(ctx.store) as store:
            store.put("days", {ctx.day: {"r:report": text.encode()}})
            mark_complete(store, ctx.day)  # the day's last write
    ctx.write_stats("report", {"written": str(ctx.work / "report.json")})
    return report
