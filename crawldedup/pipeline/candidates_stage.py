"""Stage 3: candidate pairs.

Earlier days: each key is probed in the broadcast Bloom filter of its rule; hits are
looked up in the store in batches (one multi-get per table per batch, a store
connection per partition). Same day: documents sharing a key are paired with a
Spark join, each with the earlier-fetched documents only. Per document and rule
at most ``limits.max_postings_per_key`` candidates are kept, the earliest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pyspark import Broadcast
from pyspark.sql import Column, DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from crawldedup.pipeline import schemas
from crawldedup.pipeline.bloom_stage import load_filters
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.store import open_store
from crawldedup.store.base import INDEX_TABLES
from crawldedup.store.schema import parse_posting, posting_doc_id

RULE_COLUMNS: dict[str, str] = {
    "content_md5": "content_key",
    "head": "head_key",
    "tail": "tail_key",
    "title": "title_key",
    "simhash": "simhash_keys",  # an array: one key per SimHash block
}


def _tagged(rule: str) -> Callable[[Column], Column]:
    # Spark's transform() reads the lambda's arity, so the rule cannot be a default arg.
    def tag(key: Column) -> Column:
        return F.struct(F.lit(rule).alias("rule"), key.alias("key"))

    return tag


def explode_keys(docs: DataFrame, rules: Iterable[str]) -> DataFrame:
    """(id, fetched_at, rule, key) for every enabled rule and each of its keys."""
    structs = []
    for r in rules:
        col = F.col(RULE_COLUMNS[r])
        keys = col if r == "simhash" else F.array(col)
        structs.append(F.transform(keys, _tagged(r)))
    return (
        docs.select("id", "fetched_at", F.explode(F.flatten(F.array(*structs))).alias("k"))
        .select("id", "fetched_at", "k.rule", "k.key")
        .filter(F.col("key").isNotNull())
    )


def rank_within_day(keys: DataFrame) -> DataFrame:
    """Adds ``rank``: 1 for the earliest document of the day holding the key, then 2, …"""
    w = Window.partitionBy("rule", "key").orderBy("fetched_at", "id")
    return keys.withColumn("rank", F.row_number().over(w))


def same_day_pairs(ranked: DataFrame, cap: int, day: str) -> DataFrame:
    """Each document paired with up to ``cap`` earlier documents of the day per key."""
    a = ranked.alias("a")
    b = ranked.filter(F.col("rank") <= cap).alias("b")
    return a.join(
        b,
        (F.col("a.rule") == F.col("b.rule"))
        & (F.col("a.key") == F.col("b.key"))
        & (F.col("b.rank") < F.col("a.rank")),
    ).select(
        F.col("a.id").alias("id"),
        F.col("a.fetched_at").alias("fetched_at"),
        F.col("a.rule").alias("rule"),
        F.col("b.id").alias("cand_id"),
        F.col("b.fetched_at").alias("cand_fetched_at"),
        F.lit(day).alias("cand_day"),
    )


def _lookup_partition(
    rows: Iterable[Row],
    filters: Broadcast[dict[str, Any]],
    store_url: str,
    day: str,
    cap: int,
    batch_size: int,
    counters: dict[str, Any],
) -> Iterator[tuple[Any, ...]]:
    """Probe, then multi-get the Bloom hits of a batch; yields LOOKUPS rows."""
    bf = filters.value
    store = None
    probes = hits = false_pos = 0
    pending: dict[str, list[Row]] = {}

    def flush(table_rows: dict[str, list[Row]]) -> Iterator[tuple[Any, ...]]:
        nonlocal store, false_pos
        if store is None:
            store = open_store(store_url)
        for rule, batch in table_rows.items():
            found = store.get(INDEX_TABLES[rule], [r["key"] for r in batch])
            for r in batch:
                cells = found.get(r["key"])
                if not cells:
                    false_pos += 1
                    continue
                postings = []
                for col, value in cells.items():
                    cand_day, cand_fetched = parse_posting(value)
                    if cand_day != day:
                        postings.append((cand_fetched, posting_doc_id(col), cand_day))
                yield (r["id"], r["fetched_at"], rule, r["key"], len(postings), None, None, None)
                earlier = sorted(p for p in postings if p[2] < day and p[1] != r["id"])
                for cand_fetched, cand_id, cand_day in earlier[:cap]:
                    yield (
                        r["id"],
                        r["fetched_at"],
                        rule,
                        r["key"],
                        len(postings),
                        cand_id,
                        cand_fetched,
                        cand_day,
                    )

    try:
        n_pending = 0
        for r in rows:
            f = bf.get(r["rule"])
            if f is None:
                continue
            probes += 1
            if r["key"] in f:
                hits += 1
                pending.setdefault(r["rule"], []).append(r)
                n_pending += 1
                if n_pending >= batch_size:
                    yield from flush(pending)
                    pending, n_pending = {}, 0
        if pending:
            yield from flush(pending)
    finally:
        counters["probes"].add(probes)
        counters["hits"].add(hits)
        counters["false_positives"].add(false_pos)
        if store is not None:
            counters["round_trips"].add(store.stats.round_trips)
            counters["rows_read"].add(store.stats.rows_read)
            store.close()


def earliest_per_rule(cands: DataFrame, cap: int) -> DataFrame:
    """At most ``cap`` candidates per (document, rule): the earliest ones."""
    w = Window.partitionBy("id", "rule").orderBy("cand_fetched_at", "cand_id")
    return (
        cands.dropDuplicates(["id", "rule", "cand_id"])
        .withColumn("_n", F.row_number().over(w))
        .filter(F.col("_n") <= cap)
        .drop("_n")
    )


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Writes work/lookups (store answers per key) and work/candidates."""
    cfg = ctx.cfg
    cap = cfg.limits.max_postings_per_key
    stats: dict[str, Any] = {}
    sc = spark.sparkContext
    with timed(stats):
        docs = spark.read.parquet(ctx.path("docs"))
        rules = [r for r in cfg.cascade.rules if r in RULE_COLUMNS]
        keys = explode_keys(docs, rules)
        filters = sc.broadcast(load_filters(ctx))
        counters = {
            n: sc.accumulator(0)
            for n in ("probes", "hits", "false_positives", "round_trips", "rows_read")
        }
        store_url, day, batch = ctx.store, ctx.day, cfg.limits.store_batch_size
        lookups = keys.rdd.mapPartitions(
            lambda it: _lookup_partition(it, filters, store_url, day, cap, batch, counters)
        )
        spark.createDataFrame(lookups, schemas.LOOKUPS).write.mode("overwrite").parquet(
            ctx.path("lookups")
        )
        looked = spark.read.parquet(ctx.path("lookups"))
        earlier = looked.filter(F.col("cand_id").isNotNull()).select(
            *schemas.CANDIDATES.fieldNames()
        )
        same_day = same_day_pairs(rank_within_day(keys), cap, ctx.day)
        cands = earliest_per_rule(earlier.unionByName(same_day), cap)
        cands.write.mode("overwrite").parquet(ctx.path("candidates"))
        written = spark.read.parquet(ctx.path("candidates"))
        stats["candidates"] = {
            r["rule"]: r["count"] for r in written.groupBy("rule").count().collect()
        }
        stats["bloom"] = {
            n: a.value for n, a in counters.items() if n in ("probes", "hits", "false_positives")
        }
        stats["store"] = {
            "round_trips": counters["round_trips"].value,
            "rows_read": counters["rows_read"].value,
        }
        filters.unpersist()
    ctx.write_stats("candidates", stats)
    return stats
