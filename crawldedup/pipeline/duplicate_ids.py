"""One document per id: the first record of an id is kept, its repeats are quarantined.

Each parse task writes its documents' ids and places into a bucket file, by id
(:func:`write_id_buckets`); one Python task per bucket finds its repeats
(:func:`find_repeats`), so no Spark shuffle ranks the day's ids. A repeat's quarantine
entry (reason ``duplicate_id``) carries its raw record, read again from its file, as the
parse keeps no document's raw text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyspark import SparkContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.ingest.readers import read_file
from crawldedup.pipeline import schemas
from crawldedup.pipeline.bucket_files import read_bucket, text_bucket, write_buckets


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
    """The day's repeated ids: every record whose id came earlier in the day."""

    places: list[tuple[str, int]]  # (source, position) of each repeat
    ids: list[str]  # each repeat's id, in the same order
    missing_fetched_at: int  # repeats without a fetch time (not in the day's documents)

    @property
    def count(self) -> int:
        return len(self.places)


ID_COLUMNS = ["id", "source", "position", "has_fetched_at"]
_ID_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("source", pa.string()),
        ("position", pa.int64()),
        ("has_fetched_at", pa.bool_()),
    ]
)


def write_id_buckets(docs: pa.Table, path: Path, buckets: int) -> None:
    """A parse task's documents' ``ID_COLUMNS`` into its bucket file, by id."""
    ids = docs.column("id").to_pylist()
    of = np.fromiter((text_bucket(i, buckets) for i in ids), np.int64, len(ids))
    write_buckets(docs.select(ID_COLUMNS), path, of, buckets)


def repeats_of_bucket(rows: pa.Table) -> Iterator[tuple[str, int, bool, str]]:
    """(source, position, has_fetched_at, id) of the rows of a bucket whose id came
    earlier: all but the first record of each id, by file, then position."""
    ordered = rows.sort_by(
        [("id", "ascending"), ("source", "ascending"), ("position", "ascending")]
    )
    previous = None
    for i, source, position, fetched in zip(
        *(ordered.column(c).to_pylist() for c in ID_COLUMNS), strict=True
    ):
        if i == previous:
            yield source, position, fetched, i
        previous = i


def find_repeats(sc: SparkContext, ids_dir: str, buckets: int) -> Repeats:
    """The day's repeated ids, from the parse tasks' id bucket files: one Python job,
    a task per bucket (every record of an id is in one bucket); only the repeats
    (normally few) come back to the driver."""

    def task(parts: Iterable[int]) -> Iterator[tuple[str, int, bool, str]]:
        for b in parts:
            rows = pa.Table.from_batches(read_bucket(ids_dir, b), _ID_SCHEMA)
            yield from repeats_of_bucket(rows)

    found = sorted(sc.parallelize(range(buckets), buckets).mapPartitions(task).collect())
    return Repeats(
        places=[(s, p) for s, p, _, _ in found],
        ids=[i for _, _, _, i in found],
        missing_fetched_at=sum(not f for _, _, f, _ in found),
    )


def repeats_quarantine(
    spark: SparkSession, quarantined: DataFrame, repeats: Repeats, max_record_bytes: int
) -> DataFrame:
    """``quarantined`` with a ``duplicate_id`` entry for each repeat, its raw record read
    again from its file (:func:`with_raw`); no Spark job is added without repeats."""
    if not repeats.count:
        return quarantined
    rows = [
        (s, p, "duplicate_id", f"id {i} already used earlier in the day", None)
        for (s, p), i in zip(repeats.places, repeats.ids, strict=True)
    ]
    again = spark.createDataFrame(rows, schemas.QUARANTINE)
    again = again.mapInArrow(lambda it: with_raw(it, max_record_bytes), schemas.QUARANTINE)
    return quarantined.unionByName(again)
