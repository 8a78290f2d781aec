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
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from crawldedup.core.grouping import groups
from crawldedup.pipeline.candidates_stage import RULE_COLUMNS, explode_keys, rank_within_day
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

GROUPS = StructType(
    [StructField("id", StringType(), False), StructField("group", StringType(), False)]
)


def resolve_groups(
    spark: SparkSession, ctx: DayContext, docs: DataFrame, decisions: DataFrame
) -> tuple[DataFrame, dict[str, dict[str, bytes]]]:
    """(id, group) for the day's duplicates, by union-find on the driver, and the
    membership cells of earlier days' canonicals that gained members today.

    Only duplicate edges travel to the driver (two ids each), never the day's documents.
    """
    edges = [
        (r["id"], r["duplicate_of"])
        for r in decisions.filter(F.col("verdict") == "duplicate")
        .select("id", "duplicate_of")
        .collect()
    ]
    canon_cells: dict[str, dict[str, bytes]] = {}
    if not edges:
        return spark.createDataFrame([], GROUPS), canon_cells
    involved = {a for a, _ in edges} | {b for _, b in edges}
    order: dict[str, tuple[str, str]] = {}
    today = docs.select("id", "fetched_at").join(
        spark.createDataFrame([(i,) for i in involved], "id string"), "id"
    )
    for r in today.collect():
        order[r["id"]] = (r["fetched_at"], r["id"])
    earlier = sorted(involved - order.keys())
    all_edges = list(edges)
    if earlier:
        with open_store(ctx.store) as store:
            found = store.get("docs", earlier, columns=["m:group", "m:fetched_at"])
            canon = sorted(
                {(found.get(t, {}).get("m:group") or t.encode()).decode() for t in earlier}
            )
            canon_rows = store.get("docs", canon, columns=["m:fetched_at", "m:day"])
        for t in earlier:
            row = found.get(t, {})
            order[t] = ((row.get("m:fetched_at") or b"").decode(), t)
            g = (row.get("m:group") or t.encode()).decode()
            if g != t:
                all_edges.append((t, g))
        for g in canon:
            row = canon_rows.get(g, {})
            fetched = (row.get("m:fetched_at") or b"").decode()
            order.setdefault(g, (fetched, g))
            if row:
                day = (row.get("m:day") or b"").decode()
                canon_cells[g] = {posting_column(g): posting_value(day, fetched)}
    mapping = groups({a for a, _ in edges}, all_edges, order)
    return spark.createDataFrame(sorted(mapping.items()), GROUPS), canon_cells


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
        .select("id", "fetched_at", "rule", "key")
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
                posting_value(day, r["fetched_at"])
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
        with open_store(store_url) as store:
            store.put("groups", canon_cells)
        stats["store"] = _sum_stats(post_stats + doc_stats)
        if cfg.output.delete_list:
            stats["delete_list"] = write_delete_list(ctx, full)
        stats["postings_written"] = postings.count()
    ctx.write_stats("publish", stats)
    return stats
