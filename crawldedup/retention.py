"""The index's lifetime: the window of earlier days a day is compared with, and
forgetting days or a host's pages (docs/operations.md#retention).

``[index] keep_days = N`` (0: keep every day): day D is compared with days D-N .. D-1 only
(its candidates, its hosts' line counts, the relevance document frequencies), and
committing a day forgets the days that fell out of the window of the newest committed
day: after day 12 with N = 5 the index holds days 8 .. 12. ``crawldedup forget`` forgets
a range of days or one host's pages on request.

Forgetting takes a page out of the *index*: its postings in the rules' index tables, the
index cells of its document row (keys, sketches, term counts), the shared cells its day
recorded (host line counts, relevance counts and vectors) and the Bloom blocks of its
keys' ranges (the next bloom stage rebuilds them from what the index still holds). What
was published stays: verdict rows, groups, and the document row's url, title, day and
fetch time, so every verdict reads as before.

In order, so that a forget killed at any point is finished by the next one: per batch of
documents the postings first, then the document's index cells (which list the postings);
then the day's recorded cells; the Bloom blocks; last the ``forgotten`` row that logs it
(``f:state`` running, then done with its counts). Run again, it finds what is left.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from crawldedup.day_state import MARKER, PUBLISHED_WITH, published_days
from crawldedup.pipeline.bloom_blocks import BLOCKS, block_row, key_ranges, range_of
from crawldedup.pipeline.store_batches import in_batches
from crawldedup.rules import Rule
from crawldedup.store import Store
from crawldedup.store.day_ledger import LEDGER, RECORDED, records
from crawldedup.store.schema import (
    DOC_CELL,
    INDEX_FIELDS,
    doc_fields,
    listed_keys,
    pack_doc,
    posting_column,
)
from crawldedup.urls import normalize_url

FORGOTTEN = "forgotten"
STATE, COUNTS, WHY, AT = "f:state", "f:counts", "f:why", "f:at"


def window_start(day: str, keep_days: int) -> str:
    """The first earlier day that day ``day`` is compared with ("" = every day)."""
    if keep_days <= 0:
        return ""
    return (date.fromisoformat(day) - timedelta(days=keep_days)).isoformat()


def prune_cutoff(newest: str, keep_days: int) -> str | None:
    """The last day to forget once ``newest`` is committed (None: keep every day)."""
    return window_start(newest, keep_days) or None


@dataclass
class Forgotten:
    """What a forget removed (or, in a dry run, would remove)."""

    documents: int = 0
    postings: int = 0
    cells: int = 0  # document index cells and recorded shared cells
    rows: int = 0  # whole rows: a host's line-count rows, Bloom blocks
    bytes: int = 0  # keys, column names and values of what goes
    bloom_blocks: int = 0
    days: list[str] = field(default_factory=list)

    def add(self, other: Forgotten) -> None:
        for name in ("documents", "postings", "cells", "rows", "bytes", "bloom_blocks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.days += other.days

    def line(self) -> str:
        return (
            f"{self.documents} documents, {self.postings} postings, {self.cells} cells, "
            f"{self.rows} rows, {self.bytes} bytes, {self.bloom_blocks} Bloom blocks"
        )


# Documents per multi-get: their posting columns are bound variables of one query.
MAX_BATCH = 500


def _size(key: str, cells: dict[str, bytes]) -> int:
    return sum(len(key.encode()) + len(c.encode()) + len(v) for c, v in cells.items())


def _forget_documents(
    store: Store,
    ids: list[str],
    keep: Callable[[dict[str, bytes]], bool],
    lows: list[str],
    dry_run: bool,
    touched: set[str],
) -> Forgotten:
    """Forget the documents of ``ids`` whose row ``keep`` selects: postings first, then
    the row's index cells. Adds the Bloom block rows of their keys to ``touched``."""
    out = Forgotten()
    rows = store.get("docs", ids, columns=[DOC_CELL, "m:url", "m:day", *INDEX_FIELDS])
    packed = {i for i, r in rows.items() if DOC_CELL in r}
    # Rows holding index cells of the layout a cell a field (beside a packed cell too,
    # when a rerun by a release before the packed-layout marks wrote one).
    old_cells = {i for i, r in rows.items() if any(c in r for c in INDEX_FIELDS)}
    chosen = {i: f for i, r in rows.items() if keep(f := doc_fields(r))}
    # By index table: the keys and the posting columns (the documents) to delete; every
    # (key, column) pair of a table is a cell of a forgotten document or no cell at all.
    postings: dict[str, tuple[set[str], set[str]]] = {}
    for doc_id, row in chosen.items():
        for rule, k in listed_keys(json.loads(row.get("m:keys") or b"{}")):
            keys_of, columns = postings.setdefault(Rule(rule).table, (set(), set()))
            keys_of.add(k)
            columns.add(posting_column(doc_id))
            touched.add(block_row(rule, range_of(k, lows)))
        index = {c: v for c, v in row.items() if c in INDEX_FIELDS}
        if index:
            out.documents += 1
            out.cells += len(index) if doc_id in old_cells else 1  # a packed row: its cell
            out.bytes += _size(doc_id, index)
    for table, (keys_of, columns) in sorted(postings.items()):
        # Whole rows (a key's postings are capped at limits.max_postings_per_key): a
        # multi-get naming hundreds of columns too is far slower on SQLite.
        rows_found = store.get(table, sorted(keys_of))
        found = {
            k: mine
            for k, cells in rows_found.items()
            if (mine := {c: v for c, v in cells.items() if c in columns})
        }
        out.postings += sum(len(cells) for cells in found.values())
        out.bytes += sum(_size(k, cells) for k, cells in found.items())
        if not dry_run and found:
            store.delete_cells(table, {k: sorted(cells) for k, cells in found.items()})
    if not dry_run and chosen:
        # A packed row is written again without its index fields; index cells of the
        # layout a cell a field (before 2026-12) are deleted.
        kept = {
            i: {DOC_CELL: pack_doc({c: v for c, v in f.items() if c not in INDEX_FIELDS})}
            for i, f in chosen.items()
            if i in packed
        }
        store.put("docs", kept)
        old = sorted(set(chosen) & old_cells)
        if old:
            store.delete("docs", old, columns=list(INDEX_FIELDS))
    return out


def _recorded_cells(store: Store, day: str, dry_run: bool) -> Forgotten:
    """The shared cells the day's ledger recorded (line counts, relevance counts and
    vectors), then the ledger rows."""
    out = Forgotten()
    for table in RECORDED:
        for key, size, by_column in records(store, day, table):
            for column, rows in by_column.items():
                found = store.get(table, rows, columns=[column])
                out.cells += len(found)
                out.bytes += sum(_size(k, cells) for k, cells in found.items())
                if not dry_run and found:
                    store.delete_cells(table, {k: [column] for k in found})
            out.rows += 1
            out.bytes += size
            if not dry_run:
                store.delete(LEDGER, [key])
    return out


def _drop_blocks(store: Store, touched: set[str], dry_run: bool) -> Forgotten:
    found = store.get(BLOCKS, sorted(touched)) if touched else {}
    out = Forgotten(bloom_blocks=len(found), rows=len(found))
    out.bytes = sum(_size(k, cells) for k, cells in found.items())
    if not dry_run and found:
        store.delete(BLOCKS, sorted(found))
    return out


def _log(store: Store, row: str, state: str, why: str, counts: Forgotten | None) -> None:
    cells = {
        STATE: state.encode(),
        WHY: why.encode(),
        AT: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ").encode(),
    }
    if counts is not None:
        cells[COUNTS] = json.dumps(asdict(counts), sort_keys=True).encode()
    store.put(FORGOTTEN, {row: cells})


def day_row(day: str) -> str:
    return f"day|{day}"


def host_row(host: str) -> str:
    return f"host|{host}"


def _day_ids(store: Store, day: str) -> Iterator[str]:
    for key, _ in store.scan_prefix("verdicts", f"{day}|", keys_only=True):
        yield key.partition("|")[2]


def forget_day(
    store: Store, day: str, *, splits: int, batch_size: int, dry_run: bool, why: str
) -> Forgotten:
    """Forget one day's pages from the index (the module's docstring)."""
    if not dry_run:
        _log(store, day_row(day), "running", why, None)
    lows = [lo for lo, _ in key_ranges(splits)]
    touched: set[str] = set()
    out = Forgotten(days=[day])

    def of_day(row: dict[str, bytes]) -> bool:
        return row.get("m:day", b"").decode() == day  # else another day's document

    for ids in in_batches(_day_ids(store, day), min(batch_size, MAX_BATCH)):
        out.add(_forget_documents(store, ids, of_day, lows, dry_run, touched))
    out.add(_recorded_cells(store, day, dry_run))
    out.add(_drop_blocks(store, touched, dry_run))
    if not dry_run:
        _log(store, day_row(day), "done", why, out)
    return out


def forget_host(
    store: Store, host: str, *, splits: int, batch_size: int, dry_run: bool, why: str
) -> Forgotten:
    """Forget every page of ``host`` (as ``crawldedup.urls.normalize_url`` names hosts),
    of every day, and the host's line counts."""
    if not dry_run:
        _log(store, host_row(host), "running", why, None)
    lows = [lo for lo, _ in key_ranges(splits)]
    touched: set[str] = set()
    out = Forgotten()

    def of_host(row: dict[str, bytes]) -> bool:
        return normalize_url(row.get("m:url", b"").decode())[0] == host

    for day in published_days(store):
        for ids in in_batches(_day_ids(store, day), min(batch_size, MAX_BATCH)):
            out.add(_forget_documents(store, ids, of_host, lows, dry_run, touched))
    # The host's line counts (rows "host|line"), and the cells naming it in the rows of
    # lines that were ordinary text somewhere ("*|line", cells "d:@host|day").
    mine = [k for k, _ in store.scan_prefix("host_lines", f"{host}|")]
    rows = store.get("host_lines", mine) if mine else {}
    out.rows += len(rows)
    out.bytes += sum(_size(k, cells) for k, cells in rows.items())
    if not dry_run and rows:
        store.delete("host_lines", sorted(rows))
    named = (f"d:@{host}|", f"d:@{host}")
    for key, cells in store.scan_prefix("host_lines", "*|"):
        cols = [c for c in cells if c.startswith(named[0]) or c == named[1]]
        if cols:
            out.cells += len(cols)
            out.bytes += _size(key, {c: cells[c] for c in cols})
            if not dry_run:
                store.delete("host_lines", [key], columns=cols)
    out.add(_drop_blocks(store, touched, dry_run))
    if not dry_run:
        _log(store, host_row(host), "done", why, out)
    return out


def days_in(store: Store, first: str, last: str) -> list[str]:
    """The days from ``first`` to ``last`` (inclusive) that the store has verdicts of, a
    day marked as being forgotten included."""
    days = {d for d in published_days(store) if first <= d <= last}
    for key, cells in store.scan_prefix(FORGOTTEN, "day|"):
        d = key.partition("|")[2]
        if first <= d <= last and cells.get(STATE) == b"running":
            days.add(d)
    return sorted(days)


def days_to_prune(store: Store, day: str, keep_days: int) -> list[str]:
    """Once ``day`` is committed: the committed days (not being published again) out of
    the newest committed day's window (``prune_cutoff``) and not forgotten yet. A day
    forgotten halfway is among them; committing a day again clears its log row, so a
    rerun day is forgotten again."""
    if keep_days <= 0:
        return []
    committed = [
        d for d, cells in store.scan("days") if PUBLISHED_WITH in cells and MARKER not in cells
    ]
    cutoff = window_start(max([day, *committed]), keep_days)
    done = {
        k.partition("|")[2]
        for k, c in store.scan_prefix(FORGOTTEN, "day|")
        if c.get(STATE) == b"done"
    }
    return [d for d in committed if d <= cutoff and d not in done]


def forgotten_log(store: Store) -> list[dict[str, Any]]:
    """Every forget the store has logged: what, state, why, when, counts."""
    out = []
    for key, cells in store.scan(FORGOTTEN):
        kind, _, what = key.partition("|")
        counts = json.loads(cells[COUNTS]) if COUNTS in cells else None
        out.append(
            {
                kind: what,
                "state": cells.get(STATE, b"").decode(),
                "why": cells.get(WHY, b"").decode(),
                "at": cells.get(AT, b"").decode(),
                "counts": counts,
            }
        )
    return out


def prune(store: Store, day: str, keep_days: int, *, splits: int, batch_size: int) -> Forgotten:
    """Forget the days that fell out of the window once ``day`` is committed."""
    out = Forgotten()
    for old in days_to_prune(store, day, keep_days):
        why = f"index.keep_days = {keep_days} (committed {day})"
        out.add(
            forget_day(store, old, splits=splits, batch_size=batch_size, dry_run=False, why=why)
        )
    return out
