"""Stage 5: groups, then verdicts, document rows and index postings written to the store.

Rerunning a day replaces that day's results whole: before its first write the stage
takes back what the earlier run of the day wrote and this run does not write again
(:mod:`crawldedup.pipeline.retraction`), and every row it puts has every column. Index
postings are capped per key: a
document's posting is written only while the key has fewer than
``limits.max_postings_per_key`` postings of earlier-or-equal rank.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from crawldedup.core.grouping import groups
from crawldedup.day_state import (
    check_replacement,
    docs_a_cell_a_field,
    mark_incomplete,
    mark_ledger,
    published_before_the_ledger,
)
from crawldedup.pipeline import line_filter
from crawldedup.pipeline.bloom_blocks import add_day_keys
from crawldedup.pipeline.components import connected_components
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.day_keys import write_postings
from crawldedup.pipeline.doc_row_files import decisions_by_docs_file, put_doc_rows
from crawldedup.pipeline.retraction import retract_previous_run
from crawldedup.pipeline.store_batches import (
    FolderWrite,
    store_batches,
    write_partitions,
    write_work_folders,
)
from crawldedup.pipeline.work_files import read_work
from crawldedup.rules import Rule
from crawldedup.stage_registry import (
    CANON_CELLS,
    COMPONENTS,
    DAY_KEYS,
    DECISIONS,
    DOCS,
    GROUPS,
    GROUPS_EARLIER,
    HOST_LINES,
    LINE_HOSTS,
    LOOKUPS,
    POSTINGS,
    relevance_enabled,
)
from crawldedup.store import Store, StoreStats, open_store
from crawldedup.store.day_ledger import put_recorded, put_recorded_cells
from crawldedup.store.schema import (
    DOC_FIELDS,
    OLD_VERDICT_CELLS,
    VerdictRecord,
    doc_row,
    get_docs,
    line_hosts_cell,
    line_hosts_row,
    old_verdict_layout,
    posting_column,
    posting_columns,
    posting_value,
    posting_values,
    verdict_row_key,
)


def resolve_groups(spark: SparkSession, ctx: DayContext, docs: DataFrame) -> None:
    """Writes work/groups, (id, group) of the day's duplicates, and work/canon_cells,
    (id, day, fetched_at) of the earlier days' canonicals that gained members today
    (they get a membership cell).

    Up to ``limits.max_driver_edges`` duplicate edges, union-find on the driver (only
    the edges are read, two ids each, from work/decisions' files: no Spark job); above,
    connected components in Spark.
    """
    # The day's duplicates counted from the decisions' files by the driver: no Spark job.
    n_dups = dict(ctx.counts(DECISIONS, ["verdict"])).get("duplicate", 0)
    if n_dups > ctx.cfg.limits.max_driver_edges:
        decisions = read_work(spark, ctx.path(DECISIONS))
        dups = decisions.filter(F.col("verdict") == "duplicate").select(
            "id", F.col("duplicate_of").alias("target")
        )
        group_map, canon = _resolve_groups_in_spark(spark, ctx, docs, dups)
        canon.write.mode("overwrite").parquet(ctx.path(CANON_CELLS))
        group_map.write.mode("overwrite").parquet(ctx.path(GROUPS))
        return
    edges = _duplicate_edges(ctx)
    canon_cells: list[tuple[str, str, str]] = []
    mapping: dict[str, str] = {}
    if edges:
        involved = {a for a, _ in edges} | {b for _, b in edges}
        order = _fetched_at_of_day(ctx, involved)
        all_edges = list(edges)
        earlier = sorted(involved - order.keys())
        if earlier:
            with open_store(ctx.store) as store:
                for t, t_fetched, g, g_fetched, g_day in _earlier_groups(store, earlier):
                    order[t] = (t_fetched, t)
                    order.setdefault(g, (g_fetched, g))
                    if g != t:
                        all_edges.append((t, g))
                    if g_day is not None:
                        canon_cells.append((g, g_day, g_fetched))
        mapping = groups({a for a, _ in edges}, all_edges, order)
    pairs = sorted(mapping.items())
    _write_table(
        ctx.folder(GROUPS),
        pa.table({"id": [i for i, _ in pairs], "group": [g for _, g in pairs]}, _GROUPS_ARROW),
    )
    cells = sorted(set(canon_cells))
    _write_table(
        ctx.folder(CANON_CELLS),
        pa.Table.from_pylist(
            [{"id": i, "day": d, "fetched_at": f} for i, d, f in cells], _CANON_CELLS_ARROW
        ),
    )


_GROUPS_ARROW = pa.schema(
    [pa.field("id", pa.string(), False), pa.field("group", pa.string(), False)]
)
_CANON_CELLS_ARROW = pa.schema(
    [
        pa.field("id", pa.string(), False),
        pa.field("day", pa.string(), False),
        pa.field("fetched_at", pa.string(), False),
    ]
)


def _write_table(folder: Path, table: pa.Table) -> None:
    """A work folder of one Parquet file, replaced whole."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "part-00000.parquet")


def _duplicate_edges(ctx: DayContext) -> list[tuple[str, str]]:
    """(id, duplicate_of) of the day's duplicates, from work/decisions' files."""
    edges: list[tuple[str, str]] = []
    for path in sorted(ctx.folder(DECISIONS).glob("*.parquet")):
        t = pq.ParquetFile(path).read(columns=["id", "verdict", "duplicate_of"])
        t = t.filter(pc.equal(t.column("verdict"), "duplicate"))
        edges += zip(t.column("id").to_pylist(), t.column("duplicate_of").to_pylist(), strict=True)
    return edges


def _fetched_at_of_day(ctx: DayContext, ids: set[str]) -> dict[str, tuple[str, str]]:
    """(fetched_at, id) of the day's documents among ``ids``, from work/docs' files."""
    wanted = pa.array(sorted(ids), pa.string())
    order: dict[str, tuple[str, str]] = {}
    for path in sorted(ctx.folder(DOCS).glob("*.parquet")):
        t = pq.ParquetFile(path).read(columns=["id", "fetched_at"])
        t = t.filter(pc.is_in(t.column("id"), wanted))
        for i, f in zip(
            t.column("id").to_pylist(), t.column("fetched_at").to_pylist(), strict=True
        ):
            order[i] = (f, i)
    return order


def _earlier_groups(
    store: Store, targets: list[str]
) -> Iterator[tuple[str, str, str, str, str | None]]:
    """(target, its fetched_at, its group, the group's fetched_at, the group's day or
    None when the group has no document row) for targets of earlier days."""
    found = get_docs(store, targets, ["m:group", "m:fetched_at"])
    group_of = {t: (found.get(t, {}).get("m:group") or t.encode()).decode() for t in targets}
    canon_rows = get_docs(store, sorted(set(group_of.values())), ["m:fetched_at", "m:day"])
    for t in targets:
        g = group_of[t]
        row = canon_rows.get(g, {})
        yield (
            t,
            (found.get(t, {}).get("m:fetched_at") or b"").decode(),
            g,
            (row.get("m:fetched_at") or b"").decode(),
            (row.get("m:day") or b"").decode() if row else None,
        )


EARLIER = StructType(
    [
        StructField("t", StringType(), False),
        StructField("t_fetched", StringType(), False),
        StructField("g", StringType(), False),
        StructField("g_fetched", StringType(), False),
        StructField("g_day", StringType(), True),
    ]
)


def _resolve_groups_in_spark(
    spark: SparkSession, ctx: DayContext, docs: DataFrame, dups: DataFrame
) -> tuple[DataFrame, DataFrame]:
    """:func:`resolve_groups` with nothing collected: store lookups in the executors,
    then :func:`connected_components`."""
    store_url, batch = ctx.store, ctx.cfg.limits.store_batch_size
    today = docs.select("id", "fetched_at")
    targets = dups.select(F.col("target").alias("id")).distinct().join(today, "id", "left_anti")

    def lookup(rows: Iterable[Row]) -> Iterator[tuple[str, str, str, str, str | None]]:
        return store_batches((r["id"] for r in rows), store_url, batch, _earlier_groups)

    earlier = spark.createDataFrame(targets.rdd.mapPartitions(lookup), EARLIER)
    earlier.write.mode("overwrite").parquet(ctx.path(GROUPS_EARLIER))
    earlier = read_work(spark, ctx.path(GROUPS_EARLIER))
    edges = dups.select(F.col("id").alias("a"), F.col("target").alias("b")).unionByName(
        earlier.filter(F.col("t") != F.col("g")).select(
            F.col("t").alias("a"), F.col("g").alias("b")
        )
    )
    vertices = dups.select("id").unionByName(dups.select(F.col("target").alias("id"))).distinct()
    order = (
        vertices.join(today, "id")
        .unionByName(earlier.select(F.col("t").alias("id"), F.col("t_fetched").alias("fetched_at")))
        .unionByName(earlier.select(F.col("g").alias("id"), F.col("g_fetched").alias("fetched_at")))
        .dropDuplicates(["id"])
    )
    labels = connected_components(spark, edges, order, ctx.path(COMPONENTS))
    group_map = dups.select("id").join(labels, "id")
    canon = (
        earlier.filter(F.col("g_day").isNotNull())
        .select(
            F.col("g").alias("id"),
            F.col("g_day").alias("day"),
            F.col("g_fetched").alias("fetched_at"),
        )
        .distinct()
    )
    return group_map, canon


def _put_canon_cells(store: Store, batch: list[dict[str, Any]]) -> None:
    store.put(
        "groups",
        {
            r["id"]: {posting_column(r["id"]): posting_value(r["day"], r["fetched_at"])}
            for r in batch
        },
    )


def _put_postings(store: Store, batch: pa.RecordBatch, day: str) -> None:
    """A batch of ``work/postings`` rows (sorted by rule and key) into the index
    tables, built column by column."""
    rules = batch.column("rule")
    for name in pc.unique(rules).to_pylist():
        rule = Rule(name)
        rows = batch.filter(pc.equal(rules, name))
        simhash = rows.column("simhash") if rule.multi_key else None
        values = posting_values(day, rows.column("fetched_at"), simhash)
        columns = posting_columns(rows.column("id"))
        keys = rows.column("key").to_pylist()
        cells = zip(keys, columns.to_pylist(), values.to_pylist(), strict=True)
        store.put_cells(rule.table, list(cells))


def _put_host_lines(store: Store, batch: pa.RecordBatch, day: str) -> None:
    """A batch of ``work/host_lines`` rows: cell ``d:DAY`` of row ``host|line`` holds
    the day's pages of the host with the line."""
    rows = line_filter.line_rows(batch)
    pages = pc.cast(batch.column("pages"), pa.string()).cast(pa.binary()).to_pylist()
    cell = f"d:{day}"
    cells = [(r, cell, v) for r, v in zip(rows, pages, strict=True)]
    put_recorded_cells(store, day, "host_lines", cells)


def _line_filter_before_counts(ctx: DayContext) -> int:
    """The store's line filter before the day's line counts are written: their new rows
    ORed into its blocks (:mod:`crawldedup.pipeline.line_filter`), or, with the filter
    off, the blocks deleted (they would lack the day's rows). How many rows went in."""
    with open_store(ctx.store) as store:
        if not line_filter.is_on(ctx.cfg, ctx.store):
            line_filter.drop(store)
            return 0
        if not ctx.folder(HOST_LINES).exists():
            return 0
        rows = pq.read_table(ctx.path(HOST_LINES), columns=["host", "line", "pages", "n"])
        return line_filter.add_new_rows(store, ctx.cfg, rows)


def _put_line_hosts(store: Store, batch: list[dict[str, Any]], day: str) -> None:
    """Rows ``*|line``: hosts where the line is ordinary text (``d:@HOST|DAY``)."""
    rows = {
        line_hosts_row(r["line"]): {line_hosts_cell(h, day): day.encode() for h in r["hosts"]}
        for r in batch
    }
    put_recorded(store, day, "host_lines", rows)


def _put_docs(
    store: Store, batch: list[dict[str, Any]], day: str, old_layout: bool, old_docs: bool
) -> None:
    """Document rows, verdicts and group memberships of a batch of documents.
    ``old_layout``: the day's verdict rows were written a cell a field (before 2026-12);
    ``old_docs``: its document rows were (a release before the packed document cell).
    Those cells are deleted once the record's one cell is written."""
    docs_rows: dict[str, dict[str, bytes]] = {}
    verdicts: dict[str, dict[str, bytes]] = {}
    members: dict[str, dict[str, bytes]] = {}
    for r in batch:
        group = r["group"] or r["id"]
        keys = {rule.value: r[rule.column] for rule in Rule}
        docs_rows[r["id"]] = doc_row(
            url=r["url"],
            title=r["title"],
            day=day,
            fetched_at=r["fetched_at"],
            keys=keys,
            simhash=r["simhash"],
            tf_json=r["tf"],
            group=group,
            raw_md5=r["raw_md5"],
            sketch=r["sketch"],
            length=r["length"],
            own_sketch=r["own_sketch"],
        )
        rec = VerdictRecord(
            r["id"],
            r["verdict"],
            r["rule"],
            r["duplicate_of"],
            r["similarity"],
            group,
            r["type"],
            r["measure"],
        )
        verdicts[verdict_row_key(day, r["id"])] = rec.to_row()
        if r["verdict"] == "duplicate" or r["is_canon"]:
            cells = members.setdefault(group, {})
            cells[posting_column(r["id"])] = posting_value(day, r["fetched_at"])
    store.put("docs", docs_rows)
    store.put("verdicts", verdicts)
    if old_layout:
        store.delete_cells("verdicts", {key: OLD_VERDICT_CELLS for key in verdicts})
    if old_docs:
        store.delete_cells("docs", {key: DOC_FIELDS for key in docs_rows})
    store.put("groups", members)


def _with_verdicts(spark: SparkSession, ctx: DayContext, docs: DataFrame) -> DataFrame:
    """The day's documents with their verdict, group and ``is_canon`` (the rows of
    ``_put_docs``), as a DataFrame: for the delete list and the Spark road of the
    document rows (``doc_row_files`` reads the files instead)."""
    decisions = read_work(spark, ctx.path(DECISIONS))
    group_map = read_work(spark, ctx.path(GROUPS))
    # The canonical of a group gets a membership cell too, so a group row lists all
    # (canonicals of earlier days got theirs on their own day).
    canon = (
        group_map.select(F.col("group").alias("id")).distinct().withColumn("is_canon", F.lit(True))
    )
    return docs.join(decisions, "id").join(group_map, "id", "left").join(canon, "id", "left")


def write_delete_list(ctx: DayContext, full: DataFrame) -> dict[str, Any]:
    """The day's duplicates, for downstream deletion: id, canonical, rule, type."""
    out = str(ctx.home / "deletions" / f"dt={ctx.day}")
    dups = full.filter(F.col("verdict") == "duplicate").select(
        "id",
        "url",
        "duplicate_of",
        F.coalesce("group", "duplicate_of").alias("group"),
        "rule",
        "type",
    )
    writer = dups.coalesce(1).write.mode("overwrite")
    if ctx.cfg.output.delete_list == "parquet":
        writer.parquet(out)
    else:
        writer.json(out)
    return {"path": out, "format": ctx.cfg.output.delete_list}


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    cfg = ctx.cfg
    stats: dict[str, Any] = {}
    with timed(stats):
        docs = read_work(spark, ctx.path(DOCS))
        resolve_groups(spark, ctx, docs)
        full = _with_verdicts(spark, ctx, docs)
        stats["groups_with_duplicates_today"] = len(ctx.counts(GROUPS, ["group"]))
        if ctx.dry_run:
            stats["dry_run"] = True
            ctx.write_stats("publish", stats)
            return stats
        store_url, day, batch = ctx.store, ctx.day, cfg.limits.store_batch_size
        with open_store(store_url) as store:
            if not ctx.replace:
                documents = int(ctx.read_stats("fingerprint").get("documents", 0))
                check_replacement(store, day, documents, cfg.limits.min_rerun_share)
            # Marked with the ledger only after the retraction: a retraction cut short
            # scans again.
            unrecorded = published_before_the_ledger(store, day)
            old_layout = any(
                old_verdict_layout(row)
                for _, row in islice(store.scan_prefix("verdicts", f"{day}|"), 1)
            )
            old_docs = docs_a_cell_a_field(store, day)
            mark_incomplete(store, day)  # removed by the commit stage, last
        # Computed once: retraction, Bloom blocks, puts.
        write_postings(
            spark,
            ctx.path(DAY_KEYS),
            ctx.path(LOOKUPS),
            ctx.path(POSTINGS),
            cfg.limits.max_postings_per_key,
        )
        postings = read_work(spark, ctx.path(POSTINGS))
        stats["retracted"] = retract_previous_run(
            spark,
            ctx,
            docs,
            postings,
            unrecorded=unrecorded,
            relevance_runs=relevance_enabled(cfg),
        )
        with open_store(store_url) as store:
            mark_ledger(store, day)
        if cfg.bloom.source == "blocks":
            # Before the postings: a block may hold keys the index lacks, never the reverse.
            stats["bloom_keys_added"] = add_day_keys(spark, ctx, ctx.path(POSTINGS))
        if cfg.boilerplate.enabled:
            stats["line_filter_rows_added"] = _line_filter_before_counts(ctx)
        sc = spark.sparkContext
        counters = {n: sc.accumulator(0) for n in StoreStats().as_dict()}
        # Document and verdict rows before the postings: a posting of the day is always
        # listed by a document row of the day, so a rerun after a crash finds it.
        # Each partition's puts in key order (write_partitions): a document's row is its
        # id, a posting's its key in its rule's table, a line count's host|line.
        put = lambda s, b: _put_docs(s, b, day, old_layout, old_docs)  # noqa: E731
        if decisions_by_docs_file(ctx):
            put_doc_rows(spark, ctx, put, counters)
        else:
            write_partitions(full, store_url, batch, put, counters, key_order=("id",))
        # The work folders' rows go to the store straight from their files, in one job:
        # the postings; the day's page counts per (host, line) (later days' boilerplate
        # counts) and the hosts where a line is ordinary text (for the other hosts it is no
        # template); the canonicals' own membership cells (a few a day, never counted in
        # stats["store"]).
        writes = [
            FolderWrite(
                ctx.path(POSTINGS),
                lambda s, b: _put_postings(s, b, day),
                ("rule", "key"),
                counters,
                arrow=True,
            )
        ]
        if cfg.boilerplate.enabled:
            writes += [
                FolderWrite(
                    str(ctx.folder(HOST_LINES)),
                    lambda s, b: _put_host_lines(s, b, day),
                    ("host", "line"),
                    counters,
                    arrow=True,
                ),
                FolderWrite(
                    str(ctx.folder(LINE_HOSTS)),
                    lambda s, b: _put_line_hosts(s, b, day),
                    ("line",),
                    counters,
                ),
            ]
        writes.append(FolderWrite(ctx.path(CANON_CELLS), _put_canon_cells))
        stats["postings_written"] = write_work_folders(spark, writes, store_url, batch)[0]
        stats["store"] = {n: a.value for n, a in counters.items()}
        if cfg.output.delete_list:
            stats["delete_list"] = write_delete_list(ctx, full)
    ctx.write_stats("publish", stats)
    return stats


# Its result on a day with nothing to judge (no document, nothing of the day in the
# store): the runner writes it without running the stage, so no Spark job starts.
EMPTY_DAY: dict[str, Any] | None = {
    "groups_with_duplicates_today": 0,
    "postings_written": 0,
    "retracted": {},
    "store": {"cells_written": 0},
}


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    if stats.get("dry_run"):
        return "dry run: nothing written"
    s = stats.get("store", {})
    groups = stats.get("groups_with_duplicates_today", 0)
    return f"{s.get('cells_written', 0)} cells written, {groups} groups"
