"""The day's index keys as rows: one row per (document, rule, key), hashed and ranked.

The candidates stage pairs documents and probes the store with these rows; its same-day
pass, which sorts every key's rows anyway, writes them ranked within the day
(work/day_keys), and the publish stage writes the postings the per-key cap allows from
those. Both import them from here.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawldedup.rules import Rule


def _tagged(rule: Rule) -> Callable[[Column], Column]:
    # Spark's transform() reads the lambda's arity, so the rule cannot be a default arg.
    def tag(key: Column) -> Column:
        return F.struct(F.lit(rule.value).alias("rule"), key.alias("key"))

    return tag


def explode_keys(docs: DataFrame, rules: Iterable[Rule]) -> DataFrame:
    """(id, fetched_at, rule, key) for every enabled rule and each of its keys."""
    structs = []
    for r in rules:
        col = F.col(r.column)
        keys = col if r.multi_key else F.array(col)
        structs.append(F.transform(keys, _tagged(r)))
    return (
        docs.select(
            "id", "fetched_at", "simhash", F.explode(F.flatten(F.array(*structs))).alias("k")
        )
        .select("id", "fetched_at", "k.rule", "k.key", "simhash")
        .filter(F.col("key").isNotNull())
    )


def key_rows(docs: pa.Table, rules: Iterable[Rule]) -> pa.Table:
    """:func:`explode_keys` of a table of work/docs rows, in pyarrow (a task that reads
    the docs' files itself): (id, fetched_at, rule, key, simhash), rule by rule, each
    document's keys of a rule in their order."""
    docs = docs.combine_chunks()
    ids, fetched, hashes = (
        docs.column(c).combine_chunks() for c in ("id", "fetched_at", "simhash")
    )
    parts = []
    for r in rules:
        col = docs.column(r.column).combine_chunks()
        if r.multi_key:
            keys, of = pc.list_flatten(col), pc.list_parent_indices(col)
        else:
            keys, of = col, pa.array(np.arange(docs.num_rows, dtype=np.int64))
        rows = pa.table(
            {
                "id": pc.take(ids, of),
                "fetched_at": pc.take(fetched, of),
                "rule": pa.array([r.value] * len(keys), pa.string()),
                "key": keys,
                "simhash": pc.take(hashes, of),
            }
        )
        parts.append(rows.filter(pc.is_valid(rows.column("key"))))
    if not parts:
        return KEY_ROWS_ARROW.empty_table()
    return pa.concat_tables(parts)


def key_hash(keys: DataFrame) -> DataFrame:
    """Adds ``_k``: a 64-bit hash of (rule, key), the first column of every partitioning
    and sort of the day's keys. A sort compares rows by a prefix of their first column:
    on ``_k`` nearly every comparison ends there, where the rule's name (the same on
    millions of rows) sent each one on to the key's bytes. ``_k`` only speeds the work
    up: every window and join keeps rule and key too, so keys sharing a hash stay apart.
    """
    return keys.withColumn("_k", F.xxhash64("rule", "key"))


# A key row's columns (explode_keys, key_rows, work/postings); work/day_keys adds its rank
# within the day.
KEY_COLUMNS = ["id", "fetched_at", "rule", "key", "simhash"]
KEY_ROWS_ARROW = pa.schema([(c, pa.string()) for c in KEY_COLUMNS])
DAY_KEYS_ARROW = KEY_ROWS_ARROW.append(pa.field("rank", pa.int32()))


def ranks_within_day(table: pa.Table) -> np.ndarray:
    """Each row's rank among the day's rows of its key (1 for the earliest), for a table
    sorted by (rule, key, fetched_at, id): what a window's ``row_number()`` over (rule,
    key) ordered by (fetched_at, id) gives, without a second shuffle and sort."""
    n = table.num_rows
    idx = np.arange(n, dtype=np.int32)
    if n < 2:
        return idx + 1
    rules, keys = table.column("rule"), table.column("key")
    changed = pc.or_(
        pc.not_equal(rules.slice(1), rules.slice(0, n - 1)),
        pc.not_equal(keys.slice(1), keys.slice(0, n - 1)),
    )
    first = np.concatenate([[True], changed.to_numpy()])
    return idx - np.maximum.accumulate(np.where(first, idx, 0)) + 1


def write_ranks(table: pa.Table, folder: str) -> None:
    """The partition's key rows with their rank within the day, a Parquet file of
    ``folder`` (work/day_keys) named by the task's partition: publish's postings come
    from them, so the day's keys are shuffled and sorted once."""
    from pyspark import TaskContext

    ranked = table.select(KEY_COLUMNS).append_column(
        "rank", pa.array(ranks_within_day(table), pa.int32())
    )
    task = TaskContext.get()  # None outside a Spark task (a unit test)
    part = task.partitionId() if task is not None else 0
    pq.write_table(ranked, f"{folder}/part-{part:05d}.parquet")


LOOKUP_COUNTS = pa.schema(
    [
        ("rule", pa.string()),
        ("key", pa.string()),
        ("n_other", pa.int32()),
        ("cand_id", pa.string()),
    ]
)


def held_elsewhere(lookups: pa.Table) -> pa.Table:
    """(rule, key, n_other): the postings other days hold of each key the probe found
    (``lookups``: work/lookups rows; those without a candidate carry ``n_other``)."""
    info = lookups.filter(pc.is_null(lookups.column("cand_id")))
    other = info.group_by(["rule", "key"]).aggregate([("n_other", "max")])
    return other.rename_columns(["rule", "key", "n_other"])


def postings_under_cap(ranked: pa.Table, other: pa.Table, cap: int) -> pa.Table:
    """The key rows (``ranked``: work/day_keys rows, ranked within the day) the per-key
    cap lets the day add to the index: rank + the postings other days hold of the key
    (``other``: :func:`held_elsewhere`) at most ``cap``."""
    joined = ranked.join(other, ["rule", "key"], join_type="left outer")
    held = pc.fill_null(joined.column("n_other"), 0)
    room = pc.less_equal(pc.add(joined.column("rank"), held), cap)
    return joined.filter(room).select(KEY_COLUMNS)


def write_postings(spark: Any, ranked_dir: str, lookups_dir: str, out_dir: str, cap: int) -> int:
    """work/postings from work/day_keys and work/lookups (:func:`postings_under_cap`): a
    task per day_keys file reads it with pyarrow, joins the counts of other days' postings
    (read once here, broadcast) and writes its postings file: no row crosses the JVM.
    Returns the postings."""
    files = sorted(str(p) for p in Path(ranked_dir).glob("*.parquet"))
    out = Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    if not files:  # no key at all: the schema alone
        pq.write_table(KEY_ROWS_ARROW.empty_table(), out / "part-00000.parquet")
        return 0

    sc = spark.sparkContext
    shared = sc.broadcast(held_elsewhere(pq.read_table(lookups_dir, schema=LOOKUP_COUNTS)))

    def task(items: Iterable[tuple[int, str]]) -> Iterable[int]:
        for i, path in items:
            kept = postings_under_cap(pq.read_table(path), shared.value, cap)
            pq.write_table(kept, out / f"part-{i:05d}.parquet")
            yield kept.num_rows

    try:
        jobs = sc.parallelize(list(enumerate(files)), len(files)).mapPartitions(task)
        return int(sum(jobs.collect()))
    finally:
        shared.unpersist()
