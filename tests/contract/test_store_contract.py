"""One contract for every store backend: the embedded SQLite store and real HBase."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crawldedup.store import Store, StoreError, open_store
from crawldedup.store.base import TABLES
from crawldedup.store.sqlite_store import SqliteStore
from tests.hbase_fixtures import hbase_url


@pytest.fixture(params=["sqlite", pytest.param("hbase", marks=pytest.mark.hbase)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    else:
        s = open_store(hbase_url(request.getfixturevalue("hbase_prefix")))
        for table in TABLES:
            s.delete(table, [k for k, _ in s.scan(table, keys_only=True)])
    yield s
    s.close()


def test_put_then_get_whole_rows_and_columns(store: Store) -> None:
    store.put(
        "title_id", {"k1": {"d:a": b"2026-11-01|t1", "d:b": b"2026-11-01|t2"}, "k2": {"d:c": b"x"}}
    )
    got = store.get("title_id", ["k1", "k2", "absent"])
    assert got == {"k1": {"d:a": b"2026-11-01|t1", "d:b": b"2026-11-01|t2"}, "k2": {"d:c": b"x"}}
    assert store.get("title_id", ["k1"], columns=["d:b"]) == {"k1": {"d:b": b"2026-11-01|t2"}}
    assert store.get("title_id", []) == {}


def test_put_is_idempotent_and_last_write_wins(store: Store) -> None:
    store.put("docs", {"d1": {"m:url": b"u1", "v:tf": b"{}"}})
    store.put("docs", {"d1": {"m:url": b"u1", "v:tf": b"{}"}})
    store.put("docs", {"d1": {"m:url": b"u2"}})
    assert store.get("docs", ["d1"]) == {"d1": {"m:url": b"u2", "v:tf": b"{}"}}


def test_put_cells_is_put_of_the_same_cells(store: Store) -> None:
    """Cells as (row, column, value), in order: a cell given twice holds the last value,
    and the store counts every cell given."""
    before = store.stats.cells_written
    store.put_cells(
        "lsh_id",
        [("k1", "d:a", b"2026-11-01|t1"), ("k2", "d:b", b"x"), ("k1", "d:a", b"2026-11-01|t2")],
    )
    store.put_cells("lsh_id", [])
    assert store.get("lsh_id", ["k1", "k2"]) == {
        "k1": {"d:a": b"2026-11-01|t2"},
        "k2": {"d:b": b"x"},
    }
    assert store.stats.cells_written - before >= 2


def test_scan_is_in_byte_order_with_start_stop_and_prefix(store: Store) -> None:
    keys = ["2026-11-01|b", "2026-11-01|a", "2026-11-02|a", "2026-10-31|z", "2026-11-01|中"]
    store.put("verdicts", {k: {"v:verdict": b"unique"} for k in keys})
    assert [k for k, _ in store.scan_prefix("verdicts", "2026-11-01|")] == [
        "2026-11-01|a",
        "2026-11-01|b",
        "2026-11-01|中",
    ]
    assert [k for k, _ in store.scan("verdicts", start="2026-11-01|b", stop="2026-11-02")] == [
        "2026-11-01|b",
        "2026-11-01|中",
    ]
    rows = dict(store.scan("verdicts", start="2026-11-02"))
    assert rows == {"2026-11-02|a": {"v:verdict": b"unique"}}


def test_key_only_scan_returns_each_row_once(store: Store) -> None:
    store.put(
        "start_id", {f"{i:02x}" + "0" * 30: {"d:a": b"1", "d:b": b"2"} for i in range(0, 256, 7)}
    )
    keys = [k for k, row in store.scan("start_id", keys_only=True)]
    assert keys == sorted(keys) and len(keys) == len(range(0, 256, 7))
    assert all(
        row == {} for _, row in store.scan("start_id", start="40", stop="80", keys_only=True)
    )
    assert len(list(store.scan("start_id", start="40", stop="80", keys_only=True))) == 9


def test_delete_rows_and_columns(store: Store) -> None:
    store.put("groups", {"g": {"d:a": b"1", "d:b": b"2"}, "h": {"d:c": b"3"}})
    store.delete("groups", ["g"], columns=["d:a"])
    store.delete("groups", ["h"])
    store.delete("groups", ["never-there"])
    assert store.get("groups", ["g", "h"]) == {"g": {"d:b": b"2"}}


def test_delete_cells_of_rows_whose_columns_differ(store: Store) -> None:
    rows = {f"k{i:04d}": {"d:a": b"1", "d:b": b"2", "d:c": b"3"} for i in range(2500)}
    store.put("groups", rows)
    store.delete_cells(
        "groups", {k: (["d:a"] if i % 2 else ["d:b", "d:c"]) for i, k in enumerate(sorted(rows))}
    )
    store.delete_cells("groups", {"never-there": ["d:a"], "k0000": []})
    got = store.get("groups", sorted(rows))
    assert all(
        got[k] == ({"d:b": b"2", "d:c": b"3"} if i % 2 else {"d:a": b"1"})
        for i, k in enumerate(sorted(rows))
    )
    assert len(got) == len(rows)


def test_many_rows_are_batched(store: Store) -> None:
    rows = {f"doc{i:05d}": {"m:day": b"2026-11-01"} for i in range(1234)}
    store.put("docs", rows)
    got = store.get("docs", list(rows))
    assert len(got) == 1234
    assert store.stats.round_trips < 1234  # batched, not one call per row


def test_unknown_table_is_an_error(store: Store) -> None:
    with pytest.raises(StoreError):
        store.get("nope", ["x"])


def test_check_and_put_swaps_only_the_expected_value(store: Store) -> None:
    cell = ("locks", "run", "l:holder")
    assert store.check_and_put(*cell, None, b"a")  # absent → written
    assert not store.check_and_put(*cell, None, b"b")  # present: not absent any more
    assert not store.check_and_put(*cell, b"x", b"b")  # another value expected
    assert store.check_and_put(*cell, b"a", b"")  # the holder gives it back
    assert store.check_and_put(*cell, b"", b"c")
    assert store.get("locks", ["run"]) == {"run": {"l:holder": b"c"}}


def test_a_days_ledger_takes_back_exactly_the_cells_it_recorded(store: Store) -> None:
    """Reruns delete what the earlier run of a day wrote into shared rows: the cells its
    ledger recorded, and no other day's (store/day_ledger.py)."""
    from crawldedup.store.day_ledger import has_records, put_recorded, retract_recorded

    put_recorded(store, "2026-11-01", "host_lines", {"a.example|k1": {"d:2026-11-01": b"3"}})
    put_recorded(store, "2026-11-02", "host_lines", {"a.example|k1": {"d:2026-11-02": b"5"}})
    put_recorded(
        store, "2026-11-02", "host_lines", {"*|k1": {"d:@b.example|2026-11-02": b"2026-11-02"}}
    )
    put_recorded(store, "2026-11-02", "rel_df", {"w|word": {"d:2026-11-02": b"7"}})
    assert retract_recorded(store, "2026-11-02", ("host_lines",)) == 2
    assert dict(store.scan("host_lines")) == {"a.example|k1": {"d:2026-11-01": b"3"}}
    assert has_records(store, "2026-11-02")  # rel_df's record is left for its owner
    assert retract_recorded(store, "2026-11-02") == 1
    assert not has_records(store, "2026-11-02") and has_records(store, "2026-11-01")
    assert dict(store.scan("rel_df")) == {}


def test_a_day_published_before_the_ledger_is_found_by_a_scan(store: Store) -> None:
    from crawldedup.store.day_ledger import retract_unrecorded
    from crawldedup.store.schema import served_elsewhere

    old_layout = {"*|k1": {"d:@b.example": b"2026-11-02", "d:@c.example": b"2026-11-01"}}
    store.put("host_lines", {"a.example|k1": {"d:2026-11-01": b"3", "d:2026-11-02": b"4"}})
    store.put("host_lines", old_layout)
    assert served_elsewhere(old_layout["*|k1"], "a.example", "2026-11-02")  # c, on 11-01
    assert retract_unrecorded(store, "2026-11-02", ("host_lines",)) == 2
    assert dict(store.scan("host_lines")) == {
        "a.example|k1": {"d:2026-11-01": b"3"},
        "*|k1": {"d:@c.example": b"2026-11-01"},
    }


class _Count:
    """What a Spark accumulator offers store_batches: add."""

    def __init__(self) -> None:
        self.value = 0

    def add(self, n: int) -> None:
        self.value += n


def test_record_batch_writes_send_the_store_batch_size_a_request(store: Store) -> None:
    """Publish hands whole Arrow record batches to its batch functions; the store must
    still send ``limits.store_batch_size`` rows a request (a put per row on HBase made
    the 100k day's publish 13x slower), whatever the rows' grouping."""
    import pyarrow as pa

    from crawldedup.pipeline.store_batches import write_record_batches

    url = (
        f"sqlite:///{store.path}" if isinstance(store, SqliteStore) else hbase_url(store.prefix)  # type: ignore[attr-defined]
    )
    rows = pa.table({"key": [f"k{i:05d}" for i in range(1200)]})
    seen: list[int | None] = []

    def put(s: Store, batch: pa.RecordBatch) -> None:
        seen.append(s.batch_size)  # type: ignore[attr-defined]
        s.put_cells("title_id", [(k, "d:x", b"v") for k in batch.column("key").to_pylist()])

    counts = {"round_trips": _Count(), "cells_written": _Count()}
    n = write_record_batches(rows.to_batches(max_chunksize=600), url, 600, put, counts)
    assert n == 1200 and seen == [600, 600]
    assert counts["cells_written"].value == 1200
    assert counts["round_trips"].value <= 4  # two puts of 600 rows, not 1,200 puts
    assert len(store.get("title_id", [f"k{i:05d}" for i in range(1200)])) == 1200
