"""The day's candidate pairs ranked: at most ``limits.max_postings_per_key`` per
(document, rule), those the page's own-text key found first, then the earliest.

Two roads to the same rows. The usual one (every rule's Bloom filters broadcast) needs
no Spark shuffle: the probe wrote a lookups file per docs file and the same-day pass
wrote its pairs into buckets named by the docs file of the document they are for
(:mod:`crawldedup.pipeline.bucket_files`), so one Python task per docs file reads its
documents' rows and ranks them (:func:`rank_by_docs_file`). When a rule's filters are
partitioned (``bloom.max_broadcast_bytes``), its lookups come from a Spark job by key
range, and the rows are shuffled by document id (:func:`earliest_per_rule`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark import SparkContext
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.core.boilerplate import OWN_KEY_SUFFIX
from crawldedup.core.fingerprint import paragraph_chars
from crawldedup.pipeline import schemas
from crawldedup.pipeline.bucket_files import read_bucket
from crawldedup.pipeline.part_files import PartWriter
from crawldedup.rules import Rule

_PARAGRAPH = Rule.PARAGRAPH.value
_LSH = Rule.LSH.value
_RANKED_ARROW = to_arrow_schema(schemas.RANKED_CANDIDATES)


def shared_chars_of(
    rule: Column, key: Column, n_other: Column, n_day: Column, max_docs: int
) -> Column:
    """:func:`paragraph_chars` of rule paragraph's keys, as a column, 0 for a frequent
    paragraph: one that more than ``max_docs`` documents hold, the index's of earlier
    days (``n_other``) and the day's (``n_day``, the document's own included) together;
    null for other rules."""
    held = n_other + F.coalesce(n_day, F.lit(1))
    return F.when(
        rule == _PARAGRAPH,
        F.when(held <= max_docs, F.substring_index(key, ".", -1).cast("int")).otherwise(0),
    )


def paragraph_day_counts(ranked_dir: str) -> pa.Table:
    """(rule, key, n_day): how many of the day's documents hold each paragraph key, from
    the day's ranked key rows (work/day_keys: a key's ranks run 1..n within the day)."""
    rows = pq.read_table(
        ranked_dir, columns=["rule", "key", "rank"], filters=[("rule", "==", _PARAGRAPH)]
    )
    counts = rows.group_by(["rule", "key"]).aggregate([("rank", "max")])
    return counts.rename_columns(["rule", "key", "n_day"])


def own_text_key_of(rule: Column, key: Column) -> Column:
    """Whether a key row is a page's own-text key (``boilerplate.own_text_key``): its
    candidates are ranked first of the rule's (:func:`earliest_per_rule`)."""
    return (rule == _LSH) & key.endswith(OWN_KEY_SUFFIX)


_CANDIDATES_ARROW = to_arrow_schema(schemas.CANDIDATES)


def keep_earliest(table: pa.Table, cap: int) -> pa.Table:
    """:func:`earliest_per_rule` of rows that hold every row of their documents: at most
    ``cap`` candidates per (document, rule), one row per pair (``CANDIDATES``).

    The rows sorted by (id, rule, own_text first, cand_fetched_at, cand_id) and their
    distinct (own_text, cand_fetched_at, cand_id) counted per (id, rule): a pair found
    by several keys of a rule counts once, twice when its own-text key found it too.
    A pair is kept when one of its rows counts within ``cap``; its ``shared_chars`` are
    the sum over all its rows (null when none has any).

    Rule paragraph's rows of a frequent paragraph (``shared_chars`` 0) are left out
    first: such a paragraph counts for no excerpt, and the pairs found by nothing else
    are unrelated pages that carry one standard sentence (a third of rt50k's pairs with
    the rule on, one verdict in 65,774 pairs); a copy that shares more is another rule's
    candidate. Nor do they take the cap's places of the pairs sharing rare paragraphs.
    """
    frequent = pc.and_(
        pc.equal(table.column("rule"), _PARAGRAPH), pc.equal(table.column("shared_chars"), 0)
    )
    table = table.filter(pc.invert(pc.fill_null(frequent, False)))
    if table.num_rows == 0:
        return _CANDIDATES_ARROW.empty_table()
    order = [
        ("id", "ascending"),
        ("rule", "ascending"),
        ("own_text", "descending"),
        ("cand_fetched_at", "ascending"),
        ("cand_id", "ascending"),
    ]
    table = table.sort_by(order)
    ids, rules = table.column("id").to_pylist(), table.column("rule").to_pylist()
    cands, own = table.column("cand_id").to_pylist(), table.column("own_text").to_pylist()
    fetched = table.column("cand_fetched_at").to_pylist()
    shared = table.column("shared_chars").to_pylist()
    first: dict[tuple[str, str, str], int] = {}  # a kept pair's first row
    total: dict[tuple[str, str, str], int | None] = {}
    n, last, group = 0, None, None
    for i, (doc, rule, cand) in enumerate(zip(ids, rules, cands, strict=True)):
        if (doc, rule) != group:
            group, n, last = (doc, rule), 0, None
        rank = (own[i], fetched[i], cand)
        if rank != last:
            n, last = n + 1, rank
        pair = (doc, rule, cand)
        if n <= cap:
            first.setdefault(pair, i)
        if shared[i] is not None:
            total[pair] = (total.get(pair) or 0) + shared[i]
    rows = sorted(first.values())
    kept = table.take(pa.array(rows, pa.int64())).select(_CANDIDATES_ARROW.names)
    sums = pa.array([total.get((ids[i], rules[i], cands[i])) for i in rows], pa.int32())
    return kept.set_column(kept.schema.get_field_index("shared_chars"), "shared_chars", sums)


def earliest_per_rule(cands: DataFrame, cap: int, partitions: int | None = None) -> DataFrame:
    """At most ``cap`` candidates per (document, rule): those its own-text key found
    (``own_text``: the same own text, on any site), then the earliest ones. A short page
    in a template with rotating related lists shares LSH bands with dozens of its
    site's pages, all fetched before the copy it shares its own text with.

    A candidate found under several keys of a rule (LSH bands) is one row per key
    here and one row after; under rule paragraph its rows' ``shared_chars`` are summed:
    how much text the pair's shared paragraphs hold. One shuffle puts a document's rows
    in one partition, ranked there with pyarrow (:func:`keep_earliest`): the JVM's
    window sorts and ranks cost it more than the Python pass.
    """
    by_doc = cands.repartition(partitions, "id") if partitions else cands.repartition("id")

    def ranked(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        given = list(batches)
        if given:
            yield from keep_earliest(pa.Table.from_batches(given), cap).to_batches()

    return by_doc.mapInArrow(ranked, schemas.CANDIDATES)


def ranked_lookups(lookups: pa.Table, n_day: Mapping[str, int], max_docs: int) -> pa.Table:
    """The rows of a work/lookups table that found a candidate, as RANKED_CANDIDATES:
    :func:`shared_chars_of` and :func:`own_text_key_of` in pyarrow. ``n_day``: how many of
    the day's documents hold each paragraph key (:func:`paragraph_day_counts`)."""
    found = lookups.filter(pc.is_valid(lookups.column("cand_id")))
    rules, keys = found.column("rule"), found.column("key")
    own = pc.fill_null(pc.and_(pc.equal(rules, _LSH), pc.ends_with(keys, OWN_KEY_SUFFIX)), False)
    shared: list[int | None] = [None] * found.num_rows
    paragraph = pc.equal(rules, _PARAGRAPH).to_numpy(zero_copy_only=False)
    if paragraph.any():
        key_list, others = keys.to_pylist(), found.column("n_other").to_pylist()
        for i in paragraph.nonzero()[0].tolist():
            held = others[i] + n_day.get(key_list[i], 1)
            shared[i] = paragraph_chars(key_list[i]) if held <= max_docs else 0
    found = found.append_column("shared_chars", pa.array(shared, pa.int32()))
    found = found.append_column("own_text", own)
    return found.select(_RANKED_ARROW.names).cast(_RANKED_ARROW)


def rank_by_docs_file(
    sc: SparkContext,
    files: int,
    lookups_dir: str,
    same_dir: str,
    out_dir: str,
    cap: int,
    n_day: pa.Table | None,
    max_docs: int,
) -> dict[str, int]:
    """work/candidates, a file per docs file ``i``: :func:`keep_earliest` of its
    documents' rows, those of ``lookups_dir/part-<i>.parquet`` that found a candidate and
    bucket ``i`` of the same-day pairs in ``same_dir`` (every row of a document is in
    them). Python tasks read and write the files: no row crosses the JVM. ``n_day``:
    :func:`paragraph_day_counts`, None when rule paragraph is off. Returns the candidates
    by rule."""
    out = Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    if not files:  # no document: the schema alone
        pq.write_table(_CANDIDATES_ARROW.empty_table(), out / "part-00000.parquet")
        return {}
    counts = {} if n_day is None else n_day.select(["key", "n_day"]).to_pydict()
    shared = sc.broadcast(dict(zip(counts.get("key", []), counts.get("n_day", []), strict=True)))

    def task(parts: Iterable[int]) -> Iterator[dict[str, int]]:
        for i in parts:
            earlier = ranked_lookups(
                pq.read_table(f"{lookups_dir}/part-{i:05d}.parquet"), shared.value, max_docs
            )
            same = pa.Table.from_batches(read_bucket(same_dir, i), _RANKED_ARROW)
            kept = keep_earliest(pa.concat_tables([earlier, same]), cap)
            writer = PartWriter(out / f"part-{i:05d}.parquet", _CANDIDATES_ARROW)
            for batch in kept.to_batches():
                writer.write(batch)
            writer.close()
            counts = kept.group_by("rule", use_threads=False).aggregate([([], "count_all")])
            yield dict(
                zip(counts["rule"].to_pylist(), counts["count_all"].to_pylist(), strict=True)
            )

    # Two tasks per core, each a share of the files (as the probe's).
    tasks = max(1, min(files, 2 * sc.defaultParallelism))
    try:
        found: dict[str, int] = {}
        for counts in sc.parallelize(range(files), tasks).mapPartitions(task).collect():
            for rule, n in counts.items():
                found[rule] = found.get(rule, 0) + n
        return found
    finally:
        shared.unpersist()
