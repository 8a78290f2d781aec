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
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from crawldedup.config import Config
from crawldedup.core.bloom import (
    BloomSizing,
    add_many,
    build_filter,
    contains_many,
    from_bytes,
    new_filter,
    to_bytes,
)
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.rules import Rule, enabled
from crawldedup.store import Store, open_store

BLOCKS = "bloom_blocks"


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
    return ctx.folder("bloom")


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


def block_row(rule: str, index: int) -> str:
    return f"{rule}|{index:03d}"


def block_sizing(cfg: Config, rule: Rule) -> BloomSizing:
    """The fixed size of each of a rule's stored blocks (``bloom.capacity_docs``)."""
    per_doc = {Rule.LSH: cfg.lsh.bands, Rule.SIMHASH: cfg.simhash.max_distance + 1}.get(rule, 1)
    keys = cfg.bloom.capacity_docs * per_doc
    return BloomSizing(math.ceil(keys / cfg.bloom.scan_splits), cfg.bloom.error_rate)


def sizing_cell(cfg: Config, rule: Rule) -> bytes:
    sz = block_sizing(cfg, rule)
    return json.dumps(
        {"capacity": sz.capacity, "error_rate": sz.error_rate, "splits": cfg.bloom.scan_splits}
    ).encode()


def current_blocks(store: Store, cfg: Config, rules: Sequence[Rule]) -> set[tuple[str, int]]:
    """The (rule, range) blocks that are in the store, sized as the config says (a rerun
    of a day drops the blocks of keys it took back: those are rebuilt)."""
    rows = [block_row(r.value, i) for r in rules for i in range(cfg.bloom.scan_splits)]
    found = store.get(BLOCKS, rows, columns=["b:sizing"])
    return {
        (r.value, i)
        for r in rules
        for i in range(cfg.bloom.scan_splits)
        if found.get(block_row(r.value, i), {}).get("b:sizing") == sizing_cell(cfg, r)
    }


def or_keys_into_blocks(store: Store, cfg: Config, rule: Rule, index: int, keys: list[str]) -> None:
    """OR ``keys`` (of range ``index``) into the stored block; a missing block or one
    sized otherwise is left alone (the next bloom stage rebuilds every block)."""
    row = block_row(rule.value, index)
    cells = store.get(BLOCKS, [row], columns=["b:bits", "b:sizing"]).get(row, {})
    if cells.get("b:sizing") != sizing_cell(cfg, rule) or "b:bits" not in cells:
        return
    bf = from_bytes(cells["b:bits"])
    new = [k for k, there in zip(keys, contains_many(bf, keys), strict=True) if not there]
    if new:  # only keys not yet in: the count stays the number of distinct keys
        add_many(bf, new)
        store.put(BLOCKS, {row: {"b:bits": to_bytes(bf)}})


def add_day_keys(ctx: DayContext, keys: DataFrame) -> int:
    """OR the (rule, key) rows of ``keys`` (the postings the day is about to write) into
    the stored blocks, all of a (rule, key range) in one task; returns how many distinct
    keys went in. Runs before the postings are written, so no block ever lacks a key of
    the index. The keys travel as Arrow batches, each block is read and written once."""
    cfg, store_url = ctx.cfg, ctx.store
    lows = [lo for lo, _ in key_ranges(cfg.bloom.scan_splits)]
    # Every key of a block lands in one task (hash partitioning on (rule, range)); a
    # task per block cost each block a Python task's round trip, two per core balance
    # the blocks' work as well on a small machine.
    blocks = max(1, len(enabled(cfg.cascade.rules)) * len(lows))
    n_tasks = min(blocks, 2 * keys.sparkSession.sparkContext.defaultParallelism)

    def with_range(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            ranges = [range_of(k, lows) for k in b.column("key").to_pylist()]
            yield pa.RecordBatch.from_arrays(
                [b.column("rule"), pa.array(ranges, pa.int32()), b.column("key")],
                names=["rule", "range", "key"],
            )

    def write(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        found: dict[tuple[str, int], set[str]] = {}
        for b in batches:
            columns = (b.column(c).to_pylist() for c in ("rule", "range", "key"))
            for rule, index, key in zip(*columns, strict=True):
                found.setdefault((rule, index), set()).add(key)
        if found:
            with open_store(store_url) as store:
                for (rule, index), batch in sorted(found.items()):
                    or_keys_into_blocks(store, cfg, Rule(rule), index, sorted(batch))
        yield pa.RecordBatch.from_pydict({"n": [sum(len(v) for v in found.values())]})

    ranged = keys.select("rule", "key").mapInArrow(with_range, "rule string, range int, key string")
    # One partition holds every key of a block: no two tasks rewrite the same block.
    written = ranged.repartition(n_tasks, "rule", "range").mapInArrow(write, "n long")
    return int(written.agg(F.sum("n")).collect()[0][0] or 0)


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
