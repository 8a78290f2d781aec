"""Bucket files: rows a task splits by bucket into one Parquet file, read back one
bucket at a time from every task's file (a row group per bucket, so a reader's filter
skips the others). The candidates stage passes the day's key rows (by key) and its
same-day pairs (by the document's docs file) through them instead of a Spark shuffle.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.pipeline.part_files import PartWriter

# The column of a key bucket file that names each row's bucket: one value per row group.
BUCKET = "bucket"


def key_bucket(key: str, buckets: int) -> int:
    """The bucket of a key, by its first four hex digits, in ranges: bucket ``b`` holds
    the keys from ``b / buckets`` of the hex range to ``(b + 1) / buckets``. Every index
    key starts with hex digits (an md5, a MinHash band, a SimHash block), so a bucket's
    keys of a rule are one contiguous run of that rule's table, and so are the postings
    publish writes from the bucket (work/day_keys, work/postings): its sorted puts land
    on the store's pages (regions) the previous ones touched, where a hash's buckets each
    spread over the whole table (500,000 postings put into an index of 800,000: 0.65x the
    CPU, 0.55x the wall, ``benchmarks/posting_order.py``). A key not starting with four hex
    digits goes by its crc32."""
    head = key[:4]
    if len(head) == 4 and head.isalnum():
        try:
            return (int(head, 16) * buckets) >> 16
        except ValueError:
            pass
    return text_bucket(key, buckets)


def text_bucket(text: str, buckets: int) -> int:
    """The bucket of an id or a host: its crc32 (every task puts a value in the same
    bucket)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % buckets


def write_key_buckets(rows: pa.Table, folder: str, index: int, buckets: int) -> None:
    """Key rows split by key into ``buckets`` buckets: one file of ``folder`` for the task
    (``part-<index>.parquet``, ``index``: the first docs file of the task that read them),
    a bucket's rows in row groups of their own (:func:`write_buckets`). Every row of a
    key, whichever task holds it, lands in the same bucket (:func:`key_bucket`). A day
    writes as many files as probe tasks, whatever ``buckets`` is."""
    keys = rows.column("key").to_pylist()
    of = np.fromiter((key_bucket(k, buckets) for k in keys), np.int64, len(keys))
    write_buckets(rows, Path(folder) / f"part-{index:05d}.parquet", of, buckets)


def write_buckets(rows: pa.Table, path: Path, of: np.ndarray, buckets: int) -> None:
    """``rows`` into one Parquet file, row ``i`` in bucket ``of[i]`` (0 <= of < buckets):
    a bucket's rows in row groups of their own, their bucket in column ``BUCKET``, so a
    reader of one bucket (:func:`read_bucket`) reads only its row groups."""
    # One sort by bucket, then a slice per bucket (not a filter per bucket).
    order = np.argsort(of, kind="stable")
    ordered = rows.take(pa.array(order)).append_column(BUCKET, pa.array(of[order], pa.int32()))
    out = PartWriter(path, ordered.schema)
    start = 0
    for n in np.bincount(of, minlength=buckets).tolist():
        # Each write is a row group: its statistics give the bucket to a reader's filter.
        for batch in ordered.slice(start, n).to_batches():
            out.write(batch)
        start += n
    out.close()


def read_bucket(folder: str, bucket: int) -> list[pa.RecordBatch]:
    """The rows of one bucket, from every task's file: only its row groups are read."""
    found: list[pa.RecordBatch] = []
    for f in sorted(Path(folder).glob("part-*.parquet")):
        table = pq.read_table(f, filters=[(BUCKET, "=", bucket)])
        found += table.drop_columns([BUCKET]).to_batches()
    return found
