"""The day's Bloom filters from the stored blocks vs from a scan of the index, as the
index grows (one core, embedded store, no Spark).

    .venv/bin/python benchmarks/bloom_source.py --keys 100000 1000000 10000000

For each size, an index table of that many keys (md5 hex, one posting each) is written
to a fresh SQLite store; then, per key range (``bloom.scan_splits``), the two ways the
bloom stage gets its filter are timed side by side, in wall and CPU seconds:

* ``scan``: the key-only scan of the range plus building its filter (``bloom.source =
  "scan"``, and the repair path of ``blocks``);
* ``blocks``: reading the range's stored block and loading it (``bloom.source =
  "blocks"``, every day after the first).

The blocks are sized for the largest size (``bloom.capacity_docs`` = max keys), so they
are the same bytes at every size: what changes is only what the scan has to read. It also
checks that the block bits equal the scan-built filter's bits (same sizing).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import tempfile
import time
from pathlib import Path

from crawldedup.config import Config
from crawldedup.core.bloom import add_many, from_bytes, new_filter, to_bytes
from crawldedup.pipeline.bloom_stage import (
    BLOCKS,
    block_row,
    block_sizing,
    key_ranges,
    sizing_cell,
)
from crawldedup.rules import Rule
from crawldedup.store import open_store

RULE = Rule.HEAD


def _fill(url: str, n: int, batch: int = 50_000) -> float:
    t0 = time.perf_counter()
    with open_store(url) as store:
        for start in range(0, n, batch):
            rows = {
                hashlib.md5(f"k{i}".encode()).hexdigest(): {"d:x": b"2026-11-01|t"}
                for i in range(start, min(n, start + batch))
            }
            store.put(RULE.table, rows)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    ap.add_argument("--splits", type=int, default=4)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args(argv)
    cfg = Config().replace(
        **{"bloom.capacity_docs": max(args.keys), "bloom.scan_splits": args.splits}
    )
    sizing = block_sizing(cfg, RULE)
    ranges = key_ranges(args.splits)
    base = args.work or Path(tempfile.mkdtemp(prefix="crawldedup-bloom-source-"))
    print(
        f"{args.splits} key ranges, blocks sized for {sizing.capacity:,} keys each "
        f"({sizing.num_bits / 8 / 2**20:.1f} MiB per range), error rate {sizing.error_rate}"
    )
    print(
        "| index keys | fill s | scan: wall s | scan: CPU s | blocks: wall s | blocks: CPU s "
        "| scan / blocks (wall) | bits equal |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in args.keys:
        url = f"sqlite:///{base / f'store-{n}.db'}"
        fill_s = _fill(url, n)
        scan_w = scan_c = read_w = read_c = 0.0
        equal = True
        built = []
        with open_store(url) as store:
            for i, (lo, hi) in enumerate(ranges):
                t0, c0 = time.perf_counter(), time.process_time()
                keys = [
                    k for k, _ in store.scan(RULE.table, start=lo or None, stop=hi, keys_only=True)
                ]
                bf = new_filter(sizing.capacity, sizing.error_rate)
                add_many(bf, keys)
                data = to_bytes(bf)
                built.append(bf.bitarray)
                scan_w += time.perf_counter() - t0
                scan_c += time.process_time() - c0
                store.put(
                    BLOCKS,
                    {
                        block_row(RULE.value, i): {
                            "b:bits": data,
                            "b:sizing": sizing_cell(cfg, RULE),
                        }
                    },
                )
            for i in range(len(ranges)):
                t0, c0 = time.perf_counter(), time.process_time()
                row = block_row(RULE.value, i)
                cells = store.get(BLOCKS, [row], columns=["b:bits"])[row]
                loaded = from_bytes(cells["b:bits"])
                read_w += time.perf_counter() - t0
                read_c += time.process_time() - c0
                equal &= loaded.bitarray[: len(built[i])] == built[i]
        print(
            f"| {n:,} | {fill_s:.1f} | {scan_w:.2f} | {scan_c:.2f} | {read_w:.3f} | {read_c:.3f} "
            f"| {scan_w / read_w if read_w else math.inf:.0f}× | {equal} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
