"""The fingerprint stage fingerprints each page once, after its host's boilerplate is
known: a page with template lines gets exactly the fingerprints of its text without them
(what the two-pass code gave), a page of nothing but template keeps only its exact key,
and a page whose fingerprinting raises is reported for the quarantine, never lost."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.config import Config
from crawldedup.core.boilerplate import HostLines, page_line_keys, strip_boilerplate
from crawldedup.ingest.readers import RawRecord
from crawldedup.ingest.records import fingerprint_fields, prepare, read_record
from crawldedup.pipeline import site_boilerplate
from crawldedup.pipeline.day_input import PARSED, WIDE_COLUMNS
from crawldedup.pipeline.site_boilerplate import BOILERPLATE_ONLY_KEYS, fingerprint_pages

DAY = "2026-11-02"
TEMPLATE = ["首页 | 新闻中心 | 联系我们 | 关于本站", "版权所有 © 2026 某某网 保留所有权利"]
OWN = "床前明月光，疑是地上霜。举头望明月，低头思故乡。这是一首很有名的诗，人人都会背诵。"


def _record(i: int, content: str) -> RawRecord:
    data = {"id": f"d{i}", "url": f"https://site.example/a/{i}", "title": f"标题{i}"}
    data["content"] = content
    return RawRecord("day.jsonl", i, data, "{}")


def _parsed(records: list[RawRecord], cfg: Config) -> pa.RecordBatch:
    """The records as the parse writes them (parsed/part-N: fingerprint columns null)."""
    rows = [read_record(r, cfg, DAY) for r in records]
    assert all(isinstance(r, dict) for r in rows)
    parsed = to_arrow_schema(PARSED)
    wide = pa.schema([parsed.field(n) for n in WIDE_COLUMNS])
    return pa.RecordBatch.from_pylist(rows, schema=wide)  # type: ignore[arg-type]


def test_a_page_is_fingerprinted_on_its_text_without_its_hosts_template() -> None:
    cfg = Config().validate()
    page = "\n".join([TEMPLATE[0], OWN, TEMPLATE[1]])
    plain = "一段没有模板的文字，也足够长，可以算出它自己的指纹来，这里再多写几个字。"
    batch = _parsed([_record(1, page), _record(2, plain)], cfg)
    template = frozenset(page_line_keys("\n".join(TEMPLATE), 8))
    boiler = {"site.example": HostLines(template)}
    failed: list[dict[str, Any]] = []
    (out,) = fingerprint_pages(iter([batch]), boiler, cfg, failed)
    rows = out.to_pylist()
    stripped = strip_boilerplate(page, template, cfg.boilerplate.min_line_chars)
    assert stripped is not None and OWN in stripped and TEMPLATE[0] not in stripped
    assert {k: rows[0][k] for k in fingerprint_fields("", "", cfg)} == fingerprint_fields(
        "标题1", stripped, cfg
    )
    # A page without template lines: the fingerprints prepare() gives a lone record.
    alone = prepare(_record(2, plain), cfg, DAY)
    assert isinstance(alone, dict)
    assert {k: rows[1][k] for k in fingerprint_fields("", "", cfg)} == {
        k: alone[k] for k in fingerprint_fields("", "", cfg)
    }
    assert not failed


def test_a_page_of_nothing_but_template_keeps_only_its_exact_key() -> None:
    cfg = Config().validate()
    page = "\n".join(TEMPLATE)
    batch = _parsed([_record(1, page)], cfg)
    boiler = {"site.example": HostLines(frozenset(page_line_keys(page, 8)))}
    (out,) = fingerprint_pages(iter([batch]), boiler, cfg, [])
    row = out.to_pylist()[0]
    whole = fingerprint_fields("标题1", page, cfg)
    assert row["content_key"] == whole["content_key"]
    assert {k: row[k] for k in BOILERPLATE_ONLY_KEYS} == BOILERPLATE_ONLY_KEYS


def test_a_page_whose_fingerprinting_raises_is_reported_and_the_rest_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No text we know makes the fingerprint raise (the parse already refuses what md5 or
    # Arrow cannot take): the fault is injected, as the only way to reach this path.
    cfg = Config().validate()
    real = site_boilerplate.fingerprint_fields

    def flaky(title: str, content: str, c: Config, own_key: str | None = None) -> dict[str, Any]:
        if title == "标题2":
            raise ValueError("injected")
        return real(title, content, c, own_key)

    monkeypatch.setattr(site_boilerplate, "fingerprint_fields", flaky)
    texts = ["第一篇文章的正文，足够长的一段话。", "第二篇", "第三篇文章的正文，也足够长。"]
    batch = _parsed([_record(i, t) for i, t in enumerate(texts, 1)], cfg)
    failed: list[dict[str, Any]] = []
    (out,) = fingerprint_pages(iter([batch]), {}, cfg, failed)
    assert [r["id"] for r in out.to_pylist()] == ["d1", "d3"]
    assert failed == [
        {
            "source": "day.jsonl",
            "position": 2,
            "reason": "bad_record",
            "detail": "ValueError: injected",
            "raw": None,
        }
    ]
