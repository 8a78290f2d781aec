"""Repeated ids found from the parse tasks' bucket files (``pipeline.duplicate_ids``),
and the boilerplate pass's line buckets without them (``pipeline.site_boilerplate``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from crawldedup.pipeline.bucket_files import read_bucket
from crawldedup.pipeline.bucket_files import text_bucket as id_bucket
from crawldedup.pipeline.duplicate_ids import (
    repeats_of_bucket,
    write_id_buckets,
)
from crawldedup.pipeline.site_boilerplate import LINE_COLUMNS, _without_repeats, write_line_buckets


def _places(rows: list[tuple[str, str, int, bool, str | None]]) -> pa.Table:
    """(id, source, position, has_fetched_at, host) rows, each page one line key."""
    return pa.Table.from_pylist(
        [
            {
                "id": i,
                "source": s,
                "position": p,
                "has_fetched_at": f,
                "host": h,
                "line_keys": [f"k{p}"],
            }
            for i, s, p, f, h in rows
        ],
        schema=pa.schema(
            [
                ("id", pa.string()),
                ("source", pa.string()),
                ("position", pa.int64()),
                ("has_fetched_at", pa.bool_()),
                ("host", pa.string()),
                ("line_keys", pa.list_(pa.string())),
            ]
        ),
    )


def test_all_but_the_first_record_of_an_id_by_file_then_position_repeat() -> None:
    rows = _places(
        [
            ("a", "f2.jsonl", 0, True, "x"),
            ("a", "f1.jsonl", 9, False, "x"),
            ("b", "f1.jsonl", 1, True, "y"),
            ("a", "f1.jsonl", 3, True, "x"),
        ]
    )
    assert list(repeats_of_bucket(rows.select(["id", "source", "position", "has_fetched_at"]))) == [
        ("f1.jsonl", 9, False, "a"),
        ("f2.jsonl", 0, True, "a"),
    ]


def test_every_record_of_an_id_and_every_page_of_a_host_share_a_bucket(tmp_path: Path) -> None:
    buckets = 4
    first = _places([("a", "f1", 0, True, "x"), ("b", "f1", 1, True, "y")])
    second = _places([("a", "f2", 0, True, "x"), ("c", "f2", 1, True, None)])
    for sub in ("ids", "lines"):
        (tmp_path / sub).mkdir()
    for n, table in enumerate((first, second)):
        write_id_buckets(table, tmp_path / "ids" / f"part-{n:05d}.parquet", buckets)
        write_line_buckets(table, tmp_path / "lines" / f"part-{n:05d}.parquet", buckets)
    ids = pa.Table.from_batches(
        read_bucket(str(tmp_path / "ids"), id_bucket("a", buckets)),
        first.select(["id", "source", "position", "has_fetched_at"]).schema,
    )
    of_a = ids.filter(pa.compute.equal(ids.column("id"), "a"))
    assert sorted(of_a.column("source").to_pylist()) == ["f1", "f2"]
    assert [r for r in repeats_of_bucket(ids) if r[3] == "a"] == [("f2", 0, True, "a")]
    by_bucket = [
        pa.Table.from_batches(
            read_bucket(str(tmp_path / "lines"), b), first.select(LINE_COLUMNS).schema
        )
        for b in range(buckets)
    ]
    assert sum(t.num_rows for t in by_bucket) == 4  # the page without a host too
    of_x = [t for t in by_bucket if "x" in t.column("host").to_pylist()]
    assert len(of_x) == 1 and of_x[0].column("host").to_pylist().count("x") == 2
    kept = pa.Table.from_batches(
        _without_repeats(of_x[0].select(LINE_COLUMNS).to_batches(), {("f2", 0)})
    )
    assert [
        (h, s)
        for h, s in zip(
            kept.column("host").to_pylist(), kept.column("source").to_pylist(), strict=True
        )
        if h == "x"
    ] == [("x", "f1")]
