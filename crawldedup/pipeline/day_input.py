"""The day's files read into documents and quarantine entries, fingerprinted on the way.

One Python task per input file. A task parses and extracts its file's records, writes
its documents' wide columns (texts, line keys) to ``work/dt=D/parsed/part-NNNNN.parquet``,
its documents' ids and places (repeated ids) and hosts and line keys (boilerplate) to its
bucket files, which Python tasks read back by bucket, and its quarantine entries to a
part file of ``work/dt=D/parse_quarantine``; the driver gets only the counts. No row goes
through the JVM, and a day runs no Spark SQL until something is quarantined. A record or
file that cannot be read is a quarantine row, never a failed day; only a failure of the
machine or the install fails the run.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import ArrayType, StringType, StructField, StructType

from crawldedup.config import Config
from crawldedup.ingest.readers import (
    InputFileError,
    RawRecord,
    describe,
    is_environment_error,
    read_file,
)
from crawldedup.ingest.records import Quarantined, read_record
from crawldedup.pipeline import schemas
from crawldedup.pipeline.duplicate_ids import (
    Repeats,
    find_repeats,
    repeats_quarantine,
    write_id_buckets,
)
from crawldedup.pipeline.part_files import PartWriter, part_file
from crawldedup.pipeline.site_boilerplate import write_line_buckets

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
# What a parse task writes of its documents: work/docs' columns and the page columns.
WIDE_COLUMNS = [n for n in schemas.DOCS.fieldNames() if n != "raw"] + PAGE_COLUMNS
# What it writes of its documents to its bucket files (repeated ids, boilerplate).
PAGE_PLACES = ["id", "source", "position", "has_fetched_at", "host", "line_keys"]
# What it writes of its quarantine entries.
_QUARANTINE_NAMES = schemas.QUARANTINE.fieldNames()
_QUARANTINE_ARROW = to_arrow_schema(schemas.QUARANTINE)
BATCH_ROWS = 1000
RAW_KEY = "_raw"  # a document row's raw record, in Python only


def _prepare_one(rec: RawRecord, cfg: Config, day: str) -> dict[str, Any]:
    """One parsed row; a record whose preparation raises is quarantined as ``bad_record``."""
    try:
        out = read_record(rec, cfg, day)
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


def _file_batches(path: str, cfg: Config, day: str, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    rows: list[dict[str, Any]] = []
    for row in _prepare_file(path, cfg, day):
        rows.append(row)
        if len(rows) >= BATCH_ROWS:
            yield _to_batch(rows, schema)
            rows = []
    if rows:
        yield _to_batch(rows, schema)


@dataclass
class FileTally:
    """What a parse task found in its files: documents (and those without a fetch
    time), and quarantine entries by reason."""

    documents: int = 0
    missing_fetched_at: int = 0
    quarantined: Counter[str] = field(default_factory=Counter)

    def add(self, other: FileTally) -> None:
        self.documents += other.documents
        self.missing_fetched_at += other.missing_fetched_at
        self.quarantined.update(other.quarantined)


def _parse_files(
    items: Iterable[tuple[int, str]],
    cfg: Config,
    day: str,
    dirs: tuple[str, str, str],
    buckets: int,
) -> Iterator[FileTally]:
    """Each input file's parse: its documents' wide columns to its part file in the
    parsed folder, their ids and places, and their hosts and line keys, to its bucket
    files (``ids``, ``lines``), its quarantine entries to its part file in the
    quarantine folder (when it has any); its tally to the driver. ``dirs``: the
    parsed, bucket and quarantine folders."""
    parsed_dir, buckets_dir, quarantine_dir = dirs
    schema = to_arrow_schema(PARSED)
    wide = pa.schema([schema.field(n) for n in WIDE_COLUMNS])
    for index, path in items:
        out = PartWriter(part_file(parsed_dir, index), wide)
        found: list[pa.RecordBatch] = []
        held: list[pa.RecordBatch] = []
        tally = FileTally()
        for parsed in _file_batches(path, cfg, day, schema):
            is_document = pc.equal(parsed.column("kind"), "d")
            documents = parsed.filter(is_document)
            out.write(documents.select(WIDE_COLUMNS))
            found.append(documents.select(PAGE_PLACES))
            tally.documents += documents.num_rows
            missing = pc.sum(pc.invert(documents.column("has_fetched_at"))).as_py()
            tally.missing_fetched_at += missing or 0
            entries = parsed.filter(pc.invert(is_document))
            if entries.num_rows:
                tally.quarantined.update(entries.column("reason").to_pylist())
                held.append(entries.select(_QUARANTINE_NAMES).cast(_QUARANTINE_ARROW))
        out.close()
        places = pa.Table.from_batches(found, pa.schema([schema.field(n) for n in PAGE_PLACES]))
        write_id_buckets(places, part_file(Path(buckets_dir) / "ids", index), buckets)
        write_line_buckets(places, part_file(Path(buckets_dir) / "lines", index), buckets)
        if held:
            pq.write_table(pa.Table.from_batches(held), part_file(quarantine_dir, index))
        yield tally


@dataclass
class DayParse:
    """The day's parse: where its line buckets and quarantine entries are, and its
    counts, from the parse tasks' tallies (no output is read back to count it)."""

    lines_dir: str  # the line bucket files (site_boilerplate.learn_boilerplate)
    buckets: int
    documents: int
    missing_fetched_at: int
    quarantined_by_reason: dict[str, int]
    repeats: Repeats
    quarantine_dir: str  # the parse's quarantine entries, a part file per input file
    parse_quarantined: bool  # whether the parse quarantined anything

    @property
    def records_in(self) -> int:
        return self.documents + sum(self.quarantined_by_reason.values())

    def add_quarantined(self, reason: str, n: int) -> None:
        """``n`` documents of the day quarantined after the parse (for ``reason``)."""
        self.documents -= n
        self.quarantined_by_reason[reason] = self.quarantined_by_reason.get(reason, 0) + n

    def quarantined(self, spark: SparkSession, max_record_bytes: int) -> DataFrame:
        """The quarantine entries of the parse and of the repeated ids (QUARANTINE)."""
        if self.parse_quarantined:
            found = spark.read.schema(schemas.QUARANTINE).parquet(self.quarantine_dir)
        else:
            found = spark.createDataFrame([], schemas.QUARANTINE)
        return repeats_quarantine(spark, found, self.repeats, max_record_bytes)

    def release(self) -> None:
        """Drop the parse's quarantine part files, once the quarantine is written."""
        shutil.rmtree(self.quarantine_dir, ignore_errors=True)


def read_and_fingerprint(
    spark: SparkSession,
    files: list[str],
    cfg: Config,
    day: str,
    parsed_dir: str,
    buckets_dir: str | None = None,
    quarantine_dir: str | None = None,
) -> DayParse:
    """The given files read and split; one Python task per file, no row through the JVM.

    File i's documents' wide columns go to ``part_file(parsed_dir, i)`` (all its
    documents, repeated ids included), their ids and places and their hosts and line
    keys to its bucket files under ``buckets_dir`` (``parsed_dir`` + ``.buckets`` when
    None), its quarantine entries to ``part_file(quarantine_dir, i)`` (``parsed_dir`` +
    ``.quarantine`` when None; owner-only: they hold raw records). The repeated ids are
    found from the id buckets (``duplicate_ids``: the repeats join the quarantine); the
    boilerplate pass counts the line buckets. The caller calls ``release()`` once the
    quarantine is written.
    """
    sc = spark.sparkContext
    buckets_dir = buckets_dir or f"{parsed_dir}.buckets"
    quarantine_dir = quarantine_dir or f"{parsed_dir}.quarantine"
    buckets = cfg.spark.shuffle_partitions
    Path(parsed_dir).mkdir(parents=True, exist_ok=True)
    for folder in (buckets_dir, quarantine_dir):
        shutil.rmtree(folder, ignore_errors=True)
    for sub in ("ids", "lines"):
        (Path(buckets_dir) / sub).mkdir(parents=True)
    Path(quarantine_dir).mkdir(mode=0o700, parents=True)
    dirs = (parsed_dir, buckets_dir, quarantine_dir)
    tallies = (
        sc.parallelize(list(enumerate(files)), len(files))
        .mapPartitions(lambda it: _parse_files(it, cfg, day, dirs, buckets))
        .collect()
    )
    tally = FileTally()
    for t in tallies:
        tally.add(t)
    repeats = find_repeats(sc, str(Path(buckets_dir) / "ids"), buckets)
    by_reason = dict(tally.quarantined)
    if repeats.count:
        by_reason["duplicate_id"] = by_reason.get("duplicate_id", 0) + repeats.count
    return DayParse(
        lines_dir=str(Path(buckets_dir) / "lines"),
        buckets=buckets,
        documents=tally.documents - repeats.count,
        missing_fetched_at=tally.missing_fetched_at - repeats.missing_fetched_at,
        quarantined_by_reason=by_reason,
        repeats=repeats,
        quarantine_dir=quarantine_dir,
        parse_quarantined=bool(tally.quarantined),
    )
