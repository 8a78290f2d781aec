"""Property-based hostile input (hypothesis): whatever a crawl file holds, reading and
preparing it never raises, every record becomes exactly one row (a document or a
quarantine entry with a known reason), and the rows always encode to Arrow, which is
what the fingerprint stage hands to Spark. A cut compressed file keeps the rows read
before the cut and ends with one ``bad_file`` entry.

The cases the issue found by hand are among the strategies: lone surrogates, 100k nested
arrays, times out of range, wrong types, BOMs, invalid UTF-8, huge numbers.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.config import Config
from crawldedup.ingest.readers import BOM
from crawldedup.ingest.records import QUARANTINE_REASONS
from crawldedup.pipeline.day_input import PARSED, _prepare_file, _to_batch

CFG = Config()
DAY = "2026-11-01"
SCHEMA = to_arrow_schema(PARSED)
FIELDS = ["id", "url", "title", "content", "html", "fetched_at"]

# Text with everything JSON can carry: control characters, lone surrogates, CJK, emoji.
nasty_text = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F9FF, exclude_categories=()),
    max_size=60,
)
json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    nasty_text,
)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(nasty_text, kids, max_size=3),
    max_leaves=8,
)
times = st.one_of(
    st.sampled_from(
        ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+01:00", "2026-11-01", "", "  ", "Z"]
    ),
    st.datetimes().map(lambda d: d.isoformat()),
    nasty_text,
)
article = st.sampled_from(
    ["网页判重：标题相同，内容相同，开头相同，或者结尾相同的文章。", "A plain English page. " * 5]
)


@st.composite
def record(draw: st.DrawFn) -> dict[str, Any]:
    rec: dict[str, Any] = {}
    for name in FIELDS:
        choice = draw(st.integers(0, 3))
        if choice == 1:
            rec[name] = draw(json_value)  # any JSON value, wrong types included
        elif choice >= 2:
            rec[name] = draw(
                {"fetched_at": times, "content": article, "html": nasty_text}.get(name, nasty_text)
            )
    return rec


@st.composite
def line(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 5))
    if kind <= 2:
        return json.dumps(draw(record())).encode("utf-8")  # surrogates come out as \\ud800
    if kind == 3:
        depth = draw(st.sampled_from([10, 1000, 100_000]))
        return b"[" * depth + b"]" * depth  # deep enough to break a recursive parser
    if kind == 4:
        return draw(st.binary(max_size=80)).replace(b"\n", b" ")  # any bytes, bad UTF-8
    return BOM + json.dumps(draw(record()), ensure_ascii=False).encode("utf-8", "surrogatepass")


def _rows(path: Path) -> list[dict[str, Any]]:
    return list(_prepare_file(str(path), CFG, DAY))


def _check_rows(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        assert row["kind"] in ("d", "q"), row
        if row["kind"] == "q":
            assert row["reason"] in QUARANTINE_REASONS, row
    batch = _to_batch(rows, SCHEMA)
    assert isinstance(batch, pa.RecordBatch) and batch.num_rows == len(rows)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(line(), min_size=1, max_size=8))
def test_every_hostile_line_is_one_row_and_nothing_raises(
    tmp_path_factory: Any, lines: list[bytes]
) -> None:
    path = tmp_path_factory.mktemp("hostile") / "part-0.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    rows = _rows(path)
    records = [x for x in lines if x.removeprefix(BOM).strip()]
    assert len(rows) == len(records)
    _check_rows(rows)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(line(), min_size=1, max_size=6), cut=st.floats(0.05, 0.95))
def test_a_cut_gzip_file_keeps_what_came_before_and_says_where(
    tmp_path_factory: Any, lines: list[bytes], cut: float
) -> None:
    data = gzip.compress(b"\n".join(lines) + b"\n")
    path = tmp_path_factory.mktemp("hostile") / "part-0.jsonl.gz"
    path.write_bytes(data[: max(1, int(len(data) * cut))])
    rows = _rows(path)
    records = [x for x in lines if x.removeprefix(BOM).strip()]
    assert len(rows) <= len(records) + 1
    assert rows and rows[-1]["kind"] == "q" and rows[-1]["reason"] == "bad_file"
    _check_rows(rows)
