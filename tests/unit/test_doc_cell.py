"""A document row is one packed cell (docs/store.md); rows of the layout before 2026-12,
a cell a field, read the same, and a row holding both reads as its packed cell."""

from __future__ import annotations

import json

import pytest

from crawldedup.store.schema import (
    DOC_CELL,
    DOC_FIELDS,
    INDEX_FIELDS,
    doc_fields,
    doc_row,
    pack_doc,
    unpack_doc,
)

SKETCH = "".join(f"{v:016x}" for v in (3, 17, 2**63 + 5, 2**64 - 1))
ROW = doc_row(
    url="https://例子.cn/a?b=1",
    title="标题 | title",
    day="2026-11-02",
    fetched_at="2026-11-02T03:04:05Z",
    keys={"content_md5": "a" * 32, "lsh": ["b" * 32, "c" * 32]},
    simhash="0123456789abcdef",
    tf_json='{"词":2,"word":1}',
    group="doc-a",
    raw_md5="d" * 32,
    sketch=SKETCH,
    length=1234,
    own_sketch=None,
)
# ROW as the releases before 2026-12 wrote it: a cell a field.
OLD_ROW = {
    "m:url": "https://例子.cn/a?b=1".encode(),
    "m:title": "标题 | title".encode(),
    "m:day": b"2026-11-02",
    "m:fetched_at": b"2026-11-02T03:04:05Z",
    "m:keys": json.dumps(
        {"content_md5": "a" * 32, "lsh": ["b" * 32, "c" * 32]}, sort_keys=True
    ).encode(),
    "m:simhash": b"0123456789abcdef",
    "m:group": b"doc-a",
    "m:raw_md5": b"d" * 32,
    "v:tf": '{"词":2,"word":1}'.encode(),
    "v:sketch": SKETCH.encode(),
    "v:own": b"",
    "m:length": b"1234",
}


def test_a_document_is_one_cell_with_a_binary_sketch() -> None:
    assert list(ROW) == [DOC_CELL]
    # Sketches in binary: 8 bytes a hash, where the old cell held 16 hex digits.
    assert len(ROW[DOC_CELL]) < sum(len(v) for v in OLD_ROW.values()) - len(SKETCH) // 2 + 60
    assert SKETCH.encode() not in ROW[DOC_CELL]


def test_both_layouts_read_the_same_fields() -> None:
    assert doc_fields(ROW) == OLD_ROW
    assert doc_fields(OLD_ROW) == OLD_ROW
    assert set(OLD_ROW) == set(DOC_FIELDS)


def test_a_row_holding_both_layouts_reads_as_its_packed_cell() -> None:
    stale = {**OLD_ROW, "m:group": b"doc-old", "m:title": b"old title"}
    assert doc_fields({**stale, **ROW}) == OLD_ROW


def test_a_forgotten_documents_index_fields_are_absent_not_empty() -> None:
    kept = {c: v for c, v in OLD_ROW.items() if c not in INDEX_FIELDS}
    back = unpack_doc(pack_doc(kept))
    assert back == kept
    assert "m:keys" not in back and "v:own" not in back
    assert back["m:url"] == OLD_ROW["m:url"]


def test_a_cell_of_an_unknown_layout_is_refused() -> None:
    cell = bytearray(ROW[DOC_CELL])
    cell[0] = 9
    with pytest.raises(ValueError, match="unknown layout"):
        unpack_doc(bytes(cell))
