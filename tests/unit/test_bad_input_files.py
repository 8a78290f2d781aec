"""One bad record or file never fails the day (issue 16, items 1, 4, 7, 8 and the BOM).

Every case is a real bad file written to ``tmp_path``: a gzip stream cut short, a ``.gz``
that is no gzip, a Parquet file with bytes of one dictionary page overwritten, JSON with a
lone surrogate or 100,000 nested arrays, a WARC record cut mid-body, a symlink to a file
outside the day. The records read before a break keep their rows; the break is one
quarantine entry with the reason, the file, the position and what was read of it.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawldedup.config import Config
from crawldedup.ingest.readers import (
    SKIP_REASONS,
    InputFileError,
    RawRecord,
    file_format,
    is_input_file,
    read_file,
    select_input_files,
)
from crawldedup.ingest.records import QUARANTINE_REASONS, Quarantined, prepare
from crawldedup.pipeline.day_input import (
    PARSED,
    RAW_KEY,
    _prepare_file,
    _prepare_one,
    _to_batch,
)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-11-02"
MAX = 1 << 20
TEXT = "城市马拉松比赛吸引了来自全国各地的两万多名跑者参加，组委会在沿途设置了二十个补给站。"


def record(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"r{i}",
        "url": f"https://news.example/{i}",
        "title": f"标题 {i}",
        "content": f"{TEXT} 第{i}篇。",
        "fetched_at": "2026-11-02T08:00:00Z",
        **extra,
    }


def jsonl(records: list[dict[str, Any] | str]) -> bytes:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return ("\n".join(lines) + "\n").encode("utf-8")


def read(path: Path) -> list[RawRecord]:
    return list(read_file(str(path), MAX))


def good(recs: list[RawRecord]) -> list[int]:
    return [r.position for r in recs if r.error is None]


def bad(recs: list[RawRecord]) -> list[tuple[int, str | None]]:
    return [(r.position, r.error) for r in recs if r.error is not None]


def prepared(path: Path) -> list[dict[str, Any]]:
    return list(_prepare_file(str(path), Config().validate(), DAY))


# --- compressed JSON Lines cut short or not compressed at all -----------------------


def test_a_truncated_jsonl_gz_keeps_the_lines_before_the_break(tmp_path: Path) -> None:
    data = gzip.compress(jsonl([record(i) for i in range(1, 201)]))
    path = tmp_path / "part-0.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    recs = read(path)
    kept = good(recs)
    assert kept == list(range(1, len(kept) + 1)) and len(kept) > 50
    [(position, reason)] = bad(recs)
    assert (position, reason) == (len(kept) + 1, "bad_file")
    brk = recs[-1]
    assert brk.source == str(path)
    assert brk.detail.startswith("EOFError: Compressed file ended")
    assert f"unreadable after line {len(kept)}" in brk.detail
    # What was read of the line at the break is kept for the quarantine.
    assert brk.raw and json.dumps(record(position), ensure_ascii=False).startswith(brk.raw)
    rows = prepared(path)
    assert [r["kind"] for r in rows] == ["d"] * len(kept) + ["q"]


def test_a_gz_that_is_not_gzip_is_one_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl.gz"
    path.write_bytes(jsonl([record(1), record(2)]))  # plain text under a .gz name
    [rec] = read(path)
    assert (rec.position, rec.error) == (1, "bad_file")
    assert rec.detail.startswith("BadGzipFile: Not a gzipped file")


def test_gzip_with_garbage_after_its_members_keeps_every_record(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl.gz"
    path.write_bytes(gzip.compress(jsonl([record(1)])) + gzip.compress(jsonl([record(2)])) + b"xx")
    recs = read(path)
    assert good(recs) == [1, 2]
    assert bad(recs) == [(3, "bad_file")]


def test_bz2_is_read_and_a_truncated_bz2_keeps_what_was_read(tmp_path: Path) -> None:
    whole = tmp_path / "a.jsonl.bz2"
    whole.write_bytes(bz2.compress(jsonl([record(1), record(2)])))
    assert good(read(whole)) == [1, 2]
    # bz2 decompresses whole blocks: a cut loses its stream's block, not what came before
    # (here a first stream, as ``cat a.bz2 b.bz2`` or a parallel compressor writes them).
    cut = tmp_path / "b.jsonl.bz2"
    second = bz2.compress(jsonl([record(i) for i in range(3, 101)]))
    cut.write_bytes(bz2.compress(jsonl([record(1), record(2)])) + second[: len(second) // 2])
    recs = read(cut)
    assert good(recs) == [1, 2]
    assert bad(recs) == [(3, "bad_file")]
    assert recs[-1].detail.startswith("EOFError")


# --- Parquet with a corrupt page ------------------------------------------------------


def _parquet(path: Path, rows: int, group: int) -> pq.FileMetaData:
    table = pa.Table.from_pylist([record(i) for i in range(1, rows + 1)])
    pq.write_table(table, path, row_group_size=group, use_dictionary=True)
    return pq.ParquetFile(path).metadata


def test_a_corrupt_dictionary_page_loses_only_its_row_group(tmp_path: Path) -> None:
    path = tmp_path / "part-0.parquet"
    meta = _parquet(path, 30, 10)
    column = [meta.schema.column(c).name for c in range(meta.num_columns)].index("title")
    offset = meta.row_group(1).column(column).dictionary_page_offset
    data = bytearray(path.read_bytes())
    for i in range(offset, offset + 24):  # the page header: thrift can no longer read it
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    recs = read(path)
    assert good(recs) == list(range(1, 11)) + list(range(21, 31))
    assert bad(recs) == [(11, "bad_file")]
    assert "row group 1: rows 11-20 unreadable" in recs[10].detail
    assert recs[11].data is not None and recs[11].data["id"] == "r21"  # positions = row numbers


def test_a_parquet_row_of_bad_utf8_is_one_bad_encoding(tmp_path: Path) -> None:
    path = tmp_path / "part-0.parquet"
    table = pa.Table.from_pylist([record(1), record(2, title="wörld-title"), record(3)])
    pq.write_table(table, path, use_dictionary=False, compression="none", write_statistics=False)
    data = bytearray(path.read_bytes())
    at = data.find("wörld".encode())
    data[at + 1 : at + 3] = b"\xff\xfe"
    path.write_bytes(bytes(data))
    recs = read(path)
    assert good(recs) == [1, 3]
    assert bad(recs) == [(2, "bad_encoding")]


# --- JSON that json.loads accepts but nothing after it can use --------------------------


def test_hostile_json_lines_are_quarantined_and_the_rest_read(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl"
    path.write_bytes(
        jsonl(
            [
                record(1),
                '{"id": "s1", "title": "\\ud800", "content": "text"}',  # a lone surrogate
                '{"id": "s2", "content": "' + TEXT + '\\udfff"}',
                "[" * 100_000 + "]" * 100_000,  # RecursionError in json.loads
                '{"id": "n1", "content": [' + "[" * 100_000 + "]" * 100_000 + "]}",
                '{"id": "big", "n": ' + "9" * 5000 + "}",  # over int's 4300 digits
                '{"id": "pair", "title": "\\ud83d\\ude00", "content": "' + TEXT + '"}',
                record(8),
            ]
        )
    )
    recs = read(path)
    assert good(recs) == [1, 7, 8]
    assert bad(recs) == [
        (2, "bad_encoding"),
        (3, "bad_encoding"),
        (4, "bad_json"),
        (5, "bad_json"),
        (6, "bad_json"),
    ]
    assert "lone surrogate" in recs[1].detail and "'title'" in recs[1].detail
    assert recs[3].detail == "nested too deeply to parse"
    assert recs[6].data is not None and recs[6].data["title"] == "\U0001f600"  # a real pair
    rows = prepared(path)
    assert [r["kind"] for r in rows] == ["d", "q", "q", "q", "q", "q", "d", "d"]
    # documents keep theirs in Python only (RAW_KEY), for a row Arrow refuses
    assert all(r.get("raw", r.get(RAW_KEY)) is not None for r in rows)  # everything kept
    _to_batch(rows, _arrow_schema())  # and all of it goes into Arrow


@pytest.mark.parametrize(
    "fetched_at",
    [
        "9999-12-31T23:00:00-05:00",  # year 10000 in UTC: OverflowError before
        "0001-01-01T00:30:00+01:00",  # year 0 in UTC
        "10000-01-01T00:00:00Z",
        "2026-13-01T00:00:00Z",
    ],
)
def test_a_fetched_at_out_of_range_is_bad_fetched_at(fetched_at: str) -> None:
    data = record(1, fetched_at=fetched_at)
    out = prepare(RawRecord("d.jsonl", 1, data, json.dumps(data)), Config().validate(), DAY)
    assert isinstance(out, Quarantined)
    assert out.reason == "bad_fetched_at"


def test_early_years_keep_four_digits_so_times_sort() -> None:
    data = record(1, fetched_at="0999-06-01T00:00:00Z")
    out = prepare(RawRecord("d.jsonl", 1, data, json.dumps(data)), Config().validate(), DAY)
    assert isinstance(out, dict)
    assert out["fetched_at"] == "0999-06-01T00:00:00.000000Z"


def test_a_bom_before_the_first_record_is_not_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + jsonl([record(1), record(2)]))
    recs = read(path)
    assert good(recs) == [1, 2] and not bad(recs)
    assert recs[0].raw.startswith('{"id"')
    # Files concatenated with cat: a BOM at the start of a later line as well.
    cat = tmp_path / "cat.jsonl.gz"
    cat.write_bytes(
        gzip.compress(b"\xef\xbb\xbf" + jsonl([record(1)]) + b"\xef\xbb\xbf" + jsonl([record(2)]))
    )
    assert good(read(cat)) == [1, 2]


def test_a_last_line_without_newline_is_a_record(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl"
    path.write_bytes(jsonl([record(1)]) + b"\r\n" + json.dumps(record(2)).encode())
    recs = read(path)
    assert good(recs) == [1, 3] and not bad(recs)


def test_a_record_whose_preparation_raises_is_bad_record() -> None:
    """A reader-made record Python cannot hash (a lone surrogate reaching md5)."""
    data = {"id": "x", "title": "t", "content": "text \ud800 more"}
    row = _prepare_one(RawRecord("d.jsonl", 4, data, "{}"), Config().validate(), DAY)
    assert row["kind"] == "q" and row["reason"] == "bad_record"
    assert row["detail"].startswith("UnicodeEncodeError")
    assert (row["source"], row["position"]) == ("d.jsonl", 4)


def _arrow_schema() -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(PARSED)


def test_a_row_arrow_refuses_becomes_bad_record_and_the_batch_goes_on() -> None:
    cfg = Config().validate()
    rows = [_prepare_one(RawRecord("d.jsonl", i, record(i), "{}"), cfg, DAY) for i in (1, 2, 3)]
    rows[1]["url"] = "https://x.example/\udcff"  # a str Arrow cannot encode
    batch = _to_batch(rows, _arrow_schema()).to_pylist()
    assert [r["kind"] for r in batch] == ["d", "q", "d"]
    assert batch[1]["reason"] == "bad_record" and batch[1]["position"] == 2
    assert batch[1]["raw"] == "{}"  # the document's raw record, kept in Python, is not lost
    assert batch[0]["raw"] is None  # a document's raw never goes into the parse


# --- WARC records cut short -------------------------------------------------------------

HTML = "<html><head><title>页面</title></head><body>" + f"<p>{TEXT}</p>" * 40 + "</body></html>"


def warc_record(uri: str, html: str = HTML) -> bytes:
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html.encode()
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"WARC-Date: 2026-11-02T08:00:00Z\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
        + b"\r\n\r\n"
    )


@pytest.mark.parametrize("compressed", [False, True], ids=["warc", "warc.gz"])
def test_a_warc_record_cut_mid_body_is_bad_warc_not_a_short_page(
    tmp_path: Path, compressed: bool
) -> None:
    first, second = warc_record("https://a.example/1"), warc_record("https://a.example/2")
    cut = second[: len(second) // 2]
    if compressed:
        path = tmp_path / "part-0.warc.gz"
        path.write_bytes(gzip.compress(first) + gzip.compress(cut))
    else:
        path = tmp_path / "part-0.warc"
        path.write_bytes(first + cut)
    recs = read(path)
    assert good(recs) == [1]
    assert bad(recs) == [(2, "bad_warc")]
    assert re.fullmatch(r"record cut short: \d+ of \d+ bytes \(Content-Length\)", recs[1].detail)
    kept = json.loads(recs[1].raw)  # what was read of the page, for the quarantine
    assert kept["url"] == "https://a.example/2" and kept["html"].startswith("<html>")


@pytest.mark.parametrize("cut", [20, 90], ids=["in-warc-headers", "after-headers"])
def test_a_warc_cut_before_its_body_is_bad_warc(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "part-0.warc"
    path.write_bytes(warc_record("https://a.example/1") + warc_record("https://a.example/2")[:cut])
    recs = read(path)
    assert good(recs) == [1]
    assert bad(recs) == [(2, "bad_warc")]


def test_a_gzip_member_cut_before_any_record_is_bad_warc(tmp_path: Path) -> None:
    path = tmp_path / "part-0.warc.gz"
    second = gzip.compress(warc_record("https://a.example/2"))
    path.write_bytes(gzip.compress(warc_record("https://a.example/1")) + second[:30])
    recs = read(path)
    assert good(recs) == [1]
    assert bad(recs) == [(2, "bad_warc")]
    assert "no complete WARC record" in recs[1].detail


@pytest.mark.parametrize("compressed", [False, True], ids=["warc", "warc.gz"])
def test_every_cut_of_a_warc_record_is_bad_warc_or_the_whole_page(
    tmp_path: Path, compressed: bool
) -> None:
    """Cut the second record anywhere: never a short page, never a silent loss."""
    first, second = warc_record("https://a.example/1"), warc_record("https://a.example/2")
    if compressed:
        first, second = gzip.compress(first), gzip.compress(second)
    path = tmp_path / ("part-0.warc.gz" if compressed else "part-0.warc")
    step = 3 if compressed else 23
    for cut in [*range(1, len(second), step), len(second) - 1]:
        path.write_bytes(first + second[:cut])
        recs = read(path)
        assert good(recs)[:1] == [1] and len(recs) == 2, cut
        last = recs[1]
        if last.error is None:  # only the blank lines or the gzip trailer were cut
            assert last.data is not None and last.data["html"] == HTML, cut
        else:
            assert last.error == "bad_warc", cut


def test_whole_warcs_have_no_bad_entries(tmp_path: Path) -> None:
    both = warc_record("https://a.example/1") + warc_record("https://a.example/2")
    plain, gz, bzipped = tmp_path / "a.warc", tmp_path / "b.warc.gz", tmp_path / "c.warc.bz2"
    plain.write_bytes(both + b"\r\n")
    gz.write_bytes(gzip.compress(both[: len(both) // 2]) + gzip.compress(both[len(both) // 2 :]))
    bzipped.write_bytes(bz2.compress(both))
    for path in (plain, gz, bzipped):
        recs = read(path)
        assert good(recs) == [1, 2] and not bad(recs), path.name


# --- which files are read ---------------------------------------------------------------


def _day(tmp_path: Path) -> Path:
    day = tmp_path / f"dt={DAY}"
    (day / "sub").mkdir(parents=True)
    line = jsonl([record(1)])
    for name in ("part-0.jsonl", "PART-1.JSONL", "part-2.ndjson", "sub/part-3.Json"):
        (day / name).write_bytes(line)
    (day / "part-4.jsonl.gz").write_bytes(gzip.compress(line))
    (day / "part-5.NDJSON.GZ").write_bytes(gzip.compress(line))
    (day / "part-6.jsonl.bz2").write_bytes(bz2.compress(line))
    for name in ("_temporary/0/part-9.jsonl", ".staging/part-9.jsonl", "sub/_tmp/x.parquet"):
        (day / name).parent.mkdir(parents=True, exist_ok=True)
        (day / name).write_bytes(line)
    (day / "_SUCCESS").touch()
    (day / ".part-7.jsonl").write_bytes(line)  # a crawler's file still being written
    (day / "notes.txt").write_text("x")
    (day / "part-8.csv").write_text("id\n1\n")
    (day / "part-8.gz").write_bytes(gzip.compress(line))  # compressed what?
    outside = tmp_path / "passwd"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (day / "passwd.jsonl").symlink_to(outside)
    (day / "linked").symlink_to(tmp_path, target_is_directory=True)
    (day / "inner.jsonl").symlink_to(day / "part-0.jsonl")  # inside the folder: still a link
    os.mkfifo(day / "pipe.jsonl")
    return day


def test_selection_reads_its_formats_and_counts_every_skip(tmp_path: Path) -> None:
    day = _day(tmp_path)
    sel = select_input_files(day)
    assert [str(p.relative_to(day)) for p in sel.files] == [
        "PART-1.JSONL",
        "part-0.jsonl",
        "part-2.ndjson",
        "part-4.jsonl.gz",
        "part-5.NDJSON.GZ",
        "part-6.jsonl.bz2",
        "sub/part-3.Json",
    ]
    assert dict(sel.skipped) == {
        ".part-7.jsonl": "hidden",
        ".staging/part-9.jsonl": "hidden",
        "_SUCCESS": "hidden",
        "_temporary/0/part-9.jsonl": "hidden",
        "inner.jsonl": "symlink",
        "linked": "symlink",
        "notes.txt": "unknown_extension",
        "part-8.csv": "unknown_extension",
        "part-8.gz": "unknown_extension",
        "passwd.jsonl": "symlink",
        "pipe.jsonl": "not_regular_file",
        "sub/_tmp/x.parquet": "hidden",
    }
    assert sel.skipped_counts() == {
        "hidden": 5,
        "not_regular_file": 1,
        "symlink": 3,
        "unknown_extension": 3,
    }
    for path in sel.files:
        assert good(read(path)) == [1], path
    assert not is_input_file(day / "_temporary/0/part-9.jsonl", day)
    assert not is_input_file(day / "passwd.jsonl", day)
    assert is_input_file(day / "sub/part-3.Json", day)


def test_a_non_utf8_file_name_is_skipped_not_a_crash(tmp_path: Path) -> None:
    day = tmp_path / "day"
    day.mkdir()
    (day / "ok.jsonl").write_bytes(jsonl([record(1)]))
    os.close(os.open(os.fsencode(day) + b"/bad-\xff.jsonl", os.O_CREAT | os.O_WRONLY, 0o600))
    sel = select_input_files(day)
    assert [p.name for p in sel.files] == ["ok.jsonl"]
    assert sel.skipped == [("bad-\\udcff.jsonl", "bad_name")]
    json.dumps(sel.skipped_listing()).encode("utf-8")  # the stats file can hold it


def test_a_symlink_or_fifo_given_to_the_reader_is_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "passwd"
    secret.write_text('{"id": "root", "content": "root:x:0:0"}\n')
    link = tmp_path / "passwd.jsonl"
    link.symlink_to(secret)
    [rec] = read(link)  # e.g. the file was swapped for a link after it was listed
    assert (rec.position, rec.error, rec.raw) == (0, "bad_file", "")
    assert "symbolic link" in rec.detail
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    [rec] = read(fifo)  # does not block waiting for a writer
    assert (rec.error, rec.detail) == ("bad_file", "not a regular file")


def test_file_format_by_name() -> None:
    assert file_format("a.JSONL.GZ") == ("jsonl", "gzip")
    assert file_format("a.ndjson.bz2") == ("jsonl", "bz2")
    assert file_format("a.warc.gz") == ("warc", "gzip")
    assert file_format("a.snappy.parquet") == ("parquet", None)
    assert file_format("a.parquet.gz") is None
    assert file_format("a.gz") is None
    assert file_format("a.txt") is None


# --- a failure that is the machine's, not the file's ----------------------------------


def test_a_vanished_file_fails_with_one_line_naming_it(tmp_path: Path) -> None:
    gone = tmp_path / "gone.parquet"
    with pytest.raises(InputFileError) as info:
        prepared(gone)
    assert str(info.value).startswith(f"{gone}: FileNotFoundError: [Errno 2]")
    assert isinstance(info.value.__cause__, FileNotFoundError)
    assert "\n" not in str(info.value)


# --- documented -------------------------------------------------------------------------


def test_every_reason_has_a_row_in_the_input_contract() -> None:
    # docs/input.md holds the input contract: one table row per quarantine and skip reason.
    text = (ROOT / "docs" / "input.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    reasons = set(QUARANTINE_REASONS) | set(SKIP_REASONS)
    assert not reasons - documented, sorted(reasons - documented)
