"""A verdict is one cell (docs/store.md); rows of the layout before 2026-12, a cell a
field, are read the same, and a row holding both reads as its one cell."""

from __future__ import annotations

import json

from crawldedup.store.schema import (
    OLD_VERDICT_CELLS,
    VERDICT_CELL,
    VerdictRecord,
    old_verdict_layout,
)

KEY = "2026-11-02|doc-b"
DUPLICATE = VerdictRecord(
    "doc-b", "duplicate", "lsh", "doc-a", 0.8712345678, "doc-a", "near", "jaccard"
)
UNIQUE = VerdictRecord("doc-b", "unique", None, None, None, "doc-b")
# DUPLICATE as the releases before 2026-12 wrote it: a cell a field, empty for a null.
OLD_DUPLICATE = {
    "v:verdict": b"duplicate",
    "v:group": b"doc-a",
    "v:rule": b"lsh",
    "v:duplicate_of": b"doc-a",
    "v:similarity": b"0.871235",
    "v:type": b"near",
    "v:measure": b"jaccard",
}


def test_a_verdict_is_one_json_cell_read_back_whole() -> None:
    row = DUPLICATE.to_row()
    assert list(row) == [VERDICT_CELL]
    assert json.loads(row[VERDICT_CELL])["duplicate_of"] == "doc-a"
    back = VerdictRecord.from_row(KEY, row)
    assert back.id == "doc-b"
    assert back.similarity == 0.871235  # six digits, as the cells always held
    assert back.as_json() == {**DUPLICATE.as_json(), "similarity": 0.871235}
    assert VerdictRecord.from_row(KEY, UNIQUE.to_row()) == UNIQUE
    assert not old_verdict_layout(row)


def test_a_row_of_the_layout_before_2026_12_reads_the_same() -> None:
    assert set(OLD_DUPLICATE) == {VERDICT_CELL, *OLD_VERDICT_CELLS}
    assert old_verdict_layout(OLD_DUPLICATE)
    assert VerdictRecord.from_row(KEY, OLD_DUPLICATE) == VerdictRecord.from_row(
        KEY, DUPLICATE.to_row()
    )
    unique_old = {c: b"" for c in OLD_VERDICT_CELLS} | {"v:verdict": b"unique", "v:group": b"doc-b"}
    assert VerdictRecord.from_row(KEY, unique_old) == UNIQUE


def test_an_old_row_written_again_reads_as_its_record_not_its_leftover_cells() -> None:
    # A rerun after the upgrade found the page unique: its record is the JSON cell; the
    # old run's rule and target cells (until the publish deletes them) are not read.
    mixed = {**OLD_DUPLICATE, **UNIQUE.to_row()}
    assert VerdictRecord.from_row(KEY, mixed) == UNIQUE
