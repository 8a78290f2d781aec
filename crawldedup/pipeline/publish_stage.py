"""Stage 5: groups, then verdicts, document rows and index postings written to the store.

Rerunning a day replaces that day's results: the previous run's group memberships
of the day are removed first, and documents that are no longer in the day's input
lose their postings, document row and verdict. All other writes are puts of the
same cells, so a rerun is idempotent. Index postings are capped per key: a
document's posting is written only while the key has fewer than
``limits.max_postings_per_key`` postings of earlier-or-equal rank.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from crawldedup.core.grouping import groups
from crawldedup.pipeline.candidates_stage import RULE_COLUMNS, explode_keys, rank_within_day
from crawldedup.pipeline.components import connected_components
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.store import Store, open_store
from crawldedup.store.base import INDEX_TABLES
from crawldedup.store.schema import (
    VerdictRecord,
    doc_row,
    posting_column,
    posting_value,
    verdict_row_key,
)

T = TypeVar("T")

GROUPS = StructType(
    [StructField("id", StringType(), False), StructField("group", StringType(), False)]
)


CANON_CELLS = StructType(
    [
        StructField("id", StringType(), False),
        StructField("day", StringType(), False),
        StructField("fetched_at", StringType(), False),
    ]
)


def resolve_groups(
    spark: SparkSession, ctx: DayContext, docs: DataFrame, decisions: DataFrame
) -> tuple[DataFrame, DataFrame]:
    """(id, group) for the day's duplicates, and (id, day, fetched_at) of the earlier
    days' canonicals that gained members today (they get a membership cell).

    Up to ``limits.max_driver_edges`` duplicate edges, union-find on the driver (only
    the edges travel, two ids each); above, connected components in Spark.
    """
    dups = decisions.filter(F.col("verdict") == "duplicate").select(
        "id", F.col("duplicate_of").alias("target")
    )
    if dups.count() > ctx.cfg.limits.max_driver_edges:
        return _resolve_groups_in_spark(spark, ctx, docs, dups)
    edges = [(r["id"], r["target"]) for r in dups.collect()]
    canon_cells: list[tuple[str, str, str]] = []
    if not edges:
        return spark.createDataFrame([], GROUPS), spark.createDataFrame([], CANON_CELLS)
    involved = {a for a, _ in edges} | {b for _, b in edges}
    order: dict[str, tuple[str, str]] = {}
    today = docs.select("id", "fetched_at").join(
        spark.createDataFrame([(i,) for i in involved], "id string"), "id"
    )
    for r in today.collect():
        order[r["id"]] = (r["fetched_at"], r["id"])
    all_edges = list(edges)
    earlier = sorted(involved - order.keys())
    if earlier:
        with open_store(ctx.store) as store:
            for t, t_fetched, g, g_fetched, g_day in _earlier_groups(store, earlier):
                order[t] = (t_fetched, t)
                order.setdefault(g, (g_fetched, g))
                if g != t:
                    all_edges.append((t, g))
                if g_day is not None:
                    canon_cells.append((g, g_day, g_fetched))
    mapping = groups({a for a, _ in edges}, all_edges, order)
    return (
        spark.createDataFrame(sorted(mapping.items()), GROUPS),
        spark.createDataFrame(sorted(set(canon_cells)), CANON_CELLS),
    )


def _earlier_groups(
    store: Store, targets: list[str]
) -> Iterator[tuple[str, str, str, str, str | None]]:
    """(target, its fetched_at, its group, the group's fetched_at, the group's day or
    None when the group has no document row) for targets of earlier days."""
    found = store.get("docs", targets, columns=["m:group", "m:fetched_at"])
    group_of = {t: (found.get(t, {}).get("m:group") or t.encode()).decode() for t in targets}
    canon_rows = store.get(
        "docs", sorted(set(group_of.values())), columns=["m:fetched_at", "m:day"]
    )
    for t in targets:
        g = group_of[t]
        row = canon_rows.get(g, {})
        yield (
            t,
            (found.get(t, {}).get("m:fetched_at") or b"").decode(),
            g,
            (row.get("m:fetched_at") or b"").decode(),
            (row.get("m:day") or b"").decode() if row else None,
        )


EARLIER = StructType(
    [
        StructField("t", StringType(), False),
        StructField("t_fetched", StringType(), False),
        StructField("g", StringType(), False),
        StructField("g_fetched", StringType(), False),
        StructField("g_day", StringType(), True),
    ]
)


def _resolve_groups_in_spark(
    spark: SparkSession, ctx: DayContext, docs: DataFrame, dups: DataFrame
) -> tuple[DataFrame, DataFrame]:
    """:func:`resolve_groups` with nothing collected: store lookups in the executors,
    then :func:`connected_components`."""
    store_url, batch = ctx.store, ctx.cfg.limits.store_batch_size
    today = docs.select("id", "fetched_at")
    targets = dups.select(F.col("target").alias("id")).distinct().join(today, "id", "left_anti")

    def lookup(rows: Iterable[Row]) -> Iterator[tuple[str, str, str, str, str | None]]:
        with open_store(store_url) as store:
            for chunk in in_batches((r["id"] for r in rows), batch):
                yield from _earlier_groups(store, chunk)

    earlier = spark.createDataFrame(targets.rdd.mapPartitions(lookup), EARLIER)
    earlier.write.mode("overwrite").parquet(ctx.path("groups_earlier"))
    earlier = spark.read.parquet(ctx.path("groups_earlier"))
    edges = dups.select(F.col("id").alias("a"), F.col("target").alias("b")).unionByName(
        earlier.filter(F.col("t") != F.col("g")).select(
            F.col("t").alias("a"), F.col("g").alias("b")
        )
    )
    vertices = dups.select("id").unionByName(dups.select(F.col("target").alias("id"))).distinct()
    order = (
        vertices.join(today, "id")
        .unionByName(earlier.select(F.col("t").alias("id"), F.col("t_fetched").alias("fetched_at")))
        .unionByName(earlier.select(F.col("g").alias("id"), F.col("g_fetched").alias("fetched_at")))
        .dropDuplicates(["id"])
    )
    labels = connected_components(spark, edges, order, ctx.path("components"))
    group_map = dups.select("id").join(labels, "id")
    canon = (
        earlier.filter(F.col("g_day").isNotNull())
        .select(
            F.col("g").alias("id"),
            F.col("g_day").alias("day"),
            F.col("g_fetched").alias("fetched_at"),
        )
        .distinct()
    )
    return group_map, canon


def in_batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of at most ``size`` items."""
    batch: list[T] = []
    for x in items:
        batch.append(x)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _write_canon_cells(rows: Iterable[Row], store_url: str, batch_size: int) -> Iterator[int]:
    with open_store(store_url) as store:
        for chunk in in_batches(rows, batch_size):
            store.put(
                "groups",
                {
                    r["id"]: {posting_column(r["id"]): posting_value(r["day"], r["fetched_at"])}
                    for r in chunk
                },
            )
        yield store.stats.round_trips


def _retract_partition(
    rows: Iterable[Row], store_url: str, day: str, batch_size: int
) -> Iterator[int]:
    """Remove the previous run's group cells of the day, and everything of stale docs."""
    with open_store(store_url) as store:
        batch: list[Row] = []
        n = 0
        for r in rows:
            batch.append(r)
            if len(batch) >= batch_size:
                n += _retract_batch(store, batch, day)
                batch = []
        if batch:
            n += _retract_batch(store, batch, day)
        yield n


def _retract_batch(store: Store, batch: list[Row], day: str) -> int:
    by_group: dict[str, list[str]] = {}
    for r in batch:
        by_group.setdefault(r["old_group"], []).append(r["id"])
    for g, ids in by_group.items():
        store.delete("groups", [g], columns=[posting_column(i) for i in ids])
    stale = [r["id"] for r in batch if r["stale"]]
    if stale:
        doc_rows = store.get("docs", stale, columns=["m:keys", "m:day"])
        for doc_id in stale:
            row = doc_rows.get(doc_id, {})
            if row.get("m:day", b"").decode() != day:
                continue  # the id now belongs to another day's document
            keys = json.loads(row.get("m:keys", b"{}"))
            for rule, key in keys.items():
                if key and rule in INDEX_TABLES:
                    rows = key if isinstance(key, list) else [key]
                    store.delete(INDEX_TABLES[rule], rows, columns=[posting_column(doc_id)])
        store.delete(
            "docs", [d for d in stale if doc_rows.get(d, {}).get("m:day", b"").decode() == day]
        )
        store.delete("verdicts", [verdict_row_key(day, d) for d in stale])
    return len(batch)


def _scan_day_verdicts(store_url: str, day: str) -> Iterator[tuple[str, str]]:
    with open_store(store_url) as store:
        for key, row in store.scan_prefix("verdicts", f"{day}|"):
            doc_id = key.partition("|")[2]
            yield doc_id, (row.get("v:group") or doc_id.encode()).decode()


def retract_previous_run(spark: SparkSession, ctx: DayContext, docs: DataFrame) -> int:
    store_url, day = ctx.store, ctx.day
    # One task streams the day's verdict range; the driver never holds it.
    old = spark.createDataFrame(
        spark.sparkContext.parallelize([0], 1).flatMap(
            lambda _: _scan_day_verdicts(store_url, day)
        ),
        "id string, old_group string",
    )
    current = docs.select("id", F.lit(False).alias("stale"))
    marked = old.join(current, "id", "left").select(
        "id", "old_group", F.coalesce(F.col("stale"), F.lit(True)).alias("stale")
    )
    batch = ctx.cfg.limits.store_batch_size
    return int(
        sum(
            marked.rdd.mapPartitions(
                lambda it: _retract_partition(it, store_url, day, batch)
            ).collect()
        )
    )


def postings_to_write(docs: DataFrame, lookups: DataFrame, rules: list[str], cap: int) -> DataFrame:
    """(id, fetched_at, rule, key) of the postings this day adds under the per-key cap."""
    ranked = rank_within_day(explode_keys(docs, rules))
    n_other = (
        lookups.filter(F.col("cand_id").isNull())
        .groupBy("rule", "key")
        .agg(F.max("n_other").alias("n_other"))
    )
    return (
        ranked.join(n_other, ["rule", "key"], "left")
        .filter(F.col("rank") + F.coalesce(F.col("n_other"), F.lit(0)) <= cap)
        .select("id", "fetched_at", "rule", "key", "simhash")
    )


def _write_postings(
    rows: Iterable[Row], store_url: str, day: str, batch_size: int
) -> Iterator[dict[str, int]]:
    with open_store(store_url) as store:
        pending: dict[str, dict[str, dict[str, bytes]]] = {}
        n = 0
        for r in rows:
            table = INDEX_TABLES[r["rule"]]
            pending.setdefault(table, {}).setdefault(r["key"], {})[posting_column(r["id"])] = (
                posting_value(
                    day, r["fetched_at"], r["simhash"] if r["rule"] == "simhash" else None
                )
            )
            n += 1
            if n >= batch_size:
                for t, cells in pending.items():
                    store.put(t, cells)
                pending, n = {}, 0
        for t, cells in pending.items():
            store.put(t, cells)
        yield store.stats.as_dict()


def _write_docs(
    rows: Iterable[Row], store_url: str, day: str, batch_size: int
) -> Iterator[dict[str, int]]:
    with open_store(store_url) as store:
        docs_rows: dict[str, dict[str, bytes]] = {}
        verdicts: dict[str, dict[str, bytes]] = {}
        members: dict[str, dict[str, bytes]] = {}

        def flush() -> None:
            store.put("docs", docs_rows)
            store.put("verdicts", verdicts)
            store.put("groups", members)
            docs_rows.clear()
            verdicts.clear()
            members.clear()

        for r in rows:
            group = r["group"] or r["id"]
            keys = {rule: r[col] for rule, col in RULE_COLUMNS.items()}
            docs_rows[r["id"]] = doc_row(
                url=r["url"],
                title=r["title"],
                day=day,
                fetched_at=r["fetched_at"],
                keys=keys,
                simhash=r["simhash"],
                tf_json=r["tf"],
                group=group,
                raw_md5=r["raw_md5"],
                sketch=r["sketch"],
            )
            rec = VerdictRecord(
                r["id"],
                r["verdict"],
                r["rule"],
                r["duplicate_of"],
                r["similarity"],
                group,
                r["type"],
            )
            verdicts[verdict_row_key(day, r["id"])] = rec.to_row()
            if r["verdict"] == "duplicate" or r["is_canon"]:
                cells = members.setdefault(group, {})
                cells[posting_column(r["id"])] = posting_value(day, r["fetched_at"])
            if len(docs_rows) >= batch_size:
                flush()
        flush()
        yield store.stats.as_dict()


def _sum_stats(parts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in parts:
        for k, v in p.items():
            out[k] = out.get(k, 0) + v
    return out


def write_delete_list(ctx: DayContext, full: DataFrame) -> dict[str, Any]:
    """The day's duplicates, for downstream deletion: id, canonical, rule, type."""
    out = str(ctx.home / "deletions" / f"dt={ctx.day}")
    dups = full.filter(F.col("verdict") == "duplicate").select(
        "id",
        "url",
        "duplicate_of",
        F.coalesce("group", "duplicate_of").alias("group"),
        "rule",
        "type",
    )
    writer = dups.coalesce(1).write.mode("overwrite")
    if ctx.cfg.output.delete_list == "parquet":
        writer.parquet(out)
    else:
        writer.json(out)
    return {"path": out, "format": ctx.cfg.output.delete_list}


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    cfg = ctx.cfg
    stats: dict[str, Any] = {}
    with timed(stats):
        docs = spark.read.parquet(ctx.path("docs"))
        decisions = spark.read.parquet(ctx.path("decisions"))
        group_map, canon_cells = resolve_groups(spark, ctx, docs, decisions)
        canon_cells.write.mode("overwrite").parquet(ctx.path("canon_cells"))
        group_map.write.mode("overwrite").parquet(ctx.path("groups"))
        group_map = spark.read.parquet(ctx.path("groups"))
        # The canonical of a group gets a membership cell too, so a group row lists all
        # (canonicals of earlier days got theirs on their own day).
        canon = (
            group_map.select(F.col("group").alias("id"))
            .distinct()
            .withColumn("is_canon", F.lit(True))
        )
        full = docs.join(decisions, "id").join(group_map, "id", "left").join(canon, "id", "left")
        stats["groups_with_duplicates_today"] = canon.count()
        if ctx.dry_run:
            stats["dry_run"] = True
            ctx.write_stats("publish", stats)
            return stats
        store_url, day, batch = ctx.store, ctx.day, cfg.limits.store_batch_size
        stats["retracted_rows"] = retract_previous_run(spark, ctx, docs)
        rules = [r for r in cfg.cascade.rules if r in RULE_COLUMNS]
        lookups = spark.read.parquet(ctx.path("lookups"))
        postings = postings_to_write(docs, lookups, rules, cfg.limits.max_postings_per_key)
        post_stats = postings.rdd.mapPartitions(
            lambda it: _write_postings(it, store_url, day, batch)
        ).collect()
        doc_stats = full.rdd.mapPartitions(
            lambda it: _write_docs(it, store_url, day, batch)
        ).collect()
        canon_rows = spark.read.parquet(ctx.path("canon_cells"))
        canon_rows.rdd.mapPartitions(lambda it: _write_canon_cells(it, store_url, batch)).collect()
        stats["store"] = _sum_stats(post_stats + doc_stats)
        if cfg.output.delete_list:
            stats["delete_list"] = write_delete_list(ctx, full)
        stats["postings_written"] = postings.count()
    ctx.write_stats("publish", stats)
    return stats
