"""Stage 2: Bloom filters rebuilt from the store's index tables, per key range, merged.

Two passes over key-only scans: the first counts keys so that every partial filter
is sized for the whole table (filters only merge when capacity and error rate
match), the second builds the partial filters, which the driver unions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.core.bloom import BloomSizing, build_filter, from_bytes, merge_filters, to_bytes
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.store import open_store
from crawldedup.store.base import INDEX_TABLES


def key_ranges(splits: int) -> list[tuple[str, str | None]]:
    """Split the md5-hex key space into ``splits`` contiguous ranges (by the first 2 hex chars)."""
    bounds = [round(i * 256 / splits) for i in range(splits + 1)]
    out: list[tuple[str, str | None]] = []
    for i in range(splits):
        lo = f"{bounds[i]:02x}" if i else ""
        hi = f"{bounds[i + 1]:02x}" if i + 1 < splits else None
        out.append((lo, hi))
    return out


def _scan_keys(store_url: str, table: str, lo: str, hi: str | None) -> Iterator[str]:
    with open_store(store_url) as store:
        for row, _ in store.scan(table, start=lo or None, stop=hi, keys_only=True):
            yield row


def bloom_path(ctx: DayContext, rule: str) -> Path:
    return ctx.work / "bloom" / f"{rule}.bloom"


def rebuild(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Build one filter per enabled rule from its index table and save it under work/bloom."""
    cfg = ctx.cfg
    store_url = ctx.store
    rules = [r for r in cfg.cascade.rules if r in INDEX_TABLES]
    tasks = [(rule, lo, hi) for rule in rules for lo, hi in key_ranges(cfg.bloom.scan_splits)]
    sc = spark.sparkContext
    stats: dict[str, Any] = {}

    counts: dict[str, int] = dict.fromkeys(rules, 0)
    for rule, n in (
        sc.parallelize(tasks, len(tasks))
        .map(
            lambda t: (t[0], sum(1 for _ in _scan_keys(store_url, INDEX_TABLES[t[0]], t[1], t[2])))
        )
        .collect()
    ):
        counts[rule] += n
    capacity = {r: max(cfg.bloom.min_capacity, math.ceil(counts[r] * 1.25)) for r in rules}
    error_rate = cfg.bloom.error_rate

    def build(t: tuple[str, str, str | None]) -> tuple[str, bytes]:
        rule, lo, hi = t
        keys = _scan_keys(store_url, INDEX_TABLES[rule], lo, hi)
        return rule, to_bytes(build_filter(keys, capacity[rule], error_rate))

    partials: dict[str, list[bytes]] = {r: [] for r in rules}
    for rule, data in sc.parallelize(tasks, len(tasks)).map(build).collect():
        partials[rule].append(data)
    out_dir = ctx.work / "bloom"
    out_dir.mkdir(parents=True, exist_ok=True)
    for rule in rules:
        merged = merge_filters(from_bytes(b) for b in partials[rule])
        assert merged is not None  # every rule has at least one range
        data = to_bytes(merged)
        bloom_path(ctx, rule).write_bytes(data)
        sizing = BloomSizing(capacity[rule], error_rate)
        stats[rule] = {
            "keys": counts[rule],
            "capacity": capacity[rule],
            "bytes": len(data),
            "bits": sizing.num_bits,
            "hashes": sizing.num_hashes,
        }
    return stats


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    stats: dict[str, Any] = {}
    with timed(stats):
        stats["filters"] = rebuild(spark, ctx)
    ctx.write_stats("bloom", stats)
    return stats


def load_filters(ctx: DayContext) -> dict[str, Any]:
    """The saved filters of the day, by rule (absent rules have no filter)."""
    out: dict[str, Any] = {}
    for rule in ctx.cfg.cascade.rules:
        p = bloom_path(ctx, rule)
        if p.exists():
            out[rule] = from_bytes(p.read_bytes())
    return out
