"""Scoring candidate pairs in Arrow batches: the pairs' measures, a batch at a time.

The cosine path (``cascade.needs_cosine``): the JVM parses the term vectors (JSON)
into maps and the sketches (hex) into bytes; each Arrow batch of pairs then goes
through ``crawldedup.core.pair_measures`` whole — no Python object per term, no Python
loop per measure. Without the cosine, pairs carry only their ids (``pair_sides``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawldedup.core.pair_measures import (
    Ragged,
    cosines,
    hamming,
    sketch_measures,
    sketches_from_bytes,
)
from crawldedup.pipeline import schemas

_VECTOR = "map<string,double>"  # a term vector, parsed by the JVM


def arrow_inputs(pairs: DataFrame) -> DataFrame:
    """The columns ``score_batch`` reads, converted in the JVM.

    ``pairs`` has ``id, cand_id`` and, per side (``x`` and ``cand_x``), ``tf`` (JSON,
    null when unknown), ``simhash`` (hex), ``sketch`` (hex) and ``length``.
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
        F.col("length"),
        F.col("cand_length"),
    )


def _map_side(col: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(keys, weights, offsets starting at 0) of a map column."""
    offsets = np.asarray(col.offsets, dtype=np.int64)
    start, end = int(offsets[0]), int(offsets[-1])
    keys = col.keys.slice(start, end - start)
    weights = col.items.slice(start, end - start).to_numpy(zero_copy_only=False)
    return keys, np.asarray(weights, dtype=np.float64), offsets - start


def _simhashes(values: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    known = np.array([bool(v) for v in values], dtype=bool)
    return np.array([int(v, 16) if v else 0 for v in values], dtype=np.uint64), known


def score_batch(batch: pa.RecordBatch, k: int) -> pa.RecordBatch:
    """The PAIR_SCORES row of every pair in ``batch`` (columns of ``arrow_inputs``)."""
    keys_a, w_a, off_a = _map_side(batch.column("tf"))
    keys_b, w_b, off_b = _map_side(batch.column("cand_tf"))
    codes = pc.dictionary_encode(pa.concat_arrays([keys_a, keys_b])).indices
    codes_np = np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)
    sim = cosines(
        Ragged(codes_np[: len(keys_a)], off_a), w_a, Ragged(codes_np[len(keys_a) :], off_b), w_b
    )
    jac, con, smaller = sketch_measures(
        sketches_from_bytes(batch.column("sketch").to_pylist()),
        sketches_from_bytes(batch.column("cand_sketch").to_pylist()),
        k,
    )
    sh_a, known_a = _simhashes(batch.column("simhash").to_pylist())
    sh_b, known_b = _simhashes(batch.column("cand_simhash").to_pylist())
    dist = pa.array(hamming(sh_a, sh_b).astype(np.int32), mask=~(known_a & known_b))
    shorter = pc.min_element_wise(batch.column("length"), batch.column("cand_length"))
    return pa.RecordBatch.from_arrays(
        [
            batch.column("id"),
            batch.column("cand_id"),
            pa.array(sim),
            dist,
            pa.array(jac),
            pa.array(con),
            pa.array(smaller),
            # null when the candidate's length is unknown (rows stored before it was)
            pc.if_else(
                batch.column("cand_length").is_null(), pa.scalar(None, shorter.type), shorter
            ).cast(pa.int32()),
        ],
        schema=_SCORES_ARROW,
    )


_SCORES_ARROW = pa.schema(
    [
        pa.field("id", pa.string(), False),
        pa.field("cand_id", pa.string(), False),
        pa.field("similarity", pa.float64()),  # PAIR_SCORES: null without the cosine
        pa.field("hamming", pa.int32()),
        pa.field("jaccard", pa.float64()),
        pa.field("containment", pa.float64()),
        pa.field("smaller_shingles", pa.float64()),
        pa.field("shorter_chars", pa.int32()),
    ]
)


def score_pairs(pairs: DataFrame, k: int) -> DataFrame:
    """PAIR_SCORES of every row of ``pairs`` (see ``arrow_inputs``), in Arrow batches."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            if b.num_rows:
                yield score_batch(b, k)

    return arrow_inputs(pairs).mapInArrow(run, schemas.PAIR_SCORES)
