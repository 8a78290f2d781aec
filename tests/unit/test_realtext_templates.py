"""Big-template sites of the real-text set (benchmarks/realtext): short texts inside a
site's long header, navigation and footer block, their copies and the hard-negative
pairs, on hand-written strings and a small made-up corpus (no download needed).
"""

from __future__ import annotations

import ast
import html as _html
import importlib
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

build = importlib.import_module("benchmarks.realtext.build")
corpus = importlib.import_module("benchmarks.realtext.corpus")
rp = build.rp

TITLES = {
    ("zh", "verse"): ["静夜思", "春晓", "登鹳雀楼", "相思", "鹿柴", "江雪", "望庐山瀑布", "悯农"],
    ("zh", "saying"): ["学而时习之", "三人行", "温故而知新", "己所不欲", "知之为知之", "见贤思齐"],
    ("zh", "manpage"): ["ls - 列目录内容", "cp - 复制文件", "mv - 移动文件", "rm - 删除文件"],
    ("en", "fortune"): [
        "A bird in the hand",
        "Look before you leap",
        "Time is money",
        "Carpe diem",
    ],
    ("en", "pydoc"): ["os.path", "collections", "itertools", "functools", "json", "re", "shutil"],
}
POEM = rp.Page("送别", "作者：王维\n下马饮君酒，问君何所之。\n君言不得意，归卧南山陲。", "zh")
QUOTE = rp.Page("Carpe diem", "Seize the day, put very little trust in tomorrow. -- Horace", "en")


def _sites(seed: int = 3) -> Any:
    return rp.make_big_sites(random.Random(seed), TITLES)


def test_big_sites_are_fixed_for_a_seed_and_long() -> None:
    a, b = _sites(), _sites()
    assert a == b
    assert len(a["zh"]) >= 2 and len(a["en"]) >= 2
    for lang, sites in a.items():
        assert len({s.host for s in sites}) == len(sites)
        for s in sites:
            assert s.lang == lang
            assert 15 <= s.block_lines <= 40, (s.host, s.block_lines)
            assert s.block_chars > 300
            assert len(s.bottom) == len(s.bottom_tags)
            assert {"h", "li", "p"} <= set(s.bottom_tags)
            links = [x for x, t in zip(s.bottom, s.bottom_tags, strict=True) if t == "li"]
            assert len(set(links)) == len(links) >= 10  # related lists of real titles
    assert _sites(3) != _sites(4)


def test_link_titles_leave_out_table_rows_and_fragments() -> None:
    assert rp.link_title("静夜思") and rp.link_title("os.path — Common pathname manipulations")
    for bad in ("│ │ ssh -X user@host │ │", "(1) Everything depends.", "-- Owen Meredith", "a | b"):
        assert not rp.link_title(bad)


@pytest.mark.parametrize("page", [POEM, QUOTE], ids=["zh", "en"])
def test_plain_page_is_the_block_around_the_text(page: Any) -> None:
    for site in _sites()[page.lang]:
        out = rp.in_big_template(random.Random(1), page, site, as_html=False)
        assert out.html is None
        lines = out.text.split("\n")
        assert lines[: len(site.top)] == list(site.top)
        assert lines[-len(site.bottom) :] == list(site.bottom)
        assert page.text in out.text and page.title in lines
        assert site.block_chars > len(page.text)  # the frame is longer than the text
        assert site.name in out.title and page.title in out.title


@pytest.mark.parametrize("page", [POEM, QUOTE], ids=["zh", "en"])
def test_html_page_carries_the_block_and_the_text(page: Any) -> None:
    for site in _sites()[page.lang]:
        out = rp.in_big_template(random.Random(2), page, site, as_html=True)
        assert out.html is not None and out.text == page.text
        body = _html.unescape(out.html)
        assert body.startswith("<!DOCTYPE html>")
        for para in rp.paragraphs(page.text):
            assert f"<p>{para}</p>" in body
        for line in (site.top[0], *site.top[2:], *site.bottom):
            assert line in body
        for item in site.nav:
            assert f">{item}</a>" in body
        assert out == rp.in_big_template(random.Random(2), page, site, as_html=True)


def test_two_texts_on_one_site_share_the_whole_block() -> None:
    site = _sites()["zh"][0]
    other = rp.Page(
        "春晓", "作者：孟浩然\n春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。", "zh"
    )
    a = rp.in_big_template(random.Random(5), POEM, site, as_html=False).text.split("\n")
    b = rp.in_big_template(random.Random(6), other, site, as_html=False).text.split("\n")
    shared = set(a) & set(b)
    assert set(site.top) | set(site.bottom) <= shared
    assert len(shared) > 2 * len(rp.paragraphs(POEM.text))


def test_short_plain_is_the_text_bare() -> None:
    site = rp.Site("山河资讯网", "shanhe-news.cn", "zh", ("首页", "新闻"), 0)
    for seed in range(10):
        out = rp.short_plain(random.Random(seed), POEM, site, "古韵诗词网")
        assert out.html is None and out.text.startswith(POEM.text)
        assert out.text == POEM.text or out.text.endswith("（来源：古韵诗词网）")


def test_notice_is_one_filled_template() -> None:
    a, b = rp.notice(random.Random(1), "zh"), rp.notice(random.Random(1), "zh")
    assert a == b and a.lang == "zh" and len(a.text) < 300 and "{" not in a.text


# --------------------------------------------------------------------------- builder


def _fake_corpus(seed: int = 0) -> object:
    """A few hundred made-up texts of every band and both languages."""
    rng = random.Random(seed)
    cjk = [chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
    words = [f"w{i}" for i in range(3000)]

    def zh_sent(n: int) -> str:
        return "".join(rng.choice(cjk) for _ in range(n)) + "。"

    def en_sent(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."

    docs = []
    for i in range(400):
        lang = "zh" if i % 5 < 3 else "en"
        sent = zh_sent if lang == "zh" else en_sent
        if i % 2:
            paras = [sent(30) + sent(20) for _ in range(rng.randint(8, 20))]
            genre = "manual"
        else:
            paras = [sent(rng.randint(8, 20)) for _ in range(rng.randint(1, 3))]
            genre = rng.choice(("verse", "saying") if lang == "zh" else ("fortune", "pydoc"))
        title = "".join(rng.choice(cjk) for _ in range(6)) if lang == "zh" else sent(3)[:-1]
        docs.append(corpus.BaseDoc(f"fake:{i}", "fake=1", lang, genre, title, paras))
    return corpus.Corpus(docs, [], {"fake=1": "0" * 64})


def test_builder_makes_big_template_pages_copies_and_pairs() -> None:
    b = build.Builder(_fake_corpus(), days=2, per_day=300, seed=7)
    b.build()
    docs = {d.id: d for d in b.docs}
    assert Counter(d.day for d in b.docs) == {day: 300 for day in b.days}
    kinds = Counter(d.kind for d in b.docs)
    for k in rp.BIG_KINDS:
        assert kinds[k] >= 1
    big = [d for d in b.docs if d.family == rp.BIG_FAMILY]
    assert big and all(d.kind == "original" and isinstance(d.site, rp.BigSite) for d in big)
    for d in big:
        assert len(d.base_page.text) < build.BIG_SHORT_MAX < d.site.block_chars
        if d.page.html is None:
            assert d.page.text.startswith(d.site.top[0]) and d.base_page.text in d.page.text
    for d in b.docs:
        if d.kind in rp.BIG_KINDS:
            orig = docs[d.cluster]
            assert orig.family == rp.BIG_FAMILY and d.base_page.text == orig.base_page.text
            assert d.fetched_at > orig.fetched_at and d.keep_form
            if d.kind == "short_in_other_template":
                assert isinstance(d.site, rp.BigSite) and d.site != orig.site
            else:
                assert d.page.html is None and not isinstance(d.site, rp.BigSite)
    pairs = [(a, c) for a, c, f in b.pairs if f == rp.BIG_FAMILY]
    assert len(pairs) >= len(big) and len(set(pairs)) == len(pairs)
    for a, c in pairs:
        assert docs[a].site == docs[c].site and isinstance(docs[a].site, rp.BigSite)
        assert docs[a].cluster != docs[c].cluster
    by_site: defaultdict[str, int] = defaultdict(int)
    for d in b.docs:
        if isinstance(d.site, rp.BigSite):
            by_site[d.site.host] += 1
    assert len(by_site) >= 4
    summary = build.summarize(b)
    assert summary["by_family"][rp.BIG_FAMILY] == len(big)
    assert set(summary["big_template_sites"]) == set(by_site)


def test_nothing_under_realtext_imports_the_product() -> None:
    for path in sorted((ROOT / "benchmarks" / "realtext").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(not a.name.startswith("crawldedup") for a in node.names), path
            elif isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("crawldedup"), path
