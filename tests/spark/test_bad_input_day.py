"""A good day mixed with every kind of bad file still gets its verdicts (issue 16).

One day folder holds good records in several formats next to a truncated ``.jsonl.gz``, a
``.gz`` that is no gzip, a Parquet file with a corrupt dictionary page, hostile JSON lines
(a lone surrogate, 100,000 nested arrays, a ``fetched_at`` out of range), a BOM, a WARC
record cut mid-body, a symlink to a file outside the day and ``_temporary/``/``.staging/``
folders. The stages run in the shared session: every good record gets one verdict, every
break one quarantine line, the skipped files are counted and the quarantine is owner-only.
"""

from __future__ import annotations

import bz2
import gzip
import json
import stat
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawldedup.config import Config
from crawldedup.pipeline import (
    bloom_stage,
    candidates_stage,
    day_input,
    fingerprint_stage,
    publish_stage,
    similarity_stage,
)
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import StageFailed
from crawldedup.stage_registry import DOCS
from crawldedup.store import open_store

DAY = "2026-11-02"
TEXTS = [
    "今年秋季的城市马拉松比赛吸引了来自全国各地的两万多名跑者参加，组委会在沿途设置了二十个补给站。",
    "市图书馆新馆昨日正式对外开放，馆内藏书超过一百万册，并设有少儿阅览区和数字资源体验区。",
    "气象部门发布寒潮预警，预计未来三天全省大部分地区气温将下降八到十度，并伴有大风天气。",
]


def rec(rid: str, n: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "url": f"https://news.example/{rid}",
        "title": f"新闻 {rid}",
        "content": f"{TEXTS[n % len(TEXTS)]} 编号{rid}，第{n}条。" * 3,
        "fetched_at": f"2026-11-02T{n % 24:02d}:00:00Z",
        **extra,
    }


def lines(records: list[dict[str, Any] | str]) -> bytes:
    out = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return ("\n".join(out) + "\n").encode("utf-8")


def warc(uri: str, html: str) -> bytes:
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html.encode()
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"WARC-Date: 2026-11-02T09:00:00Z\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
        + b"\r\n\r\n"
    )


def bad_day(root: Path) -> tuple[Path, set[str]]:
    """The day folder and the ids of its good records."""
    day = root / f"dt={DAY}"
    day.mkdir(parents=True)
    good: set[str] = set()

    def keep(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        good.update(r["id"] for r in records)
        return records

    # JSON Lines with a BOM and hostile lines between good ones.
    (day / "part-00000.jsonl").write_bytes(
        b"\xef\xbb\xbf"
        + lines(
            [
                *keep([rec("j1", 1), rec("j2", 2)]),
                '{"id": "sur", "title": "\\ud800", "content": "text"}',
                "[" * 100_000 + "]" * 100_000,
                json.dumps(rec("late", 3, fetched_at="9999-12-31T23:00:00-05:00")),
                *keep([rec("j3", 4)]),
            ]
        )
    )
    # A gzip of two members, the second cut inside its header: nothing of it decompresses.
    second = gzip.compress(lines([rec("lost1", 5), rec("lost2", 6)]))
    (day / "part-00001.jsonl.gz").write_bytes(
        gzip.compress(lines(keep([rec("g1", 7), rec("g2", 8), rec("g3", 9)]))) + second[:12]
    )
    (day / "part-00002.jsonl.gz").write_bytes(lines([rec("plain", 10)]))  # not gzip
    # Parquet, three row groups of four; the second group's dictionary page is garbage.
    rows = [rec(f"p{i}", 20 + i) for i in range(12)]
    path = day / "part-00003.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=4, use_dictionary=True)
    meta = pq.ParquetFile(path).metadata
    title = [meta.schema.column(c).name for c in range(meta.num_columns)].index("title")
    offset = meta.row_group(1).column(title).dictionary_page_offset
    data = bytearray(path.read_bytes())
    for i in range(offset, offset + 24):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    keep(rows[:4] + rows[8:])
    # WARC: one whole page, then one cut mid-body.
    html = "<html><head><title>寒潮预警</title></head><body><article>" + "".join(
        f"<p>{t}</p>" for t in TEXTS * 4
    )
    html += "</article></body></html>"
    cut = warc("https://news.example/w2", html)
    (day / "part-00004.warc.gz").write_bytes(
        gzip.compress(warc("https://news.example/w1", html)) + gzip.compress(cut[: len(cut) // 2])
    )
    # Names the old rule ignored or read wrongly.
    (day / "PART-00005.NDJSON").write_bytes(lines(keep([rec("nd1", 30)])))
    (day / "part-00006.jsonl.bz2").write_bytes(bz2.compress(lines(keep([rec("bz1", 31)]))))
    for hidden in ("_temporary/0/part-00000.jsonl", ".staging/part-00000.jsonl"):
        (day / hidden).parent.mkdir(parents=True)
        (day / hidden).write_bytes(lines([rec("j1", 40), rec("tmp", 41)]))
    (day / "_SUCCESS").touch()
    (day / "notes.txt").write_text("crawler notes\n")
    secret = root / "passwd"
    secret.write_text(json.dumps(rec("secret", 42)) + "\n")
    (day / "passwd.jsonl").symlink_to(secret)
    return day, good


@pytest.fixture
def cfg() -> Config:
    return Config().replace(
        **{"spark.shuffle_partitions": 4, "bloom.min_capacity": 1000, "bloom.scan_splits": 2}
    )


def test_a_day_with_every_bad_file_gets_a_verdict_for_every_good_record(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    day, good = bad_day(tmp_path / "in")
    home = tmp_path / "home"
    ctx = DayContext(day=DAY, home=home, cfg=cfg, input_dir=day)
    stats = fingerprint_stage.run(spark, ctx)
    for mod in (bloom_stage, candidates_stage, similarity_stage, publish_stage):
        mod.run(spark, ctx)

    # The WARC page that was read whole is a document, with a derived id.
    docs = {r["id"]: r for r in spark.read.parquet(ctx.path(DOCS)).collect()}
    warc_ids = {i for i, r in docs.items() if r["url"] == "https://news.example/w1"}
    assert len(warc_ids) == 1
    good |= warc_ids
    assert set(docs) == good
    assert docs["j1"]["source"].endswith("part-00000.jsonl")  # not the _temporary copy

    from crawldedup.store.schema import VerdictRecord

    with open_store(ctx.store) as store:
        rows = list(store.scan_prefix("verdicts", f"{DAY}|"))
    verdicts = [VerdictRecord.from_row(k, r).id for k, r in rows]
    assert len(verdicts) == len(set(verdicts))
    verdicts = set(verdicts)
    assert verdicts == good, "every good record has exactly one verdict"

    assert stats["documents"] == len(good)
    assert stats["quarantined"] == {
        "bad_encoding": 1,  # the lone surrogate
        "bad_json": 1,  # 100,000 nested arrays
        "bad_fetched_at": 1,  # year 10000 in UTC
        "bad_file": 3,  # the cut gzip member, the plain .gz, the Parquet row group
        "bad_warc": 1,  # the record cut mid-body
    }
    assert stats["records_in"] == len(good) + 7
    assert stats["files"] == 7
    assert stats["skipped_files"] == {"hidden": 3, "symlink": 1, "unknown_extension": 1}
    assert {"path": "passwd.jsonl", "reason": "symlink"} in stats["skipped"]

    q = [json.loads(line) for f in sorted(ctx.quarantine_dir.glob("*.json")) for line in f.open()]
    where = {(Path(r["source"]).name, r["position"]): r for r in q}
    assert where["part-00001.jsonl.gz", 4]["reason"] == "bad_file"  # after the 3 kept lines
    assert where["part-00002.jsonl.gz", 1]["detail"].startswith("BadGzipFile")
    assert where["part-00003.parquet", 5]["detail"].endswith("(row group 1: rows 5-8 unreadable)")
    cut = where["part-00004.warc.gz", 2]
    assert cut["reason"] == "bad_warc" and cut["detail"].startswith("record cut short")
    assert json.loads(cut["raw"])["url"] == "https://news.example/w2"  # what was read
    assert "root:x" not in json.dumps(q) and "secret" not in json.dumps(q)

    # Owner-only: the folders 0700, the files 0600.
    for folder in (home / "quarantine", ctx.quarantine_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    files = [p for p in ctx.quarantine_dir.rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


def test_a_file_gone_while_read_fails_the_stage_in_one_line_naming_it(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """The machine's failure, not the file's: no quarantine entry, the run fails."""
    gone = tmp_path / f"dt={DAY}" / "part-00000.jsonl"
    with pytest.raises(Exception) as info:
        day_input.read_and_fingerprint(spark, [str(gone)], cfg, DAY, str(tmp_path / "parsed"))
    line = str(StageFailed("fingerprint", info.value))
    assert line == (
        f"stage fingerprint failed: InputFileError: {gone}: FileNotFoundError: "
        f"[Errno 2] No such file or directory: '{gone}'"
    )
