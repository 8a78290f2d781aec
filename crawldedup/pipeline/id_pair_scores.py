"""work/scores without the cosine, from the candidates' files: three Python jobs, no row
through the JVM.

The candidates stage leaves every candidate of a document in one file of
work/candidates (a file per docs file, or per partition by id). From those files:

1. each file's pairs to score (:func:`pairs_of_file`) give their earlier days'
   candidates, split into buckets by id (:mod:`crawldedup.pipeline.bucket_files`);
2. each bucket's distinct ids are fetched from the store once (batched multi-gets) into
   a file of work/earlier_sides;
3. each file's pairs are scored (``pair_scoring.score_id_batch``: the day's sides from
   work/docs and the earlier days' from work/earlier_sides, those its task's pairs name)
   into a file of work/scores.

A candidate many documents share is fetched once a day, as a Spark ``distinct`` would; the
JVM neither joins, deduplicates nor converts the pairs (the Spark road these jobs replace
cost a day of 16,500 documents about two CPU seconds of the driver: docs/benchmarks.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.pipeline import schemas
from crawldedup.pipeline.bucket_files import read_bucket, text_bucket, write_buckets
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.pair_scoring import SIDE_SCHEMA, load_sides, score_id_batch
from crawldedup.pipeline.part_files import PartWriter
from crawldedup.pipeline.store_batches import store_batches
from crawldedup.rules import Rule
from crawldedup.stage_registry import CANDIDATES, DOCS, EARLIER_IDS, EARLIER_SIDES, SCORES
from crawldedup.store import Store
from crawldedup.store.schema import get_docs

# A CANDIDATE_SIDE row: id, term vector, SimHash, sketch, length, URL, own text's sketch.
CandidateSide = tuple[str, str | None, str | None, str, int | None, str | None, str | None]

_IDS_ARROW = pa.schema([("cand_id", pa.string())])
_PAIR_COLUMNS = ["id", "cand_id", "cand_day"]


def fetch_earlier(
    ids: Iterable[Any],
    store_url: str,
    batch_size: int,
    counters: dict[str, Any],
    vector: str | None,
) -> Iterator[CandidateSide]:
    """The candidate side of earlier days' candidates (rows with a ``cand_id``), from the
    store in multi-gets: one row per id, with a null vector when the document row vanished
    (similarity 0).

    ``vector``: "tf", "tag_tfidf" (the vectors the relevance stage stored) or None
    (no cosine: no vector is read).
    """
    columns = ["m:simhash", "v:sketch", "m:length", "m:url", "v:own"]
    columns += ["v:tf"] if vector == "tf" else []

    def flush(store: Store, batch: list[Any]) -> Iterator[CandidateSide]:
        ids = [r["cand_id"] for r in batch]
        found = get_docs(store, ids, columns)
        tag_tfidf = vector == "tag_tfidf"
        vectors = store.get("rel_docs", ids, columns=["v:tagvec"]) if tag_tfidf else {}
        for cand_id in ids:
            row = found.get(cand_id, {})
            cell = vectors.get(cand_id, {}).get("v:tagvec") if tag_tfidf else row.get("v:tf")
            simhash = row.get("m:simhash")
            length = row.get("m:length")  # absent in rows written before it was stored
            url = row.get("m:url")
            yield (
                cand_id,
                cell.decode() if cell else None,
                simhash.decode() if simhash else None,
                (row.get("v:sketch") or b"").decode(),
                int(length) if length else None,
                url.decode() if url else None,
                (row.get("v:own") or b"").decode() or None,  # absent in older rows
            )

    return store_batches(ids, store_url, batch_size, flush, counters)


def pairs_of_file(cands: pa.Table) -> pa.Table:
    """Distinct (id, cand_id, cand_day) pairs of a table of candidates that holds every
    candidate of its documents: those of the rules other than content_md5, of documents
    without a content_md5 candidate (rule B decides those without a measure)."""
    exact = pc.equal(cands.column("rule"), Rule.CONTENT_MD5.value)
    exact_ids = pc.unique(cands.filter(exact).column("id"))
    rest = cands.filter(
        pc.and_(pc.invert(exact), pc.invert(pc.is_in(cands.column("id"), exact_ids)))
    )
    return rest.select(_PAIR_COLUMNS).group_by(_PAIR_COLUMNS, use_threads=False).aggregate([])


def scores_of_id_files(spark: SparkSession, ctx: DayContext, counters: dict[str, Any]) -> None:
    """Writes work/earlier_sides and work/scores (see the module's docstring)."""
    cfg, day = ctx.cfg, ctx.day
    store_url, batch = ctx.store, cfg.limits.store_batch_size
    k, buckets = cfg.simhash.sketch_size, cfg.spark.shuffle_partitions
    sc = spark.sparkContext
    files = sorted(str(p) for p in ctx.folder(CANDIDATES).glob("*.parquet"))
    ids_dir, sides_dir, scores_dir = (ctx.folder(d) for d in (EARLIER_IDS, EARLIER_SIDES, SCORES))
    for folder in (ids_dir, sides_dir, scores_dir):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    tasks = max(1, min(len(files), 2 * sc.defaultParallelism))

    def earlier_ids(items: Iterable[tuple[int, str]]) -> Iterator[int]:
        for i, path in items:
            pairs = pairs_of_file(pq.read_table(path, columns=["rule", *_PAIR_COLUMNS]))
            earlier = pairs.filter(pc.not_equal(pairs.column("cand_day"), day))
            ids = pc.unique(earlier.column("cand_id"))
            of = np.fromiter((text_bucket(x, buckets) for x in ids.to_pylist()), np.int64, len(ids))
            table = pa.Table.from_arrays([ids], schema=_IDS_ARROW)
            write_buckets(table, Path(ids_dir) / f"part-{i:05d}.parquet", of, buckets)
            yield len(ids)

    def fetch(parts: Iterable[int]) -> Iterator[int]:
        for b in parts:
            given = read_bucket(str(ids_dir), b)
            ids = pc.unique(pa.Table.from_batches(given, _IDS_ARROW).column("cand_id"))
            rows = ({"cand_id": x} for x in ids.to_pylist())
            found = list(fetch_earlier(rows, store_url, batch, counters, None))
            sides = pa.Table.from_pydict(
                {
                    "id": [r[0] for r in found],
                    "sketch": [r[3] for r in found],
                    "simhash": [r[2] for r in found],
                    "length": [r[4] for r in found],
                    "url": [r[5] for r in found],
                    "own_sketch": [r[6] for r in found],
                },
                SIDE_SCHEMA,
            )
            pq.write_table(sides, Path(sides_dir) / f"part-{b:05d}.parquet")
            yield sides.num_rows

    today, earlier, schema = ctx.path(DOCS), str(sides_dir), to_arrow_schema(schemas.PAIR_SCORES)

    def score(items: Iterable[tuple[int, str]]) -> Iterator[int]:
        # The task's pairs first: its sides are read for the ids they name, once.
        given = [
            (i, pairs_of_file(pq.read_table(path, columns=["rule", *_PAIR_COLUMNS])))
            for i, path in items
        ]
        pairs = [p for _, p in given if p.num_rows]
        sides = load_sides(today, earlier, k, pairs) if pairs else None
        for i, file_pairs in given:
            out = PartWriter(Path(scores_dir) / f"part-{i:05d}.parquet", schema)
            n = 0
            for b in file_pairs.to_batches():
                if b.num_rows and sides is not None:
                    scored = score_id_batch(b, day, sides, k, schema)
                    out.write(scored)
                    n += scored.num_rows
            out.close()
            yield n

    numbered = list(enumerate(files))
    sc.parallelize(numbered, tasks).mapPartitions(earlier_ids).count()
    sc.parallelize(range(buckets), buckets).mapPartitions(fetch).count()
    if numbered:
        sc.parallelize(numbered, tasks).mapPartitions(score).count()
    else:  # no candidates file: the schema alone
        pq.write_table(schema.empty_table(), Path(scores_dir) / "part-00000.parquet")
