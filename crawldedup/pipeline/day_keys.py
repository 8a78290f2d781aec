"""The day's index keys as rows: one row per (document, rule, key), hashed and ranked.

The candidates stage pairs documents and probes the store with these rows; the publish
stage writes the postings the per-key cap allows from the same rows. Both import them
from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pyspark.sql import Column, DataFrame, Window
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


def key_hash(keys: DataFrame) -> DataFrame:
    """Adds ``_k``: a 64-bit hash of (rule, key), the first column of every partitioning
    and sort of the day's keys. A sort compares rows by a prefix of their first column:
    on ``_k`` nearly every comparison ends there, where the rule's name (the same on
    millions of rows) sent each one on to the key's bytes. ``_k`` only speeds the work
    up: every window and join keeps rule and key too, so keys sharing a hash stay apart.
    """
    return keys.withColumn("_k", F.xxhash64("rule", "key"))


_DAY_KEY = ("_k", "rule", "key")


def rank_within_day(keys: DataFrame) -> DataFrame:
    """Adds ``_k`` (:func:`key_hash`) and ``rank``: 1 for the earliest document of the
    day holding the key, then 2, …"""
    w = Window.partitionBy(*_DAY_KEY).orderBy("fetched_at", "id")
    return key_hash(keys).withColumn("rank", F.row_number().over(w))
