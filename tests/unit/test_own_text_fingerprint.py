"""A page's own text is fingerprinted with the page, and gives exactly what its
definition gives: ``runs_sketch`` and ``own_text_key`` of the runs ``own_text`` and
``without_title_heading`` cut, each run folded and shingled on its own."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawldedup.config import Config
from crawldedup.core.boilerplate import (
    line_keys,
    own_key_of,
    own_line_runs,
    own_text,
    own_text_key,
    without_title_heading,
)
from crawldedup.core.fingerprint import fingerprint, runs_sketch
from crawldedup.ingest.records import extract_html, fingerprint_fields
from crawldedup_demo import corpus

CFG = Config()
REAL_PAGES = Path(__file__).resolve().parents[1] / "data" / "real_pages"
REALTEXT = Path(
    os.environ.get("CRAWLDEDUP_REALTEXT_CACHE") or Path.home() / ".cache/crawldedup/realtext"
)
MIN_CHARS = CFG.boilerplate.min_line_chars


def _by_definition(text: str, frequent: set[str], title: str) -> tuple[str | None, str | None]:
    own = own_text(text, frequent, MIN_CHARS)
    if own is None:
        return None, None
    own = without_title_heading(own, title)
    return runs_sketch(own, CFG.simhash, CFG.lsh), own_text_key(own)


def _with_the_page(text: str, frequent: set[str], title: str) -> tuple[str | None, str | None]:
    own = own_line_runs(text, frequent, MIN_CHARS)
    if own is None:
        return None, None
    own = own.without_title_heading(title)
    fp = fingerprint(title, text, CFG.fingerprint, CFG.simhash, CFG.lsh, own.runs)
    return fp.own_sketch, own_key_of(fp.own_md5, fp.own_length)


def _frequent(text: str, rng: random.Random, share: float) -> set[str]:
    keys = {k for line in text.splitlines() for k in line_keys(line, MIN_CHARS)}
    return {k for k in sorted(keys) if rng.random() < share}


# Lines of Latin, CJK, full-width forms and punctuation; every line end str.splitlines
# knows; lines short enough that some fall under the key's minimum length.
_LINE = st.text(
    alphabet=st.sampled_from(list("ab z9,.:：\u3000ＡＢ１ℂ…") + list("中文页面转载自网站相关作者")),
    max_size=30,
)
_END = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x85", "\x0c", "\x1e", "\u2029"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(_LINE, _END), min_size=1, max_size=12),
    st.booleans(),
    st.floats(0.1, 0.9),
    st.integers(0, 2**32),
)
def test_own_text_with_the_page_is_the_definition(
    lines: list[tuple[str, str]], heading: bool, share: float, seed: int
) -> None:
    text = "".join(line + end for line, end in lines).rstrip("\n") if lines else ""
    title = lines[0][0] + " - a site" if heading else "another title"
    frequent = _frequent(text, random.Random(seed), share)
    found = own_line_runs(text, frequent, MIN_CHARS)
    assert (found.texts() if found else None) == own_text(text, frequent, MIN_CHARS)
    assert _with_the_page(text, frequent, title) == _by_definition(text, frequent, title)


def _pages() -> list[tuple[str, str]]:
    """(title, text) of pages written by people: the HTML fixtures' extracted text, and
    500 documents of the real-text set's cached corpus when it is present
    (``benchmarks/realtext``: Debian's and Python packages' documentation, Chinese and
    English); then the demo's pages."""
    pages = []
    for page in sorted(REAL_PAGES.glob("*.html")):
        title, text = extract_html(page.read_text(encoding="utf-8"), None)
        pages.append((title, text))
    for cached in sorted(REALTEXT.glob("corpus-*.json.gz"))[:1]:
        docs = json.loads(gzip.decompress(cached.read_bytes()))["docs"]
        step = max(1, len(docs) // 500)
        pages += [(d["title"], "\n".join(d["paragraphs"])) for d in docs[::step]]
    rng = random.Random(3)
    for i in range(40):
        article = corpus.compose_article(rng, ("zh", "en")[i % 2], dt.date(2026, 11, 2))
        pages.append((article.title, article.text))
    return pages


def test_real_pages_own_text_with_the_page_is_the_definition() -> None:
    """Every page, with a third and with two thirds of its line keys taken as its host's
    frequent lines, under its title and under its first line as a heading of its title."""
    rng = random.Random(7)
    seen = 0
    for title, text in _pages():
        first = text.partition("\n")[0]
        for share in (0.33, 0.67):
            frequent = _frequent(text, rng, share)
            for heading in (title, f"{first} | site"):
                want = _by_definition(text, frequent, heading)
                assert _with_the_page(text, frequent, heading) == want
                seen += want[0] is not None
    assert seen > 100  # the test measured own texts, not only pages without one


def test_fingerprint_fields_carry_the_own_sketch_and_key() -> None:
    menu = "Home | News | About"
    text = f"{menu}\n城门失火，殃及池鱼。这是一段正文。\n{menu}\n第二段正文在这里。"
    frequent = set(line_keys(menu, MIN_CHARS))
    own = own_line_runs(text, frequent, MIN_CHARS)
    assert own is not None and own.runs == [-1, 0, -1, 1]
    fields = fingerprint_fields("标题", text, CFG, own)
    sketch, key = _by_definition(text, frequent, "标题")
    assert fields["own_sketch"] == sketch and sketch
    assert key is not None and fields["lsh_keys"][-1] == key
    assert fingerprint_fields("标题", text, CFG)["own_sketch"] is None
