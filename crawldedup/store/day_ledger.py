"""What a day's run wrote into rows that other days share, so a rerun can take it back.

Most of a day's cells are found again from the day itself: its verdict rows are the range
``D|``, its documents' rows and postings are listed by those verdicts and the documents'
keys. Some cells are not: a day's page count of a host's line (``host_lines`` row
``host|line``, cell ``d:D``), the hosts where a line was ordinary text, the day's term
counts of the relevance tables. Those rows are keyed by what they count, and a rerun
with fewer pages or other settings would not write every one of them again.

Each batch of such cells is recorded *before* it is written, as one ``ledger`` row
``D|table|writer`` holding the batch's (row, column) pairs (JSON, zlib). A rerun of the
day deletes every recorded cell, then the ledger rows: what the earlier run wrote is gone,
whatever the new run writes. A crash between record and put leaves a record of cells
that were never written; deleting them is harmless.
"""

from __future__ import annotations

import json
import uuid
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence

from crawldedup.store.base import Store

LEDGER = "ledger"
CELLS = "w:cells"
# The tables a ledger may name: rows shared across days, cells of one day.
RECORDED = ("host_lines", "rel_df", "rel_docs")


def ledger_prefix(day: str, table: str | None = None) -> str:
    return f"{day}|{table}|" if table else f"{day}|"


def pack(cells: Iterable[tuple[str, str]]) -> bytes:
    return zlib.compress(json.dumps(sorted(set(cells)), ensure_ascii=False).encode(), 6)


def unpack(value: bytes) -> list[tuple[str, str]]:
    return [(r, c) for r, c in json.loads(zlib.decompress(value))]


def put_recorded(
    store: Store, day: str, table: str, rows: Mapping[str, Mapping[str, bytes]]
) -> None:
    """``store.put(table, rows)``, its cells recorded first as the day's."""
    put_recorded_cells(
        store, day, table, [(r, c, v) for r, cols in rows.items() for c, v in cols.items()]
    )


def put_recorded_cells(
    store: Store, day: str, table: str, cells: Sequence[tuple[str, str, bytes]]
) -> None:
    """``store.put_cells(table, cells)``, the cells recorded first as the day's."""
    if table not in RECORDED:
        raise ValueError(f"table {table!r} is not one a day's ledger records")
    if not cells:
        return
    row = f"{ledger_prefix(day, table)}{uuid.uuid4().hex}"
    store.put(LEDGER, {row: {CELLS: pack((r, c) for r, c, _ in cells)}})
    store.put_cells(table, cells)


def records(store: Store, day: str, table: str) -> Iterator[tuple[str, int, dict[str, list[str]]]]:
    """The day's ledger records of ``table``, one at a time (a day's records may be
    large): each record's row, its size in bytes, and its cells as column -> rows."""
    keys = [k for k, _ in store.scan_prefix(LEDGER, ledger_prefix(day, table), keys_only=True)]
    for key in keys:
        value = store.get(LEDGER, [key], columns=[CELLS]).get(key, {}).get(CELLS)
        by_column: dict[str, list[str]] = {}
        for r, c in unpack(value) if value else []:
            by_column.setdefault(c, []).append(r)
        yield key, len(key) + len(value or b""), dict(sorted(by_column.items()))


def retract_recorded(store: Store, day: str, tables: Iterable[str] = RECORDED) -> int:
    """Delete every cell the day's ledger lists in ``tables``, then those ledger rows;
    returns how many cells were deleted."""
    deleted = 0
    for table in tables:
        for key, _, by_column in records(store, day, table):
            for column, rows in by_column.items():
                store.delete(table, rows, columns=[column])
                deleted += len(rows)
            store.delete(LEDGER, [key])
    return deleted


def recorded(store: Store, day: str = "") -> dict[str, set[tuple[str, str]]]:
    """What the ledger records, by ``day|table`` (every day's when ``day`` is empty): the
    cells, whichever batches wrote them."""
    out: dict[str, set[tuple[str, str]]] = {}
    for key, row in store.scan_prefix(LEDGER, ledger_prefix(day) if day else ""):
        found_day, table, _ = key.split("|", 2)
        out.setdefault(f"{found_day}|{table}", set()).update(unpack(row.get(CELLS, pack([]))))
    return out


def has_records(store: Store, day: str) -> bool:
    """Whether any run of the day recorded cells."""
    return any(True for _ in store.scan_prefix(LEDGER, ledger_prefix(day), keys_only=True))


def retract_unrecorded(
    store: Store, day: str, tables: Iterable[str] = ("host_lines", "rel_df")
) -> int:
    """The ledger's work for a day published before the ledger existed: every cell of
    the day in the shared-row tables, found by scanning them (once, on its first rerun).
    ``host_lines`` cells ``d:D`` and ``d:@HOST|D`` (the older layout: ``d:@HOST`` whose
    value is the day), ``rel_df`` cells ``d:D``."""
    deleted = 0
    day_cell = f"d:{day}"
    for table in tables:
        by_column: dict[str, list[str]] = {}
        for row, cells in store.scan(table):
            for c, v in cells.items():
                if c == day_cell or (
                    c.startswith("d:@") and (c.endswith(f"|{day}") or v == day.encode())
                ):
                    by_column.setdefault(c, []).append(row)
        for column, rows in sorted(by_column.items()):
            store.delete(table, rows, columns=[column])
            deleted += len(rows)
    return deleted
