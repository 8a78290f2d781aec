"""One document per id: the first record of an id is kept, its repeats are quarantined.

A repeat's quarantine entry (reason ``duplicate_id``) carries its raw record, read again
from its file, as the parse keeps no document's raw text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.ingest.readers import read_file
from crawldedup.pipeline import schemas

# Above this many repeated ids the split joins by shuffle instead of broadcasting them.
BROADCAST_DUPLICATES = 1_000_000


def with_raw(batches: Iterable[pa.RecordBatch], max_record_bytes: int) -> Iterator[pa.RecordBatch]:
    """Quarantine rows of repeated ids with the raw record read again from its file
    (``source`` at ``position``): the parse keeps no document's raw text."""
    schema = to_arrow_schema(schemas.QUARANTINE)
    for batch in batches:
        rows = batch.to_pylist()
        wanted: dict[str, set[int]] = {}
        for r in rows:
            wanted.setdefault(r["source"], set()).add(r["position"])
        raw: dict[tuple[str, int], str] = {}
        for source, positions in wanted.items():
            for rec in read_file(source, max_record_bytes):
                if rec.position in positions:
                    raw[(source, rec.position)] = rec.raw
                    positions.discard(rec.position)
                    if not positions:
                        break
        for r in rows:
            r["raw"] = raw.get((r["source"], r["position"]))
            if r["raw"] is None:
                r["detail"] += " (the record's file changed while it was read: raw not kept)"
        yield pa.RecordBatch.from_pylist(rows, schema=schema)


@dataclass(frozen=True)
class Repeats:
    """The day's repeated ids, kept (cached) while the documents and quarantine are written."""

    rows: DataFrame  # (source, position) of every record whose id came earlier in the day
    count: int
    missing_fetched_at: int  # repeats without a fetch time (not in the day's documents)


def split_duplicate_ids(
    docs: DataFrame, quarantined: DataFrame, max_record_bytes: int
) -> tuple[DataFrame, DataFrame, Repeats]:
    """Keep the first record of each id (by file, then position); quarantine the rest.

    Only (id, source, position) are shuffled to rank the records of an id; the
    repeats found (normally few) are cached, counted in the same job, then broadcast to
    split the wide rows, and their raw records are read again from their files
    (``with_raw``). The caller unpersists ``Repeats.rows`` once both outputs are written.
    """
    w = Window.partitionBy("id").orderBy("source", "position")
    found = (
        docs.select("id", "source", "position", "has_fetched_at")
        .withColumn("_n", F.row_number().over(w))
        .filter("_n > 1")
        .select("source", "position", "has_fetched_at")
        .persist()
    )
    tally = found.agg(
        F.count(F.lit(1)).alias("n"),
        F.count(F.when(~F.col("has_fetched_at"), 1)).alias("missing"),
    ).first()
    n, missing = (int(tally["n"]), int(tally["missing"])) if tally else (0, 0)
    repeats = found.select("source", "position")
    if n <= BROADCAST_DUPLICATES:
        repeats = F.broadcast(repeats)
    first = docs.join(repeats, ["source", "position"], "left_anti")
    again = docs.join(repeats, ["source", "position"]).select(
        "source",
        "position",
        F.lit("duplicate_id").alias("reason"),
        F.concat(F.lit("id "), F.col("id"), F.lit(" already used earlier in the day")).alias(
            "detail"
        ),
        F.lit(None).cast("string").alias("raw"),
    )
    again = again.mapInArrow(lambda it: with_raw(it, max_record_bytes), schemas.QUARANTINE)
    return first, quarantined.unionByName(again), Repeats(found, n, missing)
