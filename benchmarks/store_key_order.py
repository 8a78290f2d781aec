"""Puts in key order against puts in arrival order, on the embedded store, side by side.

    .venv/bin/python benchmarks/store_key_order.py --existing 300000 --rows 200000

The publish stage's writes, shaped like its three big tables: ``host_lines`` (a short
count cell under ``host|line-key``), postings (one cell under an md5-like key) and
document rows (eleven cells, about 4 KB, under a document id). Each table of a fresh
SQLite store is filled with ``--existing`` rows first (an index of earlier days), then
``--rows`` new rows are put in batches of 1,000: once in the order they come, once sorted
by key as ``store_batches.write_partitions(key_order=...)`` sorts each partition. Prints
CPU microseconds per row and the ratio, both orders measured in this one run.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from crawldedup.store.sqlite_store import SqliteStore

Rows = dict[str, dict[str, bytes]]


def _md5(rng: random.Random) -> str:
    return hashlib.md5(rng.randbytes(16), usedforsecurity=False).hexdigest()


def host_line(rng: random.Random, i: int) -> tuple[str, dict[str, bytes]]:
    return f"site{rng.randrange(500)}.example|{_md5(rng)[:16]}", {"d:2026-11-01": b"3"}


def posting(rng: random.Random, i: int) -> tuple[str, dict[str, bytes]]:
    return _md5(rng), {f"p:doc{i}": b"2026-11-01|2026-11-01T03:00:00Z"}


def document(rng: random.Random, i: int) -> tuple[str, dict[str, bytes]]:
    cells = {f"m:{c}": rng.randbytes(30) for c in ("day", "url", "title", "group", "raw_md5")}
    cells |= {"m:keys": rng.randbytes(700), "v:sketch": rng.randbytes(2048)}
    cells["v:tf"] = rng.randbytes(1100)
    return f"rt{_md5(rng)[:15]}", cells


TABLES: dict[str, tuple[str, Callable[[random.Random, int], tuple[str, dict[str, bytes]]]]] = {
    "host_lines": ("host_lines", host_line),
    "postings": ("lsh_id", posting),
    "documents": ("docs", document),
}


def put_all(store: SqliteStore, table: str, rows: list[tuple[str, dict[str, bytes]]]) -> float:
    """CPU seconds to put ``rows`` in batches of 1,000, in the given order."""
    t0 = time.process_time()
    for i in range(0, len(rows), 1000):
        store.put(table, dict(rows[i : i + 1000]))
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--existing", type=int, default=300_000)
    ap.add_argument("--rows", type=int, default=200_000)
    args = ap.parse_args(argv)
    print(f"{args.rows:,} new rows into tables of {args.existing:,}, batches of 1,000, CPU time")
    print("| table | arrival order µs/row | key order µs/row | ratio |")
    print("|---|---:|---:|---:|")
    for name, (table, make) in TABLES.items():
        scale = 10 if name == "documents" else 1  # document rows are 4 KB: fewer of them
        rng = random.Random(7)
        existing = [make(rng, i) for i in range(args.existing // scale)]
        new = [make(rng, i) for i in range(args.rows // scale)]
        took = {}
        for order in ("arrival", "key"):
            with tempfile.TemporaryDirectory() as tmp:
                store = SqliteStore(Path(tmp) / "store.db")
                put_all(store, table, sorted(existing))
                rows = sorted(new) if order == "key" else new
                took[order] = put_all(store, table, rows) / len(rows) * 1e6
                store.close()
        print(
            f"| {name} | {took['arrival']:.1f} | {took['key']:.1f} | "
            f"{took['arrival'] / took['key']:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
