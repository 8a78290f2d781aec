"""Size limits on the text, not the raw page (issue 13, item 4).

Ordinary news pages carry 1-10 MB of HTML (inline scripts and state, SVG icons, images
as data URLs) around a few thousand characters of text; ``limits.max_record_bytes`` is
now a generous guard against garbage (64 MiB) and ``limits.max_text_chars`` (2,000,000)
bounds what is usable: the plain or extracted text. Quarantine entries keep the whole
raw record.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import time
from pathlib import Path

import pytest

from crawldedup.config import Config, ConfigError, LimitsConfig, load_config
from crawldedup.ingest.readers import RawRecord, read_file
from crawldedup.ingest.records import Quarantined, prepare

pytestmark = pytest.mark.unit

DAY = "2026-11-02"
ARTICLE = [
    "The city council voted on Tuesday evening to turn the disused freight yard along the "
    "river into a public park, ending a debate that has divided residents for almost a decade.",
    "Under the approved design, the twelve-hectare site will get walking and cycling paths, a "
    "playground, a community garden and a small amphitheatre for summer concerts.",
    "Opponents argued that the land should have been sold to developers to ease the housing "
    "shortage, and several of them said they would keep pressing for homes on the eastern edge.",
    "The mayor called the decision a turning point for the neighbourhood and promised that "
    "the park would be open to the public before the end of next year.",
]
ZH = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过"


def news_page(paragraphs: list[str], template_bytes: int, seed: int = 1) -> str:
    """A news page: the article inside a template padded with what real pages carry."""
    rng = random.Random(seed)
    state = json.dumps(
        [{"id": i, "headline": "".join(rng.choices(ZH, k=30))} for i in range(10)],
        ensure_ascii=False,
    )
    icon = '<svg viewBox="0 0 24 24"><path d="M12 2L2 7l10 5 10-5-10-5z"/></svg>'
    image = base64.b64encode(rng.randbytes(3000)).decode()
    nav = "".join(f'<li><a href="/s/{i}">Section {i}</a>{icon}</li>' for i in range(30))
    links = "".join(
        f'<li><a href="/a/{i}.html">{"".join(rng.choices(ZH, k=20))}</a></li>' for i in range(200)
    )
    head = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Riverside park | Ledger</title>'
        '<meta property="og:title" content="City council approves new riverside park">'
    )
    body = (
        f"</head><body><header><nav><ul>{nav}</ul></nav></header><main><article>"
        "<h1>City council approves new riverside park</h1>"
        + "".join(f"<p>{p}</p>\n" for p in paragraphs)
        + f'</article><section class="related"><ul>{links}</ul></section></main>'
        f'<aside class="sidebar"><ol>{links}</ol></aside>'
        "<footer><p>© 2026 The Daily Ledger. All rights reserved.</p></footer>"
    )
    padding: list[str] = []
    size = len((head + body).encode())
    while size < template_bytes:
        piece = (
            f"<script>window.__STATE__ = {state};</script>"
            f'<link rel="preload" href="data:image/png;base64,{image}">'
        )
        padding.append(piece)
        size += len(piece.encode())
    return head + "".join(padding) + body + "</body></html>"


def _html_record(html: str) -> RawRecord:
    data = {"id": "big", "url": "https://ledger.example/local/park", "html": html}
    return RawRecord("day.jsonl", 1, data, json.dumps(data, ensure_ascii=False))


# --- defaults and validation ------------------------------------------------------------


def test_defaults() -> None:
    limits = load_config(None).limits
    assert limits.max_record_bytes == 64 * 1024 * 1024 == LimitsConfig.max_record_bytes
    assert limits.max_text_chars == 2_000_000


def test_max_text_chars_from_a_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[limits]\nmax_record_bytes = 1000\nmax_text_chars = 50\n")
    limits = load_config(path).limits
    assert (limits.max_record_bytes, limits.max_text_chars) == (1000, 50)


@pytest.mark.parametrize("key", ["max_record_bytes", "max_text_chars"])
def test_limits_must_be_positive(key: str) -> None:
    with pytest.raises(ConfigError, match=rf"^limits\.{key} must be >= 1$"):
        Config().replace(**{f"limits.{key}": 0})


# --- ordinary big pages get verdicts ----------------------------------------------------


def test_a_news_page_of_2_7_mb_of_html_is_a_document() -> None:
    html = news_page(ARTICLE, 2_700_000)
    assert len(html.encode()) > 2_700_000
    old = Config().replace(**{"limits.max_record_bytes": 1_000_000})
    before = prepare(_html_record(html), old, DAY)
    assert isinstance(before, Quarantined) and before.reason == "too_large"  # the issue
    out = prepare(_html_record(html), Config().validate(), DAY)
    assert isinstance(out, dict), out
    assert out["title"] == "City council approves new riverside park"


def test_a_10_mb_page_is_extracted_in_reasonable_time() -> None:
    """Many paragraphs (1.5 M characters) and 5 MB of template: about 3 s on 2 busy cores."""
    rng = random.Random(7)
    paragraphs = ["".join(rng.choices(ZH, k=rng.randint(100, 400))) + "。" for _ in range(6000)]
    html = news_page(paragraphs, 10_000_000)
    assert 10_000_000 <= len(html.encode()) < 11_000_000
    start = time.perf_counter()
    out = prepare(_html_record(html), Config().validate(), DAY)
    seconds = time.perf_counter() - start
    assert isinstance(out, dict), out
    assert out["length"] > 1_000_000
    assert seconds < 60, f"{seconds:.1f} s for a 10 MB page"


# --- what is too large: the text --------------------------------------------------------


def test_plain_content_over_max_text_chars_is_too_large() -> None:
    cfg = Config().replace(**{"limits.max_text_chars": 1000})
    data = {"id": "p", "title": "T", "content": "word " * 300}
    raw = json.dumps(data)
    out = prepare(RawRecord("day.jsonl", 3, data, raw), cfg, DAY)
    assert isinstance(out, Quarantined)
    assert (out.reason, out.detail) == (
        "too_large",
        "text of 1500 chars over limits.max_text_chars",
    )
    assert out.raw == raw
    ok = prepare(RawRecord("day.jsonl", 4, {**data, "content": "word " * 200}, raw), cfg, DAY)
    assert isinstance(ok, dict)


def test_extracted_text_over_max_text_chars_is_too_large() -> None:
    paragraphs = ARTICLE * 40
    html = news_page(paragraphs, 0)
    text_chars = len("\n".join(paragraphs))
    cfg = Config().replace(**{"limits.max_text_chars": text_chars - 1})
    rec = _html_record(html)
    out = prepare(rec, cfg, DAY)
    assert isinstance(out, Quarantined) and out.reason == "too_large"
    assert out.detail == f"text of {text_chars} chars over limits.max_text_chars"
    assert out.raw == rec.raw  # the whole record, HTML included
    assert isinstance(prepare(rec, cfg.replace(**{"limits.max_text_chars": text_chars}), DAY), dict)


def test_the_sample_crawls_oversized_record_is_still_too_large() -> None:
    """The sample (crawldedup_demo) writes one record of > 2,000,000 characters of plain content."""
    data = {"id": "huge", "title": "An oversized page", "content": "x" * 2_000_001}
    raw = json.dumps(data)
    assert len(raw) < Config().limits.max_record_bytes
    out = prepare(RawRecord("part-bad.jsonl", 4, data, raw), Config().validate(), DAY)
    assert isinstance(out, Quarantined) and out.reason == "too_large"
    assert out.detail == "text of 2000001 chars over limits.max_text_chars"


# --- the raw guard, and the quarantine keeps the whole record ---------------------------


def test_a_jsonl_line_over_max_record_bytes_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "part-0.jsonl.gz"
    big = json.dumps({"id": "b", "content": "年" * 500}, ensure_ascii=False)
    small = json.dumps({"id": "s", "content": "ok"})
    path.write_bytes(gzip.compress((big + "\n" + small + "\n").encode()))
    limit = 1000
    recs = list(read_file(str(path), limit))
    assert [r.error for r in recs] == ["too_large", None]
    assert recs[0].detail == f"record of {len(big.encode()) + 1} bytes over limits.max_record_bytes"
    assert recs[0].raw == big, "the quarantine keeps the whole line"
    cfg = Config().replace(**{"limits.max_record_bytes": limit})
    out = prepare(recs[0], cfg, DAY)
    assert isinstance(out, Quarantined) and (out.reason, out.raw) == ("too_large", big)


def test_a_parquet_row_over_max_record_bytes_is_too_large(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "part-0.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "content": ["short", "long " * 400]}), path)
    cfg = Config().replace(**{"limits.max_record_bytes": 1000})
    outs = [prepare(r, cfg, DAY) for r in read_file(str(path), 1000)]
    assert isinstance(outs[0], dict)
    assert isinstance(outs[1], Quarantined) and outs[1].reason == "too_large"
    assert (
        outs[1].detail.startswith("record of ") and "over limits.max_record_bytes" in outs[1].detail
    )
    assert json.loads(outs[1].raw)["content"] == "long " * 400


def _warc(path: Path, pages: list[bytes]) -> None:
    out = b""
    for n, html in enumerate(pages):
        body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html
        out += gzip.compress(
            b"WARC/1.0\r\nWARC-Type: response\r\n"
            + f"WARC-Target-URI: https://ledger.example/{n}\r\n".encode()
            + b"WARC-Date: 2026-11-02T08:00:00Z\r\n"
            + b"Content-Type: application/http; msgtype=response\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
            + b"\r\n\r\n"
        )
    path.write_bytes(out)


def test_warc_records_keep_their_page_in_the_quarantine(tmp_path: Path) -> None:
    path = tmp_path / "crawl-0.warc.gz"
    small = news_page(ARTICLE, 0)
    large = news_page(ARTICLE, 100_000)
    _warc(path, [small.encode(), large.encode()])
    limit = 80_000
    assert len(small.encode()) < limit < len(large.encode())
    recs = list(read_file(str(path), limit))
    assert recs[0].error is None and recs[0].data is not None
    assert json.loads(recs[0].raw)["html"] == small
    assert recs[1].error == "too_large"
    assert recs[1].detail == f"record of {len(large.encode())} bytes over limits.max_record_bytes"
    kept = json.loads(recs[1].raw)
    assert kept == {
        "url": "https://ledger.example/1",
        "warc_date": "2026-11-02T08:00:00Z",
        "html": large,
    }
    cfg = Config().replace(**{"limits.max_record_bytes": limit * 2})
    out = prepare(recs[0], cfg, DAY)
    assert isinstance(out, dict) and out["fetched_at"] == "2026-11-02T08:00:00.000000Z"
