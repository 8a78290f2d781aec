"""The day's files read into documents and quarantine entries, fingerprinted on the way.

One task per input file. A task parses, extracts and fingerprints its file's records
in Python, writes its documents' wide columns (texts, term vectors, sketches) to
``work/dt=D/parsed/part-NNNNN.parquet`` itself, its documents' ids and places (repeated
ids) and hosts and line keys (boilerplate) to its bucket files, which Python tasks read
back by bucket, and hands the JVM as Arrow record batches (``mapInArrow``) only what
the counts and the quarantine need. The JVM never carries a page's text or lines. A
record or file that cannot be read is a quarantine row,
never a failed day; only a failure of the machine or the install fails the run.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
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
# What it hands the JVM of every row: the day-wide steps' columns and the quarantine's.
_NARROW_NAMES = ["kind", "id", "source", "position", "has_fetched_at"]
# What it writes of its documents to its bucket files (repeated ids, boilerplate).
PAGE_PLACES = ["id", "source", "position", "has_fetched_at", "host", "line_keys"]
NARROW = StructType(
    [PARSED[n] for n in _NARROW_NAMES] + [PARSED[f.name] for f in _Q_ONLY] + [PARSED["raw"]]
)
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


def _prepare_batches(
    batches: Iterator[pa.RecordBatch],
    cfg: Config,
    day: str,
    parsed_dir: str,
    buckets_dir: str,
    buckets: int,
) -> Iterator[pa.RecordBatch]:
    """Each input file's parse: its documents' wide columns to its part file in
    ``parsed_dir``, their ids and places, and their hosts and line keys, to its bucket
    files in ``buckets_dir`` (``ids``, ``lines``), every row's narrow columns (``NARROW``)
    to the JVM."""
    schema = to_arrow_schema(PARSED)
    wide = pa.schema([schema.field(n) for n in WIDE_COLUMNS])
    narrow = [f.name for f in NARROW.fields]
    for batch in batches:
        for index, path in zip(
            batch.column("i").to_pylist(), batch.column("path").to_pylist(), strict=True
        ):
            out = PartWriter(part_file(parsed_dir, index), wide)
            found: list[pa.RecordBatch] = []
            for parsed in _file_batches(path, cfg, day, schema):
                documents = parsed.filter(pc.equal(parsed.column("kind"), "d"))
                out.write(documents.select(WIDE_COLUMNS))
                found.append(documents.select(PAGE_PLACES))
                yield parsed.select(narrow)
            out.close()
            places = pa.Table.from_batches(found, pa.schema([schema.field(n) for n in PAGE_PLACES]))
            write_id_buckets(places, part_file(Path(buckets_dir) / "ids", index), buckets)
            write_line_buckets(places, part_file(Path(buckets_dir) / "lines", index), buckets)


@dataclass
class DayParse:
    """The day's quarantine entries and the places of its documents' hosts and line keys,
    and their counts, taken from the cached parse itself: no output is read back to
    count it."""

    lines_dir: str  # the line bucket files (site_boilerplate.learn_boilerplate)
    buckets: int
    quarantined: DataFrame
    documents: int
    missing_fetched_at: int
    quarantined_by_reason: dict[str, int]
    repeats: Repeats
    _parsed: DataFrame  # the cached narrow parse

    @property
    def records_in(self) -> int:
        return self.documents + sum(self.quarantined_by_reason.values())

    def add_quarantined(self, reason: str, n: int) -> None:
        """``n`` documents of the day quarantined after the parse (for ``reason``)."""
        self.documents -= n
        self.quarantined_by_reason[reason] = self.quarantined_by_reason.get(reason, 0) + n

    def release(self) -> None:
        """Drop the cached parse, once the quarantine is written."""
        self._parsed.unpersist()


def read_and_fingerprint(
    spark: SparkSession,
    files: list[str],
    cfg: Config,
    day: str,
    parsed_dir: str,
    buckets_dir: str | None = None,
) -> DayParse:
    """The given files read, fingerprinted and split; one task per file.

    File i's documents' wide columns go to ``part_file(parsed_dir, i)`` (all its
    documents, repeated ids included), their ids and places and their hosts and line
    keys to its bucket files under ``buckets_dir`` (``parsed_dir`` + ``.buckets`` when
    None). The repeated ids are found from the id buckets (``duplicate_ids``: the
    repeats join the quarantine); the boilerplate pass counts the line buckets. The
    narrow parse is cached so that parsing runs once for the quarantine and the counts;
    the caller calls ``release()`` once the quarantine is written.
    """
    sc = spark.sparkContext
    buckets_dir = buckets_dir or f"{parsed_dir}.buckets"
    buckets = cfg.spark.shuffle_partitions
    Path(parsed_dir).mkdir(parents=True, exist_ok=True)
    shutil.rmtree(buckets_dir, ignore_errors=True)
    for sub in ("ids", "lines"):
        (Path(buckets_dir) / sub).mkdir(parents=True)
    paths = spark.createDataFrame(
        sc.parallelize(list(enumerate(files)), len(files)), "i int, path string"
    )
    parsed = paths.mapInArrow(
        lambda it: _prepare_batches(it, cfg, day, parsed_dir, buckets_dir, buckets), NARROW
    ).persist()
    # The first job parses the day into the cache and counts it.
    tally = (
        parsed.groupBy("kind", "reason")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.count(F.when(~F.col("has_fetched_at"), 1)).alias("missing"),
        )
        .collect()
    )
    quarantined = parsed.filter(F.col("kind") == "q").select(*schemas.QUARANTINE.fieldNames())
    repeats = find_repeats(sc, str(Path(buckets_dir) / "ids"), buckets)
    quarantined = repeats_quarantine(spark, quarantined, repeats, cfg.limits.max_record_bytes)
    by_reason = {r["reason"]: int(r["n"]) for r in tally if r["kind"] == "q"}
    if repeats.count:
        by_reason["duplicate_id"] = by_reason.get("duplicate_id", 0) + repeats.count
    parsed_docs = [r for r in tally if r["kind"] == "d"]
    return DayParse(
        lines_dir=str(Path(buckets_dir) / "lines"),
        buckets=buckets,
        quarantined=quarantined,
        documents=sum(int(r["n"]) for r in parsed_docs) - repeats.count,
        missing_fetched_at=sum(int(r["missing"]) for r in parsed_docs) - repeats.missing_fetched_at,
        quarantined_by_reason=by_reason,
        repeats=repeats,
        _parsed=parsed,
    )
