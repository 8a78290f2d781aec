"""Real article pages (tests/data/real_pages, copied from Debian packages) get their text:
the article's paragraphs, without the page's navigation, starting after its heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawldedup.config import Config
from crawldedup.ingest.readers import RawRecord
from crawldedup.ingest.records import extract_html, prepare

PAGES = Path(__file__).resolve().parents[1] / "data" / "real_pages"

CASES = [
    # (file, title, a sentence of the article, navigation that must not be in the text)
    (
        "postgresql-15-indexes-intro.html",
        "11.1. Introduction",
        "Suppose we have a table similar to this:",
        "Prev Up Chapter 11. Indexes Home Next",
    ),
    (
        "debian-reference-2.100-apa.zh-cn.html",
        "附录 A. 附录",  # the <title> spells its spaces as no-break spaces
        "Linux 系统是一个面向网络计算机的功能强大的计算平台。",
        "第 12 章 编程",
    ),
    (
        "libreoffice-7.4-help-find_toolbar.html",
        "Find Bar",
        "The Find toolbar can be used to quickly search the contents",
        None,
    ),
]


@pytest.mark.parametrize(("name", "title", "sentence", "nav"), CASES, ids=[c[0] for c in CASES])
def test_a_real_article_page_gives_its_text(
    name: str, title: str, sentence: str, nav: str | None
) -> None:
    html = (PAGES / name).read_text("utf-8")
    got_title, text = extract_html(html, f"https://docs.example/{name}")
    assert got_title == title
    assert sentence in text
    first = text.splitlines()[0]
    assert " ".join(first.split()) != " ".join(title.split())  # starts after the heading
    if nav is not None:
        assert nav not in text.splitlines()


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_a_real_article_page_is_never_quarantined(name: str) -> None:
    import json

    raw = json.dumps(
        {
            "id": name,
            "url": f"https://docs.example/{name}",
            "html": (PAGES / name).read_text("utf-8"),
        }
    )
    out = prepare(RawRecord("part-0.jsonl", 1, json.loads(raw), raw), Config(), "2026-11-01")
    assert isinstance(out, dict), out
    assert out["text"].strip()
