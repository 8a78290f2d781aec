"""A rerun of a day takes back what the earlier run of that day wrote.

Rerunning a day replaces its results whole: after the rerun the store holds what a
fresh run with the rerun's parameters would have written, and nothing of the earlier
run (docs/store.md#reruns). The publish stage calls :func:`retract_previous_run` after it
has computed the new postings and before its first write; the relevance stage retracts
its own tables (:func:`retract_relevance`) before it writes, and publish does it for a
run that has no relevance stage.

The day's verdict rows (``D|id``) are the day's own index: every document of the earlier
run has one, and its document row lists its keys. In order, so that a retraction cut
short by a crash is finished by the next rerun:

1. the earlier run's postings that the new run does not write again are deleted, and
   the Bloom blocks of their key ranges are dropped (a block must hold only keys the
   index has had; the next bloom stage rebuilds a dropped block from its index range);
2. the group cells of the earlier run's documents are deleted (a group row left with
   its canonical's own cell alone loses that cell too);
3. the document and verdict rows of documents the new run no longer has are deleted.
   The others are replaced whole by the new run's puts (every column is written);
4. the cells of shared rows the day's ledger recorded (line counts, the hosts where a
   line is ordinary text; :mod:`crawldedup.store.day_ledger`) are deleted.

The verdict rows go last, so a retraction stopped at any point is found again. On a
day's first run (the daily case) the store holds no verdict row of the day, so steps 1
to 3 have nothing to find and start no Spark job; step 4 still runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from crawldedup.pipeline.bloom_blocks import BLOCKS, block_row, key_ranges, range_of
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.store_batches import store_batches
from crawldedup.pipeline.work_files import read_work
from crawldedup.rules import Rule
from crawldedup.stage_registry import PREVIOUS_RUN
from crawldedup.store import Store, open_store
from crawldedup.store.day_ledger import retract_recorded, retract_unrecorded
from crawldedup.store.schema import (
    VerdictRecord,
    get_docs,
    listed_keys,
    posting_column,
    verdict_row_key,
)

PREVIOUS = "id string, old_group string, rule string, key string"
RELEVANCE_TABLES = ("rel_scores", "rel_links")


def _scan_day_verdicts(store_url: str, day: str) -> Iterator[tuple[str, str]]:
    with open_store(store_url) as store:
        for key, row in store.scan_prefix("verdicts", f"{day}|"):
            record = VerdictRecord.from_row(key, row)
            yield record.id, record.group or record.id


def _previous_postings(
    store: Store, batch: list[tuple[str, str]], day: str
) -> Iterator[tuple[str, str, str | None, str | None]]:
    """(id, old group, rule, key) of every key the earlier run's document row lists (one
    row with rule and key null for a document without one of this day)."""
    rows = get_docs(store, [i for i, _ in batch], ["m:keys", "m:day"])
    for doc_id, old_group in batch:
        row = rows.get(doc_id, {})
        keys: dict[str, Any] = {}
        if row.get("m:day", b"").decode() == day:  # else the id is another day's document
            keys = json.loads(row.get("m:keys", b"{}"))
        yield doc_id, old_group, None, None
        for rule, k in listed_keys(keys):
            yield doc_id, old_group, rule, k


def _delete_postings(
    store: Store, batch: list[Row], lows: list[str], deleted: Any
) -> Iterator[tuple[str, int]]:
    """Delete the postings of ``batch`` (id, rule, key), counted in the accumulator
    ``deleted``; yield their (rule, key range)."""
    deleted.add(len(batch))
    by_cell: dict[tuple[str, str], list[str]] = {}
    for r in batch:
        by_cell.setdefault((Rule(r["rule"]).table, r["id"]), []).append(r["key"])
    for (table, doc_id), keys in sorted(by_cell.items()):
        store.delete(table, keys, columns=[posting_column(doc_id)])
    yield from {(r["rule"], range_of(r["key"], lows)) for r in batch}


def _retract_groups_and_rows(store: Store, batch: list[Row], day: str) -> Iterator[int]:
    """Remove the earlier run's group cells of the day, and the rows of stale documents."""
    by_group: dict[str, list[str]] = {}
    for r in batch:
        by_group.setdefault(r["old_group"], []).append(r["id"])
    for g, ids in by_group.items():
        members = [posting_column(i) for i in ids if i != g]
        if members:
            store.delete("groups", [g], columns=members)
    # A group row left with its canonical's own cell alone loses it: a fresh run writes
    # that cell only beside a member (later days' members keep it).
    group_rows = store.get("groups", sorted(by_group))
    alone = [g for g in by_group if set(group_rows.get(g, {})) == {posting_column(g)}]
    if alone:
        store.delete("groups", alone, columns=[posting_column(g) for g in alone])
    stale = [r["id"] for r in batch if r["stale"]]
    if stale:
        found = get_docs(store, stale, ["m:day"])
        mine = [d for d in stale if found.get(d, {}).get("m:day", b"").decode() == day]
        store.delete("docs", mine)
        store.delete("verdicts", [verdict_row_key(day, d) for d in stale])
    yield len(batch)


def retract_relevance(store: Store, day: str) -> None:
    """The day's relevance output: scores and frontier (rows ``D|…``), and the term
    counts and tag vectors its ledger recorded."""
    for table in RELEVANCE_TABLES:
        old = [k for k, _ in store.scan_prefix(table, f"{day}|", keys_only=True)]
        store.delete(table, old)
    retract_recorded(store, day, ("rel_df", "rel_docs"))


def retract_previous_run(
    spark: SparkSession,
    ctx: DayContext,
    docs: DataFrame,
    postings: DataFrame,
    *,
    unrecorded: bool,
    relevance_runs: bool,
) -> dict[str, int]:
    """Take back the earlier run of the day (module docstring); ``postings``: the
    (id, rule, key) postings this run is about to write; ``unrecorded``: the day was
    published by a release without the ledger (its shared cells are found by a scan);
    ``relevance_runs``: this run has a relevance stage, which retracts its own tables.
    Returns counts."""
    store_url, day = ctx.store, ctx.day
    counts = {"retracted_documents": 0, "retracted_postings": 0, "bloom_blocks_dropped": 0}
    blocks: list[str] = []
    if _has_verdicts(store_url, day):
        blocks = _retract_documents(spark, ctx, docs, postings, counts)
    # 4. shared rows' cells; the relevance tables when no relevance stage follows.
    with open_store(store_url) as store:
        if blocks:
            store.delete(BLOCKS, blocks)
        counts["bloom_blocks_dropped"] = len(blocks)
        counts["retracted_cells"] = retract_recorded(store, day, ("host_lines",))
        if not relevance_runs:
            retract_relevance(store, day)
        if unrecorded:
            tables = ("host_lines",) if relevance_runs else ("host_lines", "rel_df")
            counts["retracted_cells"] += retract_unrecorded(store, day, tables)
    return counts


def _has_verdicts(store_url: str, day: str) -> bool:
    """Whether an earlier run of the day wrote a verdict row: the day's own index, which
    every document row and posting of it is found through (none on a day's first run,
    the daily case: steps 1 to 3 then start no Spark job)."""
    with open_store(store_url) as store:
        return (
            next(iter(store.scan_prefix("verdicts", f"{day}|", keys_only=True)), None) is not None
        )


def _retract_documents(
    spark: SparkSession,
    ctx: DayContext,
    docs: DataFrame,
    postings: DataFrame,
    counts: dict[str, int],
) -> list[str]:
    """Steps 1 to 3 (the module's docstring); returns the Bloom block rows to drop."""
    store_url, day, batch = ctx.store, ctx.day, ctx.cfg.limits.store_batch_size
    old = spark.sparkContext.parallelize([0], 1).flatMap(
        lambda _: _scan_day_verdicts(store_url, day)
    )
    previous = spark.createDataFrame(
        old.mapPartitions(
            lambda it: store_batches(
                it, store_url, batch, lambda s, b: _previous_postings(s, b, day)
            )
        ),
        PREVIOUS,
    )
    previous.write.mode("overwrite").parquet(ctx.path(PREVIOUS_RUN))
    previous = read_work(spark, ctx.path(PREVIOUS_RUN))
    # 1. postings the new run does not write again, and their Bloom blocks.
    lows = [lo for lo, _ in key_ranges(ctx.cfg.bloom.scan_splits)]
    gone = (
        previous.filter(F.col("rule").isNotNull())
        .select("id", "rule", "key")
        .join(postings.select("id", "rule", "key"), ["id", "rule", "key"], "left_anti")
    )
    deleted = spark.sparkContext.accumulator(0)
    ranges = (
        gone.rdd.mapPartitions(
            lambda it: store_batches(
                it, store_url, batch, lambda s, b: _delete_postings(s, b, lows, deleted)
            )
        )
        .distinct()
        .collect()
    )
    counts["retracted_postings"] = int(deleted.value)
    blocks = sorted({block_row(rule, i) for rule, i in ranges})
    # 2 and 3. group cells; rows of the documents this run no longer has.
    current = docs.select("id", F.lit(False).alias("stale"))
    marked = (
        previous.select("id", "old_group")
        .distinct()
        .join(current, "id", "left")
        .select("id", "old_group", F.coalesce(F.col("stale"), F.lit(True)).alias("stale"))
    )
    counts["retracted_documents"] = int(
        sum(
            marked.rdd.mapPartitions(
                lambda it: store_batches(
                    it, store_url, batch, lambda s, b: _retract_groups_and_rows(s, b, day)
                )
            ).collect()
        )
    )
    return blocks
