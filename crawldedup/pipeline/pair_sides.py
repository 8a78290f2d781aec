"""Scoring candidate pairs that carry only their two ids.

A document has tens of candidate pairs, so joining its sketch (1 KB) to every pair
moves tens of copies of it through a shuffle and through Arrow into Python. Instead,
each Python worker reads the sides once, columnar — the day's ``work/docs`` and the
earlier days' candidates fetched from the store (``work/earlier_sides``) — into one
(documents × width) array of padded sketches, and every Arrow batch of pairs gathers
its rows by index. The measures are ``crawldedup.core.pair_measures``' (the same bits
as the per-pair definitions); ``tests/spark/test_fast_path.py`` pins them on real
stage output.

The work folder must be readable where the executors run, as the Bloom stage's
partitioned filters already require (one home on a shared file system).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from crawldedup.core.pair_measures import Ragged, hamming, padded, padded_sketch_measures

# Hex digit (ASCII code) -> its value; both cases, as bytes.fromhex accepts.
_NIBBLE = np.zeros(256, dtype=np.uint8)
for _i, _c in enumerate("0123456789abcdef"):
    _NIBBLE[ord(_c)] = _NIBBLE[ord(_c.upper())] = _i
SIDE_COLUMNS = ["id", "sketch", "simhash", "length"]
_SIDE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("sketch", pa.string()),
        pa.field("simhash", pa.string()),
        pa.field("length", pa.int32()),
    ]
)


@dataclass(frozen=True)
class Sides:
    """The day's documents, then the earlier days' candidates: padded sketches,
    SimHashes and lengths, one row each, found by id."""

    today: pd.Index  # id -> row
    earlier: pd.Index  # id -> row - len(today)
    sketches: np.ndarray  # (n, width) uint64, see pair_measures.padded
    sketch_lengths: np.ndarray  # int64
    simhash: np.ndarray  # uint64, 0 when unknown
    simhash_known: np.ndarray  # bool
    chars: pa.Array  # int32, null when unknown

    def rows(self, ids: pa.Array, same_day: np.ndarray | None = None) -> np.ndarray:
        """Row of each id (-1 when unknown): the day's, or where ``same_day`` is false
        the earlier days'."""
        names = ids.to_pylist()
        today = np.asarray(self.today.get_indexer(names), dtype=np.int64)
        if same_day is None or same_day.all():
            return today
        earlier = np.asarray(self.earlier.get_indexer(names), dtype=np.int64)
        earlier = np.where(earlier >= 0, earlier + len(self.today), -1)
        return np.where(same_day, today, earlier)


def _hex_values(col: pa.Array) -> Ragged:
    """Ragged big-endian 64-bit values of a string column of hex (16 digits a value)."""
    col = pc.fill_null(col, "").cast(pa.large_string())
    _, offset_buffer, data = col.buffers()
    if not len(col) or data is None:  # no rows, or only empty sketches
        return Ragged(np.zeros(0, dtype=np.uint64), np.zeros(len(col) + 1, dtype=np.int64))
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[col.offset : col.offset + len(col) + 1]
    start, end = int(offsets[0]), int(offsets[-1])
    digits = np.frombuffer(data, dtype=np.uint8)[start:end]
    nibbles = _NIBBLE[digits]
    raw = (nibbles[0::2] << 4) | nibbles[1::2]
    values = raw.view(">u8").astype(np.uint64) if raw.size else np.zeros(0, dtype=np.uint64)
    return Ragged(values, (offsets - start) // 16)


def sides_of(today: pa.Table, earlier: pa.Table, k: int) -> Sides:
    """The sides of two tables with ``SIDE_COLUMNS`` (sketch and simhash as hex)."""
    table = pa.concat_tables([t.select(SIDE_COLUMNS).cast(_SIDE_SCHEMA) for t in (today, earlier)])
    table = table.combine_chunks()
    column = table.column("sketch")
    sketches = _hex_values(column.chunk(0) if column.num_chunks else pa.array([], pa.string()))
    lengths = sketches.lengths
    simhash_hex = table.column("simhash").to_pylist()
    ids = table.column("id").to_pylist()
    return Sides(
        today=pd.Index(ids[: today.num_rows], dtype=object),
        earlier=pd.Index(ids[today.num_rows :], dtype=object),
        sketches=padded(sketches, max(k, int(lengths.max(initial=0)), 1)),
        sketch_lengths=lengths,
        simhash=np.array([int(v, 16) if v else 0 for v in simhash_hex], dtype=np.uint64),
        simhash_known=np.array([bool(v) for v in simhash_hex], dtype=bool),
        chars=table.column("length").combine_chunks().cast(pa.int32()),
    )


def _stamp(folder: str) -> tuple[str, tuple[tuple[str, int, int], ...]]:
    """A folder's identity for the cache: its files' names, mtimes and sizes."""
    stats = sorted((e.name, e.stat()) for e in os.scandir(folder))
    return folder, tuple((name, st.st_mtime_ns, st.st_size) for name, st in stats)


_CACHE: dict[tuple[object, ...], Sides] = {}


def load_sides(today: str, earlier: str, k: int) -> Sides:
    """The sides of the day's documents and the earlier days' candidates (Parquet
    folders), read once per worker process for the same files (a rerun rewrites them,
    and so is read anew)."""
    key = (_stamp(today), _stamp(earlier), k)
    if key not in _CACHE:
        _CACHE.clear()  # one day's sides at a time
        tables = [pq.read_table(Path(p), columns=SIDE_COLUMNS) for p in (today, earlier)]
        _CACHE[key] = sides_of(tables[0], tables[1], k)
    return _CACHE[key]


def score_id_batch(
    batch: pa.RecordBatch, day: str, sides: Sides, k: int, schema: pa.Schema
) -> pa.RecordBatch:
    """``schema`` (PAIR_SCORES) rows of a batch of (id, cand_id, cand_day) pairs, with
    a null ``similarity``. A pair with an unknown side is left out, as a join would."""
    same_day = np.asarray(
        pc.equal(batch.column("cand_day"), day).to_numpy(zero_copy_only=False), dtype=bool
    )
    a = sides.rows(batch.column("id"))
    b = sides.rows(batch.column("cand_id"), same_day)
    keep = (a >= 0) & (b >= 0)
    if not keep.all():
        batch, a, b = batch.filter(pa.array(keep)), a[keep], b[keep]
    jac, con, smaller = padded_sketch_measures(
        sides.sketches[a], sides.sketch_lengths[a], sides.sketches[b], sides.sketch_lengths[b], k
    )
    known = sides.simhash_known[a] & sides.simhash_known[b]
    dist = pa.array(hamming(sides.simhash[a], sides.simhash[b]).astype(np.int32), mask=~known)
    a_chars, b_chars = sides.chars.take(pa.array(a)), sides.chars.take(pa.array(b))
    shorter = pc.min_element_wise(a_chars, b_chars)
    return pa.RecordBatch.from_arrays(
        [
            batch.column("id"),
            batch.column("cand_id"),
            pa.nulls(batch.num_rows, pa.float64()),
            dist,
            pa.array(jac),
            pa.array(con),
            pa.array(smaller),
            # null when the candidate's length is unknown (rows stored before it was)
            pc.if_else(b_chars.is_null(), pa.scalar(None, shorter.type), shorter).cast(pa.int32()),
        ],
        schema=schema,
    )


def score_id_batches(
    batches: Iterator[pa.RecordBatch],
    day: str,
    today: str,
    earlier: str,
    k: int,
    schema: pa.Schema,
) -> Iterator[pa.RecordBatch]:
    """:func:`score_id_batch` of every batch; the sides are read on the first."""
    sides: Sides | None = None
    for b in batches:
        if b.num_rows:
            sides = sides or load_sides(today, earlier, k)
            yield score_id_batch(b, day, sides, k, schema)
