"""work/docs written from the parse's part files, one task per input file.

The parse (``day_input``) wrote each input file's documents, wide columns and all, to
``parsed/part-NNNNN.parquet``. Once the day-wide steps are known (the repeated ids, the
hosts' boilerplate lines), one Python task per part drops the part's repeated ids,
fingerprints every page once, those that hold their host's boilerplate without it
(``site_boilerplate.fingerprint_pages``), and writes ``docs/part-NNNNN.parquet`` with the
schema Spark reads back: the pages' texts never travel through the JVM.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

from crawldedup.config import Config
from crawldedup.core.boilerplate import HostLines
from crawldedup.pipeline import schemas
from crawldedup.pipeline.day_input import BATCH_ROWS, PARSED
from crawldedup.pipeline.duplicate_ids import with_raw
from crawldedup.pipeline.part_files import PartWriter, part_file
from crawldedup.pipeline.site_boilerplate import fingerprint_pages
from crawldedup.pipeline.work_files import SPARK_SCHEMA_KEY

# work/docs: every column of schemas.DOCS but the raw record, as the parse typed them.
DOC_SCHEMA = StructType([PARSED[n] for n in schemas.DOCS.fieldNames() if n != "raw"])
_DOC_ARROW = to_arrow_schema(DOC_SCHEMA).with_metadata({SPARK_SCHEMA_KEY: DOC_SCHEMA.json()})


def _first_records(table: pa.Table, repeated: set[int]) -> pa.Table:
    """The part's rows but those at a repeated id's position."""
    if not repeated:
        return table
    again = pc.is_in(table.column("position"), pa.array(sorted(repeated), pa.int64()))
    return table.filter(pc.invert(again))


def _repeated_positions(repeats_dir: str | None, source: str) -> set[int]:
    if repeats_dir is None:
        return set()
    found = pq.read_table(repeats_dir, columns=["position"], filters=[("source", "==", source)])
    return set(found.column("position").to_pylist())


def write_part(
    index: int,
    source: str,
    parsed_dir: str,
    docs_dir: str,
    repeats_dir: str | None,
    boiler: dict[str, HostLines],
    cfg: Config,
) -> list[dict[str, Any]]:
    """docs/part-``index`` from parsed/part-``index`` (the input file ``source``); returns
    the quarantine rows (with their raw records) of the pages that could not be
    fingerprinted."""
    table = pq.read_table(part_file(parsed_dir, index))
    table = _first_records(table, _repeated_positions(repeats_dir, source))
    failed: list[dict[str, Any]] = []
    batches = fingerprint_pages(
        iter(table.to_batches(max_chunksize=BATCH_ROWS)), boiler, cfg, failed
    )
    out = PartWriter(part_file(docs_dir, index), _DOC_ARROW)
    for b in batches:
        columns = [b.column(n) for n in DOC_SCHEMA.names]
        out.write(pa.RecordBatch.from_arrays(columns, schema=_DOC_ARROW))
    out.close()
    if not failed:
        return []
    found = pa.RecordBatch.from_pylist(failed, schema=to_arrow_schema(schemas.QUARANTINE))
    return [r for b in with_raw([found], cfg.limits.max_record_bytes) for r in b.to_pylist()]


def write_documents(
    spark: SparkSession,
    cfg: Config,
    files: list[str],
    parsed_dir: str,
    docs_dir: str,
    repeats: list[tuple[str, int]] | None,
    repeats_dir: str,
    boiler: dict[str, HostLines],
) -> list[dict[str, Any]]:
    """work/docs of the day: one part per input file, written by its own task.
    ``repeats``: (source, position) of the repeated ids' records, or None. Returns the quarantine
    rows of the pages that could not be fingerprinted (none, but for a bug)."""
    shutil.rmtree(docs_dir, ignore_errors=True)
    Path(docs_dir).mkdir(parents=True)
    shutil.rmtree(repeats_dir, ignore_errors=True)
    found: str | None = None
    if repeats:
        Path(repeats_dir).mkdir(parents=True)
        places = pa.table(
            {"source": [s for s, _ in repeats], "position": [p for _, p in repeats]},
            pa.schema([("source", pa.string()), ("position", pa.int64())]),
        )
        pq.write_table(places, Path(repeats_dir) / "part-00000.parquet")
        found = repeats_dir
    sc = spark.sparkContext
    shared = sc.broadcast(boiler)

    def parts(pairs: Iterable[tuple[int, str]]) -> Iterator[dict[str, Any]]:
        for i, source in pairs:
            yield from write_part(i, source, parsed_dir, docs_dir, found, shared.value, cfg)

    # Each task gets its own (index, file): the list of files is not in the closure.
    failed = sc.parallelize(list(enumerate(files)), len(files)).mapPartitions(parts).collect()
    shared.unpersist()
    return failed
