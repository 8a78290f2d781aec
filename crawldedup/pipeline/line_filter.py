"""A Bloom filter of the store's line-count rows (``host_lines`` rows ``host|line``): the
day's boilerplate tally gets the earlier counts only of the lines the filter may hold.

Most of a day's lines are an article's own, never counted before: on rt50k's second
day 10.4 % of the day's (host, line) pairs had an earlier count. On HBase each get of
an absent row costs the region server a scanner over its memstore and store files; in
a profile of the 100k day (JFR, docs/benchmarks.md) gets were 42 % of the region
server's samples, most of them these. On the embedded store a get of an absent key costs
less than a probe of the filter (0.6 µs against 0.9), so ``bloom.line_filter = "auto"``
keeps the filter for HBase only.

The filter is kept in blocks, rows ``lines|NNN`` of ``bloom_blocks`` (cells ``b:bits``
and ``b:sizing``, as the rules' blocks): a row's block is the crc32 of its host modulo
``bloom.scan_splits``. Every ``host|line`` row's key is in its block: publish ORs the
day's new keys in before it writes the day's rows, and a missing block, or one sized
otherwise, is rebuilt from a key-only scan of the table before the tally reads it. A
block may hold keys the table lacks (a rerun's retracted rows, a forgotten host's, a
failed run's): each costs one get that finds nothing, never a wrong count. With the
filter off, publish deletes the blocks, so a later run with it on rebuilds them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from urllib.parse import urlparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pybloom_live import BloomFilter

from crawldedup.config import Config
from crawldedup.core.bloom import add_many, contains_many, from_bytes, new_filter, to_bytes
from crawldedup.pipeline.bloom_blocks import BLOCKS
from crawldedup.pipeline.bucket_files import text_bucket
from crawldedup.store import Store

KIND = "lines"
TABLE = "host_lines"
# Distinct (host, line) rows a page adds to host_lines: 11.4 on rt50k's first day, fewer
# on later days (its template lines are there already).
ROWS_PER_DOC = 12
_COLUMNS = ["b:bits", "b:sizing"]


def line_row(host: str | None, line: str) -> str:
    """The ``host_lines`` row of a host's line (a missing host is written "None")."""
    return f"{host}|{line}"


def line_rows(table: pa.Table | pa.RecordBatch) -> list[str]:
    """:func:`line_row` of every (``host``, ``line``) row of a ``work/host_lines`` table."""
    hosts = pc.fill_null(table.column("host"), "None")
    rows: list[str] = pc.binary_join_element_wise(hosts, table.column("line"), "|").to_pylist()
    return rows


def is_on(cfg: Config, store_url: str) -> bool:
    """Whether the day keeps and asks the filter (``bloom.line_filter``)."""
    mode = cfg.bloom.line_filter
    return mode == "on" or (mode == "auto" and urlparse(store_url).scheme == "hbase")


def block_of(row: str, splits: int) -> int:
    """The block of a ``host|line`` row: by its host, so a host's rows share one."""
    return text_bucket(row.partition("|")[0], splits)


def _block_row(index: int) -> str:
    return f"{KIND}|{index:03d}"


def _sizing_cell(cfg: Config) -> bytes:
    splits = cfg.bloom.scan_splits
    capacity = math.ceil(cfg.bloom.capacity_docs * ROWS_PER_DOC / splits)
    return json.dumps(
        {"capacity": capacity, "error_rate": cfg.bloom.error_rate, "splits": splits}
    ).encode()


def _empty(cfg: Config) -> BloomFilter:
    sizing = json.loads(_sizing_cell(cfg))
    return new_filter(sizing["capacity"], sizing["error_rate"])


def _stored(store: Store, cfg: Config) -> dict[int, bytes] | None:
    """Every block's bits as stored, or None when one is missing or sized otherwise."""
    splits = cfg.bloom.scan_splits
    rows = [_block_row(i) for i in range(splits)]
    found = store.get(BLOCKS, rows, columns=_COLUMNS)
    want = _sizing_cell(cfg)
    out: dict[int, bytes] = {}
    for i, row in enumerate(rows):
        cells = found.get(row, {})
        if cells.get("b:sizing") != want or "b:bits" not in cells:
            return None
        out[i] = cells["b:bits"]
    return out


def _put(store: Store, cfg: Config, filters: dict[int, BloomFilter]) -> None:
    sizing = _sizing_cell(cfg)
    store.put(
        BLOCKS,
        {_block_row(i): {"b:bits": to_bytes(f), "b:sizing": sizing} for i, f in filters.items()},
    )


def _by_block(rows: Iterable[str], splits: int) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for row in rows:
        out.setdefault(block_of(row, splits), []).append(row)
    return out


def load(store: Store, cfg: Config, write: bool = True) -> tuple[dict[int, bytes], int]:
    """The blocks, serialized (for a broadcast), and how many keys a rebuild put in (0
    when every block was there). A rebuild scans the table's keys (rows ``*|line`` are
    not counts and are left out) and, when ``write``, stores the blocks (a dry run
    keeps them in memory)."""
    stored = _stored(store, cfg)
    if stored is not None:
        return stored, 0
    splits, rebuilt = cfg.bloom.scan_splits, 0
    filters = {i: _empty(cfg) for i in range(splits)}
    batch: list[str] = []

    def flush() -> None:
        for i, rows in _by_block(batch, splits).items():
            add_many(filters[i], rows)
        batch.clear()

    for row, _ in store.scan(TABLE, keys_only=True):
        if not row.startswith("*|"):
            batch.append(row)
            rebuilt += 1
            if len(batch) >= 200_000:
                flush()
    flush()
    if write:
        _put(store, cfg, filters)
    return {i: to_bytes(f) for i, f in filters.items()}, rebuilt


class LineFilter:
    """The blocks of :func:`load`, read back in a task: which rows may be counted."""

    def __init__(self, blocks: dict[int, bytes]) -> None:
        self._blocks = blocks
        self._filters: dict[int, BloomFilter] = {}

    def may_hold(self, rows: Sequence[str]) -> np.ndarray:
        """For each ``host|line`` row, whether the store may hold it (False: it does not)."""
        out = np.zeros(len(rows), dtype=bool)
        splits = len(self._blocks)
        places: dict[int, list[int]] = {}
        for n, row in enumerate(rows):
            places.setdefault(block_of(row, splits), []).append(n)
        for i, at in places.items():
            if i not in self._filters:
                self._filters[i] = from_bytes(self._blocks[i])
            out[at] = contains_many(self._filters[i], [rows[n] for n in at])
        return out


def add_new_rows(store: Store, cfg: Config, day_rows: pa.Table) -> int:
    """OR the day's rows that had no earlier count (``n == pages`` in ``work/host_lines``:
    a row with one is in its block already) into the stored blocks, before publish
    writes them; returns how many. Missing or re-sized blocks are left alone: the next
    tally rebuilds them from the table."""
    stored = _stored(store, cfg)
    if stored is None:
        return 0
    new = day_rows.filter(pc.equal(day_rows.column("n"), day_rows.column("pages")))
    rows = line_rows(new)
    touched: dict[int, BloomFilter] = {}
    for i, keys in _by_block(rows, cfg.bloom.scan_splits).items():
        touched[i] = from_bytes(stored[i])  # only the blocks the day's rows fall in
        add_many(touched[i], keys)
    _put(store, cfg, touched)
    return len(rows)


def drop(store: Store) -> None:
    """Delete the blocks, of any sizing (the filter is off: the day's rows will not be
    in them)."""
    rows = [row for row, _ in store.scan_prefix(BLOCKS, f"{KIND}|", keys_only=True)]
    if rows:
        store.delete(BLOCKS, rows)
