"""Stage 1: read the day's files, quarantine bad records, fingerprint the rest.

The stage wires its steps, each in its own module: ``day_input`` parses the files into
part files and quarantine entries (one document per id, ``duplicate_ids``);
``site_boilerplate`` learns each host's template lines; ``day_documents`` fingerprints
each page once, without them; ``quarantine_files`` writes the quarantine owner-only.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.core.boilerplate import HostLines
from crawldedup.ingest.readers import select_input_files
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.day_documents import write_documents
from crawldedup.pipeline.day_input import read_and_fingerprint
from crawldedup.pipeline.quarantine_files import write_empty_quarantine, write_quarantine
from crawldedup.pipeline.site_boilerplate import forget_line_counts, learn_boilerplate
from crawldedup.stage_registry import DOCS, PARSE_BUCKETS, PARSE_QUARANTINE, PARSED, REPEATS


def _write_no_documents(folder: Path) -> None:
    """``work/docs`` of a day without files: one Parquet file with the schema, no rows."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    empty = pa.Table.from_batches([], schema=to_arrow_schema(schemas.DOCS))
    pq.write_table(empty, folder / "part-00000.parquet")


def _fingerprint_files(spark: SparkSession, ctx: DayContext, files: list[str]) -> dict[str, Any]:
    """Read, fingerprint and write the day's documents and quarantine; their counts."""
    stats: dict[str, Any] = {}
    parsed_dir = ctx.path(PARSED)
    shutil.rmtree(parsed_dir, ignore_errors=True)
    buckets_dir = ctx.path(PARSE_BUCKETS)
    day = read_and_fingerprint(
        spark, files, ctx.cfg, ctx.day, parsed_dir, buckets_dir, ctx.path(PARSE_QUARANTINE)
    )
    boiler: dict[str, HostLines] = {}
    if ctx.cfg.boilerplate.enabled:
        boiler, stats["boilerplate"] = learn_boilerplate(
            spark.sparkContext, ctx, day.lines_dir, day.buckets, set(day.repeats.places)
        )
    shutil.rmtree(buckets_dir, ignore_errors=True)
    repeats = day.repeats.places or None
    unprintable = write_documents(
        spark, ctx.cfg, files, parsed_dir, ctx.path(DOCS), repeats, ctx.path(REPEATS), boiler
    )
    if unprintable:  # pages whose fingerprinting raised (a bug): quarantined, not lost
        day.add_quarantined("bad_record", len(unprintable))
    if day.quarantined_by_reason:
        quarantined = day.quarantined(spark, ctx.cfg.limits.max_record_bytes)
        if unprintable:
            late = spark.createDataFrame(unprintable, schemas.QUARANTINE)
            quarantined = quarantined.unionByName(late)
        write_quarantine(quarantined, ctx.quarantine_dir)
    else:  # nothing quarantined (the parse's tally says so): the folder alone, no Spark job
        write_empty_quarantine(ctx.quarantine_dir)
    day.release()
    # The parse's part files hold every page's text: gone once work/docs is written.
    shutil.rmtree(parsed_dir, ignore_errors=True)
    shutil.rmtree(ctx.path(REPEATS), ignore_errors=True)
    stats["documents"] = day.documents
    stats["missing_fetched_at"] = day.missing_fetched_at
    stats["quarantined"] = day.quarantined_by_reason
    stats["records_in"] = day.records_in
    return stats


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
        if not files:
            # Nothing to read: empty outputs written directly, no Spark job.
            forget_line_counts(ctx)
            _write_no_documents(Path(ctx.path(DOCS)))
            write_empty_quarantine(ctx.quarantine_dir)
            stats.update(documents=0, missing_fetched_at=0, quarantined={}, records_in=0)
        else:
            stats.update(_fingerprint_files(spark, ctx, files))
    ctx.write_stats("fingerprint", stats)
    return stats


# It runs on a day with nothing to judge too.
EMPTY_DAY: dict[str, Any] | None = None


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    q = sum(stats.get("quarantined", {}).values())
    return f"{stats.get('files', 0)} files, {stats.get('documents', 0)} docs, {q} quarantined"
