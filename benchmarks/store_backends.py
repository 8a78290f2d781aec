"""The same crawl days against the embedded store and against HBase, side by side.

    .venv/bin/python benchmarks/store_backends.py --originals 300 --days 3

Prints, per backend and day: documents, wall seconds, docs/s, store round trips per
document (multi-gets, batched puts, scans: one Thrift call or one SQLite statement
each), and the HBase/embedded ratios measured in this one run. HBase must be up
(scripts/hbase.sh up); its tables go under a fresh prefix that is dropped at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "demo"))  # crawldedup_demo

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.spark import build_session
from crawldedup.pipeline.stages import run_stages
from crawldedup.store.hbase_store import HBaseStore
from crawldedup_demo import generate_sample


def run_backend(
    spark: Any, cfg: Config, name: str, store_url: str, sample: Path, home: Path, days: list[str]
) -> list[dict[str, Any]]:
    rows = []
    for d in days:
        ctx = DayContext(
            day=d,
            home=home / name,
            cfg=cfg.replace(store_url=store_url),
            input_dir=sample / f"dt={d}",
        )
        t0 = time.perf_counter()
        report = run_stages(spark, ctx)
        wall = time.perf_counter() - t0
        docs = report["documents"]
        trips = report["store_ops"].get("round_trips", 0)
        rows.append(
            {
                "backend": name,
                "day": d,
                "docs": docs,
                "seconds": wall,
                "docs_per_s": docs / wall,
                "round_trips_per_doc": trips / max(docs, 1),
                "stages": report["seconds"],
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--originals", type=int, default=300, help="new articles per day")
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--hbase", default="127.0.0.1:9090")
    args = ap.parse_args()

    start = date(2026, 11, 1)
    days = [(start + timedelta(days=i)).isoformat() for i in range(args.days)]
    cfg = Config()
    host, port = args.hbase.split(":")
    prefix = f"bench{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate_sample(root / "sample", days=args.days, originals_per_day=args.originals)
        spark = build_session(cfg, "crawldedup-bench-stores")
        try:
            # Warm the session (JVM, Python workers) so the first backend is not penalized.
            run_backend(
                spark,
                cfg,
                "warmup",
                f"sqlite:///{root / 'warm.db'}",
                root / "sample",
                root,
                days[:1],
            )
            lite = run_backend(
                spark,
                cfg,
                "embedded",
                f"sqlite:///{root / 'store.db'}",
                root / "sample",
                root,
                days,
            )
            hb = run_backend(
                spark, cfg, "hbase", f"hbase://{host}:{port}/{prefix}", root / "sample", root, days
            )
        finally:
            spark.stop()
            HBaseStore(host, int(port), prefix=prefix).drop_all()

    print(
        f"{'backend':<10}{'day':<12}{'docs':>7}{'seconds':>9}{'docs/s':>9}{'trips/doc':>11}"
        "   seconds per stage"
    )
    for r in lite + hb:
        st = " ".join(f"{k[:5]}={v:.1f}" for k, v in r["stages"].items() if v is not None)
        print(
            f"{r['backend']:<10}{r['day']:<12}{r['docs']:>7}{r['seconds']:>9.1f}"
            f"{r['docs_per_s']:>9.1f}{r['round_trips_per_doc']:>11.3f}   {st}"
        )
    tot = {
        n: (
            sum(r["docs"] for r in rs),
            sum(r["seconds"] for r in rs),
            sum(r["round_trips_per_doc"] * r["docs"] for r in rs),
        )
        for n, rs in (("embedded", lite), ("hbase", hb))
    }
    for n, (docs, secs, trips) in tot.items():
        print(f"{n:<10}{'total':<12}{docs:>7}{secs:>9.1f}{docs / secs:>9.1f}{trips / docs:>11.3f}")
    e, h = tot["embedded"], tot["hbase"]
    print(
        f"ratio hbase/embedded: wall {h[1] / e[1]:.2f}x, "
        f"docs/s {(h[0] / h[1]) / (e[0] / e[1]):.2f}x, "
        f"round trips/doc {(h[2] / h[0]) / max(e[2] / e[0], 1e-9):.2f}x"
    )


if __name__ == "__main__":
    main()
