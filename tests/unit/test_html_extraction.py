"""HTML extraction: the main text without the site's template, the title, both engines.

resiliparse's main-content extraction (the default engine) with the template names and
the title heading of crawldedup/ingest/html_text.py, or trafilatura ([extract] engine).
The pages are written by hand the way news and portal sites build theirs (a short poem
or notice inside a big template, long articles); tests/data holds real pages. Every test
runs the real engines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from resiliparse.parse.html import HTMLTree

from crawldedup.config import Config, ConfigError, load_config
from crawldedup.ingest import html_text
from crawldedup.ingest.readers import RawRecord
from crawldedup.ingest.records import Quarantined, extract_html, prepare

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[1] / "data"
ENGINES = ("resiliparse", "trafilatura")

DAY = "2026-11-02"

# --- a Chinese portal template: 30 nav links, 热门文章, 相关阅读, footer ----------------

NAV_ZH = [
    *("首页", "新闻", "国内", "国际", "财经", "科技", "体育", "娱乐", "汽车", "房产"),
    *("教育", "健康", "旅游", "文化", "读书", "历史", "军事", "游戏", "时尚", "美食"),
    *("视频", "图片", "专题", "评论", "论坛", "博客", "天气", "彩票", "招聘", "公益"),
]
HOT_ZH = [
    "国务院常务会议部署进一步扩大内需若干措施",
    "全国多地迎来降温降雨天气 出行注意安全",
    "新能源汽车销量连续三个月同比增长",
    "高校毕业生就业形势总体稳定",
    "秋季旅游市场持续升温 多个景区客流创新高",
    "专家解读最新出台的个人所得税政策",
    "冬季流感高发 医生提醒做好防护",
    "城市更新改造项目陆续启动",
    "国产大飞机完成新一轮试飞",
    "全国粮食产量再创历史新高",
]
RELATED_ZH = [
    "唐诗三百首精选赏析",
    "李白的诗歌艺术特色",
    "杜甫与李白的友谊",
    "古诗词中的月亮意象",
    "王维山水诗的禅意",
    "孟浩然田园诗选读",
]
FOOTER_ZH = "Copyright © 2003-2026 诗词天地网 版权所有　浙ICP备12345678号"
POEM = ["床前明月光，", "疑是地上霜。", "举头望明月，", "低头思故乡。"]  # 李白《静夜思》


def _links(titles: list[str], prefix: str) -> str:
    return "".join(f'<li><a href="/{prefix}/{i}.html">{t}</a></li>' for i, t in enumerate(titles))


def zh_page(main: str, title: str = "静夜思", og: bool = True) -> str:
    og_meta = f'<meta property="og:title" content="{title}">' if og else ""
    return f"""<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">
<title>{title}_诗词天地网</title>{og_meta}
<script>var _hmt = _hmt || []; document.write("统计代码");</script>
<style>body {{ font-size: 14px }} .nav li {{ float: left }}</style>
</head><body>
<div class="topbar"><a href="/login">登录</a> | <a href="/reg">注册</a> |
<a href="/app">下载客户端</a></div>
<header class="site-header"><div class="logo"><a href="/">诗词天地网</a></div>
<nav class="main-nav"><ul>{_links(NAV_ZH, "c")}</ul></nav></header>
<div class="container"><div class="main">
<div class="breadcrumb"><a href="/">首页</a> &gt; <a href="/poem/">诗词</a> &gt; 正文</div>
{main}
<div class="share">分享到：微信 微博 QQ空间</div>
<section class="related"><h3>相关阅读</h3><ul>{_links(RELATED_ZH, "rel")}</ul></section>
</div>
<aside class="sidebar"><section class="hot"><h3>热门文章</h3><ol>{_links(HOT_ZH, "hot")}</ol>
</section></aside></div>
<footer class="site-footer"><p><a href="/about">关于我们</a> | <a href="/contact">联系我们</a> |
<a href="/ads">广告服务</a></p><p>{FOOTER_ZH}</p><p>违法和不良信息举报电话：0571-87654321</p>
</footer><script src="/static/js/stat.js"></script></body></html>"""


ZH_TEMPLATE_TEXT = [*NAV_ZH[1:], *HOT_ZH, *RELATED_ZH, "热门文章", "相关阅读", "登录", "分享到"]
ZH_TEMPLATE_TEXT += ["版权所有", "ICP备", "举报电话", "关于我们", "下载客户端", "来源"]

# --- an English news template ----------------------------------------------------------

NAV_EN = [
    *("Home", "World", "US", "Politics", "Business", "Tech", "Science", "Health", "Sport"),
    *("Culture", "Travel", "Food", "Style", "Opinion", "Video", "Audio", "Weather", "Local"),
    *("Education", "Climate", "Markets", "Autos", "Books", "Film", "Music", "TV", "Games"),
    *("Podcasts", "Newsletters", "Archive"),
]
MOST_READ = [
    "Council sets date for the spring budget vote",
    "Five things to do in the city this weekend",
    "Rail strike: what passengers need to know",
    "New bridge opens after three years of works",
    "School places: how the admissions lottery works",
    "The bakery that has fed the market for ninety years",
    "Storm warning issued for the coast on Friday",
    "Hospital car park charges to rise in January",
]
NOTICE = (
    "The Riverside Library will be closed on Monday 3 November for electrical maintenance. "
    "Books due that day may be returned on Tuesday without a fine."
)


def en_page(main: str, title: str, side: str = "", foot: str = "") -> str:
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{title} | The Town Crier</title><meta property="og:title" content="{title}">
<script>window.dataLayer = [{{"event": "pageview"}}];</script></head><body>
<div class="topbar"><a href="/signin">Sign in</a> <a href="/subscribe">Subscribe</a></div>
<header><div class="logo"><a href="/">The Town Crier</a></div>
<nav><ul>{_links(NAV_EN, "s")}</ul></nav></header>
<div id="page"><div id="primary">
<div class="crumbs"><a href="/">Home</a> › <a href="/local">Local</a></div>
{main}
<div class="share-bar">Share: Facebook X Email</div>
<div class="related-stories"><h3>Related stories</h3><ul>{_links(MOST_READ[::-1], "r")}</ul></div>
</div>
<aside id="secondary"><h3>Most read</h3><ol>{_links(MOST_READ, "m")}</ol>{side}</aside></div>
<footer><p><a href="/about">About us</a> | <a href="/contact">Contact</a> |
<a href="/terms">Terms</a></p><p>© 2026 The Town Crier. All rights reserved.</p>{foot}</footer>
</body></html>"""


EN_TEMPLATE_TEXT = [*MOST_READ, "Most read", "Related stories", "Sign in", "Subscribe"]
EN_TEMPLATE_TEXT += [
    "Share: Facebook",
    "All rights reserved",
    "About us",
    "Newsletters",
    "By Staff",
]

LONG_ARTICLE = [
    "The city council voted on Tuesday evening to turn the disused freight yard along the "
    "river into a public park, ending a debate that has divided residents for almost a "
    "decade. The plan passed by nine votes to four after a four-hour session.",
    "Under the approved design, the twelve-hectare site will get walking and cycling paths, "
    "a playground, a community garden and a small amphitheatre for summer concerts. Work on "
    "clearing the ground is expected to begin in the spring.",
    "Opponents argued that the land should have been sold to developers to ease the housing "
    "shortage, and several of them said they would keep pressing for a mix of homes and green "
    "space on the eastern edge of the yard.",
    "The mayor called the decision a turning point for the neighbourhood and promised that "
    "the park would be open to the public before the end of next year.",
    "Residents who spoke at the meeting were divided. A retired teacher who has lived "
    "opposite the yard for forty years said she had waited long enough to see something "
    "other than rusting rails from her window.",
    "A local builder said the city was wasting a rare chance to build affordable homes close "
    "to the centre, and warned that rents in the area would keep rising.",
    "The cost of the first phase is put at 14 million, of which a regional fund will pay "
    "half. The rest comes from the sale of two smaller plots elsewhere in the city.",
]


def _record(html: str, rid: str = "h1") -> RawRecord:
    data = {"id": rid, "url": f"https://www.example.net/a/{rid}.html", "html": html}
    return RawRecord("day.jsonl", 1, data, json.dumps(data, ensure_ascii=False))


def _assert_no_template(text: str, template: list[str]) -> None:
    for piece in template:
        assert piece not in text, f"template text {piece!r} in the extracted text:\n{text}"


# --- short texts inside a big template ---------------------------------------------------

POEM_MARKUPS = {
    "br_in_content_div": (
        '<div class="article"><h1>静夜思</h1><div class="info">2026-11-02 10:00　来源：'
        '诗词天地网</div><div class="content">' + "<br>\n".join(POEM) + "</div></div>"
    ),
    "p_per_line_in_article": (
        "<article><h1>静夜思</h1><p class='meta'>作者：李白</p>"
        + "".join(f"<p>{line}</p>" for line in POEM)
        + "</article>"
    ),
    "chinese_class_name": (
        '<div class="正文">' + "<br/>".join(POEM) + "</div><div class='author'>作者：李白</div>"
    ),
    "no_container_names": ("<div><h2>静夜思</h2><div>" + "<br>".join(POEM) + "</div></div>"),
}


@pytest.mark.parametrize("markup", sorted(POEM_MARKUPS))
def test_a_short_poem_inside_a_big_template_is_the_text(markup: str) -> None:
    html = zh_page(POEM_MARKUPS[markup])
    assert len(NAV_ZH) == 30 and html.count("<li>") == 30 + len(HOT_ZH) + len(RELATED_ZH)
    title, text = extract_html(html, "https://www.example.net/poem/1.html")
    assert title == "静夜思"
    assert [line for line in text.splitlines() if line in POEM] == POEM
    # At most a byline or date line of the article's own block besides the verse.
    assert len(text.splitlines()) <= len(POEM) + 1, text
    _assert_no_template(text, ZH_TEMPLATE_TEXT)


def test_a_short_english_notice_inside_a_template_is_the_text() -> None:
    main = (
        '<article class="post"><h1>Library closed on Monday</h1>'
        '<p class="byline">By Staff, 1 November 2026</p>'
        f'<div class="entry-content"><p>{NOTICE}</p></div></article>'
    )
    title, text = extract_html(en_page(main, "Library closed on Monday"), None)
    assert title == "Library closed on Monday"
    assert text == NOTICE
    _assert_no_template(text, EN_TEMPLATE_TEXT)


def test_short_verse_in_english_keeps_its_lines() -> None:
    verse = ["The way a crow", "Shook down on me", "The dust of snow", "From a hemlock tree"]
    main = f'<div class="post-body"><h1>Dust of Snow</h1><p>{"<br>".join(verse)}</p></div>'
    _, text = extract_html(en_page(main, "Dust of Snow"), None)
    assert text.splitlines() == verse
    _assert_no_template(text, EN_TEMPLATE_TEXT)


def test_a_copy_of_a_short_text_gets_the_plain_originals_keys() -> None:
    """The point of it all: the HTML copy is an exact duplicate of the plain-text poem."""
    cfg = Config().validate()
    plain = {"id": "p1", "title": "静夜思", "content": "\n".join(POEM)}
    original = prepare(RawRecord("day.jsonl", 1, plain, json.dumps(plain)), cfg, DAY)
    copy = prepare(_record(zh_page(POEM_MARKUPS["no_container_names"])), cfg, DAY)
    assert isinstance(original, dict) and isinstance(copy, dict)
    assert copy["content_key"] == original["content_key"]
    assert copy["head_key"] == original["head_key"]
    assert copy["title_key"] == original["title_key"]


def test_a_page_wrapper_named_like_a_sidebar_is_kept() -> None:
    """id="content" class="sidebar-right": a wrapper, not a sidebar (it holds the text)."""
    html = f"""<html><body><div id="content" class="layout sidebar-right">
<article><p>{NOTICE}</p></article>
<div class="sidebar"><ul>{_links(MOST_READ, "m")}</ul></div></div></body></html>"""
    _, text = extract_html(html, None)
    assert text == NOTICE


# --- long articles ------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_an_ordinary_long_article_keeps_its_paragraphs(engine: str) -> None:
    body = "".join(f"<p>{p}</p>" for p in LONG_ARTICLE)
    main = (
        '<article class="story"><h1>City council approves new riverside park</h1>'
        f'<p class="byline">By Jane Morgan</p><div class="story-body">{body}</div></article>'
    )
    html = en_page(main, "City council approves new riverside park")
    title, text = extract_html(html, None, engine)
    assert title == "City council approves new riverside park"
    assert text.splitlines() == LONG_ARTICLE
    _assert_no_template(text, [*EN_TEMPLATE_TEXT, "Jane Morgan"])


def test_a_long_chinese_article_keeps_its_paragraphs() -> None:
    paragraphs = [
        "本报讯　记者从市交通运输局获悉，连接城东新区与老城区的滨江大桥将于本月底正式通车。"
        "大桥全长一千二百米，双向六车道，设计时速六十公里，建成后两地之间的通行时间将由四十分钟缩短至十分钟。",
        "据介绍，大桥于三年前开工建设，总投资约十八亿元。为减少对江面航运的影响，"
        "施工方采用了整体吊装工艺，主桥钢箱梁在工厂预制后分段运抵现场拼装。",
        "市交通运输局相关负责人表示，通车后将同步开通三条跨江公交线路，"
        "并在桥两端设置非机动车道和人行步道，方便市民骑行和步行通过。",
    ] * 3
    main = (
        '<div class="article"><h1>滨江大桥月底通车</h1>'
        '<div class="info">2026-11-02　来源：本报</div>'
        '<div class="article-content">'
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</div></div>"
    )
    title, text = extract_html(zh_page(main, "滨江大桥月底通车"), None)
    assert title == "滨江大桥月底通车"
    assert text.splitlines() == [" ".join(p.split()) for p in paragraphs]
    _assert_no_template(text, ZH_TEMPLATE_TEXT)


def test_the_sample_news_article() -> None:
    html = (DATA / "news_article.html").read_text("utf-8")
    for engine in ENGINES:
        title, text = extract_html(html, None, engine)
        assert title == "City council approves new riverside park", engine
        assert "Copyright" not in text and "Sport" not in text, engine
        assert len(text) > 500, engine


# --- titles -------------------------------------------------------------------------------


def test_titles_og_title_then_title_then_h1() -> None:
    def title_of(head: str, body: str) -> str:
        tree = HTMLTree.parse(f"<html><head>{head}</head><body>{body}</body></html>")
        return html_text.page_title(tree)

    og = '<meta property="og:title" content="春晓">'
    assert title_of(f"<title>春晓_诗词天地网</title>{og}", "<h1>别的</h1>") == "春晓"
    assert title_of("<title>春晓_诗词天地网</title>", "<h1>春晓</h1><p>x</p>") == "春晓"
    assert title_of("<title>Road closure | The Town Crier</title>", "<p>x</p>") == (
        "Road closure | The Town Crier"
    )
    assert title_of("", "<h1>Road closure</h1><p>x</p>") == "Road closure"
    assert title_of("", "<p>x</p>") == ""


@pytest.mark.parametrize("og", [True, False])
def test_extract_html_titles(og: bool) -> None:
    title, text = extract_html(zh_page(POEM_MARKUPS["br_in_content_div"], og=og), None)
    assert title == "静夜思"  # og:title, else the <title> cut at the <h1>
    assert text.splitlines() == POEM


def test_the_heading_is_dropped_once() -> None:
    """A saying whose title is its first line keeps that line after the <h1>."""
    text = "Know thyself\nKnow thyself\nand be content."
    assert html_text.after_heading(text, "Know thyself") == "Know thyself\nand be content."
    assert html_text.after_heading("Site\n> Home\nTitle\nbody", "Title") == "body"
    assert html_text.after_heading("body\nTitle", "") == "body\nTitle"
    far = "\n".join(["x" * 100] * 4 + ["Title", "body"])
    assert html_text.after_heading(far, "Title") == far  # too far in: not the heading


# --- no main content ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_page_whose_main_content_is_empty_still_gives_its_text(engine: str) -> None:
    """Nothing main-content-like: the page's visible text, never nothing."""
    html = (
        "<html><body><div class='nav-main'><span>只有一句话的页面，没有正文容器。</span>"
        "</div></body></html>"
    )
    _, text = extract_html(html, None, engine)
    assert text == "只有一句话的页面，没有正文容器。"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_page_without_text_is_no_text(engine: str) -> None:
    cfg = Config().replace(**{"extract.engine": engine})
    html = "<html><head><script>var x = 1;</script></head><body><img src='a.png'></body></html>"
    out = prepare(_record(html), cfg, DAY)
    assert isinstance(out, Quarantined) and out.reason == "no_text"


# --- the engine is a setting ------------------------------------------------------------


def test_the_engine_is_selected_by_the_config(tmp_path: Path) -> None:
    assert Config().validate().extract.engine == "resiliparse"
    path = tmp_path / "c.toml"
    path.write_text('[extract]\nengine = "trafilatura"\n')
    cfg = load_config(path)
    assert cfg.extract.engine == "trafilatura"
    html = zh_page(POEM_MARKUPS["no_container_names"])
    out = prepare(_record(html), cfg, DAY)
    assert isinstance(out, dict) and out["title"] == "静夜思"
    path.write_text('[extract]\nengine = "lxml"\n')
    with pytest.raises(ConfigError, match=r"extract\.engine"):
        load_config(path)
