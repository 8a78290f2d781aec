"""The day's files read into documents and quarantine entries, fingerprinted on the way.

One task per input file. A task parses, extracts and fingerprints its file's records
in Python and hands them to the JVM as Arrow record batches (``mapInArrow``): no
per-row pickling, and the parsed day is cached once, columnar, for both outputs. A
record or file that cannot be read is a quarantine row, never a failed day; only a
failure of the machine or the install fails the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa
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
from crawldedup.ingest.records import Quarantined, prepare
from crawldedup.pipeline import schemas
from crawldedup.pipeline.duplicate_ids import split_duplicate_ids

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


@dataclass
class DayParse:
    """The day's documents (one per id) and quarantine entries, and their counts, taken
    from the cached parse itself: no output is read back to count it."""

    docs: DataFrame
    quarantined: DataFrame
    documents: int
    missing_fetched_at: int
    quarantined_by_reason: dict[str, int]
    _cached: list[DataFrame]

    @property
    def records_in(self) -> int:
        return self.documents + sum(self.quarantined_by_reason.values())

    def release(self) -> None:
        """Drop the cached parse and repeats, once both outputs are written."""
        for frame in self._cached:
            frame.unpersist()


def read_and_fingerprint(spark: SparkSession, files: list[str], cfg: Config, day: str) -> DayParse:
    """The given files read, fingerprinted and split; one task per file.

    The documents have one record per id (``split_duplicate_ids``: the repeats join the
    quarantine) and carry ``PAGE_COLUMNS`` for the boilerplate pass. The parse is cached
    so that HTML extraction and fingerprinting run once for both outputs and the counts;
    the caller calls ``release()`` when both are written.
    """
    sc = spark.sparkContext
    paths = spark.createDataFrame(sc.parallelize([(f,) for f in files], len(files)), "path string")
    schema = to_arrow_schema(PARSED)
    parsed = paths.mapInArrow(lambda it: _prepare_batches(it, cfg, day, schema), PARSED).persist()
    # The first job parses the day into the cache and counts it.
    tally = (
        parsed.groupBy("kind", "reason")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.count(F.when(~F.col("has_fetched_at"), 1)).alias("missing"),
        )
        .collect()
    )
    docs = parsed.filter(F.col("kind") == "d").select(*schemas.DOCS.fieldNames(), *PAGE_COLUMNS)
    quarantined = parsed.filter(F.col("kind") == "q").select(*schemas.QUARANTINE.fieldNames())
    docs, quarantined, repeats = split_duplicate_ids(docs, quarantined, cfg.limits.max_record_bytes)
    by_reason = {r["reason"]: int(r["n"]) for r in tally if r["kind"] == "q"}
    if repeats.count:
        by_reason["duplicate_id"] = by_reason.get("duplicate_id", 0) + repeats.count
    parsed_docs = [r for r in tally if r["kind"] == "d"]
    return DayParse(
        docs=docs,
        quarantined=quarantined,
        documents=sum(int(r["n"]) for r in parsed_docs) - repeats.count,
        missing_fetched_at=sum(int(r["missing"]) for r in parsed_docs) - repeats.missing_fetched_at,
        quarantined_by_reason=by_reason,
        _cached=[repeats.rows, parsed],
    )
