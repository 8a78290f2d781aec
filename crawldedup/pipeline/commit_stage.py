"""Commit a published day: what it was published with, then the end of its incomplete mark.

The publish stage marks the day incomplete before its first write; this stage, run after
it, stores the day's parameters (``r:published`` in the ``days`` row: documents, the
configuration's digest and the cascade's knobs, the code version) and removes the marker,
the day's last write. From then on, later days and the read commands accept the day, and
the report shows these parameters whatever run later makes a report of the day.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.code_version import code_version
from crawldedup.config import Config
from crawldedup.day_state import DOCS_PACKED, PUBLISHED_WITH, mark_complete
from crawldedup.pipeline.context import DayContext
from crawldedup.retention import FORGOTTEN, day_row, prune
from crawldedup.store import open_store


def config_digest(cfg: Config) -> str:
    """12 hex digits of the sha256 of the whole configuration but the store's address."""
    values = {k: v for k, v in asdict(cfg).items() if k != "store_url"}
    text = json.dumps(values, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def run_parameters(ctx: DayContext) -> dict[str, Any]:
    """The parameters the day's verdicts were computed with, as the report shows them."""
    c = ctx.cfg.cascade
    return {
        "documents": int(ctx.read_stats("fingerprint").get("documents", 0)),
        "code": code_version(),
        "config_digest": config_digest(ctx.cfg),
        "profile": c.profile,
        # Stored as "threshold" (the seed profile's cosine bar), as days before [seed] were.
        "threshold": ctx.cfg.seed.threshold,
        "min_jaccard": c.min_jaccard,
        "min_containment": c.min_containment,
        "rules": list(c.rules),
        "tokenizer": ctx.cfg.fingerprint.tokenizer,
        "committed_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        # Which run published the day: the DAG's run token (run id @ when its sensor
        # resolved it), or None from the command line without --run-id.
        "run": ctx.run_id,
    }


def run(spark: SparkSession | None, ctx: DayContext) -> dict[str, Any]:
    """Store the day's parameters and mark it complete; nothing in a dry run."""
    if ctx.dry_run:
        stats: dict[str, Any] = {"dry_run": True}
    elif not ctx.read_stats("publish"):
        raise RuntimeError(f"{ctx.day} is not published here: run its publish stage first")
    else:
        params = run_parameters(ctx)
        with open_store(ctx.store) as store:
            # Its document rows are one packed cell each (store/schema.py, pack_doc).
            published = {PUBLISHED_WITH: json.dumps(params).encode(), DOCS_PACKED: b"packed"}
            store.put("days", {ctx.day: published})
            # The day's index is written anew: a forget of an earlier run is history.
            store.delete(FORGOTTEN, [day_row(ctx.day)])
            mark_complete(store, ctx.day)  # the day's last write
            # The days the index no longer keeps (index.keep_days), the newest day's
            # window: after the day is complete, so a failure here loses no verdict.
            cfg = ctx.cfg
            pruned = prune(
                store,
                ctx.day,
                cfg.index.keep_days,
                splits=cfg.bloom.scan_splits,
                batch_size=cfg.limits.store_batch_size,
            )
        stats = {"published_with": params}
        if pruned.days:
            stats["forgotten"] = asdict(pruned)
    ctx.write_stats("commit", stats)
    return stats


# It runs on a day with nothing to judge too.
EMPTY_DAY: dict[str, Any] | None = None


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line (the parameters are in its stats)."""
    gone = stats.get("forgotten")
    if not gone:
        return ""
    return f"forgot {', '.join(gone['days'])}: {gone['postings']} postings, {gone['bytes']} bytes"
