"""Stage 1: read the day's files, quarantine bad records, fingerprint the rest."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pyspark import RDD
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from crawldedup.config import Config
from crawldedup.ingest.readers import list_input_files, read_file
from crawldedup.ingest.records import Quarantined, prepare
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed


def _prepare_file(path: str, cfg: Config, day: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for rec in read_file(path, cfg.limits.max_record_bytes):
        out = prepare(rec, cfg, day)
        if isinstance(out, Quarantined):
            yield "q", asdict(out)
        else:
            out["raw"] = rec.raw
            yield "d", out


def read_and_fingerprint(
    spark: SparkSession, files: list[str], cfg: Config, day: str
) -> tuple[DataFrame, DataFrame, RDD[Any]]:
    """(documents, quarantined, cached parse) of the given files; one task per file.

    The parsed records are cached so that HTML extraction runs once for both
    outputs; the caller unpersists the third element when both are written.
    """
    sc = spark.sparkContext
    parsed = sc.parallelize(files, max(1, len(files))).flatMap(lambda f: _prepare_file(f, cfg, day))
    parsed = parsed.persist()
    doc_fields = schemas.DOCS.fieldNames()
    q_fields = schemas.QUARANTINE.fieldNames()
    docs = spark.createDataFrame(
        parsed.filter(lambda kv: kv[0] == "d").map(lambda kv: tuple(kv[1][f] for f in doc_fields)),
        schemas.DOCS,
    )
    quarantined = spark.createDataFrame(
        parsed.filter(lambda kv: kv[0] == "q").map(lambda kv: tuple(kv[1][f] for f in q_fields)),
        schemas.QUARANTINE,
    )
    docs, quarantined = split_duplicate_ids(docs, quarantined)
    return docs, quarantined, parsed


def split_duplicate_ids(docs: DataFrame, quarantined: DataFrame) -> tuple[DataFrame, DataFrame]:
    """Keep the first record of each id (by file, then position); quarantine the rest."""
    w = Window.partitionBy("id").orderBy("source", "position")
    ranked = docs.withColumn("_n", F.row_number().over(w))
    first = ranked.filter("_n = 1").drop("_n")
    again = ranked.filter("_n > 1").select(
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
