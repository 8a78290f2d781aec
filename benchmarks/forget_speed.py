"""How fast a day is forgotten from the index (crawldedup/retention.py), on a real store.

Takes an embedded store a real run published (for example ``HOME/store.db`` of
benchmarks/crawl_vs_peers.py's crawldedup home), copies it (untimed), and times the dry
run and the forget of one day on the copy; with ``--hbase HOST:PORT`` also on a copy of
every table in HBase (loaded untimed under a fresh prefix, dropped after).

    python benchmarks/forget_speed.py --store-db /tmp/cvp50k/home-crawldedup/store.db \
        --day 2026-11-01 --hbase 127.0.0.1:9090
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crawldedup.config import Config
from crawldedup.retention import Forgotten, forget_day
from crawldedup.store import Store, open_store
from crawldedup.store.base import TABLES


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _timed(fn: Callable[[], Forgotten]) -> tuple[Forgotten, float, float]:
    t0, c0 = time.perf_counter(), _cpu()
    out = fn()
    return out, time.perf_counter() - t0, _cpu() - c0


def measure(store: Store, day: str, cfg: Config) -> dict[str, Any]:
    opts = {"splits": cfg.bloom.scan_splits, "batch_size": cfg.limits.store_batch_size}
    looked, dry_s, _ = _timed(lambda: forget_day(store, day, dry_run=True, why="benchmark", **opts))
    gone, wall, cpu = _timed(lambda: forget_day(store, day, dry_run=False, why="benchmark", **opts))
    assert gone.documents == looked.documents and gone.postings == looked.postings
    return {
        "documents": gone.documents,
        "postings": gone.postings,
        "bytes": gone.bytes,
        "dry_run_s": round(dry_s, 1),
        "forget_s": round(wall, 1),
        "forget_cpu_s": round(cpu, 1),
        "docs_per_s": round(gone.documents / wall) if wall else 0,
    }


def copy_tables(source: Store, target: Store, batch: int = 2000) -> int:
    cells = 0
    for table in TABLES:
        rows: dict[str, dict[str, bytes]] = {}
        for key, row in source.scan(table):
            rows[key] = row
            cells += len(row)
            if len(rows) >= batch:
                target.put(table, rows)
                rows = {}
        if rows:
            target.put(table, rows)
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store-db", type=Path, required=True)
    ap.add_argument("--day", required=True)
    ap.add_argument("--hbase", default=None, help="HOST:PORT of a Thrift server")
    args = ap.parse_args()
    cfg = Config()
    rows = []
    with tempfile.TemporaryDirectory(prefix="forget-speed-") as tmp:
        db = Path(tmp) / "store.db"
        shutil.copy(args.store_db, db)
        with open_store(f"sqlite:///{db}") as store:
            rows.append(("embedded (SQLite)", measure(store, args.day, cfg)))
        if args.hbase:
            shutil.copy(args.store_db, db)
            prefix = f"fs{uuid.uuid4().hex[:8]}"
            url = f"hbase://{args.hbase}/{prefix}"
            with open_store(f"sqlite:///{db}") as src, open_store(url) as dst:
                t0 = time.perf_counter()
                n = copy_tables(src, dst)
                print(f"loaded {n} cells into HBase in {time.perf_counter() - t0:.0f} s (untimed)")
                try:
                    rows.append(("HBase", measure(dst, args.day, cfg)))
                finally:
                    from crawldedup.store.hbase_store import HBaseStore

                    host, port = args.hbase.split(":")
                    HBaseStore(host, int(port), prefix=prefix).drop_all()
    keys = list(rows[0][1])
    print("| store | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for name, r in rows:
        print(f"| {name} | " + " | ".join(str(r[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
