"""Stage 2: the day's Bloom filters of the store's index keys, one per key range.

Where they come from is ``bloom.source``:

* ``blocks`` (default): the store keeps, per (rule, key range), a filter block of fixed
  size (``bloom.capacity_docs``) holding every key the rule's index table has had; the
  publish stage ORs each day's keys into it *before* it writes the postings, so a block
  is never missing a key the index has. Reading them costs the same at any index size.
  A block that is missing or was sized otherwise (a new store, a store of an older
  version, a changed ``bloom.*``, a block a rerun dropped because it took keys back) is
  rebuilt from its range of the index table and stored again.
* ``scan``: every (rule, key range) task scans its range of the index table (key-only)
  and sizes a filter for the keys it found.

Either way the filters are written under ``work/bloom/<rule>/``. A rule's filters reach
the candidates stage in one of two ways, recorded in ``work/bloom/manifest.json``:

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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pyspark.sql import SparkSession

from crawldedup.core.bloom import (
    BloomSizing,
    add_many,
    build_filter,
    contains_many,
    from_bytes,
    new_filter,
    to_bytes,
)
from crawldedup.pipeline.bloom_blocks import (
    BLOCKS,
    block_row,
    block_sizing,
    current_blocks,
    key_ranges,
    range_of,
    sizing_cell,
)
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.rules import Rule, enabled
from crawldedup.stage_registry import BLOOM
from crawldedup.store import open_store


def _scan_keys(store_url: str, table: str, lo: str, hi: str | None) -> Iterator[str]:
    with open_store(store_url) as store:
        for row, _ in store.scan(table, start=lo or None, stop=hi, keys_only=True):
            yield row


def bloom_dir(ctx: DayContext) -> Path:
    return ctx.folder(BLOOM)


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


def _write_part(root: str, rule: str, index: int, data: bytes) -> None:
    path = part_path(root, rule, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(path)  # a retried task never leaves half a file


def rebuild(
    spark: SparkSession, ctx: DayContext, force_scan: bool = False
) -> tuple[str, dict[str, Any]]:
    """Every rule's per-range filters, in parallel; writes the manifest and returns where
    the filters came from ("blocks" or "scan") and each rule's figures.

    From the stored blocks when ``bloom.source = "blocks"``, each block that is not
    current by scanning its range of the index table (and storing what was built,
    so the next day reads blocks again). ``force_scan``: the repair path.
    """
    cfg = ctx.cfg
    store_url = ctx.store
    rules = [r.value for r in enabled(cfg.cascade.rules)]
    ranges = key_ranges(cfg.bloom.scan_splits)
    tasks = [(rule, i, lo, hi) for rule in rules for i, (lo, hi) in enumerate(ranges)]
    min_capacity = math.ceil(cfg.bloom.min_capacity / len(ranges))
    error_rate = cfg.bloom.error_rate
    use_blocks = cfg.bloom.source == "blocks"
    current: set[tuple[str, int]] = set()
    if use_blocks and not force_scan:
        with open_store(store_url) as store:
            current = current_blocks(store, cfg, enabled(cfg.cascade.rules))
    read_blocks = len(current) == len(tasks)
    sizings = {r: block_sizing(cfg, Rule(r)) for r in rules}
    sizing_cells = {r: sizing_cell(cfg, Rule(r)) for r in rules}
    root = bloom_dir(ctx)
    shutil.rmtree(root, ignore_errors=True)  # a rerun never mixes in older filters
    root_s = str(root)

    def build(t: tuple[str, int, str, str | None]) -> tuple[str, int, int, int, int]:
        rule, i, lo, hi = t
        if (rule, i) in current:
            with open_store(store_url) as store:
                row = block_row(rule, i)
                data = store.get(BLOCKS, [row], columns=["b:bits"])[row]["b:bits"]
            bf = from_bytes(data)
            keys, capacity = int(bf.count), sizings[rule].capacity
        else:
            found = list(_scan_keys(store_url, Rule(rule).table, lo, hi))
            keys = len(found)
            if use_blocks:
                capacity = sizings[rule].capacity
                bf = new_filter(capacity, error_rate)
                add_many(bf, found)
            else:
                capacity = max(min_capacity, math.ceil(keys * 1.25))
                bf = build_filter(found, capacity, error_rate)
            data = to_bytes(bf)
            if use_blocks:
                with open_store(store_url) as store:
                    store.put(
                        BLOCKS,
                        {block_row(rule, i): {"b:bits": data, "b:sizing": sizing_cells[rule]}},
                    )
        _write_part(root_s, rule, i, data)
        return rule, i, keys, capacity, len(data)

    # Reading a stored block is a few milliseconds: one task per core, where a task per
    # block cost each block a Python task's round trip.
    # Scanning an index range is the heavy path: one task per range.
    slices = spark.sparkContext.defaultParallelism if read_blocks else None
    built = sc_parallel_map(spark, tasks, build, slices)
    manifest: dict[str, Any] = {"ranges": [lo for lo, _ in ranges], "rules": {}}
    filters: dict[str, Any] = {}
    for rule in rules:
        parts = sorted(b for b in built if b[0] == rule)
        total_bytes = sum(p[4] for p in parts)
        mode = "broadcast" if total_bytes <= cfg.bloom.max_broadcast_bytes else "partitioned"
        manifest["rules"][rule] = {"mode": mode, "parts": len(parts)}
        filters[rule] = {
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
    return ("blocks" if read_blocks else "scan"), filters


def sc_parallel_map(
    spark: SparkSession, items: list[Any], fn: Any, tasks: int | None = None
) -> list[Any]:
    """``[fn(x) for x in items]`` in ``tasks`` Spark tasks (default: one per item)."""
    n = len(items) if tasks is None else min(tasks, len(items))
    return spark.sparkContext.parallelize(items, max(1, n)).map(fn).collect()


def run(spark: SparkSession, ctx: DayContext, force_scan: bool = False) -> dict[str, Any]:
    """The day's filters; ``force_scan`` rebuilds the stored blocks from the index tables
    (``crawldedup stage bloom --rebuild-blocks``: repair, or a resize)."""
    stats: dict[str, Any] = {}
    with timed(stats):
        stats["source"], stats["filters"] = rebuild(spark, ctx, force_scan)
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


# Its result on a day with nothing to judge (no document, nothing of the day in the
# store): the runner writes it without running the stage, so no Spark job starts.
EMPTY_DAY: dict[str, Any] | None = {"filters": {}, "source": None}


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    f = stats.get("filters", {})
    return ", ".join(f"{r} {v['keys']} keys" for r, v in f.items())
