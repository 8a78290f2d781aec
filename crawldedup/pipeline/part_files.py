"""Part files: the Parquet files the stages' Python tasks write themselves, one per
input file, docs file or bucket, each written whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def part_file(folder: str | Path, index: int) -> Path:
    """Part ``index`` of a folder the stages' Python tasks write, one per input file."""
    return Path(folder) / f"part-{index:05d}.parquet"


def parts_alike(folder: Path, other: Path) -> bool:
    """Whether two folders hold part files of the same names (part ``i`` of one beside
    part ``i`` of the other), at least one."""
    names = {p.name for p in folder.glob("*.parquet")}
    return bool(names) and names == {p.name for p in other.glob("*.parquet")}


class PartWriter:
    """One Parquet part file written by a task: under a hidden name (which Spark's
    readers skip) until ``close()`` renames it, so a retried or speculative task
    replaces the whole file and no reader sees half of one."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self._tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self._writer = pq.ParquetWriter(self._tmp, schema, use_dictionary=False)

    def write(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows:
            self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()
        os.replace(self._tmp, self.path)
