"""No page with visible text is lost (issue 45): extraction's fallbacks apply after every
step that can cut text, so a page is quarantined ``no_text`` only when its visible text
is empty.

Before, the fallbacks (main content, then the visible text without template elements,
then all of it) ran first and the trim before the title's heading ran last: a page whose
main content was its heading alone (a long article whose main content came out as its
headline, a short help page whose title is the last line of its main text) ended empty.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from resiliparse.parse.html import HTMLTree

from crawldedup.config import Config
from crawldedup.ingest.readers import RawRecord
from crawldedup.ingest.records import extract_html, html_extractor, read_record

PAGES = Path(__file__).resolve().parents[1] / "data" / "real_pages"
# The real-text set's cached sources (benchmarks/realtext/corpus.py): thousands of HTML
# pages written by people (Debian's and Python packages' documentation), when present.
REALTEXT = Path(
    os.environ.get("CRAWLDEDUP_REALTEXT_CACHE") or Path.home() / ".cache/crawldedup/realtext"
)


def _visible(html: str) -> str:
    """All of the page's visible text, as a browser's select-all would copy it."""
    plain = html_extractor("resiliparse").extract_plain_text(
        HTMLTree.parse(html), main_content=False
    )
    return str(plain).strip()


def _kept(html: str) -> bool:
    """The page's record is a document, not quarantined."""
    data = {"id": "p", "url": "https://docs.example/p.html", "html": html}
    return not hasattr(
        read_record(RawRecord("p.jsonl", 1, data, json.dumps(data)), CFG, "d"), "reason"
    )


CFG = Config().validate()


def test_a_page_whose_main_content_ends_with_its_title_keeps_its_text() -> None:
    html = (PAGES / "libreoffice-7.4-help-numbering_stop.html").read_text(encoding="utf-8")
    title, text = extract_html(html, None)
    assert title == "Turning off Bullets and Numbering for Individual Paragraphs"
    assert "you can switch off the automatic numbering or listing" in text
    assert _kept(html)


def test_a_main_content_of_the_headline_alone_falls_back_to_the_article() -> None:
    # A news page whose article sits in a block named like a template part ("news-info"):
    # main content without template elements is the headline alone, which the trim
    # before the heading then removed; the article is in the page's visible text.
    story = "\n".join(
        f"<p>第{i}段：市政府今天公布了新的公共交通计划，地铁线路将在明年延长。</p>"
        for i in range(1, 9)
    )
    html = (
        "<html><head><title>地铁将延长 - 城市日报</title></head><body>"
        '<div class="top"><a href="/">城市日报</a></div>'
        "<h1>地铁将延长</h1>"
        f'<div class="news-info">{story}</div>'
        "</body></html>"
    )
    title, text = extract_html(html, None)
    assert title == "地铁将延长"
    assert "第1段" in text and "第8段" in text
    assert _kept(html)


def test_a_page_that_is_its_title_alone_keeps_the_title() -> None:
    html = "<html><head><title>Hello World!</title></head><body><h1>Hello World!</h1></body></html>"
    assert extract_html(html, None) == ("Hello World!", "Hello World!")
    assert _kept(html)


def test_a_page_without_visible_text_is_no_text() -> None:
    html = "<html><head><title></title></head><body><div> </div><script>x=1</script></body></html>"
    assert _visible(html) == ""
    data = {"id": "p", "url": "https://docs.example/p.html", "html": html}
    out = read_record(RawRecord("p.jsonl", 1, data, json.dumps(data)), CFG, "d")
    assert getattr(out, "reason", None) == "no_text"


def _real_pages() -> list[Path]:
    fixtures = sorted(PAGES.glob("*.html"))
    cached = sorted(p for p in (REALTEXT / "extracted").rglob("*.htm*") if p.is_file())
    return fixtures + cached


@pytest.mark.exhaustive
def test_no_real_page_with_visible_text_gives_no_text() -> None:
    """Every real HTML page we have (the fixtures, and the real-text set's cached sources
    when they are present: 7,439 pages, 20 of them lost before this fix)."""
    pages = _real_pages()
    lost = []
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        if _visible(html) and not extract_html(html, None)[1].strip():
            lost.append(str(page))
    assert not lost, f"{len(lost)} of {len(pages)} pages lost: {lost[:5]}"


def test_the_fixture_pages_all_keep_text() -> None:
    for page in sorted(PAGES.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        assert _visible(html) and extract_html(html, None)[1].strip(), page.name
