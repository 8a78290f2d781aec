"""Editions kept apart through copies: a page never joins a group that holds another
edition of it.

The cascade holds two editions to the editions' bar when it compares them directly
(``core.editions``). A copy of one edition on another host carries no URL signal, so
release 1.11's page can match a repost of release 4.2's and, through it, join 4.2's
group. This pass, on the driver after the decisions, follows each duplicate that has a
versioned URL along its ``duplicate_of`` chain (the day's links, then the earlier day's
target and its stored group canonical) and, when a document on that chain is another
edition of it, makes it unique with measure ``edition``. Documents are taken in
``(fetched_at, id)`` order, so a chain only passes through documents already settled.

Only the day's duplicates travel to the driver (id, URL, target, fetched_at): the
union-find of the publish stage collects the same edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from crawldedup.core.editions import are_editions, edition_of
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.work_files import read_work
from crawldedup.stage_registry import DOCS
from crawldedup.store import open_store
from crawldedup.store.schema import get_docs


def _earlier_urls(store_url: str, ids: list[str]) -> dict[str, list[str]]:
    """For earlier days' documents: their URL and their group canonical's."""
    with open_store(store_url) as store:
        rows = get_docs(store, ids, ["m:url", "m:group"])
        groups = {i: (rows.get(i, {}).get("m:group") or i.encode()).decode() for i in ids}
        canon = get_docs(store, sorted(set(groups.values()) - set(ids)), ["m:url"])
    out: dict[str, list[str]] = {}
    for i in ids:
        urls = [(rows.get(i, {}).get("m:url") or b"").decode()]
        g = groups[i]
        urls.append(((rows.get(g) or canon.get(g) or {}).get("m:url") or b"").decode())
        out[i] = [u for u in urls if u]
    return out


@dataclass(frozen=True)
class DuplicateLink:
    """A duplicate of the day as the editions' chains see it: its target, the measure
    that decided, its URL and fetch time, and its target's URL when the target is of
    the day (None: an earlier day's)."""

    id: str
    duplicate_of: str
    measure: str
    url: str
    fetched_at: str
    target_url: str | None


def chains_to_part(dups: Sequence[DuplicateLink], store_url: str) -> set[str]:
    """Ids of the duplicates (``dups``: all of the day's) whose chain reaches another
    edition of them."""
    target = {r.id: r.duplicate_of for r in dups}
    # The same text (exact) and editions that passed their own bar stay grouped; the
    # chains run through every duplicate.
    versioned = [
        r for r in dups if r.measure not in ("exact", "edition_jaccard") and edition_of(r.url)[0]
    ]
    if not versioned:
        return set()
    today = {r.duplicate_of: r.target_url for r in dups if r.target_url is not None}
    today.update({r.id: r.url for r in dups})
    earlier = _earlier_urls(store_url, sorted(set(target.values()) - today.keys()))
    parted: set[str] = set()
    for r in sorted(versioned, key=lambda r: (r.fetched_at, r.id)):
        mine = edition_of(r.url)
        node: str | None = target[r.id]
        while node is not None:
            urls = [today[node]] if node in today else earlier.get(node, [])
            if any(are_editions(mine, edition_of(u)) for u in urls):
                parted.add(r.id)
                break
            node = None if node in parted else target.get(node)
    return parted


def editions_to_part(spark: SparkSession, ctx: DayContext, full: DataFrame) -> set[str]:
    """Ids of the day's duplicates whose chain reaches another edition of them."""
    docs = read_work(spark, ctx.path(DOCS)).select("id", "url", "fetched_at")
    # The target's URL in the same job, when the target is of this day (null: earlier).
    targets = docs.select(F.col("id").alias("duplicate_of"), F.col("url").alias("target_url"))
    dups = (
        full.filter(F.col("verdict") == "duplicate")
        .select("id", "duplicate_of", "measure")
        .join(docs, "id")
        .join(targets, "duplicate_of", "left")
        .collect()
    )
    links = [
        DuplicateLink(
            r["id"], r["duplicate_of"], r["measure"], r["url"], r["fetched_at"], r["target_url"]
        )
        for r in dups
    ]
    return chains_to_part(links, ctx.store)


def part_editions(spark: SparkSession, ctx: DayContext, full: DataFrame) -> DataFrame:
    """``full`` (the day's decisions) with the duplicates of :func:`editions_to_part`
    made unique, measure ``edition``."""
    if not ctx.cfg.editions.enabled:
        return full
    parted = editions_to_part(spark, ctx, full)
    if not parted:
        return full
    marks = spark.createDataFrame([(i, True) for i in sorted(parted)], "id string, parted boolean")
    cut = F.coalesce(F.col("parted"), F.lit(False))

    def unless_parted(name: str) -> Column:
        kind = full.schema[name].dataType
        return F.when(cut, F.lit(None).cast(kind)).otherwise(F.col(name)).alias(name)

    return full.join(marks, "id", "left").select(
        "id",
        F.when(cut, F.lit("unique")).otherwise(F.col("verdict")).alias("verdict"),
        unless_parted("rule"),
        unless_parted("duplicate_of"),
        unless_parted("similarity"),
        F.when(cut, F.lit("edition")).otherwise(F.col("measure")).alias("measure"),
    )
