"""Stage 3: candidate pairs.

Earlier days: each key is probed in the Bloom filter of its rule and key range
(broadcast, or co-partitioned with the keys when too big to broadcast); hits are
looked up in the store in batches (one multi-get per table per batch, a store
connection per partition). Same day: the probe tasks, which read every document's key
rows anyway, split them by key into ``spark.shuffle_partitions`` bucket files (a key's
rows in one bucket, held in memory by one Python task: the setting grows with the day);
documents sharing a key are paired there, each with the earlier-fetched documents only.
Per document and rule at most
``limits.max_postings_per_key`` candidates are kept: those the page's own-text key
found, then the earliest.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark import SparkContext
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.core.boilerplate import OWN_KEY_SUFFIX
from crawldedup.core.fingerprint import hamming64, paragraph_chars
from crawldedup.pipeline import schemas
from crawldedup.pipeline.bloom_blocks import range_of
from crawldedup.pipeline.bloom_stage import (
    RangedFilters,
    bloom_dir,
    load_filters,
    load_part,
    partitioned_rules,
    read_manifest,
)
from crawldedup.pipeline.bucket_files import read_bucket, write_buckets, write_key_buckets
from crawldedup.pipeline.candidate_ranking import (
    earliest_per_rule,
    own_text_key_of,
    paragraph_day_counts,
    rank_by_docs_file,
    shared_chars_of,
)
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.day_keys import (
    DAY_KEYS_ARROW,
    LOOKUP_COUNTS,
    explode_keys,
    held_elsewhere,
    key_rows,
    write_ranks,
)
from crawldedup.pipeline.store_batches import in_batches, store_batches, tuple_batches
from crawldedup.pipeline.work_files import read_work
from crawldedup.retention import window_start
from crawldedup.rules import Rule, enabled
from crawldedup.stage_registry import (
    CANDIDATES,
    DAY_KEYS,
    DOCS,
    KEY_BUCKETS,
    LOOKUPS,
    SAME_DAY,
)
from crawldedup.store import Store
from crawldedup.store.schema import parse_posting, posting_doc_id, posting_simhash

# One of the day's keys: a Row (RDD path) or a dict (Arrow path); both index by name.
KeyRow = Row | dict[str, Any]


_SAME_DAY_ARROW = to_arrow_schema(schemas.RANKED_CANDIDATES)
_MULTI_KEY = frozenset(r.value for r in Rule if r.multi_key)
_PARAGRAPH = Rule.PARAGRAPH.value
_LSH = Rule.LSH.value


def paragraphs_held_elsewhere(lookups_dir: str) -> dict[str, int]:
    """Each paragraph key the store holds for earlier days: how many documents
    (:func:`day_keys.held_elsewhere` of work/lookups)."""
    found = held_elsewhere(
        pq.read_table(lookups_dir, schema=LOOKUP_COUNTS, filters=[("rule", "==", _PARAGRAPH)])
    )
    return dict(
        zip(found.column("key").to_pylist(), found.column("n_other").to_pylist(), strict=True)
    )


def _first_sight(
    seen: set[tuple[str, str, str, bool]], doc: str, rule: str, cand: str, own: bool = False
) -> bool:
    """Whether this task meets (doc, rule, cand) for the first time, through an own-text
    key (``own``) or another. A pair sharing several keys of a rule (LSH bands, SimHash
    blocks) is one row per task, not one per key: near copies share most of their 20
    bands. The own-text key's row is kept beside a band's (it ranks the pair first,
    :func:`earliest_per_rule`), whichever of them the task met first. Rules with one key
    per document never repeat a pair, so only multi-key rules are remembered; nor do
    paragraph keys, whose rows are summed (every shared paragraph counts)."""
    if rule not in _MULTI_KEY or rule == _PARAGRAPH:
        return True
    pair = (doc, rule, cand, own)
    if pair in seen:
        return False
    seen.add(pair)
    return True


def _group_pairs(
    batches: Iterable[pa.RecordBatch],
    cap: int,
    day: str,
    max_distance: int,
    max_docs: int = 1 << 30,
    ranked_dir: str | None = None,
    held: Mapping[str, int] | None = None,
) -> Iterator[pa.RecordBatch]:
    """The same-day pairs of one partition of the day's keys (every row of a key in one
    partition): within a key, the documents in (fetched_at, id) order, each paired with
    the first ``cap`` documents before it. SimHash block keys pair only hashes within
    ``max_distance`` bits (the others are block collisions). A paragraph key held by more
    than ``max_docs`` documents, the day's and the index's of earlier days (``held``:
    key -> documents) together, is frequent text: its pairs carry 0 shared characters.
    With ``ranked_dir``, the sorted rows and their ranks are written there
    (:func:`day_keys.write_ranks`)."""
    held = held or {}
    given = list(batches)  # an empty partition gives none
    table = pa.Table.from_batches(given) if given else None
    if table is None or table.num_rows == 0:
        return
    order = [(c, "ascending") for c in ("rule", "key", "fetched_at", "id")]
    table = table.sort_by(order)
    if ranked_dir is not None:
        write_ranks(table, ranked_dir)
    if table.num_rows < 2:
        return
    rules, keys = table.column("rule").to_pylist(), table.column("key").to_pylist()
    ids, fetched = table.column("id").to_pylist(), table.column("fetched_at").to_pylist()
    hashes = table.column("simhash").to_pylist()
    simhash_rule = Rule.SIMHASH.value

    def rows() -> Iterator[tuple[str, str, str, str, str, str, int | None, bool]]:
        seen: set[tuple[str, str, str, bool]] = set()  # see _first_sight
        n, i = len(ids), 0
        while i < n:
            j = i + 1
            while j < n and keys[j] == keys[i] and rules[j] == rules[i]:
                j += 1
            rule = rules[i]
            shared = None
            own = rule == _LSH and keys[i].endswith(OWN_KEY_SUFFIX)
            if rule == _PARAGRAPH:
                frequent = j - i + held.get(keys[i], 0) > max_docs
                shared = 0 if frequent else paragraph_chars(keys[i])
            for a in range(i + 1, j):  # a key held once (j == i + 1) pairs nothing
                for b in range(i, min(a, i + cap)):
                    if rule == simhash_rule and not _near(hashes[a], hashes[b], max_distance):
                        continue
                    if _first_sight(seen, ids[a], rule, ids[b], own):
                        yield ids[a], fetched[a], rule, ids[b], fetched[b], day, shared, own
            i = j

    yield from tuple_batches(rows(), _SAME_DAY_ARROW)


def same_day_pairs(
    sc: SparkContext,
    bucket_dir: str,
    out_dir: str,
    buckets: int,
    files: int,
    cap: int,
    day: str,
    max_distance: int,
    max_docs: int = 1 << 30,
    ranked_dir: str | None = None,
    held: Mapping[str, int] | None = None,
) -> None:
    """Each document paired with up to ``cap`` earlier documents of the day per key:
    ``out_dir/part-<bucket>.parquet`` (``RANKED_CANDIDATES``), one Python task per key
    bucket (:func:`write_key_buckets`), paired there by :func:`_group_pairs`. The probe
    tasks wrote the buckets from the key rows they read anyway, so the day's key rows
    never cross the JVM: no explode, no shuffle. A SimHash block key is only shared in
    earnest when the whole hashes are within ``max_distance`` bits; other pairs are block
    collisions and dropped. With ``ranked_dir`` each task also writes its key rows
    ranked within the day there (task i: the bucket i). ``held``: how many documents of
    earlier days hold each paragraph key (the frequency bar counts them with the day's).

    A task's pairs go into its file in buckets by the docs file of the document they are
    for (the key rows' ``part``, 0 <= part < ``files``): the ranking task of docs file i
    reads bucket i of every task's file (:func:`candidate_ranking.rank_by_docs_file`).
    """
    shared = sc.broadcast(dict(held or {}))

    def pair_buckets(parts: Iterable[int]) -> Iterator[int]:
        for b in parts:
            given = read_bucket(bucket_dir, b)
            found = list(
                _group_pairs(
                    iter(given), cap, day, max_distance, max_docs, ranked_dir, shared.value
                )
            )
            pairs = pa.Table.from_batches(found, _SAME_DAY_ARROW)
            part_of: dict[str, int] = {}
            for batch in given:
                part_of.update(
                    zip(
                        batch.column("id").to_pylist(),
                        batch.column("part").to_pylist(),
                        strict=True,
                    )
                )
            of = np.fromiter(
                (part_of[i] for i in pairs.column("id").to_pylist()), np.int64, pairs.num_rows
            )
            write_buckets(pairs, Path(out_dir) / f"part-{b:05d}.parquet", of, files)
            yield len(given)

    sc.parallelize(range(buckets), buckets).mapPartitions(pair_buckets).count()
    shared.unpersist()


def _near(a: str | None, b: str | None, max_distance: int) -> bool:
    """Within ``max_distance`` bits; unknown hashes (older postings) count as near."""
    return a is None or b is None or hamming64(int(a, 16), int(b, 16)) <= max_distance


def _probe(
    rows: Iterable[KeyRow],
    filters: dict[str, RangedFilters],
    bloom: dict[str, int],
    size: int,
) -> Iterator[KeyRow]:
    """The key rows that the Bloom filter of their rule may hold (vectorized per batch
    of ``size`` rows); rules without a filter have no earlier postings."""
    for batch in in_batches(rows, size):
        by_rule: dict[str, list[KeyRow]] = {}
        for r in batch:
            if r["rule"] in filters:
                by_rule.setdefault(r["rule"], []).append(r)
        for rule, rule_rows in by_rule.items():
            found = filters[rule].contains([r["key"] for r in rule_rows])
            bloom["probes"] += len(rule_rows)
            hits = [r for r, f in zip(rule_rows, found.tolist(), strict=True) if f]
            bloom["hits"] += len(hits)
            yield from hits


def _probe_arrow(
    batches: Iterable[pa.RecordBatch], filters: dict[str, RangedFilters], bloom: dict[str, int]
) -> Iterator[KeyRow]:
    """:func:`_probe` of Arrow batches: only the hits become Python objects."""
    for b in batches:
        if not b.num_rows:
            continue
        for rule, f in filters.items():
            of_rule = b.filter(pc.equal(b.column("rule"), rule))
            if not of_rule.num_rows:
                continue
            found = f.contains(of_rule.column("key").to_pylist())
            hits = of_rule.filter(pa.array(found))
            bloom["probes"] += of_rule.num_rows
            bloom["hits"] += hits.num_rows
            yield from hits.to_pylist()


def _look_up(
    hits: Iterable[KeyRow],
    store_url: str,
    day: str,
    cap: int,
    batch_size: int,
    counters: dict[str, Any],
    bloom: dict[str, int],
    max_distance: int = 64,
    since: str = "",
    max_docs: int | None = None,
) -> Iterator[tuple[Any, ...]]:
    """LOOKUPS rows of Bloom hits: one multi-get per rule and batch of hits. Only postings
    of earlier days count, from ``since`` on (``index.keep_days``): a rerun of a day whose
    later days are published sees the index its first run saw (how many documents hold a
    key: the excerpt's frequency bar, the postings cap). A paragraph key that at least
    ``max_docs`` earlier documents hold is frequent whatever the day adds: its row gives
    the count alone, no candidate (``candidate_ranking.keep_earliest`` would drop them)."""

    # A candidate is one row per task (_first_sight); the rows without a candidate (each
    # key's count of postings) all stay.
    seen: set[tuple[str, str, str, bool]] = set()

    def lookup(store: Store, rule: str, batch: list[KeyRow]) -> Iterator[tuple[Any, ...]]:
        found = store.get(Rule(rule).table, [r["key"] for r in batch])
        for r in batch:
            cells = found.get(r["key"])
            if not cells:
                bloom["false_positives"] += 1
                continue
            postings = []
            near = []  # SimHash postings within max_distance bits (block collisions dropped)
            for col, value in cells.items():
                cand_day, cand_fetched = parse_posting(value)
                if since <= cand_day < day:
                    posting = (cand_fetched, posting_doc_id(col), cand_day)
                    postings.append(posting)
                    if rule != Rule.SIMHASH or _near(
                        posting_simhash(value), r["simhash"], max_distance
                    ):
                        near.append(posting)
            yield (r["id"], r["fetched_at"], rule, r["key"], len(postings), None, None, None)
            if rule == _PARAGRAPH and max_docs is not None and len(postings) >= max_docs:
                continue
            earlier = sorted(p for p in near if p[1] != r["id"])
            own = rule == _LSH and r["key"].endswith(OWN_KEY_SUFFIX)
            for cand_fetched, cand_id, cand_day in earlier[:cap]:
                if not _first_sight(seen, r["id"], rule, cand_id, own):
                    continue
                yield (
                    r["id"],
                    r["fetched_at"],
                    rule,
                    r["key"],
                    len(postings),
                    cand_id,
                    cand_fetched,
                    cand_day,
                )

    def flush(store: Store, batch: list[KeyRow]) -> Iterator[tuple[Any, ...]]:
        by_rule: dict[str, list[KeyRow]] = {}
        for r in batch:
            by_rule.setdefault(r["rule"], []).append(r)
        for rule, rule_rows in by_rule.items():
            yield from lookup(store, rule, rule_rows)

    return store_batches(hits, store_url, batch_size, flush, counters)


_LOOKUPS_ARROW = to_arrow_schema(schemas.LOOKUPS)
# What a probe task reads of work/docs: every rule's key column, and the key rows' fields.
_DOC_KEY_COLUMNS = ["id", "fetched_at", "simhash", *(r.column for r in Rule)]


@dataclass(frozen=True)
class Lookups:
    """Probe keys in the Bloom filters (vectorized), multi-get the hits: LOOKUPS rows.

    ``filters()`` gives a partition's filters by rule: the broadcast ones, or the one
    range filter of a co-partitioned rule. The counts go to ``counters``.
    """

    filters: Callable[[], dict[str, RangedFilters]]
    store_url: str
    day: str
    cap: int
    batch_size: int
    counters: dict[str, Any]
    max_distance: int = 64
    since: str = ""  # the first earlier day of the window (retention.window_start)
    max_docs: int | None = None  # cascade.excerpt_max_docs

    @contextmanager
    def _counted(self) -> Iterator[dict[str, int]]:
        bloom = {"probes": 0, "hits": 0, "false_positives": 0}
        try:
            yield bloom
        finally:
            for name, n in bloom.items():
                self.counters[name].add(n)

    def _found(self, hits: Iterable[KeyRow], bloom: dict[str, int]) -> Iterator[tuple[Any, ...]]:
        return _look_up(
            hits,
            self.store_url,
            self.day,
            self.cap,
            self.batch_size,
            self.counters,
            bloom,
            self.max_distance,
            self.since,
            self.max_docs,
        )

    def of_rows(self, rows: Iterable[KeyRow]) -> Iterator[tuple[Any, ...]]:
        with self._counted() as bloom:
            yield from self._found(_probe(rows, self.filters(), bloom, self.batch_size), bloom)

    def of_batches(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with self._counted() as bloom:
            found = self._found(_probe_arrow(batches, self.filters(), bloom), bloom)
            yield from tuple_batches(found, _LOOKUPS_ARROW)


def probe_earlier_days(
    spark: SparkSession, ctx: DayContext, keys: DataFrame, counters: dict[str, Any]
) -> Callable[[], None]:
    """Writes work/lookups: the LOOKUPS rows of the day's keys against earlier days;
    returns a cleanup callback.

    Rules in ``broadcast`` mode probe a broadcast of their filters: each task takes a
    share of work/docs' files, reads their documents' keys itself (pyarrow,
    :func:`day_keys.key_rows`) and writes a lookups file per docs file (the key rows
    never cross the JVM). Rules in ``partitioned`` mode
    (filters above ``bloom.max_broadcast_bytes``) get their keys shuffled so that
    partition i holds exactly key range i of one rule, and each partition reads only
    that range's filter from the work folder.
    """
    cfg = ctx.cfg
    store_url, day = ctx.store, ctx.day
    cap, batch = cfg.limits.max_postings_per_key, cfg.limits.store_batch_size
    max_distance = cfg.simhash.max_distance
    since = window_start(day, cfg.index.keep_days)
    sc = spark.sparkContext
    big = partitioned_rules(ctx)
    small = sc.broadcast(load_filters(ctx, "broadcast"))
    broadcast = Lookups(
        lambda: small.value,
        store_url,
        day,
        cap,
        batch,
        counters,
        max_distance,
        since,
        cfg.cascade.excerpt_max_docs,
    )
    rules = enabled(cfg.cascade.rules)
    small_rules = pa.array([r.value for r in rules if r.value not in big], pa.string())
    out = ctx.folder(LOOKUPS)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    folder = str(out)
    bucket_dir = ctx.folder(KEY_BUCKETS)
    shutil.rmtree(bucket_dir, ignore_errors=True)
    bucket_dir.mkdir(parents=True)
    into, buckets = str(bucket_dir), cfg.spark.shuffle_partitions

    def probe_files(parts: Iterable[tuple[int, str]]) -> Iterator[int]:
        # The task's key rows, with the docs file they came from (``part``): one file, a
        # row group per bucket.
        mine: list[pa.Table] = []
        first = None
        for i, path in parts:
            rows = key_rows(pq.read_table(path, columns=_DOC_KEY_COLUMNS), rules)
            mine.append(rows.append_column("part", pa.array([i] * rows.num_rows, pa.int32())))
            first = i if first is None else first
            rows = rows.filter(pc.is_in(rows.column("rule"), small_rules))
            with pq.ParquetWriter(f"{folder}/part-{i:05d}.parquet", _LOOKUPS_ARROW) as w:
                for found in broadcast.of_batches(rows.to_batches(max_chunksize=10_000)):
                    w.write_batch(found)
            yield rows.num_rows
        if first is not None:
            write_key_buckets(pa.concat_tables(mine), into, first, buckets)

    files = sorted(str(f) for f in ctx.folder(DOCS).glob("*.parquet"))
    # Two tasks per core, each a share of the files: a task loads the broadcast filters.
    tasks = max(1, min(len(files), 2 * sc.defaultParallelism))
    sc.parallelize(list(enumerate(files)), tasks).mapPartitions(probe_files).count()
    if big:
        lows = read_manifest(ctx)["ranges"]
        slots = {(rule, i): n for n, (rule, i) in enumerate(product(big, range(len(lows))))}
        root = str(bloom_dir(ctx))
        slot_of = {n: rs for rs, n in slots.items()}

        def slot(r: Row) -> int:
            return slots[(r["rule"], range_of(r["key"], lows))]

        def probe_slot(n: int, it: Iterable[tuple[int, Row]]) -> Iterator[tuple[Any, ...]]:
            rule, i = slot_of[n]
            rows = (r for _, r in it)
            # The broadcast lookups' settings, with the slot's one range filter.
            ranged = replace(broadcast, filters=lambda: {rule: load_part(root, rule, i, lows[i])})
            return ranged.of_rows(rows)

        routed = (
            keys.filter(F.col("rule").isin(big))
            .rdd.map(lambda r: (slot(r), r))
            .partitionBy(len(slots), lambda n: n)
            .mapPartitionsWithIndex(probe_slot)
        )
        spark.createDataFrame(routed, schemas.LOOKUPS).write.mode("append").parquet(folder)
    return small.unpersist


def _ranked_in_spark(
    spark: SparkSession,
    ctx: DayContext,
    n_day: pa.Table | None,
    same_dir: Path,
    cap: int,
    max_docs: int,
) -> dict[str, int]:
    """work/candidates when a rule's filters are partitioned: its lookups were written by
    a Spark job by key range, so the day's rows are shuffled by document id
    (:func:`candidate_ranking.earliest_per_rule`). Returns the candidates by rule."""
    found = read_work(spark, ctx.path(LOOKUPS)).filter(F.col("cand_id").isNotNull())
    if n_day is not None and n_day.num_rows:
        found = found.join(F.broadcast(spark.createDataFrame(n_day)), ["rule", "key"], "left")
    else:
        found = found.withColumn("n_day", F.lit(None).cast("long"))
    earlier = (
        found.withColumn(
            "shared_chars",
            shared_chars_of(
                F.col("rule"), F.col("key"), F.col("n_other"), F.col("n_day"), max_docs
            ),
        )
        .withColumn("own_text", own_text_key_of(F.col("rule"), F.col("key")))
        .select(*schemas.RANKED_CANDIDATES.fieldNames())
    )
    same_day = spark.read.schema(schemas.RANKED_CANDIDATES).parquet(str(same_dir))
    partitions = ctx.cfg.spark.shuffle_partitions
    cands = earliest_per_rule(earlier.unionByName(same_day), cap, partitions)
    cands.write.mode("overwrite").parquet(ctx.path(CANDIDATES))
    return dict(ctx.counts(CANDIDATES, ["rule"]))


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Writes work/lookups (store answers per key) and work/candidates."""
    cfg = ctx.cfg
    cap = cfg.limits.max_postings_per_key
    max_docs = cfg.cascade.excerpt_max_docs
    stats: dict[str, Any] = {}
    sc = spark.sparkContext
    with timed(stats):
        docs = read_work(spark, ctx.path(DOCS))
        rules = enabled(cfg.cascade.rules)
        keys = explode_keys(docs, rules)
        counters = {
            n: sc.accumulator(0)
            for n in ("probes", "hits", "false_positives", "round_trips", "rows_read")
        }
        release = probe_earlier_days(spark, ctx, keys, counters)
        paragraphs = Rule.PARAGRAPH in rules
        held = paragraphs_held_elsewhere(ctx.path(LOOKUPS)) if paragraphs else {}
        ranked_dir = ctx.folder(DAY_KEYS)
        shutil.rmtree(ranked_dir, ignore_errors=True)
        ranked_dir.mkdir(parents=True)
        same_dir = ctx.folder(SAME_DAY)
        shutil.rmtree(same_dir, ignore_errors=True)
        same_dir.mkdir(parents=True)
        files = len(list(ctx.folder(DOCS).glob("*.parquet")))
        same_day_pairs(
            sc,
            str(ctx.folder(KEY_BUCKETS)),
            str(same_dir),
            cfg.spark.shuffle_partitions,
            files,
            cap,
            ctx.day,
            cfg.simhash.max_distance,
            max_docs,
            str(ranked_dir),
            held,
        )
        counted = paragraphs and any(ranked_dir.glob("*.parquet"))
        n_day = paragraph_day_counts(str(ranked_dir)) if counted else None
        if partitioned_rules(ctx):
            stats["candidates"] = _ranked_in_spark(spark, ctx, n_day, same_dir, cap, max_docs)
        else:
            stats["candidates"] = rank_by_docs_file(
                sc,
                files,
                ctx.path(LOOKUPS),
                str(same_dir),
                ctx.path(CANDIDATES),
                cap,
                n_day,
                max_docs,
            )
        for scratch in (KEY_BUCKETS, SAME_DAY):  # read by the ranking above, not after
            shutil.rmtree(ctx.folder(scratch), ignore_errors=True)
        if not any(ranked_dir.glob("*.parquet")):  # no key at all: the schema alone
            pq.write_table(DAY_KEYS_ARROW.empty_table(), ranked_dir / "part-00000.parquet")
        stats["bloom"] = {
            n: a.value for n, a in counters.items() if n in ("probes", "hits", "false_positives")
        }
        stats["store"] = {
            "round_trips": counters["round_trips"].value,
            "rows_read": counters["rows_read"].value,
        }
        stats["bloom"]["partitioned_rules"] = partitioned_rules(ctx)
        release()
    ctx.write_stats("candidates", stats)
    return stats


# Its result on a day with nothing to judge (no document, nothing of the day in the
# store): the runner writes it without running the stage, so no Spark job starts.
EMPTY_DAY: dict[str, Any] | None = {
    "candidates": {},
    "bloom": {"probes": 0, "hits": 0, "false_positives": 0, "partitioned_rules": []},
    "store": {"round_trips": 0, "rows_read": 0},
}


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    b = stats.get("bloom", {})
    c = sum(stats.get("candidates", {}).values())
    return f"{b.get('probes', 0)} probes, {b.get('hits', 0)} hits, {c} candidate pairs"
