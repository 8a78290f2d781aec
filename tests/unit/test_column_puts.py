"""Publish puts a day's postings and line counts column by column (Arrow), and the store
then holds exactly the cells the per-row definitions give: ``posting_column`` and
``posting_value`` per posting, ``host|line`` → ``d:DAY`` = pages per line count, each line
count recorded in the day's ledger."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pyarrow as pa

from crawldedup.pipeline.publish_stage import _put_host_lines, _put_postings
from crawldedup.rules import Rule
from crawldedup.store import Store, open_store
from crawldedup.store.day_ledger import LEDGER, records
from crawldedup.store.schema import posting_column, posting_value, posting_values
from crawldedup.store.sqlite_store import SqliteStore

DAY = "2026-11-03"


def _cells(store: Store, table: str) -> dict[str, dict[str, bytes | None]]:
    """Every cell as the SQLite file holds it (a scan reads a NULL as b"", which HBase
    cannot store: an empty value must be written as one)."""
    assert isinstance(store, SqliteStore)
    out: dict[str, dict[str, bytes | None]] = {}
    with closing(sqlite3.connect(store.path)) as db:
        for row, col, val in db.execute(f'SELECT row, col, val FROM "{table}"'):
            out.setdefault(row, {})[col] = val
    return out


def _postings(rng: random.Random, n: int) -> list[dict[str, str | None]]:
    rules = [Rule.LSH, Rule.SIMHASH, Rule.TITLE, Rule.CONTENT_MD5]
    out: list[dict[str, str | None]] = []
    for i in range(n):
        rule = rng.choice(rules)
        simhash = rng.choice([f"{rng.getrandbits(64):016x}", "", None])
        out.append(
            {
                "id": f"rt{i:04d}{rng.choice(['', '中', '-x'])}",
                "fetched_at": f"{DAY}T{rng.randrange(24):02d}:00:00Z",
                "rule": rule.value,
                # Some keys twice: a row with two documents' cells.
                "key": f"{rng.randrange(n // 2):08x}.{rng.randrange(4)}",
                "simhash": simhash,
            }
        )
    return sorted(out, key=lambda r: (str(r["rule"]), str(r["key"])))


def test_posting_values_are_posting_value_row_by_row() -> None:
    rng = random.Random(1)
    rows = _postings(rng, 200)
    fetched = pa.array([r["fetched_at"] for r in rows])
    simhash = pa.array([r["simhash"] for r in rows], pa.string())
    got = posting_values(DAY, fetched, simhash).to_pylist()
    assert got == [posting_value(DAY, str(r["fetched_at"]), r["simhash"]) for r in rows]
    plain = posting_values(DAY, fetched).to_pylist()
    assert plain == [posting_value(DAY, str(r["fetched_at"])) for r in rows]


def test_postings_put_by_columns_are_the_per_row_cells(tmp_path: Path) -> None:
    rng = random.Random(2)
    rows = _postings(rng, 600)
    want: dict[str, dict[str, dict[str, bytes]]] = {}
    for r in rows:
        rule = Rule(str(r["rule"]))
        value = posting_value(DAY, str(r["fetched_at"]), r["simhash"] if rule.multi_key else None)
        want.setdefault(rule.table, {}).setdefault(str(r["key"]), {})[
            posting_column(str(r["id"]))
        ] = value
    table = pa.Table.from_pylist(rows)
    with open_store(f"sqlite:///{tmp_path / 's.db'}") as store:
        for batch in table.to_batches(max_chunksize=97):
            _put_postings(store, batch, DAY)
        for name, cells in want.items():
            assert _cells(store, name) == cells
        assert {t for t in want} == {
            r.table for r in Rule if _cells(store, r.table)
        }  # no posting in a table of another rule


def test_line_counts_put_by_columns_are_the_per_row_cells_and_recorded(tmp_path: Path) -> None:
    rows: list[dict[str, str | int | bool | None]] = [
        {"host": "a.example", "line": "0f" * 8, "pages": 3, "n": 5, "elsewhere": False},
        {"host": "b.example", "line": "~" + "1e" * 7, "pages": 12, "n": 12, "elsewhere": True},
        {"host": None, "line": "=" + "2d" * 7, "pages": 1, "n": 1, "elsewhere": False},
    ]
    table = pa.Table.from_pylist(
        rows,
        pa.schema(
            [
                ("host", pa.string()),
                ("line", pa.string()),
                ("pages", pa.int64()),
                ("n", pa.int64()),
                ("elsewhere", pa.bool_()),
            ]
        ),
    )
    with open_store(f"sqlite:///{tmp_path / 's.db'}") as store:
        for batch in table.to_batches(max_chunksize=2):
            _put_host_lines(store, batch, DAY)
        want = {f"{r['host']}|{r['line']}": {f"d:{DAY}": str(r["pages"]).encode()} for r in rows}
        assert _cells(store, "host_lines") == want
        recorded = {
            (row, column)
            for _, _, by_column in records(store, DAY, "host_lines")
            for column, rows_ in by_column.items()
            for row in rows_
        }
        assert recorded == {(row, f"d:{DAY}") for row in want}
        assert len(_cells(store, LEDGER)) == 2  # one record per batch put
