"""The real ``crawldedup`` command line in a subprocess, and what tests read back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).with_name("crawldedup")


def cli(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = cli_env({}, *args, home=home)
    if check and proc.returncode != 0:
        raise AssertionError(f"crawldedup {args} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def cli_env(extra: dict[str, str], *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``crawldedup ARGS`` with ``extra`` environment variables; any exit code."""
    env = {k: v for k, v in os.environ.items() if k != "CRAWLDEDUP_CONFIG"}
    env.update({"CRAWLDEDUP_HOME": str(home), **extra})
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, timeout=600)


def verdicts(day: str, home: Path, store: str | None = None) -> dict[str, dict[str, Any]]:
    """``crawldedup verdicts`` of one day, by document id."""
    extra = ("--store", store) if store else ()
    out = cli("verdicts", "--date", day, *extra, home=home).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return {r["id"]: r for r in rows}


def table_dump(store_url: str) -> dict[str, list[tuple[str, Any]]]:
    """Every row of every table but ``days`` (whose reports hold timings) and ``locks``
    (which run held the store last: not the days' data); the ``ledger`` by what it
    records per day and table (its row keys name random writers)."""
    from crawldedup.store import open_store
    from crawldedup.store.base import TABLES
    from crawldedup.store.day_ledger import LEDGER, recorded

    with open_store(store_url) as store:
        out: dict[str, list[tuple[str, Any]]] = {
            t: list(store.scan(t)) for t in TABLES if t not in ("days", "locks", LEDGER)
        }
        out[LEDGER] = sorted((k, sorted(v)) for k, v in recorded(store).items())
        # The line filter's blocks (HBase keeps them, the embedded store does not): their
        # bits depend on what a store went through, their one promise is
        # rows_missing_from_the_line_filter().
        out["bloom_blocks"] = [r for r in out["bloom_blocks"] if not r[0].startswith("lines|")]
        return out


def rows_missing_from_the_line_filter(store_url: str) -> list[str]:
    """The ``host|line`` rows of ``host_lines`` its line filter's blocks do not hold (the
    filter may hold more, never fewer). The store must keep the blocks."""
    import json

    from crawldedup.pipeline.line_filter import LineFilter
    from crawldedup.store import open_store

    with open_store(store_url) as store:
        stored = dict(store.scan_prefix("bloom_blocks", "lines|"))
        assert stored, f"{store_url} keeps no line filter"
        rows = [k for k, _ in store.scan("host_lines", keys_only=True) if not k.startswith("*|")]
    splits = {json.loads(c["b:sizing"])["splits"] for c in stored.values()}
    assert len(splits) == 1 and len(stored) == splits.pop(), sorted(stored)
    blocks = {int(k.split("|")[1]): c["b:bits"] for k, c in stored.items()}
    held = LineFilter(blocks).may_hold(rows)
    return [r for r, h in zip(rows, held.tolist(), strict=True) if not h]
