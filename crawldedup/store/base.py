"""The storage interface: HBase's data model, kept small.

A table is a sorted map of row key → {"family:qualifier" → value}. Row keys and
column names are str (UTF-8 on the wire, so byte order equals HBase's); values are
bytes. Both backends implement exactly these calls, and one contract test suite
(tests/contract) runs against each.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

# Which index table serves which cascade rule, by rule name (re-exported).
from crawldedup.rules import INDEX_TABLES as INDEX_TABLES
from crawldedup.rules import Rule

Row = dict[str, bytes]

TABLES: dict[str, tuple[str, ...]] = {
    # The index tables, one per rule (crawldedup.rules), one cell per doc: row = md5 hex
    # of the normalized part (docs/algorithm.md#the-four-keys), or one block of the 64-bit SimHash
    # ("<hex>.<block>").
    **{rule.table: ("d",) for rule in Rule},
    # Per-document metadata (m) and term vector (v): row = doc id.
    "docs": ("m", "v"),
    # Verdicts: row = "YYYY-MM-DD|doc id", so one day is one contiguous range.
    "verdicts": ("v",),
    # Groups: row = canonical doc id, one cell per member.
    "groups": ("d",),
    # Per-day run records (report): row = "YYYY-MM-DD".
    "days": ("r",),
    # Topic relevance (docs/relevance.md). Document frequencies: row = "w|word", "c|term" or
    # "a|topic|atom", plus "#docs"; one cell per day ("d:YYYY-MM-DD" = count).
    "rel_df": ("d",),
    # Scores: row = "YYYY-MM-DD|topic|doc id".
    "rel_scores": ("s",),
    # The crawl frontier: row = "YYYY-MM-DD|topic|rank (8 digits)".
    "rel_links": ("l",),
    # Tag-weighted TF-IDF vectors of the cascade terms: row = doc id.
    "rel_docs": ("v",),
    # Site boilerplate (docs/algorithm.md#boilerplate): row = "host|line key", one cell
    # per day ("d:YYYY-MM-DD" = how many of the day's pages of the host hold the line).
    "host_lines": ("d",),
    # Bloom filter blocks (docs/algorithm.md#bloom): row = "rule|range (3 digits)", cells
    # "b:bits" (the filter of every key the rule's index table has had) and "b:sizing".
    "bloom_blocks": ("b",),
    # What a day's run wrote into rows other days share (crawldedup/store/day_ledger.py):
    # row = "YYYY-MM-DD|table|writer", cell "w:cells" = the (row, column) pairs, packed.
    "ledger": ("w",),
    # What was forgotten from the index (crawldedup/retention.py): row = "day|YYYY-MM-DD" or
    # "host|HOST", cells f:state (running, done), f:why, f:at, f:counts.
    "forgotten": ("f",),
    # Run locks (crawldedup/store_lock.py): row = "run", cell "l:holder" = the holder's
    # JSON (what, host, pid, since, heartbeat), empty when free.
    "locks": ("l",),
}


class StoreError(RuntimeError):
    """The store failed after its retries; the task must fail loudly."""


@dataclass
class StoreStats:
    round_trips: int = 0
    rows_read: int = 0
    cells_written: int = 0
    rows_deleted: int = 0
    retries: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, int]:
        return {
            "round_trips": self.round_trips,
            "rows_read": self.rows_read,
            "cells_written": self.cells_written,
            "rows_deleted": self.rows_deleted,
            "retries": self.retries,
        }


def prefix_stop(prefix: str) -> str:
    """The smallest key greater than every key starting with ``prefix``."""
    return prefix + "\U0010ffff"


class Store(abc.ABC):
    """An HBase-shaped store. Implementations batch, count round trips and retry."""

    stats: StoreStats

    @abc.abstractmethod
    def put(self, table: str, rows: Mapping[str, Mapping[str, bytes]]) -> None:
        """Write cells; idempotent (a cell written twice holds the last value)."""

    def put_cells(self, table: str, cells: Sequence[tuple[str, str, bytes]]) -> None:
        """:meth:`put` of cells given as (row, column, value), in order: a day's
        postings and line counts come as columns, and a mapping per row is a cost per
        cell the embedded store does not need."""
        rows: dict[str, dict[str, bytes]] = {}
        for row, column, value in cells:
            rows.setdefault(row, {})[column] = value
        self.put(table, rows)

    @abc.abstractmethod
    def get(
        self, table: str, rows: Sequence[str], columns: Sequence[str] | None = None
    ) -> dict[str, Row]:
        """Fetch rows by key (all columns, or only ``columns``); absent rows are absent."""

    @abc.abstractmethod
    def scan(
        self,
        table: str,
        start: str | None = None,
        stop: str | None = None,
        keys_only: bool = False,
        batch_size: int = 1000,
    ) -> Iterator[tuple[str, Row]]:
        """Rows with start <= key < stop in key order (keys_only → empty rows)."""

    @abc.abstractmethod
    def delete(self, table: str, rows: Iterable[str], columns: Sequence[str] | None = None) -> None:
        """Delete whole rows, or only the given columns of them."""

    def delete_cells(self, table: str, cells: Mapping[str, Sequence[str]]) -> None:
        """Delete the given columns of each row (row -> its columns): cells of many rows
        whose columns differ, in as few requests as the backend allows (this default: one
        delete per set of columns; both backends send one request)."""
        by_columns: dict[tuple[str, ...], list[str]] = {}
        for row, columns in cells.items():
            if columns:
                by_columns.setdefault(tuple(sorted(columns)), []).append(row)
        for columns, rows in by_columns.items():
            self.delete(table, rows, columns=list(columns))

    @abc.abstractmethod
    def check_and_put(
        self, table: str, row: str, column: str, expected: bytes | None, value: bytes
    ) -> bool:
        """Atomically: write ``value`` into the cell when it holds ``expected`` (None: when
        the cell does not exist); True when written."""

    @abc.abstractmethod
    def close(self) -> None: ...

    def setup_notes(self) -> list[str]:
        """What in the store's own set-up makes a run cost more than it should, one line
        each, told once before a run (none by default)."""
        return []

    def scan_prefix(
        self, table: str, prefix: str, keys_only: bool = False
    ) -> Iterator[tuple[str, Row]]:
        return self.scan(table, start=prefix, stop=prefix_stop(prefix), keys_only=keys_only)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
