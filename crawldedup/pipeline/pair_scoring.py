"""Scoring candidate pairs in Arrow batches: the PAIR_SCORES row of every pair.

The measures are ``crawldedup.core.pair_measures``' (the same bits as the per-pair
definitions), a whole Arrow batch of pairs at a time: no Python object per term, no
Python loop per measure. Pairs come in one of two ways, and score the same
(``tests/unit/test_pair_scoring.py``; ``tests/spark/test_fast_path.py`` on real stage
output):

- Pairs of ids (``load_sides``, ``score_id_batch``; without the cosine). A document has tens of
  candidate pairs, so joining its sketch (1 KB) to every pair moves tens of copies of it
  through a shuffle and through Arrow into Python. Instead, each task reads the sides of
  the ids its pairs name, columnar — from the day's ``work/docs`` and the earlier days'
  candidates fetched from the store (``work/earlier_sides``) — into one (documents ×
  width) array of padded sketches (``Sides``), and every Arrow batch of pairs gathers its
  rows by index. The
  work folder must be readable where the executors run, as the Bloom stage's partitioned
  filters already require (one home on a shared file system).
- Pairs with both sides joined (``score_pairs``; the cosine path,
  ``cascade.needs_cosine``): the JVM parses the term vectors (JSON) into maps and the
  sketches (hex) into bytes (``arrow_inputs``), and each batch goes through the measures
  whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.core.editions import edition_of
from crawldedup.core.pair_measures import (
    Ragged,
    cosines,
    hamming,
    padded,
    padded_sketch_measures,
    sketch_measures,
    sketches_from_bytes,
    with_cross,
)
from crawldedup.pipeline import schemas

_SCORES_ARROW = to_arrow_schema(schemas.PAIR_SCORES)


def _simhashes(values: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """(values, known) of hex SimHashes; 0 and not known where null or empty."""
    known = np.array([bool(v) for v in values], dtype=bool)
    return np.array([int(v, 16) if v else 0 for v in values], dtype=np.uint64), known


def _scores(
    batch: pa.RecordBatch,
    similarity: pa.Array,
    distance: pa.Array,
    sketch: tuple[np.ndarray, np.ndarray, np.ndarray],
    chars: tuple[pa.Array, pa.Array],
    editions: np.ndarray,
    schema: pa.Schema,
) -> pa.RecordBatch:
    """``schema`` (PAIR_SCORES) rows of ``batch``'s (id, cand_id) pairs from their
    measures: the cosine, the SimHash distance, ``sketch`` (Jaccard, containment,
    smaller set size), ``chars`` (both sides' lengths) and whether the two are
    ``editions``."""
    jac, con, smaller = sketch
    a_chars, b_chars = chars
    shorter = pc.min_element_wise(a_chars, b_chars)
    return pa.RecordBatch.from_arrays(
        [
            batch.column("id"),
            batch.column("cand_id"),
            similarity,
            distance,
            pa.array(jac),
            pa.array(con),
            pa.array(smaller),
            # null when the candidate's length is unknown (rows stored before it was)
            pc.if_else(b_chars.is_null(), pa.scalar(None, shorter.type), shorter).cast(pa.int32()),
            pa.array(editions, pa.bool_()),
            pc.cast(b_chars, pa.int32()),
        ],
        schema=schema,
    )


# Pairs of ids: the sides of the ids a task's pairs name.

# Hex digit (ASCII code) -> its value; both cases, as bytes.fromhex accepts.
_NIBBLE = np.zeros(256, dtype=np.uint8)
for _i, _c in enumerate("0123456789abcdef"):
    _NIBBLE[ord(_c)] = _NIBBLE[ord(_c.upper())] = _i
SIDE_COLUMNS = ["id", "sketch", "simhash", "length", "url", "own_sketch"]
SIDE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("sketch", pa.string()),
        pa.field("simhash", pa.string()),
        pa.field("length", pa.int32()),
        pa.field("url", pa.string()),
        pa.field("own_sketch", pa.string()),
    ]
)


def edition_codes(urls: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """(edition key, version) of each URL as integer codes (``core.editions``); the key
    is -1 where the URL names no version (or is unknown)."""
    keys, versions = zip(*(edition_of(u or "") for u in urls), strict=True) if urls else ((), ())
    key_codes, _ = pd.factorize(pd.Series(keys, dtype=object).replace("", None))
    version_codes, _ = pd.factorize(pd.Series(versions, dtype=object))
    return np.asarray(key_codes, dtype=np.int64), np.asarray(version_codes, dtype=np.int64)


def editions_of(
    key_a: np.ndarray, version_a: np.ndarray, key_b: np.ndarray, version_b: np.ndarray
) -> np.ndarray:
    """Whether each pair is two editions: one edition key, other versions."""
    return np.asarray((key_a >= 0) & (key_a == key_b) & (version_a != version_b), dtype=bool)


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
    edition_key: np.ndarray  # int64 code of the URL's edition key, -1 when none
    edition_version: np.ndarray  # int64 code of the URL's versions
    own_row: np.ndarray  # int64 row of the side's own-text sketch in own_sketches, -1: none
    own_sketches: np.ndarray  # (m, width) uint64, the sides that have one
    own_lengths: np.ndarray  # int64

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

    def measured(self, rows: np.ndarray, own: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(padded sketches, lengths) of ``rows``: their own text's where ``own``."""
        sketches, lengths = self.sketches[rows], self.sketch_lengths[rows]
        if own.any():
            mine = self.own_row[rows[own]]
            sketches[own] = self.own_sketches[mine]
            lengths = lengths.copy()
            lengths[own] = self.own_lengths[mine]
        return sketches, lengths


def own_text_measures(
    sides: Sides, a: np.ndarray, b: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Jaccard, containment, smaller set size) of the pairs of rows ``a``, ``b`` when a
    page that has an own text (its host's frequent lines are not its own) is measured on
    it (docs/algorithm.md#boilerplate): the Jaccard of the two own texts (or whole
    pages, where none), and the best containment of an own text in the other's own text
    or whole page (a copy elsewhere has those lines as text, or other lines of its own
    host as frequent), as far as :func:`core.pair_measures.with_cross` lets it count."""
    own_a, own_b = sides.own_row[a] >= 0, sides.own_row[b] >= 0
    mine_a, mine_b = sides.measured(a, own_a), sides.measured(b, own_b)
    jac, con, smaller = padded_sketch_measures(*mine_a, *mine_b, k)
    one = own_a | own_b
    if one.any():
        whole_a = sides.sketches[a[one]], sides.sketch_lengths[a[one]]
        whole_b = sides.sketches[b[one]], sides.sketch_lengths[b[one]]
        _, in_b, _ = padded_sketch_measures(mine_a[0][one], mine_a[1][one], *whole_b, k)
        _, in_a, _ = padded_sketch_measures(*whole_a, mine_b[0][one], mine_b[1][one], k)
        _, whole, _ = padded_sketch_measures(*whole_a, *whole_b, k)
        con[one] = with_cross(con[one], np.maximum(in_a, in_b), whole)
    return jac, con, smaller


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
    table = pa.concat_tables([t.select(SIDE_COLUMNS).cast(SIDE_SCHEMA) for t in (today, earlier)])
    table = table.combine_chunks()

    def hex_column(name: str, rows: pa.Array | None = None) -> Ragged:
        column = table.column(name)
        col = column.chunk(0) if column.num_chunks else pa.array([], pa.string())
        return _hex_values(col if rows is None else col.filter(rows))

    sketches = hex_column("sketch")
    lengths = sketches.lengths
    has_own = pc.fill_null(pc.greater(pc.utf8_length(table.column("own_sketch")), 0), False)
    has_own_np = np.asarray(has_own.to_numpy(zero_copy_only=False), dtype=bool)
    own = hex_column("own_sketch", has_own.combine_chunks())
    own_row = np.full(table.num_rows, -1, dtype=np.int64)
    own_row[has_own_np] = np.arange(int(has_own_np.sum()), dtype=np.int64)
    width = max(k, int(lengths.max(initial=0)), 1)
    simhash, simhash_known = _simhashes(table.column("simhash").to_pylist())
    ids = table.column("id").to_pylist()
    urls = table.column("url").to_pylist()
    return Sides(
        today=pd.Index(ids[: today.num_rows], dtype=object),
        earlier=pd.Index(ids[today.num_rows :], dtype=object),
        sketches=padded(sketches, width),
        sketch_lengths=lengths,
        simhash=simhash,
        simhash_known=simhash_known,
        chars=table.column("length").combine_chunks().cast(pa.int32()),
        **dict(zip(("edition_key", "edition_version"), edition_codes(urls), strict=True)),
        own_row=own_row,
        own_sketches=padded(own, width),
        own_lengths=own.lengths,
    )


def load_sides(today: str, earlier: str, k: int, pairs: Sequence[pa.Table]) -> Sides:
    """The sides of the ids that ``pairs`` (``id``, ``cand_id``) name, among the day's
    documents and the earlier days' candidates (Parquet folders): a task reads the two
    folders, keeps the rows of the pairs it scores, and decodes only those (the whole
    day's sketches and URLs, decoded in each task, were most of its time)."""
    named = [c for p in pairs for n in ("id", "cand_id") for c in p.column(n).chunks]
    wanted = pc.unique(pa.chunked_array(named, pa.string()).combine_chunks())
    tables = []
    for folder in (today, earlier):
        table = pq.read_table(Path(folder), columns=SIDE_COLUMNS)
        tables.append(table.filter(pc.is_in(table.column("id"), wanted)))
    return sides_of(tables[0], tables[1], k)


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
    sketch = own_text_measures(sides, a, b, k)
    known = sides.simhash_known[a] & sides.simhash_known[b]
    dist = pa.array(hamming(sides.simhash[a], sides.simhash[b]).astype(np.int32), mask=~known)
    chars = sides.chars.take(pa.array(a)), sides.chars.take(pa.array(b))
    editions = editions_of(
        sides.edition_key[a],
        sides.edition_version[a],
        sides.edition_key[b],
        sides.edition_version[b],
    )
    nulls = pa.nulls(batch.num_rows, pa.float64())
    return _scores(batch, nulls, dist, sketch, chars, editions, schema)


# Pairs with both sides joined: the cosine path.

_VECTOR = "map<string,double>"  # a term vector, parsed by the JVM


def arrow_inputs(pairs: DataFrame) -> DataFrame:
    """The columns ``score_batch`` reads, converted in the JVM.

    ``pairs`` has ``id, cand_id`` and, per side (``x`` and ``cand_x``), ``tf`` (JSON,
    null when unknown), ``simhash`` (hex), ``sketch`` (hex), ``length`` and ``url``; and
    the own text's sketches ``own_sketch`` and ``cand_own`` (hex, null when none).
    """

    def vector(name: str) -> Column:
        return F.from_json(F.coalesce(F.col(name), F.lit("{}")), _VECTOR).alias(name)

    def sketch(name: str) -> Column:
        return F.unhex(F.coalesce(F.col(name), F.lit(""))).alias(name)

    return pairs.select(
        "id",
        "cand_id",
        vector("tf"),
        vector("cand_tf"),
        F.col("simhash"),
        F.col("cand_simhash"),
        sketch("sketch"),
        sketch("cand_sketch"),
        sketch("own_sketch"),
        sketch("cand_own"),
        F.col("length"),
        F.col("cand_length"),
        F.col("url"),
        F.col("cand_url"),
    )


def _map_side(col: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(keys, weights, offsets starting at 0) of a map column."""
    offsets = np.asarray(col.offsets, dtype=np.int64)
    start, end = int(offsets[0]), int(offsets[-1])
    keys = col.keys.slice(start, end - start)
    weights = col.items.slice(start, end - start).to_numpy(zero_copy_only=False)
    return keys, np.asarray(weights, dtype=np.float64), offsets - start


def score_batch(batch: pa.RecordBatch, k: int) -> pa.RecordBatch:
    """The PAIR_SCORES row of every pair in ``batch`` (columns of ``arrow_inputs``)."""
    keys_a, w_a, off_a = _map_side(batch.column("tf"))
    keys_b, w_b, off_b = _map_side(batch.column("cand_tf"))
    codes = pc.dictionary_encode(pa.concat_arrays([keys_a, keys_b])).indices
    codes_np = np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)
    sim = cosines(
        Ragged(codes_np[: len(keys_a)], off_a), w_a, Ragged(codes_np[len(keys_a) :], off_b), w_b
    )

    # As own_text_measures: each side on its own text where it has one; for the pairs
    # where one does, also each own text against the other's whole page.
    whole_a, own_a = batch.column("sketch").to_pylist(), batch.column("own_sketch").to_pylist()
    whole_b, own_b = batch.column("cand_sketch").to_pylist(), batch.column("cand_own").to_pylist()
    mine_a = [o or w for w, o in zip(whole_a, own_a, strict=True)]
    mine_b = [o or w for w, o in zip(whole_b, own_b, strict=True)]
    jac, con, smaller = sketch_measures(sketches_from_bytes(mine_a), sketches_from_bytes(mine_b), k)
    one = np.flatnonzero([bool(x or y) for x, y in zip(own_a, own_b, strict=True)])
    if one.size:

        def rows(values: list[bytes | None]) -> Ragged:
            return sketches_from_bytes([values[i] for i in one])

        in_b = sketch_measures(rows(mine_a), rows(whole_b), k)[1]
        in_a = sketch_measures(rows(whole_a), rows(mine_b), k)[1]
        whole = sketch_measures(rows(whole_a), rows(whole_b), k)[1]
        con[one] = with_cross(con[one], np.maximum(in_a, in_b), whole)
    sketch = jac, con, smaller
    sh_a, known_a = _simhashes(batch.column("simhash").to_pylist())
    sh_b, known_b = _simhashes(batch.column("cand_simhash").to_pylist())
    dist = pa.array(hamming(sh_a, sh_b).astype(np.int32), mask=~(known_a & known_b))
    chars = batch.column("length"), batch.column("cand_length")
    urls = batch.column("url").to_pylist() + batch.column("cand_url").to_pylist()
    key, version = edition_codes(urls)
    n = batch.num_rows
    editions = editions_of(key[:n], version[:n], key[n:], version[n:])
    return _scores(batch, pa.array(sim), dist, sketch, chars, editions, _SCORES_ARROW)


def score_pairs(pairs: DataFrame, k: int) -> DataFrame:
    """PAIR_SCORES of every row of ``pairs`` (see ``arrow_inputs``), in Arrow batches."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            if b.num_rows:
                yield score_batch(b, k)

    return arrow_inputs(pairs).mapInArrow(run, schemas.PAIR_SCORES)
