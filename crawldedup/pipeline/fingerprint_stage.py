"""Stage 1: read the day's files, quarantine bad records, fingerprint the rest.

One task per input file. A task parses, extracts and fingerprints its file's records
in Python and hands them to the JVM as Arrow record batches (``mapInArrow``): no
per-row pickling, and the parsed day is cached once, columnar, for both outputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StringType, StructField, StructType

from crawldedup.config import Config
from crawldedup.ingest.readers import list_input_files, read_file
from crawldedup.ingest.records import Quarantined, prepare
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed

# Every parsed record, document or quarantined: documents' fields, then the
# quarantine's reason and detail (null for documents), and the kind ("d" or "q").
_Q_ONLY = [f for f in schemas.QUARANTINE.fields if f.name not in schemas.DOCS.fieldNames()]
PARSED = StructType(
    [StructField("kind", StringType(), False)]
    + [StructField(f.name, f.dataType, True) for f in schemas.DOCS.fields + _Q_ONLY]
)
BATCH_ROWS = 1000
# Above this many repeated ids the split joins by shuffle instead of broadcasting them.
BROADCAST_DUPLICATES = 1_000_000


def _prepare_file(path: str, cfg: Config, day: str) -> Iterator[dict[str, Any]]:
    for rec in read_file(path, cfg.limits.max_record_bytes):
        out = prepare(rec, cfg, day)
        if isinstance(out, Quarantined):
            yield {"kind": "q", **asdict(out)}
        else:
            out["raw"] = rec.raw
            out["kind"] = "d"
            yield out


def _prepare_batches(
    batches: Iterator[pa.RecordBatch], cfg: Config, day: str, schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        for path in batch.column("path").to_pylist():
            rows: list[dict[str, Any]] = []
            for row in _prepare_file(path, cfg, day):
                rows.append(row)
                if len(rows) >= BATCH_ROWS:
                    yield pa.RecordBatch.from_pylist(rows, schema=schema)
                    rows = []
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=schema)


def read_and_fingerprint(
    spark: SparkSession, files: list[str], cfg: Config, day: str
) -> tuple[DataFrame, DataFrame, DataFrame]:
    """(documents, quarantined, cached parse) of the given files; one task per file.

    The parse is cached so that HTML extraction and fingerprinting run once for
    both outputs; the caller unpersists the third element when both are written.
    """
    sc = spark.sparkContext
    paths = spark.createDataFrame(sc.parallelize([(f,) for f in files], len(files)), "path string")
    schema = to_arrow_schema(PARSED)
    parsed = paths.mapInArrow(lambda it: _prepare_batches(it, cfg, day, schema), PARSED).persist()
    docs = parsed.filter(F.col("kind") == "d").select(*schemas.DOCS.fieldNames())
    quarantined = parsed.filter(F.col("kind") == "q").select(*schemas.QUARANTINE.fieldNames())
    docs, quarantined = split_duplicate_ids(docs, quarantined)
    return docs, quarantined, parsed


def split_duplicate_ids(docs: DataFrame, quarantined: DataFrame) -> tuple[DataFrame, DataFrame]:
    """Keep the first record of each id (by file, then position); quarantine the rest.

    Only (id, source, position) are shuffled to rank the records of an id; the
    repeats found (normally few) are then broadcast to split the wide rows.
    """
    w = Window.partitionBy("id").orderBy("source", "position")
    repeats = (
        docs.select("id", "source", "position")
        .withColumn("_n", F.row_number().over(w))
        .filter("_n > 1")
        .select("source", "position")
    )
    if repeats.count() <= BROADCAST_DUPLICATES:
        repeats = F.broadcast(repeats)
    first = docs.join(repeats, ["source", "position"], "left_anti")
    again = docs.join(repeats, ["source", "position"]).select(
        "source",
        "position",
        F.lit("duplicate_id").alias("reason"),
        F.concat(F.lit("id "), F.col("id"), F.lit(" already used earlier in the day")).alias(
            "detail"
        ),
        "raw",
    )
    return first, quarantined.unionByName(again)


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Fingerprint the day: writes work/docs (Parquet) and the quarantine (JSON Lines)."""
    stats: dict[str, Any] = {}
    if ctx.input_dir is None:
        raise ValueError("the fingerprint stage needs an input folder")
    with timed(stats):
        files = [str(p) for p in list_input_files(Path(ctx.input_dir))]
        stats["files"] = len(files)
        parsed = None
        if not files:
            docs = spark.createDataFrame([], schemas.DOCS)
            quarantined = spark.createDataFrame([], schemas.QUARANTINE)
        else:
            docs, quarantined, parsed = read_and_fingerprint(spark, files, ctx.cfg, ctx.day)
        docs.drop("raw").write.mode("overwrite").parquet(ctx.path("docs"))
        quarantined.coalesce(1).write.mode("overwrite").json(str(ctx.quarantine_dir))
        if parsed is not None:
            parsed.unpersist()
        written = spark.read.parquet(ctx.path("docs"))
        stats["documents"] = written.count()
        stats["missing_fetched_at"] = written.filter(~F.col("has_fetched_at")).count()
        q = spark.read.schema(schemas.QUARANTINE).json(str(ctx.quarantine_dir))
        stats["quarantined"] = {
            r["reason"]: r["count"] for r in q.groupBy("reason").count().collect()
        }
        stats["records_in"] = stats["documents"] + sum(stats["quarantined"].values())
    ctx.write_stats("fingerprint", stats)
    return stats
