"""The executors' batched store loop, on the embedded SQLite store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawldedup.pipeline.store_batches import in_batches, store_batches
from crawldedup.store import Store, open_store


class Counter:
    """Stands in for a Spark accumulator: something with ``add``."""

    def __init__(self) -> None:
        self.value = 0

    def add(self, n: int) -> None:
        self.value += n


def counters(*names: str) -> dict[str, Counter]:
    return {n: Counter() for n in names}


@pytest.fixture
def url(tmp_path: Path) -> str:
    """An existing store (creating the tables is a round trip of its own)."""
    u = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(u).close()
    return u


def test_in_batches() -> None:
    assert list(in_batches(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(in_batches([], 3)) == []


def test_batches_write_and_read_through_one_store(url: str) -> None:
    seen: list[list[int]] = []

    def write(store: Store, batch: list[int]) -> None:
        seen.append(batch)
        store.put("docs", {f"d{i}": {"m:day": b"2026-11-01"} for i in batch})

    c = counters("round_trips", "rows_read", "cells_written", "probes")
    assert list(store_batches(range(5), url, 2, write, c)) == []
    assert seen == [[0, 1], [2, 3], [4]]
    assert c["round_trips"].value == 3 and c["cells_written"].value == 5
    assert c["probes"].value == 0  # not a store count: left to the stage

    def read(store: Store, batch: list[str]) -> Iterator[str]:
        found = store.get("docs", batch)
        yield from (k for k in batch if k in found)

    c = counters("round_trips", "rows_read")
    assert list(store_batches(["d0", "x", "d4"], url, 2, read, c)) == ["d0", "d4"]
    assert (c["round_trips"].value, c["rows_read"].value) == (2, 2)

    def scan(store: Store, batch: list[str]) -> Iterator[str]:
        return (k for k, _ in store.scan("docs", start=batch[0], keys_only=True))

    assert list(store_batches(["d3"], url, 2, scan)) == ["d3", "d4"]


def test_the_store_opens_only_when_a_batch_needs_it(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    c = counters("round_trips")
    out = store_batches(range(4), f"sqlite:///{db}", 2, lambda s, b: [x * 2 for x in b], c)
    assert list(out) == [0, 2, 4, 6]
    assert not db.exists() and c["round_trips"].value == 0
    assert list(store_batches([], f"sqlite:///{db}", 2, lambda s, b: b)) == []
    assert not db.exists()


def test_the_store_is_closed_when_a_batch_fails(url: str) -> None:
    used: list[Store] = []

    def fail(store: Store, batch: list[int]) -> None:
        used.append(store)
        store.get("docs", ["a"])
        raise ValueError("bad row")

    c = counters("round_trips")
    with pytest.raises(ValueError, match="bad row"):
        list(store_batches(range(3), url, 2, fail, c))
    assert c["round_trips"].value == 1  # counted even so
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        used[0].get("docs", ["a"])


def test_the_store_is_closed_when_the_consumer_stops_early(url: str) -> None:
    used: list[Store] = []

    def read(store: Store, batch: list[int]) -> list[int]:
        used.append(store)
        store.get("docs", ["a"])
        return batch

    it = store_batches(range(10), url, 2, read)
    assert next(it) == 0
    it.close()
    with pytest.raises(sqlite3.ProgrammingError):
        used[0].get("docs", ["a"])
    with open_store(url) as other:  # the file itself is fine
        assert other.get("docs", ["a"]) == {}
