"""Stage 1: read the day's files, quarantine bad records, fingerprint the rest.

One task per input file. A task parses, extracts and fingerprints its file's records
in Python and hands them to the JVM as Arrow record batches (``mapInArrow``): no
per-row pickling, and the parsed day is cached once, columnar, for both outputs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import ArrayType, StringType, StructField, StructType

from crawldedup.config import Config
from crawldedup.core.boilerplate import is_boilerplate_only, strip_boilerplate
from crawldedup.ingest.readers import (
    InputFileError,
    RawRecord,
    describe,
    is_environment_error,
    read_file,
    select_input_files,
)
from crawldedup.ingest.records import Quarantined, fingerprint_fields, prepare
from crawldedup.pipeline import schemas
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.store_batches import store_batches, tuple_batches
from crawldedup.store import Store
from crawldedup.store.schema import line_hosts_row, served_elsewhere

# Every parsed record, document or quarantined: documents' fields, then the
# quarantine's reason and detail (null for documents), and the kind ("d" or "q").
_Q_ONLY = [f for f in schemas.QUARANTINE.fields if f.name not in schemas.DOCS.fieldNames()]
# What the boilerplate pass reads besides the documents' columns; never written to docs.
_PAGE = [
    StructField("text", StringType(), True),
    StructField("host", StringType(), True),
    StructField("line_keys", ArrayType(StringType(), False), True),
]
PAGE_COLUMNS = [f.name for f in _PAGE]
PARSED = StructType(
    [StructField("kind", StringType(), False)]
    + [StructField(f.name, f.dataType, True) for f in schemas.DOCS.fields + _Q_ONLY]
    + _PAGE
)
BATCH_ROWS = 1000
RAW_KEY = "_raw"  # a document row's raw record, in Python only
# Above this many repeated ids the split joins by shuffle instead of broadcasting them.
BROADCAST_DUPLICATES = 1_000_000


def _prepare_one(rec: RawRecord, cfg: Config, day: str) -> dict[str, Any]:
    """One parsed row; a record whose preparation raises is quarantined as ``bad_record``."""
    try:
        out = prepare(rec, cfg, day)
    except Exception as exc:
        if is_environment_error(exc):
            raise
        out = Quarantined(rec.source, rec.position, "bad_record", describe(exc), rec.raw)
    if isinstance(out, Quarantined):
        return {"kind": "q", **asdict(out)}
    # A document's raw text stays in Python (RAW_KEY is no column): only a row Arrow
    # refuses needs it here, and a repeated id gets it back from its file
    # (split_duplicate_ids), so the cached parse does not carry every page twice.
    out[RAW_KEY] = rec.raw
    out["kind"] = "d"
    return out


def _prepare_file(path: str, cfg: Config, day: str) -> Iterator[dict[str, Any]]:
    """The file's parsed rows: every failure of one record or of the file is a row too.

    A failure of the machine or the install (see ``is_environment_error``) raises an
    ``InputFileError`` naming the file, the position and the cause, which fails the run.
    """
    position = 0
    try:
        for rec in read_file(path, cfg.limits.max_record_bytes):
            position = rec.position
            yield _prepare_one(rec, cfg, day)
    except Exception as exc:
        if is_environment_error(exc):
            where = f"{path} (position {position})" if position else path
            raise InputFileError(f"{where}: {describe(exc)}") from exc
        # A reader's own failure (they quarantine bad bytes themselves): the rest of the
        # file is one entry, and the records before it keep their rows.
        yield {
            "kind": "q",
            "source": path,
            "position": position + 1,
            "reason": "bad_file",
            "detail": f"{describe(exc)} (file unreadable after record {position})",
            "raw": "",
        }


def _text_safe(value: Any) -> Any:
    """A string Arrow can encode (lone surrogates escaped); other values unchanged."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _to_batch(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.RecordBatch:
    """The rows as one Arrow batch; a row Arrow refuses becomes a ``bad_record`` row."""
    try:
        return pa.RecordBatch.from_pylist(rows, schema=schema)
    except Exception as exc:
        if is_environment_error(exc):
            raise
    safe: list[dict[str, Any]] = []
    for row in rows:
        try:
            pa.RecordBatch.from_pylist([row], schema=schema)
            safe.append(row)
        except Exception as exc:
            if is_environment_error(exc):
                raise
            safe.append(
                {
                    "kind": "q",
                    "source": _text_safe(row.get("source")),
                    "position": row.get("position"),
                    "reason": "bad_record",
                    "detail": _text_safe(describe(exc)),
                    "raw": _text_safe(row.get("raw", row.get(RAW_KEY))),
                }
            )
    return pa.RecordBatch.from_pylist(safe, schema=schema)


def _prepare_batches(
    batches: Iterator[pa.RecordBatch], cfg: Config, day: str, schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        for path in batch.column("path").to_pylist():
            rows: list[dict[str, Any]] = []
            for row in _prepare_file(path, cfg, day):
                rows.append(row)
                if len(rows) >= BATCH_ROWS:
                    yield _to_batch(rows, schema)
                    rows = []
            if rows:
                yield _to_batch(rows, schema)


def read_and_fingerprint(
    spark: SparkSession, files: list[str], cfg: Config, day: str
) -> tuple[DataFrame, DataFrame, DataFrame]:
    """(documents, quarantined, cached parse) of the given files; one task per file.

    The parse is cached so that HTML extraction and fingerprinting run once for
    both outputs; the caller unpersists the third element when both are written.
    """
    sc = spark.sparkContext
    paths = spark.createDataFrame(sc.parallelize([(f,) for f in files], len(files)), "path string")
    schema = to_arrow_schema(PARSED)
    parsed = paths.mapInArrow(lambda it: _prepare_batches(it, cfg, day, schema), PARSED).persist()
    docs = parsed.filter(F.col("kind") == "d").select(*schemas.DOCS.fieldNames(), *PAGE_COLUMNS)
    quarantined = parsed.filter(F.col("kind") == "q").select(*schemas.QUARANTINE.fieldNames())
    docs, quarantined = split_duplicate_ids(docs, quarantined, cfg.limits.max_record_bytes)
    return docs, quarantined, parsed


def _with_raw(batches: Iterable[pa.RecordBatch], max_record_bytes: int) -> Iterator[pa.RecordBatch]:
    """Quarantine rows of repeated ids with the raw record read again from its file
    (``source`` at ``position``): the parse keeps no document's raw text."""
    schema = to_arrow_schema(schemas.QUARANTINE)
    for batch in batches:
        rows = batch.to_pylist()
        wanted: dict[str, set[int]] = {}
        for r in rows:
            wanted.setdefault(r["source"], set()).add(r["position"])
        raw: dict[tuple[str, int], str] = {}
        for source, positions in wanted.items():
            for rec in read_file(source, max_record_bytes):
                if rec.position in positions:
                    raw[(source, rec.position)] = rec.raw
                    positions.discard(rec.position)
                    if not positions:
                        break
        for r in rows:
            r["raw"] = raw.get((r["source"], r["position"]))
            if r["raw"] is None:
                r["detail"] += " (the record's file changed while it was read: raw not kept)"
        yield pa.RecordBatch.from_pylist(rows, schema=schema)


def split_duplicate_ids(
    docs: DataFrame, quarantined: DataFrame, max_record_bytes: int
) -> tuple[DataFrame, DataFrame]:
    """Keep the first record of each id (by file, then position); quarantine the rest.

    Only (id, source, position) are shuffled to rank the records of an id; the
    repeats found (normally few) are then broadcast to split the wide rows, and their
    raw records are read again from their files (``_with_raw``).
    """
    w = Window.partitionBy("id").orderBy("source", "position")
    repeats = (
        docs.select("id", "source", "position")
        .withColumn("_n", F.row_number().over(w))
        .filter("_n > 1")
        .select("source", "position")
    )
    if repeats.count() <= BROADCAST_DUPLICATES:
        repeats = F.broadcast(repeats)
    first = docs.join(repeats, ["source", "position"], "left_anti")
    again = docs.join(repeats, ["source", "position"]).select(
        "source",
        "position",
        F.lit("duplicate_id").alias("reason"),
        F.concat(F.lit("id "), F.col("id"), F.lit(" already used earlier in the day")).alias(
            "detail"
        ),
        F.lit(None).cast("string").alias("raw"),
    )
    again = again.mapInArrow(lambda it: _with_raw(it, max_record_bytes), schemas.QUARANTINE)
    return first, quarantined.unionByName(again)


_EARLIER_LINES = pa.schema(
    [
        ("host", pa.string()),
        ("line", pa.string()),
        ("earlier", pa.int64()),
        ("elsewhere", pa.bool_()),
    ]
)
# Hosts where a line was ordinary text (on fewer than min_pages of their pages), written
# a day (rows ``*|line`` of ``host_lines``): two tell "another host" from "this host".
LINE_HOSTS = 2


def _earlier_line_counts(
    batches: Iterable[pa.RecordBatch], store_url: str, day: str, batch_size: int
) -> Iterator[pa.RecordBatch]:
    """(host, line, pages of earlier days, whether an earlier day saw the line as ordinary
    text of another host) for the day's lines that the index knows, looked up in store
    batches; Arrow in and out, no row is pickled."""

    def lookup(store: Store, batch: list[dict[str, Any]]) -> Iterator[tuple[str, str, int, bool]]:
        rows = [f"{r['host']}|{r['line']}" for r in batch]
        rows += sorted({line_hosts_row(r["line"]) for r in batch})
        found = store.get("host_lines", rows)
        for r in batch:
            cells = found.get(f"{r['host']}|{r['line']}", {})
            n = sum(int(v) for c, v in cells.items() if c[2:] < day)
            elsewhere = served_elsewhere(found.get(line_hosts_row(r["line"]), {}), r["host"], day)
            if n or elsewhere:
                yield r["host"], r["line"], n, elsewhere

    rows = (r for b in batches for r in b.select(["host", "line"]).to_pylist())
    return tuple_batches(store_batches(rows, store_url, batch_size, lookup), _EARLIER_LINES)


# The near-duplicate keys of a page that is nothing but its host's boilerplate: none.
BOILERPLATE_ONLY_KEYS: dict[str, Any] = {
    "title_key": None,
    "head_key": None,
    "tail_key": None,
    "simhash_keys": [],
    "lsh_keys": [],
    "boilerplate_only": True,
}


def _refingerprint(
    batches: Iterator[pa.RecordBatch], boiler: dict[str, frozenset[str]], cfg: Config
) -> Iterator[pa.RecordBatch]:
    """Every document, those holding a boilerplate line of their host fingerprinted
    again without their host's boilerplate lines. Only (host, line_keys) of the others
    reach Python; their rows pass through as Arrow.

    A page that is nothing but boilerplate keeps only its exact key (the md5 of its
    whole text): its head, tail, title, SimHash and LSH keys would be the site's, and
    would match every other page of the site."""
    bp = cfg.boilerplate
    for batch in batches:
        hosts = batch.column("host").to_pylist()
        keys = batch.column("line_keys").to_pylist()
        touched = [
            i
            for i, (host, lines) in enumerate(zip(hosts, keys, strict=True))
            if lines and (mine := boiler.get(host or "")) and not mine.isdisjoint(lines)
        ]
        if not touched:
            yield batch
            continue
        rows = batch.take(pa.array(touched, pa.int64())).to_pylist()
        for row in rows:
            cleaned = strip_boilerplate(row["text"], boiler[row["host"] or ""], bp.min_line_chars)
            if is_boilerplate_only(cleaned):
                row.update(BOILERPLATE_ONLY_KEYS)
            elif cleaned is not None:
                row.update(fingerprint_fields(row["title"], cleaned, cfg))
        keep = [True] * batch.num_rows
        for i in touched:
            keep[i] = False
        untouched = batch.filter(pa.array(keep))
        if untouched.num_rows:
            yield untouched
        yield pa.RecordBatch.from_pylist(rows, schema=batch.schema)


def remove_boilerplate(
    spark: SparkSession, ctx: DayContext, docs: DataFrame
) -> tuple[DataFrame, dict[str, Any]]:
    """Documents fingerprinted without their host's boilerplate lines, and the counts.

    A line is boilerplate for a host when at least ``boilerplate.min_pages`` pages of the
    host (pages with the same set of lines count once) hold it, counted over this day
    and the earlier days in the store (table ``host_lines``; a rerun does not count its
    own day twice), and no other host has it as ordinary text (on fewer than
    ``min_pages`` of its pages, today or on an earlier day: rows ``*|line``). A site's
    template lines are template wherever they are ("返回顶部" on many sites); an article
    that one host serves again and again with other decorations is ordinary text on the
    host it came from, so its lines stay. The day's counts go to
    ``work/dt=D/host_lines`` and the hosts where each line is ordinary text to
    ``work/dt=D/line_hosts``, for the publish stage.
    """
    cfg, bp = ctx.cfg, ctx.cfg.boilerplate
    # Pages with the same lines (an article and its exact or re-laid-out copies) count
    # once: a line is a template line when it sits beside different content.
    today = (
        docs.select("host", "line_keys")
        .distinct()
        .select("host", F.explode("line_keys").alias("line"))
        .groupBy("host", "line")
        .agg(F.count("*").alias("pages"))
    )
    today.write.mode("overwrite").parquet(ctx.path("host_lines"))
    today = spark.read.parquet(ctx.path("host_lines"))
    store_url, day, batch = ctx.store, ctx.day, cfg.limits.store_batch_size
    earlier = today.mapInArrow(
        lambda it: _earlier_line_counts(it, store_url, day, batch),
        "host string, line string, earlier long, elsewhere boolean",
    )
    total = today.join(earlier, ["host", "line"], "left").select(
        "host",
        "line",
        (F.col("pages") + F.coalesce(F.col("earlier"), F.lit(0))).alias("n"),
        F.coalesce(F.col("elsewhere"), F.lit(False)).alias("elsewhere"),
    )
    # Hosts where the line is ordinary text (fewer than min_pages pages): for the other
    # hosts it is content, not template (an article its first site served once).
    ordinary = (
        total.filter(F.col("n") < bp.min_pages)
        .groupBy("line")
        .agg(F.slice(F.sort_array(F.collect_list("host")), 1, LINE_HOSTS).alias("hosts"))
    )
    ordinary.write.mode("overwrite").parquet(ctx.path("line_hosts"))
    ordinary = spark.read.parquet(ctx.path("line_hosts"))
    boiler_rows = (
        total.filter((F.col("n") >= bp.min_pages) & ~F.col("elsewhere"))
        .join(ordinary, "line", "left_anti")
        .select("host", "line")
    )
    found: dict[str, set[str]] = {}
    for r in boiler_rows.collect():
        found.setdefault(r["host"], set()).add(r["line"])
    boiler = {h: frozenset(lines) for h, lines in found.items()}
    stats = {"hosts": len(boiler), "lines": sum(len(v) for v in boiler.values())}
    if not boiler:
        return docs, stats
    # One narrow pass: the host's lines go to every task, no join moves a row.
    shared = spark.sparkContext.broadcast(boiler)
    redone = docs.mapInArrow(lambda it: _refingerprint(it, shared.value, cfg), docs.schema)
    return redone, stats


def _private_dir(folder: Path) -> None:
    """``folder`` owner-only (0700); missing parents get the default mode."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)


def _private_tree(folder: Path) -> None:
    """Quarantine files hold raw pages: folders 0700, files 0600, links left alone."""
    folder.chmod(0o700)
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames:
            if not os.path.islink(os.path.join(dirpath, name)):
                os.chmod(os.path.join(dirpath, name), 0o700)
        for name in filenames:
            if not os.path.islink(os.path.join(dirpath, name)):
                os.chmod(os.path.join(dirpath, name), 0o600)


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Fingerprint the day: writes work/docs (Parquet) and the quarantine (JSON Lines)."""
    stats: dict[str, Any] = {}
    if ctx.input_dir is None:
        raise ValueError("the fingerprint stage needs an input folder")
    with timed(stats):
        selection = select_input_files(Path(ctx.input_dir))
        files = [str(p) for p in selection.files]
        stats["files"] = len(files)
        stats["extract_engine"] = ctx.cfg.extract.engine  # what the HTML records went through
        # What was not read, and why (symlinks, hidden folders, unknown extensions).
        stats["skipped_files"] = selection.skipped_counts()
        stats["skipped"] = selection.skipped_listing()
        parsed = None
        if not files:
            # No pages, no line counts: a previous run's must not reach publish.
            shutil.rmtree(ctx.work / "host_lines", ignore_errors=True)
            shutil.rmtree(ctx.work / "line_hosts", ignore_errors=True)
            docs = spark.createDataFrame([], schemas.DOCS)
            quarantined = spark.createDataFrame([], schemas.QUARANTINE)
        else:
            docs, quarantined, parsed = read_and_fingerprint(spark, files, ctx.cfg, ctx.day)
            if ctx.cfg.boilerplate.enabled:
                docs, stats["boilerplate"] = remove_boilerplate(spark, ctx, docs)
        docs.drop("raw", *PAGE_COLUMNS).write.mode("overwrite").parquet(ctx.path("docs"))
        _private_dir(ctx.quarantine_dir.parent)  # no window where others can read raw pages
        quarantined.coalesce(1).write.mode("overwrite").json(str(ctx.quarantine_dir))
        _private_tree(ctx.quarantine_dir)
        if parsed is not None:
            parsed.unpersist()
        written = spark.read.parquet(ctx.path("docs"))
        counts = written.agg(
            F.count(F.lit(1)).alias("n"),
            F.count(F.when(~F.col("has_fetched_at"), 1)).alias("missing"),
        ).first()
        stats["documents"] = int(counts["n"]) if counts else 0
        stats["missing_fetched_at"] = int(counts["missing"]) if counts else 0
        q = spark.read.schema(schemas.QUARANTINE).json(str(ctx.quarantine_dir))
        stats["quarantined"] = {
            r["reason"]: r["count"] for r in q.groupBy("reason").count().collect()
        }
        stats["records_in"] = stats["documents"] + sum(stats["quarantined"].values())
    ctx.write_stats("fingerprint", stats)
    return stats
