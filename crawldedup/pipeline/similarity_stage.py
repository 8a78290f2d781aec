"""Stage 4: every candidate pair measured on the executors, then the cascade decision.

Rule B (same content md5) needs no cosine. A document with a B candidate stops
there (docs/algorithm.md#decision-order), so its C/D/A candidates are never scored. Each
distinct (document, candidate) pair is scored once even when several rules found it.
Per pair: the SimHash distance, the term-shingle Jaccard and containment from the two
bottom-k sketches (docs/algorithm.md#verification) and, when the profile needs it
(``cascade.needs_cosine``), the character cosine, computed a whole Arrow batch of pairs
at a time (``pair_scoring``). Without the cosine no term vector enters the pairs. The
candidate side of earlier days comes from the store in batched multi-gets, once per
distinct candidate. Without the cosine, Python tasks score the pairs straight from the
candidates' files (``id_pair_scores``), and the decisions are made from the files
(``decision_files``); with the cosine, or candidates ranked by id partitions, the
decision is Spark SQL (``decisions``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from crawldedup.config import Config
from crawldedup.core.cascade import Policy
from crawldedup.core.duplicate_types import duplicate_type
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.decision_files import decide_files
from crawldedup.pipeline.decisions import decide_all
from crawldedup.pipeline.edition_groups import part_editions
from crawldedup.pipeline.id_pair_scores import fetch_earlier, scores_of_id_files
from crawldedup.pipeline.pair_scoring import score_pairs
from crawldedup.pipeline.part_files import parts_alike
from crawldedup.pipeline.store_batches import store_batches
from crawldedup.pipeline.work_files import read_work
from crawldedup.rules import Rule
from crawldedup.stage_registry import (
    CANDIDATES,
    DECISIONS,
    DECISIONS_UNTYPED,
    DOCS,
    SCORES,
    TAGVEC,
)
from crawldedup.store import Store
from crawldedup.store.schema import get_docs


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


def _type_partition(
    rows: Iterable[Row], store_url: str, batch_size: int, cfg: Config, counters: dict[str, Any]
) -> Iterator[tuple[str, str]]:
    """Duplicate type of each (doc, target) pair; earlier-day targets come from the store."""
    cols = ["v:tf", "m:raw_md5", "m:keys"]

    def flush(store: Store, batch: list[Row]) -> Iterator[tuple[str, str]]:
        earlier = [r["duplicate_of"] for r in batch if r["t_tf"] is None]
        found: dict[str, dict[str, bytes]] = {}
        if earlier:  # a batch of same-day targets never opens the store
            found = get_docs(store, earlier, cols)
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
    docs = read_work(spark, ctx.path(DOCS)).select("id", "tf", "raw_md5", "content_key")
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


def _earlier_sides(
    spark: SparkSession,
    ctx: DayContext,
    pairs: DataFrame,
    counters: dict[str, Any],
    vector: str | None,
) -> DataFrame:
    """CANDIDATE_SIDE rows of the pairs' candidates of earlier days, from the store."""
    store_url, batch = ctx.store, ctx.cfg.limits.store_batch_size
    earlier_ids = pairs.filter(F.col("cand_day") != ctx.day).select("cand_id").distinct()
    return spark.createDataFrame(
        earlier_ids.rdd.mapPartitions(
            lambda it: fetch_earlier(it, store_url, batch, counters, vector)
        ),
        schemas.CANDIDATE_SIDE,
    )


def scores_with_cosine(
    spark: SparkSession, ctx: DayContext, cands: DataFrame, counters: dict[str, Any]
) -> None:
    """work/scores with the cosine: both sides' term vectors joined to every pair."""
    cfg = ctx.cfg
    docs = read_work(spark, ctx.path(DOCS)).select(
        "id", "tf", "simhash", "sketch", "length", "url", "own_sketch"
    )
    vector = cfg.cascade.cosine_weights
    if vector == "tag_tfidf":
        # Seed 003's tf · idf · Twf vectors (relevance stage) instead of raw tf.
        vectors = read_work(spark, ctx.path(TAGVEC))
        docs = docs.drop("tf").join(vectors.withColumnRenamed("tagvec", "tf"), "id", "left")
        docs = docs.fillna({"tf": "{}"})
    pairs = pairs_to_score(cands).join(docs, "id")
    earlier = _earlier_sides(spark, ctx, pairs, counters, vector)
    today = docs.select(
        F.col("id").alias("cand_id"),
        F.col("tf").alias("cand_tf"),
        F.col("simhash").alias("cand_simhash"),
        F.col("sketch").alias("cand_sketch"),
        F.col("length").alias("cand_length"),
        F.col("url").alias("cand_url"),
        F.col("own_sketch").alias("cand_own"),
    )
    # Two joins, not one against a union: the day's side stays small enough for Spark
    # to broadcast, so the pairs (and their term vectors) are not shuffled.
    sides = (
        pairs.filter(F.col("cand_day") == ctx.day)
        .join(today, "cand_id")
        .unionByName(pairs.filter(F.col("cand_day") != ctx.day).join(earlier, "cand_id"))
    )
    score_pairs(sides, cfg.simhash.sketch_size).write.mode("overwrite").parquet(ctx.path(SCORES))


def with_paragraph_sizes(spark: SparkSession, ctx: DayContext, scored: DataFrame) -> DataFrame:
    """``scored`` with the judged document's ``PARAGRAPH_SIZES`` (work/docs) for rule
    paragraph's excerpts (``core.cascade.excerpt_verify``); nulls when the rule is off,
    and no join."""
    if Rule.PARAGRAPH.value not in ctx.cfg.cascade.rules:
        null = F.lit(None).cast("int")
        return scored.withColumns({name: null for name in PARAGRAPH_SIZES})
    sizes = read_work(spark, ctx.path(DOCS)).select("id", *PARAGRAPH_SIZES)
    return scored.join(sizes, "id", "left")


PARAGRAPH_SIZES = ("paragraph_size", "paragraph_edges")


def files_aligned(ctx: DayContext) -> bool:
    """Whether candidates file ``i`` and scores file ``i`` hold the candidates of docs file
    ``i`` (no cosine; the candidates' files named as the docs' files, not written by
    Spark by id partitions): the decisions are made from the files
    (``decision_files``), else in Spark (:func:`decide_in_spark`)."""
    if ctx.cfg.cascade.needs_cosine:
        return False
    return parts_alike(ctx.folder(CANDIDATES), ctx.folder(DOCS))


def decide_in_spark(
    spark: SparkSession, ctx: DayContext, cands: DataFrame, counters: dict[str, Any]
) -> None:
    """work/decisions by Spark jobs: ``decisions.decide_all`` on the candidates joined
    with their scores, the editions parted, the duplicates typed."""
    cfg = ctx.cfg
    scores = read_work(spark, ctx.path(SCORES))
    scored = with_paragraph_sizes(spark, ctx, cands.join(scores, ["id", "cand_id"], "left"))
    decisions = decide_all(scored, Policy.from_config(cfg), cfg.cascade.rules)
    all_docs = read_work(spark, ctx.path(DOCS)).select("id", "boilerplate_only")
    full = all_docs.join(decisions, "id", "left").select(
        "id",
        F.coalesce(F.col("verdict"), F.lit("unique")).alias("verdict"),
        "rule",
        "duplicate_of",
        "similarity",
        # A page of nothing but boilerplate was judged by its exact key alone: say so.
        F.when(F.col("boilerplate_only"), F.lit("boilerplate_only"))
        .otherwise(F.col("measure"))
        .alias("measure"),
    )
    full.write.mode("overwrite").parquet(ctx.path(DECISIONS_UNTYPED))
    untyped = part_editions(spark, ctx, read_work(spark, ctx.path(DECISIONS_UNTYPED)))
    types = type_duplicates(spark, ctx, untyped, counters)
    untyped.join(types, "id", "left").write.mode("overwrite").parquet(ctx.path(DECISIONS))


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Writes work/scores (measures per pair) and work/decisions (verdict per document)."""
    cfg = ctx.cfg
    stats: dict[str, Any] = {}
    sc = spark.sparkContext
    with timed(stats):
        cands = read_work(spark, ctx.path(CANDIDATES))
        counters = {n: sc.accumulator(0) for n in ("round_trips", "rows_read")}
        if cfg.cascade.needs_cosine:
            scores_with_cosine(spark, ctx, cands, counters)
        else:
            scores_of_id_files(spark, ctx, counters)
        if files_aligned(ctx):
            decide_files(spark, ctx, counters)
        else:
            decide_in_spark(spark, ctx, cands, counters)
        stats["pairs_scored"] = ctx.rows(SCORES)
        # Both tallies from one count by (rule, type), summed each way on the driver.
        stats["verdicts"], stats["types"] = {}, {}
        for rule_name, kind, n in ctx.counts(DECISIONS, ["rule", "type"]):
            rule = rule_name or "unique"
            stats["verdicts"][rule] = stats["verdicts"].get(rule, 0) + n
            if kind is not None:
                stats["types"][kind] = stats["types"].get(kind, 0) + n
        stats["store"] = {n: a.value for n, a in counters.items()}
    ctx.write_stats("similarity", stats)
    return stats


# Its result on a day with nothing to judge (no document, nothing of the day in the
# store): the runner writes it without running the stage, so no Spark job starts.
EMPTY_DAY: dict[str, Any] | None = {
    "pairs_scored": 0,
    "verdicts": {"unique": 0},
    "types": {},
    "store": {},
}


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    v = stats.get("verdicts", {})
    dup = sum(n for r, n in v.items() if r != "unique")
    pairs = stats.get("pairs_scored", 0)
    return f"{pairs} pairs scored, {dup} duplicates, {v.get('unique', 0)} unique"
