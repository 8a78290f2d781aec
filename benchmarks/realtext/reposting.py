"""How other sites repost an article, and the look-alikes that are not copies.

Independent of the product: this module imports nothing from ``crawldedup`` (its tiny
helpers are its own), so the evaluation set does not inherit the product's notion of
"the same text". Every function takes a ``random.Random`` and is deterministic for
its seed.

A page is a title plus text (paragraphs separated by ``\\n``) in a language (``zh`` or
``en``); an HTML page also carries ``html``. Copy kinds (``COPY_KINDS``) map a page to a
reposted page; ``render_html`` puts a page into a site's HTML template. Hard negatives
(``HARD_FAMILIES``) are built by ``with_boilerplate``, ``fill_templates``,
``with_copyright_tail`` and by the builder (generic titles, near editions, short verse).

Big-template sites (``make_big_sites``): sites whose fixed header, navigation, related
links and footer (15-40 lines, longer than a short text) frame every page;
``in_big_template`` serves a short text there (as text extraction or as HTML), and
``BIG_KINDS`` are its copies: the same text in another big site's frame, or bare.

``TARGETED_KINDS`` (``reflowed_after_prefix``: a poem's or list's lines on one line
after a prefix; ``short_excerpt``: one to three paragraphs of a long article) are copy
kinds the builder makes only from the originals that suit them (``reflowable``,
``excerpt_spans``), never at random (they are not in ``LONG_KINDS``).

Standard-heading sites (``make_heading_sites``: man-page and help-centre sites) put
their section headings, credit lines and footer on every page (``in_heading_template``);
``headings_repost`` is a short page reposted elsewhere (``HEADINGS_KINDS``).
Rotating-sidebar sites (``make_sidebar_sites``) put a "related" sidebar of real titles
on every page, drawn anew for each (``draw_sidebar``, ``in_sidebar_template``);
``SIDEBAR_KINDS`` is the same article served again with another rotation.
"""

from __future__ import annotations

import html as _html
import random
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Page:
    title: str
    text: str  # paragraphs separated by "\n"
    lang: str  # "zh" or "en"
    html: str | None = None  # set when the record is served as HTML


@dataclass(frozen=True)
class Site:
    name: str
    host: str
    lang: str
    nav: tuple[str, ...]
    template: int  # which HTML layout (0..3)


ZH_NAV = ("首页", "新闻", "财经", "科技", "教育", "文化", "体育", "健康", "论坛", "专题", "视频")
EN_NAV = ("Home", "News", "Business", "Tech", "Science", "Culture", "Opinion", "Sports", "About")

_ZH_SITES = (
    ("山河资讯网", "shanhe-news.cn"),
    ("云帆科技", "yunfan-tech.com"),
    ("东方读书频道", "dfdushu.net"),
    ("星火知识库", "xinghuo-kb.org"),
    ("青石博客", "qingshi-blog.cn"),
    ("南山论坛", "nanshan-bbs.com"),
    ("晨光日报", "chenguang-daily.cn"),
    ("码农周刊", "manong-weekly.com"),
    ("江城在线", "jiangcheng-online.cn"),
    ("开源中文社区", "oss-zh.org"),
    ("书香文苑", "shuxiang-wenyuan.net"),
    ("极客文摘", "jike-wenzhai.com"),
)
_EN_SITES = (
    ("The Daily Byte", "dailybyte.example.com"),
    ("Open Source Weekly", "osweekly.example.org"),
    ("Riverside Herald", "riversideherald.example.com"),
    ("Linux Notes", "linuxnotes.example.net"),
    ("Tech Digest", "techdigest.example.com"),
    ("The Reading Room", "readingroom.example.org"),
    ("Developer Journal", "devjournal.example.com"),
    ("Quiet Corner Blog", "quietcorner.example.net"),
)


def make_sites(rng: random.Random) -> dict[str, list[Site]]:
    """The sites of each language, each with its navigation and HTML layout."""
    out: dict[str, list[Site]] = {"zh": [], "en": []}
    for lang, table, nav in (("zh", _ZH_SITES, ZH_NAV), ("en", _EN_SITES, EN_NAV)):
        for i, (name, host) in enumerate(table):
            items = list(nav[1:])
            rng.shuffle(items)
            out[lang].append(Site(name, host, lang, (nav[0], *items[: rng.randint(5, 8)]), i % 4))
    return out


# --------------------------------------------------------------------------- helpers


def paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n") if p.strip()]


def join(paras: Sequence[str]) -> str:
    return "\n".join(paras)


_SENT_END = re.compile(r"(?<=[。！？!?；])|(?<=[.!?])\s+(?=[A-Z\"'(])")


def sentences(text: str) -> list[str]:
    """Sentences of one paragraph (Chinese end marks, or English ., ! and ? before a capital)."""
    return [s for s in _SENT_END.split(text) if s and s.strip()]


def plain_key(text: str) -> str:
    """Letters, digits and CJK only, width and case folded: what 'the same words' means here."""
    t = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in t if ch.isalnum())


def _date(rng: random.Random, lang: str) -> str:
    y, m, d = 2026, rng.randint(1, 10), rng.randint(1, 28)
    return f"{y}年{m}月{d}日" if lang == "zh" else f"{y}-{m:02d}-{d:02d}"


def _other(rng: random.Random, sites: Sequence[Site], not_site: Site | None) -> Site:
    pool = [s for s in sites if s != not_site] or list(sites)
    return rng.choice(pool)


ZH_EDITORS = ("王磊", "李娜", "张伟", "刘洋", "陈静", "杨帆", "赵敏", "黄强", "周婷", "吴昊")
EN_EDITORS = ("J. Carter", "M. Alvarez", "S. Nakamura", "R. Okafor", "L. Fischer", "A. Novak")

# --------------------------------------------------------------------------- copy kinds

ZH_SOURCE_LINES = (
    "转载自{src}",
    "来源：{src}",
    "本文转载自{src}，版权归原作者所有。",
    "文章来源：{src}（{date}）",
    "原文出处：{src}",
    "【来源：{src}】",
    "转自 {src} 作者：{editor}",
)
EN_SOURCE_LINES = (
    "Originally published at {src}.",
    "Source: {src}",
    "This article first appeared on {src} on {date}.",
    "Reposted from {src}.",
    "Via {src} (by {editor})",
)
ZH_FOOTERS = (
    "（责任编辑：{editor}）",
    "本文来自{src}，转载请注明出处。",
    "版权声明：本文版权归原作者所有，如有侵权请联系删除。",
    "【免责声明】本文仅代表作者本人观点，与{site}无关。",
    "更多精彩内容，请关注{site}。（编辑：{editor}）",
)
EN_FOOTERS = (
    "© 2026 {site}. All rights reserved.",
    "This article is republished from {src} under a Creative Commons license.",
    "(Editing by {editor})",
    "Copyright 2026 {site}. Reprinted with permission.",
    "Follow {site} for more stories like this.",
)


def _fill(rng: random.Random, line: str, page: Page, site: Site, src: str) -> str:
    editors = ZH_EDITORS if page.lang == "zh" else EN_EDITORS
    return line.format(
        src=src, site=site.name, date=_date(rng, page.lang), editor=rng.choice(editors)
    )


def source_line_text(rng: random.Random, page: Page, site: Site, src: str) -> str:
    lines = ZH_SOURCE_LINES if page.lang == "zh" else EN_SOURCE_LINES
    return _fill(rng, rng.choice(lines), page, site, src)


def footer_text(rng: random.Random, page: Page, site: Site, src: str) -> str:
    lines = ZH_FOOTERS if page.lang == "zh" else EN_FOOTERS
    return _fill(rng, rng.choice(lines), page, site, src)


def exact_mirror(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """The same page, unchanged (the builder serves it from another host)."""
    return page


def source_line(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    return replace(
        page, text=join([source_line_text(rng, page, site, src or site.name), page.text])
    )


def footer(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    return replace(page, text=join([page.text, footer_text(rng, page, site, src or site.name)]))


def source_and_footer(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    return footer(rng, source_line(rng, page, site, src), site, src)


ZH_TITLE_PREFIXES = ("", "", "深度｜", "干货：", "重磅！", "收藏：", "一文读懂：")
EN_TITLE_PREFIXES = ("", "", "Explained: ", "Opinion: ", "Must read: ", "Guide: ")


def new_title(rng: random.Random, page: Page) -> str:
    """A headline cut from one of the article's sentences."""
    sents = [s.strip() for p in paragraphs(page.text) for s in sentences(p) if len(s.strip()) > 6]
    base = rng.choice(sents) if sents else page.text[:30]
    if page.lang == "zh":
        base = re.split(r"[，。！？；：,.!?;:]", base)[0] or base
        head = base[: rng.randint(8, 24)]
        return rng.choice(ZH_TITLE_PREFIXES) + head
    words = base.split()
    head = " ".join(words[: rng.randint(4, 10)]).rstrip(",.;:")
    return rng.choice(EN_TITLE_PREFIXES) + head[:1].upper() + head[1:]


def new_title_and_both(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    return replace(source_and_footer(rng, page, site, src), title=new_title(rng, page))


ZH_DECOR = (
    "【转】{t}",
    "「原创」{t}",
    "{t} - {site}",
    "Re: {t}",
    "[转载]{t}",
    "{t}_{site}",
    "{t}（转）",
)
EN_DECOR = ("{t} - {site}", "Re: {t}", "[Repost] {t}", "{t} | {site}", "Fwd: {t}")


def title_decoration(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    forms = ZH_DECOR if page.lang == "zh" else EN_DECOR
    return replace(page, title=rng.choice(forms).format(t=page.title, site=site.name))


def nav_lines(rng: random.Random, site: Site) -> list[str]:
    sep = rng.choice((" | ", " · ", "  "))
    here = rng.choice(site.nav[1:])
    if site.lang == "zh":
        return [
            f"{site.name} {sep.join(site.nav)}",
            "登录 | 注册 | 投稿 | 手机版 | 网站地图",
            f"当前位置：首页 > {here} > 正文",
        ]
    return [
        f"{site.name}{sep}{sep.join(site.nav)}",
        "Sign in | Subscribe | Newsletter | Contact",
        f"You are here: Home > {here} > Article",
    ]


def link_block(rng: random.Random, site: Site, heading: str, titles: Sequence[str]) -> list[str]:
    picks = rng.sample(list(titles), min(len(titles), rng.randint(4, 6))) if titles else []
    return [heading, *(f"· {t}" for t in picks)]


def site_boilerplate(
    rng: random.Random, page: Page, site: Site, src: str = "", titles: Sequence[str] = ()
) -> Page:
    """The article inside the site's navigation, related-links and hot-articles blocks."""
    zh = page.lang == "zh"
    top = nav_lines(rng, site)
    bottom = link_block(rng, site, "相关文章" if zh else "Related articles", titles)
    bottom += link_block(rng, site, "热门文章" if zh else "Most read", titles)
    bottom.append("分享到：微博 微信 QQ空间" if zh else "Share: Twitter Facebook Email")
    bottom.append(
        f"Copyright © 2026 {site.name} 版权所有" if zh else f"Copyright © 2026 {site.name}"
    )
    return replace(page, text=join([*top, page.text, *bottom]))


_TEMPLATES = (
    # 0: header + nav, article, sidebar, related, footer
    (
        '<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        "<title>{htitle}</title></head>\n<body>\n"
        '<header><div class="logo"><a href="/">{site}</a></div>\n'
        "<nav><ul>{nav}</ul></nav></header>\n"
        '<div class="container"><main>\n<article>\n<h1>{title}</h1>\n'
        '<div class="meta">{date} {srcl}</div>\n{body}\n</article>\n</main>\n'
        '<aside class="sidebar"><h3>{hot}</h3><ul>{hotlinks}</ul></aside></div>\n'
        '<section class="related"><h3>{rel}</h3><ul>{rellinks}</ul></section>\n'
        "<footer><p>{copy}</p><p>{footnav}</p></footer>\n</body></html>\n"
    ),
    # 1: old table-free portal with div ids
    (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
        "<title>{htitle}</title></head><body>\n"
        '<div id="top"><span class="site">{site}</span> <div id="menu">{navp}</div></div>\n'
        '<div id="crumb">{crumb}</div>\n<div id="main"><div id="left">\n'
        '<h1 class="title">{title}</h1><div class="info">{date} {srcl}</div>\n'
        '<div id="content" class="article-content">\n{body}\n</div>\n'
        '<div class="relate"><b>{rel}</b><ul>{rellinks}</ul></div></div>\n'
        '<div id="right"><div class="box"><b>{hot}</b><ul>{hotlinks}</ul></div></div></div>\n'
        '<div id="footer">{copy}<br>{footnav}</div></body></html>\n'
    ),
    # 2: blog
    (
        '<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{htitle}</title>'
        '<meta name="description" content="{desc}"></head><body class="post">\n'
        '<div class="site-header"><h2 class="site-title">{site}</h2>'
        '<ul class="menu">{nav}</ul></div>\n'
        '<div class="wrap"><div class="post-body">\n<h1 class="entry-title">{title}</h1>\n'
        '<p class="byline">{date}</p>\n<div class="entry-content">\n{body}\n</div>\n'
        '<div class="tags">{srcl}</div></div>\n'
        '<div class="widget"><h4>{hot}</h4><ul>{hotlinks}</ul></div>\n'
        '<div class="widget"><h4>{rel}</h4><ul>{rellinks}</ul></div></div>\n'
        '<div class="site-footer">{copy} · {footnav}</div></body></html>\n'
    ),
    # 3: forum thread
    (
        '<html><head><meta charset="utf-8"><title>{htitle}</title></head><body>\n'
        '<div class="bbs-head">{site} <span class="links">{navp}</span></div>\n'
        '<div class="bbs-crumb">{crumb}</div>\n<table class="thread"><tr><td class="author">'
        '{date}</td><td class="post">\n<h1>{title}</h1>\n<div class="postbody">\n{body}\n'
        "</div></td></tr></table>\n"
        '<div class="bbs-side"><p>{hot}</p><ul>{hotlinks}</ul>'
        "<p>{rel}</p><ul>{rellinks}</ul></div>\n"
        '<div class="bbs-foot">{copy} {footnav}</div></body></html>\n'
    ),
)


def render_html(
    rng: random.Random,
    page: Page,
    site: Site,
    src: str = "",
    titles: Sequence[str] = (),
    with_meta: bool = True,
) -> Page:
    """The page in the site's HTML layout: header, navigation, sidebar, related links,
    footer; the article's paragraphs as ``<p>`` inside ``<article>`` or a content div."""
    zh = page.lang == "zh"
    esc = _html.escape

    def links(k: int) -> str:
        picks = rng.sample(list(titles), min(len(titles), k)) if titles else []
        return "".join(
            f'<li><a href="/a/{rng.randint(10000, 99999)}.html">{esc(t)}</a></li>' for t in picks
        )

    nav = "".join(f'<li><a href="/{i}/">{esc(n)}</a></li>' for i, n in enumerate(site.nav))
    navp = " | ".join(f'<a href="/{i}/">{esc(n)}</a>' for i, n in enumerate(site.nav))
    body = "\n".join(f"<p>{esc(p)}</p>" for p in paragraphs(page.text))
    srcl = ""
    if with_meta:
        srcl = f"来源：{esc(src or site.name)}" if zh else f"Source: {esc(src or site.name)}"
    here = rng.choice(site.nav[1:])
    fields = {
        "lang": "zh-CN" if zh else "en",
        "htitle": esc(f"{page.title} - {site.name}" if rng.random() < 0.7 else page.title),
        "title": esc(page.title),
        "site": esc(site.name),
        "nav": nav,
        "navp": navp,
        "crumb": esc(f"首页 > {here} > 正文" if zh else f"Home > {here} > Article"),
        "date": esc(_date(rng, page.lang)),
        "srcl": srcl,
        "body": body,
        "hot": "热门文章" if zh else "Most read",
        "rel": "相关阅读" if zh else "Related",
        "hotlinks": links(rng.randint(4, 7)),
        "rellinks": links(rng.randint(3, 6)),
        "copy": esc(
            f"Copyright © 2026 {site.name} 版权所有 京ICP备{rng.randint(10000000, 99999999)}号"
            if zh
            else f"Copyright © 2026 {site.name}. All rights reserved."
        ),
        "footnav": esc(
            "关于我们 | 联系我们 | 广告服务 | 隐私政策"
            if zh
            else "About | Contact | Privacy | Terms"
        ),
        "desc": esc(page.text[:80]),
    }
    return replace(page, html=_TEMPLATES[site.template % len(_TEMPLATES)].format(**fields))


def rerender_html(
    rng: random.Random, page: Page, site: Site, src: str = "", titles: Sequence[str] = ()
) -> Page:
    """The article as another site's HTML page (the builder passes the copying site)."""
    return render_html(rng, replace(page, html=None), site, src, titles)


_TO_ASCII_PUNCT = str.maketrans(
    {"，": ",", "。": ".", "；": ";", "：": ":", "！": "!", "？": "?", "（": "(", "）": ")",
     "“": '"', "”": '"', "‘": "'", "’": "'", "、": ","}
)  # fmt: skip
_TO_CJK_PUNCT = str.maketrans(
    {",": "，", ";": "；", ":": "：", "!": "！", "?": "？", "(": "（", ")": "）"}
)


def to_fullwidth(text: str, share: float, rng: random.Random) -> str:
    out = []
    for ch in text:
        if ch.isascii() and ch.isalnum() and rng.random() < share:
            out.append(chr(ord(ch) + 0xFEE0))
        else:
            out.append(ch)
    return "".join(out)


def to_halfwidth(text: str) -> str:
    return "".join(
        chr(ord(ch) - 0xFEE0) if 0xFF01 <= ord(ch) <= 0xFF5E else ch for ch in text
    ).replace("\u3000", " ")


def extra_spaces(text: str, rng: random.Random, share: float = 0.05) -> str:
    out = []
    for ch in text:
        out.append(ch)
        if ch != "\n" and rng.random() < share:
            out.append(rng.choice((" ", "  ", "\u3000")))
    return "".join(out)


def rebreak(text: str, rng: random.Random, lang: str = "zh") -> str:
    """Line breaks changed: paragraphs merged pairwise, split at a sentence, or doubled."""
    paras = paragraphs(text)
    how = rng.randrange(3)
    if how == 0 and len(paras) > 1:
        merged = []
        for i in range(0, len(paras), 2):
            merged.append(("" if lang == "zh" else " ").join(paras[i : i + 2]))
        return join(merged)
    if how == 1:
        out = []
        for p in paras:
            s = sentences(p)
            out.extend(s if len(s) > 1 and rng.random() < 0.5 else [p])
        return join(x.strip() for x in out)
    return "\n\n".join(paras)


def whitespace_punct_width(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """Full-/half-width swaps, extra spaces, line-break changes, punctuation swaps."""
    text = page.text
    ops = rng.sample(range(4), rng.randint(2, 4))
    for op in ops:
        if op == 0:
            text = to_fullwidth(text, rng.uniform(0.3, 1.0), rng)
        elif op == 1:
            text = text.translate(_TO_ASCII_PUNCT if page.lang == "zh" else _TO_CJK_PUNCT)
        elif op == 2:
            text = extra_spaces(text, rng)
        else:
            text = rebreak(text, rng, page.lang)
    return replace(page, text=text)


ZH_SWAPS = {
    "可以": "能够", "因为": "由于", "但是": "不过", "所以": "因此", "如果": "假如",
    "非常": "十分", "已经": "早已", "进行": "开展", "使用": "采用", "需要": "须要",
    "这个": "此", "目录": "文件夹", "命令": "指令", "用户": "使用者", "文件": "档案",
}  # fmt: skip
EN_SWAPS = {
    "use": "employ", "large": "big", "small": "little", "show": "display", "start": "begin",
    "help": "assist", "often": "frequently", "however": "but", "many": "numerous",
    "need": "require", "make": "create", "simple": "easy", "example": "instance",
}  # fmt: skip
ZH_ADDED = ("编者注：本文有删节。", "以上内容仅供参考。", "欢迎读者留言讨论。")
EN_ADDED = ("Editor's note: this article has been lightly edited.", "Comments are welcome.")


def small_edits(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """A few words replaced, and a sentence dropped or added."""
    paras = paragraphs(page.text)
    zh = page.lang == "zh"
    swaps = ZH_SWAPS if zh else EN_SWAPS
    n_edits = rng.randint(1, 3)
    done = 0
    order = list(range(len(paras)))
    rng.shuffle(order)
    for i in order:
        if done >= n_edits:
            break
        for a, b in swaps.items():
            pat = re.compile(re.escape(a) if zh else rf"\b{re.escape(a)}\b")
            if pat.search(paras[i]):
                paras[i] = pat.sub(b, paras[i], count=1)
                done += 1
                break
    while done < n_edits and paras:  # fall back: one character or word replaced
        i = rng.randrange(len(paras))
        p = paras[i]
        if zh:
            idx = [k for k, ch in enumerate(p) if "\u4e00" <= ch <= "\u9fff"]
            if idx:
                k = rng.choice(idx)
                paras[i] = p[:k] + rng.choice("的一是在了有和人这中大为上个国我以要他") + p[k + 1 :]
        else:
            words = p.split(" ")
            if len(words) > 3:
                del words[rng.randrange(len(words))]
                paras[i] = " ".join(words)
        done += 1
    sent_counts = [len(sentences(p)) for p in paras]
    if rng.random() < 0.5 and sum(sent_counts) >= 4:
        i = rng.choice([k for k, c in enumerate(sent_counts) if c >= 2] or [0])
        s = sentences(paras[i])
        if len(s) >= 2:
            del s[rng.randrange(len(s))]
            paras[i] = ("" if zh else " ").join(x.strip() for x in s)
    else:
        paras.insert(rng.randint(1, max(1, len(paras))), rng.choice(ZH_ADDED if zh else EN_ADDED))
    return replace(page, text=join(paras))


def excerpt(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """30–70 % of the article: contiguous paragraphs (or sentences, or characters)."""
    total = len(page.text)
    lo, hi = 0.3 * total, 0.7 * total

    def pick(units: list[str], sep: str) -> str | None:
        starts = list(range(len(units)))
        rng.shuffle(starts)
        for a in starts:
            size = -len(sep)
            for b in range(a, len(units)):
                size += len(units[b]) + len(sep)
                if size > hi:
                    break
                if size >= lo:
                    return sep.join(units[a : b + 1])
        return None

    paras = paragraphs(page.text)
    got = None
    if rng.random() < 0.5:  # a lead: the first paragraphs, as quoting sites mostly take
        size = -1
        for b, p in enumerate(paras):
            size += len(p) + 1
            if size > hi:
                break
            if size >= lo:
                got = join(paras[: b + 1])
                break
    got = got or pick(paras, "\n")
    if got is None:
        sents = [s for p in paras for s in sentences(p)]
        got = pick(sents, "" if page.lang == "zh" else " ")
    if got is None:  # one long run of text: a contiguous slice of characters
        n = int(total * rng.uniform(0.35, 0.65))
        a = rng.randint(0, total - n)
        got = page.text[a : a + n]
    return replace(page, text=got)


def short_text(
    rng: random.Random, page: Page, site: Site, src: str = "", titles: Sequence[str] = ()
) -> Page:
    """A verse or notice under 300 characters, copied with a source line or as HTML."""
    if rng.random() < 0.5:
        zh = page.lang == "zh"
        line = source_line_text(rng, page, site, src or site.name)
        if rng.random() < 0.5:
            return replace(page, text=join([line, page.text]))
        tail = f"——摘自{src or site.name}" if zh else f"— from {src or site.name}"
        return replace(page, text=join([page.text, tail]))
    return render_html(rng, page, site, src, titles)


# Reflowed verse or lists: a repost that runs the lines of a poem (or the items of a list)
# together on one line after a prefix, as chat and microblog posts do.
ZH_REFLOW_PREFIXES = ("原文：", "全文：", "分享一首：", "今日推荐：", "抄录如下：")
EN_REFLOW_PREFIXES = ("Quote: ", "Today's quote: ", "Found this: ", "Worth reading: ")
REFLOW_LINE_MAX = 120  # characters of one line of a text that is reflowed
REFLOW_TEXT_MAX = 600
_EN_AUTHOR = re.compile(r"(?:^|\s)(?:--+|—|―)\s*([A-Z][\w.'\- ]{1,40}?)\s*$")


def reflow_parts(page: Page) -> tuple[str | None, list[str]]:
    """The author of a poem or quote (a Chinese "作者：" first line; an English
    "-- Name" last line, or ending the last line) and its lines without it."""
    lines = [p.strip() for p in paragraphs(page.text)]
    if page.lang == "zh" and lines and lines[0].startswith("作者："):
        return lines[0][3:].strip() or None, lines[1:]
    if page.lang == "en" and lines:
        m = _EN_AUTHOR.search(lines[-1])
        if m and len(m.group(1).split()) <= 5:
            last = lines[-1][: m.start()].strip()
            return m.group(1), lines[:-1] + ([last] if last else [])
    return None, lines


def reflowable(page: Page) -> bool:
    """Whether a text reads as verse or a list: two lines or more, each short."""
    _author, lines = reflow_parts(page)
    return (
        len(lines) >= 2
        and len(page.text) <= REFLOW_TEXT_MAX
        and all(len(x) <= REFLOW_LINE_MAX for x in lines)
    )


def reflowed_after_prefix(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """The lines joined on ONE line after a prefix: "作者：李白 " / "By Name: " when the
    text names its author, else a site's "原文：" / "Quote: "."""
    author, lines = reflow_parts(page)
    zh = page.lang == "zh"
    if author:
        prefix = f"作者：{author} " if zh else f"By {author}: "
    else:
        prefix = rng.choice(ZH_REFLOW_PREFIXES if zh else EN_REFLOW_PREFIXES)
    sep = rng.choice(("", " ", "\u3000") if zh else (" ", " / ", "  "))
    return replace(page, text=prefix + sep.join(lines), html=None)


# Short excerpts: one to three consecutive paragraphs of a longer article quoted on
# another page, with the quoting page's own intro line and credit line at times.
ZH_EXCERPT_INTROS = (
    "以下文字摘自《{title}》：",
    "摘录一段：",
    "读到一段话，分享给大家：",
    "《{title}》中有这样一段：",
)
ZH_EXCERPT_CREDITS = (
    "（节选自{src}《{title}》）",
    "——摘自《{title}》",
    "原文见{src}。",
    "（摘自{src}，有删节）",
)
EN_EXCERPT_INTROS = (
    "From \u201c{title}\u201d:",
    "A passage worth quoting:",
    "Here is how \u201c{title}\u201d puts it:",
    "Quoted from {src}:",
)
EN_EXCERPT_CREDITS = (
    "(Excerpted from \u201c{title}\u201d, {src}.)",
    "\u2014 from {src}",
    "Read the full piece at {src}.",
    "Source: {src}",
)
SHORT_EXCERPT_MAX_SHARE = 0.25  # of the article's characters, at most
_EXCERPT_PARA_MIN = {"zh": 15, "en": 40}  # characters of each quoted paragraph
_EXCERPT_MIN = {"zh": 60, "en": 150}  # characters quoted in all


def excerpt_spans(
    page: Page, skip: frozenset[str] | set[str] = frozenset()
) -> list[tuple[int, int]]:
    """Runs ``paragraphs[a:b]`` of one to three paragraphs that a short excerpt may
    quote: each paragraph of some length and not in ``skip`` (paragraphs other texts
    share), together long enough to identify and at most ``SHORT_EXCERPT_MAX_SHARE``
    of the article."""
    paras = paragraphs(page.text)
    most = SHORT_EXCERPT_MAX_SHARE * len(page.text)
    lo, para_min = _EXCERPT_MIN[page.lang], _EXCERPT_PARA_MIN[page.lang]
    out = []
    for a in range(len(paras)):
        size = 0
        for b in range(a + 1, min(a + 3, len(paras)) + 1):
            p = paras[b - 1]
            if p in skip or len(p) < para_min:
                break
            size += len(p)
            if size > most:
                break
            if size >= lo:
                out.append((a, b))
    return out


def short_excerpt(
    rng: random.Random,
    page: Page,
    site: Site,
    src: str = "",
    skip: frozenset[str] | set[str] = frozenset(),
) -> Page:
    """One to three consecutive paragraphs of the article (``excerpt_spans``; the
    longest paragraph when no run fits), sometimes after an intro line and before a
    credit line of the quoting site."""
    paras = paragraphs(page.text)
    spans = excerpt_spans(page, skip)
    if spans:
        a, b = rng.choice(spans)
    else:
        a = max(range(len(paras)), key=lambda i: len(paras[i])) if paras else 0
        b = a + 1
    zh = page.lang == "zh"
    fill = {"title": page.title, "src": src or site.name}
    lines = []
    if rng.random() < 0.4:
        lines.append(rng.choice(ZH_EXCERPT_INTROS if zh else EN_EXCERPT_INTROS).format(**fill))
    lines += paras[a:b]
    if rng.random() < 0.6:
        lines.append(rng.choice(ZH_EXCERPT_CREDITS if zh else EN_EXCERPT_CREDITS).format(**fill))
    title = page.title
    if rng.random() < 0.3:
        title = f"摘录｜{page.title}" if zh else f"Excerpt: {page.title}"
    return replace(page, title=title, text=join(lines), html=None)


CopyFn = Callable[..., Page]
COPY_KINDS: dict[str, CopyFn] = {
    "exact_mirror": exact_mirror,
    "source_line": source_line,
    "footer": footer,
    "source_and_footer": source_and_footer,
    "new_title_and_both": new_title_and_both,
    "title_decoration": title_decoration,
    "site_boilerplate": site_boilerplate,
    "rerender_html": rerender_html,
    "whitespace_punct_width": whitespace_punct_width,
    "small_edits": small_edits,
    "excerpt": excerpt,
    "short_text": short_text,
    "reflowed_after_prefix": reflowed_after_prefix,
    "short_excerpt": short_excerpt,
}
# Kinds the builder makes from the originals that suit them, at a planned count (a
# poem or list reflowed; one to three paragraphs of a long article), not at random.
TARGETED_KINDS = ("reflowed_after_prefix", "short_excerpt")
LONG_KINDS = tuple(k for k in COPY_KINDS if k != "short_text" and k not in TARGETED_KINDS)
TAKES_TITLES = {"site_boilerplate", "rerender_html", "short_text"}


def make_copy(
    kind: str, rng: random.Random, page: Page, site: Site, src: str, titles: Sequence[str]
) -> Page:
    fn = COPY_KINDS[kind]
    if kind in TAKES_TITLES:
        return fn(rng, page, site, src, titles)
    return fn(rng, page, site, src)


# --------------------------------------------------------------------------- hard negatives

HARD_FAMILIES = (
    "shared_boilerplate",
    "same_template_fill",
    "generic_title",
    "near_editions",
    "same_copyright_tail",
    "short_verse",
    "big_template_short",
    "versioned_editions",
    "standard_headings_short",
    "rotating_sidebar",
)

ZH_ABOUT = (
    "{site}是一家专注于原创内容的综合性网站，创办于{year}年，致力于为读者提供及时、准确、有深度的资讯服务。",
    "本站内容涵盖新闻、科技、文化、教育、生活等多个领域，每日更新上千条信息，日均访问量超过{n}万人次。",
    "我们坚持“内容为王、读者第一”的理念，汇聚了一批经验丰富的编辑和特约撰稿人。",
    "欢迎广大读者投稿，来稿请注明真实姓名和联系方式，一经采用即付稿酬。",
    "如需转载本站原创文章，请事先与编辑部取得联系，并在显著位置注明出处。",
    "本站所载文章、数据仅供参考，使用前请核实，风险自负。",
    "广告合作请致电{phone}，或发送邮件至ad@{host}。",
    "违法和不良信息举报电话：{phone}，举报邮箱：jubao@{host}。",
)
EN_ABOUT = (
    "{site} is an independent publication founded in {year}, covering technology, "
    "science and culture for curious readers.",
    "Our newsroom publishes dozens of stories every day and reaches more than "
    "{n}0,000 readers each month.",
    "We believe in accurate reporting, clear writing and respect for our readers' time.",
    "Submissions are welcome; please include your full name and a way to reach you.",
    "To republish one of our original articles, contact the editors first and credit "
    "{site} prominently.",
    "Articles and data on this site are for information only and should be verified before use.",
    "For advertising, call {phone} or write to ads@{host}.",
    "Report an error or abuse at corrections@{host}; we review every message.",
)


def boilerplate_block(rng: random.Random, site: Site, min_chars: int = 300) -> str:
    """A long site block (navigation, about text, contact) of several hundred characters."""
    lines = nav_lines(rng, site)
    about = list(ZH_ABOUT if site.lang == "zh" else EN_ABOUT)
    rng.shuffle(about)
    phone = f"010-{rng.randint(60000000, 89999999)}"
    fill = {"site": site.name, "host": site.host, "year": rng.randint(1998, 2015),
            "n": rng.randint(10, 99), "phone": phone}  # fmt: skip
    text = join(lines)
    for s in about:
        if len(text) >= min_chars + rng.randint(0, 300):
            break
        text += "\n" + s.format(**fill)
    return text


def with_boilerplate(page: Page, block: str, at_top: bool) -> Page:
    return replace(page, text=join([block, page.text] if at_top else [page.text, block]))


ZH_COPYRIGHT = (
    "版权声明：凡本网注明“来源：{site}”的所有作品，版权均属于{site}，未经本网授权不得转载、摘编或利用其它方式使用上述作品。"
    "已经本网授权使用作品的，应在授权范围内使用，并注明“来源：{site}”。违反上述声明者，本网将追究其相关法律责任。"
    "凡本网注明“来源：XXX（非本网）”的作品，均转载自其它媒体，转载目的在于传递更多信息，并不代表本网赞同其观点和对其真实性负责。"
    "如因作品内容、版权和其它问题需要同本网联系的，请在作品发表之日起30日内进行。联系电话：{phone}。"
)
EN_COPYRIGHT = (
    "Copyright © 2026 {site}. All rights reserved. This material may not be published, "
    "broadcast, rewritten or redistributed in whole or in part without the express written "
    "permission of {site}. Articles marked as coming from other sources are reproduced to "
    "share information and do not imply endorsement of their views or verification of their "
    "accuracy. If you believe any content on this site infringes your rights, contact the "
    "editors at legal@{host} within 30 days of publication and we will respond promptly."
)


def copyright_tail(rng: random.Random, site: Site) -> str:
    form = ZH_COPYRIGHT if site.lang == "zh" else EN_COPYRIGHT
    return form.format(
        site=site.name, host=site.host, phone=f"010-{rng.randint(60000000, 89999999)}"
    )


def with_copyright_tail(page: Page, tail: str) -> Page:
    return replace(page, text=join([page.text, tail]))


ZH_NOTICE_TEMPLATES = (
    (
        "关于{place}停水的通知",
        "因{reason}，{date}{hour}时起，{place}{area}将暂停供水，预计{n}小时后恢复供水。"
        "请广大居民提前做好储水准备，由此带来的不便敬请谅解。特此通知。\n{org}\n{date2}",
    ),
    (
        "{project}中标公告",
        "{org}{project}项目经评标委员会评审，现确定{company}为中标单位，中标金额{amount}万元。"
        "公示期为{n}日，自{date}至{date2}。如有异议，请在公示期内联系{name}，电话{phone}。",
    ),
    (
        "{holiday}放假通知",
        "各部门：根据国务院办公厅通知精神，结合本单位实际，现将{holiday}放假安排通知如下："
        "{date}至{date2}放假调休，共{n}天。放假期间请做好安全防范工作。\n{org}办公室",
    ),
    (
        "{company}招聘启事",
        "{company}因业务发展需要，现面向社会招聘{post}{n}名。要求本科及以上学历，"
        "具有相关工作经验者优先，待遇面议。有意者请于{date}前将简历发送至hr@{mail}，联系人：{name}。",
    ),
    (
        "关于召开{meeting}的通知",
        "各位{who}：定于{date}{hour}时在{place}召开{meeting}，请准时参加，不得无故缺席。"
        "如有特殊情况请提前向{name}请假，联系电话{phone}。\n{org}\n{date2}",
    ),
)
EN_NOTICE_TEMPLATES = (
    (
        "Notice of water service interruption",
        "Due to {reason_en}, water service on {street} between {a} and {b} will be "
        "interrupted on {date_en} from {hour}:00 for about {n} hours. Residents are advised to "
        "store water in advance. We apologize for the inconvenience.\n{org_en}",
    ),
    (
        "Notice of public hearing",
        "The {org_en} will hold a public hearing on {date_en} at {hour}:00 in {room} to "
        "consider {topic}. Residents may comment in person or in writing to {name_en} before "
        "the hearing.",
    ),
    (
        "Contract award notice",
        "The {org_en} has awarded the contract for {project_en} to {company_en} in the amount "
        "of ${amount},000. Bidders may request a debriefing within {n} days by contacting "
        "{name_en} at {phone}.",
    ),
    (
        "Road closure: {street}",
        "{street} will be closed to through traffic between {a} and {b} from {date_en} to "
        "{date2_en} for {reason_en}. Detours will be posted. Questions: {name_en}, {phone}.",
    ),
)
_FILL = {
    "place": ("朝阳小区", "滨江花园", "幸福里社区", "东湖新村", "光明街道", "西山苑", "建设路片区"),
    "area": ("1至6号楼", "全部楼栋", "南区", "北区高层"),
    "reason": ("供水管道抢修", "二次供水设备维护", "市政管网改造", "水箱清洗消毒"),
    "org": ("市自来水公司", "区住房和城乡建设局", "市第一中学", "某某大学后勤处", "街道办事处"),
    "project": ("校园网络升级改造", "办公楼外墙翻新", "道路照明节能改造", "食堂设备采购"),
    "company": ("华信工程有限公司", "远景科技股份有限公司", "宏达建设集团", "蓝天信息技术有限公司"),
    "name": ("王老师", "李先生", "张女士", "刘主任", "陈经理", "赵科长"),
    "holiday": ("国庆节", "春节", "清明节", "劳动节", "端午节", "中秋节"),
    "post": ("软件工程师", "行政助理", "销售代表", "会计", "数据分析师"),
    "meeting": ("年度工作总结会", "安全生产专题会议", "家长会", "教职工大会"),
    "who": ("同事", "老师", "家长", "委员"),
    "mail": ("huaxin.cn", "yuanjing.com", "hongda.cn", "lantian.net"),
    "reason_en": ("main repairs", "valve replacement", "pipeline upgrades", "tank cleaning"),
    "street": ("Maple Street", "Oak Avenue", "River Road", "5th Street", "Hill Drive"),
    "a": ("1st Avenue", "Pine Street", "the bridge", "Elm Street"),
    "b": ("Cedar Lane", "Park Road", "the school", "Main Street"),
    "org_en": ("City Water Department", "County Planning Board", "Town Council", "Parks Office"),
    "room": ("City Hall, Room 201", "the Public Library", "Council Chambers"),
    "topic": ("the proposed zoning change", "the 2027 budget", "a new bike lane", "park hours"),
    "project_en": ("roof repairs at the library", "street lighting", "school buses"),
    "company_en": ("Acme Builders Inc.", "Northwind Services LLC", "Bluewater Co."),
    "name_en": ("Ms. Lee", "Mr. Patel", "Dr. Gomez", "Ms. Brown"),
}


def fill_templates(rng: random.Random, lang: str, n: int) -> list[Page]:
    """One notice template, ``n`` times with different names, dates, amounts, places."""
    title_t, body_t = rng.choice(ZH_NOTICE_TEMPLATES if lang == "zh" else EN_NOTICE_TEMPLATES)
    pages: list[Page] = []
    seen: set[str] = set()
    while len(pages) < n:
        fill = {k: rng.choice(v) for k, v in _FILL.items()}
        fill.update(
            date=_date(rng, "zh"),
            date2=_date(rng, "zh"),
            date_en=_date(rng, "en"),
            date2_en=_date(rng, "en"),
            hour=rng.randint(7, 20),
            n=rng.randint(2, 12),
            amount=rng.randint(12, 980),
            phone=f"0{rng.randint(10, 99)}-{rng.randint(60000000, 89999999)}",
        )
        page = Page(title_t.format(**fill), body_t.format(**fill), lang)
        if page.text in seen:
            continue
        seen.add(page.text)
        pages.append(page)
    return pages


ZH_GENERIC_TITLES = ("公告", "通知", "新闻", "无标题", "说明", "转载", "资讯", "最新动态")
EN_GENERIC_TITLES = ("Untitled", "News", "Notice", "Home", "Article", "Update", "Announcement")


def generic_title(rng: random.Random, lang: str) -> str:
    return rng.choice(ZH_GENERIC_TITLES if lang == "zh" else EN_GENERIC_TITLES)


# --------------------------------------------------------------------------- big site templates

# Short texts (verse, notices, sayings, a software blurb) published by a site whose
# header, navigation, related links and footer are longer than the text itself. The
# block is fixed per site (its "related" lists are real titles chosen once); a page adds
# its own title and, on some sites, a date line and previous/next links.

BIG_KINDS = ("short_in_other_template", "short_plain")
BIG_FAMILY = "big_template_short"


@dataclass(frozen=True)
class BigSite:
    name: str
    host: str
    lang: str
    genres: tuple[tuple[str, float], ...]  # what it publishes (corpus genre or "notice")
    nav: tuple[str, ...]
    top: tuple[str, ...]  # lines above the page's own lines, as a text extraction has them
    bottom: tuple[str, ...]  # lines below the text
    bottom_tags: tuple[str, ...]  # "h" heading, "li" link, "p" footer line (for the HTML)
    pool: tuple[str, ...]  # real titles for the previous/next links
    title_form: str  # the <title> of a page: "{t}_{site}", "{t} | {site}" ...
    layout: int  # which big HTML layout (0..2)
    meta: bool  # a per-page date line under the title
    prev_next: bool  # per-page previous/next links under the text

    @property
    def block_lines(self) -> int:
        return len(self.top) + len(self.bottom)

    @property
    def block_chars(self) -> int:
        return sum(len(x) + 1 for x in (*self.top, *self.bottom))


_BIG_SPECS: tuple[dict, ...] = (
    {
        "name": "古韵诗词网",
        "host": "guyun-shici.cn",
        "lang": "zh",
        "slogan": "品读千年诗词之美",
        "nav": ("首页", "唐诗", "宋词", "元曲", "诗人", "名句", "古籍", "专题", "论坛"),
        "section": "诗文",
        "genres": (("verse", 0.6), ("saying", 0.4)),
        "keywords": ("李白", "杜甫", "苏轼", "春江花月夜", "静夜思", "水调歌头", "将进酒"),
        "ticker": "网站公告：本站已全面支持手机访问，扫描底部二维码即可收藏。",
        "lists": (("相关推荐", 8), ("热门诗文", 6), ("名句赏析", 5)),
        "icp": ("京", "京公网安备 11010802031245号"),
        "extra": (
            "本站诗文内容均来自网络公开资料，仅供学习参考。",
            "如发现错误请联系 jiucuo@guyun-shici.cn，我们将及时更正。",
        ),
        "title_form": "{t}_{site}",
        "meta": False,
        "prev_next": True,
    },
    {
        "name": "城南区人民政府门户网站",
        "host": "chengnan-zwgk.cn",
        "lang": "zh",
        "slogan": "政务公开 · 便民服务",
        "nav": ("首页", "政务公开", "通知公告", "政策文件", "办事服务", "互动交流", "走进城南"),
        "section": "通知公告",
        "genres": (("notice", 0.6), ("saying", 0.4)),
        "keywords": ("社保查询", "公积金", "户籍办理", "停水通知", "招聘", "放假安排"),
        "ticker": "无障碍浏览 | 长者模式 | 简体 | 繁體",
        "lists": (("相关公告", 7), ("政策解读", 5), ("廉政格言", 4)),
        "icp": ("浙", "浙公网安备 33010202001577号"),
        "extra": (
            "主办单位：城南区人民政府办公室　承办单位：城南区大数据发展中心",
            "网站标识码：3301020012　政府网站找错　网站地图",
            "建议使用1366×768分辨率、Chrome或Edge浏览器访问本站",
        ),
        "title_form": "{t} - {site}",
        "meta": True,
        "prev_next": False,
    },
    {
        "name": "绿色软件园",
        "host": "lvse-ruanjian.com",
        "lang": "zh",
        "slogan": "安全、绿色、免费的软件下载站",
        "nav": ("首页", "系统工具", "网络软件", "编程开发", "图形图像", "多媒体", "排行榜", "专题"),
        "section": "软件介绍",
        "genres": (("manpage", 0.35), ("manual", 0.35), ("help", 0.3)),
        "keywords": ("压缩", "输入法", "浏览器", "驱动", "终端", "编辑器", "数据库"),
        "ticker": "温馨提示：本站软件均经过安全检测，请放心下载。",
        "lists": (("同类软件", 8), ("下载排行", 6), ("最近更新", 5)),
        "icp": ("粤", "粤公网安备 44030502006893号"),
        "extra": (
            "本站所有软件均来自互联网或由用户上传，版权归原作者所有。",
            "下载说明：请勿使用第三方下载工具，以免文件损坏；如遇无法下载请联系客服。",
            "软件投递 | 下载帮助 | 广告合作 | 联系我们",
        ),
        "title_form": "{t}下载_{site}",
        "meta": True,
        "prev_next": True,
    },
    {
        "name": "The Quotation Archive",
        "host": "quotation-archive.example.org",
        "lang": "en",
        "slogan": "Words worth keeping, since 2003",
        "nav": ("Home", "Quotes", "Authors", "Topics", "Quote of the Day", "Proverbs", "Submit"),
        "section": "Quotes",
        "genres": (("fortune", 1.0),),
        "keywords": ("love", "wisdom", "computers", "work", "friendship", "humor"),
        "ticker": "New: browse quotations by decade and by the first word.",
        "lists": (("Related quotations", 8), ("Most shared this week", 6), ("Random picks", 4)),
        "icp": None,
        "extra": (
            "Quotations are believed to be in the public domain unless noted otherwise.",
            "The Quotation Archive is a volunteer project and carries no advertising.",
            "Corrections and sources: editors@quotation-archive.example.org",
        ),
        "title_form": "{t} | {site}",
        "meta": False,
        "prev_next": True,
    },
    {
        "name": "Maple County Public Notices",
        "host": "notices.maplecounty.example.gov",
        "lang": "en",
        "slogan": "Official notices of Maple County government",
        "nav": ("Home", "Departments", "Public Notices", "Meetings", "Permits", "Jobs", "Parks"),
        "section": "Public Notices",
        "genres": (("notice", 0.65), ("fortune", 0.35)),
        "keywords": ("trash pickup", "property tax", "building permit", "road work", "parks"),
        "ticker": "Alert: County offices will open at 10 a.m. on days of severe weather.",
        "lists": (("Recent notices", 7), ("Upcoming meetings", 5), ("Thought for the day", 3)),
        "icp": None,
        "extra": (
            "Maple County Government Center, 200 Main Street, Maple, OH 43001",
            "Phone (555) 010-2000 · Office hours Monday to Friday, 8:00 a.m. to 4:30 p.m.",
            "This site is maintained by the Maple County Office of Information Technology.",
            "Website accessibility | Public records requests | Employee login",
        ),
        "title_form": "{t} - {site}",
        "meta": True,
        "prev_next": False,
    },
    {
        "name": "PkgShelf",
        "host": "pkgshelf.example.com",
        "lang": "en",
        "slogan": "Find, compare and download open-source software",
        "nav": ("Home", "Browse", "Categories", "New releases", "Popular", "Developers", "Blog"),
        "section": "Packages",
        "genres": (
            ("pydoc", 0.3),
            ("manpage", 0.2),
            ("manual", 0.2),
            ("flask", 0.1),
            ("help", 0.1),
            ("perldoc", 0.1),
        ),
        "keywords": ("editor", "terminal", "python", "backup", "compression", "database"),
        "ticker": "PkgShelf now lists more than 40,000 packages from 12 distributions.",
        "lists": (("Similar packages", 8), ("Trending downloads", 6), ("Recently updated", 5)),
        "icp": None,
        "extra": (
            "PkgShelf is not affiliated with the authors of the software listed.",
            "Trademarks belong to their respective owners. Descriptions are quoted from the "
            "projects' documentation.",
            "Report a broken download | Request a package | API | Status",
        ),
        "title_form": "{t} — download and reviews | {site}",
        "meta": True,
        "prev_next": True,
    },
)

_ZH_ACCOUNT = (
    "登录 | 注册 | 投稿 | 手机版 | 网站地图",
    "设为首页 | 加入收藏 | 移动版 | 用户中心",
    "用户中心 | 我的收藏 | 意见反馈 | 帮助中心",
)
_EN_ACCOUNT = (
    "Sign in | Register | Newsletter | Donate",
    "Log in | Create account | Help | Contact us",
    "My account | Saved items | Newsletter | Help",
)


_NOT_IN_LINK = re.compile(r"[│|&<>{}\\]|\[url|^[-(\[*/.,;:'\"]")


def link_title(title: str) -> bool:
    """Whether a title reads as a link's text (not a table row, code or a fragment)."""
    return not _NOT_IN_LINK.search(title.strip())


def make_big_sites(
    rng: random.Random, titles: dict[tuple[str, str], Sequence[str]]
) -> dict[str, list[BigSite]]:
    """The big-template sites of each language, their blocks fixed for the seed.

    ``titles`` maps (language, genre) to real titles; a site's related-links lists are
    drawn from the titles of the genres it publishes (notice titles are filled in)."""
    out: dict[str, list[BigSite]] = {"zh": [], "en": []}
    names = {lang: [s[0] for s in t] for lang, t in (("zh", _ZH_SITES), ("en", _EN_SITES))}
    for i, spec in enumerate(_BIG_SPECS):
        lang, zh = spec["lang"], spec["lang"] == "zh"
        pool: list[str] = []
        for genre, _w in spec["genres"]:
            if genre == "notice":
                pool += [p.title for p in fill_templates(rng, lang, 20)]
            else:
                pool += list(titles.get((lang, genre), ()))
        pool = sorted(set(pool))
        rng.shuffle(pool)
        need = sum(k for _h, k in spec["lists"])
        if len(pool) < need + 10:  # a corpus without the genre: any titles of the language
            extra = sorted(
                {t for (lg, _g), ts in titles.items() if lg == lang for t in ts} - set(pool)
            )
            pool += rng.sample(extra, min(len(extra), need + 40))
        sep = rng.choice((" | ", " · ", "  ") if not zh else (" | ", "  ", " · "))
        top = [
            f"{spec['name']} — {spec['slogan']}",
            sep.join(spec["nav"]),
            rng.choice(_ZH_ACCOUNT if zh else _EN_ACCOUNT),
            ("热门搜索：" if zh else "Popular searches: ") + " ".join(spec["keywords"]),
            spec["ticker"],
            (
                f"当前位置：首页 > {spec['section']} > 正文"
                if zh
                else f"You are here: Home > {spec['section']}"
            ),
        ]
        bottom: list[str] = []
        tags: list[str] = []
        used = 0
        share = "分享到：微信 微博 QQ空间 复制链接" if zh else "Share: Email · Facebook · X · Print"
        if rng.random() < 0.7:
            bottom.append(share)
            tags.append("p")
        for heading, k in spec["lists"]:
            bottom.append(heading)
            tags.append("h")
            for t in pool[used : used + k]:
                bottom.append(t)
                tags.append("li")
            used += k
        friends = rng.sample(names[lang], 5)
        year = rng.randint(2003, 2014)
        footer = [
            (
                "关于我们 | 联系我们 | 广告服务 | 投稿须知 | 免责声明 | 网站地图"
                if zh
                else "About us | Contact | Privacy policy | Terms of use | Accessibility | Sitemap"
            ),
            ("友情链接：" if zh else "Partner sites: ") + (" " if zh else " · ").join(friends),
            *spec["extra"],
            (
                f"Copyright © {year}-2026 {spec['name']} 版权所有"
                if zh
                else f"© {year}–2026 {spec['name']}. All rights reserved."
            ),
        ]
        if spec["icp"]:
            prov, police = spec["icp"]
            footer.append(f"{prov}ICP备{rng.randint(10000000, 99999999)}号-{rng.randint(1, 5)}")
            footer.append(police)
            footer.append(
                f"违法和不良信息举报电话：0{rng.randint(10, 99)}-{rng.randint(60000000, 89999999)}"
                f"　举报邮箱：jubao@{spec['host']}"
            )
        bottom += footer
        tags += ["p"] * len(footer)
        out[lang].append(
            BigSite(
                spec["name"],
                spec["host"],
                lang,
                spec["genres"],
                spec["nav"],
                tuple(top),
                tuple(bottom),
                tuple(tags),
                tuple(pool[used : used + 200]),
                spec["title_form"],
                i % 3,
                spec["meta"],
                spec["prev_next"],
            )
        )
    return out


def notice(rng: random.Random, lang: str) -> Page:
    """One filled notice (water cut, award, holiday, hiring, meeting, road closure)."""
    return fill_templates(rng, lang, 1)[0]


def _page_lines(rng: random.Random, page: Page, site: BigSite) -> tuple[list[str], list[str]]:
    """The lines of one page around its text: title (and date line), previous/next links."""
    zh = site.lang == "zh"
    head = [page.title]
    if site.meta:
        n = rng.randint(30, 9999)
        head.append(
            f"发布时间：{_date(rng, 'zh')}　来源：{site.name}　浏览次数：{n}"
            if zh
            else f"Posted {_date(rng, 'en')} · {n} views"
        )
    tail: list[str] = []
    if site.prev_next and len(site.pool) >= 2:
        a, b = rng.sample(list(site.pool), 2)
        tail = [f"上一篇：{a}", f"下一篇：{b}"] if zh else [f"Previous: {a}", f"Next: {b}"]
    return head, tail


_BIG_LAYOUTS = (
    ("header", "nav", "div", "article", "aside", "footer"),
    ("div", "div", "div", "div", "div", "div"),
    ("header", "ul", "section", "main", "div", "footer"),
)


def big_template_html(rng: random.Random, page: Page, site: BigSite) -> str:
    """The page in the big site's HTML: header lines, navigation, title, the text's
    paragraphs, related lists in a sidebar, footer lines."""
    esc = _html.escape
    head, tail = _page_lines(rng, page, site)
    hdr, navt, wrap, art, side, foot = _BIG_LAYOUTS[site.layout % len(_BIG_LAYOUTS)]
    nav = "".join(f'<li><a href="/{i}/">{esc(n)}</a></li>' for i, n in enumerate(site.nav))
    if navt != "ul":
        nav = f"<ul>{nav}</ul>"
    tops = [site.top[0], *site.top[2:]]  # top[1] is the navigation line
    top_html = "\n".join(f'<div class="top-{k}">{esc(x)}</div>' for k, x in enumerate(tops))
    meta = "".join(f'<div class="info">{esc(x)}</div>' for x in head[1:])
    body = "\n".join(f"<p>{esc(p)}</p>" for p in paragraphs(page.text))
    pn = "".join(f'<a href="/p/{rng.randint(1000, 99999)}.html">{esc(x)}</a><br>' for x in tail)
    side_html, foot_html, in_list = [], [], False
    for line, tag in zip(site.bottom, site.bottom_tags, strict=True):
        if tag == "li":
            if not in_list:
                side_html.append("<ul>")
                in_list = True
            side_html.append(
                f'<li><a href="/a/{rng.randint(10000, 99999)}.html">{esc(line)}</a></li>'
            )
            continue
        if in_list:
            side_html.append("</ul>")
            in_list = False
        if tag == "h":
            side_html.append(f"<h3>{esc(line)}</h3>")
        else:
            foot_html.append(f"<p>{esc(line)}</p>")
    if in_list:
        side_html.append("</ul>")
    title = site.title_form.format(t=page.title, site=site.name)
    lang = "zh-CN" if site.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title></head>\n<body>\n"
        f'<{hdr} class="site-header">\n{top_html}\n<{navt} class="mainnav">'
        f"{nav}</{navt}></{hdr}>\n"
        f'<{wrap} class="wrapper">\n<{art} class="article">\n<h1>{esc(page.title)}</h1>{meta}\n'
        f'<div class="content">\n{body}\n</div>\n<div class="prenext">{pn}</div>\n</{art}>\n'
        f'<{side} class="sidebar">\n' + "\n".join(side_html) + f"\n</{side}>\n</{wrap}>\n"
        f'<{foot} class="site-footer">\n' + "\n".join(foot_html) + f"\n</{foot}>\n</body></html>\n"
    )


def in_big_template(rng: random.Random, page: Page, site: BigSite, as_html: bool) -> Page:
    """A short page as the big site serves it: as HTML in its template, or as a text
    extraction has it (the block's lines above and below the page's own lines)."""
    title = site.title_form.format(t=page.title, site=site.name)
    if as_html:
        return replace(page, title=title, html=big_template_html(rng, page, site))
    head, tail = _page_lines(rng, page, site)
    text = join([*site.top, *head, page.text, *tail, *site.bottom])
    return replace(page, title=title, text=text, html=None)


def short_plain(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """A short text reposted bare: the text alone, sometimes with a one-line credit."""
    page = replace(page, html=None)
    if rng.random() < 0.3:
        zh = page.lang == "zh"
        credit = f"（来源：{src}）" if zh else f"(via {src})"
        return replace(page, text=join([page.text, credit]))
    return page


# --------------------------------------------------------------------------- standard headings

# Man-page and help-centre sites: every page carries the site's standard section
# headings ("NAME", "DESCRIPTION", "SEE ALSO", "KEYWORDS", "相关条目", "参见", a
# translator's credit lines ...) and footer, and a short page has only its name line
# and a few lines of its own under them. Two such pages are different documents
# (family ``standard_headings_short``), a short one is not part of a longer one of the
# site; a repost of a short page elsewhere (``standard_headings_repost``) is a copy.

HEADINGS_FAMILY = "standard_headings_short"
HEADINGS_KINDS = ("standard_headings_repost",)


@dataclass(frozen=True)
class HeadingSite:
    name: str
    host: str
    lang: str
    genres: tuple[tuple[str, float], ...]  # the short texts it publishes (corpus genres)
    top: tuple[str, ...]  # header lines above the page's title
    name_heading: str | None  # the heading above the page's name line ("NAME"), or none
    text_heading: str  # the heading above the page's own lines ("DESCRIPTION")
    sections: tuple[tuple[str, tuple[str, ...]], ...]  # standard headings after, fixed lines
    bottom: tuple[str, ...]  # footer lines
    title_form: str  # the <title> of a page

    @property
    def furniture(self) -> tuple[str, ...]:
        """Every line the site puts on each page, whatever the page says."""
        heads = (self.name_heading,) if self.name_heading else ()
        secs = tuple(x for h, ls in self.sections for x in (h, *ls))
        return (*self.top, *heads, self.text_heading, *secs, *self.bottom)


_HEADING_SPECS: tuple[dict, ...] = (
    {
        "name": "Linux 中文手册",
        "host": "linux-shouce.cn",
        "lang": "zh",
        "genres": (("manpage", 0.6), ("manual", 0.4)),
        "top": (
            "Linux 中文手册 — 命令、系统调用与配置文件的中文说明",
            "首页 | 用户命令 | 系统调用 | 库函数 | 文件格式 | 系统管理 | 关于本站",
            "当前位置：首页 > 手册页 > 正文",
        ),
        "name_heading": "名称 NAME",
        "text_heading": "描述 DESCRIPTION",
        "sections": (
            ("参见 SEE ALSO", ("man(1), info(1), apropos(1)",)),
            ("关键字 KEYWORDS", ()),
            ("[中文版维护人]", ("{editor} <{mail}@linux-shouce.cn>",)),
            ("[中文版最新更新]", ("{date}",)),
            ("《Linux 中文手册翻译计划》：", ("https://linux-shouce.cn/translate",)),
            ("跋", ("本页面中文版由 Linux 中文手册翻译计划提供。",)),
        ),
        "bottom": (
            "关于本站 | 联系我们 | 参与翻译 | 报告错误 | 网站地图",
            "本站手册页依照原软件的许可证发布，译文版权归各译者所有。",
            "Copyright © {year}-2026 Linux 中文手册 版权所有",
            "京ICP备{icp}号-1",
        ),
        "title_form": "{t} - Linux 中文手册",
    },
    {
        "name": "云帆软件帮助中心",
        "host": "help.yunfan-soft.cn",
        "lang": "zh",
        "genres": (("help", 0.4), ("manual", 0.4), ("manpage", 0.2)),
        "top": (
            "云帆软件帮助中心",
            "首页 | 快速入门 | 常见问题 | 操作指南 | 下载中心 | 联系客服",
            "搜索帮助文档",
            "当前位置：帮助中心 > 常见问题 > 正文",
        ),
        "name_heading": None,
        "text_heading": "说明",
        "sections": (
            ("相关条目", ("返回目录",)),
            ("参见", ("常见问题汇总", "联系技术支持")),
            ("关键词", ()),
            ("本文是否对您有帮助？", ("有帮助 | 没帮助",)),
        ),
        "bottom": (
            "仍有疑问？请拨打客服热线 400-{phone} 或在线提交工单。",
            "Copyright © {year}-2026 云帆软件 版权所有",
            "粤ICP备{icp}号",
        ),
        "title_form": "{t}_云帆软件帮助中心",
    },
    {
        "name": "ManPages Online",
        "host": "manpages-online.example.org",
        "lang": "en",
        "genres": (("manpage", 0.4), ("pydoc", 0.3), ("perldoc", 0.3)),
        "top": (
            "ManPages Online — Linux and Unix manual pages",
            "Home | Commands | System calls | Library | File formats | Admin | About",
        ),
        "name_heading": "NAME",
        "text_heading": "DESCRIPTION",
        "sections": (
            ("SEE ALSO", ("man(1), apropos(1), info(1)",)),
            ("KEYWORDS", ()),
            (
                "COLOPHON",
                (
                    "This page is part of the ManPages Online collection. A description of "
                    "the collection and how to report bugs is on the About page.",
                ),
            ),
        ),
        "bottom": (
            "Home | Search | Contribute | Report an error | Privacy",
            "© {year}–2026 ManPages Online. Pages are distributed under their original licenses.",
        ),
        "title_form": "{t} — ManPages Online",
    },
    {
        "name": "Riverside Apps Help Center",
        "host": "help.riverside-apps.example.com",
        "lang": "en",
        "genres": (("help", 0.3), ("flask", 0.3), ("pydoc", 0.2), ("manual", 0.2)),
        "top": (
            "Riverside Apps Help Center",
            "Getting started | Account | Billing | Troubleshooting | Contact support",
            "Search help articles",
        ),
        "name_heading": None,
        "text_heading": "Overview",
        "sections": (
            ("Related topics", ("Getting started",)),
            ("See also", ("Contact support",)),
            ("Keywords", ()),
            ("Was this article helpful?", ("Yes | No",)),
        ),
        "bottom": (
            "Still need help? Submit a request and our team will reply within one business day.",
            "© {year}–2026 Riverside Apps, Inc. All rights reserved.",
            "Terms | Privacy | Cookie settings",
        ),
        "title_form": "{t} | Riverside Apps Help Center",
    },
)


def make_heading_sites(rng: random.Random) -> dict[str, list[HeadingSite]]:
    """The standard-heading sites of each language, their furniture fixed for the seed."""
    out: dict[str, list[HeadingSite]] = {"zh": [], "en": []}
    for spec in _HEADING_SPECS:
        fill = {
            "editor": rng.choice(ZH_EDITORS),
            "mail": f"tr{rng.randint(100, 999)}",
            "date": f"{rng.randint(2003, 2012)}/{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}",
            "year": rng.randint(2003, 2014),
            "icp": rng.randint(10000000, 99999999),
            "phone": f"{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
        }
        out[spec["lang"]].append(
            HeadingSite(
                spec["name"],
                spec["host"],
                spec["lang"],
                spec["genres"],
                tuple(x.format(**fill) for x in spec["top"]),
                spec["name_heading"],
                spec["text_heading"],
                tuple((h, tuple(x.format(**fill) for x in ls)) for h, ls in spec["sections"]),
                tuple(x.format(**fill) for x in spec["bottom"]),
                spec["title_form"],
            )
        )
    return out


def headings_body(page: Page, site: HeadingSite) -> str:
    """The page's lines between the site's header and footer: the standard headings,
    the name line and the page's own paragraphs under them."""
    lines = [site.name_heading, page.title] if site.name_heading else []
    lines += [site.text_heading, *paragraphs(page.text)]
    for heading, fixed in site.sections:
        lines += [heading, *fixed]
    return join(lines)


def headings_html(page: Page, body: str, site: HeadingSite, title: str) -> str:
    esc = _html.escape
    heads = {site.name_heading, site.text_heading, *(h for h, _ls in site.sections)}
    main = "\n".join(
        f"<h2>{esc(x)}</h2>" if x in heads else f"<p>{esc(x)}</p>" for x in paragraphs(body)
    )
    top = "\n".join(f'<div class="top-{k}">{esc(x)}</div>' for k, x in enumerate(site.top))
    foot = "\n".join(f"<p>{esc(x)}</p>" for x in site.bottom)
    lang = "zh-CN" if site.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title></head>\n<body>\n"
        f'<header class="site-header">\n{top}\n</header>\n'
        f'<main class="doc">\n<h1>{esc(page.title)}</h1>\n{main}\n</main>\n'
        f'<footer class="site-footer">\n{foot}\n</footer>\n</body></html>\n'
    )


def in_heading_template(page: Page, site: HeadingSite, as_html: bool) -> tuple[Page, Page]:
    """The page as the site serves it (as HTML, or as a text extraction has it: header,
    title, headings and own lines, footer) and its base (the lines between header and
    footer, what a repost copies)."""
    body = headings_body(page, site)
    base = Page(page.title, body, page.lang)
    title = site.title_form.format(t=page.title, site=site.name)
    if as_html:
        return replace(base, title=title, html=headings_html(page, body, site, title)), base
    return Page(title, join([*site.top, page.title, body, *site.bottom]), page.lang), base


def headings_repost(rng: random.Random, page: Page, site: Site, src: str = "") -> Page:
    """A short page of a standard-heading site reposted on another site: its headings
    and lines, under a source line or above a credit."""
    page = replace(page, html=None)
    if rng.random() < 0.6:
        return replace(page, text=join([source_line_text(rng, page, site, src), page.text]))
    credit = f"（来源：{src}）" if page.lang == "zh" else f"(Source: {src})"
    return replace(page, text=join([page.text, credit]))


# --------------------------------------------------------------------------- rotating sidebars

# Sites whose template puts a "related articles" sidebar of real corpus titles on every
# page, a different subset in a different order on each page: many pages share many
# lines that are not their content (family ``rotating_sidebar``). ``sidebar_rotated``
# is the same article served again by the site (another URL) with another rotation.

SIDEBAR_FAMILY = "rotating_sidebar"
SIDEBAR_KINDS = ("sidebar_rotated",)


@dataclass(frozen=True)
class SidebarSite:
    name: str
    host: str
    lang: str
    genres: tuple[tuple[str, float], ...]
    top: tuple[str, ...]
    bottom: tuple[str, ...]
    lists: tuple[tuple[str, int, int], ...]  # sidebar heading, fewest and most titles
    pool: tuple[str, ...]  # the real titles the sidebar rotates through
    sidebar_first: bool  # a left column: its lines come before the article's
    title_form: str


Sidebar = tuple[tuple[str, tuple[str, ...]], ...]

_SIDEBAR_SPECS: tuple[dict, ...] = (
    {
        "name": "溪山读书笔记",
        "host": "xishan-dushu.cn",
        "lang": "zh",
        "genres": (("saying", 0.5), ("verse", 0.3), ("manual", 0.2)),
        "top": (
            "溪山读书笔记 — 读书、摘抄与随想",
            "首页 | 读书 | 摘抄 | 诗词 | 随笔 | 归档 | 关于",
        ),
        "bottom": (
            "本站文章除注明外均为原创，转载请注明出处。",
            "© {year}-2026 溪山读书笔记 · 蜀ICP备{icp}号",
        ),
        "lists": (("相关文章", 5, 7), ("猜你喜欢", 4, 6)),
        "sidebar_first": False,
        "title_form": "{t} | 溪山读书笔记",
    },
    {
        "name": "码上学堂",
        "host": "mashang-xuetang.com",
        "lang": "zh",
        "genres": (("manual", 0.5), ("manpage", 0.5)),
        "top": (
            "码上学堂 — 编程与运维教程",
            "首页 | Linux | Python | 数据库 | 运维 | 问答 | 专题",
            "登录 | 注册",
        ),
        "bottom": (
            "关于我们 | 投稿 | 联系方式 | 隐私政策",
            "Copyright © {year}-2026 码上学堂 沪ICP备{icp}号",
        ),
        "lists": (("相关教程", 5, 8), ("热门文章", 4, 6)),
        "sidebar_first": True,
        "title_form": "{t}_码上学堂",
    },
    {
        "name": "Fieldnotes Magazine",
        "host": "fieldnotes.example.org",
        "lang": "en",
        "genres": (("fortune", 0.6), ("manual", 0.4)),
        "top": ("Fieldnotes Magazine", "Home | Essays | Notes | Quotes | Archive | About"),
        "bottom": (
            "Fieldnotes Magazine is reader-supported. Subscribe to the weekly letter.",
            "© {year}–2026 Fieldnotes Magazine",
        ),
        "lists": (("Related articles", 5, 7), ("You might also like", 4, 6)),
        "sidebar_first": False,
        "title_form": "{t} | Fieldnotes Magazine",
    },
    {
        "name": "Stack Garden Tutorials",
        "host": "stackgarden.example.com",
        "lang": "en",
        "genres": (("pydoc", 0.5), ("flask", 0.3), ("manual", 0.2)),
        "top": (
            "Stack Garden Tutorials",
            "Tutorials | Python | Web | Linux | Databases | Newsletter",
            "Sign in | Join",
        ),
        "bottom": (
            "About | Write for us | Privacy | Terms",
            "© {year}–2026 Stack Garden. Code samples are MIT licensed.",
        ),
        "lists": (("Related tutorials", 5, 8), ("Popular this week", 4, 6)),
        "sidebar_first": True,
        "title_form": "{t} - Stack Garden Tutorials",
    },
)
SIDEBAR_POOL = (16, 20)  # titles a site's sidebar rotates through


def make_sidebar_sites(
    rng: random.Random, titles: Mapping[tuple[str, str], Sequence[str]]
) -> dict[str, list[SidebarSite]]:
    """The rotating-sidebar sites of each language; a site's pool is real titles of the
    genres it publishes (any titles of the language when those are too few)."""
    out: dict[str, list[SidebarSite]] = {"zh": [], "en": []}
    for spec in _SIDEBAR_SPECS:
        lang = spec["lang"]
        pool = sorted({t for g, _w in spec["genres"] for t in titles.get((lang, g), ())})
        k = rng.randint(*SIDEBAR_POOL)
        if len(pool) < k:
            pool = sorted({t for (lg, _g), ts in titles.items() if lg == lang for t in ts})
        fill = {"year": rng.randint(2008, 2016), "icp": rng.randint(10000000, 99999999)}
        out[lang].append(
            SidebarSite(
                spec["name"],
                spec["host"],
                lang,
                spec["genres"],
                spec["top"],
                tuple(x.format(**fill) for x in spec["bottom"]),
                spec["lists"],
                tuple(rng.sample(pool, min(k, len(pool)))),
                spec["sidebar_first"],
                spec["title_form"],
            )
        )
    return out


def draw_sidebar(rng: random.Random, site: SidebarSite) -> Sidebar:
    """One page's sidebar: for each list, its heading and titles of the pool (distinct
    across the lists), a fresh subset in a fresh order."""
    sizes = [rng.randint(lo, hi) for _h, lo, hi in site.lists]
    picks = rng.sample(list(site.pool), min(len(site.pool), sum(sizes)))
    out, at = [], 0
    for (heading, _lo, _hi), k in zip(site.lists, sizes, strict=True):
        out.append((heading, tuple(picks[at : at + k])))
        at += k
    return tuple(out)


def sidebar_lines(sidebar: Sidebar) -> list[str]:
    return [x for heading, items in sidebar for x in (heading, *items)]


def sidebar_html(
    rng: random.Random, page: Page, site: SidebarSite, sidebar: Sidebar, date: str, title: str
) -> str:
    esc = _html.escape
    top = "\n".join(f'<div class="top-{k}">{esc(x)}</div>' for k, x in enumerate(site.top))
    side = "\n".join(
        f"<h3>{esc(h)}</h3><ul>"
        + "".join(
            f'<li><a href="/p/{rng.randint(10000, 99999)}.html">{esc(t)}</a></li>' for t in items
        )
        + "</ul>"
        for h, items in sidebar
    )
    body = "\n".join(f"<p>{esc(p)}</p>" for p in paragraphs(page.text))
    art = (
        f'<article>\n<h1>{esc(page.title)}</h1>\n<div class="date">{esc(date)}</div>\n'
        f"{body}\n</article>"
    )
    aside = f'<aside class="related">\n{side}\n</aside>'
    cols = f"{aside}\n{art}" if site.sidebar_first else f"{art}\n{aside}"
    foot = "\n".join(f"<p>{esc(x)}</p>" for x in site.bottom)
    lang = "zh-CN" if site.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title></head>\n<body>\n"
        f'<header>\n{top}\n</header>\n<div class="columns">\n{cols}\n</div>\n'
        f"<footer>\n{foot}\n</footer>\n</body></html>\n"
    )


def in_sidebar_template(
    rng: random.Random, page: Page, site: SidebarSite, sidebar: Sidebar, as_html: bool
) -> Page:
    """The page with the site's header, its date line, the given sidebar (before or after
    the article) and footer: as HTML, or as a text extraction has it."""
    zh = site.lang == "zh"
    date = (
        f"发布于 {_date(rng, 'zh')}　阅读 {rng.randint(20, 9999)}"
        if zh
        else f"Published {_date(rng, 'en')} · {rng.randint(2, 15)} min read"
    )
    title = site.title_form.format(t=page.title, site=site.name)
    if as_html:
        return replace(page, title=title, html=sidebar_html(rng, page, site, sidebar, date, title))
    side = sidebar_lines(sidebar)
    art = [page.title, date, page.text]
    mid = [*side, *art] if site.sidebar_first else [*art, *side]
    return Page(title, join([*site.top, *mid, *site.bottom]), page.lang)
