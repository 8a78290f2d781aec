"""Stage 4: every candidate pair measured on the executors, then the cascade decision.

Rule B (same content md5) needs no cosine. A document with a B candidate stops
there (docs/algorithm.md#decision-order), so its C/D/A candidates are never scored. Each
distinct
(document, candidate) pair is scored once even when several rules found it.
Per pair: the character cosine, the SimHash distance, and the term-shingle Jaccard and
containment from the two bottom-k sketches (docs/algorithm.md#verification). Vectors
and sketches of earlier days come from the store in batched multi-gets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from crawldedup.config import Config
from crawldedup.core.cascade import Candidate, Policy, decide
from crawldedup.core.duplicate_types import duplicate_type
from crawldedup.core.fingerprint import (
    hamming64,
    sketch_containment,
    sketch_jaccard,
    sketch_set_size,
)
from crawldedup.core.similarity import cosine
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.store_batches import store_batches
from crawldedup.rules import Rule
from crawldedup.store import Store


def _hamming(a: str | None, b: str | None) -> int | None:
    return hamming64(int(a, 16), int(b, 16)) if a and b else None


Score = tuple[str, str, float, int | None, float, float, float, int | None]


def _score(
    doc_id: str,
    cand_id: str,
    sim: float,
    simhash: str | None,
    cand_simhash: str | None,
    sketch: str,
    cand_sketch: str,
    k: int,
    length: int,
    cand_length: int | None,
) -> Score:
    return (
        doc_id,
        cand_id,
        sim,
        _hamming(simhash, cand_simhash),
        sketch_jaccard(sketch, cand_sketch, k),
        sketch_containment(sketch, cand_sketch, k),
        min(sketch_set_size(sketch, k), sketch_set_size(cand_sketch, k)),
        None if cand_length is None else min(length, cand_length),
    )


def _score_same_day(rows: Iterable[Row], k: int) -> Iterator[Score]:
    for r in rows:
        sim = cosine(json.loads(r["tf"]), json.loads(r["cand_tf"]))
        yield _score(
            r["id"],
            r["cand_id"],
            sim,
            r["simhash"],
            r["cand_simhash"],
            r["sketch"],
            r["cand_sketch"],
            k,
            r["length"],
            r["cand_length"],
        )


def _score_earlier(
    rows: Iterable[Row],
    store_url: str,
    batch_size: int,
    counters: dict[str, Any],
    k: int,
    tag_tfidf: bool = False,
) -> Iterator[Score]:
    def flush(store: Store, batch: list[Row]) -> Iterator[Score]:
        ids = [r["cand_id"] for r in batch]
        found = store.get("docs", ids, columns=["v:tf", "m:simhash", "v:sketch", "m:length"])
        # cascade.cosine_weights = "tag_tfidf": the vectors the relevance stage stored.
        vectors = store.get("rel_docs", ids, columns=["v:tagvec"]) if tag_tfidf else {}
        for r in batch:
            row = found.get(r["cand_id"], {})
            cell = vectors.get(r["cand_id"], {}).get("v:tagvec") if tag_tfidf else row.get("v:tf")
            # A candidate whose document row vanished cannot be verified: similarity 0.
            sim = cosine(json.loads(r["tf"]), json.loads(cell)) if cell else 0.0
            cand_sh = row.get("m:simhash")
            cand_len = row.get("m:length")  # absent in rows written before it was stored
            yield _score(
                r["id"],
                r["cand_id"],
                sim,
                r["simhash"],
                cand_sh.decode() if cand_sh else None,
                r["sketch"],
                (row.get("v:sketch") or b"").decode(),
                k,
                r["length"],
                int(cand_len) if cand_len else None,
            )

    return store_batches(rows, store_url, batch_size, flush, counters)


def pairs_to_score(cands: DataFrame) -> DataFrame:
    """Distinct (id, cand_id, cand_day) pairs needing a cosine (no B candidate for id)."""
    exact = Rule.CONTENT_MD5.value
    exact_ids = cands.filter(F.col("rule") == exact).select("id").distinct()
    return (
        cands.filter(F.col("rule") != exact)
        .join(exact_ids, "id", "left_anti")
        .select("id", "cand_id", "cand_day")
        .distinct()
    )


def decide_all(
    rows: Iterable[Row], cfg: Config
) -> tuple[str, str, str | None, str | None, float | None, str | None]:
    rows = list(rows)
    doc_id = rows[0]["id"]
    d = decide(
        (
            Candidate(
                r["cand_id"],
                r["cand_fetched_at"],
                r["rule"],
                r["similarity"] or 0.0,
                r["hamming"],
                r["jaccard"],
                r["containment"],
                r["smaller_shingles"],
                r["shorter_chars"],
            )
            for r in rows
        ),
        Policy.from_config(cfg),
        cfg.cascade.rules,
    )
    return doc_id, d.verdict, d.rule, d.duplicate_of, d.similarity, d.measure


def _type_partition(
    rows: Iterable[Row], store_url: str, batch_size: int, cfg: Config, counters: dict[str, Any]
) -> Iterator[tuple[str, str]]:
    """Duplicate type of each (doc, target) pair; earlier-day targets come from the store."""
    cols = ["v:tf", "m:raw_md5", "m:keys"]

    def flush(store: Store, batch: list[Row]) -> Iterator[tuple[str, str]]:
        earlier = [r["duplicate_of"] for r in batch if r["t_tf"] is None]
        found: dict[str, dict[str, bytes]] = {}
        if earlier:  # a batch of same-day targets never opens the store
            found = store.get("docs", earlier, columns=cols)
        for r in batch:
            if r["t_tf"] is not None:
                t_tf, t_raw, t_content = r["t_tf"], r["t_raw"], r["t_content"]
            else:
                row = found.get(r["duplicate_of"], {})
                t_tf = (row.get("v:tf") or b"{}").decode()
                t_raw = (row.get("m:raw_md5") or b"").decode()
                t_content = json.loads(row.get("m:keys") or b"{}").get(Rule.CONTENT_MD5)
            yield (
                r["id"],
                duplicate_type(
                    raw_equal=bool(t_raw) and t_raw == r["raw_md5"],
                    content_equal=t_content is not None and t_content == r["content_key"],
                    tf_a=json.loads(r["tf"]),
                    tf_b=json.loads(t_tf),
                    partial_containment=cfg.cascade.partial_containment,
                ),
            )

    return store_batches(rows, store_url, batch_size, flush, counters)


def type_duplicates(
    spark: SparkSession, ctx: DayContext, decisions: DataFrame, counters: dict[str, Any]
) -> DataFrame:
    """(id, type) of every duplicate: full, content, partial or near (docs/algorithm.md)."""
    docs = spark.read.parquet(ctx.path("docs")).select("id", "tf", "raw_md5", "content_key")
    targets = docs.select(
        F.col("id").alias("duplicate_of"),
        F.col("tf").alias("t_tf"),
        F.col("raw_md5").alias("t_raw"),
        F.col("content_key").alias("t_content"),
    )
    dups = (
        decisions.filter(F.col("verdict") == "duplicate")
        .select("id", "duplicate_of")
        .join(docs, "id")
        .join(targets, "duplicate_of", "left")
    )
    store_url, batch, cfg = ctx.store, ctx.cfg.limits.store_batch_size, ctx.cfg
    typed = dups.rdd.mapPartitions(lambda it: _type_partition(it, store_url, batch, cfg, counters))
    return spark.createDataFrame(typed, schemas.TYPES)


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Writes work/scores (cosine per pair) and work/decisions (verdict per document)."""
    cfg = ctx.cfg
    stats: dict[str, Any] = {}
    sc = spark.sparkContext
    with timed(stats):
        docs = spark.read.parquet(ctx.path("docs")).select("id", "tf", "simhash", "sketch", "length")
        tag_tfidf = cfg.cascade.cosine_weights == "tag_tfidf"
        if tag_tfidf:
            # Seed 003's tf · idf · Twf vectors (relevance stage) instead of raw tf.
            vectors = spark.read.parquet(ctx.path("relevance/tagvec"))
            docs = docs.drop("tf").join(vectors.withColumnRenamed("tagvec", "tf"), "id", "left")
            docs = docs.fillna({"tf": "{}"})
        cands = spark.read.parquet(ctx.path("candidates"))
        pairs = pairs_to_score(cands).join(docs, "id")
        same = pairs.filter(F.col("cand_day") == ctx.day).join(
            docs.select(
                F.col("id").alias("cand_id"),
                F.col("tf").alias("cand_tf"),
                F.col("simhash").alias("cand_simhash"),
                F.col("sketch").alias("cand_sketch"),
                F.col("length").alias("cand_length"),
            ),
            "cand_id",
        )
        counters = {n: sc.accumulator(0) for n in ("round_trips", "rows_read")}
        store_url, batch = ctx.store, cfg.limits.store_batch_size
        earlier = pairs.filter(F.col("cand_day") != ctx.day)
        k = cfg.simhash.sketch_size
        scored_rdd = same.rdd.mapPartitions(lambda it: _score_same_day(it, k)).union(
            earlier.rdd.mapPartitions(
                lambda it: _score_earlier(it, store_url, batch, counters, k, tag_tfidf)
            )
        )
        spark.createDataFrame(scored_rdd, schemas.PAIR_SCORES).write.mode("overwrite").parquet(
            ctx.path("scores")
        )
        scores = spark.read.parquet(ctx.path("scores"))
        scored = cands.join(scores, ["id", "cand_id"], "left").withColumn(
            "similarity",
            F.when(F.col("rule") == Rule.CONTENT_MD5.value, F.lit(1.0)).otherwise(
                F.col("similarity")
            ),
        )
        decided = scored.rdd.groupBy(lambda r: r["id"]).map(lambda kv: decide_all(kv[1], cfg))
        decisions = spark.createDataFrame(decided, schemas.DECISIONS)
        all_docs = spark.read.parquet(ctx.path("docs")).select("id")
        full = all_docs.join(decisions, "id", "left").select(
            "id",
            F.coalesce(F.col("verdict"), F.lit("unique")).alias("verdict"),
            "rule",
            "duplicate_of",
            "similarity",
            "measure",
        )
        full.write.mode("overwrite").parquet(ctx.path("decisions.untyped"))
        untyped = spark.read.parquet(ctx.path("decisions.untyped"))
        types = type_duplicates(spark, ctx, untyped, counters)
        untyped.join(types, "id", "left").write.mode("overwrite").parquet(ctx.path("decisions"))
        written = spark.read.parquet(ctx.path("decisions"))
        stats["pairs_scored"] = scores.count()
        stats["verdicts"] = {
            (r["rule"] or "unique"): r["count"] for r in written.groupBy("rule").count().collect()
        }
        stats["store"] = {n: a.value for n, a in counters.items()}
    ctx.write_stats("similarity", stats)
    return stats
