"""The cascade's decision for every document at once, in Spark SQL.

The same decision as ``crawldedup.core.cascade.decide`` (the definition, with the
reasons), as column expressions and one ``min`` per document instead of Python code per
document: a candidate's verification is a ``when`` chain on its measures, and the
winner is the smallest of (not exact, closeness negated, fetched_at, candidate id, rule
order) among the exact and the verified candidates. ``tests/spark/test_decisions.py``
pins the two to the same verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawldedup.core.cascade import Policy
from crawldedup.rules import Rule

_EXACT = Rule.CONTENT_MD5.value


def _ordinary(policy: Policy) -> tuple[Column, Column]:
    """(measure, value) of a candidate verified without the editions' bar; measure
    null when not."""
    if policy.profile == "seed":
        sim = F.coalesce(F.col("similarity"), F.lit(0.0))
        simhash_ok = (F.col("rule") != Rule.SIMHASH.value) | (
            F.col("hamming").isNotNull()
            & (F.col("hamming") <= policy.max_hamming)
            & (F.coalesce(F.col("jaccard"), F.lit(0.0)) >= policy.simhash_min_jaccard)
        )
        return F.when(simhash_ok & (sim > policy.threshold), F.lit("cosine")), sim
    jaccard = F.coalesce(F.col("jaccard"), F.lit(0.0))
    containment = F.coalesce(F.col("containment"), F.lit(0.0))
    short = (
        F.col("smaller_shingles").isNotNull()
        & (F.col("smaller_shingles") < policy.short_shingles)
        & (F.col("shorter_chars").isNull() | (F.col("shorter_chars") < policy.short_chars))
    )
    j_bar = F.when(short, F.lit(policy.short_min_jaccard)).otherwise(F.lit(policy.min_jaccard))
    c_bar = F.when(short, F.lit(policy.short_min_containment)).otherwise(
        F.lit(policy.min_containment)
    )
    shared = F.col("shared_chars")
    shorter = F.col("shorter_chars")
    # core.cascade.excerpt_verify's share: of the page's size, else of it without its
    # edge lines (each division guarded: CASE WHEN evaluates only its branch).
    mine = (F.col("paragraph_size") > 0) & (
        F.col("cand_chars").isNull() | (shorter < F.col("cand_chars"))
    )
    mine = F.coalesce(mine, F.lit(False))
    size = F.when(mine, F.col("paragraph_size")).otherwise(shorter)
    edges = F.when(mine, F.coalesce(F.col("paragraph_edges"), F.lit(0))).otherwise(F.lit(0))
    body = size - edges
    whole = F.when(size > 0, F.least(F.lit(1.0), shared / size))
    fits = (edges > 0) & (edges <= shared) & (shared <= body)
    share = F.when(whole >= policy.excerpt_min_share, whole).when(
        fits & (shared >= body * policy.excerpt_min_share), shared / body
    )
    excerpt = (
        (F.col("rule") == Rule.PARAGRAPH.value)
        & shared.isNotNull()
        & shorter.isNotNull()
        & (shorter > 0)
        & (shared > 0)
        & (shared >= policy.excerpt_min_chars)
        & share.isNotNull()
        # the document is a part of a longer earlier page (core.cascade.excerpt_verify)
        & (
            F.col("cand_chars").isNull()
            | (shorter <= F.col("cand_chars") * policy.excerpt_max_length_share)
        )
    )
    # Paragraph candidates: their paragraphs decide, not the sketch containment.
    contained = (F.col("rule") != Rule.PARAGRAPH.value) & (containment >= c_bar)
    measure = (
        F.when(jaccard >= j_bar, F.lit("jaccard"))
        .when(contained, F.lit("containment"))
        .when(excerpt, F.lit("excerpt"))
    )
    value = (
        F.when(jaccard >= j_bar, jaccard)
        .when(contained, containment)
        .when(excerpt, share)
        .otherwise(containment)
    )
    return measure, value


def _editions(policy: Policy) -> Column:
    """Whether the pair is two editions the policy holds to the editions' bar."""
    if not policy.editions:
        return F.lit(False)
    return F.coalesce(F.col("editions"), F.lit(False))


def _verified(policy: Policy, measure: Column, value: Column) -> tuple[Column, Column]:
    """(measure, value) of a candidate that the policy verifies, from the ordinary
    (``measure``, ``value``); measure null when not."""
    jaccard = F.coalesce(F.col("jaccard"), F.lit(0.0))
    editions = _editions(policy)
    edition_measure = F.when(jaccard >= policy.edition_min_jaccard, F.lit("edition_jaccard"))
    return (
        F.when(editions, edition_measure).otherwise(measure),
        F.when(editions, jaccard).otherwise(value),
    )


def _closeness(policy: Policy) -> tuple[Column, Column]:
    """``cascade.closeness`` negated, so that the smallest is the most similar."""
    if policy.profile == "seed":
        return -F.coalesce(F.col("similarity"), F.lit(0.0)), F.lit(0.0)
    return (
        -F.coalesce(F.col("jaccard"), F.lit(0.0)),
        -F.coalesce(F.col("containment"), F.lit(0.0)),
    )


def _pick(
    rank: int, order: Column, value: Column, measure: Column, near: tuple[Column, Column]
) -> Column:
    return F.struct(
        F.lit(rank).alias("rank"),
        near[0].cast("double").alias("near"),
        near[1].cast("double").alias("part"),
        F.col("cand_fetched_at").alias("fetched_at"),
        F.col("cand_id").alias("cand_id"),
        order.alias("order"),
        F.col("rule").alias("rule"),
        value.cast("double").alias("value"),
        measure.alias("measure"),
    )


def decide_all(scored: DataFrame, policy: Policy, rules: Sequence[str]) -> DataFrame:
    """(id, verdict, rule, duplicate_of, similarity, measure) of every document that has
    a verified candidate, and the unique verdict (measure ``edition``) of every document
    whose only ordinarily verified candidates were editions kept apart; all other
    documents are unique (the caller's left join).

    ``scored`` has one row per (document, rule, candidate): ``id``, ``rule``,
    ``cand_id``, ``cand_fetched_at`` and the pair's measures (null when not scored).
    """
    order = F.lit(len(rules))
    for i, r in reversed(list(enumerate(rules))):
        order = F.when(F.col("rule") == r, F.lit(i)).otherwise(order)
    ordinary, ordinary_value = _ordinary(policy)
    measure, value = _verified(policy, ordinary, ordinary_value)
    exact = (F.col("rule") == _EXACT) if _EXACT in rules else F.lit(False)
    zero = (F.lit(0.0), F.lit(0.0))
    pick = F.when(exact, _pick(0, F.lit(0), F.lit(1.0), F.lit("exact"), zero)).when(
        measure.isNotNull(), _pick(1, order, value, measure, _closeness(policy))
    )
    kept_apart = ~exact & _editions(policy) & measure.isNull() & ordinary.isNotNull()
    best = (
        scored.filter(F.col("rule").isin(list(rules)))
        .groupBy("id")
        .agg(F.min(pick).alias("best"), F.max(kept_apart).alias("kept_apart"))
        .filter(F.col("best").isNotNull() | F.col("kept_apart"))
    )
    found = F.col("best").isNotNull()
    return best.select(
        "id",
        F.when(found, F.lit("duplicate")).otherwise(F.lit("unique")).alias("verdict"),
        F.col("best.rule").alias("rule"),
        F.col("best.cand_id").alias("duplicate_of"),
        F.col("best.value").alias("similarity"),
        F.when(found, F.col("best.measure")).otherwise(F.lit("edition")).alias("measure"),
    )
