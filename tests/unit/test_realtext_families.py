"""The real-text set's families of issue 45 (benchmarks/realtext): short pages of sites
with standard headings and footers, rotating related-title sidebars, poems or lists
reflowed onto one line after a prefix, short excerpts of one to three paragraphs. On
hand-written strings and a small made-up corpus (no download needed).
"""

from __future__ import annotations

import html as _html
import importlib
import random
import re
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

from tests.unit.test_realtext_transforms import EN  # noqa: E402 (after the path setup)

POEM = rp.Page("送别", "作者：王维\n下马饮君酒，问君何所之。\n君言不得意，归卧南山陲。", "zh")
QUOTE = rp.Page(
    "On tomorrow",
    "Seize the day,\nput very little trust\nin tomorrow.\n-- Horace",
    "en",
)
LIST = rp.Page(
    "Nouvelle cuisine, n.:",
    'Nouvelle cuisine, n.: French for "not enough food".\n'
    'Continental breakfast, n.: English for "not enough food".\n'
    'Tapas, n.: Spanish for "not enough food".',
    "en",
)
# The Debian Reference passage of test_realtext_transforms, with the section after it.
ARTICLE_EN = rp.Page(
    EN.title,
    EN.text + "\n"
    "See also\n"
    "If you installed a GUI environment during the installation process, you are "
    "presented with the graphical login screen upon starting your system.\n"
    "You type your username and your password to login to the non-privileged user "
    "account. Use tab to navigate between username and password.\n"
    "The first user account is usually created during the installation. Additional user "
    "accounts can be created with adduser by root.\n"
    "To shut down the system, the root user may use the shutdown command with the power "
    "off option; a normal user may use the systemctl command.",
    "en",
)
ARTICLE_ZH = rp.Page(
    "控制台基础",
    "启动系统之后，如果你没有安装图形界面，那么你会看到字符登录界面。假设你的主机名为foo，"
    "那么登录提示符将如下所示。\n"
    "在登录提示符下，你输入你的用户名，然后按回车键，接下来输入你的密码并再次按回车键。\n"
    "遵循Unix传统，Debian系统下的用户名和密码是大小写敏感的。用户名通常由小写字母组成。\n"
    "描述\n"
    "系统以保存在/etc/motd中的欢迎信息来开始，同时显示一个命令提示符。\n"
    "现在，你就在shell下了。shell解析你的命令，可以使用它来完成很多工作。\n"
    "如果你在安装过程中安装了图形界面，那么系统启动后你会看到图形登录界面。\n"
    "输入用户名和密码登录到非特权用户账户。使用制表键在用户名和密码之间切换。\n"
    "第一个用户账户通常在安装过程中创建。其他用户账户可以由root使用adduser创建。\n"
    "关闭系统时，root用户可以使用带有关机选项的shutdown命令。",
    "zh",
)
SITE_ZH = rp.Site("山河资讯网", "shanhe-news.cn", "zh", ("首页", "新闻", "科技"), 0)
SITE_EN = rp.Site("The Daily Byte", "dailybyte.example.com", "en", ("Home", "News", "Tech"), 1)


def _site(page: Any) -> Any:
    return SITE_ZH if page.lang == "zh" else SITE_EN


# --------------------------------------------------------------------------- reflowed


@pytest.mark.parametrize(
    ("page", "prefix"),
    [(POEM, "作者：王维 "), (QUOTE, "By Horace: ")],
    ids=["zh-author", "en-author"],
)
@pytest.mark.parametrize("seed", range(6))
def test_reflowed_copy_holds_every_line_on_one_line_after_the_prefix(
    page: Any, prefix: str, seed: int
) -> None:
    out = rp.reflowed_after_prefix(random.Random(seed), page, _site(page), "源站")
    assert "\n" not in out.text and out.html is None and out.title == page.title
    assert out.text.startswith(prefix)
    rest, at = out.text[len(prefix) :], 0
    for line in rp.paragraphs(page.text)[:-1] if page.lang == "en" else page.text.split("\n")[1:]:
        found = rest.find(line.strip(), at)
        assert found >= at, (line, rest)  # every line, in the poem's order
        at = found + len(line.strip())
    assert len(rest) - at < 5  # nothing after the last line but a separator


def test_reflowed_list_without_author_gets_a_site_prefix() -> None:
    for seed in range(10):
        out = rp.reflowed_after_prefix(random.Random(seed), LIST, SITE_EN)
        assert "\n" not in out.text
        assert any(out.text.startswith(p) for p in rp.EN_REFLOW_PREFIXES)
        for line in rp.paragraphs(LIST.text):
            assert line in out.text
    poem = rp.Page("静夜思", "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。", "zh")
    out = rp.reflowed_after_prefix(random.Random(1), poem, SITE_ZH)
    assert any(out.text.startswith(p) for p in rp.ZH_REFLOW_PREFIXES)
    assert rp.plain_key(out.text).endswith(rp.plain_key(poem.text))


def test_reflow_takes_an_attribution_ending_the_last_line_as_the_author() -> None:
    page = rp.Page(
        "Doorknobs",
        "In the future,\nthere was a computer in every doorknob. -- Danny Hillis",
        "en",
    )
    assert rp.reflow_parts(page) == (
        "Danny Hillis",
        ["In the future,", "there was a computer in every doorknob."],
    )
    out = rp.reflowed_after_prefix(random.Random(0), page, SITE_EN)
    assert out.text.startswith("By Danny Hillis: In the future,")
    assert out.text.endswith("every doorknob.") and "--" not in out.text
    lower = rp.Page("t", "a line\nyou can't tuna fish. -- from the tunefs(8) man page", "en")
    assert rp.reflow_parts(lower)[0] is None  # not a name: the line stays as it is


def test_reflowable_texts_are_short_lines() -> None:
    assert rp.reflowable(POEM) and rp.reflowable(QUOTE) and rp.reflowable(LIST)
    assert not rp.reflowable(rp.Page("t", "作者：李白\n只有一行。", "zh"))  # one line left
    assert not rp.reflowable(ARTICLE_EN)  # long paragraphs


# --------------------------------------------------------------------------- short excerpts


def _quoted_run(out: Any, source: Any) -> tuple[int, int]:
    """Where the excerpt's lines of the source stand in it: (first, past the last)."""
    paras = rp.paragraphs(source.text)
    idx = [paras.index(x) for x in rp.paragraphs(out.text) if x in paras]
    assert idx, out.text
    assert idx == list(range(idx[0], idx[0] + len(idx))), idx  # consecutive, in order
    return idx[0], idx[-1] + 1


@pytest.mark.parametrize("page", [ARTICLE_ZH, ARTICLE_EN], ids=["zh", "en"])
@pytest.mark.parametrize("seed", range(25))
def test_short_excerpt_is_one_to_three_paragraphs_of_its_source_in_order(
    page: Any, seed: int
) -> None:
    skip = {"描述", "See also"}
    out = rp.short_excerpt(random.Random(seed), page, _site(page), "源站", skip)
    a, b = _quoted_run(out, page)
    assert 1 <= b - a <= 3
    quoted = rp.paragraphs(page.text)[a:b]
    assert not set(quoted) & skip
    assert sum(len(x) for x in quoted) <= rp.SHORT_EXCERPT_MAX_SHARE * len(page.text)
    own = [x for x in rp.paragraphs(out.text) if x not in quoted]
    assert len(own) <= 2  # an intro line and a credit line at most, around the quote
    lines = rp.paragraphs(out.text)
    for x in own:
        assert lines.index(x) in (0, len(lines) - 1)
    assert out.html is None and page.title in out.title


def test_excerpt_spans_leave_out_shared_short_and_too_large_runs() -> None:
    spans = rp.excerpt_spans(ARTICLE_EN)
    assert spans and all(1 <= b - a <= 3 for a, b in spans)
    paras = rp.paragraphs(ARTICLE_EN.text)
    assert all("See also" not in paras[a:b] for a, b in spans)  # too short a paragraph
    first = paras[0]
    assert all(a > 0 for a, _b in rp.excerpt_spans(ARTICLE_EN, {first}))
    one = rp.Page("t", "A single long paragraph that is the whole article. " * 30, "en")
    assert rp.excerpt_spans(one) == []  # would be all of it, not a short excerpt


def test_new_copy_kinds_are_registered_but_not_drawn_at_random() -> None:
    for kind in rp.TARGETED_KINDS:
        assert kind in rp.COPY_KINDS and kind not in rp.LONG_KINDS
        out = rp.make_copy(kind, random.Random(3), ARTICLE_ZH, SITE_ZH, "源站", [])
        assert out == rp.make_copy(kind, random.Random(3), ARTICLE_ZH, SITE_ZH, "源站", [])
    assert set(build.ALL_FAMILIES) >= {rp.HEADINGS_FAMILY, rp.SIDEBAR_FAMILY, *rp.TARGETED_KINDS}
    assert {rp.HEADINGS_FAMILY, rp.SIDEBAR_FAMILY} <= set(rp.HARD_FAMILIES)


# --------------------------------------------------------------------------- heading sites


def _heading_sites() -> Any:
    return rp.make_heading_sites(random.Random(4))


def test_heading_sites_carry_the_standard_headings() -> None:
    sites = _heading_sites()
    assert sites == _heading_sites() and len(sites["zh"]) >= 2 and len(sites["en"]) >= 2
    heads = {h for ss in sites.values() for s in ss for h, _ls in s.sections}
    heads |= {s.name_heading for ss in sites.values() for s in ss} - {None}
    for h in ("参见 SEE ALSO", "关键字 KEYWORDS", "[中文版维护人]", "相关条目", "参见", "NAME"):
        assert h in heads, h


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_two_short_pages_of_a_heading_site_share_headings_not_their_own_lines(lang: str) -> None:
    a = POEM if lang == "zh" else QUOTE
    b = rp.Page("春晓", "春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。", "zh")
    if lang == "en":
        b = rp.Page("Carpe diem", "Nothing is certain but death and taxes.", "en")
    for site in _heading_sites()[lang]:
        pa, base_a = rp.in_heading_template(a, site, as_html=False)
        pb, _base_b = rp.in_heading_template(b, site, as_html=False)
        la, lb = rp.paragraphs(pa.text), rp.paragraphs(pb.text)
        assert set(site.furniture) <= set(la) & set(lb)
        own_a = [x for x in la if x not in site.furniture]
        own_b = [x for x in lb if x not in site.furniture]
        assert own_a and own_b and not set(own_a) & set(own_b)
        # mostly the site's lines: the furniture outweighs the page's own lines
        assert sum(map(len, site.furniture)) > sum(map(len, own_a))
        assert base_a.text in pa.text and not set(site.top) & set(rp.paragraphs(base_a.text))
        html, _ = rp.in_heading_template(a, site, as_html=True)
        assert html.html is not None and f"<h2>{site.text_heading}</h2>" in html.html


def test_heading_repost_keeps_the_headings_and_lines() -> None:
    site = _heading_sites()["zh"][0]
    _page, base = rp.in_heading_template(POEM, site, as_html=False)
    for seed in range(10):
        out = rp.headings_repost(random.Random(seed), base, SITE_ZH, site.name)
        assert base.text in out.text and site.name in out.text and out.html is None


# --------------------------------------------------------------------------- sidebars

SIDEBAR_TITLES = {
    ("zh", "saying"): [f"读书笔记第{i}篇" for i in range(30)],
    ("zh", "manual"): [f"软件包管理第{i}节" for i in range(30)],
    ("en", "pydoc"): [f"Tutorial part {i}" for i in range(30)],
}


def test_sidebar_rotates_and_shares_lines_across_pages() -> None:
    sites = rp.make_sidebar_sites(random.Random(2), SIDEBAR_TITLES)
    for site in (*sites["zh"], *sites["en"]):
        assert rp.SIDEBAR_POOL[0] <= len(site.pool) <= rp.SIDEBAR_POOL[1]
        rng = random.Random(9)
        bars = [rp.draw_sidebar(rng, site) for _ in range(30)]
        assert len(set(bars)) == len(bars)  # rotates: no two draws alike
        for bar in bars:
            items = [t for _h, ts in bar for t in ts]
            assert len(set(items)) == len(items) and set(items) <= set(site.pool)
        a = rp.in_sidebar_template(random.Random(1), ARTICLE_EN, site, bars[0], as_html=False)
        b = rp.in_sidebar_template(random.Random(2), LIST, site, bars[1], as_html=False)
        shared = set(rp.paragraphs(a.text)) & set(rp.paragraphs(b.text))
        assert len(shared - set(site.top) - set(site.bottom)) >= 2  # sidebar titles shared
        assert ARTICLE_EN.text in a.text and site.name in a.title


# --------------------------------------------------------------------------- builder


def _fake_corpus(seed: int = 0) -> Any:
    """A few hundred made-up texts: long articles of many paragraphs, short texts of
    one to four lines, both languages."""
    rng = random.Random(seed)
    cjk = [chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
    words = [f"w{i}" for i in range(3000)]

    def zh_sent(n: int) -> str:
        return "".join(rng.choice(cjk) for _ in range(n)) + "。"

    def en_sent(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."

    docs = []
    for i in range(700):
        lang = "zh" if i % 5 < 3 else "en"
        sent = zh_sent if lang == "zh" else en_sent
        if i % 2:
            paras = [sent(rng.randint(20, 40)) + sent(20) for _ in range(rng.randint(12, 24))]
            genre = "manual"
        else:
            paras = [sent(rng.randint(6, 14)) for _ in range(rng.randint(1, 4))]
            genres = ("verse", "saying", "manpage") if lang == "zh" else ("fortune", "pydoc")
            genre = rng.choice(genres)
        title = "".join(rng.choice(cjk) for _ in range(6)) if lang == "zh" else sent(3)[:-1]
        docs.append(corpus.BaseDoc(f"fake:{i}", "fake=1", lang, genre, title, paras))
    return corpus.Corpus(docs, [], {"fake=1": "0" * 64})


@pytest.fixture(scope="module")
def built() -> Any:
    b = build.Builder(_fake_corpus(), days=2, per_day=300, seed=7)
    b.build()
    return b


def test_builder_is_deterministic_and_makes_every_new_family(built: Any) -> None:
    again = build.Builder(_fake_corpus(), days=2, per_day=300, seed=7)
    again.build()
    assert [(d.id, d.page) for d in again.docs] == [(d.id, d.page) for d in built.docs]
    assert Counter(d.day for d in built.docs) == {day: 300 for day in built.days}
    kinds = Counter(d.kind for d in built.docs)
    for k in (*rp.TARGETED_KINDS, *rp.HEADINGS_KINDS, *rp.SIDEBAR_KINDS):
        assert kinds[k] >= 2, k
    fams = Counter(d.family for d in built.docs)
    assert fams[rp.HEADINGS_FAMILY] >= 10 and fams[rp.SIDEBAR_FAMILY] >= 10
    for d in built.docs:  # the truth conventions: family on originals, kind on copies
        assert (d.family is None) or (d.kind == "original" and d.cluster == d.id)
        assert (d.kind == "original") == (d.cluster == d.id)
    summary = build.summarize(built)
    assert summary["by_kind"]["reflowed_after_prefix"] == kinds["reflowed_after_prefix"]
    assert set(summary["heading_and_sidebar_sites"]) == {
        d.site.host for d in built.docs if isinstance(d.site, (rp.HeadingSite, rp.SidebarSite))
    }


def test_short_heading_pages_are_hard_negatives_of_longer_pages_of_their_site(
    built: Any,
) -> None:
    docs = {d.id: d for d in built.docs}
    short = [d for d in built.docs if d.id in built.heading_short]
    longer = [
        d for d in built.docs if d.family == rp.HEADINGS_FAMILY and d.id not in built.heading_short
    ]
    assert len(short) >= 5 and longer
    pairs = [(a, b) for a, b, f in built.pairs if f == rp.HEADINGS_FAMILY]
    assert len(set(pairs)) == len(pairs) >= len(short)
    partners: defaultdict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        assert docs[a].cluster != docs[b].cluster
        assert docs[docs[a].cluster].site == docs[docs[b].cluster].site
        partners[a].add(b)
        partners[b].add(a)
    longer_of = {x.site.host for x in longer}
    assert sum(d.site.host in longer_of for d in short) >= 5
    for d in short:
        assert d.family == rp.HEADINGS_FAMILY and isinstance(d.site, rp.HeadingSite)
        if d.site.host in longer_of:  # paired with a longer page of its site
            assert any(o in {x.id for x in longer} for o in partners[d.id]), d.id
    # mostly the site's headings and footer: more of their characters than own ones
    plain = [d for d in short if d.page.html is None]
    own = sum(
        len(x) for d in plain for x in rp.paragraphs(d.page.text) if x not in d.site.furniture
    )
    assert plain and own < sum(len(x) for d in plain for x in d.site.furniture)
    by_site: defaultdict[str, list[Any]] = defaultdict(list)
    for d in short:
        by_site[d.site.host].append(d)
    for pages in by_site.values():
        owns = [frozenset(rp.paragraphs(p.base_page.text)) - set(p.site.furniture) for p in pages]
        assert len(set(owns)) == len(owns)  # different documents
        heads = {p.site.text_heading for p in pages}
        assert len(heads) == 1 and all(next(iter(heads)) in p.base_page.text for p in pages)
    for d in built.docs:
        if d.kind in rp.HEADINGS_KINDS:
            orig = docs[d.cluster]
            assert orig.id in built.heading_short and orig.base_page.text in d.page.text


def test_sidebar_pages_rotate_and_their_copies_keep_the_text(built: Any) -> None:
    docs = {d.id: d for d in built.docs}
    bars: defaultdict[str, list[tuple[str, ...]]] = defaultdict(list)
    for d in built.docs:
        if isinstance(d.site, rp.SidebarSite):
            pool = set(d.site.pool)
            if d.page.html is None:
                bar = tuple(x for x in rp.paragraphs(d.page.text) if x in pool)
            else:
                links = re.findall(r'<li><a href="/p/\d+\.html">(.*?)</a></li>', d.page.html)
                bar = tuple(_html.unescape(x) for x in links)
            assert len(bar) >= 9 and set(bar) <= pool
            bars[d.site.host].append(bar)
            if d.kind == "sidebar_rotated":
                orig = docs[d.cluster]
                assert orig.site == d.site and orig.base_page.text == d.base_page.text
                assert d.page != orig.page and d.url != orig.url
    for host, bs in bars.items():
        assert len(set(bs)) == len(bs), host  # two pages never carry the same sidebar
    pairs = [(a, b) for a, b, f in built.pairs if f == rp.SIDEBAR_FAMILY]
    assert pairs
    for a, b in pairs:
        assert docs[a].site == docs[b].site and isinstance(docs[a].site, rp.SidebarSite)
        assert docs[a].cluster != docs[b].cluster


def test_targeted_copies_come_from_originals_that_suit_them(built: Any) -> None:
    docs = {d.id: d for d in built.docs}
    for d in built.docs:
        if d.kind == "reflowed_after_prefix":
            orig = docs[d.cluster]
            assert rp.reflowable(orig.base_page) and "\n" not in d.base_page.text
            _author, lines = rp.reflow_parts(orig.base_page)
            assert all(x in d.base_page.text for x in lines)
        elif d.kind == "short_excerpt":
            orig = docs[d.cluster]
            assert len(orig.base_page.text) >= build.EXCERPT_MIN
            a, b = _quoted_run(d.base_page, orig.base_page)
            assert 1 <= b - a <= 3
        if d.kind in rp.TARGETED_KINDS:
            assert d.fetched_at > docs[d.cluster].fetched_at and d.family is None


def test_families_choose_what_is_made() -> None:
    b = build.Builder(_fake_corpus(), days=1, per_day=300, seed=7, families=["short_verse"])
    b.build()
    assert len(b.docs) == 300
    assert not {d.family for d in b.docs} - {None, "short_verse"}
    assert not {d.kind for d in b.docs} & {*rp.TARGETED_KINDS, *rp.HEADINGS_KINDS, *rp.BIG_KINDS}
    with pytest.raises(SystemExit):
        build.main(["--out", "/nonexistent/never-written", "--families", "nope"])
