"""Stage 1: read the day's files, quarantine bad records, fingerprint the rest.

The stage wires three steps, each in its own module: ``day_input`` reads the files into
fingerprinted documents (one per id, ``duplicate_ids``) and quarantine entries;
``site_boilerplate`` fingerprints pages again without their host's template lines;
``quarantine_files`` writes the quarantine owner-only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from crawldedup.ingest.readers import select_input_files
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.day_input import PAGE_COLUMNS, read_and_fingerprint
from crawldedup.pipeline.quarantine_files import quarantine_counts, write_quarantine
from crawldedup.pipeline.site_boilerplate import forget_line_counts, remove_boilerplate


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Fingerprint the day: writes work/docs (Parquet) and the quarantine (JSON Lines)."""
    stats: dict[str, Any] = {}
    if ctx.input_dir is None:
        raise ValueError("the fingerprint stage needs an input folder")
    with timed(stats):
        selection = select_input_files(Path(ctx.input_dir))
        files = [str(p) for p in selection.files]
        stats["files"] = len(files)
        stats["extract_engine"] = ctx.cfg.extract.engine  # what the HTML records went through
        # What was not read, and why (symlinks, hidden folders, unknown extensions).
        stats["skipped_files"] = selection.skipped_counts()
        stats["skipped"] = selection.skipped_listing()
        parsed = None
        if not files:
            forget_line_counts(ctx)
            docs = spark.createDataFrame([], schemas.DOCS)
            quarantined = spark.createDataFrame([], schemas.QUARANTINE)
        else:
            docs, quarantined, parsed = read_and_fingerprint(spark, files, ctx.cfg, ctx.day)
            if ctx.cfg.boilerplate.enabled:
                docs, stats["boilerplate"] = remove_boilerplate(spark, ctx, docs)
        docs.drop("raw", *PAGE_COLUMNS).write.mode("overwrite").parquet(ctx.path("docs"))
        write_quarantine(quarantined, ctx.quarantine_dir)
        if parsed is not None:
            parsed.unpersist()
        written = spark.read.parquet(ctx.path("docs"))
        counts = written.agg(
            F.count(F.lit(1)).alias("n"),
            F.count(F.when(~F.col("has_fetched_at"), 1)).alias("missing"),
        ).first()
        stats["documents"] = int(counts["n"]) if counts else 0
        stats["missing_fetched_at"] = int(counts["missing"]) if counts else 0
        stats["quarantined"] = quarantine_counts(spark, ctx.quarantine_dir)
        stats["records_in"] = stats["documents"] + sum(stats["quarantined"].values())
    ctx.write_stats("fingerprint", stats)
    return stats
