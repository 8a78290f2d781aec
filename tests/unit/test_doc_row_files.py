"""The publish stage's document rows from the work files (``pipeline.doc_row_files``):
each document with its verdict, its group and whether it is a group's canonical."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.pipeline.decision_files import DECISIONS_ARROW
from crawldedup.pipeline.doc_row_files import read_groups, rows_of_file


def _decisions(rows: list[tuple[str, str, str | None]]) -> pa.Table:
    """(id, verdict, duplicate_of) rows."""
    return pa.Table.from_pylist(
        [
            {
                "id": i,
                "verdict": v,
                "rule": "title" if t else None,
                "duplicate_of": t,
                "similarity": 0.9 if t else None,
                "measure": "jaccard" if t else None,
                "type": "near" if t else None,
            }
            for i, v, t in rows
        ],
        schema=DECISIONS_ARROW,
    )


def test_rows_carry_verdict_group_and_canonical_sorted_by_id(tmp_path: Path) -> None:
    docs = pa.table({"id": ["d3", "d1", "d2"], "url": ["u3", "u1", "u2"]})
    # Decisions in another order than the documents: matched by id.
    decisions = _decisions(
        [("d1", "unique", None), ("d2", "duplicate", "d1"), ("d3", "unique", None)]
    )
    pq.write_table(pa.table({"id": ["d2"], "group": ["d1"]}), tmp_path / "part-00000.parquet")
    groups = read_groups(str(tmp_path))
    assert groups == {"d2": "d1"}
    got = rows_of_file(docs, decisions, groups).to_pylist()
    assert [r["id"] for r in got] == ["d1", "d2", "d3"]
    assert [r["url"] for r in got] == ["u1", "u2", "u3"]
    assert [(r["verdict"], r["duplicate_of"], r["group"], r["is_canon"]) for r in got] == [
        ("unique", None, None, True),
        ("duplicate", "d1", "d1", False),
        ("unique", None, None, False),
    ]


def test_an_empty_docs_file_gives_no_row() -> None:
    docs = pa.table({"id": pa.array([], pa.string())})
    assert rows_of_file(docs, _decisions([]), {}).num_rows == 0
