"""A day's postings put into an index that already holds earlier days: from files that are
hash buckets of the day's keys (each file spread over the whole key range) against range
buckets (each file one run of keys: ``candidates_stage.key_bucket``), side by side.

    .venv/bin/python benchmarks/posting_order.py --index 800000 --day 500000 --rounds 2

The keys are MinHash band keys as the index holds them (16 hex digits, a dot, the band),
random; the earlier days' postings are loaded first, untimed, into a fresh embedded store
per round and order. Then the day's postings go in file by file, each file sorted by
(rule, key) and put in batches of ``--batch`` rows as the publish stage does
(``store_batches.write_batches`` with its posting cells). Prints CPU and wall seconds per
order and round, and the ratio of the medians. Both orders put the same cells.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from crawldedup.pipeline.candidates_stage import key_bucket
from crawldedup.pipeline.publish_stage import _put_postings
from crawldedup.pipeline.store_batches import write_record_batches

DAY = "2026-11-03"


def postings(n: int, rng: random.Random, day: str) -> list[dict[str, Any]]:
    return [
        {
            "id": f"rt{rng.getrandbits(60):015x}",
            "fetched_at": f"{day}T08:00:00Z",
            "rule": "lsh",
            "key": f"{rng.getrandbits(64):016x}.{rng.randrange(24)}",
            "simhash": f"{rng.getrandbits(64):016x}",
        }
        for _ in range(n)
    ]


def crc32_bucket(key: str, buckets: int) -> int:
    """What a key's bucket was before range buckets."""
    return zlib.crc32(key.encode()) % buckets


def split(
    rows: list[dict[str, Any]], buckets: int, of: Callable[[str, int], int]
) -> list[list[dict[str, Any]]]:
    """The day's files: ``rows`` by the bucket ``of(key, buckets)``."""
    out: list[list[dict[str, Any]]] = [[] for _ in range(buckets)]
    for r in rows:
        out[of(r["key"], buckets)].append(r)
    return out


def put_files(url: str, files: list[list[dict[str, Any]]], batch: int, day: str) -> int:
    n = 0
    for rows in files:
        ordered = sorted(rows, key=lambda r: (r["rule"], r["key"]))
        if not ordered:
            continue
        table = pa.Table.from_pylist(ordered)
        n += write_record_batches(
            iter(table.to_batches(max_chunksize=batch)),
            url,
            batch,
            lambda s, b: _put_postings(s, b, day),
            None,
        )
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=int, default=800_000, help="earlier days' postings")
    ap.add_argument("--day", type=int, default=500_000, help="the day's postings")
    ap.add_argument("--buckets", type=int, default=8, help="files of the day (shuffle partitions)")
    ap.add_argument("--batch", type=int, default=500, help="rows a put (limits.store_batch_size)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    rng = random.Random(7)
    earlier = [postings(args.index // 2, rng, d) for d in ("2026-11-01", "2026-11-02")]
    today = postings(args.day, rng, DAY)
    orders = {
        "hash buckets": split(today, args.buckets, crc32_bucket),
        "range buckets": split(today, args.buckets, key_bucket),
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in orders}
    with tempfile.TemporaryDirectory(prefix="posting-order-") as tmp:
        for r in range(args.rounds):
            for name, files in orders.items():
                db = Path(tmp) / f"{r}-{name.split()[0]}.db"
                url = f"sqlite:///{db}"
                for d, rows in zip(("2026-11-01", "2026-11-02"), earlier, strict=True):
                    put_files(url, [rows], 5000, d)  # untimed: the index before the day
                cpu0, wall0 = time.process_time(), time.perf_counter()
                n = put_files(url, files, args.batch, DAY)
                cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
                results[name].append((cpu, wall))
                print(f"round {r} {name:13s}: {n} postings, CPU {cpu:5.2f} s, wall {wall:5.2f} s")
                db.unlink()
                for side in ("-wal", "-shm"):
                    Path(f"{db}{side}").unlink(missing_ok=True)
    med = {n: [statistics.median(x[i] for x in v) for i in (0, 1)] for n, v in results.items()}
    (hc, hw), (rc, rw) = med["hash buckets"], med["range buckets"]
    print(
        f"median: hash buckets CPU {hc:.2f} s, wall {hw:.2f} s; range buckets CPU {rc:.2f} s, "
        f"wall {rw:.2f} s; range / hash: CPU {rc / hc:.2f}x, wall {rw / hw:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
