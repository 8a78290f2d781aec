"""The pages' own cost: crawldedup's per-record preparation beside datasketch, no Spark.

Every `crawldedup run` reads each record, extracts the main text of HTML pages
(trafilatura, boilerplate dropped: the input contract's ``html`` field) and computes the
fingerprints. This times exactly that (``crawldedup.ingest.records.prepare``, one process,
one core, the records of every day of a `benchmarks.realtext` set), split into HTML and
plain-text records, next to datasketch MinHashLSH@0.8 reading and grouping the same
files (`benchmarks/realtext_quality.py`'s peer). It shows how much of the peer's time
the pages alone take before any Spark, index or store work.

    .venv/bin/python benchmarks/parse_floor.py --data /tmp/rt/set3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from realtext_quality import run_minhash


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a benchmarks.realtext set")
    args = ap.parse_args(argv)

    from crawldedup.config import load_config
    from crawldedup.ingest.readers import read_file, select_input_files
    from crawldedup.ingest.records import prepare

    cfg = load_config(None)
    cpu = {"html": 0.0, "text": 0.0}
    count = {"html": 0, "text": 0}
    t0 = time.perf_counter()
    for day in sorted(args.data.glob("dt=*")):
        for path in select_input_files(day).files:
            for rec in read_file(str(path), cfg.limits.max_record_bytes):
                kind = "html" if rec.data and rec.data.get("html") else "text"
                c0 = time.process_time()
                prepare(rec, cfg, day.name[3:])
                cpu[kind] += time.process_time() - c0
                count[kind] += 1
    wall = time.perf_counter() - t0
    peer = run_minhash(args.data, 0.8).seconds
    total = cpu["html"] + cpu["text"]
    print("| what | records | CPU s | ms per record | x datasketch's wall |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind in ("html", "text"):
        n = count[kind]
        print(
            f"| prepare, {kind} records | {n} | {cpu[kind]:.1f} | "
            f"{1000 * cpu[kind] / max(n, 1):.1f} | {cpu[kind] / peer:.2f} |"
        )
    n = count["html"] + count["text"]
    print(f"| prepare, all | {n} | {total:.1f} | {1000 * total / n:.1f} | {total / peer:.2f} |")
    print(f"| datasketch MinHashLSH@0.8, wall | {n} | | | 1.00 |")
    print(f"prepare's loop took {wall:.1f} s wall; datasketch {peer:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
