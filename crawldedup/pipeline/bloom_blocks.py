"""The store's Bloom filter blocks: one per (rule, key range), every key the rule's index
table has had in that range (docs/algorithm.md#bloom).

The bloom stage reads them (and rebuilds the ones that are missing or sized otherwise);
the publish stage ORs the day's keys into them before it writes the postings, and a rerun
drops the blocks of the keys it takes back (:mod:`crawldedup.pipeline.retraction`).
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession

from crawldedup.config import Config
from crawldedup.core.bloom import BloomSizing, add_many, contains_many, from_bytes, to_bytes
from crawldedup.pipeline.context import DayContext
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


def block_row(rule: str, index: int) -> str:
    return f"{rule}|{index:03d}"


def block_sizing(cfg: Config, rule: Rule) -> BloomSizing:
    """The fixed size of each of a rule's stored blocks (``bloom.capacity_docs``)."""
    per_doc = {
        Rule.LSH: cfg.lsh.bands,
        Rule.SIMHASH: cfg.simhash.max_distance + 1,
        # A page has a few paragraphs of its own, at most paragraph_max_keys.
        Rule.PARAGRAPH: min(8, cfg.fingerprint.paragraph_max_keys),
    }.get(rule, 1)
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


def ranges_of(keys: pa.ChunkedArray | pa.Array, lows: Sequence[str]) -> pa.Array:
    """:func:`range_of` of every key, vectorized: a range depends only on a key's first
    two characters (the bounds are two-character strings), so each distinct prefix is
    looked up once."""
    import pyarrow.compute as pc

    prefixes = pc.utf8_slice_codeunits(keys, 0, 2)
    distinct = pc.unique(prefixes)
    index = [range_of(p, lows) for p in distinct.to_pylist()]
    return pc.take(pa.array(index, pa.int32()), pc.index_in(prefixes, distinct))


def add_day_keys(spark: SparkSession, ctx: DayContext, postings_dir: str) -> int:
    """OR the (rule, key) rows of the Parquet folder ``postings_dir`` (the postings the
    day is about to write) into the stored blocks; returns how many distinct keys went
    in. Runs before the postings are written, so no block ever lacks a key of the index.

    Each task reads the folder's (rule, key) columns itself (the rows never cross the
    JVM) and takes the blocks whose number modulo the tasks is its own: all keys of a
    block in one task, each block read and written once, and no two tasks rewrite the
    same block. Two tasks per core balance the blocks' work on a small machine."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    cfg, store_url = ctx.cfg, ctx.store
    lows = [lo for lo, _ in key_ranges(cfg.bloom.scan_splits)]
    files = sorted(str(f) for f in Path(postings_dir).glob("*.parquet"))
    if not files:
        return 0
    every_rule = pa.array([r.value for r in Rule])
    blocks = max(1, len(enabled(cfg.cascade.rules)) * len(lows))
    n_tasks = min(blocks, 2 * spark.sparkContext.defaultParallelism)

    def write(tasks: Iterable[int]) -> Iterator[int]:
        for task in tasks:
            found: dict[tuple[str, int], set[str]] = {}
            for path in files:
                t = pq.read_table(path, columns=["rule", "key"])
                if not t.num_rows:
                    continue
                ranges = ranges_of(t.column("key"), lows)
                rule_no = pc.index_in(t.column("rule"), every_rule).to_numpy(zero_copy_only=False)
                block = rule_no * len(lows) + ranges.to_numpy(zero_copy_only=False)
                mine = t.append_column("range", ranges).filter(pa.array(block % n_tasks == task))
                columns = (mine.column(c).to_pylist() for c in ("rule", "range", "key"))
                for rule, index, key in zip(*columns, strict=True):
                    found.setdefault((rule, index), set()).add(key)
            if found:
                with open_store(store_url) as store:
                    for (rule, index), batch in sorted(found.items()):
                        or_keys_into_blocks(store, cfg, Rule(rule), index, sorted(batch))
            yield sum(len(v) for v in found.values())

    sc = spark.sparkContext
    return sum(sc.parallelize(range(n_tasks), n_tasks).mapPartitions(write).collect())
