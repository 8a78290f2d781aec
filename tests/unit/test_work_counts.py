"""DayContext.counts: a work folder's rows tallied by the driver, no Spark job."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.stage_registry import DECISIONS


def test_rows_are_counted_per_distinct_values_across_files_nulls_included(
    tmp_path: Path,
) -> None:
    ctx = DayContext(day="2026-11-01", home=tmp_path, cfg=Config(), stage="similarity")
    folder = ctx.folder(DECISIONS)
    folder.mkdir(parents=True)
    schema = pa.schema([("id", pa.string()), ("rule", pa.string()), ("type", pa.string())])
    parts = [
        [("a", None, None), ("b", "lsh", "near"), ("c", "lsh", "near")],
        [("d", "lsh", "partial"), ("e", None, None), ("f", "title", "near")],
        [],
    ]
    for i, rows in enumerate(parts):
        columns = list(zip(*rows, strict=True)) or [[], [], []]
        table = pa.table([pa.array(c, pa.string()) for c in columns], schema=schema)
        pq.write_table(table, folder / f"part-{i}.parquet")
    (folder / "_SUCCESS").touch()
    assert sorted(ctx.counts(DECISIONS, ["rule", "type"]), key=str) == sorted(
        [(None, None, 2), ("lsh", "near", 2), ("lsh", "partial", 1), ("title", "near", 1)],
        key=str,
    )
    assert len(ctx.counts(DECISIONS, ["rule"])) == 3


def test_a_folder_without_files_counts_nothing(tmp_path: Path) -> None:
    ctx = DayContext(day="2026-11-01", home=tmp_path, cfg=Config(), stage="similarity")
    assert ctx.counts(DECISIONS, ["rule", "type"]) == []
