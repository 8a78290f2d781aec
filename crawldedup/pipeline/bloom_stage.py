"""Stage 2: Bloom filters rebuilt from the store's index tables, one per key range.

One pass: every (rule, key range) task scans its range of the index table (key-only),
sizes a filter for the keys it found and writes it under ``work/bloom/<rule>/``. A
rule's filters reach the candidates stage in one of two ways, recorded in
``work/bloom/manifest.json``:

* ``broadcast``: the rule's filters together fit under ``bloom.max_broadcast_bytes``;
  they are broadcast to every executor and a key is probed in its range's filter.
* ``partitioned``: too big to broadcast; the day's keys are partitioned by key range
  and each partition loads only its range's filter (co-partitioned probing).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pyspark.sql import SparkSession

from crawldedup.core.bloom import BloomSizing, build_filter, contains_many, from_bytes, to_bytes
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.rules import Rule, enabled
from crawldedup.store import open_store


def key_ranges(splits: int) -> list[tuple[str, str | None]]:
    """Split the hex key space into ``splits`` contiguous ranges (by the first 2 hex chars)."""
    bounds = [round(i * 256 / splits) for i in range(splits + 1)]
    out: list[tuple[str, str | None]] = []
    for i in range(splits):
        lo = f"{bounds[i]:02x}" if i else ""
        hi = f"{bounds[i + 1]:02x}" if i + 1 < splits else None
        out.append((lo, hi))
    return out


def range_of(key: str, lows: Sequence[str]) -> int:
    """Index of the range holding ``key``, given the ranges' lower bounds in order."""
    return bisect_right(lows, key) - 1


def _scan_keys(store_url: str, table: str, lo: str, hi: str | None) -> Iterator[str]:
    with open_store(store_url) as store:
        for row, _ in store.scan(table, start=lo or None, stop=hi, keys_only=True):
            yield row


def bloom_dir(ctx: DayContext) -> Path:
    return ctx.work / "bloom"


def part_path(root: Path | str, rule: str, index: int) -> Path:
    return Path(root) / rule / f"{index:03d}.bloom"


@dataclass(frozen=True)
class RangedFilters:
    """A rule's filters, one per key range; a key is probed in its range's filter."""

    lows: tuple[str, ...]
    filters: tuple[Any, ...]

    def contains(self, keys: Sequence[str]) -> np.ndarray:
        if len(self.filters) == 1:
            return contains_many(self.filters[0], keys)
        out = np.zeros(len(keys), dtype=bool)
        slots = np.array([range_of(k, self.lows) for k in keys], dtype=np.int64)
        for i, bf in enumerate(self.filters):
            at = np.flatnonzero(slots == i)
            if at.size:
                out[at] = contains_many(bf, [keys[j] for j in at.tolist()])
        return out


def rebuild(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Build every rule's per-range filters in parallel; returns stats and writes the manifest."""
    cfg = ctx.cfg
    store_url = ctx.store
    rules = [r.value for r in enabled(cfg.cascade.rules)]
    ranges = key_ranges(cfg.bloom.scan_splits)
    tasks = [(rule, i, lo, hi) for rule in rules for i, (lo, hi) in enumerate(ranges)]
    min_capacity = math.ceil(cfg.bloom.min_capacity / len(ranges))
    error_rate = cfg.bloom.error_rate
    root = bloom_dir(ctx)
    shutil.rmtree(root, ignore_errors=True)  # a rerun never mixes in older filters
    root_s = str(root)

    def build(t: tuple[str, int, str, str | None]) -> tuple[str, int, int, int, int]:
        rule, i, lo, hi = t
        keys = list(_scan_keys(store_url, Rule(rule).table, lo, hi))
        capacity = max(min_capacity, math.ceil(len(keys) * 1.25))
        data = to_bytes(build_filter(keys, capacity, error_rate))
        path = part_path(root_s, rule, i)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        tmp.replace(path)  # a retried task never leaves half a file
        return rule, i, len(keys), capacity, len(data)

    built = sc_parallel_map(spark, tasks, build)
    stats: dict[str, Any] = {}
    manifest: dict[str, Any] = {"ranges": [lo for lo, _ in ranges], "rules": {}}
    for rule in rules:
        parts = sorted(b for b in built if b[0] == rule)
        total_bytes = sum(p[4] for p in parts)
        mode = "broadcast" if total_bytes <= cfg.bloom.max_broadcast_bytes else "partitioned"
        manifest["rules"][rule] = {"mode": mode, "parts": len(parts)}
        stats[rule] = {
            "keys": sum(p[2] for p in parts),
            "capacity": sum(p[3] for p in parts),
            "bytes": total_bytes,
            "bits": sum(BloomSizing(p[3], error_rate).num_bits for p in parts),
            "hashes": BloomSizing(max(p[3] for p in parts), error_rate).num_hashes,
            "parts": len(parts),
            "mode": mode,
        }
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return stats


def sc_parallel_map(spark: SparkSession, items: list[Any], fn: Any) -> list[Any]:
    """``[fn(x) for x in items]``, one Spark task per item."""
    return spark.sparkContext.parallelize(items, max(1, len(items))).map(fn).collect()


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    stats: dict[str, Any] = {}
    with timed(stats):
        stats["filters"] = rebuild(spark, ctx)
    ctx.write_stats("bloom", stats)
    return stats


def read_manifest(ctx: DayContext) -> dict[str, Any]:
    p = bloom_dir(ctx) / "manifest.json"
    return json.loads(p.read_text()) if p.exists() else {"ranges": [""], "rules": {}}


def load_filters(ctx: DayContext, mode: str = "broadcast") -> dict[str, RangedFilters]:
    """The day's filters of the rules in ``mode``, read on the driver, by rule."""
    manifest = read_manifest(ctx)
    lows = tuple(manifest["ranges"])
    out: dict[str, RangedFilters] = {}
    for rule, info in manifest["rules"].items():
        if info["mode"] != mode:
            continue
        parts = [part_path(bloom_dir(ctx), rule, i) for i in range(info["parts"])]
        out[rule] = RangedFilters(lows, tuple(from_bytes(p.read_bytes()) for p in parts))
    return out


def partitioned_rules(ctx: DayContext) -> list[str]:
    return [r for r, i in read_manifest(ctx)["rules"].items() if i["mode"] == "partitioned"]


def load_part(root: str, rule: str, index: int, low: str) -> RangedFilters:
    """One range's filter, read where the range's keys are (an executor)."""
    return RangedFilters((low,), (from_bytes(part_path(root, rule, index).read_bytes()),))
