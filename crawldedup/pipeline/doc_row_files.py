"""The day's document, verdict and membership rows put in the store from the work files:
one Python task per share of the docs files, no row through the JVM.

When the similarity stage decided from the files (``decision_files``), decisions file
``i`` holds the verdicts of docs file ``i``'s documents. A task reads the two files, adds
each duplicate's group (work/groups, the day's duplicates only: small) and whether the
document is a group's canonical, sorts the rows by id and hands them to the publish
stage's batch function. The Spark road (a join of work/docs, work/decisions and the
groups, then ``store_batches.write_partitions``) moved every document's sketch and term
vector through the JVM and Arrow once more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.part_files import part_file, parts_alike
from crawldedup.pipeline.store_batches import write_batches
from crawldedup.stage_registry import DECISIONS, DOCS, GROUPS
from crawldedup.store import Store

RUN_ROWS = 50_000
"""A task puts its documents' rows in sorted runs of about this many (their memory)."""
_VERDICT_COLUMNS = ["verdict", "rule", "duplicate_of", "similarity", "measure", "type"]


def decisions_by_docs_file(ctx: DayContext) -> bool:
    """Whether decisions file ``i`` holds the verdicts of docs file ``i`` (both folders'
    files named alike: the similarity stage decided from the files)."""
    return parts_alike(ctx.folder(DECISIONS), ctx.folder(DOCS))


def read_groups(folder: str) -> dict[str, str]:
    """work/groups as a dict: a duplicate of the day's id to its group's."""
    out: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.parquet")):
        t = pq.ParquetFile(path).read(columns=["id", "group"]).to_pydict()
        out.update(zip(t["id"], t["group"], strict=True))
    return out


def rows_of_file(docs: pa.Table, decisions: pa.Table, groups: dict[str, str]) -> pa.Table:
    """The documents of a docs file with their verdict (every document has one), group
    (null for a document in no group of the day) and ``is_canon`` (the document is the
    group of some duplicate), sorted by id: what ``write_partitions`` gave the batch
    function."""
    index = {d: n for n, d in enumerate(decisions.column("id").to_pylist())}
    ids = docs.column("id").to_pylist()
    verdicts = decisions.select(_VERDICT_COLUMNS).take(
        pa.array([index[d] for d in ids], pa.int64())
    )
    canon = set(groups.values())
    table = docs
    for name in _VERDICT_COLUMNS:
        table = table.append_column(name, verdicts.column(name))
    table = table.append_column("group", pa.array([groups.get(d) for d in ids], pa.string()))
    table = table.append_column("is_canon", pa.array([d in canon for d in ids], pa.bool_()))
    return table.sort_by("id")


def put_doc_rows(
    spark: SparkSession,
    ctx: DayContext,
    per_batch: Callable[[Store, list[dict[str, Any]]], None],
    counters: dict[str, Any],
) -> int:
    """``per_batch(store, rows)`` over the day's documents (:func:`rows_of_file`), in one
    Python job; returns the number of rows."""
    docs_dir, dec_dir = ctx.folder(DOCS), ctx.folder(DECISIONS)
    groups_dir = str(ctx.folder(GROUPS))
    store_url, batch = ctx.store, ctx.cfg.limits.store_batch_size
    files = len(list(docs_dir.glob("*.parquet")))

    def put(tables: list[pa.Table]) -> int:
        table = pa.concat_tables(tables).sort_by("id")
        return write_batches(
            table.to_batches(max_chunksize=batch), store_url, batch, per_batch, counters
        )

    def task(parts: Iterable[int]) -> Iterator[int]:
        # The task's files' rows sorted together, up to RUN_ROWS at a time: each put
        # lands next to the previous one in the store's key order (store_batches.
        # write_partitions), where a sorted run per file spreads over the whole table.
        groups = read_groups(groups_dir)
        held: list[pa.Table] = []
        for i in parts:
            held.append(
                rows_of_file(
                    pq.ParquetFile(part_file(docs_dir, i)).read(),
                    pq.ParquetFile(part_file(dec_dir, i)).read(),
                    groups,
                )
            )
            if sum(t.num_rows for t in held) >= RUN_ROWS:
                yield put(held)
                held = []
        if held:
            yield put(held)

    sc = spark.sparkContext
    tasks = max(1, min(files, 2 * sc.defaultParallelism))
    return sum(sc.parallelize(range(files), tasks).mapPartitions(task).collect())
