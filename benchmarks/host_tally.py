"""The host tally's store lookups, asked for every line of a day against only for the
lines it decides, side by side in one process.

    .venv/bin/python benchmarks/host_tally.py --store HOME/store.db \
        --day-folder ~/.cache/crawldedup-bench/rt50k/dt=2026-11-03 [--rounds 3]

The fingerprint stage counts each host's lines over the day and the earlier days
(``site_boilerplate._tally_hosts``): a get of row ``host|line`` for each of the day's
(host, line) pairs, and whether another host had the line as ordinary text (row
``*|line``). Before 19d552f both rows were asked for every line; the second answer
decides only the lines on ``boilerplate.min_pages`` pages of their host with the earlier
days', and is now asked only for those. With ``min_pages`` 1 every line qualifies, which
asks what the old pass asked: that is the "every line" side here.

Input: a store that holds the earlier days (``crawldedup run`` of them) and the day's
crawl folder ``dt=D``, whose pages are read as the fingerprint stage reads them
(``ingest.records.read_record``: their host and line keys), e.g. rt50k's day 3 against
the store of its first two days. Both sides read the same store (lookups only), one
partition of every page as one task; alternating, best of ``--rounds``, CPU seconds of
this process (SQLite runs in it). Prints the rows requested and checks that the two
agree on every line the answer decides.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pyarrow as pa

from crawldedup.config import Config
from crawldedup.ingest.readers import read_file
from crawldedup.ingest.records import read_record
from crawldedup.pipeline.site_boilerplate import _tally_hosts
from crawldedup.store.sqlite_store import SqliteStore


def tally(batches: list[pa.RecordBatch], store: str, day: str, min_pages: int) -> pa.Table:
    return pa.Table.from_batches(list(_tally_hosts(iter(batches), store, day, 500, "", min_pages)))


def rows_asked(batches: list[pa.RecordBatch], store: str, day: str, min_pages: int) -> int:
    """How many rows the tally asks the store for (a spy on the real store's reads)."""
    asked = [0]
    real_get = SqliteStore.get

    def counting(self: SqliteStore, table: str, rows: Any, columns: Any = None) -> Any:
        asked[0] += len(rows)
        return real_get(self, table, rows, columns)

    with patch.object(SqliteStore, "get", counting):
        tally(batches, store, day, min_pages)
    return asked[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="the SQLite store of earlier days")
    ap.add_argument("--day-folder", type=Path, required=True, help="the day's crawl folder dt=D")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    store = f"sqlite:///{args.store}"
    cfg = Config()
    day = args.day_folder.name.removeprefix("dt=")
    pages = []
    for path in sorted(args.day_folder.iterdir()):
        for rec in read_file(str(path), cfg.limits.max_record_bytes):
            row = read_record(rec, cfg, day)
            if isinstance(row, dict):
                pages.append({"host": row["host"], "line_keys": row["line_keys"]})
    table = pa.Table.from_pylist(pages)
    batches = table.to_batches(max_chunksize=10_000)
    min_pages = cfg.boilerplate.min_pages
    sides = {"every line": 1, f"lines on {min_pages} pages": min_pages}
    best = dict.fromkeys(sides, float("inf"))
    out: dict[str, pa.Table] = {}
    for _ in range(args.rounds):
        for name, m in sides.items():
            t = time.process_time()
            out[name] = tally(batches, store, day, m)
            best[name] = min(best[name], time.process_time() - t)
    every, few = (out[n].sort_by([("host", "ascending"), ("line", "ascending")]) for n in sides)
    decided = [r["n"] >= min_pages for r in every.select(["n"]).to_pylist()]
    same = every.filter(pa.array(decided)).equals(few.filter(pa.array(decided)))
    counts_same = every.drop_columns(["elsewhere"]).equals(few.drop_columns(["elsewhere"]))
    print(f"{table.num_rows} pages, {every.num_rows} (host, line) rows, {sum(decided)} decided")
    for name, m in sides.items():
        print(
            f"{name}: {best[name]:.3f} CPU s (best of {args.rounds}), "
            f"{rows_asked(batches, store, day, m)} rows asked"
        )
    first, second = sides
    print(
        f"ratio {best[second] / best[first]:.2f}x; counts identical: {counts_same}; "
        f"answers identical on the decided lines: {same}"
    )


if __name__ == "__main__":
    main()
